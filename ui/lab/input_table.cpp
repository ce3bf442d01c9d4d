#include "lab/input_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <QHeaderView>
#include <QLocale>

namespace {

// Four decimals as PyTorch prints them; editing shows the same text.
QString shortText(float v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.4f", double(v));
    return QString::fromLatin1(buf);
}

}  // namespace

InputTable::InputTable(QWidget* parent) : QTableWidget(parent) {
    setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                    QAbstractItemView::AnyKeyPressed | QAbstractItemView::SelectedClicked);
    setSelectionMode(QAbstractItemView::SingleSelection);
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    setWordWrap(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setSizeAdjustPolicy(QAbstractScrollArea::AdjustIgnored);
    connect(this, &QTableWidget::itemChanged, this, &InputTable::onItemChanged);
}

void InputTable::setTensor(const stepformer::Tensor& t, const std::function<bool(int, int)>& padded) {
    filling_ = true;
    const int L = int(t.dim(0)), B = int(t.dim(1)), D = int(t.dim(2));
    batch_ = B;
    dModel_ = D;
    setRowCount(L * B);
    setColumnCount(D + 1);
    QStringList cols;
    for (int d = 0; d < D; ++d) cols << QString::number(d);
    cols << tr("pad");
    setHorizontalHeaderLabels(cols);
    horizontalHeaderItem(D)->setToolTip(tr("key_padding_mask[b, l]: checked = True = this position is ignored as a key"));
    QStringList rows;
    for (int l = 0; l < L; ++l)
        for (int b = 0; b < B; ++b) rows << QStringLiteral("[%1, %2]").arg(l).arg(b);
    setVerticalHeaderLabels(rows);
    for (int l = 0; l < L; ++l)
        for (int b = 0; b < B; ++b) {
            const int r = rowOf(l, b);
            for (int d = 0; d < D; ++d) {
                const float v = t.data[size_t((l * B + b) * D + d)];
                QTableWidgetItem* it = item(r, d);
                if (!it) {
                    it = new QTableWidgetItem;
                    setItem(r, d, it);
                }
                it->setText(shortText(v));
                it->setData(Qt::UserRole, double(v));
                it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                it->setToolTip(tr("x[%1, %2, %3] = %4; type a number").arg(l).arg(b).arg(d).arg(double(v), 0, 'g', 9));
            }
            QTableWidgetItem* pad = item(r, D);
            if (!pad) {
                pad = new QTableWidgetItem;
                setItem(r, D, pad);
            }
            pad->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
            pad->setCheckState(padded(b, l) ? Qt::Checked : Qt::Unchecked);
            pad->setToolTip(tr("key_padding_mask[%1, %2] = %3").arg(b).arg(l).arg(padded(b, l) ? "True" : "False"));
        }
    filling_ = false;
    // As tall as its rows, up to 8 of them (then it scrolls): no empty grey area under them.
    const int shown = std::min(L * B, 8);
    const int rowH = L * B > 0 ? verticalHeader()->sectionSize(0) : verticalHeader()->defaultSectionSize();
    setFixedHeight(horizontalHeader()->sizeHint().height() + shown * rowH + 2 * frameWidth() + 2);
}

void InputTable::onItemChanged(QTableWidgetItem* item) {
    if (filling_) return;
    const int r = item->row(), c = item->column(), l = r / batch_, b = r % batch_;
    if (c == dModel_) {
        emit paddingToggled(b, l, item->checkState() == Qt::Checked);
        return;
    }
    QString text = item->text().trimmed();
    text.replace(QChar(0x2212), QLatin1Char('-'));  // a pasted typographic minus
    bool ok = false;
    const double v = QLocale::c().toDouble(text, &ok);
    if (!ok || !std::isfinite(v) || std::abs(v) > 1e30) {
        const QString bad = item->text();
        filling_ = true;
        item->setText(shortText(float(item->data(Qt::UserRole).toDouble())));
        filling_ = false;
        emit rejected(tr("\"%1\" is not a number: x[%2, %3, %4] keeps its value").arg(bad).arg(l).arg(b).arg(c));
        return;
    }
    // Show it as PyTorch would; the model keeps the typed float.
    filling_ = true;
    item->setData(Qt::UserRole, v);
    item->setText(shortText(float(v)));
    filling_ = false;
    emit valueEdited(l, b, c, float(v));
}
