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

// ----- PyTorch's names (Naming::TorchLayers, Naming::TorchSeq2Seq)

bool is_digit_tail(std::string_view s, std::string_view head) {
    return s.size() == head.size() + 1 && s.substr(0, head.size()) == head && s.back() >= '1' && s.back() <= '9';
}

// A leaf of the layer itself rather than of its attention module: add1, norm2, linear1,
// activation, dropout3 (nn.TransformerEncoderLayer's attribute names).
bool is_layer_leaf(std::string_view leaf) {
    const std::string_view first = leaf.substr(0, leaf.find('.'));
    return is_digit_tail(first, "add") || is_digit_tail(first, "norm") || is_digit_tail(first, "dropout") ||
           first == "linear1" || first == "linear2" || first == "activation" || first == "dropout";
}

std::string torch_layer_prefix(const Block& b) {
    if (b.naming == Naming::TorchLayers) return b.stack == Stack::Decoder ? "decoder_layer" : "encoder_layer";
    return std::string("transformer.") + stack_word(b.stack) + ".layers." + std::to_string(b.layer);
}

// The sub-layer a layer leaf's number names: norm1/add1 belong to the first attention block,
// norm2/add2 to the second block (the encoder's feed-forward, the decoder's cross-attention), ...
BlockKind torch_sublayer(Stack s, int k) {
    if (s == Stack::Decoder)
        return k == 1 ? BlockKind::MaskedSelfAttention : k == 2 ? BlockKind::CrossAttention : BlockKind::FeedForward;
    return k == 1 ? BlockKind::SelfAttention : BlockKind::FeedForward;
}

BlockKind torch_kind_of_layer_leaf(Stack s, std::string_view leaf) {
    const std::string_view first = leaf.substr(0, leaf.find('.'));
    if (is_digit_tail(first, "add") || is_digit_tail(first, "norm") || is_digit_tail(first, "dropout"))
        return torch_sublayer(s, first.back() - '0');
    return BlockKind::FeedForward;
}

std::string torch_block_prefix(const Block& b) {
    switch (b.kind) {
        case BlockKind::Input: return {};
        case BlockKind::Projection: return "generator";
        case BlockKind::Loss: return "loss";
        case BlockKind::FinalNorm: return std::string("transformer.") + stack_word(b.stack) + ".norm";
        case BlockKind::FeedForward: return torch_layer_prefix(b);
        case BlockKind::None: return {};
        default:
            return torch_layer_prefix(b) + (b.kind == BlockKind::CrossAttention ? ".multihead_attn" : ".self_attn");
    }
}

std::string torch_entry(const Block& b, std::string_view leaf) {
    if (b.kind == BlockKind::Input) {
        const std::string side = b.stack == Stack::Decoder ? "tgt" : "src";
        if (leaf.empty()) return side;
        return side + (b.naming == Naming::TorchSeq2Seq ? "_" : ".") + std::string(leaf);
    }
    std::string p = b.is_attention() && is_layer_leaf(leaf) ? torch_layer_prefix(b) : torch_block_prefix(b);
    if (leaf.empty()) return p;
    if (p.empty()) return std::string(leaf);
    return p + "." + std::string(leaf);
}

int parse_index(std::string_view s) {
    int v = -1;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() ? v : -1;
}

// A layer's name from its attribute on: self_attn.Q, multihead_attn.mask, add1, linear2.weight.
bool parse_torch_layer(Parsed& p, const std::vector<std::string_view>& parts, size_t from, Stack stack, int layer,
                       Naming naming) {
    if (from >= parts.size()) return false;
    p.block = Block{stack, BlockKind::FeedForward, layer, naming};
    if (parts[from] == "self_attn" || parts[from] == "multihead_attn") {
        p.block.kind = parts[from] == "multihead_attn" ? BlockKind::CrossAttention
                       : stack == Stack::Decoder       ? BlockKind::MaskedSelfAttention
                                                       : BlockKind::SelfAttention;
        p.leaf = join_from(parts, from + 1);
        return true;
    }
    p.leaf = join_from(parts, from);
    p.block.kind = torch_kind_of_layer_leaf(stack, p.leaf);
    return true;
}

