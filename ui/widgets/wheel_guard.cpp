#include "widgets/wheel_guard.h"

#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QPointer>
#include <QWheelEvent>

namespace {

bool isValueControl(const QWidget* w) {
    return qobject_cast<const QAbstractSpinBox*>(w) || qobject_cast<const QComboBox*>(w) ||
           qobject_cast<const QAbstractSlider*>(w);
}

// The value control `w` is, or is part of (a spin box's line edit); nullptr when none.
QWidget* valueControlOf(QWidget* w) {
    for (int depth = 0; w && depth < 3; ++depth, w = w->parentWidget())
        if (isValueControl(w)) return w;
    return nullptr;
}

// A scroll bar is a slider that should always take the wheel.
bool takesWheelUnfocused(const QWidget* control) {
    const auto* slider = qobject_cast<const QAbstractSlider*>(control);
    return slider && slider->inherits("QScrollBar");
}

// The viewport of the nearest scroll area holding `w`; nullptr when there is none.
QWidget* enclosingViewport(QWidget* w) {
    for (QWidget* p = w->parentWidget(); p; w = p, p = p->parentWidget())
        if (const auto* area = qobject_cast<QAbstractScrollArea*>(p); area && area->viewport() == w) return w;
    return nullptr;
}

}  // namespace

WheelGuard::WheelGuard(QObject* parent) : QObject(parent) {}

void WheelGuard::install() {
    static QPointer<WheelGuard> guard;
    if (guard || !qApp) return;
    guard = new WheelGuard(qApp);
    qApp->installEventFilter(guard);
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Polish) {
        // A control with wheel focus would grab the focus on the first wheel event and then take
        // the wheel: it gets focus by click or Tab only.
        auto* w = qobject_cast<QWidget*>(watched);
        if (w && isValueControl(w) && !takesWheelUnfocused(w) && w->focusPolicy() == Qt::WheelFocus)
            w->setFocusPolicy(Qt::StrongFocus);
        return false;
    }
    if (event->type() != QEvent::Wheel) return false;
    QWidget* control = valueControlOf(qobject_cast<QWidget*>(watched));
    if (!control || takesWheelUnfocused(control) || control->hasFocus()) return false;
    // Hand the wheel to the scroll area around the control, which scrolls. (A forwarded event
    // is not spontaneous, and Qt propagates only spontaneous wheel events to parents.)
    if (QWidget* viewport = enclosingViewport(control)) {
        const auto* we = static_cast<QWheelEvent*>(event);
        QWheelEvent copy(viewport->mapFromGlobal(we->globalPosition()), we->globalPosition(), we->pixelDelta(),
                         we->angleDelta(), we->buttons(), we->modifiers(), we->phase(), we->inverted(),
                         we->source());
        QCoreApplication::sendEvent(viewport, &copy);
    }
    return true;
}
