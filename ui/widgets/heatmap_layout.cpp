// HeatmapWidget's geometry: fonts, the layout of titles, labels, cells and legend, the cells'
// rectangles, the size hints and zoom.
#include "widgets/heatmap_widget.h"

#include <QStyle>

#include <algorithm>
#include <cmath>

#include <QFontMetrics>
#include <QHash>
#include <QScrollBar>

namespace {

constexpr int kMaxFitCell = 64;
constexpr int kMaxCell = 1200;

// The widest of n labels (index numbers where labels run out). Shared by all heatmaps: every
// panel of a step has the same 512 feature indices or the same tokens, and measuring them was
// most of the cost of putting a new tensor on screen.
int widestLabel(const QStringList& labels, int n, const QFont& font) {
    static QHash<QString, int> cache;
    const QString key = QString::number(n) + QLatin1Char('|') + font.key() + QLatin1Char('|') +
                        labels.mid(0, n).join(QChar(0x1f));
    if (const auto it = cache.constFind(key); it != cache.constEnd()) return it.value();
    const QFontMetrics fm(font);
    int w = 0;
    for (int i = 0; i < n; ++i) w = std::max(w, fm.horizontalAdvance(i < labels.size() ? labels[i] : QString::number(i)));
    if (cache.size() > 512) cache.clear();
    cache.insert(key, w);
    return w;
}

// The smallest power of two >= n: label every 1st, 2nd, 4th, 8th ... row or column.
int niceStep(int n) {
    int s = 1;
    while (s < n) s *= 2;
    return s;
}

// Lines `text` takes wrapped at word boundaries into `width` (at least 1).
int wrappedLines(const QFontMetrics& fm, const QString& text, int width) {
    if (text.isEmpty() || fm.horizontalAdvance(text) <= width) return 1;
    const QRect r = fm.boundingRect(QRect(0, 0, std::max(1, width), 100000), Qt::TextWordWrap, text);
    return std::max(1, (r.height() + fm.height() - 1) / fm.height());
}

}  // namespace

// The height of `lines` lines of `text` wrapped into `width`: a line of Chinese is taller than
// the font's own line (its glyphs come from a taller fallback font), so measured, not counted.
int HeatmapWidget::wrappedHeight(const QFontMetrics& fm, const QString& text, int width, int lines) {
    if (lines <= 1) return fm.height();
    const QRect r = fm.boundingRect(QRect(0, 0, std::max(1, width), 100000), Qt::TextWordWrap, text);
    return std::max(lines * fm.height(), std::min(r.height(), lines * fm.height() * 3 / 2));
}

QFont HeatmapWidget::labelFont() const {
    QFont f = font();
    const double base = f.pointSizeF() > 0 ? f.pointSizeF() : 10.0;
    f.setPointSizeF(compact_ ? std::max(8.0, base - 1.0) : std::max(10.0, base));
    return f;
}

QFont HeatmapWidget::titleFont() const {
    QFont f = labelFont();
    f.setBold(true);
    if (!compact_) f.setPointSizeF(f.pointSizeF() + 1.0);
    return f;
}

QString HeatmapWidget::maskCaption() const {
    if (mask_.empty() && !hasFill_) return {};
    if (negInfFill_) return tr("ignored\n(= −∞)");
    return hasFill_ ? tr("masked\n(= −1e9)") : tr("masked");
}

int HeatmapWidget::labelExtent(bool rowsSide, const QFontMetrics& fm) const {
    int& cached = rowsSide ? rowLabelExtent_ : colLabelExtent_;
    if (cached >= 0 && labelFontKey_ == fm.height()) return cached;
    if (labelFontKey_ != fm.height()) {
        rowLabelExtent_ = colLabelExtent_ = -1;
        labelFontKey_ = fm.height();
    }
    const int n = rowsSide ? rows_ : cols_;
    cached = widestLabel(rowsSide ? rowLabels_ : colLabels_, n, labelFont());
    return cached;
}

int HeatmapWidget::minCellWidth(const QFontMetrics& fm) const {
    // Vertical column labels are one text line apart.
    return cols_ > 0 && cols_ <= 16 ? fm.ascent() + 1 : 0;
}

int HeatmapWidget::minCellHeight(const QFontMetrics& fm) const {
    if (rows_ > 0 && rows_ <= 16) return fm.height() - 2;
    return compact_ ? 3 : 4;
}

