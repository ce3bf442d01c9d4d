#include "stepformer/trace.h"

#include <algorithm>
#include <stdexcept>

#include "stepformer/staging.h"
#include "stepformer/trace_names.h"

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

const char* role_name(Role k) {
    switch (k) {
        case Role::Embedding: return "embedding";
        case Role::PositionalTable: return "positional_table";
        case Role::PositionalAdd: return "positional_add";
        case Role::PadMask: return "pad_mask";
        case Role::SubsequenceMask: return "subsequence_mask";
        case Role::CombinedMask: return "combined_mask";
        case Role::Q: return "q";
        case Role::K: return "k";
        case Role::V: return "v";
        case Role::Scores: return "scores";
        case Role::MaskedScores: return "masked_scores";
        case Role::Softmax: return "softmax";
        case Role::Context: return "context";
        case Role::OutProjection: return "out_projection";
        case Role::Residual: return "residual";
        case Role::LayerNorm: return "layer_norm";
        case Role::FfnHidden: return "ffn_hidden";
        case Role::Relu: return "relu";
        case Role::FfnOut: return "ffn_out";
        case Role::Logits: return "logits";
        case Role::Probs: return "probs";
        case Role::LossPerToken: return "loss_per_token";
        case Role::Loss: return "loss";
        case Role::Gradient: return "gradient";
        case Role::Input: return "input";
        case Role::AttnMask: return "attn_mask";
        case Role::Gelu: return "gelu";
        case Role::ScaledQ: return "scaled_q";
    }
    return "?";
}

namespace {
// The op a role implies in the tutorial's model (for entries added without a Node).
Op op_of_role(Role r) {
    switch (r) {
        case Role::Embedding: return Op::Embedding;
        case Role::PositionalTable: return Op::PositionalTable;
        case Role::PositionalAdd: return Op::PositionalAdd;
        case Role::PadMask:
        case Role::SubsequenceMask: return Op::TokenMask;
        case Role::CombinedMask: return Op::MaskOr;
        case Role::Q:
        case Role::K:
        case Role::V:
        case Role::OutProjection:
        case Role::FfnHidden:
        case Role::FfnOut:
        case Role::Logits: return Op::Linear;
        case Role::Scores: return Op::ScaledMatMul;
        case Role::MaskedScores: return Op::MaskFill;
        case Role::Softmax:
        case Role::Probs: return Op::Softmax;
        case Role::Context: return Op::MatMul;
        case Role::Residual: return Op::Add;
        case Role::LayerNorm: return Op::LayerNorm;
        case Role::Relu: return Op::Relu;
        case Role::LossPerToken: return Op::CrossEntropy;
        case Role::Loss: return Op::Mean;
        case Role::Gradient: return Op::Gradient;
        case Role::Input: return Op::Input;
        case Role::AttnMask: return Op::AdditiveMask;
        case Role::Gelu: return Op::Gelu;
        case Role::ScaledQ: return Op::Scale;
    }
    return Op::Gradient;
}
}  // namespace

TraceEntry& Trace::add(std::string name, Node node, std::vector<Axis> axes, Tensor value, bool is_mask) {
    if (index_.count(name)) throw std::logic_error("trace: duplicate entry '" + name + "'");
    if (axes.size() != value.shape.size())
        throw std::logic_error("trace: '" + name + "' has " + std::to_string(axes.size()) + " axes for shape " +
                               shape_to_string(value.shape));
    index_.emplace(name, entries_.size());
    entries_.push_back(TraceEntry{std::move(name), node.role, std::move(axes), is_mask, std::move(value), node.op,
                                  node.block, std::move(node.inputs), node.attrs, Saved{}});
    index_graph(entries_.size() - 1);
    return entries_.back();
}

TraceEntry& Trace::add(std::string name, Role role, std::vector<Axis> axes, Tensor value, bool is_mask) {
    const Block block = names::parse(name).block;
    return add(std::move(name), Node{role, op_of_role(role), block, {}}, std::move(axes), std::move(value), is_mask);
}

const TraceEntry* Trace::find(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &entries_[it->second];
}

const TraceEntry& Trace::at(const std::string& name) const {
    const TraceEntry* e = find(name);
    if (!e) throw std::out_of_range("trace has no entry '" + name + "'");
    return *e;
}

namespace {
uint64_t role_key(const Block& b, Role r) {
    return (uint64_t(static_cast<uint8_t>(b.naming)) << 56) | (uint64_t(static_cast<uint8_t>(b.stack)) << 48) | (uint64_t(static_cast<uint8_t>(b.kind)) << 40) |
           (uint64_t(static_cast<uint32_t>(b.layer + 1)) << 8) | uint64_t(static_cast<uint8_t>(r));
}
}  // namespace

void Trace::index_graph(size_t i) {
    const TraceEntry& e = entries_[i];
    if (e.role == Role::Gradient) return;
    role_index_.emplace(role_key(e.block, e.role), i);
    if (std::find(blocks_.begin(), blocks_.end(), e.block) == blocks_.end()) blocks_.push_back(e.block);
    int& n = layer_count_[static_cast<int>(e.block.stack)];
    n = std::max(n, e.block.layer + 1);
    for (const std::string& in : e.inputs) {
        auto& c = consumers_[in];
        if (c.empty() || c.back() != i) c.push_back(i);
    }
}

const TraceEntry* Trace::find_role(const Block& b, Role role) const {
    auto it = role_index_.find(role_key(b, role));
    return it == role_index_.end() ? nullptr : &entries_[it->second];
}

const std::vector<size_t>& Trace::consumers_of(const std::string& name) const {
    static const std::vector<size_t> none;
    auto it = consumers_.find(name);
    return it == consumers_.end() ? none : it->second;
}

void Trace::clear() {
    truncate(0);
    src_tokens.clear();
    tgt_tokens.clear();
    graph.reset();
    internals.clear();
    lean = false;
    staging_.p.reset();
}

void Trace::give_to_pool(TraceEntry& e) {
    Saved& sv = e.saved;
    for (Tensor* t : {&e.value, &sv.mean, &sv.rstd, &sv.keep, &sv.dropped, &sv.merged, &sv.finite}) pool.give(*t);
}

void Trace::truncate(size_t n) {
    const size_t keep = std::min(n, entries_.size());
    std::deque<TraceEntry> kept(std::make_move_iterator(entries_.begin()),
                                std::make_move_iterator(entries_.begin() + std::ptrdiff_t(keep)));
    for (size_t i = keep; i < entries_.size(); ++i) give_to_pool(entries_[i]);
    entries_.clear();
    index_.clear();
    role_index_.clear();
    blocks_.clear();
    layer_count_[0] = layer_count_[1] = layer_count_[2] = 0;
    consumers_.clear();
    for (TraceEntry& e : kept) {
        index_.emplace(e.name, entries_.size());
        entries_.push_back(std::move(e));
        index_graph(entries_.size() - 1);
    }
}

Staging& Trace::staging(Backend& be) {
    if (!staging_.p || &staging_.p->backend() != &be) staging_.p = std::make_shared<Staging>(be);
    return *staging_.p;
}

}  // namespace stepformer
