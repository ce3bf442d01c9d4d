#include "widgets/heatmap_widget.h"

#include <algorithm>
#include <cmath>

#include "widgets/heatmap_values.h"
#include "widgets/number_format.h"

using heatmap::isFill;

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
    updateAccessibleText();
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
        if (cursorOn_) setCellCursor(cursorR_, cursorC_);
        return;
    }
    if (rows != rows_ || cols != cols_) {  // another shape: the block chosen means nothing here
        selection_ = QRect();
        anchor_ = QPoint(-1, -1);
    }
    rows_ = rows;
    cols_ = cols;
    values_ = std::move(values);
    if (!mask_.empty() && mask_.size() != vals().size()) mask_.clear();
    hoverR_ = hoverC_ = -1;
    hlRow_ = hlCol_ = -1;
    rowLabelExtent_ = colLabelExtent_ = -1;
    invalidate();
    updateAccessibleText();
    if (cursorOn_) {  // the keyboard's cursor stays where it was, inside the new matrix
        if (isEmpty()) leaveCellCursor();
        else setCellCursor(cursorR_, cursorC_);
    }
}

namespace {
// Sets `member` to `value`; true when that changed it (the caller then redraws).
template <class T>
bool changed(T& member, T value) {
    if (member == value) return false;
    member = std::move(value);
    return true;
}
}  // namespace

void HeatmapWidget::setMask(std::vector<float> mask) {
    std::vector<unsigned char> m;
    if (!mask.empty() && mask.size() == vals().size()) {
        m.resize(mask.size());
        for (size_t i = 0; i < mask.size(); ++i) m[i] = mask[i] != 0.0f ? 1 : 0;
    }
    if (changed(mask_, std::move(m))) invalidate();
}

void HeatmapWidget::clear() {
    mask_.clear();
    setMatrix(0, 0, std::vector<float>());
}

void HeatmapWidget::setRowLabels(const QStringList& labels) {
    if (!changed(rowLabels_, labels)) return;
    rowLabelExtent_ = -1;
    layoutChanged();
}

void HeatmapWidget::setColLabels(const QStringList& labels) {
    if (!changed(colLabels_, labels)) return;
    colLabelExtent_ = -1;
    layoutChanged();
}

void HeatmapWidget::setTitle(const QString& title) {
    if (!changed(title_, title)) return;
    layoutChanged();
    updateAccessibleText();
}

void HeatmapWidget::setRowAxisTitle(const QString& title) {
    if (!changed(rowTitle_, title)) return;
    layoutChanged();
    updateAccessibleText();
}

void HeatmapWidget::setColAxisTitle(const QString& title) {
    if (!changed(colTitle_, title)) return;
    layoutChanged();
    updateAccessibleText();
}

void HeatmapWidget::setLegendCaption(const QString& caption) {
    if (changed(legendCaption_, caption)) viewport()->update();
}

void HeatmapWidget::setEmptyMessage(const QString& message) {
    if (changed(emptyMessage_, message)) viewport()->update();
}

void HeatmapWidget::setColorMode(ColorMode mode) {
    if (changed(mode_, mode)) invalidate();
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
    if (changed(valueText_, mode)) viewport()->update();
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
    if (changed(selected_, selected)) viewport()->update();
}

void HeatmapWidget::setHighlightedRow(int r) {
    r = (r >= 0 && r < rows_) ? r : -1;
    if (changed(hlRow_, r)) viewport()->update();
}

void HeatmapWidget::setHighlightedCol(int c) {
    c = (c >= 0 && c < cols_) ? c : -1;
    if (changed(hlCol_, c)) viewport()->update();
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
    if (integral_ && std::isfinite(v) && !isFill(v)) return numfmt::wholeCell(v);
    return numfmt::cell(v);
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
    const heatmap::ValueScan scan = heatmap::scanShared(values_, mask_);
    float lo = scan.lo, hi = scan.hi;
    bool any = lo <= hi;
    if (!any && scan.allLo <= scan.allHi) {  // only masked cells: colour them by their own values
        lo = scan.allLo;
        hi = scan.allHi;
        any = true;
    }
    if (!any) lo = hi = 0.0f;
    hasFill_ = scan.fill;
    negInfFill_ = scan.negInf;
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
    // A mask shown as itself (every cell masked exactly where it is 1) gets the two swatches;
    // weights that happen to be 0 and 1 (a 1x1 attention, a single visible key) keep their scale.
    const bool ownMask = mask_.size() == vals().size() &&
                         std::equal(mask_.begin(), mask_.end(), vals().begin(),
                                    [](unsigned char m, float v) { return (m != 0) == (v != 0.0f); });
    binary_ = integral_ && zeroOne && !mask_.empty() && ownMask && kind == Colormap::Kind::Sequential;

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
