// What the blocks of the architecture diagram (the paper's Figure 1) stand for in the trace
// graph: the stack, block kind and role of the step a click on each one lands on, the diagram
// block a trace entry belongs to (read from its block and role), and what each block computes.
#pragma once

#include <QString>

#include "stepformer/config.h"
#include "stepformer/trace.h"

namespace architecture {

// Translated in the context lupdate gives tr() in this namespace ("architecture").
QString tr(const char* text);

struct Part {
    const char* id;             // the diagram's block id: "encoder.mha", "decoder.ffn_norm", "linear", ...
    stepformer::Stack stack;
    stepformer::BlockKind kind;
    stepformer::Role first;     // the step a click lands on (in the current layer for a layer's block)
};

// nullptr for an unknown id.
const Part* part(const QString& id);

// The diagram block of entry `e` of `tr` ("" when it has none). A mask belongs to the attention
// block that reads it (through `tr`'s graph); the residual sum and the LayerNorm of a layer's
// block to its "Add & Norm"; the loss to the softmax whose output it scores.
// `separateAdds`: the residual sums have blocks of their own (PyTorch's pre-norm layers' ⊕);
// a stack's final norm (nn.Transformer's encoder.norm / decoder.norm) is "<stack>.final_norm".
QString blockOf(const stepformer::Trace& tr, const stepformer::TraceEntry& e, bool separateAdds = false);

// The tooltip's description of a block (rich text) in the paper's words, with the sizes of `c`
// (a model's presentation may have its own: models::Presentation::blockTip).
QString description(const QString& id, const stepformer::Config& c);
}  // namespace architecture
