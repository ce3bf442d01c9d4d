#include "widgets/theme_colors.h"

#include <QApplication>
#include <QEvent>
#include <QPalette>
#include <QRegularExpression>
#include <QWidget>

namespace theme {

namespace {
QColor mix(const QColor& a, const QColor& b, double t) {
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t), float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

// Keeps a label's text quiet across palette changes.
class QuietFilter : public QObject {
public:
    using QObject::QObject;
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::ApplicationPaletteChange)
            if (auto* w = qobject_cast<QWidget*>(watched)) apply(w);
        return QObject::eventFilter(watched, event);
    }
    static void apply(QWidget* w) {
        QPalette p = w->palette();
        p.setColor(QPalette::WindowText, quietText());
        p.setColor(QPalette::Text, quietText());
        w->setPalette(p);
    }
};
}  // namespace

QColor quietText() {
    const QPalette p = QApplication::palette();
    return mix(p.color(QPalette::Text), p.color(QPalette::Base), 0.45);
}

QString themed(const QString& html) {
    static const QRegularExpression grey(QStringLiteral("color:\\s*#(333|3a3a3a|444|555|666|777|888)\\b"));
    if (!html.contains(QLatin1Char('#'))) return html;
    QString out = html;
    out.replace(grey, QStringLiteral("color:") + quietText().name());
    return out;
}

void makeQuiet(QWidget* label) {
    if (!label) return;
    QuietFilter::apply(label);
    label->installEventFilter(new QuietFilter(label));
}

bool isDark() { return QApplication::palette().color(QPalette::Window).lightness() < 128; }

}  // namespace theme
