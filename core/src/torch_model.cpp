// PyTorch's own layers ("architecture": "torch"), forward: nn.MultiheadAttention as PyTorch 1.13's
// F.multi_head_attention_forward computes it, nn.TransformerEncoderLayer / DecoderLayer (post-norm
// or norm_first), and either seed 004's layer lab or a translation model around nn.Transformer
// named as PyTorch's translation tutorial names it. Every intermediate is recorded under the
// module path of the layer that makes it (trace_names.h; docs/contracts.md).
// Shapes in comments: B batch, S src length, T tgt length, L either, H heads, hd = D / H, F d_ff.
#include <cmath>
#include <limits>
#include <stdexcept>

#include "torch_internal.h"

namespace stepformer {

Batch make_layer_batch(const Config& c, const Tensor& src, const Tensor& tgt) {
    if (!c.layers()) throw ConfigError("tensor inputs are for the layer lab (\"structure\": \"layers\")");
    const auto batch_first_copy = [&](const Tensor& x, const char* what) {
        if (x.rank() != 3 || x.dim(2) != c.d_model || x.dim(0) <= 0 || x.dim(1) <= 0)
            throw ConfigError(std::string(what) + " has shape " + shape_to_string(x.shape) + "; the layer takes " +
                              (c.batch_first ? "[batch, length, d_model]" : "[length, batch, d_model]") +
                              " with d_model = " + std::to_string(c.d_model));
        return c.batch_first ? x : swap_leading_axes(x);  // (B, L, D) from (L, B, D)
    };
    for (const Tensor* x : {&src, &tgt})
        for (float v : x->data)
            if (!std::isfinite(v)) throw ConfigError(std::string(x == &src ? "src" : "tgt") + " contains NaN or infinity");
    Batch b;
    b.src_x = batch_first_copy(src, "src");
    b.B = static_cast<int>(b.src_x.dim(0));
    b.S = static_cast<int>(b.src_x.dim(1));
    if (c.decoder_layer) {
        if (tgt.empty()) throw ConfigError("the layer lab has a decoder layer: give its input tgt too");
        b.tgt_x = batch_first_copy(tgt, "tgt");
        if (b.tgt_x.dim(0) != b.B)
            throw ConfigError("src has batch " + std::to_string(b.B) + " but tgt has batch " +
                              std::to_string(b.tgt_x.dim(0)));
        b.T = static_cast<int>(b.tgt_x.dim(1));
    } else if (!tgt.empty()) {
        throw ConfigError("a tgt input was given, but the layer lab has no decoder layer (\"decoder_layer\": false)");
    }
    return b;
}

namespace detail {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

Axis feature(const char* name) { return ax(AxisKind::Feature, name); }

}  // namespace

TorchNames::TorchNames(const Config& c) : naming(c.layers() ? Naming::TorchLayers : Naming::TorchSeq2Seq) {}

// y (N, O) = x W^T + b, where x is the entry `in`; W and b may be slices of packed parameters.
void TorchPass::linear(Tensor& y, const float* x, const float* W, const float* b, int N, int I, int O) {
    m.be.linear_forward(m.st.out(y), x, W, N, I, O);
    m.be.add_bias(m.st.inout(y), b, N, O);
}

std::string TorchPass::attention(Trace& tr, const Block& blk, const std::string& xq, const std::string& xkv,
                                 const MaskSource& mask, AxisKind qk, AxisKind kk) {
    Backend& be = m.be;
    Staging& st = m.st;
    const Tensor& Xq = tr.at(xq).value;    // (B, Lq, D)
    const Tensor& Xkv = tr.at(xkv).value;  // (B, Lk, D)
    const int B = static_cast<int>(Xq.dim(0)), Lq = static_cast<int>(Xq.dim(1)), Lk = static_cast<int>(Xkv.dim(1));
    const int D = m.c.d_model, H = m.c.n_heads, hd = D / H;
    const auto P = [&](std::string_view leaf) { return names::entry(blk, leaf); };
    const std::string w_in = names::param(blk, "in_proj_weight"), b_in = names::param(blk, "in_proj_bias"),
                      w_out = names::param(blk, "out_proj.weight"), b_out = names::param(blk, "out_proj.bias");
    const float* W = m.w(w_in);  // (3D, D): rows Q | K | V
    const float* bias = m.w(b_in);  // (3D)

    // The in-projection, packed weight sliced as F._in_projection_packed does: (B, L, D) each.
    const Staging::Temp tq = st.temp(int64_t(B) * Lq * D), tk = st.temp(int64_t(B) * Lk * D),
                        tv = st.temp(int64_t(B) * Lk * D);
    be.linear_forward(tq.get(), st.in(Xq), W, B * Lq, D, D);
    be.add_bias(tq.get(), bias, B * Lq, D);
    be.linear_forward(tk.get(), st.in(Xkv), W + int64_t(D) * D, B * Lk, D, D);
    be.add_bias(tk.get(), bias + D, B * Lk, D);
    be.linear_forward(tv.get(), st.in(Xkv), W + 2 * int64_t(D) * D, B * Lk, D, D);
    be.add_bias(tv.get(), bias + 2 * D, B * Lk, D);
    Tensor Q({B, H, Lq, hd}), K({B, H, Lk, hd}), V({B, H, Lk, hd});
    be.split_heads(st.out(Q), tq.get(), B, Lq, H, hd);
    be.split_heads(st.out(K), tk.get(), B, Lk, H, hd);
    be.split_heads(st.out(V), tv.get(), B, Lk, H, hd);

    // (q / √hd)·kᵀ: q scaled before the product, in PyTorch's order (times the reciprocal: a rounding
    // apart from its division). The backward takes the unscaled Q with the scale, the same derivative.
    Tensor scores({B, H, Lq, Lk});
    const float scale = 1.0f / std::sqrt(float(hd));
    {
        const Staging::Temp q_scaled = st.temp(Q.size());
        be.scale(q_scaled.get(), st.in(Q), Q.size(), scale);
        be.attn_scores_forward(st.out(scores), q_scaled.get(), st.in(K), B * H, Lq, Lk, hd, 1.0f);
    }
    tr.saved[P("scores") + ".scale"] = Tensor({1}, {scale});
    // The mask as applied: attn_mask and key_padding_mask merged into 0 / −inf, added to the scores.
    Tensor add_mask({B, H, Lq, Lk});
    if (mask.host_additive) {
        const float* src = st.in(*mask.host_additive);
        be.copy(st.out(add_mask), src, add_mask.size());
    } else if (mask.bool_mask) {
        float* d = st.zeros(add_mask);
        be.mask_fill_forward(d, d, mask.bool_mask, B, H, Lq, Lk, kNegInf);
    } else {
        st.zeros(add_mask);
    }
    Tensor masked({B, H, Lq, Lk});
    be.add_forward(st.out(masked), st.in(scores), st.in(add_mask), masked.size());
    Tensor attn({B, H, Lq, Lk});
    be.softmax_forward(st.out(attn), st.in(masked), B * H * Lq, Lk);
    const float* attn_used = st.in(attn);
    if (const Tensor* keep = dropout(tr, P("attn"), attn.size())) {  // MultiheadAttention's dropout on the weights
        Tensor& dropped = tr.saved[P("attn_dropped")] = Tensor(attn.shape);
        be.mul_forward(st.out(dropped), attn_used, st.in(*keep), attn.size());
        attn_used = st.in(dropped);
    }
    Tensor context({B, H, Lq, hd});
    be.attn_context_forward(st.out(context), attn_used, st.in(V), B * H, Lq, Lk, hd);
    Tensor& merged = tr.saved[P("merged")] = Tensor({B, Lq, D});  // (B, Lq, D): the heads side by side
    be.merge_heads(st.out(merged), st.in(context), B, Lq, H, hd);
    Tensor out({B, Lq, D});
    linear(out, st.in(merged), m.w(w_out), m.w(b_out), B * Lq, D, D);

    const Axis aB = ax(AxisKind::Batch, "batch_size"), aH = ax(AxisKind::Head, "num_heads"), aQ = ax(qk, "len_q"),
               aK = ax(kk, "len_k"), aF = feature("head_dim"), aD = feature("embed_dim");
    tr.add(P("Q"), Node{Role::Q, Op::Linear, blk, {xq, w_in, b_in}}, {aB, aH, aQ, aF}, std::move(Q));
    tr.add(P("K"), Node{Role::K, Op::Linear, blk, {xkv, w_in, b_in}}, {aB, aH, aK, aF}, std::move(K));
    tr.add(P("V"), Node{Role::V, Op::Linear, blk, {xkv, w_in, b_in}}, {aB, aH, aK, aF}, std::move(V));
    tr.add(P("scores"), Node{Role::Scores, Op::ScaledMatMul, blk, {P("Q"), P("K")}}, {aB, aH, aQ, aK}, std::move(scores));
    tr.add(P("mask"), Node{Role::AttnMask, Op::AdditiveMask, blk, {}}, {aB, aH, aQ, aK}, std::move(add_mask));
    tr.add(P("masked_scores"), Node{Role::MaskedScores, Op::MaskAdd, blk, {P("scores"), P("mask")}}, {aB, aH, aQ, aK},
           std::move(masked));
    tr.add(P("attn"), Node{Role::Softmax, Op::Softmax, blk, {P("masked_scores")}}, {aB, aH, aQ, aK}, std::move(attn));
    tr.add(P("context"), Node{Role::Context, Op::MatMul, blk, {P("attn"), P("V")}}, {aB, aH, aQ, aF},
           std::move(context));
    tr.add(P("out_proj"), Node{Role::OutProjection, Op::Linear, blk, {P("context"), w_out, b_out}}, {aB, aQ, aD},
           std::move(out));
    return P("out_proj");
}

std::string TorchPass::add(Trace& tr, const Block& blk, const std::string& leaf, const std::string& x,
                           const std::string& sub, AxisKind tk) {
    const Tensor& X = tr.at(x).value;  // (B, L, D)
    const Tensor& Y = tr.at(sub).value;
    const float* y = m.st.in(Y);
    Tensor out(X.shape);
    const std::string name = names::entry(blk, leaf);
    if (const Tensor* keep = dropout(tr, name, Y.size())) {  // dropoutN: the sub-layer's output, before the add
        const Staging::Temp t = m.st.temp(Y.size());
        m.be.mul_forward(t.get(), y, m.st.in(*keep), Y.size());
        m.be.add_forward(m.st.out(out), m.st.in(X), t.get(), out.size());
    } else {
        m.be.add_forward(m.st.out(out), m.st.in(X), y, out.size());
    }
    tr.add(name, Node{Role::Residual, Op::Add, blk, {x, sub}}, {ax(AxisKind::Batch, "batch_size"), ax(tk, "seq_len"),
                                                                 feature("d_model")},
           std::move(out));
    return name;
}

std::string TorchPass::norm(Trace& tr, const Block& blk, const std::string& prefix, const std::string& in,
                            AxisKind tk) {
    const Tensor& X = tr.at(in).value;  // (B, L, D)
    const int rows = static_cast<int>(X.dim(0) * X.dim(1)), D = m.c.d_model;
    // A layer's normK.weight, or a stack's final norm (transformer.encoder.norm).weight.
    const bool final = blk.kind == BlockKind::FinalNorm;
    const std::string gamma = names::param(blk, final ? "weight" : prefix + ".weight"),
                      beta = names::param(blk, final ? "bias" : prefix + ".bias");
    const std::string name = names::entry(blk, final ? "out" : prefix);
    Tensor out(X.shape);
    Tensor& mean = tr.saved[name + ".mean"] = Tensor({rows});
    Tensor& rstd = tr.saved[name + ".rstd"] = Tensor({rows});
    m.be.layernorm_forward(m.st.out(out), m.st.out(mean), m.st.out(rstd), m.st.in(X), m.w(gamma), m.w(beta), rows, D,
                           static_cast<float>(m.c.layer_norm_eps));
    tr.add(name, Node{Role::LayerNorm, Op::LayerNorm, blk, {in, gamma, beta}},
           {ax(AxisKind::Batch, "batch_size"), ax(tk, "seq_len"), feature("d_model")}, std::move(out));
    return name;
}

// linear1 → activation → dropout → linear2 (TransformerEncoderLayer._ff_block); returns linear2.
std::string TorchPass::feed_forward(Trace& tr, const Block& blk, const std::string& in, AxisKind tk) {
    Backend& be = m.be;
    Staging& st = m.st;
    const Tensor& X = tr.at(in).value;  // (B, L, D)
    const int B = static_cast<int>(X.dim(0)), L = static_cast<int>(X.dim(1)), D = m.c.d_model, F = m.c.d_ff;
    const auto E = [&](std::string_view leaf) { return names::entry(blk, leaf); };
    const std::string w1 = names::param(blk, "linear1.weight"), b1 = names::param(blk, "linear1.bias"),
                      w2 = names::param(blk, "linear2.weight"), b2 = names::param(blk, "linear2.bias");
    const bool gelu = m.c.activation == "gelu";
    Tensor hidden({B, L, F}), act({B, L, F}), out({B, L, D});
    linear(hidden, st.in(X), m.w(w1), m.w(b1), B * L, D, F);
    if (gelu) be.gelu_forward(st.out(act), st.in(hidden), act.size());
    else be.relu_forward(st.out(act), st.in(hidden), act.size());
    const float* act_used = st.in(act);
    if (const Tensor* keep = dropout(tr, E("activation"), act.size())) {
        Tensor& dropped = tr.saved[E("activation_dropped")] = Tensor(act.shape);
        be.mul_forward(st.out(dropped), act_used, st.in(*keep), act.size());
        act_used = st.in(dropped);
    }
    linear(out, act_used, m.w(w2), m.w(b2), B * L, F, D);
    const Axis aB = ax(AxisKind::Batch, "batch_size"), aL = ax(tk, "seq_len"), aF = feature("dim_feedforward"),
               aD = feature("d_model");
    tr.add(E("linear1"), Node{Role::FfnHidden, Op::Linear, blk, {in, w1, b1}}, {aB, aL, aF}, std::move(hidden));
    tr.add(E("activation"), Node{gelu ? Role::Gelu : Role::Relu, gelu ? Op::Gelu : Op::Relu, blk, {E("linear1")}},
           {aB, aL, aF}, std::move(act));
    tr.add(E("linear2"), Node{Role::FfnOut, Op::Linear, blk, {E("activation"), w2, b2}}, {aB, aL, aD}, std::move(out));
    return E("linear2");
}

// nn.TransformerEncoderLayer.forward: x = norm1(x + sa(x)); x = norm2(x + ff(x)), or with
// norm_first x = x + sa(norm1(x)); x = x + ff(norm2(x)). Returns the layer's output entry.
std::string TorchPass::encoder_layer(Trace& tr, int i, const std::string& x, const MaskSource& mask) {
    const Block sa{Stack::Encoder, BlockKind::SelfAttention, i, names.naming},
        ff{Stack::Encoder, BlockKind::FeedForward, i, names.naming};
    constexpr AxisKind tk = AxisKind::SrcToken;
    if (m.c.norm_first) {
        const std::string n1 = norm(tr, sa, "norm1", x, tk);
        const std::string a1 = add(tr, sa, "add1", x, attention(tr, sa, n1, n1, mask, tk, tk), tk);
        const std::string n2 = norm(tr, ff, "norm2", a1, tk);
        return add(tr, ff, "add2", a1, feed_forward(tr, ff, n2, tk), tk);
    }
    const std::string n1 = norm(tr, sa, "norm1", add(tr, sa, "add1", x, attention(tr, sa, x, x, mask, tk, tk), tk), tk);
    return norm(tr, ff, "norm2", add(tr, ff, "add2", n1, feed_forward(tr, ff, n1, tk), tk), tk);
}

// nn.TransformerDecoderLayer.forward: self-attention, cross-attention over `memory`, feed-forward.
std::string TorchPass::decoder_layer(Trace& tr, int i, const std::string& x, const std::string& memory,
                                     const MaskSource& self_mask, const MaskSource& cross_mask) {
    const Block sa{Stack::Decoder, BlockKind::MaskedSelfAttention, i, names.naming},
        ca{Stack::Decoder, BlockKind::CrossAttention, i, names.naming},
        ff{Stack::Decoder, BlockKind::FeedForward, i, names.naming};
    constexpr AxisKind tk = AxisKind::TgtToken, sk = AxisKind::SrcToken;
    if (m.c.norm_first) {
        const std::string n1 = norm(tr, sa, "norm1", x, tk);
        const std::string a1 = add(tr, sa, "add1", x, attention(tr, sa, n1, n1, self_mask, tk, tk), tk);
        const std::string n2 = norm(tr, ca, "norm2", a1, tk);
        const std::string a2 = add(tr, ca, "add2", a1, attention(tr, ca, n2, memory, cross_mask, tk, sk), tk);
        const std::string n3 = norm(tr, ff, "norm3", a2, tk);
        return add(tr, ff, "add3", a2, feed_forward(tr, ff, n3, tk), tk);
    }
    const std::string n1 =
        norm(tr, sa, "norm1", add(tr, sa, "add1", x, attention(tr, sa, x, x, self_mask, tk, tk), tk), tk);
    const std::string n2 =
        norm(tr, ca, "norm2", add(tr, ca, "add2", n1, attention(tr, ca, n1, memory, cross_mask, tk, sk), tk), tk);
    return norm(tr, ff, "norm3", add(tr, ff, "add3", n2, feed_forward(tr, ff, n2, tk), tk), tk);
}

namespace {

// PyTorch's merge of attn_mask (Lq, Lk) and key_padding_mask (B, Lk) into one additive mask per
// head (B, H, Lq, Lk): the float mask's values (a bool one is 0 / −inf already), −inf where a key
// is padding. Empty when neither is given.
Tensor additive_mask(const Tensor& attn_mask, const std::vector<int>& key_padding, int B, int H, int Lq, int Lk) {
    if (attn_mask.empty() && key_padding.empty()) return {};
    Tensor out({B, H, Lq, Lk});
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int q = 0; q < Lq; ++q)
                for (int k = 0; k < Lk; ++k) {
                    float v = attn_mask.empty() ? 0.0f : attn_mask.data[size_t(q) * Lk + k];
                    if (!key_padding.empty() && key_padding[size_t(b) * Lk + k]) v = kNegInf;
                    out.data[((size_t(b) * H + h) * Lq + q) * Lk + k] = v;
                }
    return out;
}

void check_mask(const Tensor& m, int Lq, int Lk, const char* what) {
    if (!m.empty() && (m.rank() != 2 || m.dim(0) != Lq || m.dim(1) != Lk))
        throw ConfigError(std::string(what) + " has shape " + shape_to_string(m.shape) + ", the layer needs [" +
                          std::to_string(Lq) + ", " + std::to_string(Lk) + "]");
}

void check_padding(const std::vector<int>& p, int B, int L, const char* what) {
    if (!p.empty() && p.size() != size_t(B) * L)
        throw ConfigError(std::string(what) + " has " + std::to_string(p.size()) + " entries, the layer needs [" +
                          std::to_string(B) + ", " + std::to_string(L) + "]");
}

}  // namespace

