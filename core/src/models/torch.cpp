// PyTorch's own layers ("architecture": "torch") as a graph: nn.MultiheadAttention as PyTorch
// 1.13's F.multi_head_attention_forward computes it (packed in-projection with bias, q scaled
// first, attn_mask and key_padding_mask merged into one additive 0 / −inf mask, dropout on the
// weights), nn.TransformerEncoderLayer / DecoderLayer (post-norm or norm_first), and either seed
// 004's layer lab or the translation tutorial's Seq2Seq around nn.Transformer (tokens × √d_model,
// the sinusoid table, final norms, the generator), named by module path (docs/contracts.md).
// Shapes: B batch, S src length, T tgt length, L either, H heads, D d_model, F d_ff, V vocabulary.
#include <stdexcept>

#include "models/models.h"

namespace stepformer {

Batch make_layer_batch(const Config& c, const Tensor& src, const Tensor& tgt) {
    if (!c.layers()) throw ConfigError(Message(Msg::lab_not_layers));
    const auto batch_first_copy = [&](const Tensor& x, const char* what) {
        if (x.rank() != 3 || x.dim(2) != c.d_model || x.dim(0) <= 0 || x.dim(1) <= 0)
            throw ConfigError(Message(Msg::lab_input_shape,
                                      {what, shape_to_string(x.shape),
                                       c.batch_first ? "[batch, length, d_model]" : "[length, batch, d_model]", c.d_model}));
        return c.batch_first ? x : swap_leading_axes(x);  // (B, L, D) from (L, B, D)
    };
    for (const Tensor* x : {&src, &tgt})
        for (float v : x->data)
            if (!std::isfinite(v)) throw ConfigError(Message(Msg::lab_not_finite, {x == &src ? "src" : "tgt"}));
    Batch b;
    b.src_x = batch_first_copy(src, "src");
    b.B = static_cast<int>(b.src_x.dim(0));
    b.S = static_cast<int>(b.src_x.dim(1));
    if (c.decoder_layer) {
        if (tgt.empty()) throw ConfigError(Message(Msg::lab_needs_tgt));
        b.tgt_x = batch_first_copy(tgt, "tgt");
        if (b.tgt_x.dim(0) != b.B)
            throw ConfigError(Message(Msg::lab_batch_mismatch, {b.B, b.tgt_x.dim(0)}));
        b.T = static_cast<int>(b.tgt_x.dim(1));
    } else if (!tgt.empty()) {
        throw ConfigError(Message(Msg::lab_no_decoder));
    }
    return b;
}

namespace build {
namespace {

struct Torch {
    Builder& b;
    const Config& c;
    Naming n;

