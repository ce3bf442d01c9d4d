#include "widgets/heatmap_widget.h"
#include "widgets/text_util.h"

#include "widgets/static_text_cache.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Core>
#include <QFontMetrics>
#include <QHash>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include "widgets/number_format.h"

namespace {

constexpr float kFillThreshold = 1e8f;  // |v| at or beyond this is a mask fill (-1e9)
constexpr int kMaxFitCell = 64;
constexpr int kMaxCell = 1200;
using ui_text::kMinus;

bool isFill(float v) { return std::isfinite(v) && std::fabs(v) >= kFillThreshold; }

// What rebuildColors needs from the values (a weight has a million): the range of the
// unmasked cells, the range of all cells (for when every cell is masked), fills, whole numbers,
// 0/1. NaN, inf and the -1e9 fills count for neither range. In Eigen's passes: one hand-written
// loop doing all of it measured slower (the compiler kept it scalar, even with omp simd).
struct ValueScan {
    float lo, hi, allLo, allHi;  // lo > hi: none
    bool fill, fraction, notZeroOne;
};

ValueScan scanValues(const std::vector<float>& values, const std::vector<unsigned char>& mask) {
    constexpr float inf = std::numeric_limits<float>::infinity();
    if (values.empty()) return {inf, -inf, inf, -inf, false, false, false};
    const Eigen::Map<const Eigen::ArrayXf> x(values.data(), Eigen::Index(values.size()));
    // The common case (a weight or an activation: no mask, no fills, no NaN) in three cheap
    // passes; the flags stop at the first cell that decides them. ~5x faster on a million cells.
    if (mask.empty()) {
        const float lo = x.minCoeff(), hi = x.maxCoeff();
        if (lo > -kFillThreshold && hi < kFillThreshold && !x.isNaN().any())
            return {lo, hi, lo, hi, false, (x != x.floor() || x.abs() > 1e6f).any(), (x != 0.0f && x != 1.0f).any()};
    }
    const auto a = x.abs();
    const auto plain = a < kFillThreshold;  // false for NaN, inf and the fills
    ValueScan s;
    s.allLo = plain.select(x, inf).minCoeff();
    s.allHi = plain.select(x, -inf).maxCoeff();
    s.fill = (a >= kFillThreshold && a <= std::numeric_limits<float>::max()).any();
    s.fraction = (plain && (x != x.floor() || a > 1e6f)).any();
    s.notZeroOne = (plain && x != 0.0f && x != 1.0f).any();
    if (mask.empty()) {
        s.lo = s.allLo;
        s.hi = s.allHi;
    } else {
        const Eigen::Map<const Eigen::Array<unsigned char, Eigen::Dynamic, 1>> m(mask.data(), Eigen::Index(mask.size()));
        const auto counted = plain && m == 0;
        s.lo = counted.select(x, inf).minCoeff();
        s.hi = counted.select(x, -inf).maxCoeff();
    }
    return s;
}

// scanValues for shared numbers, remembered while they live: the gradients view shows the same
// weights (a million numbers each) again as the student steps back and forth. A number set is
// the same while its owner is alive (shared numbers must not change while shown).
ValueScan scanShared(const std::shared_ptr<const std::vector<float>>& values, const std::vector<unsigned char>& mask) {
    if (!mask.empty() || values->size() < 4096) return scanValues(*values, mask);
    struct Seen {
        std::weak_ptr<const std::vector<float>> owner;
        const std::vector<float>* data;
        ValueScan scan;
    };
    static std::vector<Seen> seen;
    std::erase_if(seen, [](const Seen& s) { return s.owner.expired(); });
    for (const Seen& s : seen)
        if (s.data == values.get()) return s.scan;
    if (seen.size() >= 64) seen.erase(seen.begin());
    seen.push_back({values, values.get(), scanValues(*values, mask)});
    return seen.back().scan;
}

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

}  // namespace

HeatmapWidget::HeatmapWidget(QWidget* parent) : QAbstractScrollArea(parent) {
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    viewport()->setMouseTracking(true);
    viewport()->setAutoFillBackground(false);
    setMouseTracking(true);
    setFocusPolicy(Qt::WheelFocus);
    emptyMessage_ = tr("No data");
    setToolTip(QString());
    invalidate();
}

// ---------------------------------------------------------------- data

void HeatmapWidget::setMatrix(int rows, int cols, std::vector<float> values) {
    setMatrix(rows, cols, std::make_shared<const std::vector<float>>(std::move(values)));
}