bool parse_torch(Parsed& p, const std::vector<std::string_view>& parts) {
    const std::string_view head = parts[0];
    if (parts.size() == 1 && (head == "src" || head == "tgt")) {
        p.block = Block{head == "tgt" ? Stack::Decoder : Stack::Encoder, BlockKind::Input, -1, Naming::TorchLayers};
        return true;
    }
    if (head == "encoder_layer" || head == "decoder_layer")
        return parse_torch_layer(p, parts, 1, head == "decoder_layer" ? Stack::Decoder : Stack::Encoder, 0,
                                 Naming::TorchLayers);
    if (head == "transformer" && parts.size() >= 3 && (parts[1] == "encoder" || parts[1] == "decoder")) {
        const Stack stack = parts[1] == "decoder" ? Stack::Decoder : Stack::Encoder;
        if (parts[2] == "norm") {
            p.block = Block{stack, BlockKind::FinalNorm, -1, Naming::TorchSeq2Seq};
            p.leaf = join_from(parts, 3);
            return true;
        }
        if (parts[2] == "layers" && parts.size() >= 5) {
            const int layer = parse_index(parts[3]);
            if (layer >= 0) return parse_torch_layer(p, parts, 4, stack, layer, Naming::TorchSeq2Seq);
        }
        return false;
    }
    if (head == "generator") {
        p.block = Block{Stack::None, BlockKind::Projection, -1, Naming::TorchSeq2Seq};
        p.leaf = join_from(parts, 1);
        return true;
    }
    for (const char* side : {"src_", "tgt_"}) {
        const std::string_view s = side;
        if (head.substr(0, 4) == s && (head == std::string(s) + "tok_emb" || head == std::string(s) + "positional_encoding")) {
            p.block = Block{s[0] == 't' ? Stack::Decoder : Stack::Encoder, BlockKind::Input, -1, Naming::TorchSeq2Seq};
            p.leaf = std::string(p.base.substr(4));
            return true;
        }
    }
    return false;
}

// ----- attention-is-all-you-need-pytorch's names (Naming::Aiayn)

const char* aiayn_module(BlockKind k) {
    switch (k) {
        case BlockKind::CrossAttention: return "enc_attn";
        case BlockKind::FeedForward: return "pos_ffn";
        default: return "slf_attn";
    }
}

std::string aiayn_block_prefix(const Block& b) {
    switch (b.kind) {
        case BlockKind::Input: return stack_word(b.stack);
        case BlockKind::Projection: return "trg_word_prj";
        case BlockKind::Loss: return "loss";
        case BlockKind::None:
        case BlockKind::FinalNorm: return {};
        default:
            return std::string(stack_word(b.stack)) + ".layer_stack." + std::to_string(b.layer) + "." + aiayn_module(b.kind);
    }
}

// Its masks are Transformer.forward's locals: src_mask, trg_mask.
bool is_aiayn_mask_leaf(std::string_view leaf) { return leaf == "src_mask" || leaf == "trg_mask"; }

bool parse_aiayn(Parsed& p, const std::vector<std::string_view>& parts) {
    const std::string_view head = parts[0];
    if (parts.size() == 1 && is_aiayn_mask_leaf(head)) {
        p.block = Block{head == "trg_mask" ? Stack::Decoder : Stack::Encoder, BlockKind::Input, -1, Naming::Aiayn};
        p.leaf = std::string(head);
        return true;
    }
    if (head == "trg_word_prj") {
        p.block = Block{Stack::None, BlockKind::Projection, -1, Naming::Aiayn};
        p.leaf = join_from(parts, 1);
        return true;
    }
    if ((head != "encoder" && head != "decoder") || parts.size() < 2) return false;
    const Stack stack = head == "decoder" ? Stack::Decoder : Stack::Encoder;
    if (parts[1] == "src_word_emb" || parts[1] == "trg_word_emb" || parts[1] == "position_enc" || parts[1] == "layer_norm") {
        p.block = Block{stack, BlockKind::Input, -1, Naming::Aiayn};
        p.leaf = join_from(parts, 1);
        return true;
    }
    if (parts[1] != "layer_stack" || parts.size() < 4) return false;
    const int layer = parse_index(parts[2]);
    if (layer < 0) return false;
    BlockKind k = BlockKind::None;
    if (parts[3] == "pos_ffn") k = BlockKind::FeedForward;
    else if (parts[3] == "enc_attn") k = BlockKind::CrossAttention;
    else if (parts[3] == "slf_attn") k = stack == Stack::Decoder ? BlockKind::MaskedSelfAttention : BlockKind::SelfAttention;
    if (k == BlockKind::None) return false;
    p.block = Block{stack, k, layer, Naming::Aiayn};
    p.leaf = join_from(parts, 4);
    return true;
}

