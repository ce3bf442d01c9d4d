// HeatmapWidget's painting: the title, axis titles, the visible cells (from the one-pixel-per-cell
// image), their numbers and hatching, highlights, the labels and the legend.
#include "widgets/heatmap_widget.h"

#include <algorithm>
#include <cmath>

#include <QPaintEngine>
#include <QPainter>
#include <QScrollBar>

#include "widgets/downsample.h"
#include "widgets/elision_log.h"
#include "widgets/static_text_cache.h"
#include "widgets/theme_colors.h"

namespace {

// `text` in `rect`: on one line from the left of `rect`, moved left as far as `minLeft` when it
// is wider, else wrapped into `lines` lines from `minLeft` (noted as shortened when even those
// are too few). A rotated painter's `rect` runs along the text.
void drawWrapped(QPainter& p, const QFontMetrics& fm, QRect rect, int minLeft, int lines, const QString& text) {
    const int w = fm.horizontalAdvance(text);
    if (lines <= 1) {
        const int right = rect.right() + 1;
        rect.setLeft(std::max(minLeft, std::min(rect.left(), right - w - 2)));  // 2: rounding of advances
        drawCachedText(p, rect, Qt::AlignLeft | Qt::AlignVCenter, text, rect.width());
        return;
    }
    rect.setLeft(minLeft);
    const QRect need = fm.boundingRect(QRect(0, 0, rect.width(), 100000), Qt::TextWordWrap, text);
    if (need.height() > rect.height() + 1) elision_log::note(p.device(), text, text + QStringLiteral(" (clipped)"));
    p.drawText(rect, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, text);
}

}  // namespace

void HeatmapWidget::paintEvent(QPaintEvent*) {
    QPainter p(viewport());
    const QRect vr = viewport()->rect();
    p.fillRect(vr, palette().color(QPalette::Base));
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
        p.setPen(palette().color(QPalette::Text));
        const QFontMetrics tfm(titleFont());
        const int x = isEmpty() ? pad : origin_.x();
        const int y = isEmpty() ? pad : origin_.y();
        const int w = std::max(40, vr.width() - x - pad);
        drawWrapped(p, tfm, QRect(x, y, w, titleTextH_), pad, titleLines_, title_);
    }
    if (isEmpty()) {
        p.setFont(lf);
        p.setPen(theme::quietText());
        p.drawText(vr.adjusted(8, pad + titleH_, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, emptyMessage_);
        return;
    }

    const QRect cells = visibleCells();
    p.setFont(lf);  // the axis titles, the numbers in the cells and the legend's swatch texts
    paintAxisTitles(p, fm);
    paintCells(p, fm, cells);
    paintAxisLabels(p, lf, cells);
    paintLegend(p, lf);
}

void HeatmapWidget::paintAxisTitles(QPainter& p, const QFontMetrics& fm) const {
    const QRect vr = viewport()->rect();
    const int pad = compact_ ? 3 : 6;
    if (colTitleH_ > 0) {
        p.setPen(theme::quietText());
        const QRect tr(gridRect_.left(), origin_.y() + titleH_, std::max(40, vr.width() - gridRect_.left() - pad), colTitleH_ - 2);
        drawWrapped(p, fm, tr, pad, colTitleLines_, colTitle_ + QStringLiteral("\u00a0\u00a0→"));
    }
    if (rowTitleW_ > 0) {
        // Along the cells, from their top down to the bottom of the widget; moved up (as far as
        // under the title: this column is empty above the cells) or wrapped when longer.
        p.save();
        p.setPen(theme::quietText());
        const int x = origin_.x(), y = gridRect_.top();
        const int len = std::max(40, vr.height() - y - pad);
        p.translate(x + fm.descent() + 2, 0);
        p.rotate(90);
        const int lines = rowTitleLines_;
        drawWrapped(p, fm, QRect(y, -lines * fm.height(), len, lines * fm.height()), origin_.y() + titleH_, lines,
                    rowTitle_ + QStringLiteral("\u00a0\u00a0→"));
        p.restore();
    }
}