void HeatmapWidget::setMatrix(int rows, int cols, std::shared_ptr<const std::vector<float>> values) {
    if (!values || rows <= 0 || cols <= 0 || values->size() != size_t(rows) * size_t(cols)) {
        rows = cols = 0;
        values = std::make_shared<const std::vector<float>>();
    }
    if (rows == rows_ && cols == cols_ && (values == values_ || *values == vals())) {
        // The same numbers (a step that shows the same mask, a view refilled in place): the
        // colours and the layout stand; only hover and highlights go, as for new numbers. The
        // new owner is kept (the old one, e.g. last step's weights, may go).
        values_ = std::move(values);
        if (hoverR_ >= 0 || hlRow_ >= 0 || hlCol_ >= 0) viewport()->update();
        hoverR_ = hoverC_ = -1;
        hlRow_ = hlCol_ = -1;
        return;
    }
    rows_ = rows;
    cols_ = cols;
    values_ = std::move(values);
    if (!mask_.empty() && mask_.size() != vals().size()) mask_.clear();
    hoverR_ = hoverC_ = -1;
    hlRow_ = hlCol_ = -1;
    rowLabelExtent_ = colLabelExtent_ = -1;
    invalidate();
}

void HeatmapWidget::setMask(std::vector<float> mask) {
    std::vector<unsigned char> m;
    if (!mask.empty() && mask.size() == vals().size()) {
        m.resize(mask.size());
        for (size_t i = 0; i < mask.size(); ++i) m[i] = mask[i] != 0.0f ? 1 : 0;
    }
    if (m == mask_) return;
    mask_ = std::move(m);
    invalidate();
}

void HeatmapWidget::clear() {
    mask_.clear();
    setMatrix(0, 0, std::vector<float>());
}

void HeatmapWidget::setRowLabels(const QStringList& labels) {
    if (labels == rowLabels_) return;
    rowLabels_ = labels;
    rowLabelExtent_ = -1;
    layoutChanged();
}

void HeatmapWidget::setColLabels(const QStringList& labels) {
    if (labels == colLabels_) return;
    colLabels_ = labels;
    colLabelExtent_ = -1;
    layoutChanged();
}

void HeatmapWidget::setTitle(const QString& title) {
    if (title == title_) return;
    title_ = title;
    layoutChanged();
}

void HeatmapWidget::setRowAxisTitle(const QString& title) {
    if (title == rowTitle_) return;
    rowTitle_ = title;
    layoutChanged();
}

void HeatmapWidget::setColAxisTitle(const QString& title) {
    if (title == colTitle_) return;
    colTitle_ = title;
    layoutChanged();
}

void HeatmapWidget::setLegendCaption(const QString& caption) {
    if (caption == legendCaption_) return;
    legendCaption_ = caption;
    viewport()->update();
}

void HeatmapWidget::setEmptyMessage(const QString& message) {
    if (message == emptyMessage_) return;
    emptyMessage_ = message;
    viewport()->update();
}

void HeatmapWidget::setColorMode(ColorMode mode) {
    if (mode == mode_) return;
    mode_ = mode;
    invalidate();
}

void HeatmapWidget::setValueRange(float lo, float hi) {
    if (fixedRange_ && lo == fixedLo_ && hi == fixedHi_) return;
    fixedRange_ = true;
    fixedLo_ = lo;
    fixedHi_ = hi;
    invalidate();
}

void HeatmapWidget::clearValueRange() {
    if (!fixedRange_) return;
    fixedRange_ = false;
    invalidate();
}

void HeatmapWidget::setTooltipFunction(TooltipFn fn) { tooltipFn_ = std::move(fn); }

void HeatmapWidget::setMaskedExplanation(const QString& html) { maskedExplanation_ = html; }

void HeatmapWidget::setValueText(ValueText mode) {
    if (mode == valueText_) return;
    valueText_ = mode;
    viewport()->update();
}

void HeatmapWidget::setCompact(bool compact) {
    compact_ = compact;
    relayout();
    viewport()->update();
}

void HeatmapWidget::setShowLegend(bool show) {
    showLegend_ = show;
    relayout();
    viewport()->update();
}

void HeatmapWidget::setSelected(bool selected) {
    if (selected == selected_) return;
    selected_ = selected;
    viewport()->update();
}

void HeatmapWidget::setHighlightedRow(int r) {
    r = (r >= 0 && r < rows_) ? r : -1;
    if (r == hlRow_) return;
    hlRow_ = r;
    viewport()->update();
}

void HeatmapWidget::setHighlightedCol(int c) {
    c = (c >= 0 && c < cols_) ? c : -1;
    if (c == hlCol_) return;
    hlCol_ = c;
    viewport()->update();
}