void HeatmapWidget::relayout() {
    if (inRelayout_) return;
    inRelayout_ = true;
    const QFont lf = labelFont();
    const QFontMetrics fm(lf);
    const QFontMetrics tfm(titleFont());
    const int pad = compact_ ? 3 : 6;
    const bool legend = showLegend_ && !compact_ && !isEmpty();
    const QString mcap = maskCaption();
    const QString colTitle = colTitle_ + QStringLiteral("\u00a0\u00a0→"), rowTitle = rowTitle_ + QStringLiteral("\u00a0\u00a0→");

    // The room starts as the whole widget, bars hidden, and loses a bar's width only where the
    // content needs that bar: a bar left visible from a smaller size would otherwise take the room
    // that made it unneeded (one bar's width makes the other needed, and both stay).
    const QRect whole = contentsRect();
    const int bar = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this);
    const auto takes = [](Qt::ScrollBarPolicy p, bool needed) { return p == Qt::ScrollBarAlwaysOn || (needed && p != Qt::ScrollBarAlwaysOff); };
    int W = whole.width() - (verticalScrollBarPolicy() == Qt::ScrollBarAlwaysOn ? bar : 0);
    int H = whole.height() - (horizontalScrollBarPolicy() == Qt::ScrollBarAlwaysOn ? bar : 0);
    int naturalLeft = 0, naturalRight = 0;
    for (int iter = 0; iter < 3; ++iter) {
        // Titles wrap over the whole width rather than being cut short.
        titleLines_ = title_.isEmpty() ? 1 : std::min(3, wrappedLines(tfm, title_, W - 2 * pad - 2));
        titleTextH_ = wrappedHeight(tfm, title_, W - 2 * pad - 2, titleLines_);
        titleH_ = title_.isEmpty() ? 0 : titleTextH_ + (compact_ ? 2 : 6);
        colTitleLines_ = (compact_ || colTitle_.isEmpty()) ? 1 : std::min(3, wrappedLines(fm, colTitle, W - 2 * pad - 2));
        colTitleH_ = (compact_ || colTitle_.isEmpty()) ? 0 : colTitleLines_ * fm.height() + 2;
        rowTitleLines_ = (compact_ || rowTitle_.isEmpty())
                             ? 1
                             : std::min(3, wrappedLines(fm, rowTitle, H - 2 * pad - titleH_ - 2));
        rowTitleW_ = (compact_ || rowTitle_.isEmpty()) ? 0 : rowTitleLines_ * fm.height() + 6;
        const int maxRow = labelExtent(true, fm);
        rowHeaderW_ = rows_ > 0 ? std::min(maxRow, rowLabelCap()) + 8 : 0;
        naturalLeft = rowTitleW_ + rowHeaderW_;
        rowHeaderW_ += std::max(0, minLeft_ - naturalLeft);  // room left of the labels
        const int maxCol = labelExtent(false, fm);

        // Column labels given and every one blank (small multiples that share the axis of a
        // neighbour): no line is kept for them.
        const bool blankCols = !colLabels_.isEmpty() &&
                               std::all_of(colLabels_.begin(), colLabels_.end(), [](const QString& l) { return l.isEmpty(); });
        const int horizHeader = blankCols ? 0 : fm.height() + 6;
        naturalRight = !legend ? 0
                       : binary_ ? fm.horizontalAdvance(negInfFill_ ? tr("−∞ = ignored") : tr("1 = masked")) + 16 + 8 + 14
                                 : cmap_.legendWidth(lf, legendCaption_, mcap) + 14;
        const int legendRightW = std::max(naturalRight, legend ? minRight_ : 0);
        const int legendBottomH = legend ? Colormap::horizontalLegendHeight(lf, !mcap.isEmpty() && !binary_) + 8 : 0;
        int availW = 1, availH = 1;
        double fitW = 1.0, fitH = 1.0;
        auto fits = [&](bool bottom, int header) {
            availW = std::max(1, W - 2 * pad - rowTitleW_ - rowHeaderW_ - (bottom ? 0 : legendRightW));
            availH = std::max(1, H - 2 * pad - titleH_ - colTitleH_ - header - (bottom ? legendBottomH : 0));
            fitW = cols_ ? double(availW) / cols_ : 1.0;
            fitH = rows_ ? double(availH) / rows_ : 1.0;
        };
        fits(true, horizHeader);
        const double bottomFitW = fitW, bottomFitH = fitH;
        fits(false, horizHeader);
        // Short of width but not of height: the legend goes under the cells (also when the cells
        // would be thin beside it and readable without it: a few columns in a narrow panel; not
        // for hundreds of columns, which scroll anyway and would leave the legend too short).
        // And when the cells of a few tokens would be narrower than their labels need beside it.
        const int minW = minCellWidth(fm);
        // Not when under the cells it would leave the rows of a few tokens too low for their
        // labels while beside them the columns have room.
        legendBottom_ = legend && ((fitW < fitH * 0.9 && (fitW >= 10.0 || (bottomFitW >= 1.5 * fitW && bottomFitW >= 8.0))) ||
                                   (fitW < minW && bottomFitW >= minW));
        if (legendBottom_ && bottomFitH < minCellHeight(fm) && fitW >= minW && fitH >= minCellHeight(fm)) legendBottom_ = false;
        if (legendBottom_) fits(true, horizHeader);

        // Fit fits: below 2 px a cell is a fraction of a pixel (whole pixels above, crisp edges);
        // an axis of a few tokens keeps every label readable (it scrolls instead).
        const double minH = minCellHeight(fm);
        const double fw = std::max(std::min(fitW, double(kMaxFitCell)), double(minW));
        double fh = std::clamp(fitH, minH, std::max(minH, double(kMaxFitCell)));
        const double bw = std::min(fw, std::max(fh, 28.0));
        const double w = bw * zoom_;
        cellW_ = w >= 2.0 ? std::clamp(std::floor(w), 2.0, double(kMaxCell)) : std::max(w, 0.02);

        colLabelsVertical_ = maxCol + 6 > cellW_;
        colHeaderH_ = horizHeader;
        colLabelStep_ = 1;
        if (colLabelsVertical_) {
            colHeaderH_ = std::min(maxCol, colLabelCap()) + 8;
            colLabelStep_ = niceStep(int(std::ceil(double(fm.ascent() + 1) / cellW_ - 1e-9)));
            fits(legendBottom_, colHeaderH_);
            fh = std::clamp(fitH, minH, std::max(minH, double(kMaxFitCell)));
        }
        const double bh = std::min(fh, std::max(fw, 28.0));
        cellH_ = std::clamp(int(std::floor(bh * zoom_)), 1, kMaxCell);
        rowLabelStep_ = cellH_ >= fm.height() - 2 ? 1 : niceStep(int(std::ceil(double(fm.height() - 2) / cellH_)));

        const int contentW = int(std::ceil(cols_ * cellW_ - 1e-6)), contentH = rows_ * cellH_;
        const int gridW = std::min(contentW, availW), gridH = std::min(contentH, availH);
        const int capH = legendCaption_.isEmpty() ? 0 : fm.height() + 4;
        int legendH = 0;
        if (legend && !legendBottom_)
            legendH = binary_ ? 2 * fm.height() + 16 : std::max(gridH + capH, mcap.isEmpty() ? 130 : 200);
        const int blockW = rowTitleW_ + rowHeaderW_ + gridW + (legend && !legendBottom_ ? legendRightW : 0);
        const int headH = titleH_ + colTitleH_ + colHeaderH_;
        const int blockH = headH + std::max(gridH, legendH - capH) + (legendBottom_ ? legendBottomH : 0);
        const int ox = std::max(0, (W - 2 * pad - blockW) / 2);
        int oy = std::max(0, (H - 2 * pad - blockH) / 2);
        // Centred no lower than leaves the row title its length under the title (it was wrapped
        // for the whole height).
        if (rowTitleW_ > 0)
            oy = rowTitleLines_ > 1 ? 0 : std::clamp(H - 2 * pad - titleH_ - fm.horizontalAdvance(rowTitle) - 4, 0, oy);
        origin_ = QPoint(pad + ox, pad + oy);
        const int gx = origin_.x() + rowTitleW_ + rowHeaderW_;
        const int gy = origin_.y() + headH;
        gridRect_ = QRect(gx, gy, gridW, gridH);
        if (!legend) {
            legendRect_ = QRect();
        } else if (legendBottom_) {
            const int left = gx - rowHeaderW_;
            const int right = std::min(W - pad, std::max(gridRect_.right(), left + 280));
            legendRect_ = QRect(left, gridRect_.bottom() + 10, right - left, legendBottomH - 8);
        } else {
            const int top = std::max(pad, gy - (binary_ ? 0 : capH));
            legendRect_ = QRect(gridRect_.right() + 14, top, legendRightW - 14, std::min(legendH, H - pad - top));
        }

        horizontalScrollBar()->setRange(0, std::max(0, contentW - availW));
        horizontalScrollBar()->setPageStep(availW);
        horizontalScrollBar()->setSingleStep(std::max(int(cellW_), 16));
        verticalScrollBar()->setRange(0, std::max(0, contentH - availH));
        verticalScrollBar()->setPageStep(availH);
        verticalScrollBar()->setSingleStep(std::max(cellH_, 16));
        const int nextW = whole.width() - (takes(verticalScrollBarPolicy(), contentH > availH) ? bar : 0);
        const int nextH = whole.height() - (takes(horizontalScrollBarPolicy(), contentW > availW) ? bar : 0);
        if (nextW == W && nextH == H) break;
        W = nextW;
        H = nextH;
    }
    inRelayout_ = false;
    if (naturalLeft != naturalLeft_ || naturalRight != naturalRight_) {
        naturalLeft_ = naturalLeft;
        naturalRight_ = naturalRight;
        emit sidesChanged();
    }
}

