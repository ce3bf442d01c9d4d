// HeatmapWidget's tooltips and input: hover, clicks, the wheel (scrolling, Ctrl+wheel zoom).
#include "widgets/heatmap_widget.h"
#include "widgets/theme_colors.h"

#include <cmath>

#include <QHelpEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include "widgets/number_format.h"

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
    s += tr("value = <b>%1</b>").arg(numfmt::exact(value(r, c))) + QStringLiteral("<br>");
    s += axisLine(tr("row"), r, rowLabels_, rowTitle_) + QStringLiteral("<br>");
    s += axisLine(tr("column"), c, colLabels_, colTitle_);
    if (isMasked(r, c)) {
        s += QStringLiteral("<br><br>");
        s += maskedExplanation_.isEmpty()
                 ? tr("<i>Masked</i> (the mask is 1 here): the score is replaced by <b>−1e9</b> before the "
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
            QToolTip::showText(he->globalPos(), theme::themed(tooltipText(rc.x(), rc.y())), viewport(),
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
    // Dragged over more than one cell: a selection (Ctrl+C copies it).
    if (dragging_ && (e->buttons() & Qt::LeftButton) && rc.x() >= 0 && QPoint(rc.y(), rc.x()) != anchor_)
        extendSelection(rc.x(), rc.y());
    QAbstractScrollArea::mouseMoveEvent(e);
}

void HeatmapWidget::mousePressEvent(QMouseEvent* e) {
    emit clicked();
    if (e->button() == Qt::LeftButton) {
        const QPoint rc = cellAtViewport(e->position().toPoint());
        clearSelection();
        dragging_ = rc.x() >= 0;
        anchor_ = rc.x() >= 0 ? QPoint(rc.y(), rc.x()) : QPoint(-1, -1);
        if (rc.x() >= 0) emit cellClicked(rc.x(), rc.y());
    }
    e->accept();
}

void HeatmapWidget::mouseReleaseEvent(QMouseEvent* e) {
    if (e->button() == Qt::LeftButton) dragging_ = false;
    QAbstractScrollArea::mouseReleaseEvent(e);
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

QString HeatmapWidget::cellCopyText(int r, int c) const {
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return {};
    const QString row = rowLabels_.value(r, QString::number(r));
    const QString col = colLabels_.value(c, QString::number(c));
    return QStringLiteral("%1\t%2\t%3").arg(row, col, QString::number(double(value(r, c)), 'g', 9));
}
