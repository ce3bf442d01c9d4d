// An editable input of the layer lab, in PyTorch's layout [seq_len, batch, d_model]: one row per
// x[l, b] (a position of one batch element), one column per feature, typed numbers; and a last
// column "pad" per row, key_padding_mask[b, l] (checked = True = ignore this key).
#pragma once

#include <functional>

#include <QTableWidget>

#include "stepformer/tensor.h"

class InputTable : public QTableWidget {
    Q_OBJECT
public:
    explicit InputTable(QWidget* parent = nullptr);

    // t: [L, B, D]; padded(b, l): the key-padding column.
    void setTensor(const stepformer::Tensor& t, const std::function<bool(int b, int l)>& padded);
    // The row of x[l, b].
    int rowOf(int l, int b) const { return l * batch_ + b; }
    int padColumn() const { return dModel_; }

signals:
    void valueEdited(int l, int b, int d, float value);
    void paddingToggled(int b, int l, bool on);
    // Text that is not a number was typed; the cell went back to its number.
    void rejected(const QString& message);

private:
    void onItemChanged(QTableWidgetItem* item);

    int batch_ = 1, dModel_ = 0;
    bool filling_ = false;
};