void HeatmapWidget::setMinimumSides(int left, int right) {
    if (left == minLeft_ && right == minRight_) return;
    minLeft_ = left;
    minRight_ = right;
    relayout();
    viewport()->update();
}

int HeatmapWidget::colX(int c) const {
    return gridRect_.left() + int(std::lround(c * cellW_)) - horizontalScrollBar()->value();
}

QRect HeatmapWidget::cellRectViewport(int r, int c) const {
    const int x0 = colX(c);
    return QRect(x0, gridRect_.top() + r * cellH_ - verticalScrollBar()->value(), std::max(1, colX(c + 1) - x0), cellH_);
}

QRect HeatmapWidget::cellRect(int r, int c) const {
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return {};
    return cellRectViewport(r, c).translated(viewport()->pos());
}

QPoint HeatmapWidget::cellAtViewport(const QPoint& p) const {
    if (isEmpty() || !gridRect_.contains(p)) return {-1, -1};
    const int c = int((p.x() - gridRect_.left() + horizontalScrollBar()->value()) / cellW_);
    const int r = (p.y() - gridRect_.top() + verticalScrollBar()->value()) / std::max(1, cellH_);
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return {-1, -1};
    return {r, c};  // x = row, y = col
}

QPoint HeatmapWidget::cellAt(const QPoint& widgetPos) const { return cellAtViewport(widgetPos - viewport()->pos()); }

