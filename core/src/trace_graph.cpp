#include "stepformer/trace_graph.h"

#include <algorithm>

namespace stepformer::graph {

const TraceEntry* find(const Trace& tr, const Block& b, Role role) { return tr.find_role(b, role); }

std::string name_of(const Trace& tr, const Block& b, Role role) {
    const TraceEntry* e = find(tr, b, role);
    return e ? e->name : std::string();
}

const TraceEntry* input(const Trace& tr, const TraceEntry& e, size_t i) {
    return i < e.inputs.size() ? tr.find(e.inputs[i]) : nullptr;
}

std::vector<std::string> params(const Trace& tr, const TraceEntry& e) {
    std::vector<std::string> out;
    for (const std::string& in : e.inputs)
        if (!tr.contains(in)) out.push_back(in);
    return out;
}

std::vector<const TraceEntry*> consumers(const Trace& tr, const std::string& name) {
    std::vector<const TraceEntry*> out;
    for (size_t i : tr.consumers_of(name)) out.push_back(&tr.entries()[i]);
    return out;
}

const TraceEntry* forward_of(const Trace& tr, const TraceEntry& e) {
    return e.role == Role::Gradient ? input(tr, e, 0) : &e;
}

std::vector<Block> blocks(const Trace& tr) { return tr.blocks(); }

std::vector<Block> attention_blocks(const Trace& tr) {
    std::vector<Block> out = blocks(tr);
    out.erase(std::remove_if(out.begin(), out.end(), [](const Block& b) { return !b.is_attention(); }), out.end());
    return out;
}

int layer_count(const Trace& tr, Stack s) { return tr.layer_count(s); }

const TraceEntry* query_input(const Trace& tr, const Block& b) {
    const TraceEntry* q = find(tr, b, Role::Q);
    return q ? input(tr, *q, 0) : nullptr;
}

const TraceEntry* key_input(const Trace& tr, const Block& b) {
    const TraceEntry* k = find(tr, b, Role::K);
    return k ? input(tr, *k, 0) : nullptr;
}

const TraceEntry* block_input(const Trace& tr, const Block& b) {
    if (b.is_attention()) return query_input(tr, b);
    const TraceEntry* h = find(tr, b, Role::FfnHidden);
    return h ? input(tr, *h, 0) : nullptr;
}

const TraceEntry* mask_of(const Trace& tr, const Block& b) {
    const TraceEntry* m = find(tr, b, Role::MaskedScores);
    return m ? input(tr, *m, 1) : nullptr;
}

std::vector<Block> blocks_masked_by(const Trace& tr, const std::string& mask) {
    std::vector<Block> out;
    const auto add = [&](const Block& b) {
        if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
    };
    for (const TraceEntry* e : consumers(tr, mask)) {
        if (e->role == Role::MaskedScores) add(e->block);
        else if (e->is_mask)  // a mask made from this one (pad OR subsequence)
            for (const Block& b : blocks_masked_by(tr, e->name)) add(b);
    }
    return out;
}

const TraceEntry* stack_output(const Trace& tr, Stack s) {
    const TraceEntry* last = nullptr;
    for (const TraceEntry& e : tr.entries())
        if (e.role != Role::Gradient && e.block.stack == s && (e.block.layer >= 0 || e.block.kind == BlockKind::FinalNorm))
            last = &e;
    return last ? last : stack_input(tr, s);
}

namespace {
const TraceEntry* find_any_naming(const Trace& tr, Block b, Role role) {
    for (Naming n : {Naming::Tutorial, Naming::TorchSeq2Seq, Naming::TorchLayers, Naming::Aiayn, Naming::Gpt}) {
        b.naming = n;
        if (const TraceEntry* e = find(tr, b, role)) return e;
    }
    return nullptr;
}
}  // namespace

const TraceEntry* stack_input(const Trace& tr, Stack s) {
    const Block in{s, BlockKind::Input, -1};
    if (const TraceEntry* e = find_any_naming(tr, in, Role::PositionalAdd)) return e;
    return find_any_naming(tr, in, Role::Input);
}

const TraceEntry* output_probs(const Trace& tr) {
    return find_any_naming(tr, Block{Stack::None, BlockKind::Projection, -1}, Role::Probs);
}

const TraceEntry* output_logits(const Trace& tr) {
    return find_any_naming(tr, Block{Stack::None, BlockKind::Projection, -1}, Role::Logits);
}

}  // namespace stepformer::graph
