// Private to the step panels: the tooltip of one heatmap cell, saying how the number was
// computed from the step's inputs (read from the trace graph: the entry's role and inputs).
#pragma once

#include <memory>
#include <vector>

#include <QString>

#include "stepformer/config.h"
#include "stepformer/trace.h"
#include "steps/tensor_slice.h"

namespace tensorviz {

struct CellTipContext {
    std::shared_ptr<const stepformer::Trace> tr;  // keeps `s`'s entries alive
    stepformer::Config cfg;
    QString name;
    StepInfo s;
    bool isMask = false;
    int b = 0, h = 0;
    Matrix m;
    std::vector<float> mask;
};

QString cellTooltip(const CellTipContext& x, int r, int c);
// The "how it was computed" part of a cell's tooltip for a step of PyTorch's layers
// (models/torch/tooltips.cpp); `handled` false: the tutorial's text applies (softmax over the
// vocabulary, the loss).
QString torchCellExtra(const CellTipContext& x, int r, int c, bool& handled);
// The same for attention-is-all-you-need-pytorch's model (models/aiayn/tooltips.cpp).
QString aiaynCellExtra(const CellTipContext& x, int r, int c, bool& handled);
// The note a masked cell of a masked-scores / softmax / context panel adds to its tooltip.
QString maskedExplanationFor(const StepInfo& s, bool isMask, MaskConvention convention);

}  // namespace tensorviz
