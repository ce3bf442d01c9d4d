#include "views/target_heatmap.h"

#include <algorithm>

#include <QPainter>
#include <QScrollBar>

namespace {
const QColor kTargetOutline(0xe6, 0x55, 0x0d);
}

void TargetHeatmap::setTargets(std::vector<int> cols) {
    targets_ = std::move(cols);
    viewport()->update();
}

void TargetHeatmap::paintEvent(QPaintEvent* e) {
    HeatmapWidget::paintEvent(e);
    if (isEmpty() || targets_.empty()) return;
    const QPoint vp = viewport()->pos();
    const QSize cs = cellSize();
    // The outlines of the visible cells only (not over the labels or the legend).
    const QRect clip = visibleGrid().adjusted(-2, -2, 2, 2);
    QPainter p(viewport());
    p.setClipRect(clip);
    p.setRenderHint(QPainter::Antialiasing, false);
    for (int r = 0; r < rows() && r < int(targets_.size()); ++r) {
        const int c = targets_[size_t(r)];
        if (isMasked(r, c)) continue;  // an ignored position: no target to point at
        if (c < 0 || c >= cols()) continue;
        const QRect cr = cellRect(r, c).translated(-vp);
        p.setPen(QPen(kTargetOutline, std::max(2, std::min(cs.width(), cs.height()) / 14)));
        p.setBrush(Qt::NoBrush);
        p.drawRect(cr.adjusted(1, 1, -2, -2));
    }
}
