#include "stepformer/trace_names.h"

#include <charconv>
#include <vector>

namespace stepformer::names {

namespace {

constexpr std::string_view kGrad = "grad.";

const char* stack_word(Stack s) { return s == Stack::Decoder ? "decoder" : "encoder"; }

// The tutorial's attribute names for the blocks of a layer.
const char* layer_block_word(BlockKind k) {
    switch (k) {
        case BlockKind::SelfAttention: return "enc_self_attn";
        case BlockKind::MaskedSelfAttention: return "dec_self_attn";
        case BlockKind::CrossAttention: return "dec_enc_attn";
        case BlockKind::FeedForward: return "pos_ffn";
        default: return nullptr;
    }
}

BlockKind layer_block_kind(std::string_view w) {
    for (BlockKind k : {BlockKind::SelfAttention, BlockKind::MaskedSelfAttention, BlockKind::CrossAttention,
                        BlockKind::FeedForward})
        if (w == layer_block_word(k)) return k;
    return BlockKind::None;
}

std::vector<std::string_view> split(std::string_view s) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i)
        if (i == s.size() || s[i] == '.') {
            parts.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    return parts;
}

std::string join_from(const std::vector<std::string_view>& parts, size_t from) {
    std::string out;
    for (size_t i = from; i < parts.size(); ++i) {
        if (i > from) out += '.';
        out += parts[i];
    }
    return out;
}

}  // namespace

std::string block_prefix(const Block& b) {
    switch (b.kind) {
        case BlockKind::Input: return stack_word(b.stack);
        case BlockKind::Projection: return "projection";
        case BlockKind::Loss: return "loss";
        case BlockKind::None: return {};
        default:
            return std::string(stack_word(b.stack)) + ".layers." + std::to_string(b.layer) + "." +
                   layer_block_word(b.kind);
    }
}

std::string entry(const Block& b, std::string_view leaf) {
    std::string p = block_prefix(b);
    if (leaf.empty()) return p;
    if (p.empty()) return std::string(leaf);
    return p + "." + std::string(leaf);
}

std::string param(const Block& b, std::string_view leaf) { return entry(b, leaf); }

std::string block_word(BlockKind k) {
    const char* w = layer_block_word(k);
    return w ? w : "";
}

BlockKind block_kind_of_word(std::string_view word) { return layer_block_kind(word); }

std::string grad(std::string_view name) { return std::string(kGrad) + std::string(name); }
bool is_grad(std::string_view name) { return name.substr(0, kGrad.size()) == kGrad; }
std::string forward_name(std::string_view name) {
    return std::string(is_grad(name) ? name.substr(kGrad.size()) : name);
}

Parsed parse(std::string_view name) {
    Parsed p;
    p.grad = is_grad(name);
    p.base = forward_name(name);
    const auto parts = split(p.base);
    const std::string_view head = parts[0];
    if (head == "encoder" || head == "decoder") {
        const Stack stack = head == "decoder" ? Stack::Decoder : Stack::Encoder;
        int layer = -1;
        if (parts.size() >= 4 && parts[1] == "layers") {
            const auto r = std::from_chars(parts[2].data(), parts[2].data() + parts[2].size(), layer);
            const BlockKind k = layer_block_kind(parts[3]);
            if (r.ec == std::errc() && r.ptr == parts[2].data() + parts[2].size() && k != BlockKind::None) {
                p.block = Block{stack, k, layer};
                p.leaf = join_from(parts, 4);
                return p;
            }
        }
        p.block = Block{stack, BlockKind::Input, -1};
        p.leaf = join_from(parts, 1);
        return p;
    }
    if (head == "projection") p.block.kind = BlockKind::Projection;
    else if (head == "loss") p.block.kind = BlockKind::Loss;
    if (p.block.kind == BlockKind::None) {
        p.leaf = p.base;
        return p;
    }
    p.leaf = join_from(parts, 1);
    return p;
}

std::string embedding_out(Stack s) {
    return entry(Block{s, BlockKind::Input, -1}, s == Stack::Decoder ? "tgt_emb.out" : "src_emb.out");
}

std::string embedding_table(Stack s) {
    return param(Block{s, BlockKind::Input, -1}, s == Stack::Decoder ? "tgt_emb.weight" : "src_emb.weight");
}

std::string stack_input(Stack s) { return entry(Block{s, BlockKind::Input, -1}, "pos_emb.out"); }

}  // namespace stepformer::names
