#include "app/app_style.h"

#include <QApplication>
#include <QPainter>
#include <QStyleFactory>
#include <QStyleOptionSlider>

namespace {

// A one-pixel frame from four solid fills (a pen would go through the stroker).
void frameRect(QPainter* p, const QRect& r, const QColor& c) {
    p->fillRect(QRect(r.left(), r.top(), r.width(), 1), c);
    p->fillRect(QRect(r.left(), r.bottom(), r.width(), 1), c);
    p->fillRect(QRect(r.left(), r.top(), 1, r.height()), c);
    p->fillRect(QRect(r.right(), r.top(), 1, r.height()), c);
}

}  // namespace

AppStyle::AppStyle(QStyle* base) : QProxyStyle(base) {
    flatScrollBars_ = baseStyle() && baseStyle()->name().compare(QLatin1String("fusion"), Qt::CaseInsensitive) == 0;
}

void AppStyle::install() {
    if (qobject_cast<AppStyle*>(QApplication::style())) return;
    QStyle* base = QStyleFactory::create(QApplication::style()->name());
    QApplication::setStyle(new AppStyle(base));
}

void AppStyle::drawComplexControl(ComplexControl control, const QStyleOptionComplex* option, QPainter* painter,
                                  const QWidget* widget) const {
    const auto* sb = qstyleoption_cast<const QStyleOptionSlider*>(option);
    if (control != CC_ScrollBar || !flatScrollBars_ || !sb) {
        QProxyStyle::drawComplexControl(control, option, painter, widget);
        return;
    }
    const QPalette& pal = sb->palette;
    const bool enabled = sb->state & State_Enabled;
    const bool horizontal = sb->orientation == Qt::Horizontal;
    const QColor window = pal.color(QPalette::Window);
    const bool dark = window.lightness() < 128;
    const QColor groove = dark ? window.lighter(115) : window.darker(103);
    const QColor edge = dark ? window.lighter(150) : window.darker(118);
    painter->fillRect(sb->rect, groove);
    // The line between the scroll bar and the content, as Fusion draws it.
    if (horizontal) painter->fillRect(QRect(sb->rect.left(), sb->rect.top(), sb->rect.width(), 1), edge);
    else painter->fillRect(QRect(sb->rect.left(), sb->rect.top(), 1, sb->rect.height()), edge);

    // Arrow buttons.
    for (SubControl sc : {SC_ScrollBarSubLine, SC_ScrollBarAddLine}) {
        if (!(sb->subControls & sc)) continue;
        const QRect r = proxy()->subControlRect(control, sb, sc, widget);
        if (!r.isValid()) continue;
        const bool pressed = (sb->activeSubControls & sc) && (sb->state & State_Sunken);
        if (pressed) painter->fillRect(r.adjusted(1, 1, -1, -1), dark ? window.lighter(140) : window.darker(112));
        QStyleOption arrow = *sb;
        arrow.rect = r.adjusted(2, 2, -2, -2);
        const bool atLimit = sc == SC_ScrollBarSubLine ? sb->sliderValue == sb->minimum : sb->sliderValue == sb->maximum;
        if (!enabled || atLimit) arrow.state &= ~State_Enabled;
        PrimitiveElement pe;
        if (horizontal) {
            const bool left = (sc == SC_ScrollBarSubLine) != (sb->direction == Qt::RightToLeft);
            pe = left ? PE_IndicatorArrowLeft : PE_IndicatorArrowRight;
        } else {
            pe = sc == SC_ScrollBarSubLine ? PE_IndicatorArrowUp : PE_IndicatorArrowDown;
        }
        proxy()->drawPrimitive(pe, &arrow, painter, widget);
    }

    // The handle: solid, a shade darker under the mouse and while dragged.
    if ((sb->subControls & SC_ScrollBarSlider) && sb->minimum != sb->maximum) {
        QRect r = proxy()->subControlRect(control, sb, SC_ScrollBarSlider, widget);
        r = horizontal ? r.adjusted(0, 2, 0, -1) : r.adjusted(2, 0, -1, 0);
        if (r.isValid()) {
            const bool active = sb->activeSubControls & SC_ScrollBarSlider;
            const bool pressed = active && (sb->state & State_Sunken);
            const bool hover = active && (sb->state & State_MouseOver);
            const QColor button = pal.color(QPalette::Button);
            QColor fill = dark ? button.lighter(pressed ? 150 : hover ? 135 : 120)
                               : button.darker(pressed ? 140 : hover ? 125 : 114);
            if (!enabled) fill = groove;
            painter->fillRect(r, fill);
            frameRect(painter, r, enabled ? (dark ? window.lighter(170) : window.darker(140)) : edge);
        }
    }
}
