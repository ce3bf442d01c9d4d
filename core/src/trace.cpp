#include "stepformer/trace.h"

#include <stdexcept>

namespace stepformer {

const char* axis_kind_name(AxisKind k) {
    switch (k) {
        case AxisKind::Batch: return "batch";
        case AxisKind::Head: return "head";
        case AxisKind::SrcToken: return "src_token";
        case AxisKind::TgtToken: return "tgt_token";
        case AxisKind::Feature: return "feature";
        case AxisKind::Vocab: return "vocab";
        case AxisKind::Position: return "position";
    }
    return "?";
}

const char* op_kind_name(OpKind k) {
    switch (k) {
        case OpKind::Embedding: return "embedding";
        case OpKind::PositionalTable: return "positional_table";
        case OpKind::PositionalAdd: return "positional_add";
        case OpKind::PadMask: return "pad_mask";
        case OpKind::SubsequenceMask: return "subsequence_mask";
        case OpKind::CombinedMask: return "combined_mask";
        case OpKind::Q: return "q";
        case OpKind::K: return "k";
        case OpKind::V: return "v";
        case OpKind::Scores: return "scores";
        case OpKind::MaskedScores: return "masked_scores";
        case OpKind::Softmax: return "softmax";
        case OpKind::Context: return "context";
        case OpKind::OutProjection: return "out_projection";
        case OpKind::Residual: return "residual";
        case OpKind::LayerNorm: return "layer_norm";
        case OpKind::FfnHidden: return "ffn_hidden";
        case OpKind::Relu: return "relu";
        case OpKind::FfnOut: return "ffn_out";
        case OpKind::Logits: return "logits";
        case OpKind::Probs: return "probs";
        case OpKind::LossPerToken: return "loss_per_token";
        case OpKind::Loss: return "loss";
        case OpKind::Gradient: return "gradient";
    }
    return "?";
}

TraceEntry& Trace::add(std::string name, OpKind op, std::vector<Axis> axes, Tensor value, bool is_mask) {
    if (index_.count(name)) throw std::logic_error("trace: duplicate entry '" + name + "'");
    if (axes.size() != value.shape.size())
        throw std::logic_error("trace: '" + name + "' has " + std::to_string(axes.size()) + " axes for shape " +
                               shape_to_string(value.shape));
    index_.emplace(name, entries_.size());
    entries_.push_back(TraceEntry{std::move(name), op, std::move(axes), is_mask, std::move(value)});
    return entries_.back();
}

const TraceEntry* Trace::find(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &entries_[it->second];
}

TraceEntry* Trace::find_mut(const std::string& name) {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &entries_[it->second];
}

const TraceEntry& Trace::at(const std::string& name) const {
    const TraceEntry* e = find(name);
    if (!e) throw std::out_of_range("trace has no entry '" + name + "'");
    return *e;
}

void Trace::clear() {
    entries_.clear();
    index_.clear();
    src_tokens.clear();
    tgt_tokens.clear();
    saved.clear();
}

}  // namespace stepformer