float HeatmapWidget::value(int r, int c) const {
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return std::nanf("");
    return vals()[size_t(r) * cols_ + c];
}

bool HeatmapWidget::isMasked(int r, int c) const {
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return false;
    const size_t i = size_t(r) * cols_ + c;
    return (!mask_.empty() && mask_[i]) || isFill(vals()[i]);
}

QColor HeatmapWidget::colorAt(int r, int c) const {
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return QColor();
    const float v = vals()[size_t(r) * cols_ + c];
    if (isFill(v)) return Colormap::maskedColor();
    if (!std::isfinite(v)) return Colormap::nanColor();
    return cmap_.color(v);
}

QString HeatmapWidget::cellText(int r, int c) const {
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return {};
    const float v = vals()[size_t(r) * cols_ + c];
    if (integral_ && std::isfinite(v) && !isFill(v))
        return numfmt::wholeCell(v);
    return numfmt::cell(v);
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

void HeatmapWidget::invalidate() {
    if (batchDepth_ > 0) {
        colorsPending_ = layoutPending_ = true;
        return;
    }
    rebuildColors();
    relayout();
    viewport()->update();
}

void HeatmapWidget::layoutChanged() {
    if (batchDepth_ > 0) {
        layoutPending_ = true;
        return;
    }
    relayout();
    viewport()->update();
}

HeatmapWidget::Batch::Batch(HeatmapWidget* w) : w_(w) { ++w_->batchDepth_; }

HeatmapWidget::Batch::~Batch() {
    if (--w_->batchDepth_ > 0) return;
    if (w_->colorsPending_) w_->rebuildColors();
    if (w_->layoutPending_) {
        w_->relayout();
        w_->viewport()->update();
    }
    w_->colorsPending_ = w_->layoutPending_ = false;
}

void HeatmapWidget::rebuildColors() {
    const ValueScan scan = scanShared(values_, mask_);
    float lo = scan.lo, hi = scan.hi;
    bool any = lo <= hi;
    if (!any && scan.allLo <= scan.allHi) {  // only masked cells: colour them by their own values
        lo = scan.allLo;
        hi = scan.allHi;
        any = true;
    }
    if (!any) lo = hi = 0.0f;
    hasFill_ = scan.fill;
    integral_ = !vals().empty() && !scan.fraction;
    const bool zeroOne = !vals().empty() && !scan.notZeroOne;
    Colormap::Kind kind = Colormap::Kind::Diverging;
    if (mode_ == ColorMode::Sequential) kind = Colormap::Kind::Sequential;
    if (mode_ == ColorMode::Auto) kind = (any && lo < 0.0f) ? Colormap::Kind::Diverging : Colormap::Kind::Sequential;
    if (fixedRange_) {
        lo = fixedLo_;
        hi = fixedHi_;
    } else if (!any) {
        lo = 0.0f;
        hi = 1.0f;
    }
    cmap_ = Colormap(kind, lo, hi);
    binary_ = integral_ && zeroOne && !mask_.empty() && kind == Colormap::Kind::Sequential;

    cache_ = QImage();  // coloured when painted
    tilesDone_.clear();
}

// Coloured tile by tile as the tiles are first painted: a 512 x 2048 weight shows only a part
// of its million cells at a time, and colouring them all cost ~30 ms per heatmap.
const QImage& HeatmapWidget::cellImage(const QRect& cells) const {
    if (isEmpty()) return cache_;
    const int tilesX = (cols_ + kTile - 1) / kTile, tilesY = (rows_ + kTile - 1) / kTile;
    if (cache_.isNull()) {
        cache_ = QImage(cols_, rows_, QImage::Format_RGB32);
        tilesDone_.assign(size_t(tilesX) * size_t(tilesY), false);
    }
    const QRgb masked = Colormap::maskedColor().rgb(), nan = Colormap::nanColor().rgb();
    const QRect want = cells & QRect(0, 0, cols_, rows_);
    for (int ty = want.top() / kTile; ty <= want.bottom() / kTile && want.isValid(); ++ty) {
        for (int tx = want.left() / kTile; tx <= want.right() / kTile; ++tx) {
            const size_t tile = size_t(ty) * size_t(tilesX) + size_t(tx);
            if (tilesDone_[tile]) continue;
            tilesDone_[tile] = true;
            const int c0 = tx * kTile, c1 = std::min(cols_, c0 + kTile);
            for (int r = ty * kTile; r < std::min(rows_, (ty + 1) * kTile); ++r) {
                auto* line = reinterpret_cast<QRgb*>(cache_.scanLine(r));
                const float* row = vals().data() + size_t(r) * cols_;
                for (int c = c0; c < c1; ++c) {  // colorAt(r, c).rgb()
                    const float v = row[c];
                    line[c] = isFill(v) ? masked : !std::isfinite(v) ? nan : cmap_.rgb(v);
                }
            }
        }
    }
    return cache_;
}

// ---------------------------------------------------------------- geometry

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

namespace {
// The smallest power of two >= n: label every 1st, 2nd, 4th, 8th ... row or column.
int niceStep(int n) {
    int s = 1;
    while (s < n) s *= 2;
    return s;
}
}  // namespace

QString HeatmapWidget::maskCaption() const {
    if (mask_.empty() && !hasFill_) return {};
    return hasFill_ ? tr("masked\n(= \u22121e9)") : tr("masked");
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

    for (int iter = 0; iter < 3; ++iter) {
        const int W = viewport()->width(), H = viewport()->height();
        titleH_ = title_.isEmpty() ? 0 : tfm.height() + (compact_ ? 2 : 6);
        colTitleH_ = (compact_ || colTitle_.isEmpty()) ? 0 : fm.height() + 2;
        rowTitleW_ = (compact_ || rowTitle_.isEmpty()) ? 0 : fm.height() + 6;
        const int maxRow = labelExtent(true, fm);
        rowHeaderW_ = rows_ > 0 ? std::min(maxRow, compact_ ? 60 : 140) + 8 : 0;
        const int maxCol = labelExtent(false, fm);

        const int horizHeader = fm.height() + 6;
        const int legendRightW = !legend ? 0
                                 : binary_ ? fm.horizontalAdvance(tr("1 = masked")) + 16 + 8 + 14
                                           : cmap_.legendWidth(lf, legendCaption_, mcap) + 14;
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
        const double bottomFitW = fitW;
        fits(false, horizHeader);
        // Short of width but not of height: the legend goes under the cells (also when the cells
        // would be thin beside it and readable without it: a few columns in a narrow panel; not
        // for hundreds of columns, which scroll anyway and would leave the legend too short).
        legendBottom_ = legend && fitW < fitH * 0.9 && (fitW >= 10.0 || (bottomFitW >= 1.5 * fitW && bottomFitW >= 8.0));
        if (legendBottom_) fits(true, horizHeader);

        const double fw = std::clamp(fitW, 2.0, double(kMaxFitCell));
        double fh = std::clamp(fitH, compact_ ? 3.0 : 4.0, double(kMaxFitCell));
        const double bw = std::min(fw, std::max(fh, 28.0));
        cellW_ = std::clamp(int(std::floor(bw * zoom_)), 1, kMaxCell);

        colLabelsVertical_ = maxCol + 6 > cellW_;
        colHeaderH_ = horizHeader;
        colLabelStep_ = 1;
        if (colLabelsVertical_) {
            colHeaderH_ = std::min(maxCol, compact_ ? 36 : 80) + 8;
            colLabelStep_ = niceStep(int(std::ceil(double(fm.ascent() + 1) / cellW_)));
            fits(legendBottom_, colHeaderH_);
            fh = std::clamp(fitH, compact_ ? 3.0 : 4.0, double(kMaxFitCell));
        }
        const double bh = std::min(fh, std::max(fw, 28.0));
        cellH_ = std::clamp(int(std::floor(bh * zoom_)), 1, kMaxCell);
        rowLabelStep_ = cellH_ >= fm.height() - 2 ? 1 : niceStep(int(std::ceil(double(fm.height() - 2) / cellH_)));

        const int contentW = cols_ * cellW_, contentH = rows_ * cellH_;
        const int gridW = std::min(contentW, availW), gridH = std::min(contentH, availH);
        const int capH = legendCaption_.isEmpty() ? 0 : fm.height() + 4;
        int legendH = 0;
        if (legend && !legendBottom_)
            legendH = binary_ ? 2 * fm.height() + 16 : std::max(gridH + capH, mcap.isEmpty() ? 130 : 200);
        const int blockW = rowTitleW_ + rowHeaderW_ + gridW + (legend && !legendBottom_ ? legendRightW : 0);
        const int headH = titleH_ + colTitleH_ + colHeaderH_;
        const int blockH = headH + std::max(gridH, legendH - capH) + (legendBottom_ ? legendBottomH : 0);
        const int ox = std::max(0, (W - 2 * pad - blockW) / 2);
        const int oy = std::max(0, (H - 2 * pad - blockH) / 2);
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
        horizontalScrollBar()->setSingleStep(std::max(cellW_, 16));
        verticalScrollBar()->setRange(0, std::max(0, contentH - availH));
        verticalScrollBar()->setPageStep(availH);
        verticalScrollBar()->setSingleStep(std::max(cellH_, 16));
        if (viewport()->width() == W && viewport()->height() == H) break;
    }
    inRelayout_ = false;
}

QRect HeatmapWidget::cellRectViewport(int r, int c) const {
    return QRect(gridRect_.left() + c * cellW_ - horizontalScrollBar()->value(),
                 gridRect_.top() + r * cellH_ - verticalScrollBar()->value(), cellW_, cellH_);
}

QRect HeatmapWidget::cellRect(int r, int c) const {
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return {};
    return cellRectViewport(r, c).translated(viewport()->pos());
}

QPoint HeatmapWidget::cellAtViewport(const QPoint& p) const {
    if (isEmpty() || !gridRect_.contains(p)) return {-1, -1};
    const int c = (p.x() - gridRect_.left() + horizontalScrollBar()->value()) / std::max(1, cellW_);
    const int r = (p.y() - gridRect_.top() + verticalScrollBar()->value()) / std::max(1, cellH_);
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return {-1, -1};
    return {r, c};  // x = row, y = col
}

QPoint HeatmapWidget::cellAt(const QPoint& widgetPos) const { return cellAtViewport(widgetPos - viewport()->pos()); }

void HeatmapWidget::ensureCellVisible(int r, int c) {
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return;
    const int x = c * cellW_, y = r * cellH_;
    auto* hb = horizontalScrollBar();
    auto* vb = verticalScrollBar();
    if (x < hb->value()) hb->setValue(x);
    if (x + cellW_ > hb->value() + gridRect_.width()) hb->setValue(x + cellW_ - gridRect_.width());
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
    const int hs = horizontalScrollBar()->value(), vs = verticalScrollBar()->value();
    const int c0 = std::clamp(hs / cellW_, 0, cols_ - 1);
    const int c1 = std::clamp((hs + gridRect_.width() - 1) / cellW_, 0, cols_ - 1);
    const int r0 = std::clamp(vs / cellH_, 0, rows_ - 1);
    const int r1 = std::clamp((vs + gridRect_.height() - 1) / cellH_, 0, rows_ - 1);
    if (int64_t(r1 - r0 + 1) * (c1 - c0 + 1) > 20000) return false;
    for (int r = r0; r <= r1; ++r)
        for (int c = c0; c <= c1; ++c)
            if (fm.horizontalAdvance(cellText(r, c)) > cellW_ - 4) return false;
    return true;
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

QSize HeatmapWidget::minimumSizeHint() const { return compact_ ? QSize(90, 70) : QSize(180, 120); }

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
    const double cx = double(pos.x() - gridRect_.left() + horizontalScrollBar()->value()) / std::max(1, cellW_);
    const double cy = double(pos.y() - gridRect_.top() + verticalScrollBar()->value()) / std::max(1, cellH_);
    const int oldW = cellW_, oldH = cellH_;
    zoom_ = newZoom;
    relayout();
    if (oldW != cellW_) horizontalScrollBar()->setValue(int(std::lround(cx * cellW_)) - (pos.x() - gridRect_.left()));
    if (oldH != cellH_) verticalScrollBar()->setValue(int(std::lround(cy * cellH_)) - (pos.y() - gridRect_.top()));
    viewport()->update();
    emit zoomChanged(zoom_);
}

// ---------------------------------------------------------------- tooltips

QString HeatmapWidget::defaultTooltip(int r, int c) const {
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return {};
    auto axisLine = [](const QString& what, int i, const QStringList& labels, const QString& title) {
        QString s = QStringLiteral("%1 %2").arg(what).arg(i);
        if (i < labels.size() && labels[i] != QString::number(i))
            s += QStringLiteral(": <b>'%1'</b>").arg(labels[i].toHtmlEscaped());
        if (!title.isEmpty()) s += QStringLiteral(" <span style='color:#666'>(%1)</span>").arg(title.toHtmlEscaped());
        return s;
    };
    QString s;
    if (!title_.isEmpty()) s += QStringLiteral("<b>%1</b> [%2, %3]<br>").arg(title_.toHtmlEscaped()).arg(r).arg(c);
    s += QStringLiteral("value = <b>%1</b><br>").arg(numfmt::exact(value(r, c)));
    s += axisLine(tr("row"), r, rowLabels_, rowTitle_) + QStringLiteral("<br>");
    s += axisLine(tr("column"), c, colLabels_, colTitle_);
    if (isMasked(r, c)) {
        s += QStringLiteral("<br><br>");
        s += maskedExplanation_.isEmpty()
                 ? tr("<i>Masked</i> (the mask is 1 here): the score is replaced by <b>\u22121e9</b> before the "
                      "softmax, so this attention weight becomes exactly <b>0</b>.")
                 : maskedExplanation_;
    }
    return s;
}

QString HeatmapWidget::tooltipText(int r, int c) const {
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return {};
    if (tooltipFn_) {
        QString s = tooltipFn_(r, c);
        if (!s.isEmpty()) return s;
    }
    return defaultTooltip(r, c);
}

// ---------------------------------------------------------------- events

bool HeatmapWidget::viewportEvent(QEvent* e) {
    switch (e->type()) {
    case QEvent::ToolTip: {
        auto* he = static_cast<QHelpEvent*>(e);
        const QPoint rc = cellAtViewport(he->pos());
        if (rc.x() >= 0) {
            QToolTip::showText(he->globalPos(), tooltipText(rc.x(), rc.y()), viewport(),
                               cellRectViewport(rc.x(), rc.y()));
        } else {
            QToolTip::hideText();
            e->ignore();
        }
        return true;
    }
    case QEvent::Leave:
        setHover(-1, -1);
        break;
    default:
        break;
    }
    return QAbstractScrollArea::viewportEvent(e);
}

void HeatmapWidget::setHover(int r, int c) {
    if (r == hoverR_ && c == hoverC_) return;
    hoverR_ = r;
    hoverC_ = c;
    viewport()->update();
    emit cellHovered(r, c);
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent* e) {
    const QPoint rc = cellAtViewport(e->position().toPoint());
    setHover(rc.x(), rc.y());
    QAbstractScrollArea::mouseMoveEvent(e);
}

void HeatmapWidget::mousePressEvent(QMouseEvent* e) {
    emit clicked();
    if (e->button() == Qt::LeftButton) {
        const QPoint rc = cellAtViewport(e->position().toPoint());
        if (rc.x() >= 0) emit cellClicked(rc.x(), rc.y());
    }
    e->accept();
}

void HeatmapWidget::leaveEvent(QEvent* e) {
    setHover(-1, -1);
    QAbstractScrollArea::leaveEvent(e);
}

void HeatmapWidget::wheelEvent(QWheelEvent* e) {
    if (e->modifiers() & Qt::ControlModifier) {
        const int dy = e->angleDelta().y() != 0 ? e->angleDelta().y() : e->angleDelta().x();
        if (dy != 0) zoomAround(zoom_ * std::pow(1.25, dy / 120.0), e->position().toPoint());
        e->accept();
        return;
    }
    auto* hb = horizontalScrollBar();
    auto* vb = verticalScrollBar();
    if (vb->maximum() == 0 && hb->maximum() > 0 && e->angleDelta().x() == 0) {
        hb->setValue(hb->value() - e->angleDelta().y() * hb->singleStep() * 3 / 120);
        e->accept();
        return;
    }
    if (vb->maximum() == 0 && hb->maximum() == 0) {
        e->ignore();  // let an enclosing scroll area scroll
        return;
    }
    QAbstractScrollArea::wheelEvent(e);
}

void HeatmapWidget::resizeEvent(QResizeEvent* e) {
    QAbstractScrollArea::resizeEvent(e);
    relayout();
}

void HeatmapWidget::scrollContentsBy(int, int) { viewport()->update(); }

void HeatmapWidget::changeEvent(QEvent* e) {
    QAbstractScrollArea::changeEvent(e);
    if (e->type() == QEvent::FontChange || e->type() == QEvent::StyleChange) {
        relayout();
        viewport()->update();
    }
}

// ---------------------------------------------------------------- painting

void HeatmapWidget::paintEvent(QPaintEvent*) {
    QPainter p(viewport());
    const QRect vr = viewport()->rect();
    p.fillRect(vr, QColor(255, 255, 255));
    const QFont lf = labelFont();
    const QFontMetrics fm(lf);
    const int pad = compact_ ? 3 : 6;

    if (selected_) {
        p.setPen(QPen(QColor(255, 140, 0), 3));
        p.setBrush(Qt::NoBrush);
        p.drawRect(vr.adjusted(1, 1, -2, -2));
    }
    if (!title_.isEmpty()) {
        p.setFont(titleFont());
        p.setPen(QColor(30, 30, 30));
        const QFontMetrics tfm(titleFont());
        const int x = isEmpty() ? pad : origin_.x();
        const int y = isEmpty() ? pad : origin_.y();
        const int w = std::max(40, vr.width() - x - pad);
        drawCachedText(p, QRect(x, y, w, tfm.height()), Qt::AlignLeft | Qt::AlignVCenter, title_, w);
    }
    if (isEmpty()) {
        p.setFont(lf);
        p.setPen(QColor(110, 110, 110));
        p.drawText(vr.adjusted(8, pad + titleH_, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, emptyMessage_);
        return;
    }

    const int hs = horizontalScrollBar()->value(), vs = verticalScrollBar()->value();
    const int c0 = std::clamp(hs / cellW_, 0, cols_ - 1);
    const int c1 = std::clamp((hs + gridRect_.width() - 1) / cellW_, 0, cols_ - 1);
    const int r0 = std::clamp(vs / cellH_, 0, rows_ - 1);
    const int r1 = std::clamp((vs + gridRect_.height() - 1) / cellH_, 0, rows_ - 1);

    // Axis titles.
    p.setFont(lf);
    if (colTitleH_ > 0) {
        p.setPen(QColor(90, 90, 90));
        const QRect tr(gridRect_.left(), origin_.y() + titleH_, std::max(40, vr.width() - gridRect_.left() - pad), colTitleH_);
        drawCachedText(p, tr, Qt::AlignLeft | Qt::AlignVCenter, colTitle_ + QStringLiteral("  \u2192"), tr.width());
    }
    if (rowTitleW_ > 0) {
        p.save();
        p.setPen(QColor(90, 90, 90));
        const int x = origin_.x(), y = gridRect_.top();
        const int len = std::max(gridRect_.height(), std::min(160, vr.height() - y - pad));
        p.translate(x + fm.descent() + 2, y);
        p.rotate(90);
        drawCachedText(p, QRect(0, -fm.height(), len, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                       rowTitle_ + QStringLiteral("  \u2192"), len);
        p.restore();
    }

    // Cells: the visible block of the one-pixel-per-cell cache, scaled without smoothing.
    p.save();
    p.setClipRect(gridRect_);
    const QRect target(gridRect_.left() + c0 * cellW_ - hs, gridRect_.top() + r0 * cellH_ - vs,
                       (c1 - c0 + 1) * cellW_, (r1 - r0 + 1) * cellH_);
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    const QRect block(c0, r0, c1 - c0 + 1, r1 - r0 + 1);
    p.drawImage(target, cellImage(block), block);

    if (cellW_ >= 8 && cellH_ >= 8) {  // thin white separators between cells
        p.setPen(QColor(255, 255, 255));
        for (int c = c0 + 1; c <= c1; ++c) {
            const int x = gridRect_.left() + c * cellW_ - hs;
            p.drawLine(x, target.top(), x, target.bottom());
        }
        for (int r = r0 + 1; r <= r1; ++r) {
            const int y = gridRect_.top() + r * cellH_ - vs;
            p.drawLine(target.left(), y, target.right(), y);
        }
    }
    const bool showText = valuesShown();
    for (int r = r0; r <= r1; ++r) {
        for (int c = c0; c <= c1; ++c) {
            const bool masked = isMasked(r, c);
            if (!masked && !showText) continue;
            const QRect cr = cellRectViewport(r, c);
            const QColor base = colorAt(r, c);
            if (masked) {
                p.setBrushOrigin(cr.topLeft());
                p.fillRect(cr.adjusted(1, 1, 0, 0), QBrush(Colormap::hatchColorOn(base), Qt::BDiagPattern));
            }
            if (showText) {
                const QString t = cellText(r, c);
                if (fm.horizontalAdvance(t) <= cr.width() - 2) {
                    if (masked) {  // a solid backing so the number stays readable over the hatch
                        const QRect tb(cr.center().x() - fm.horizontalAdvance(t) / 2 - 2, cr.center().y() - fm.height() / 2,
                                       fm.horizontalAdvance(t) + 4, fm.height());
                        p.fillRect(tb, base);
                    }
                    p.setPen(Colormap::textColorOn(base));
                    drawCachedText(p, cr, Qt::AlignCenter, t);
                }
            }
        }
    }
    if (hlRow_ >= 0 || hlCol_ >= 0) {
        p.setPen(QPen(QColor(255, 140, 0), 3));
        p.setBrush(Qt::NoBrush);
        if (hlRow_ >= 0) {
            const QRect a = cellRectViewport(hlRow_, 0), b = cellRectViewport(hlRow_, cols_ - 1);
            p.drawRect(QRect(a.topLeft(), b.bottomRight()).adjusted(1, 1, -1, -1));
        }
        if (hlCol_ >= 0) {
            const QRect a = cellRectViewport(0, hlCol_), b = cellRectViewport(rows_ - 1, hlCol_);
            p.drawRect(QRect(a.topLeft(), b.bottomRight()).adjusted(1, 1, -1, -1));
        }
    }
    if (hoverR_ >= 0 && hoverC_ >= 0) {
        p.setPen(QPen(QColor(20, 20, 20), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(cellRectViewport(hoverR_, hoverC_).adjusted(1, 1, -1, -1));
    }
    p.restore();

    // Row labels.
    QFont bold = lf;
    bold.setBold(true);
    p.save();
    p.setClipRect(QRect(0, gridRect_.top() - 2, gridRect_.left(), gridRect_.height() + 4));
    for (int r = r0; r <= r1; ++r) {
        if (r % rowLabelStep_ != 0 && r != hoverR_) continue;
        const QRect cr = cellRectViewport(r, 0);
        const int cy = cr.center().y();
        const QRect lr(gridRect_.left() - rowHeaderW_, cy - fm.height() / 2, rowHeaderW_ - 6, fm.height());
        const QString label = r < rowLabels_.size() ? rowLabels_[r] : QString::number(r);
        p.setFont(r == hoverR_ ? bold : lf);
        p.setPen(r == hoverR_ ? QColor(0, 0, 0) : QColor(55, 55, 55));
        drawCachedText(p, lr, Qt::AlignRight | Qt::AlignVCenter, label, lr.width());
    }
    p.restore();

    // Column labels.
    p.save();
    p.setClipRect(QRect(gridRect_.left() - fm.height(), gridRect_.top() - colHeaderH_, gridRect_.width() + 2 * fm.height(),
                        colHeaderH_));
    for (int c = c0; c <= c1; ++c) {
        if (c % colLabelStep_ != 0 && c != hoverC_) continue;
        const QRect cr = cellRectViewport(0, c);
        const QString label = c < colLabels_.size() ? colLabels_[c] : QString::number(c);
        p.setFont(c == hoverC_ ? bold : lf);
        p.setPen(c == hoverC_ ? QColor(0, 0, 0) : QColor(55, 55, 55));
        if (!colLabelsVertical_) {
            drawCachedText(p, QRect(cr.left() - 20, gridRect_.top() - colHeaderH_, cr.width() + 40, colHeaderH_ - 4),
                           Qt::AlignHCenter | Qt::AlignBottom, label);
        } else {
            p.save();
            p.translate(cr.center().x(), gridRect_.top() - 4);
            p.rotate(-90);
            drawCachedText(p, QRect(0, -fm.height() / 2, colHeaderH_ - 6, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                           label, colHeaderH_ - 6);
            p.restore();
        }
    }
    p.restore();

    // Legend.
    if (legendRect_.isValid()) {
        if (binary_) {  // a 0/1 mask: two swatches instead of a colour bar
            const int sw = 16, sh = std::min(14, fm.height());
            const QString t0 = tr("0 = visible"), t1 = tr("1 = masked");
            QRect s0, s1;
            if (legendBottom_) {
                s0 = QRect(legendRect_.left(), legendRect_.top() + 2, sw, sh);
                s1 = QRect(s0.right() + 8 + fm.horizontalAdvance(t0) + 18, s0.top(), sw, sh);
            } else {
                s0 = QRect(legendRect_.left(), legendRect_.top() + 2, sw, sh);
                s1 = QRect(legendRect_.left(), s0.bottom() + 8, sw, sh);
            }
            for (int i = 0; i < 2; ++i) {
                const QRect sr = i == 0 ? s0 : s1;
                const QColor base = cmap_.color(float(i));
                p.fillRect(sr, base);
                if (i == 1) p.fillRect(sr, QBrush(Colormap::hatchColorOn(base), Qt::BDiagPattern));
                p.setPen(QColor(120, 120, 120));
                p.drawRect(sr.adjusted(0, 0, -1, -1));
                p.setPen(QColor(40, 40, 40));
                drawCachedText(p, QRect(sr.right() + 6, sr.top() - 3, fm.horizontalAdvance(i == 0 ? t0 : t1) + 4, sh + 6),
                               Qt::AlignLeft | Qt::AlignVCenter, i == 0 ? t0 : t1);
            }
        } else {
            cmap_.paintLegend(p, legendRect_, lf, legendCaption_, maskCaption(), legendBottom_ ? Qt::Horizontal : Qt::Vertical);
        }
    }
}