// The visible block of the one-pixel-per-cell cache scaled without smoothing, then the
// separators, the hatching of masked cells, the numbers, and the highlighted and hovered cells.
void HeatmapWidget::paintCells(QPainter& p, const QFontMetrics& fm, const QRect& cells) const {
    const int vs = verticalScrollBar()->value();
    const int c0 = cells.left(), c1 = cells.right(), r0 = cells.top(), r1 = cells.bottom();
    p.save();
    p.setClipRect(gridRect_);
    const QRect target(colX(c0), gridRect_.top() + r0 * cellH_ - vs, colX(c1 + 1) - colX(c0), (r1 - r0 + 1) * cellH_);
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    const QRect block(c0, r0, c1 - c0 + 1, r1 - r0 + 1);
    // Into an SVG file (File › Export View as SVG): a rectangle per cell, so the export stays
    // vector graphics that scale, not a bitmap of the cells.
    const bool vector = p.paintEngine() && p.paintEngine()->type() == QPaintEngine::SVG;
    if (vector && cellW_ >= 1.0) {
        for (int r = r0; r <= r1; ++r)
            for (int c = c0; c <= c1; ++c) p.fillRect(cellRectViewport(r, c), colorAt(r, c));
    } else if (cellW_ < 2.0) {  // cells of a pixel or less: averaged down, never sampled (no moiré)
        const QImage img = resampledCells(block);
        p.drawImage(QRect(gridRect_.left(), target.top(), img.width(), target.height()), img);
    } else {
        p.drawImage(target, cellImage(block), block);
    }

    if (cellW_ >= 8 && cellH_ >= 8) {  // thin white separators between cells
        p.setPen(palette().color(QPalette::Base));
        for (int c = c0 + 1; c <= c1; ++c) {
            const int x = colX(c);
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
        // A bright amber core between two dark edges: readable on a projector over pale cells
        // (the dark edges), over dark blue and red (the amber), and no colour of the colour
        // maps. At least 7 px across, so a column a pixel wide (Fit of 2048) still shows.
        p.setBrush(Qt::NoBrush);
        const auto band = [&p](QRect r) {
            if (r.width() < 7) r = QRect(r.center().x() - 3, r.top(), 7, r.height());
            if (r.height() < 7) r = QRect(r.left(), r.center().y() - 3, r.width(), 7);
            r.adjust(2, 2, -2, -2);
            p.setPen(QPen(QColor(20, 20, 20), 5, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
            p.drawRect(r);
            p.setPen(QPen(QColor(255, 184, 0), 2.5, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
            p.drawRect(r);
        };
        if (hlRow_ >= 0) band(cellRectViewport(hlRow_, 0).united(cellRectViewport(hlRow_, cols_ - 1)));
        if (hlCol_ >= 0) band(cellRectViewport(0, hlCol_).united(cellRectViewport(rows_ - 1, hlCol_)));
    }
    if (hoverR_ >= 0 && hoverC_ >= 0) {
        p.setPen(QPen(QColor(20, 20, 20), 2));
        p.setBrush(Qt::NoBrush);
        QRect r = cellRectViewport(hoverR_, hoverC_);
        if (r.width() < 5) r = QRect(r.center().x() - 2, r.top(), 5, r.height());  // a cell of a pixel or two
        p.drawRect(r.adjusted(1, 1, -1, -1));
    }
    if (!selection_.isEmpty()) {
        // The selected block: the focus colour, translucent over the cells, and its outline.
        const QRect r = cellRectViewport(selection_.top(), selection_.left())
                            .united(cellRectViewport(selection_.bottom(), selection_.right()));
        QColor fill = palette().color(QPalette::Highlight);
        fill.setAlpha(70);
        p.fillRect(r, fill);
        p.setPen(QPen(palette().color(QPalette::Highlight), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(1, 1, -1, -1));
    }
    if (cursorOn_ && hasFocus()) {
        // The keyboard's cursor: the focus colour outside the hover frame, on every colour map.
        QRect r = cellRectViewport(cursorR_, cursorC_);
        if (r.width() < 7) r = QRect(r.center().x() - 3, r.top(), 7, r.height());
        p.setPen(QPen(palette().color(QPalette::Highlight), 3, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
        p.drawRect(r.adjusted(-1, -1, 1, 1));
    }
    p.restore();
}

QImage HeatmapWidget::resampledCells(const QRect& cells) const {
    // Each pixel column of the grid averages the columns under it (downsample.h); the block of
    // the cache image covers a window's reach beyond the visible columns.
    const int hs = horizontalScrollBar()->value();
    const int width = std::max(1, std::min(gridRect_.width(), int(std::ceil(cols_ * cellW_ - 1e-6)) - hs));
    const auto weights = downsample::weights(cols_, width, 1.0 / cellW_, hs / cellW_);
    int lo = cells.left(), hi = cells.right();
    for (const auto& w : weights)
        for (const auto& cw : w) lo = std::min(lo, cw.first), hi = std::max(hi, cw.first);
    const QImage& src = cellImage(QRect(lo, cells.top(), hi - lo + 1, cells.height()));
    QImage out(width, cells.height(), QImage::Format_RGB32);
    for (int r = 0; r < cells.height(); ++r) {
        const auto* line = reinterpret_cast<const QRgb*>(src.constScanLine(cells.top() + r));
        auto* dst = reinterpret_cast<QRgb*>(out.scanLine(r));
        for (int x = 0; x < width; ++x) {
            double red = 0, green = 0, blue = 0;
            for (const auto& [c, wgt] : weights[size_t(x)]) {
                red += wgt * qRed(line[c]);
                green += wgt * qGreen(line[c]);
                blue += wgt * qBlue(line[c]);
            }
            dst[x] = qRgb(int(std::lround(red)), int(std::lround(green)), int(std::lround(blue)));
        }
    }
    return out;
}

// The row and column labels of the visible cells: every rowLabelStep_-th / colLabelStep_-th, and
// the hovered cell's and the outlined row's / column's in bold.
void HeatmapWidget::paintAxisLabels(QPainter& p, const QFont& lf, const QRect& cells) const {
    const QFontMetrics fm(lf);
    QFont bold = lf;
    bold.setBold(true);

    const QFontMetrics bfm(bold);

    // Row labels. The hovered and outlined rows' labels are drawn last, over a white backing,
    // when they fall between the labelled ones (thinned labels would overlap them).
    p.save();
    p.setClipRect(QRect(0, gridRect_.top() - 2, gridRect_.left(), gridRect_.height() + 4));
    const auto rowLabel = [&](int r, bool backed) {
        const QRect cr = cellRectViewport(r, 0);
        const int cy = cr.center().y();
        const QRect lr(gridRect_.left() - rowHeaderW_, cy - fm.height() / 2, rowHeaderW_ - 6, fm.height());
        const QString label = r < rowLabels_.size() ? rowLabels_[r] : QString::number(r);
        const bool strong = r == hoverR_ || r == hlRow_;  // the hovered or outlined row
        p.setFont(strong && bfm.horizontalAdvance(label) <= lr.width() ? bold : lf);  // bold where it fits
        p.setPen(palette().color(QPalette::Text));  // the hovered one is bold
        if (backed) p.fillRect(lr, palette().color(QPalette::Base));
        drawCachedText(p, lr, Qt::AlignRight | Qt::AlignVCenter, label, lr.width());
    };
    for (int r = cells.top(); r <= cells.bottom(); ++r)
        if (r % rowLabelStep_ == 0) rowLabel(r, false);
    for (int r : {hlRow_, hoverR_})
        if (r >= cells.top() && r <= cells.bottom() && r % rowLabelStep_ != 0) rowLabel(r, true);
    p.restore();

    // Column labels (the same for the hovered and outlined columns).
    p.save();
    p.setClipRect(QRect(gridRect_.left() - fm.height(), gridRect_.top() - colHeaderH_, gridRect_.width() + 2 * fm.height(),
                        colHeaderH_));
    const auto colLabel = [&](int c, bool backed) {
        const QRect cr = cellRectViewport(0, c);
        const QString label = c < colLabels_.size() ? colLabels_[c] : QString::number(c);
        const bool strong = c == hoverC_ || c == hlCol_;
        p.setFont(strong && (!colLabelsVertical_ || bfm.horizontalAdvance(label) <= colHeaderH_ - 6) ? bold : lf);
        p.setPen(palette().color(QPalette::Text));  // the hovered one is bold
        const int w = std::min(bfm.horizontalAdvance(label) + 4, colHeaderH_ - 4);
        if (!colLabelsVertical_) {
            const QRect lr(cr.left() - 20, gridRect_.top() - colHeaderH_, cr.width() + 40, colHeaderH_ - 4);
            if (backed)
                p.fillRect(QRect(cr.center().x() - w / 2, lr.bottom() - bfm.height(), w, bfm.height() + 1), palette().color(QPalette::Base));
            drawCachedText(p, lr, Qt::AlignHCenter | Qt::AlignBottom, label);
        } else {
            p.save();
            p.translate(cr.center().x(), gridRect_.top() - 4);
            p.rotate(-90);
            if (backed) p.fillRect(QRect(-2, -bfm.height() / 2 - 1, w, bfm.height() + 2), palette().color(QPalette::Base));
            drawCachedText(p, QRect(0, -fm.height() / 2, colHeaderH_ - 6, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                           label, colHeaderH_ - 6);
            p.restore();
        }
    };
    for (int c = cells.left(); c <= cells.right(); ++c)
        if (c % colLabelStep_ == 0) colLabel(c, false);
    for (int c : {hlCol_, hoverC_})
        if (c >= cells.left() && c <= cells.right() && c % colLabelStep_ != 0) colLabel(c, true);
    p.restore();
}

void HeatmapWidget::paintLegend(QPainter& p, const QFont& lf) const {
    if (!legendRect_.isValid()) return;
    const QFontMetrics fm(lf);
    if (binary_) {  // a 0/1 mask: two swatches instead of a colour bar
        const int sw = 16, sh = std::min(14, fm.height());
        // PyTorch's additive mask is 0 / −∞ (its −∞ cells are drawn as masked, not by the scale).
        const QString t0 = negInfFill_ ? tr("0 = attend") : tr("0 = visible"),
                      t1 = negInfFill_ ? tr("−∞ = ignored") : tr("1 = masked");
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
            const QColor base = i == 1 && negInfFill_ ? Colormap::maskedColor() : cmap_.color(float(i));
            p.fillRect(sr, base);
            if (i == 1) p.fillRect(sr, QBrush(Colormap::hatchColorOn(base), Qt::BDiagPattern));
            p.setPen(theme::quietText());
            p.drawRect(sr.adjusted(0, 0, -1, -1));
            p.setPen(palette().color(QPalette::Text));
            drawCachedText(p, QRect(sr.right() + 6, sr.top() - 3, fm.horizontalAdvance(i == 0 ? t0 : t1) + 4, sh + 6),
                           Qt::AlignLeft | Qt::AlignVCenter, i == 0 ? t0 : t1);
        }
    } else {
        cmap_.paintLegend(p, legendRect_, lf, legendCaption_, maskCaption(), legendBottom_ ? Qt::Horizontal : Qt::Vertical);
    }
}
