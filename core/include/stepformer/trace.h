// The trace: every intermediate of a forward (and backward) pass, in the order it was
// computed, under a stable name, with the meaning of each axis so a viewer can label it.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "stepformer/tensor.h"

namespace stepformer {

enum class AxisKind {
    Batch,     // sentence in the batch
    Head,      // attention head
    SrcToken,  // a position of the source sentence (token labels from the source)
    TgtToken,  // a position of the target (decoder input) sentence
    Feature,   // d_model, d_k, d_v or d_ff index
    Vocab,     // target vocabulary entry
    Position,  // absolute position (positional-encoding table)
};

const char* axis_kind_name(AxisKind k);

struct Axis {
    AxisKind kind;
    std::string name;  // the tutorial's name for the axis: batch_size, n_heads, len_q, d_model, ...
};

// What operation produced the tensor; the GUI picks explanations and views by it.
enum class OpKind {
    Embedding, PositionalTable, PositionalAdd, PadMask, SubsequenceMask, CombinedMask,
    Q, K, V, Scores, MaskedScores, Softmax, Context, OutProjection, Residual, LayerNorm,
    FfnHidden, Relu, FfnOut, Logits, Probs, LossPerToken, Loss, Gradient,
};

const char* op_kind_name(OpKind k);

struct TraceEntry {
    std::string name;
    OpKind op;
    std::vector<Axis> axes;  // one per dimension of value
    bool is_mask = false;    // 1 = masked; written as U8 in dumps
    Tensor value;
};

class Trace {
public:
    // Appends; throws std::logic_error on a duplicate name or an axes/shape mismatch.
    TraceEntry& add(std::string name, OpKind op, std::vector<Axis> axes, Tensor value, bool is_mask = false);

    const TraceEntry* find(const std::string& name) const;
    const TraceEntry& at(const std::string& name) const;  // throws std::out_of_range naming it
    TraceEntry* find_mut(const std::string& name);
    bool contains(const std::string& name) const { return index_.count(name) != 0; }

    // A deque: entries never move, so references stay valid while the trace grows.
    const std::deque<TraceEntry>& entries() const { return entries_; }
    std::deque<TraceEntry>& entries_mut() { return entries_; }
    size_t size() const { return entries_.size(); }
    void clear();

    // Token strings of the batch, for axis labels: tokens[b][pos].
    std::vector<std::vector<std::string>> src_tokens;
    std::vector<std::vector<std::string>> tgt_tokens;

    // Internals the backward pass needs that are not part of the public trace (LayerNorm
    // statistics, merged heads, dropout masks). Not dumped, not shown.
    std::unordered_map<std::string, Tensor> saved;

private:
    std::deque<TraceEntry> entries_;
    std::unordered_map<std::string, size_t> index_;
};

}  // namespace stepformer