    AttentionSpec spec() const {
        AttentionSpec s;
        const int hd = c.d_model / c.n_heads;
        s.H = c.n_heads, s.dk = hd, s.dv = hd, s.D = c.d_model;
        s.heads_axis = "num_heads", s.dk_axis = "head_dim", s.dv_axis = "head_dim", s.d_axis = "embed_dim";
        s.packed = true, s.bias = true;
        s.wq = "in_proj_weight", s.bq = "in_proj_bias", s.wo = "out_proj.weight", s.bo = "out_proj.bias";
        s.scaling = AttentionSpec::Scaling::QueryFirst, s.scale = 1.0f / std::sqrt(float(hd));
        s.additive = true, s.attn_dropout = float(c.dropout), s.out_leaf = "out_proj";
        return s;
    }
    std::vector<Axis> axes(AxisKind tk) const {
        return {ax(AxisKind::Batch, "batch_size"), ax(tk, "seq_len"), ax(AxisKind::Feature, "d_model")};
    }
    // x + dropout(sub): the add of sub-layer `leaf` (add1, add2, add3).
    std::string add(const Block& blk, const char* leaf, const std::string& x, const std::string& sub, AxisKind tk) {
        return residual(b, blk, names::entry(blk, leaf), x, sub, 1, float(c.dropout), axes(tk));
    }
    // A layer's normK (parameters normK.weight/bias), or a stack's final norm (<block>.out, .weight/.bias).
    std::string norm(const Block& blk, const std::string& prefix, const std::string& in, AxisKind tk) {
        const bool final = blk.kind == BlockKind::FinalNorm;
        return layer_norm(b, blk, names::entry(blk, final ? "out" : prefix), in, float(c.layer_norm_eps),
                          names::param(blk, final ? "weight" : prefix + ".weight"),
                          names::param(blk, final ? "bias" : prefix + ".bias"), axes(tk));
    }
    // linear1 → activation → dropout → linear2 (TransformerEncoderLayer._ff_block).
    std::string feed_forward(const Block& blk, const std::string& in, AxisKind tk) {
        const int B = int(b.shape(in)[0]), L = int(b.shape(in)[1]);
        const auto E = [&](std::string_view leaf) { return names::entry(blk, leaf); };
        const auto W = [&](std::string_view leaf) { return names::param(blk, leaf); };
        const Axis aB = ax(AxisKind::Batch, "batch_size"), aL = ax(tk, "seq_len"),
                   aF = ax(AxisKind::Feature, "dim_feedforward"), aD = ax(AxisKind::Feature, "d_model");
        const bool gelu = c.activation == "gelu";
        const std::string h = b.add(E("linear1"), Node{Role::FfnHidden, Op::Linear, blk, {in, W("linear1.weight"), W("linear1.bias")}},
                                    {B, L, c.d_ff}, {aB, aL, aF});
        const std::string a = b.add(E("activation"), Node{gelu ? Role::Gelu : Role::Relu, gelu ? Op::Gelu : Op::Relu, blk, {h},
                                                          Attrs{.dropout = float(c.dropout)}},
                                    {B, L, c.d_ff}, {aB, aL, aF});
        return b.add(E("linear2"), Node{Role::FfnOut, Op::Linear, blk, {a, W("linear2.weight"), W("linear2.bias")}},
                     {B, L, c.d_model}, {aB, aL, aD});
    }
    std::string attend(const Block& blk, const std::string& q, const std::string& kv, const MaskIn& m, AxisKind qk, AxisKind kk) {
        return attention(b, spec(), blk, q, kv, m, qk, kk);
    }
    // nn.TransformerEncoderLayer: x = norm1(x + sa(x)); x = norm2(x + ff(x)), or with norm_first
    // x = x + sa(norm1(x)); x = x + ff(norm2(x)).
    std::string encoder_layer(int i, const std::string& x, const MaskIn& mask) {
        const Block sa{Stack::Encoder, BlockKind::SelfAttention, i, n}, ff{Stack::Encoder, BlockKind::FeedForward, i, n};
        constexpr AxisKind tk = AxisKind::SrcToken;
        if (c.norm_first) {
            const std::string n1 = norm(sa, "norm1", x, tk);
            const std::string a1 = add(sa, "add1", x, attend(sa, n1, n1, mask, tk, tk), tk);
            return add(ff, "add2", a1, feed_forward(ff, norm(ff, "norm2", a1, tk), tk), tk);
        }
        const std::string n1 = norm(sa, "norm1", add(sa, "add1", x, attend(sa, x, x, mask, tk, tk), tk), tk);
        return norm(ff, "norm2", add(ff, "add2", n1, feed_forward(ff, n1, tk), tk), tk);
    }
    // nn.TransformerDecoderLayer: self-attention, cross-attention over `memory`, feed-forward.
    std::string decoder_layer(int i, const std::string& x, const std::string& memory, const MaskIn& self,
                              const MaskIn& cross) {
        const Block sa{Stack::Decoder, BlockKind::MaskedSelfAttention, i, n},
            ca{Stack::Decoder, BlockKind::CrossAttention, i, n}, ff{Stack::Decoder, BlockKind::FeedForward, i, n};
        constexpr AxisKind tk = AxisKind::TgtToken, sk = AxisKind::SrcToken;
        if (c.norm_first) {
            const std::string n1 = norm(sa, "norm1", x, tk);
            const std::string a1 = add(sa, "add1", x, attend(sa, n1, n1, self, tk, tk), tk);
            const std::string n2 = norm(ca, "norm2", a1, tk);
            const std::string a2 = add(ca, "add2", a1, attend(ca, n2, memory, cross, tk, sk), tk);
            return add(ff, "add3", a2, feed_forward(ff, norm(ff, "norm3", a2, tk), tk), tk);
        }
        const std::string n1 = norm(sa, "norm1", add(sa, "add1", x, attend(sa, x, x, self, tk, tk), tk), tk);
        const std::string n2 = norm(ca, "norm2", add(ca, "add2", n1, attend(ca, n1, memory, cross, tk, sk), tk), tk);
        return norm(ff, "norm3", add(ff, "add3", n2, feed_forward(ff, n2, tk), tk), tk);
    }
    // TokenEmbedding (× √d_model) + the sinusoid table, then dropout.
    std::string input(Stack stack, int B, int L) {
        const Block blk{stack, BlockKind::Input, -1, n};
        const bool enc = stack == Stack::Encoder;
        const Axis aB = ax(AxisKind::Batch, "batch_size"),
                   aL = ax(enc ? AxisKind::SrcToken : AxisKind::TgtToken, enc ? "src_len" : "tgt_len"),
                   aD = ax(AxisKind::Feature, "d_model");
        const Attrs tok{.scale = std::sqrt(static_cast<float>(c.d_model)), .stream = int(enc ? Stream::Src : Stream::Tgt)};
        const std::string emb = b.add(names::entry(blk, "tok_emb.out"),
                                      Node{Role::Embedding, Op::Embedding, blk, {names::param(blk, "tok_emb.embedding.weight")}, tok},
                                      {B, L, c.d_model}, {aB, aL, aD});
        const std::string pe = b.add(names::entry(blk, "positional_encoding.pe"),
                                     Node{Role::PositionalTable, Op::PositionalTable, blk, {}}, {L, c.d_model},
                                     {ax(AxisKind::Position, "position"), aD});
        return b.add(names::entry(blk, "positional_encoding.out"),
                     Node{Role::PositionalAdd, Op::PositionalAdd, blk, {emb, pe}, Attrs{.dropout = float(c.dropout)}},
                     {B, L, c.d_model}, {aB, aL, aD});
    }
    // A 0/1 key padding mask (B, Lq, Lk) over `ids`, 1 = ignore: create_mask's, not traced.
    std::string pad_mask(const char* name, Stream ids, int pad, int B, int Lq, int Lk) {
        return b.internal(name, Node{Role::PadMask, Op::TokenMask, Block{}, {}, Attrs{.padding_idx = pad, .stream = int(ids)}},
                          {B, Lq, Lk}, {ax(AxisKind::Batch, "b"), ax(AxisKind::Position, "q"), ax(AxisKind::Position, "k")});
    }
};

void check_mask(const Tensor& m, int Lq, int Lk, const char* what) {
    if (!m.empty() && (m.rank() != 2 || m.dim(0) != Lq || m.dim(1) != Lk))
        throw ConfigError(Message(Msg::lab_mask_shape, {what, shape_to_string(m.shape), Lq, Lk}));
}

void check_padding(const std::vector<int>& p, int B, int L, const char* what) {
    if (!p.empty() && p.size() != size_t(B) * L)
        throw ConfigError(Message(Msg::lab_padding_shape, {what, p.size(), B, L}));
}

// Seed 004's layer lab: one encoder layer on a given tensor, optionally one decoder layer reading
// its output as memory; masks as PyTorch's forward() takes them.
void layer_lab(Torch& m, const Batch& batch) {
    const Config& c = m.c;
    const int B = batch.B, S = batch.S, T = batch.T, D = c.d_model;
    if (B <= 0 || S <= 0 || batch.src_x.shape != Shape{B, S, D})
        throw std::invalid_argument("forward: the layer lab needs src (B, S, d_model)");
    if (c.decoder_layer && (T <= 0 || batch.tgt_x.shape != Shape{B, T, D}))
        throw std::invalid_argument("forward: the layer lab's decoder layer needs tgt (B, T, d_model)");
    check_mask(batch.src_mask, S, S, "src_mask");
    check_padding(batch.src_key_padding_mask, B, S, "src_key_padding_mask");
    if (c.decoder_layer) {
        check_mask(batch.tgt_mask, T, T, "tgt_mask");
        check_mask(batch.memory_mask, T, S, "memory_mask");
        check_padding(batch.tgt_key_padding_mask, B, T, "tgt_key_padding_mask");
        check_padding(batch.memory_key_padding_mask, B, S, "memory_key_padding_mask");
    }
    const Axis aB = ax(AxisKind::Batch, "batch_size"), aD = ax(AxisKind::Feature, "d_model");
    const Block src_in{Stack::Encoder, BlockKind::Input, -1, m.n}, tgt_in{Stack::Decoder, BlockKind::Input, -1, m.n};
    const std::string src = m.b.add(names::entry(src_in, ""), Node{Role::Input, Op::Input, src_in, {}, Attrs{.stream = int(Stream::Src)}},
                                    {B, S, D}, {aB, ax(AxisKind::SrcToken, "src_len"), aD});
    const std::string memory = m.encoder_layer(0, src, MaskIn{.stream = Stream::Src});
    if (!c.decoder_layer) return;
    const std::string tgt = m.b.add(names::entry(tgt_in, ""), Node{Role::Input, Op::Input, tgt_in, {}, Attrs{.stream = int(Stream::Tgt)}},
                                    {B, T, D}, {aB, ax(AxisKind::TgtToken, "tgt_len"), aD});
    m.decoder_layer(0, tgt, memory, MaskIn{.stream = Stream::Tgt}, MaskIn{.stream = Stream::Memory});
}

}  // namespace

void torch_graph(Builder& b, const Config& c, const Batch& batch) {
    Torch m{b, c, c.layers() ? Naming::TorchLayers : Naming::TorchSeq2Seq};
    if (c.layers()) return layer_lab(m, batch);
    const int B = batch.B, S = batch.S, T = batch.T, V = c.tgt_vocab_size(), pad = c.src_id(c.pad);
    const std::string src_x = m.input(Stack::Encoder, B, S);  // (B, S, D)
    std::string x = m.input(Stack::Decoder, B, T);            // (B, T, D)

    // create_mask's masks, 1 = ignore: key padding of both sentences and the causal tgt_mask;
    // each attention block merges its own into 0 / −inf (its traced mask).
    const std::string enc_pad = m.pad_mask("src_padding_mask (self)", Stream::Src, pad, B, S, S);
    const std::string tgt_pad = m.pad_mask("tgt_padding_mask", Stream::Tgt, c.tgt_id(c.pad), B, T, T);
    const std::vector<Axis> tt{ax(AxisKind::Batch, "b"), ax(AxisKind::Position, "q"), ax(AxisKind::Position, "k")};
    const std::string causal = b.internal("tgt_mask", Node{Role::SubsequenceMask, Op::TokenMask, Block{}, {}}, {B, T, T}, tt);
    const std::string dec_self = b.internal("tgt_mask | tgt_padding_mask", Node{Role::CombinedMask, Op::MaskOr, Block{}, {tgt_pad, causal}},
                                            {B, T, T}, tt);
    const std::string dec_cross = m.pad_mask("src_padding_mask (memory)", Stream::Src, pad, B, T, S);

    std::string mem = src_x;
    for (int i = 0; i < c.encoder_layers(); ++i) mem = m.encoder_layer(i, mem, MaskIn{.fill = enc_pad});
    mem = m.norm(Block{Stack::Encoder, BlockKind::FinalNorm, -1, m.n}, "norm", mem, AxisKind::SrcToken);
    for (int i = 0; i < c.decoder_layers(); ++i)
        x = m.decoder_layer(i, x, mem, MaskIn{.fill = dec_self}, MaskIn{.fill = dec_cross});
    x = m.norm(Block{Stack::Decoder, BlockKind::FinalNorm, -1, m.n}, "norm", x, AxisKind::TgtToken);

    const Block gen{Stack::None, BlockKind::Projection, -1, m.n};
    const Axis aB = ax(AxisKind::Batch, "batch_size"), aT = ax(AxisKind::TgtToken, "tgt_len"),
               aV = ax(AxisKind::Vocab, "tgt_vocab_size");
    const std::string logits = b.add(names::entry(gen, "logits"),
                                     Node{Role::Logits, Op::Linear, gen, {x, names::param(gen, "weight"), names::param(gen, "bias")}},
                                     {B, T, V}, {aB, aT, aV});  // (B, T, V)
    b.add(names::entry(gen, "probs"), Node{Role::Probs, Op::Softmax, gen, {logits}}, {B, T, V}, {aB, aT, aV});
}

}  // namespace build
}  // namespace stepformer
