// Private to the step panels (step_pieces.cpp, models/torch/pieces.cpp): appends the panels and the
// operators between them to a step's pieces.
#pragma once

#include <QString>

#include "steps/step_panels.h"

namespace tensorviz {

struct PieceBuilder {
    const TracePtr& trp;
    const stepformer::Config& cfg;
    int b = 0, h = 0;
    StepPieces& out;

    // A panel of entry `name` (panelFor), appended; the pointer stays valid until the next add.
    PanelSpec* add(const QString& name, const QString& title);
    void op(const QString& text);
    // The last panel shown transposed (K as Kᵀ), its tooltips following the cells.
    void transposeLast(const QString& title);
    // A [B, H, L, d] entry with its heads side by side (the input of an output projection).
    void mergedHeads(const QString& name, const QString& title);
};

// The pieces and formula of a step of PyTorch's layers, in PyTorch's words; false for a role it
// leaves to the tutorial's (the gradients, the loss). H: the block's heads, hh: the head shown.
bool torchStepPieces(PieceBuilder& pb, const StepInfo& s, const QString& step, int H, int hh);
// The same for attention-is-all-you-need-pytorch's model (models/aiayn/pieces.cpp).
bool aiaynStepPieces(PieceBuilder& pb, const StepInfo& s, const QString& step, int H, int hh);
// The same for nanoGPT's GPT (models/gpt/pieces.cpp).
bool gptStepPieces(PieceBuilder& pb, const StepInfo& s, const QString& step, int H, int hh);

}  // namespace tensorviz
