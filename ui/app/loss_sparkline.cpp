#include "app/loss_sparkline.h"

#include <algorithm>
#include <cmath>

#include <QPainter>
#include <QPainterPath>

LossSparkline::LossSparkline(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("lossSparkline"));
    setFixedSize(120, 20);
    setToolTip(tr("Training loss per step"));
    setAccessibleName(tr("Training loss per step"));
}

void LossSparkline::clear() {
    losses_.clear();
    update();
}

void LossSparkline::add(double loss) {
    if (std::isfinite(loss)) losses_.push_back(loss);
    update();
}

void LossSparkline::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF r = QRectF(rect()).adjusted(1, 2, -1, -2);
    p.setPen(QPen(palette().color(QPalette::Mid), 1));
    p.drawLine(r.bottomLeft(), r.bottomRight());
    if (losses_.size() < 2) return;
    double hi = losses_.front(), lo = losses_.front();
    for (double v : losses_) {
        hi = std::max(hi, v);
        lo = std::min(lo, v);
    }
    if (hi - lo < 1e-12) hi = lo + 1;
    QPainterPath path;
    for (size_t i = 0; i < losses_.size(); ++i) {
        const QPointF pt(r.left() + r.width() * double(i) / double(losses_.size() - 1),
                         r.bottom() - r.height() * (losses_[i] - lo) / (hi - lo));
        if (i == 0)
            path.moveTo(pt);
        else
            path.lineTo(pt);
    }
    p.setPen(QPen(QColor(0xe1, 0x57, 0x59), 1.5));
    p.drawPath(path);
}
