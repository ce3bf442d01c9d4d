// Numbers as PyTorch 1.13 prints a tensor (torch/_tensor_str.py with the default print options:
// precision 4, linewidth 80), so that the layer lab's digits read exactly like a notebook's
// print(x): one formatter per tensor picks fixed ("-1.0328"), whole-number ("0.", "-inf") or
// scientific ("1.6275e+00") notation from all of the tensor's values, and pads every number to
// one width. No summarisation ("...") and no grad_fn suffix: the lab's tensors are tiny.
#pragma once

#include <vector>

#include <QString>

#include "stepformer/tensor.h"

namespace torchprint {

class Formatter {
public:
    // Decides the notation from the tensor's nonzero finite values, as _Formatter does.
    explicit Formatter(const std::vector<float>& values);

    // One value, left-padded to width() as PyTorch pads it.
    QString format(float v) const;
    // The same without the padding (a table cell).
    QString formatTrimmed(float v) const { return format(v).trimmed(); }
    int width() const { return width_; }
    bool scientific() const { return sci_; }
    bool wholeNumbers() const { return int_; }

private:
    QString raw(float v) const;
    bool int_ = true;
    bool sci_ = false;
    int width_ = 1;
};

// "tensor([[[-1.0328, -0.9185,  0.6710,  1.2804]],\n\n        [[...]]])" for a tensor of any
// rank; "tensor([])" when empty. `shape` overrides t.shape (a view of the same values, e.g. the
// heads folded into the batch as F.multi_head_attention_forward holds them).
QString repr(const stepformer::Tensor& t);
QString repr(const std::vector<float>& values, const stepformer::Shape& shape);
// "torch.Size([3, 1, 4])"
QString sizeText(const stepformer::Shape& shape);

}  // namespace torchprint
