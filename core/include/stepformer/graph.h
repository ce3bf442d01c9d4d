// A model as data (ggml's cgraph): the steps a forward pass computes, in order, each with its op,
// its inputs (earlier steps or parameters), its attributes, its shape and axes, and where it sits
// (block, role). A model builds one from its config and the batch's sizes (core/src/models/);
// the engine runs it on any backend (core/src/engine/), from the first step or from any step.
// The trace's entries are the traced steps' outputs; a step that is not traced (a mask in the
// form a kernel takes) keeps its output in the trace's internals.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "stepformer/trace.h"

namespace stepformer {

// What a step reads from the batch (Attrs::stream): token ids (Embedding, TokenMask), the layer
// lab's given tensors (Input) and the masks given with them (AdditiveMask). Position: the ids
// 0, 1, ..., L − 1 (a learned position table's rows, nanoGPT's wpe).
enum class Stream : int { Src = 0, Tgt = 1, Memory = 2, Position = 3 };

// The batch's token streams (Batch::tokens), each (B, its length) of ids: "src" the encoder's
// input, "tgt" the decoder's input, "out" the targets the loss reads. A model says which it
// reads (model_streams, its registry line); a step's Attrs::stream of Src or Tgt reads the same.
enum class TokenStream : int { Src = 0, Tgt = 1, Out = 2 };
const char* token_stream_name(TokenStream s);

struct Step {
    std::string name;  // the trace's name
    Node node;         // role, op, block, inputs (trace entries or parameters), attrs
    std::vector<Axis> axes;
    Shape shape;
    bool is_mask = false;
    bool traced = true;               // false: internal to the pass, never shown
    std::vector<std::string> hidden;  // internal steps it reads besides its inputs (a mask's fill)
};

// The loss a model trains on, from its logits and probabilities (Transformer::loss appends its
// steps after the graph's): cross-entropy's mean over the targets that are not padding, or
// attention-is-all-you-need-pytorch's cal_loss, label-smoothed and summed.
struct LossSpec {
    float label_smoothing = 0.0f;
    bool sum = false;
    // The loss as the model's own code writes it, for a viewer to print.
    std::string code = "nn.CrossEntropyLoss(ignore_index=0)";
};

class Graph {
public:
    LossSpec loss;

    // Appends; throws std::logic_error on a duplicate name, an input that is neither an earlier
    // step nor a parameter of `params` (when given), or axes that do not fit the shape.
    const Step& add(Step s);
    const std::vector<Step>& steps() const { return steps_; }
    size_t size() const { return steps_.size(); }
    const Step* find(const std::string& name) const;
    // The step's index; throws std::out_of_range naming it.
    size_t index_of(const std::string& name) const;
    bool contains(const std::string& name) const { return index_.count(name) != 0; }

private:
    std::vector<Step> steps_;
    std::unordered_map<std::string, size_t> index_;
};

}  // namespace stepformer
