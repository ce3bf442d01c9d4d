// attention-is-all-you-need-pytorch's Transformer ("architecture": "aiayn", seed 003), forward:
// its ScaledDotProductAttention scales the query before the product and fills masked scores with
// −1e9 (its masks are 1 = keep), MultiHeadAttention has no biases and normalises after the
// residual (eps 1e-6), each stack normalises its input after the positional encoding, and the
// output projection may share the target embedding. Every intermediate is recorded under its
// module path (trace_names.h; docs/contracts.md).
// Shapes in comments: B batch, S src length, T tgt length, L either, H n_head, D d_model.
#include <cmath>
#include <stdexcept>

#include "aiayn_internal.h"

namespace stepformer::detail {

namespace {

constexpr Naming kN = Naming::Aiayn;
constexpr double kAttentionDropout = 0.1;  // ScaledDotProductAttention(attn_dropout=0.1)'s default

Axis feature(const char* name) { return ax(AxisKind::Feature, name); }

}  // namespace

const float* AiaynPass::w(const std::string& state_dict_name) const {
    return m.w(canonical_param(m.c, state_dict_name));
}

std::string AiaynPass::layer_norm(Trace& tr, const Block& blk, const std::string& leaf, const std::string& in,
                                  AxisKind tk) {
    const Tensor& X = tr.at(in).value;  // (B, L, D)
    const int rows = static_cast<int>(X.dim(0) * X.dim(1)), D = m.c.d_model;
    const std::string gamma = names::param(blk, "layer_norm.weight"), beta = names::param(blk, "layer_norm.bias");
    const std::string name = names::entry(blk, leaf);
    Tensor out(X.shape);
    Tensor& mean = tr.saved[name + ".mean"] = Tensor({rows});
    Tensor& rstd = tr.saved[name + ".rstd"] = Tensor({rows});
    m.be.layernorm_forward(m.st.out(out), m.st.out(mean), m.st.out(rstd), m.st.in(X), w(gamma), w(beta), rows, D,
                           static_cast<float>(m.c.layer_norm_eps));
    tr.add(name, Node{Role::LayerNorm, Op::LayerNorm, blk, {in, gamma, beta}},
           {ax(AxisKind::Batch, "batch_size"), ax(tk, "seq_len"), feature("d_model")}, std::move(out));
    return name;
}

// out = dropout(sub) + x: the sub-layer's output, dropped out, then the residual added (q += residual).
std::string AiaynPass::residual(Trace& tr, const Block& blk, const std::string& sub, const std::string& x, AxisKind tk) {
    const Tensor& Y = tr.at(sub).value;
    const std::string name = names::entry(blk, "residual");
    Tensor out(Y.shape);
    const float* y = m.st.in(Y);
    Staging::Temp t = m.st.temp(Y.size());
    if (const Tensor* keep = sites.draw(tr, name, Y.size())) {
        m.be.mul_forward(t.get(), y, m.st.in(*keep), Y.size());
        y = t.get();
    }
    m.be.add_forward(m.st.out(out), y, m.st.in(tr.at(x).value), out.size());
    tr.add(name, Node{Role::Residual, Op::Add, blk, {sub, x}},
           {ax(AxisKind::Batch, "batch_size"), ax(tk, "seq_len"), feature("d_model")}, std::move(out));
    return name;
}

std::string AiaynPass::attention(Trace& tr, const Block& blk, const std::string& xq, const std::string& xkv,
                                 const std::string& mask, const float* fill, AxisKind qk, AxisKind kk) {
    Backend& be = m.be;
    Staging& st = m.st;
    const Config& c = m.c;
    const Tensor& Xq = tr.at(xq).value;    // (B, Lq, D)
    const Tensor& Xkv = tr.at(xkv).value;  // (B, Lk, D)
    const int B = static_cast<int>(Xq.dim(0)), Lq = static_cast<int>(Xq.dim(1)), Lk = static_cast<int>(Xkv.dim(1));
    const int D = c.d_model, H = c.n_heads, dk = c.d_k, dv = c.d_v;
    const auto P = [&](std::string_view leaf) { return names::entry(blk, leaf); };
    const std::string wq = names::param(blk, "w_qs.weight"), wk = names::param(blk, "w_ks.weight"),
                      wv = names::param(blk, "w_vs.weight"), wfc = names::param(blk, "fc.weight");

    const Staging::Temp tq = st.temp(int64_t(B) * Lq * H * dk), tk = st.temp(int64_t(B) * Lk * H * dk),
                        tv = st.temp(int64_t(B) * Lk * H * dv);
    be.linear_forward(tq.get(), st.in(Xq), w(wq), B * Lq, D, H * dk);
    be.linear_forward(tk.get(), st.in(Xkv), w(wk), B * Lk, D, H * dk);
    be.linear_forward(tv.get(), st.in(Xkv), w(wv), B * Lk, D, H * dv);
    Tensor Q({B, H, Lq, dk}), K({B, H, Lk, dk}), V({B, H, Lk, dv});
    be.split_heads(st.out(Q), tq.get(), B, Lq, H, dk);
    be.split_heads(st.out(K), tk.get(), B, Lk, H, dk);
    be.split_heads(st.out(V), tv.get(), B, Lk, H, dv);

    // q / temperature, temperature = d_k ** 0.5: the query is scaled before the product (times the
    // reciprocal here: the same maths, a rounding apart from the division).
    const float scale = static_cast<float>(1.0 / std::sqrt(double(dk)));
    Tensor q_scaled(Q.shape);
    be.scale(st.out(q_scaled), st.in(Q), Q.size(), scale);
    tr.saved[P("q_scaled") + ".scale"] = Tensor({1}, {scale});
    Tensor scores({B, H, Lq, Lk});
    be.attn_scores_forward(st.out(scores), st.in(q_scaled), st.in(K), B * H, Lq, Lk, dk, 1.0f);
    tr.saved[P("scores") + ".scale"] = Tensor({1}, {1.0f});
    Tensor masked({B, H, Lq, Lk});
    be.mask_fill_forward(st.out(masked), st.in(scores), fill, B, H, Lq, Lk, -1e9f);
    Tensor attn({B, H, Lq, Lk});
    be.softmax_forward(st.out(attn), st.in(masked), B * H * Lq, Lk);
    const float* attn_used = st.in(attn);
    // Its ScaledDotProductAttention is made without the model's dropout, so its own default (0.1)
    // drops attention weights in training whatever "dropout" says — except that "dropout": 0 here
    // means no dropout anywhere (a deterministic run, as the project's eval mode).
    if (const Tensor* keep = sites.draw(tr, P("attn"), attn.size(), c.dropout > 0.0 ? kAttentionDropout : 0.0)) {
        Tensor& dropped = tr.saved[P("attn_dropped")] = Tensor(attn.shape);
        be.mul_forward(st.out(dropped), attn_used, st.in(*keep), attn.size());
        attn_used = st.in(dropped);
    }
    Tensor context({B, H, Lq, dv});
    be.attn_context_forward(st.out(context), attn_used, st.in(V), B * H, Lq, Lk, dv);
    Tensor& merged = tr.saved[P("merged")] = Tensor({B, Lq, H * dv});  // (B, Lq, H*dv)
    be.merge_heads(st.out(merged), st.in(context), B, Lq, H, dv);
    Tensor fc_out({B, Lq, D});
    be.linear_forward(st.out(fc_out), st.in(merged), w(wfc), B * Lq, H * dv, D);

    const Axis aB = ax(AxisKind::Batch, "batch_size"), aH = ax(AxisKind::Head, "n_head"), aQ = ax(qk, "len_q"),
               aK = ax(kk, "len_k"), aF = feature("d_k"), aV = feature("d_v"), aD = feature("d_model");
    tr.add(P("Q"), Node{Role::Q, Op::Linear, blk, {xq, wq}}, {aB, aH, aQ, aF}, std::move(Q));
    tr.add(P("K"), Node{Role::K, Op::Linear, blk, {xkv, wk}}, {aB, aH, aK, aF}, std::move(K));
    tr.add(P("V"), Node{Role::V, Op::Linear, blk, {xkv, wv}}, {aB, aH, aK, aV}, std::move(V));
    tr.add(P("q_scaled"), Node{Role::ScaledQ, Op::Scale, blk, {P("Q")}}, {aB, aH, aQ, aF}, std::move(q_scaled));
    tr.add(P("scores"), Node{Role::Scores, Op::ScaledMatMul, blk, {P("q_scaled"), P("K")}}, {aB, aH, aQ, aK},
           std::move(scores));
    tr.add(P("masked_scores"), Node{Role::MaskedScores, Op::MaskFill, blk, {P("scores"), mask}}, {aB, aH, aQ, aK},
           std::move(masked));
    tr.add(P("attn"), Node{Role::Softmax, Op::Softmax, blk, {P("masked_scores")}}, {aB, aH, aQ, aK}, std::move(attn));
    tr.add(P("context"), Node{Role::Context, Op::MatMul, blk, {P("attn"), P("V")}}, {aB, aH, aQ, aV},
           std::move(context));
    tr.add(P("fc_out"), Node{Role::OutProjection, Op::Linear, blk, {P("context"), wfc}}, {aB, aQ, aD}, std::move(fc_out));
    return layer_norm(tr, blk, "out", residual(tr, blk, P("fc_out"), xq, qk), qk);
}

// PositionwiseFeedForward: w_2(relu(w_1(x))), dropout, += residual, layer_norm.
std::string AiaynPass::feed_forward(Trace& tr, const Block& blk, const std::string& in, AxisKind tk) {
    Backend& be = m.be;
    Staging& st = m.st;
    const Tensor& X = tr.at(in).value;  // (B, L, D)
    const int B = static_cast<int>(X.dim(0)), L = static_cast<int>(X.dim(1)), D = m.c.d_model, F = m.c.d_ff;
    const auto E = [&](std::string_view leaf) { return names::entry(blk, leaf); };
    const std::string w1 = names::param(blk, "w_1.weight"), b1 = names::param(blk, "w_1.bias"),
                      w2 = names::param(blk, "w_2.weight"), b2 = names::param(blk, "w_2.bias");
    Tensor hidden({B, L, F}), relu({B, L, F}), out({B, L, D});
    be.linear_forward(st.out(hidden), st.in(X), w(w1), B * L, D, F);
    be.add_bias(st.inout(hidden), w(b1), B * L, F);
    be.relu_forward(st.out(relu), st.in(hidden), relu.size());
    be.linear_forward(st.out(out), st.in(relu), w(w2), B * L, F, D);  // (no dropout inside: the project has none)
    be.add_bias(st.inout(out), w(b2), B * L, D);
    const Axis aB = ax(AxisKind::Batch, "batch_size"), aL = ax(tk, "seq_len"), aF = feature("d_inner"),
               aD = feature("d_model");
    tr.add(E("hidden"), Node{Role::FfnHidden, Op::Linear, blk, {in, w1, b1}}, {aB, aL, aF}, std::move(hidden));
    tr.add(E("relu"), Node{Role::Relu, Op::Relu, blk, {E("hidden")}}, {aB, aL, aF}, std::move(relu));
    tr.add(E("fc_out"), Node{Role::FfnOut, Op::Linear, blk, {E("relu"), w2, b2}}, {aB, aL, aD}, std::move(out));
    return layer_norm(tr, blk, "out", residual(tr, blk, E("fc_out"), in, tk), tk);
}

// A stack's input: word embedding (× √d_model when scale_emb), + pos_table, dropout, layer_norm.
std::string AiaynPass::input(Trace& tr, Stack stack, const std::vector<int>& ids, int B, int L, const Tensor& pe_table) {
    Backend& be = m.be;
    Staging& st = m.st;
    const Config& c = m.c;
    const int D = c.d_model;
    const bool enc = stack == Stack::Encoder;
    const Block blk{stack, BlockKind::Input, -1, kN};
    const AxisKind tk = enc ? AxisKind::SrcToken : AxisKind::TgtToken;
    const std::string word = enc ? "src_word_emb" : "trg_word_emb";
    const std::string table = names::param(blk, word + ".weight"), emb = names::entry(blk, word + ".out"),
                      pe_name = names::entry(blk, "position_enc.pe"), out_name = names::entry(blk, "position_enc.out");
    const int V = static_cast<int>(m.p.at(canonical_param(c, table)).dim(0));
    Tensor e({B, L, D}), out({B, L, D});
    float* ed = st.out(e);
    be.embedding_forward(ed, st.in(ids), w(table), B * L, V, D);
    if (c.scale_emb_or_prj == "emb" && c.trg_emb_prj_weight_sharing) {  // the project scales only a tied model
        const float s = static_cast<float>(std::sqrt(double(D)));  // d_model ** 0.5
        be.scale(ed, ed, e.size(), s);
        tr.saved[emb + ".scale"] = Tensor({1}, {s});
    }
    const Tensor* keep = sites.draw(tr, out_name, out.size());
    be.positional_forward(st.out(out), ed, st.in(pe_table), keep ? st.in(*keep) : nullptr, B, L, D);
    const Axis aB = ax(AxisKind::Batch, "batch_size"), aL = ax(tk, enc ? "src_len" : "trg_len"), aD = feature("d_model");
    tr.add(emb, Node{Role::Embedding, Op::Embedding, blk, {table}}, {aB, aL, aD}, std::move(e));
    tr.add(pe_name, Node{Role::PositionalTable, Op::PositionalTable, blk, {}}, {ax(AxisKind::Position, "position"), aD},
           Tensor(pe_table));
    tr.add(out_name, Node{Role::PositionalAdd, Op::PositionalAdd, blk, {emb, pe_name}}, {aB, aL, aD}, std::move(out));
    return layer_norm(tr, blk, "layer_norm.out", out_name, tk);
}

void aiayn_forward(AiaynPass& pass, const Batch& batch, Trace& tr, const Tensor& pe_src, const Tensor& pe_tgt) {
    const ModelCtx& m = pass.m;
    Backend& be = m.be;
    Staging& st = m.st;
    const Config& c = m.c;
    const int B = batch.B, S = batch.S, T = batch.T, D = c.d_model, V = c.tgt_vocab_size();
    const Axis aB = ax(AxisKind::Batch, "batch_size");
    const Block enc_in{Stack::Encoder, BlockKind::Input, -1, kN}, dec_in{Stack::Decoder, BlockKind::Input, -1, kN};

    // get_pad_mask / get_subsequent_mask, 1 = keep as the project makes them (traced), and the
    // fills the kernel takes (1 = masked, kept for the backward).
    const int pad = c.src_id(c.pad), tpad = c.tgt_id(c.pad);
    Tensor src_fill({B, S, S}), trg_fill({B, T, T}), cross_fill({B, T, S}), sub({B, T, T});
    be.pad_mask(st.out(src_fill), st.in(batch.src), B, S, S, pad);
    be.pad_mask(st.out(trg_fill), st.in(batch.tgt), B, T, T, tpad);
    be.subsequence_mask(st.out(sub), B, T);
    be.mask_or(st.inout(trg_fill), st.in(trg_fill), st.in(sub), trg_fill.size());
    be.pad_mask(st.out(cross_fill), st.in(batch.src), B, T, S, pad);
    st.forget(sub);
    // The traced masks in the project's convention (1 = keep), from the ids the host holds anyway.
    Tensor src_mask({B, 1, S}), trg_mask({B, T, T});
    for (int b = 0; b < B; ++b) {
        for (int s = 0; s < S; ++s) src_mask.data[size_t(b) * S + s] = batch.src[size_t(b) * S + s] != pad ? 1.0f : 0.0f;
        for (int q = 0; q < T; ++q)
            for (int k = 0; k < T; ++k)
                trg_mask.data[(size_t(b) * T + q) * T + k] = k <= q && batch.tgt[size_t(b) * T + k] != tpad ? 1.0f : 0.0f;
    }
    const std::string src_mask_name = names::entry(enc_in, "src_mask"), trg_mask_name = names::entry(dec_in, "trg_mask");
    tr.add(src_mask_name, Node{Role::PadMask, Op::TokenMask, enc_in, {}},
           {aB, ax(AxisKind::Position, "1"), ax(AxisKind::SrcToken, "len_k")}, std::move(src_mask), true);
    tr.add(trg_mask_name, Node{Role::CombinedMask, Op::TokenMask, dec_in, {}},
           {aB, ax(AxisKind::TgtToken, "len_q"), ax(AxisKind::TgtToken, "len_k")}, std::move(trg_mask), true);
    Tensor& src_f = tr.saved[src_mask_name + ".fill"] = std::move(src_fill);
    Tensor& trg_f = tr.saved[trg_mask_name + ".fill"] = std::move(trg_fill);
    Tensor& cross_f = tr.saved[src_mask_name + ".cross_fill"] = std::move(cross_fill);

    std::string x = pass.input(tr, Stack::Encoder, batch.src, B, S, pe_src);
    for (int i = 0; i < c.n_layers; ++i) {
        const Block sa{Stack::Encoder, BlockKind::SelfAttention, i, kN}, ff{Stack::Encoder, BlockKind::FeedForward, i, kN};
        x = pass.attention(tr, sa, x, x, src_mask_name, st.in(src_f), AxisKind::SrcToken, AxisKind::SrcToken);
        x = pass.feed_forward(tr, ff, x, AxisKind::SrcToken);
    }
    const std::string enc_out = x;
    x = pass.input(tr, Stack::Decoder, batch.tgt, B, T, pe_tgt);
    for (int i = 0; i < c.n_layers; ++i) {
        const Block sa{Stack::Decoder, BlockKind::MaskedSelfAttention, i, kN},
            ca{Stack::Decoder, BlockKind::CrossAttention, i, kN}, ff{Stack::Decoder, BlockKind::FeedForward, i, kN};
        x = pass.attention(tr, sa, x, x, trg_mask_name, st.in(trg_f), AxisKind::TgtToken, AxisKind::TgtToken);
        x = pass.attention(tr, ca, x, enc_out, src_mask_name, st.in(cross_f), AxisKind::TgtToken, AxisKind::SrcToken);
        x = pass.feed_forward(tr, ff, x, AxisKind::TgtToken);
    }

    // trg_word_prj (no bias), × d_model^−0.5 when scale_prj.
    const Block prj{Stack::None, BlockKind::Projection, -1, kN};
    const std::string wp = names::param(prj, "weight"), logits_name = names::entry(prj, "logits");
    Tensor logits({B, T, V}), probs({B, T, V});
    float* ld = st.out(logits);
    be.linear_forward(ld, st.in(tr.at(x).value), pass.w(wp), B * T, D, V);
    if (c.scale_emb_or_prj == "prj" && c.trg_emb_prj_weight_sharing) {
        const float s = static_cast<float>(std::pow(double(D), -0.5));
        be.scale(ld, ld, logits.size(), s);
        tr.saved[logits_name + ".scale"] = Tensor({1}, {s});
    }
    be.softmax_forward(st.out(probs), st.in(logits), B * T, V);
    const Axis aT = ax(AxisKind::TgtToken, "trg_len"), aV = ax(AxisKind::Vocab, "n_trg_vocab");
    tr.add(logits_name, Node{Role::Logits, Op::Linear, prj, {x, wp}}, {aB, aT, aV}, std::move(logits));
    tr.add(names::entry(prj, "probs"), Node{Role::Probs, Op::Softmax, prj, {logits_name}}, {aB, aT, aV}, std::move(probs));
}

}  // namespace stepformer::detail