void HeatmapWidget::ensureCellVisible(int r, int c) {
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return;
    const int x = int(std::lround(c * cellW_)), y = r * cellH_;
    const int w = std::max(1, int(std::lround((c + 1) * cellW_)) - x);
    auto* hb = horizontalScrollBar();
    auto* vb = verticalScrollBar();
    if (x < hb->value()) hb->setValue(x);
    if (x + w > hb->value() + gridRect_.width()) hb->setValue(x + w - gridRect_.width());
    if (y < vb->value()) vb->setValue(y);
    if (y + cellH_ > vb->value() + gridRect_.height()) vb->setValue(y + cellH_ - gridRect_.height());
}

bool HeatmapWidget::valuesShown() const {
    if (isEmpty()) return false;
    switch (valueText_) {
    case ValueText::Always: return true;
    case ValueText::Never: return false;
    case ValueText::Auto: break;
    }
    const QFontMetrics fm(labelFont());
    if (cellH_ < fm.height() + 2 || cellW_ < fm.horizontalAdvance(QStringLiteral("0")) + 6) return false;
    // Only when every visible number fits in its cell: a half-labelled matrix reads badly.
    const QRect cells = visibleCells();
    if (int64_t(cells.height()) * cells.width() > 20000) return false;
    for (int r = cells.top(); r <= cells.bottom(); ++r)
        for (int c = cells.left(); c <= cells.right(); ++c)
            if (fm.horizontalAdvance(cellText(r, c)) > cellW_ - 4) return false;
    return true;
}

QRect HeatmapWidget::visibleCells() const {
    const int hs = horizontalScrollBar()->value(), vs = verticalScrollBar()->value();
    const int c0 = std::clamp(int(hs / cellW_), 0, cols_ - 1);
    const int c1 = std::clamp(int((hs + gridRect_.width() - 1) / cellW_), 0, cols_ - 1);
    const int r0 = std::clamp(vs / cellH_, 0, rows_ - 1);
    const int r1 = std::clamp((vs + gridRect_.height() - 1) / cellH_, 0, rows_ - 1);
    return QRect(QPoint(c0, r0), QPoint(c1, r1));
}