// ----- nanoGPT's names (Naming::Gpt): one stack of blocks transformer.h.{i}, each the pair of an
// attention half (ln_1, attn, resid1) and an MLP half (ln_2, mlp, resid2) sharing the prefix.

std::string gpt_block_prefix(const Block& b) {
    switch (b.kind) {
        case BlockKind::Input: return "transformer";
        case BlockKind::FinalNorm: return "transformer.ln_f";
        case BlockKind::Projection: return "lm_head";
        case BlockKind::Loss: return "loss";
        case BlockKind::None: return {};
        default: return "transformer.h." + std::to_string(b.layer);
    }
}

bool parse_gpt(Parsed& p, const std::vector<std::string_view>& parts) {
    const std::string_view head = parts[0];
    if (head == "lm_head") {
        p.block = Block{Stack::None, BlockKind::Projection, -1, Naming::Gpt};
        p.leaf = join_from(parts, 1);
        return true;
    }
    if (head != "transformer" || parts.size() < 2) return false;
    if (parts[1] == "wte" || parts[1] == "wpe" || parts[1] == "drop") {
        p.block = Block{Stack::Decoder, BlockKind::Input, -1, Naming::Gpt};
        p.leaf = join_from(parts, 1);
        return true;
    }
    if (parts[1] == "ln_f") {
        p.block = Block{Stack::Decoder, BlockKind::FinalNorm, -1, Naming::Gpt};
        p.leaf = join_from(parts, 2);
        return true;
    }
    if (parts[1] != "h" || parts.size() < 4) return false;
    const int layer = parse_index(parts[2]);
    if (layer < 0) return false;
    const std::string_view half = parts[3];
    BlockKind k = BlockKind::None;
    if (half == "ln_1" || half == "attn" || half == "resid1") k = BlockKind::MaskedSelfAttention;
    else if (half == "ln_2" || half == "mlp" || half == "resid2") k = BlockKind::FeedForward;
    if (k == BlockKind::None) return false;
    p.block = Block{Stack::Decoder, k, layer, Naming::Gpt};
    p.leaf = join_from(parts, 3);
    return true;
}

}  // namespace

std::string block_prefix(const Block& b) {
    if (b.naming == Naming::Gpt) return gpt_block_prefix(b);
    if (b.naming == Naming::Aiayn) return aiayn_block_prefix(b);
    if (b.torch()) return torch_block_prefix(b);
    switch (b.kind) {
        case BlockKind::Input: return stack_word(b.stack);
        case BlockKind::Projection: return "projection";
        case BlockKind::Loss: return "loss";
        case BlockKind::None: return {};
        case BlockKind::FinalNorm: return std::string(stack_word(b.stack)) + ".norm";
        default:
            return std::string(stack_word(b.stack)) + ".layers." + std::to_string(b.layer) + "." +
                   layer_block_word(b.kind);
    }
}

std::string entry(const Block& b, std::string_view leaf) {
    if (b.torch()) return torch_entry(b, leaf);
    if (b.naming == Naming::Aiayn && b.kind == BlockKind::Input && is_aiayn_mask_leaf(leaf)) return std::string(leaf);
    std::string p = block_prefix(b);
    if (leaf.empty()) return p;
    if (p.empty()) return std::string(leaf);
    return p + "." + std::string(leaf);
}

std::string param(const Block& b, std::string_view leaf) { return entry(b, leaf); }

std::string every_layer(const Block& b, std::string_view leaf) {
    if (b.layer < 0) return entry(b, leaf);
    // Each naming writes the layer's index its own way: compose two layers' names and star
    // where they differ.
    Block b0 = b, b1 = b;
    b0.layer = 10;
    b1.layer = 11;
    const std::string n0 = entry(b0, leaf), n1 = entry(b1, leaf);
    if (n0.size() != n1.size()) return entry(b, leaf);
    size_t first = 0;
    while (first < n0.size() && n0[first] == n1[first]) ++first;
    if (first == n0.size()) return entry(b, leaf);  // the index is not in the name
    // Back to the start of the number ("1" of "10"/"11").
    size_t start = first;
    while (start > 0 && n0[start - 1] >= '0' && n0[start - 1] <= '9') --start;
    size_t end = first + 1;
    return n0.substr(0, start) + "*" + n0.substr(end);
}

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
    if (parse_gpt(p, parts)) return p;
    p.block = Block{};
    p.leaf.clear();
    if (parse_torch(p, parts)) return p;
    p.block = Block{};
    p.leaf.clear();
    if (parse_aiayn(p, parts)) return p;
    p.block = Block{};
    p.leaf.clear();
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
