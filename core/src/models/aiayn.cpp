// attention-is-all-you-need-pytorch's Transformer ("architecture": "aiayn", seed 003) as a graph:
// masks 1 = keep (masked_fill(mask == 0, −1e9)), q / temperature as a step of its own, no biases
// in the attention, dropout before each add, post-norm with eps 1e-6, a LayerNorm after each
// stack's positional encoding (its table made in float64), and the output projection that may
// share the target embedding, scaled as scale_emb_or_prj says. Names are its module paths.
// Shapes: B batch, S src length, T tgt length, L either, H n_head, D d_model, F d_inner, V vocabulary.
#include "models/models.h"

namespace stepformer::build {
namespace {

constexpr Naming kN = Naming::Aiayn;
constexpr float kAttentionDropout = 0.1f;  // ScaledDotProductAttention(attn_dropout=0.1)'s default

struct Aiayn {
    Builder& b;
    const Config& c;
    int B;

    AttentionSpec spec() const {
        AttentionSpec s;
        s.H = c.n_heads, s.dk = c.d_k, s.dv = c.d_v, s.D = c.d_model;
        s.heads_axis = "n_head";
        s.wq = "w_qs.weight", s.wk = "w_ks.weight", s.wv = "w_vs.weight", s.wo = "fc.weight";
        s.scaling = AttentionSpec::Scaling::QueryStep;  // q / temperature, temperature = d_k ** 0.5
        s.scale = static_cast<float>(1.0 / std::sqrt(double(c.d_k)));
        // Its ScaledDotProductAttention is made without the model's dropout, so its own default
        // drops attention weights whatever "dropout" says — except that "dropout": 0 here means
        // no dropout anywhere (a deterministic run, as the project's eval mode).
        s.attn_dropout = c.dropout > 0.0 ? kAttentionDropout : 0.0f;
        return s;
    }
    std::vector<Axis> axes(AxisKind tk) const {
        return {ax(AxisKind::Batch, "batch_size"), ax(tk, "seq_len"), ax(AxisKind::Feature, "d_model")};
    }
    std::string norm(const Block& blk, const char* leaf, const std::string& in, AxisKind tk) {
        return layer_norm(b, blk, names::entry(blk, leaf), in, float(c.layer_norm_eps),
                          names::param(blk, "layer_norm.weight"), names::param(blk, "layer_norm.bias"), axes(tk));
    }
    // dropout(sub) + x, then layer_norm.
    std::string add_norm(const Block& blk, const std::string& sub, const std::string& x, AxisKind tk) {
        return norm(blk, "out", residual(b, blk, names::entry(blk, "residual"), sub, x, 0, float(c.dropout), axes(tk)), tk);
    }
    std::string attention_block(const Block& blk, const std::string& xq, const std::string& xkv, const MaskIn& mask,
                                AxisKind qk, AxisKind kk) {
        return add_norm(blk, attention(b, spec(), blk, xq, xkv, mask, qk, kk), xq, qk);
    }
    // PositionwiseFeedForward: w_2(relu(w_1(x))), dropout, += residual, layer_norm.
    std::string ffn_block(const Block& blk, const std::string& in, AxisKind tk) {
        const int L = int(b.shape(in)[1]);
        const auto E = [&](std::string_view leaf) { return names::entry(blk, leaf); };
        const auto W = [&](std::string_view leaf) { return names::param(blk, leaf); };
        const Axis aB = ax(AxisKind::Batch, "batch_size"), aL = ax(tk, "seq_len"), aF = ax(AxisKind::Feature, "d_inner"),
                   aD = ax(AxisKind::Feature, "d_model");
        const std::string h = b.add(E("hidden"), Node{Role::FfnHidden, Op::Linear, blk, {in, W("w_1.weight"), W("w_1.bias")}},
                                    {B, L, c.d_ff}, {aB, aL, aF});
        const std::string r = b.add(E("relu"), Node{Role::Relu, Op::Relu, blk, {h}}, {B, L, c.d_ff}, {aB, aL, aF});
        const std::string o = b.add(E("fc_out"), Node{Role::FfnOut, Op::Linear, blk, {r, W("w_2.weight"), W("w_2.bias")}},
                                    {B, L, c.d_model}, {aB, aL, aD});
        return add_norm(blk, o, in, tk);
    }
    // A stack's input: word embedding (× √d_model when scale_emb), + pos_table, dropout, layer_norm.
    std::string input(Stack stack, int L) {
        const bool enc = stack == Stack::Encoder;
        const Block blk{stack, BlockKind::Input, -1, kN};
        const AxisKind tk = enc ? AxisKind::SrcToken : AxisKind::TgtToken;
        const std::string word = enc ? "src_word_emb" : "trg_word_emb";
        const Axis aB = ax(AxisKind::Batch, "batch_size"), aL = ax(tk, enc ? "src_len" : "trg_len"),
                   aD = ax(AxisKind::Feature, "d_model");
        // The project scales only a tied model; nn.Embedding(padding_idx=pad): the pad row gets no gradient.
        const bool scaled = c.scale_emb_or_prj == "emb" && c.trg_emb_prj_weight_sharing;
        const Attrs emb_attrs{.scale = scaled ? static_cast<float>(std::sqrt(double(c.d_model))) : 1.0f,
                              .padding_idx = enc ? c.src_id(c.pad) : c.tgt_id(c.pad),
                              .stream = int(enc ? Stream::Src : Stream::Tgt)};
        const std::string emb = b.add(names::entry(blk, word + ".out"),
                                      Node{Role::Embedding, Op::Embedding, blk, {names::param(blk, word + ".weight")}, emb_attrs},
                                      {B, L, c.d_model}, {aB, aL, aD});
        const std::string pe = b.add(names::entry(blk, "position_enc.pe"),
                                     Node{Role::PositionalTable, Op::PositionalTable, blk, {}, Attrs{.precise = true}},
                                     {L, c.d_model}, {ax(AxisKind::Position, "position"), aD});
        const std::string sum = b.add(names::entry(blk, "position_enc.out"),
                                      Node{Role::PositionalAdd, Op::PositionalAdd, blk, {emb, pe}, Attrs{.dropout = float(c.dropout)}},
                                      {B, L, c.d_model}, {aB, aL, aD});
        return norm(blk, "layer_norm.out", sum, tk);
    }
    // A fill the kernels take (B, Lq, Lk), 1 = masked: the complement of a traced mask, not traced.
    std::string fill(const char* name, Stream ids, int pad, int Lq, int Lk) {
        return b.internal(name, Node{Role::PadMask, Op::TokenMask, Block{}, {}, Attrs{.padding_idx = pad, .stream = int(ids)}},
                          {B, Lq, Lk}, {ax(AxisKind::Batch, "b"), ax(AxisKind::Position, "q"), ax(AxisKind::Position, "k")});
    }
};

}  // namespace

void aiayn_graph(Builder& b, const Config& c, const Batch& batch) {
    const int B = batch.B, S = batch.S, T = batch.T;
    constexpr AxisKind src = AxisKind::SrcToken, tgt = AxisKind::TgtToken;
    Aiayn m{b, c, B};
    b.graph().loss = LossSpec{kLabelSmoothing, true, "cal_loss(pred, gold, trg_pad_idx, smoothing=True)"};
    const int pad = c.src_id(c.pad), tpad = c.tgt_id(c.pad);
    const Block enc_in{Stack::Encoder, BlockKind::Input, -1, kN}, dec_in{Stack::Decoder, BlockKind::Input, -1, kN};
    const Axis aB = ax(AxisKind::Batch, "batch_size");

    // The fills the kernels take (1 = masked), then get_pad_mask / get_subsequent_mask as the
    // project makes them (1 = keep, traced).
    const std::vector<Axis> fa{aB, ax(AxisKind::Position, "q"), ax(AxisKind::Position, "k")};
    const std::string src_fill = m.fill("src_mask (fill)", Stream::Src, pad, S, S);
    const std::string trg_pad = m.fill("trg_pad_mask (fill)", Stream::Tgt, tpad, T, T);
    const std::string sub = b.internal("subsequent_mask (fill)", Node{Role::SubsequenceMask, Op::TokenMask, Block{}, {}}, {B, T, T}, fa);
    const std::string trg_fill = b.internal("trg_mask (fill)", Node{Role::CombinedMask, Op::MaskOr, Block{}, {trg_pad, sub}}, {B, T, T}, fa);
    const std::string cross_fill = m.fill("src_mask (cross fill)", Stream::Src, pad, T, S);
    const std::string src_mask = b.add(names::entry(enc_in, "src_mask"),
                                       Node{Role::PadMask, Op::TokenMask, enc_in, {},
                                            Attrs{.padding_idx = pad, .stream = int(Stream::Src), .keep_ones = true}},
                                       {B, 1, S}, {aB, ax(AxisKind::Position, "1"), ax(src, "len_k")}, true);  // (B, 1, S)
    const std::string trg_mask = b.add(names::entry(dec_in, "trg_mask"),
                                       Node{Role::CombinedMask, Op::TokenMask, dec_in, {},
                                            Attrs{.padding_idx = tpad, .stream = int(Stream::Tgt), .keep_ones = true}},
                                       {B, T, T}, {aB, ax(tgt, "len_q"), ax(tgt, "len_k")}, true);  // (B, T, T)

    std::string x = m.input(Stack::Encoder, S);  // (B, S, D)
    for (int i = 0; i < c.n_layers; ++i) {
        x = m.attention_block(Block{Stack::Encoder, BlockKind::SelfAttention, i, kN}, x, x, MaskIn{src_mask, src_fill}, src, src);
        x = m.ffn_block(Block{Stack::Encoder, BlockKind::FeedForward, i, kN}, x, src);
    }
    const std::string enc_out = x;
    x = m.input(Stack::Decoder, T);  // (B, T, D)
    for (int i = 0; i < c.n_layers; ++i) {
        x = m.attention_block(Block{Stack::Decoder, BlockKind::MaskedSelfAttention, i, kN}, x, x, MaskIn{trg_mask, trg_fill},
                              tgt, tgt);
        x = m.attention_block(Block{Stack::Decoder, BlockKind::CrossAttention, i, kN}, x, enc_out, MaskIn{src_mask, cross_fill},
                              tgt, src);
        x = m.ffn_block(Block{Stack::Decoder, BlockKind::FeedForward, i, kN}, x, tgt);
    }

    // trg_word_prj (no bias), × d_model^−0.5 when scale_prj (again only for a tied model).
    const Block prj{Stack::None, BlockKind::Projection, -1, kN};
    const int V = c.tgt_vocab_size();
    const bool scaled = c.scale_emb_or_prj == "prj" && c.trg_emb_prj_weight_sharing;
    const Axis aT = ax(tgt, "trg_len"), aV = ax(AxisKind::Vocab, "n_trg_vocab");
    const std::string logits =
        b.add(names::entry(prj, "logits"),
              Node{Role::Logits, Op::Linear, prj, {x, names::param(prj, "weight")},
                   Attrs{.scale = scaled ? static_cast<float>(std::pow(double(c.d_model), -0.5)) : 1.0f}},
              {B, T, V}, {aB, aT, aV});  // (B, T, V)
    b.add(names::entry(prj, "probs"), Node{Role::Probs, Op::Softmax, prj, {logits}}, {B, T, V}, {aB, aT, aV});
}

}  // namespace stepformer::build
