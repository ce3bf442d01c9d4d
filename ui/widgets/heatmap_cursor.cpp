// HeatmapWidget's keyboard cell cursor, its selection of a block of cells, and what assistive
// technology reads of them.
//
// The arrow keys step the pass everywhere in the window, so a heatmap that only has the focus
// because it was clicked must leave them alone: the cursor takes them only once it is on (focus
// by Tab, or ↑ ↓ pressed), and Escape hands them back.
#include "widgets/heatmap_widget.h"

#include <algorithm>

#include <QAccessible>
#include <QCoreApplication>
#include <QFocusEvent>
#include <QKeyEvent>
#include <QStatusTipEvent>

#include "widgets/number_format.h"

namespace {
QString axisPart(const QString& what, int i, const QStringList& labels) {
    QString s = QStringLiteral("%1 %2").arg(what).arg(i);
    if (i < labels.size() && labels[i] != QString::number(i)) s += QStringLiteral(" '%1'").arg(labels[i]);
    return s;
}
}  // namespace

QString HeatmapWidget::cellStatusText(int r, int c) const {
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return {};
    QString s = title_.isEmpty() ? QString() : title_ + QStringLiteral(": ");
    s += tr("%1, %2 = %3").arg(axisPart(tr("row"), r, rowLabels_), axisPart(tr("column"), c, colLabels_),
                               numfmt::exact(value(r, c)));
    if (isMasked(r, c)) s += tr(" (masked)");
    return s;
}

bool HeatmapWidget::cursorKey(const QKeyEvent* e) const {
    if (isEmpty()) return false;
    const auto mods = e->modifiers() & ~(Qt::KeypadModifier | Qt::ShiftModifier);  // Shift: select
    if (mods != Qt::NoModifier && mods != Qt::ControlModifier) return false;
    switch (e->key()) {
    case Qt::Key_Up:
    case Qt::Key_Down:
        return mods == Qt::NoModifier && (cursorOn_ || !(e->modifiers() & Qt::ShiftModifier));  // ↑ ↓ turn it on
    case Qt::Key_Left:
    case Qt::Key_Right:
    case Qt::Key_Home:
    case Qt::Key_End:
    case Qt::Key_PageUp:
    case Qt::Key_PageDown:
    case Qt::Key_Escape:
    case Qt::Key_Return:
    case Qt::Key_Enter:
    case Qt::Key_Space:
        return cursorOn_;
    default:
        return false;
    }
}

bool HeatmapWidget::event(QEvent* e) {
    if (e->type() == QEvent::ShortcutOverride && cursorKey(static_cast<QKeyEvent*>(e))) {
        e->accept();  // the window's step shortcuts do not get these keys
        return true;
    }
    return QAbstractScrollArea::event(e);
}

void HeatmapWidget::keyPressEvent(QKeyEvent* e) {
    if (!cursorKey(e)) {
        QAbstractScrollArea::keyPressEvent(e);
        return;
    }
    if (!cursorOn_) {  // ↑ or ↓: on, at the hovered cell or the first one
        setCellCursor(hoverR_ >= 0 ? hoverR_ : 0, hoverC_ >= 0 ? hoverC_ : 0);
        return;
    }
    const bool ctrl = e->modifiers() & Qt::ControlModifier;
    const bool shift = e->modifiers() & Qt::ShiftModifier;
    const int pageRows = std::max(1, gridRect_.height() / std::max(1, cellH_) - 1);
    int r = cursorR_, c = cursorC_;
    switch (e->key()) {
    case Qt::Key_Up: --r; break;
    case Qt::Key_Down: ++r; break;
    case Qt::Key_Left: --c; break;
    case Qt::Key_Right: ++c; break;
    case Qt::Key_Home: c = 0; if (ctrl) r = 0; break;
    case Qt::Key_End: c = cols_ - 1; if (ctrl) r = rows_ - 1; break;
    case Qt::Key_PageUp: r -= pageRows; break;
    case Qt::Key_PageDown: r += pageRows; break;
    case Qt::Key_Escape:  // the selection first, then the cursor
        if (!selection_.isEmpty()) clearSelection();
        else leaveCellCursor();
        return;
    default:  // Enter, Space: what a click on the cell does
        emit cellClicked(cursorR_, cursorC_);
        return;
    }
    if (shift && selection_.isEmpty()) anchor_ = QPoint(cursorC_, cursorR_);
    setCellCursor(r, c);
    if (shift) extendSelection(cursorR_, cursorC_);
    else clearSelection();
}