void torch_forward_layers(TorchPass& pass, const Batch& batch, Trace& tr) {
    const ModelCtx& m = pass.m;
    const Config& c = m.c;
    const int B = batch.B, S = batch.S, T = batch.T, H = c.n_heads, D = c.d_model;
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
    const Naming n = pass.names.naming;
    const Axis aB = ax(AxisKind::Batch, "batch_size"), aD = ax(AxisKind::Feature, "d_model");
    const Block src_in{Stack::Encoder, BlockKind::Input, -1, n}, tgt_in{Stack::Decoder, BlockKind::Input, -1, n};
    Tensor src = batch.src_x;
    const std::string src_name = names::entry(src_in, "");
    tr.add(src_name, Node{Role::Input, Op::Input, src_in, {}}, {aB, ax(AxisKind::SrcToken, "src_len"), aD}, std::move(src));

    Tensor& enc_mask = tr.saved["src.additive_mask"] = additive_mask(batch.src_mask, batch.src_key_padding_mask, B, H, S, S);
    const std::string memory = pass.encoder_layer(tr, 0, src_name, MaskSource{enc_mask.empty() ? nullptr : &enc_mask});
    if (!c.decoder_layer) return;
    Tensor tgt = batch.tgt_x;
    const std::string tgt_name = names::entry(tgt_in, "");
    tr.add(tgt_name, Node{Role::Input, Op::Input, tgt_in, {}}, {aB, ax(AxisKind::TgtToken, "tgt_len"), aD},
           std::move(tgt));
    Tensor& self = tr.saved["tgt.additive_mask"] = additive_mask(batch.tgt_mask, batch.tgt_key_padding_mask, B, H, T, T);
    Tensor& cross = tr.saved["memory.additive_mask"] =
        additive_mask(batch.memory_mask, batch.memory_key_padding_mask, B, H, T, S);
    pass.decoder_layer(tr, 0, tgt_name, memory, MaskSource{self.empty() ? nullptr : &self},
                       MaskSource{cross.empty() ? nullptr : &cross});
}

