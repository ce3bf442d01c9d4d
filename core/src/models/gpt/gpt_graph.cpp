// nanoGPT's GPT ("architecture": "gpt") as a graph, as its model.py computes on PyTorch 1.13 (the
// manual attention path: no scaled_dot_product_attention there). Pre-norm blocks
//   x = drop(wte[idx] + wpe[0..T));  x = x + c_proj(attn(ln_1(x)));  x = x + mlp(ln_2(x));
//   logits = lm_head(ln_f(x)), lm_head.weight being transformer.wte.weight;
// attention (q @ kᵀ) · (1/√hs), masked_fill(bias[:T, :T] == 0, −inf), softmax, dropout, @ v; the
// MLP c_fc → GELU (erf) → c_proj; LayerNorm eps 1e-5; with bias=False no Linear or LayerNorm bias.
// Names are its module paths (transformer.h.{i}.attn.q, ...); axes its own letters.
// Shapes: B batch, T sequence, C n_embd, nh heads, hs head size, V vocabulary.
#include <limits>

#include "models/models.h"

namespace stepformer::build {
namespace {

constexpr Naming kN = Naming::Gpt;

struct Gpt {
    Builder& b;
    const Config& c;
    int B, T;

    std::vector<Axis> axes(const char* features = "C") const {
        return {ax(AxisKind::Batch, "B"), ax(AxisKind::TgtToken, "T"), ax(AxisKind::Feature, features)};
    }
    std::string bias(const Block& blk, const std::string& leaf) const { return c.bias ? names::param(blk, leaf) : std::string(); }
    std::string norm(const Block& blk, const std::string& out, const std::string& module, const std::string& in) {
        const std::string prefix = module.empty() ? "" : module + ".";
        return layer_norm(b, blk, names::entry(blk, out), in, float(c.layer_norm_eps), names::param(blk, prefix + "weight"),
                          bias(blk, prefix + "bias"), axes());
    }
    std::string linear(const Block& blk, const char* leaf, const std::string& module, Role role, const std::string& in,
                       int out, const char* features) {
        std::vector<std::string> inputs{in, names::param(blk, module + ".weight")};
        if (c.bias) inputs.push_back(names::param(blk, module + ".bias"));
        return b.add(names::entry(blk, leaf), Node{role, Op::Linear, blk, std::move(inputs)}, {B, T, out}, axes(features));
    }
    AttentionSpec spec() const {
        AttentionSpec s;
        const int hs = c.d_model / c.n_heads;
        s.H = c.n_heads, s.dk = hs, s.dv = hs, s.D = c.d_model;
        s.heads_axis = "nh", s.dk_axis = "hs", s.dv_axis = "hs", s.d_axis = "C";
        s.batch_axis = "B", s.q_axis = "T", s.k_axis = "T";
        s.packed = true, s.bias = c.bias;
        s.wq = "attn.c_attn.weight", s.bq = "attn.c_attn.bias", s.wo = "attn.c_proj.weight", s.bo = "attn.c_proj.bias";
        s.scaling = AttentionSpec::Scaling::Product;  // (q @ kᵀ) * (1.0 / math.sqrt(k.size(-1)))
        s.scale = static_cast<float>(1.0 / std::sqrt(double(hs)));
        s.fill = -std::numeric_limits<float>::infinity();
        s.attn_dropout = float(c.dropout);
        s.q_leaf = "attn.q", s.k_leaf = "attn.k", s.v_leaf = "attn.v", s.scores_leaf = "attn.scores";
        s.masked_leaf = "attn.masked_scores", s.attn_leaf = "attn.attn", s.context_leaf = "attn.y", s.out_leaf = "attn.c_proj";
        return s;
    }
    // Block i: x + attn(ln_1(x)), then + mlp(ln_2(x)); the dropouts act on c_proj's outputs.
    std::string block(int i, const std::string& x, const std::string& fill) {
        const Block attn{Stack::Decoder, BlockKind::MaskedSelfAttention, i, kN}, mlp{Stack::Decoder, BlockKind::FeedForward, i, kN};
        const std::string h = norm(attn, "ln_1.out", "ln_1", x);
        // The buffer `bias`, ones on and below the diagonal (1 = may attend), as its [:T, :T] is read.
        const std::string mask = b.add(names::entry(attn, "attn.bias"),
                                       Node{Role::SubsequenceMask, Op::TokenMask, attn, {},
                                            Attrs{.padding_idx = -1, .stream = int(Stream::Tgt), .keep_ones = true}},
                                       {B, T, T}, {ax(AxisKind::Batch, "B"), ax(AxisKind::TgtToken, "T"), ax(AxisKind::TgtToken, "T")},
                                       true);
        const std::string y = attention(b, spec(), attn, h, h, MaskIn{mask, fill}, AxisKind::TgtToken, AxisKind::TgtToken);
        const std::string r1 = residual(b, attn, names::entry(attn, "resid1"), x, y, 1, float(c.dropout), axes());
        const std::string h2 = norm(mlp, "ln_2.out", "ln_2", r1);
        const std::string fc = linear(mlp, "mlp.c_fc", "mlp.c_fc", Role::FfnHidden, h2, c.d_ff, "4C");
        const std::string g = b.add(names::entry(mlp, "mlp.gelu"), Node{Role::Gelu, Op::Gelu, mlp, {fc}}, {B, T, c.d_ff}, axes("4C"));
        const std::string out = linear(mlp, "mlp.c_proj", "mlp.c_proj", Role::FfnOut, g, c.d_model, "C");
        return residual(b, mlp, names::entry(mlp, "resid2"), r1, out, 1, float(c.dropout), axes());
    }
};

}  // namespace

void gpt_graph(Builder& b, const Config& c, const Batch& batch) {
    const int B = batch.B, T = batch.T, V = c.tgt_vocab_size();
    if (T > c.block_size) throw ConfigError(Message(Msg::batch_over_block_size, {T, c.block_size}));
    Gpt m{b, c, B, T};
    b.graph().loss = LossSpec{0.0f, false,
                              "F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=" +
                                  std::to_string(c.tgt_id(c.pad)) + ")"};
    const Block in{Stack::Decoder, BlockKind::Input, -1, kN};
    const std::string tok = b.add(names::entry(in, "wte.out"),
                                  Node{Role::Embedding, Op::Embedding, in, {names::param(in, "wte.weight")}, Attrs{.stream = int(Stream::Tgt)}},
                                  {B, T, c.d_model}, m.axes());  // (B, T, C)
    const std::string pos = b.add(names::entry(in, "wpe.out"),
                                  Node{Role::PositionalTable, Op::Embedding, in, {names::param(in, "wpe.weight")},
                                       Attrs{.stream = int(Stream::Position)}},
                                  {T, c.d_model}, {ax(AxisKind::Position, "T"), ax(AxisKind::Feature, "C")});  // (T, C)
    std::string x = b.add(names::entry(in, "drop.out"),
                          Node{Role::PositionalAdd, Op::PositionalAdd, in, {tok, pos}, Attrs{.dropout = float(c.dropout)}},
                          {B, T, c.d_model}, m.axes());  // (B, T, C)
    // The kernels' form of the causal mask (1 = fill), read by every block's masked_fill.
    const std::string fill = b.internal("causal (fill)", Node{Role::SubsequenceMask, Op::TokenMask, Block{}, {}}, {B, T, T},
                                        {ax(AxisKind::Batch, "b"), ax(AxisKind::Position, "q"), ax(AxisKind::Position, "k")});
    for (int i = 0; i < c.n_layers; ++i) x = m.block(i, x, fill);
    x = m.norm(Block{Stack::Decoder, BlockKind::FinalNorm, -1, kN}, "out", "", x);
    const Block head{Stack::None, BlockKind::Projection, -1, kN};
    const std::vector<Axis> bv{ax(AxisKind::Batch, "B"), ax(AxisKind::TgtToken, "T"), ax(AxisKind::Vocab, "vocab_size")};
    const std::string logits =
        b.add(names::entry(head, "logits"), Node{Role::Logits, Op::Linear, head, {x, names::param(head, "weight")}}, {B, T, V}, bv);
    b.add(names::entry(head, "probs"), Node{Role::Probs, Op::Softmax, head, {logits}}, {B, T, V}, bv);
}

}  // namespace stepformer::build
