// The classic PyTorch tutorial's Transformer (seed 001) as a graph: sinusoidal positions with
// dropout, pad and subsequence masks (1 = masked), post-norm blocks whose LayerNorm is made fresh
// in every forward (γ = 1, β = 0, unless learn_layer_norm), no biases, the projection.
// Shapes: B batch, S src_len, T tgt_len, L either, H n_heads, D d_model, F d_ff, V vocabulary.
#include "models/models.h"

namespace stepformer::build {
namespace {

struct Tutorial {
    Builder& b;
    const Config& c;
    int B;

    AttentionSpec spec() const {
        AttentionSpec s;
        s.H = c.n_heads, s.dk = c.d_k, s.dv = c.d_v, s.D = c.d_model;
        s.wq = "W_Q.weight", s.wk = "W_K.weight", s.wv = "W_V.weight", s.wo = "fc.weight";
        s.scale = 1.0f / std::sqrt(static_cast<float>(c.d_k));
        return s;
    }
    std::string norm(const Block& blk, const std::string& in, const Axis& aL) {
        const bool learned = c.learn_layer_norm;
        return layer_norm(b, blk, names::entry(blk, "out"), in, float(c.layer_norm_eps),
                          learned ? names::param(blk, "layer_norm.weight") : "",
                          learned ? names::param(blk, "layer_norm.bias") : "",
                          {ax(AxisKind::Batch, "batch_size"), aL, ax(AxisKind::Feature, "d_model")});
    }
    // MultiHeadAttention: the attention, + the query input, LayerNorm.
    std::string attention_block(const Block& blk, const std::string& xq, const std::string& xkv, const std::string& mask,
                                AxisKind qk, AxisKind kk) {
        const std::string out = attention(b, spec(), blk, xq, xkv, MaskIn{mask}, qk, kk);
        const Axis aQ = ax(qk, "len_q");
        return norm(blk, residual(b, blk, names::entry(blk, "residual"), out, xq, 0, 0.0f,
                                  {ax(AxisKind::Batch, "batch_size"), aQ, ax(AxisKind::Feature, "d_model")}),
                    aQ);
    }
    // PoswiseFeedForwardNet: fc.0, ReLU, fc.2, + the input, LayerNorm.
    std::string ffn_block(const Block& blk, const std::string& in, AxisKind tk) {
        const int L = int(b.shape(in)[1]);
        const Axis aB = ax(AxisKind::Batch, "batch_size"), aL = ax(tk, "seq_len"), aF = ax(AxisKind::Feature, "d_ff"),
                   aD = ax(AxisKind::Feature, "d_model");
        const auto F = [&](std::string_view leaf) { return names::entry(blk, leaf); };
        const std::string hidden = b.add(F("hidden"), Node{Role::FfnHidden, Op::Linear, blk, {in, names::param(blk, "fc.0.weight")}},
                                         {B, L, c.d_ff}, {aB, aL, aF});
        const std::string relu = b.add(F("relu"), Node{Role::Relu, Op::Relu, blk, {hidden}}, {B, L, c.d_ff}, {aB, aL, aF});
        const std::string out = b.add(F("fc_out"), Node{Role::FfnOut, Op::Linear, blk, {relu, names::param(blk, "fc.2.weight")}},
                                      {B, L, c.d_model}, {aB, aL, aD});
        return norm(blk, residual(b, blk, F("residual"), out, in, 0, 0.0f, {aB, aL, aD}), aL);
    }
    // Embedding + positional encoding (+ dropout: one stream per stack and step).
    std::string input(Stack stack, int L) {
        const Block blk{stack, BlockKind::Input, -1};
        const bool enc = stack == Stack::Encoder;
        const Axis aB = ax(AxisKind::Batch, "batch_size"), aL = ax(enc ? AxisKind::SrcToken : AxisKind::TgtToken,
                                                                     enc ? "src_len" : "tgt_len"),
                   aD = ax(AxisKind::Feature, "d_model");
        const Attrs ids{.stream = int(enc ? Stream::Src : Stream::Tgt)};
        const std::string emb = b.add(names::embedding_out(stack),
                                      Node{Role::Embedding, Op::Embedding, blk, {names::embedding_table(stack)}, ids},
                                      {B, L, c.d_model}, {aB, aL, aD});
        const std::string pe = b.add(names::entry(blk, "pos_emb.pe"), Node{Role::PositionalTable, Op::PositionalTable, blk, {}},
                                     {L, c.d_model}, {ax(AxisKind::Position, "position"), aD});
        const Attrs drop{.dropout = float(c.dropout), .site = enc ? 0 : 1, .sites_per_step = 2};
        return b.add(names::stack_input(stack), Node{Role::PositionalAdd, Op::PositionalAdd, blk, {emb, pe}, drop},
                     {B, L, c.d_model}, {aB, aL, aD});
    }
    std::string pad_mask(const Block& blk, const char* leaf, Stream ids, int Lq, int Lk, AxisKind qk, AxisKind kk) {
        return b.add(names::entry(blk, leaf), Node{Role::PadMask, Op::TokenMask, blk, {}, Attrs{.padding_idx = 0, .stream = int(ids)}},
                     {B, Lq, Lk}, {ax(AxisKind::Batch, "batch_size"), ax(qk, "len_q"), ax(kk, "len_k")}, true);
    }
};

}  // namespace

void tutorial_graph(Builder& b, const Config& c, const Batch& batch) {
    const int B = batch.B, S = batch.S, T = batch.T;
    constexpr AxisKind src = AxisKind::SrcToken, tgt = AxisKind::TgtToken;
    Tutorial m{b, c, B};
    const Block enc_in{Stack::Encoder, BlockKind::Input, -1}, dec_in{Stack::Decoder, BlockKind::Input, -1};

    std::string x = m.input(Stack::Encoder, S);                                             // (B, S, D)
    const std::string enc_mask = m.pad_mask(enc_in, "self_attn_mask", Stream::Src, S, S, src, src);  // (B, S, S)
    for (int i = 0; i < c.n_layers; ++i) {
        x = m.attention_block(Block{Stack::Encoder, BlockKind::SelfAttention, i}, x, x, enc_mask, src, src);
        x = m.ffn_block(Block{Stack::Encoder, BlockKind::FeedForward, i}, x, src);
    }
    const std::string enc_out = x;

    x = m.input(Stack::Decoder, T);                                                               // (B, T, D)
    const std::string pad = m.pad_mask(dec_in, "self_attn_pad_mask", Stream::Tgt, T, T, tgt, tgt);  // (B, T, T)
    const Axis aB = ax(AxisKind::Batch, "batch_size"), aTq = ax(tgt, "len_q"), aTk = ax(tgt, "len_k");
    const std::string sub = b.add(names::entry(dec_in, "self_attn_subsequence_mask"),
                                  Node{Role::SubsequenceMask, Op::TokenMask, dec_in, {}}, {B, T, T}, {aB, aTq, aTk}, true);
    const std::string self_mask = b.add(names::entry(dec_in, "self_attn_mask"),
                                        Node{Role::CombinedMask, Op::MaskOr, dec_in, {pad, sub}}, {B, T, T}, {aB, aTq, aTk}, true);
    const std::string cross_mask = m.pad_mask(dec_in, "enc_attn_mask", Stream::Src, T, S, tgt, src);  // (B, T, S)
    for (int i = 0; i < c.n_layers; ++i) {
        x = m.attention_block(Block{Stack::Decoder, BlockKind::MaskedSelfAttention, i}, x, x, self_mask, tgt, tgt);
        x = m.attention_block(Block{Stack::Decoder, BlockKind::CrossAttention, i}, x, enc_out, cross_mask, tgt, src);
        x = m.ffn_block(Block{Stack::Decoder, BlockKind::FeedForward, i}, x, tgt);
    }

    const Block proj{Stack::None, BlockKind::Projection, -1};
    const int V = c.tgt_vocab_size();
    const Axis aT = ax(tgt, "tgt_len"), aV = ax(AxisKind::Vocab, "tgt_vocab_size");
    const std::string logits = b.add(names::entry(proj, "logits"), Node{Role::Logits, Op::Linear, proj, {x, names::param(proj, "weight")}},
                                     {B, T, V}, {aB, aT, aV});  // (B, T, V)
    b.add(names::entry(proj, "probs"), Node{Role::Probs, Op::Softmax, proj, {logits}}, {B, T, V}, {aB, aT, aV});
}

}  // namespace stepformer::build
