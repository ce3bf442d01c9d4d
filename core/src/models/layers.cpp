#include "models/layers.h"

namespace stepformer::build {

std::string Builder::add(const std::string& name, Node node, Shape shape, std::vector<Axis> axes, bool is_mask) {
    return g_.add(Step{name, std::move(node), std::move(axes), std::move(shape), is_mask, true, {}}).name;
}

std::string Builder::internal(const std::string& name, Node node, Shape shape, std::vector<Axis> axes) {
    return g_.add(Step{name, std::move(node), std::move(axes), std::move(shape), true, false, {}}).name;
}

std::string Builder::add_reading(const std::string& name, Node node, Shape shape, std::vector<Axis> axes,
                                 std::vector<std::string> hidden) {
    return g_.add(Step{name, std::move(node), std::move(axes), std::move(shape), false, true, std::move(hidden)}).name;
}

std::string attention(Builder& b, const AttentionSpec& s, const Block& blk, const std::string& xq,
                      const std::string& xkv, const MaskIn& mask, AxisKind qk, AxisKind kk) {
    const auto P = [&](std::string_view leaf) { return names::entry(blk, leaf); };
    const auto W = [&](const std::string& leaf) { return names::param(blk, leaf); };
    const int B = int(b.shape(xq)[0]), Lq = int(b.shape(xq)[1]), Lk = int(b.shape(xkv)[1]);
    const int H = s.H, dk = s.dk, dv = s.dv;
    const Axis aB = ax(AxisKind::Batch, s.batch_axis), aH = ax(AxisKind::Head, s.heads_axis), aQ = ax(qk, s.q_axis),
               aK = ax(kk, s.k_axis), aF = ax(AxisKind::Feature, s.dk_axis), aV = ax(AxisKind::Feature, s.dv_axis),
               aD = ax(AxisKind::Feature, s.d_axis);

    // The projections, split into heads: (B, H, L, d).
    const auto projection = [&](Role r, const std::string& x, const std::string& w, int slice) {
        std::vector<std::string> in{x, W(s.packed ? s.wq : w)};
        if (s.bias) in.push_back(W(s.bq));
        const int L = x == xq ? Lq : Lk, d = r == Role::V ? dv : dk;
        const char* leaf = r == Role::Q ? s.q_leaf : r == Role::K ? s.k_leaf : s.v_leaf;
        return b.add(P(leaf), Node{r, Op::Linear, blk, std::move(in), Attrs{.slice = s.packed ? slice : -1}}, {B, H, L, d},
                     {aB, aH, r == Role::Q ? aQ : aK, r == Role::V ? aV : aF});
    };
    std::string q = projection(Role::Q, xq, s.wq, 0);
    const std::string k = projection(Role::K, xkv, s.wk, 1), v = projection(Role::V, xkv, s.wv, 2);

    Attrs sa{.scale = s.scale, .scale_query = s.scaling == AttentionSpec::Scaling::QueryFirst};
    if (s.scaling == AttentionSpec::Scaling::QueryStep) {
        q = b.add(P("q_scaled"), Node{Role::ScaledQ, Op::Scale, blk, {q}, Attrs{.scale = s.scale}}, {B, H, Lq, dk},
                  {aB, aH, aQ, aF});
        sa.scale = 1.0f;
    }
    const Shape sq{B, H, Lq, Lk};
    const std::string scores =
        b.add(P(s.scores_leaf), Node{Role::Scores, Op::ScaledMatMul, blk, {q, k}, sa}, sq, {aB, aH, aQ, aK});
    std::string masked;
    if (s.additive) {
        const Attrs ma{.stream = int(mask.stream)};
        const std::string m =
            mask.fill.empty()
                ? b.add(P("mask"), Node{Role::AttnMask, Op::AdditiveMask, blk, {}, ma}, sq, {aB, aH, aQ, aK})
                : b.add_reading(P("mask"), Node{Role::AttnMask, Op::AdditiveMask, blk, {}, ma}, sq, {aB, aH, aQ, aK},
                                {mask.fill});
        masked = b.add(P(s.masked_leaf), Node{Role::MaskedScores, Op::MaskAdd, blk, {scores, m}}, sq, {aB, aH, aQ, aK});
    } else {
        const Node fill{Role::MaskedScores, Op::MaskFill, blk, {scores, mask.entry}, Attrs{.fill = s.fill}};
        masked = mask.fill.empty() ? b.add(P(s.masked_leaf), fill, sq, {aB, aH, aQ, aK})
                                   : b.add_reading(P(s.masked_leaf), fill, sq, {aB, aH, aQ, aK}, {mask.fill});
    }
    const std::string attn = b.add(P(s.attn_leaf), Node{Role::Softmax, Op::Softmax, blk, {masked}, Attrs{.dropout = s.attn_dropout}},
                                   sq, {aB, aH, aQ, aK});
    const std::string context =
        b.add(P(s.context_leaf), Node{Role::Context, Op::MatMul, blk, {attn, v}}, {B, H, Lq, dv}, {aB, aH, aQ, aV});
    std::vector<std::string> out_in{context, W(s.wo)};
    if (s.bias) out_in.push_back(W(s.bo));
    return b.add(P(s.out_leaf), Node{Role::OutProjection, Op::Linear, blk, std::move(out_in)}, {B, Lq, s.D},
                 {aB, aQ, aD});
}

std::string residual(Builder& b, const Block& blk, const std::string& name, const std::string& in0,
                     const std::string& in1, int sublayer, float p, std::vector<Axis> axes) {
    return b.add(name, Node{Role::Residual, Op::Add, blk, {in0, in1}, Attrs{.sublayer = sublayer, .dropout = p}},
                 b.shape(in0), std::move(axes));
}

std::string layer_norm(Builder& b, const Block& blk, const std::string& name, const std::string& in, float eps,
                       const std::string& gamma, const std::string& beta, std::vector<Axis> axes) {
    std::vector<std::string> inputs{in};
    if (!gamma.empty()) inputs.push_back(gamma);
    if (!beta.empty()) inputs.push_back(beta);
    return b.add(name, Node{Role::LayerNorm, Op::LayerNorm, blk, std::move(inputs), Attrs{.eps = eps}}, b.shape(in),
                 std::move(axes));
}

}  // namespace stepformer::build
