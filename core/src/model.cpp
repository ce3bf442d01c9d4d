// The forward pass, block by block, each intermediate recorded under its contract name.
// Shapes in comments: B batch, S src_len, T tgt_len, L either, H heads, D d_model.
#include "stepformer/model.h"

#include <cmath>
#include <stdexcept>

#include "model_internal.h"

namespace stepformer {

Batch make_batch(const Config& c, const std::vector<std::string>& src, const std::vector<std::string>& tgt,
                 const std::vector<std::string>& out) {
    if (src.empty()) throw ConfigError("the batch is empty: give at least one source sentence");
    if (src.size() != tgt.size())
        throw ConfigError("the batch has " + std::to_string(src.size()) + " source sentences but " +
                          std::to_string(tgt.size()) + " target sentences");
    if (!out.empty() && out.size() != src.size())
        throw ConfigError("the batch has " + std::to_string(out.size()) + " expected outputs for " +
                          std::to_string(src.size()) + " sentences");
    Batch b;
    b.B = static_cast<int>(src.size());
    b.S = c.src_len;
    b.T = c.tgt_len;
    for (size_t i = 0; i < src.size(); ++i) {
        auto s = encode_sentence(src[i], c.src_vocab, c.src_len, "source");
        auto t = encode_sentence(tgt[i], c.tgt_vocab, c.tgt_len, "target");
        b.src.insert(b.src.end(), s.begin(), s.end());
        b.tgt.insert(b.tgt.end(), t.begin(), t.end());
        if (!out.empty()) {
            auto o = encode_sentence(out[i], c.tgt_vocab, c.tgt_len, "expected output");
            b.out.insert(b.out.end(), o.begin(), o.end());
        }
    }
    return b;
}

Tensor positional_table(int L, int D) {
    Tensor pe({L, D});  // (L, D)
    const float k = -std::log(10000.0f) / static_cast<float>(D);
    for (int i = 0; 2 * i < D; ++i) {
        const float div_term = std::exp(static_cast<float>(2 * i) * k);
        for (int pos = 0; pos < L; ++pos) {
            const float angle = static_cast<float>(pos) * div_term;
            pe.data[size_t(pos) * D + 2 * i] = std::sin(angle);
            if (2 * i + 1 < D) pe.data[size_t(pos) * D + 2 * i + 1] = std::cos(angle);
        }
    }
    return pe;
}

Transformer::Transformer(Config config, ParamSet params, Backend* backend)
    : config_(std::move(config)), params_(std::move(params)), backend_(backend ? backend : &default_backend()) {
    config_.validate();
    const auto specs = param_specs(config_);
    if (params_.size() != specs.size())
        throw WeightsError("parameter set has " + std::to_string(params_.size()) + " tensors, the config needs " +
                           std::to_string(specs.size()));
    for (size_t i = 0; i < specs.size(); ++i)
        if (params_.name(i) != specs[i].name || params_[i].shape != specs[i].shape)
            throw WeightsError("parameter " + std::to_string(i) + " is '" + params_.name(i) + "' " +
                               shape_to_string(params_[i].shape) + ", expected '" + specs[i].name + "' " +
                               shape_to_string(specs[i].shape));
}

namespace detail {

Axis ax(AxisKind k, const char* name) { return Axis{k, name}; }

// pad mask (B, Lq, Lk): key position is the pad id 0 -- get_attn_pad_mask
Tensor pad_mask(const std::vector<int>& seq_k, int B, int Lq, int Lk) {
    Tensor m({B, Lq, Lk});
    for (int b = 0; b < B; ++b)
        for (int q = 0; q < Lq; ++q)
            for (int k = 0; k < Lk; ++k) m.data[(size_t(b) * Lq + q) * Lk + k] = seq_k[size_t(b) * Lk + k] == 0 ? 1.0f : 0.0f;
    return m;
}

// subsequence mask (B, T, T): 1 above the diagonal -- get_attn_subsequence_mask
Tensor subsequence_mask(int B, int T) {
    Tensor m({B, T, T});
    for (int b = 0; b < B; ++b)
        for (int q = 0; q < T; ++q)
            for (int k = q + 1; k < T; ++k) m.data[(size_t(b) * T + q) * T + k] = 1.0f;
    return m;
}

std::string attention_out(const std::string& prefix) { return prefix + ".out"; }

// One MultiHeadAttention: Q from xq (B, Lq, D), K and V from xkv (B, Lk, D).
void attention_forward(const ModelCtx& m, Trace& tr, const std::string& P, const Tensor& xq, const Tensor& xkv,
                       const Tensor& mask, AxisKind qk, AxisKind kk) {
    Backend& be = m.be;
    const Config& c = m.c;
    const int B = static_cast<int>(xq.dim(0)), Lq = static_cast<int>(xq.dim(1)), Lk = static_cast<int>(xkv.dim(1));
    const int D = c.d_model, H = c.n_heads, dk = c.d_k, dv = c.d_v;
    const Axis aB = ax(AxisKind::Batch, "batch_size"), aH = ax(AxisKind::Head, "n_heads"),
               aQ = ax(qk, "len_q"), aK = ax(kk, "len_k");

    Tensor tmp_q({B, Lq, H * dk}), tmp_k({B, Lk, H * dk}), tmp_v({B, Lk, H * dv});
    be.linear_forward(tmp_q.ptr(), xq.ptr(), m.w(P + ".W_Q.weight"), B * Lq, D, H * dk);
    be.linear_forward(tmp_k.ptr(), xkv.ptr(), m.w(P + ".W_K.weight"), B * Lk, D, H * dk);
    be.linear_forward(tmp_v.ptr(), xkv.ptr(), m.w(P + ".W_V.weight"), B * Lk, D, H * dv);
    Tensor Q({B, H, Lq, dk}), K({B, H, Lk, dk}), V({B, H, Lk, dv});
    be.split_heads(Q.ptr(), tmp_q.ptr(), B, Lq, H, dk);
    be.split_heads(K.ptr(), tmp_k.ptr(), B, Lk, H, dk);
    be.split_heads(V.ptr(), tmp_v.ptr(), B, Lk, H, dv);

    Tensor scores({B, H, Lq, Lk});
    be.attn_scores_forward(scores.ptr(), Q.ptr(), K.ptr(), B * H, Lq, Lk, dk, 1.0f / std::sqrt(static_cast<float>(dk)));
    Tensor masked({B, H, Lq, Lk});
    be.mask_fill_forward(masked.ptr(), scores.ptr(), mask.ptr(), B, H, Lq, Lk, -1e9f);
    Tensor attn({B, H, Lq, Lk});
    be.softmax_forward(attn.ptr(), masked.ptr(), B * H * Lq, Lk);
    Tensor context({B, H, Lq, dv});
    be.attn_context_forward(context.ptr(), attn.ptr(), V.ptr(), B * H, Lq, Lk, dv);

    Tensor merged({B, Lq, H * dv});  // context.transpose(1, 2).reshape(B, Lq, H*dv)
    be.merge_heads(merged.ptr(), context.ptr(), B, Lq, H, dv);
    Tensor fc_out({B, Lq, D});
    be.linear_forward(fc_out.ptr(), merged.ptr(), m.w(P + ".fc.weight"), B * Lq, H * dv, D);
    Tensor residual({B, Lq, D});
    be.add_forward(residual.ptr(), fc_out.ptr(), xq.ptr(), residual.size());
    Tensor out({B, Lq, D}), mean({B * Lq}), rstd({B * Lq});
    be.layernorm_forward(out.ptr(), mean.ptr(), rstd.ptr(), residual.ptr(), m.norm_w(P, "weight"),
                         m.norm_w(P, "bias"), B * Lq, D, static_cast<float>(c.layer_norm_eps));

    const Axis aF = ax(AxisKind::Feature, "d_k"), aV = ax(AxisKind::Feature, "d_v"),
               aD = ax(AxisKind::Feature, "d_model");
    tr.add(P + ".Q", OpKind::Q, {aB, aH, aQ, aF}, std::move(Q));
    tr.add(P + ".K", OpKind::K, {aB, aH, aK, aF}, std::move(K));
    tr.add(P + ".V", OpKind::V, {aB, aH, aK, aV}, std::move(V));
    tr.add(P + ".scores", OpKind::Scores, {aB, aH, aQ, aK}, std::move(scores));
    tr.add(P + ".masked_scores", OpKind::MaskedScores, {aB, aH, aQ, aK}, std::move(masked));
    tr.add(P + ".attn", OpKind::Softmax, {aB, aH, aQ, aK}, std::move(attn));
    tr.add(P + ".context", OpKind::Context, {aB, aH, aQ, aV}, std::move(context));
    tr.add(P + ".fc_out", OpKind::OutProjection, {aB, aQ, aD}, std::move(fc_out));
    tr.add(P + ".residual", OpKind::Residual, {aB, aQ, aD}, std::move(residual));
    tr.add(P + ".out", OpKind::LayerNorm, {aB, aQ, aD}, std::move(out));
    tr.saved[P + ".merged"] = std::move(merged);
    tr.saved[P + ".ln_mean"] = std::move(mean);
    tr.saved[P + ".ln_rstd"] = std::move(rstd);
}

// PoswiseFeedForwardNet: LayerNorm(fc2(relu(fc0(x))) + x), x (B, L, D).
void ffn_forward(const ModelCtx& m, Trace& tr, const std::string& F, const Tensor& x, AxisKind tk) {
    Backend& be = m.be;
    const Config& c = m.c;
    const int B = static_cast<int>(x.dim(0)), L = static_cast<int>(x.dim(1)), D = c.d_model, Dff = c.d_ff;
    Tensor hidden({B, L, Dff}), relu({B, L, Dff}), fc_out({B, L, D}), residual({B, L, D}), out({B, L, D});
    Tensor mean({B * L}), rstd({B * L});
    be.linear_forward(hidden.ptr(), x.ptr(), m.w(F + ".fc.0.weight"), B * L, D, Dff);
    be.relu_forward(relu.ptr(), hidden.ptr(), relu.size());
    be.linear_forward(fc_out.ptr(), relu.ptr(), m.w(F + ".fc.2.weight"), B * L, Dff, D);
    be.add_forward(residual.ptr(), fc_out.ptr(), x.ptr(), residual.size());
    be.layernorm_forward(out.ptr(), mean.ptr(), rstd.ptr(), residual.ptr(), m.norm_w(F, "weight"),
                         m.norm_w(F, "bias"), B * L, D, static_cast<float>(c.layer_norm_eps));
    const Axis aB = ax(AxisKind::Batch, "batch_size"), aL = ax(tk, "seq_len"), aD = ax(AxisKind::Feature, "d_model"),
               aF = ax(AxisKind::Feature, "d_ff");
    tr.add(F + ".hidden", OpKind::FfnHidden, {aB, aL, aF}, std::move(hidden));
    tr.add(F + ".relu", OpKind::Relu, {aB, aL, aF}, std::move(relu));
    tr.add(F + ".fc_out", OpKind::FfnOut, {aB, aL, aD}, std::move(fc_out));
    tr.add(F + ".residual", OpKind::Residual, {aB, aL, aD}, std::move(residual));
    tr.add(F + ".out", OpKind::LayerNorm, {aB, aL, aD}, std::move(out));
    tr.saved[F + ".ln_mean"] = std::move(mean);
    tr.saved[F + ".ln_rstd"] = std::move(rstd);
}

// Embedding + positional encoding (+ dropout in training) for `prefix` = encoder / decoder.
void embed_forward(const ModelCtx& m, Trace& tr, const std::string& prefix, const std::string& table,
                   const std::vector<int>& ids, int B, int L, AxisKind tk, const ForwardOptions& opt) {
    Backend& be = m.be;
    const int D = m.c.d_model;
    const std::string emb = prefix == "encoder" ? "src_emb" : "tgt_emb";
    Tensor e({B, L, D});
    be.embedding_forward(e.ptr(), ids.data(), m.w(table), B * L, D);
    Tensor pe = positional_table(L, D);
    Tensor out({B, L, D});
    const bool drop = opt.train && m.c.dropout > 0.0;
    Tensor keep;
    if (drop) {
        if (!opt.rng) throw std::logic_error("forward: dropout in training needs a random generator");
        keep = Tensor({B, L, D});
        const float p = static_cast<float>(m.c.dropout), scale = 1.0f / (1.0f - p);
        std::uniform_real_distribution<float> u(0.0f, 1.0f);
        for (float& k : keep.data) k = u(*opt.rng) < p ? 0.0f : scale;
    }
    be.positional_forward(out.ptr(), e.ptr(), pe.ptr(), drop ? keep.ptr() : nullptr, B, L, D);
    const Axis aB = ax(AxisKind::Batch, "batch_size"), aL = ax(tk, prefix == "encoder" ? "src_len" : "tgt_len"),
               aD = ax(AxisKind::Feature, "d_model");
    tr.add(prefix + "." + emb + ".out", OpKind::Embedding, {aB, aL, aD}, std::move(e));
    tr.add(prefix + ".pos_emb.pe", OpKind::PositionalTable, {ax(AxisKind::Position, "position"), aD}, std::move(pe));
    tr.add(prefix + ".pos_emb.out", OpKind::PositionalAdd, {aB, aL, aD}, std::move(out));
    if (drop) tr.saved[prefix + ".dropout_keep"] = std::move(keep);
}

}  // namespace detail

void Transformer::forward(const Batch& batch, Trace& tr, const ForwardOptions& opt) const {
    using namespace detail;
    const Config& c = config_;
    const int B = batch.B, S = batch.S, T = batch.T;
    if (B <= 0 || S <= 0 || T <= 0 || batch.src.size() != size_t(B) * S || batch.tgt.size() != size_t(B) * T)
        throw std::invalid_argument("forward: malformed batch");
    for (int id : batch.src)
        if (id < 0 || id >= c.src_vocab_size()) throw std::invalid_argument("forward: source id out of the vocabulary");
    for (int id : batch.tgt)
        if (id < 0 || id >= c.tgt_vocab_size()) throw std::invalid_argument("forward: target id out of the vocabulary");

    tr.clear();
    for (int b = 0; b < B; ++b) {
        tr.src_tokens.emplace_back();
        tr.tgt_tokens.emplace_back();
        for (int s = 0; s < S; ++s) tr.src_tokens.back().push_back(c.src_vocab[size_t(batch.src[size_t(b) * S + s])]);
        for (int t = 0; t < T; ++t) tr.tgt_tokens.back().push_back(c.tgt_vocab[size_t(batch.tgt[size_t(b) * T + t])]);
    }
    ModelCtx m{c, params_, *backend_};
    const Axis aB = ax(AxisKind::Batch, "batch_size");
    const Axis aSq = ax(AxisKind::SrcToken, "len_q"), aSk = ax(AxisKind::SrcToken, "len_k");
    const Axis aTq = ax(AxisKind::TgtToken, "len_q"), aTk = ax(AxisKind::TgtToken, "len_k");

    // Encoder
    embed_forward(m, tr, "encoder", "encoder.src_emb.weight", batch.src, B, S, AxisKind::SrcToken, opt);
    tr.add("encoder.self_attn_mask", OpKind::PadMask, {aB, aSq, aSk}, pad_mask(batch.src, B, S, S), true);
    std::string x = "encoder.pos_emb.out";
    for (int i = 0; i < c.n_layers; ++i) {
        const std::string L = "encoder.layers." + std::to_string(i);
        attention_forward(m, tr, L + ".enc_self_attn", tr.at(x).value, tr.at(x).value, tr.at("encoder.self_attn_mask").value,
                          AxisKind::SrcToken, AxisKind::SrcToken);
        ffn_forward(m, tr, L + ".pos_ffn", tr.at(L + ".enc_self_attn.out").value, AxisKind::SrcToken);
        x = L + ".pos_ffn.out";
    }
    const std::string enc_out = x;

    // Decoder
    embed_forward(m, tr, "decoder", "decoder.tgt_emb.weight", batch.tgt, B, T, AxisKind::TgtToken, opt);
    Tensor pad = pad_mask(batch.tgt, B, T, T);
    Tensor sub = subsequence_mask(B, T);
    Tensor both({B, T, T});
    for (size_t i = 0; i < both.data.size(); ++i) both.data[i] = (pad.data[i] + sub.data[i]) > 0.0f ? 1.0f : 0.0f;
    tr.add("decoder.self_attn_pad_mask", OpKind::PadMask, {aB, aTq, aTk}, std::move(pad), true);
    tr.add("decoder.self_attn_subsequence_mask", OpKind::SubsequenceMask, {aB, aTq, aTk}, std::move(sub), true);
    tr.add("decoder.self_attn_mask", OpKind::CombinedMask, {aB, aTq, aTk}, std::move(both), true);
    tr.add("decoder.enc_attn_mask", OpKind::PadMask, {aB, aTq, aSk}, pad_mask(batch.src, B, T, S), true);
    x = "decoder.pos_emb.out";
    for (int i = 0; i < c.n_layers; ++i) {
        const std::string L = "decoder.layers." + std::to_string(i);
        attention_forward(m, tr, L + ".dec_self_attn", tr.at(x).value, tr.at(x).value,
                          tr.at("decoder.self_attn_mask").value, AxisKind::TgtToken, AxisKind::TgtToken);
        attention_forward(m, tr, L + ".dec_enc_attn", tr.at(L + ".dec_self_attn.out").value, tr.at(enc_out).value,
                          tr.at("decoder.enc_attn_mask").value, AxisKind::TgtToken, AxisKind::SrcToken);
        ffn_forward(m, tr, L + ".pos_ffn", tr.at(L + ".dec_enc_attn.out").value, AxisKind::TgtToken);
        x = L + ".pos_ffn.out";
    }

    // Projection
    const int V = c.tgt_vocab_size();
    Tensor logits({B, T, V}), probs({B, T, V});
    backend_->linear_forward(logits.ptr(), tr.at(x).value.ptr(), m.w("projection.weight"), B * T, c.d_model, V);
    backend_->softmax_forward(probs.ptr(), logits.ptr(), B * T, V);
    const Axis aT = ax(AxisKind::TgtToken, "tgt_len"), aV = ax(AxisKind::Vocab, "tgt_vocab_size");
    tr.add("projection.logits", OpKind::Logits, {aB, aT, aV}, std::move(logits));
    tr.add("projection.probs", OpKind::Probs, {aB, aT, aV}, std::move(probs));
}

float Transformer::loss(const Batch& batch, Trace& tr) const {
    if (batch.out.size() != size_t(batch.B) * batch.T)
        throw std::invalid_argument("loss: the batch has no expected outputs (dec_output)");
    const int V = config_.tgt_vocab_size(), N = batch.B * batch.T;
    for (int id : batch.out)
        if (id < 0 || id >= V) throw std::invalid_argument("loss: target id out of the vocabulary");
    Tensor per_token({batch.B, batch.T});
    int counted = 0;
    const float mean = backend_->cross_entropy_forward(per_token.ptr(), tr.at("projection.probs").value.ptr(),
                                                       batch.out.data(), N, V, 0, &counted);
    const Axis aB = detail::ax(AxisKind::Batch, "batch_size"), aT = detail::ax(AxisKind::TgtToken, "tgt_len");
    tr.add("loss.per_token", OpKind::LossPerToken, {aB, aT}, std::move(per_token));
    tr.add("loss", OpKind::Loss, {}, Tensor(Shape{}, std::vector<float>{mean}));
    tr.saved["loss.counted"] = Tensor(Shape{}, std::vector<float>{static_cast<float>(counted)});
    return mean;
}

}  // namespace stepformer