QSize HeatmapWidget::sizeHint() const {
    const QFontMetrics fm(labelFont());
    const QFontMetrics tfm(titleFont());
    auto nat = [](int n) { return n <= 8 ? 48 : n <= 16 ? 32 : n <= 40 ? 16 : n <= 128 ? 6 : 2; };
    const int maxRow = labelExtent(true, fm);
    const int pad = compact_ ? 3 : 6;
    const int legend = (showLegend_ && !compact_) ? cmap_.legendWidth(labelFont(), legendCaption_, maskCaption()) + 14 : 0;
    const int w = 2 * pad + (compact_ || rowTitle_.isEmpty() ? 0 : fm.height() + 6) + maxRow + 8 +
                  std::min(std::max(cols_, 1) * nat(cols_), compact_ ? 240 : 900) + legend;
    const int h = 2 * pad + (title_.isEmpty() ? 0 : tfm.height() + 6) +
                  (compact_ || colTitle_.isEmpty() ? 0 : fm.height() + 2) + fm.height() + 8 +
                  std::max(std::min(std::max(rows_, 1) * nat(rows_), compact_ ? 200 : 640), compact_ ? 40 : 130);
    return {w, h};
}

QSize HeatmapWidget::minimumSizeHint() const {
    QSize m = compact_ ? QSize(60, 60) : QSize(120, 100);
    if (isEmpty()) return m;
    // Room for every label of an axis of a few tokens (the cells' minimum sizes).
    const QFontMetrics fm(labelFont());
    const QFontMetrics tfm(titleFont());
    const int pad = compact_ ? 3 : 6;
    const bool axisTitles = !compact_;
    const int rowTitleW = axisTitles && !rowTitle_.isEmpty() ? fm.height() + 6 : 0;
    const int rowHeaderW = std::min(labelExtent(true, fm), rowLabelCap()) + 8;
    const int maxCol = labelExtent(false, fm);
    if (cols_ <= 16) m.setWidth(std::max(m.width(), 2 * pad + rowTitleW + rowHeaderW + cols_ * minCellWidth(fm)));
    if (rows_ <= 16) {
        // The titles as wrapped at the minimum width, the legend under the cells.
        const int wrapW = m.width() - 2 * pad - 2;
        const int header = std::min(maxCol, colLabelCap()) + 8;  // vertical labels, the tallest case
        const int h = 2 * pad + (title_.isEmpty() ? 0 : wrappedHeight(tfm, title_, wrapW, wrappedLines(tfm, title_, wrapW)) + (compact_ ? 2 : 6)) +
                      (axisTitles && !colTitle_.isEmpty() ? wrappedLines(fm, colTitle_ + QStringLiteral("\u00a0\u00a0→"), wrapW) * fm.height() + 2 : 0) +
                      header + rows_ * minCellHeight(fm) +
                      (showLegend_ && !compact_ ? Colormap::horizontalLegendHeight(labelFont(), !maskCaption().isEmpty() && !binary_) + 8 : 0);
        m.setHeight(std::max(m.height(), h));
    }
    return m;
}

// ---------------------------------------------------------------- zoom

void HeatmapWidget::setZoom(double zoom) {
    zoom = std::clamp(zoom, 0.05, 40.0);
    if (std::fabs(zoom - zoom_) < 1e-9) return;
    const QPoint centre = gridRect_.isValid() ? gridRect_.center() : viewport()->rect().center();
    zoomAround(zoom, centre);
}

void HeatmapWidget::zoomIn() { setZoom(zoom_ * 1.25); }
void HeatmapWidget::zoomOut() { setZoom(zoom_ / 1.25); }
void HeatmapWidget::resetZoom() { setZoom(1.0); }

void HeatmapWidget::zoomAround(double newZoom, const QPoint& pos) {
    newZoom = std::clamp(newZoom, 0.05, 40.0);
    const double cx = double(pos.x() - gridRect_.left() + horizontalScrollBar()->value()) / cellW_;
    const double cy = double(pos.y() - gridRect_.top() + verticalScrollBar()->value()) / std::max(1, cellH_);
    const double oldW = cellW_;
    const int oldH = cellH_;
    zoom_ = newZoom;
    relayout();
    if (oldW != cellW_) horizontalScrollBar()->setValue(int(std::lround(cx * cellW_)) - (pos.x() - gridRect_.left()));
    if (oldH != cellH_) verticalScrollBar()->setValue(int(std::lround(cy * cellH_)) - (pos.y() - gridRect_.top()));
    viewport()->update();
    emit zoomChanged(zoom_);
}
