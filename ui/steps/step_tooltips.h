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

// What every "how it was computed" text reads about cell (r, c) of a step's panel: the trace,
// the step and its forward entry, the value, the row's and column's labels, the step's operands
// (the graph's inputs, in argument order) and its attention block's mask. The texts are its
// member functions, so each reads these by their names (models/<model>/tooltips.cpp add theirs).
struct CellScope {
    CellScope(const CellTipContext& x, int r, int c);
    const CellTipContext& x;
    int r, c, b, h;
    const stepformer::Trace& tr;
    const StepInfo& s;
    const stepformer::TraceEntry* e;  // the forward entry
    float v;
    QString qi, kj;
    const stepformer::TraceEntry* maskEntry;
    QString in(size_t i) const;       // the name of operand i ("" when there is none)
    Matrix operand(size_t i) const;   // operand i, sliced as the panel is
    QString reason() const;           // why the cell is masked ("" when it is not)

    QString sharedText() const;                // the tutorial's words (steps/step_tooltips.cpp)
    QString torchText(bool& handled) const;    // models/torch/tooltips.cpp
    QString aiaynText(bool& handled) const;    // models/aiayn/tooltips.cpp
    QString gptText(bool& handled) const;      // models/gpt/tooltips.cpp
};
// The "how it was computed" part of a cell's tooltip in a model's own words; `handled` false:
// the shared text applies (softmax over the vocabulary, the loss).
inline QString torchCellExtra(const CellScope& k, bool& handled) { return k.torchText(handled); }
inline QString aiaynCellExtra(const CellScope& k, bool& handled) { return k.aiaynText(handled); }
inline QString gptCellExtra(const CellScope& k, bool& handled) { return k.gptText(handled); }
// The note a masked cell of a masked-scores / softmax / context panel adds to its tooltip;
// `infiniteFill`: masked_fill wrote −inf rather than −1e9 (nanoGPT's).
QString maskedExplanationFor(const StepInfo& s, bool isMask, MaskConvention convention, bool infiniteFill = false);

}  // namespace tensorviz
