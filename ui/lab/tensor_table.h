// One 2-D slice of a tensor as a small read-only table: every number printed the way PyTorch
// prints it (the tensor's one torchprint::Formatter), the cell coloured by value, -inf (a masked
// score) grey and nan (a fully masked row) in the "not a number" colour. It takes the size of
// its contents: a caller lays several side by side.
#pragma once

#include <QStringList>
#include <QTableWidget>

#include "widgets/colormap.h"

namespace torchprint {
class Formatter;
}

class TensorTable : public QTableWidget {
    Q_OBJECT
public:
    explicit TensorTable(QWidget* parent = nullptr);

    // values: rows × cols, row-major (row r, column c at r * rowStride + c * colStride).
    void setValues(const float* values, int rows, int cols, int64_t rowStride, int64_t colStride,
                   const QStringList& rowLabels, const QStringList& colLabels, const torchprint::Formatter& format,
                   const Colormap& colors);
    // The cell's text ("-1.0328"), for tests and tooltips.
    QString text(int r, int c) const;

    QSize sizeHint() const override { return fitted_; }
    QSize minimumSizeHint() const override { return fitted_; }

private:
    QSize fitted_;
};