void HeatmapWidget::setSelection(const QRect& cells) {
    const QRect clipped = isEmpty() ? QRect() : cells.intersected(QRect(0, 0, cols_, rows_));
    if (clipped == selection_) return;
    selection_ = clipped;
    viewport()->update();
    if (!selection_.isEmpty()) {
        QStatusTipEvent tip(tr("%1 × %2 cells selected: Ctrl+C copies them").arg(selection_.height()).arg(selection_.width()));
        QCoreApplication::sendEvent(this, &tip);
    }
}

void HeatmapWidget::extendSelection(int r, int c) {
    if (anchor_.x() < 0) anchor_ = QPoint(c, r);
    // (QRect(p, q).normalized() leaves a block one cell wide empty when q lies left of p.)
    setSelection(QRect(QPoint(std::min(anchor_.x(), c), std::min(anchor_.y(), r)),
                       QPoint(std::max(anchor_.x(), c), std::max(anchor_.y(), r))));
}

QString HeatmapWidget::selectionCopyText() const {
    if (selection_.isEmpty()) return {};
    QStringList lines;
    QStringList header{QString()};
    for (int c = selection_.left(); c <= selection_.right(); ++c) header << colLabels_.value(c, QString::number(c));
    lines << header.join(QLatin1Char('\t'));
    for (int r = selection_.top(); r <= selection_.bottom(); ++r) {
        QStringList row{rowLabels_.value(r, QString::number(r))};
        for (int c = selection_.left(); c <= selection_.right(); ++c) row << QString::number(double(value(r, c)), 'g', 9);
        lines << row.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void HeatmapWidget::setCellCursor(int r, int c) {
    if (isEmpty()) return;
    cursorR_ = std::clamp(r, 0, rows_ - 1);
    cursorC_ = std::clamp(c, 0, cols_ - 1);
    cursorOn_ = true;
    ensureCellVisible(cursorR_, cursorC_);
    setHover(cursorR_, cursorC_);
    viewport()->update();
    const QString text = cellStatusText(cursorR_, cursorC_);
    QStatusTipEvent tip(text);  // goes up to the main window's status bar
    QCoreApplication::sendEvent(this, &tip);
    setAccessibleDescription(text);
    if (QAccessible::isActive()) {
        QAccessibleEvent ev(this, QAccessible::DescriptionChanged);
        QAccessible::updateAccessibility(&ev);
    }
}

void HeatmapWidget::leaveCellCursor() {
    if (!cursorOn_) return;
    cursorOn_ = false;
    setHover(-1, -1);
    viewport()->update();
    QStatusTipEvent tip{QString()};
    QCoreApplication::sendEvent(this, &tip);
    updateAccessibleText();
}

void HeatmapWidget::focusInEvent(QFocusEvent* e) {
    QAbstractScrollArea::focusInEvent(e);
    if (e->reason() == Qt::TabFocusReason || e->reason() == Qt::BacktabFocusReason)
        setCellCursor(cursorR_, cursorC_);
}

void HeatmapWidget::focusOutEvent(QFocusEvent* e) {
    QAbstractScrollArea::focusOutEvent(e);
    // A popup (a tooltip, a menu) takes the focus for a moment: the cursor stays for its return.
    if (e->reason() != Qt::PopupFocusReason && e->reason() != Qt::ActiveWindowFocusReason) leaveCellCursor();
}

void HeatmapWidget::updateAccessibleText() {
    // A name a screen reader says when the heatmap gets the focus, and what it holds.
    setAccessibleName(title_.isEmpty() ? tr("Heatmap") : tr("Heatmap: %1").arg(title_));
    if (isEmpty()) {
        setAccessibleDescription(emptyMessage_);
        return;
    }
    QString d = tr("%1 rows × %2 columns").arg(rows_).arg(cols_);
    if (!rowTitle_.isEmpty() || !colTitle_.isEmpty()) d += QStringLiteral("; ") + tr("rows: %1; columns: %2").arg(rowTitle_, colTitle_);
    d += QStringLiteral(". ") + tr("Tab here, then the arrow keys move a cell cursor; Esc leaves it.");
    setAccessibleDescription(d);
}
