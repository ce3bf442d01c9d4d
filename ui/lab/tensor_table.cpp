#include "lab/tensor_table.h"

#include <cmath>

#include <QHeaderView>

#include "lab/module_repr.h"
#include "widgets/number_format.h"

TensorTable::TensorTable(QWidget* parent) : QTableWidget(parent) {
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    horizontalHeader()->setHighlightSections(false);
    verticalHeader()->setHighlightSections(false);
    setWordWrap(false);
    setCornerButtonEnabled(false);
}

void TensorTable::setValues(const float* values, int rows, int cols, int64_t rowStride, int64_t colStride,
                            const QStringList& rowLabels, const QStringList& colLabels, const torchprint::Formatter& format,
                       const Colormap& colors) {
    clear();
    setRowCount(rows);
    setColumnCount(cols);
    setVerticalHeaderLabels(rowLabels);
    setHorizontalHeaderLabels(colLabels);
    const QFontMetrics fm(font());
    int widest = fm.horizontalAdvance(QStringLiteral("-0.0000"));
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const float v = values[r * rowStride + c * colStride];
            auto* item = new QTableWidgetItem(format.formatTrimmed(v));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            QColor bg = std::isnan(v)                  ? Colormap::nanColor()
                        : std::isinf(v) && v < 0       ? Colormap::maskedColor()
                                                       : colors.color(v);
            item->setBackground(bg);
            item->setForeground(Colormap::textColorOn(bg));
            const QString where = QStringLiteral("%1, %2").arg(rowLabels.value(r), colLabels.value(c));
            QString tip = tr("%1: %2 (float32, exactly %3)").arg(where, item->text(), numfmt::exact(v));
            if (std::isinf(v) && v < 0) tip += tr("<br>-inf: masked, this key gets weight 0 after the softmax");
            if (std::isnan(v)) tip += tr("<br>nan: every key of this row is masked, softmax of all -inf");
            item->setToolTip(tip);
            widest = std::max(widest, fm.horizontalAdvance(item->text()));
            setItem(r, c, item);
        }
    const int cellW = widest + 14, cellH = fm.height() + 8;
    for (int c = 0; c < cols; ++c) setColumnWidth(c, cellW);
    for (int r = 0; r < rows; ++r) setRowHeight(r, cellH);
    const int w = verticalHeader()->sizeHint().width() + cellW * cols + 2 * frameWidth();
    const int h = horizontalHeader()->sizeHint().height() + cellH * rows + 2 * frameWidth();
    fitted_ = QSize(w, h);
    setFixedSize(fitted_);
    updateGeometry();
}

QString TensorTable::text(int r, int c) const {
    const QTableWidgetItem* i = item(r, c);
    return i ? i->text() : QString();
}
