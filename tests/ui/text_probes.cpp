#include "text_probes.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QPushButton>
#include <QRadioButton>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QToolButton>
#include <QtCharts/QChartView>

namespace testutil {

namespace {

QString nameOf(const QWidget* w) {
    return w->objectName().isEmpty() ? QString::fromLatin1(w->metaObject()->className()) : w->objectName();
}

// Qt Charts shortens an axis label or title that does not fit with "..." (ChartPresenter).
bool chartShortened(const QString& text) { return text.endsWith(QLatin1String("...")) || text.endsWith(QChar(0x2026)); }

}  // namespace

QStringList clippedControlTexts(QWidget* root) {
    QStringList out;
    QList<QWidget*> all = root->findChildren<QWidget*>();
    all.prepend(root);
    for (QWidget* w : all) {
        if (!w->isVisible()) continue;
        if (auto* combo = qobject_cast<QComboBox*>(w); combo && !combo->isEditable() && !combo->currentText().isEmpty()) {
            QStyleOptionComboBox opt;
            opt.initFrom(combo);
            opt.editable = false;
            opt.currentText = combo->currentText();
            const QRect field = combo->style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, combo);
            const int need = combo->fontMetrics().horizontalAdvance(combo->currentText());
            if (need > field.width())
                out << QStringLiteral("combo box text cut (%1 px in %2 px): %3 \"%4\"")
                           .arg(need).arg(field.width()).arg(nameOf(combo), combo->currentText());
        } else if (auto* header = qobject_cast<QHeaderView*>(w)) {
            const auto* model = header->model();
            if (!model) continue;
            for (int s = 0; s < header->count(); ++s) {
                if (header->isSectionHidden(s)) continue;
                const QString text = model->headerData(s, header->orientation(), Qt::DisplayRole).toString();
                if (text.isEmpty() || header->orientation() != Qt::Horizontal) continue;
                const int margin = 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
                const int need = header->fontMetrics().horizontalAdvance(text) + margin;
                if (need > header->sectionSize(s))
                    out << QStringLiteral("table header cut (%1 px in %2 px): %3 \"%4\"")
                               .arg(need).arg(header->sectionSize(s)).arg(nameOf(header), text);
            }
        } else if (auto* button = qobject_cast<QAbstractButton*>(w); button && !button->text().isEmpty()) {
            // A button's size hint is what it needs for its text (and icon); narrower, the text is cut.
            if (qobject_cast<QPushButton*>(button) || qobject_cast<QCheckBox*>(button) || qobject_cast<QRadioButton*>(button) ||
                (qobject_cast<QToolButton*>(button) && static_cast<QToolButton*>(button)->toolButtonStyle() != Qt::ToolButtonIconOnly))
                if (button->sizeHint().width() > button->width() + 1)
                    out << QStringLiteral("button text cut (%1 px in %2 px): %3 \"%4\"")
                               .arg(button->sizeHint().width()).arg(button->width()).arg(nameOf(button), button->text());
        } else if (auto* chart = qobject_cast<QChartView*>(w); chart && chart->scene()) {
            for (QGraphicsItem* item : chart->scene()->items()) {
                if (!item->isVisible()) continue;
                QString text;
                if (auto* t = dynamic_cast<QGraphicsTextItem*>(item)) text = t->toPlainText();
                else if (auto* s = dynamic_cast<QGraphicsSimpleTextItem*>(item)) text = s->text();
                if (chartShortened(text))
                    out << QStringLiteral("chart text shortened: %1 \"%2\"").arg(nameOf(chart), text);
            }
        }
    }
    return out;
}

}  // namespace testutil