// The translation tutorial's Seq2Seq: token embeddings × √d_model, the sinusoid table added
// (then dropout), nn.Transformer with its final norms, the generator; masks from the pads
// (create_mask: key padding of both sentences, the causal tgt_mask).
void torch_forward_seq2seq(TorchPass& pass, const Batch& batch, Trace& tr, const Tensor& pe_src, const Tensor& pe_tgt) {
    const ModelCtx& m = pass.m;
    Backend& be = m.be;
    Staging& st = m.st;
    const Config& c = m.c;
    const int B = batch.B, S = batch.S, T = batch.T, D = c.d_model, V = c.tgt_vocab_size();
    const Naming n = pass.names.naming;
    const Axis aB = ax(AxisKind::Batch, "batch_size"), aD = ax(AxisKind::Feature, "d_model");

    const auto embed = [&](Stack stack, const std::vector<int>& ids, int L, const Tensor& pe_table) {
        const Block blk{stack, BlockKind::Input, -1, n};
        const AxisKind tk = stack == Stack::Encoder ? AxisKind::SrcToken : AxisKind::TgtToken;
        const Axis aL = ax(tk, stack == Stack::Encoder ? "src_len" : "tgt_len");
        const std::string table = names::param(blk, "tok_emb.embedding.weight"), emb = names::entry(blk, "tok_emb.out"),
                          pe_name = names::entry(blk, "positional_encoding.pe"),
                          out_name = names::entry(blk, "positional_encoding.out");
        const int Vs = static_cast<int>(m.p.at(table).dim(0));
        Tensor e({B, L, D}), out({B, L, D});
        float* ed = st.out(e);
        be.embedding_forward(ed, st.in(ids), m.w(table), B * L, Vs, D);
        const float s = std::sqrt(static_cast<float>(D));  // TokenEmbedding: × math.sqrt(emb_size)
        be.scale(ed, ed, e.size(), s);
        tr.saved[emb + ".scale"] = Tensor({1}, {s});
        const Tensor* keep = pass.dropout(tr, out_name, out.size());
        be.positional_forward(st.out(out), ed, st.in(pe_table), keep ? st.in(*keep) : nullptr, B, L, D);
        tr.add(emb, Node{Role::Embedding, Op::Embedding, blk, {table}}, {aB, aL, aD}, std::move(e));
        tr.add(pe_name, Node{Role::PositionalTable, Op::PositionalTable, blk, {}}, {ax(AxisKind::Position, "position"), aD},
               Tensor(pe_table));
        tr.add(out_name, Node{Role::PositionalAdd, Op::PositionalAdd, blk, {emb, pe_name}}, {aB, aL, aD}, std::move(out));
        return out_name;
    };
    const std::string src_x = embed(Stack::Encoder, batch.src, S, pe_src);
    std::string x = embed(Stack::Decoder, batch.tgt, T, pe_tgt);

    // Masks as create_mask makes them, 1 = ignore: key padding (src == pad, tgt == pad) and the
    // causal mask; merged per block into 0 / −inf by the attention.
    const int pad = c.src_id(c.pad);
    const Staging::Temp enc_pad = st.temp(int64_t(B) * S * S), dec_self = st.temp(int64_t(B) * T * T),
                        dec_cross = st.temp(int64_t(B) * T * S), sub = st.temp(int64_t(B) * T * T);
    be.pad_mask(enc_pad.get(), st.in(batch.src), B, S, S, pad);
    be.pad_mask(dec_self.get(), st.in(batch.tgt), B, T, T, c.tgt_id(c.pad));
    be.subsequence_mask(sub.get(), B, T);
    be.mask_or(dec_self.get(), dec_self.get(), sub.get(), int64_t(B) * T * T);
    be.pad_mask(dec_cross.get(), st.in(batch.src), B, T, S, pad);

    std::string mem = src_x;
    for (int i = 0; i < c.encoder_layers(); ++i) mem = pass.encoder_layer(tr, i, mem, MaskSource{nullptr, enc_pad.get()});
    mem = pass.norm(tr, Block{Stack::Encoder, BlockKind::FinalNorm, -1, n}, "norm", mem, AxisKind::SrcToken);
    for (int i = 0; i < c.decoder_layers(); ++i)
        x = pass.decoder_layer(tr, i, x, mem, MaskSource{nullptr, dec_self.get()}, MaskSource{nullptr, dec_cross.get()});
    x = pass.norm(tr, Block{Stack::Decoder, BlockKind::FinalNorm, -1, n}, "norm", x, AxisKind::TgtToken);

    const Block gen{Stack::None, BlockKind::Projection, -1, n};
    const std::string w = names::param(gen, "weight"), b = names::param(gen, "bias"), logits_name = names::entry(gen, "logits");
    Tensor logits({B, T, V}), probs({B, T, V});
    pass.linear(logits, st.in(tr.at(x).value), m.w(w), m.w(b), B * T, D, V);
    be.softmax_forward(st.out(probs), st.in(logits), B * T, V);
    const Axis aT = ax(AxisKind::TgtToken, "tgt_len"), aV = ax(AxisKind::Vocab, "tgt_vocab_size");
    tr.add(logits_name, Node{Role::Logits, Op::Linear, gen, {x, w, b}}, {aB, aT, aV}, std::move(logits));
    tr.add(names::entry(gen, "probs"), Node{Role::Probs, Op::Softmax, gen, {logits_name}}, {aB, aT, aV}, std::move(probs));
}

}  // namespace detail
}  // namespace stepformer
