// The forward pass, block by block, each intermediate recorded under its contract name.
// Shapes in comments: B batch, S src_len, T tgt_len, L either, H heads, D d_model.
#include "stepformer/model.h"

#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "model_internal.h"
#include "stepformer/trace_graph.h"
#include "torch_internal.h"
#include "aiayn_internal.h"
#include "stepformer/trace_names.h"

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
    default_backend().positional_table(pe.ptr(), L, D);
    return pe;
}

Tensor positional_table_float64(int L, int D) {
    Tensor pe({L, D});  // (L, D)
    for (int pos = 0; pos < L; ++pos)
        for (int j = 0; j < D; ++j) {
            const double angle = double(pos) / std::pow(10000.0, 2.0 * double(j / 2) / double(D));
            pe.data[size_t(pos) * D + j] = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return pe;
}

// The positional tables a model has made, one per length: the table depends on (L, d_model) only,
// so a forward pass copies it instead of computing L × d_model sines and cosines again. Shared by
// copies of the model (they have the same d_model) and guarded: forward() is const and may run
// on several threads.
struct Transformer::PeCache {
    std::mutex mu;
    std::map<int, Tensor> tables;  // by length; (L, d_model) each
};

Tensor Transformer::pe_table(int L) const {
    const std::lock_guard lock(pe_cache_->mu);
    auto it = pe_cache_->tables.find(L);
    if (it == pe_cache_->tables.end()) {
        Tensor pe({L, config_.d_model});  // (L, D)
        if (config_.aiayn()) {
            pe = positional_table_float64(L, config_.d_model);  // its table is made in float64
        } else {
            Staging st(*backend_);
            backend_->positional_table(st.out(pe), L, config_.d_model);
            st.finish();
        }
        it = pe_cache_->tables.emplace(L, std::move(pe)).first;
    }
    return it->second;
}

struct Transformer::ResidentWeights {
    std::mutex mu;
    std::unique_ptr<Staging> staging;
    std::unordered_map<const float*, const float*> dev;  // host storage -> the backend's copy
};

const std::unordered_map<const float*, const float*>* Transformer::resident_weights() const {
    if (!shared_ || backend_->host_memory()) return nullptr;
    const std::lock_guard lock(resident_->mu);
    if (!resident_->staging) {
        auto st = std::make_unique<Staging>(*backend_);
        for (size_t i = 0; i < shared_->size(); ++i) resident_->dev[(*shared_)[i].ptr()] = st->in((*shared_)[i]);
        st->finish();  // once per model: the uploads are in place for every pass
        resident_->staging = std::move(st);
    }
    return &resident_->dev;
}

Transformer::Transformer(Config config, ParamSet params, Backend* backend)
    : config_(std::move(config)), params_(std::move(params)), backend_(backend ? backend : &default_backend()),
      pe_cache_(std::make_shared<PeCache>()), resident_(std::make_shared<ResidentWeights>()) {
    check_params();
}

Transformer::Transformer(Config config, std::shared_ptr<const ParamSet> params, Backend* backend)
    : config_(std::move(config)), shared_(std::move(params)), backend_(backend ? backend : &default_backend()),
      pe_cache_(std::make_shared<PeCache>()), resident_(std::make_shared<ResidentWeights>()) {
    if (!shared_) throw WeightsError("no parameters");
    check_params();
}

ParamSet& Transformer::params() {
    if (shared_) {
        params_ = *shared_;
        shared_.reset();
        resident_ = std::make_shared<ResidentWeights>();  // the copies were of the shared ones
    }
    return params_;
}

void Transformer::check_params() {
    config_.validate();
    const ParamSet& p = std::as_const(*this).params();  // the const one: shared weights stay shared
    const auto specs = param_specs(config_);
    if (p.size() != specs.size())
        throw WeightsError("parameter set has " + std::to_string(p.size()) + " tensors, the config needs " +
                           std::to_string(specs.size()));
    for (size_t i = 0; i < specs.size(); ++i)
        if (p.name(i) != specs[i].name || p[i].shape != specs[i].shape)
            throw WeightsError("parameter " + std::to_string(i) + " is '" + p.name(i) + "' " +
                               shape_to_string(p[i].shape) + ", expected '" + specs[i].name + "' " +
                               shape_to_string(specs[i].shape));
    grad_accumulates_.clear();
    for (const ParamSpec& s : specs) grad_accumulates_.push_back(s.grad_accumulates);
}

namespace detail {

Axis ax(AxisKind k, const char* name) { return Axis{k, name}; }

const Tensor* DropoutSites::draw(Trace& tr, const std::string& key, int64_t n, double p) {
    if (p < 0.0) p = m.c.dropout;
    if (!opt.train || p <= 0.0) return nullptr;
    Tensor& keep = tr.saved[key + ".dropout_keep"] = Tensor({n});
    const uint64_t offset = opt.step * 4096 + uint64_t(site++);
    m.be.dropout_mask(m.st.out(keep), n, static_cast<float>(p), opt.seed, offset);
    return &keep;
}

// pad mask (B, Lq, Lk): key position is the pad id 0 -- get_attn_pad_mask
Tensor pad_mask(const ModelCtx& m, const std::vector<int>& seq_k, int B, int Lq, int Lk) {
    Tensor mask({B, Lq, Lk});
    m.be.pad_mask(m.st.out(mask), m.st.in(seq_k), B, Lq, Lk, 0);
    return mask;
}

// One MultiHeadAttention block: Q from entry xq (B, Lq, D), K and V from entry xkv (B, Lk, D),
// masked by entry `mask` (B, Lq, Lk).
void attention_forward(const ModelCtx& m, Trace& tr, const Block& blk, const std::string& xq, const std::string& xkv,
                       const std::string& mask, AxisKind qk, AxisKind kk) {
    Backend& be = m.be;
    Staging& st = m.st;
    const Config& c = m.c;
    const Tensor& Xq = tr.at(xq).value;    // (B, Lq, D)
    const Tensor& Xkv = tr.at(xkv).value;  // (B, Lk, D)
    const int B = static_cast<int>(Xq.dim(0)), Lq = static_cast<int>(Xq.dim(1)), Lk = static_cast<int>(Xkv.dim(1));
    const int D = c.d_model, H = c.n_heads, dk = c.d_k, dv = c.d_v;
    const Axis aB = ax(AxisKind::Batch, "batch_size"), aH = ax(AxisKind::Head, "n_heads"),
               aQ = ax(qk, "len_q"), aK = ax(kk, "len_k");
    const auto P = [&](std::string_view leaf) { return names::entry(blk, leaf); };
    const std::string wq = names::param(blk, "W_Q.weight"), wk = names::param(blk, "W_K.weight"),
                      wv = names::param(blk, "W_V.weight"), wfc = names::param(blk, "fc.weight");

    // The projections before the head split: (B, Lq, H*dk), (B, Lk, H*dk), (B, Lk, H*dv)
    const Staging::Temp tmp_q = st.temp(int64_t(B) * Lq * H * dk), tmp_k = st.temp(int64_t(B) * Lk * H * dk),
                        tmp_v = st.temp(int64_t(B) * Lk * H * dv);
    be.linear_forward(tmp_q.get(), st.in(Xq), m.w(wq), B * Lq, D, H * dk);
    be.linear_forward(tmp_k.get(), st.in(Xkv), m.w(wk), B * Lk, D, H * dk);
    be.linear_forward(tmp_v.get(), st.in(Xkv), m.w(wv), B * Lk, D, H * dv);
    Tensor Q({B, H, Lq, dk}), K({B, H, Lk, dk}), V({B, H, Lk, dv});
    be.split_heads(st.out(Q), tmp_q.get(), B, Lq, H, dk);
    be.split_heads(st.out(K), tmp_k.get(), B, Lk, H, dk);
    be.split_heads(st.out(V), tmp_v.get(), B, Lk, H, dv);

    Tensor scores({B, H, Lq, Lk});
    be.attn_scores_forward(st.out(scores), st.in(Q), st.in(K), B * H, Lq, Lk, dk,
                           1.0f / std::sqrt(static_cast<float>(dk)));
    Tensor masked({B, H, Lq, Lk});
    be.mask_fill_forward(st.out(masked), st.in(scores), st.in(tr.at(mask).value), B, H, Lq, Lk, -1e9f);
    Tensor attn({B, H, Lq, Lk});
    be.softmax_forward(st.out(attn), st.in(masked), B * H * Lq, Lk);
    Tensor context({B, H, Lq, dv});
    be.attn_context_forward(st.out(context), st.in(attn), st.in(V), B * H, Lq, Lk, dv);

    Tensor merged({B, Lq, H * dv});  // context.transpose(1, 2).reshape(B, Lq, H*dv)
    be.merge_heads(st.out(merged), st.in(context), B, Lq, H, dv);
    Tensor fc_out({B, Lq, D});
    be.linear_forward(st.out(fc_out), st.in(merged), m.w(wfc), B * Lq, H * dv, D);
    Tensor residual({B, Lq, D});
    be.add_forward(st.out(residual), st.in(fc_out), st.in(Xq), residual.size());
    Tensor out({B, Lq, D}), mean({B * Lq}), rstd({B * Lq});
    be.layernorm_forward(st.out(out), st.out(mean), st.out(rstd), st.in(residual), m.norm_w(blk, "weight"),
                         m.norm_w(blk, "bias"), B * Lq, D, static_cast<float>(c.layer_norm_eps));

    const Axis aF = ax(AxisKind::Feature, "d_k"), aV = ax(AxisKind::Feature, "d_v"),
               aD = ax(AxisKind::Feature, "d_model");
    tr.add(P("Q"), Node{Role::Q, Op::Linear, blk, {xq, wq}}, {aB, aH, aQ, aF}, std::move(Q));
    tr.add(P("K"), Node{Role::K, Op::Linear, blk, {xkv, wk}}, {aB, aH, aK, aF}, std::move(K));
    tr.add(P("V"), Node{Role::V, Op::Linear, blk, {xkv, wv}}, {aB, aH, aK, aV}, std::move(V));
    tr.add(P("scores"), Node{Role::Scores, Op::ScaledMatMul, blk, {P("Q"), P("K")}}, {aB, aH, aQ, aK}, std::move(scores));
    tr.add(P("masked_scores"), Node{Role::MaskedScores, Op::MaskFill, blk, {P("scores"), mask}}, {aB, aH, aQ, aK},
           std::move(masked));
    tr.add(P("attn"), Node{Role::Softmax, Op::Softmax, blk, {P("masked_scores")}}, {aB, aH, aQ, aK}, std::move(attn));
    tr.add(P("context"), Node{Role::Context, Op::MatMul, blk, {P("attn"), P("V")}}, {aB, aH, aQ, aV},
           std::move(context));
    tr.add(P("fc_out"), Node{Role::OutProjection, Op::Linear, blk, {P("context"), wfc}}, {aB, aQ, aD}, std::move(fc_out));
    tr.add(P("residual"), Node{Role::Residual, Op::Add, blk, {P("fc_out"), xq}}, {aB, aQ, aD}, std::move(residual));
    tr.add(P("out"), Node{Role::LayerNorm, Op::LayerNorm, blk, m.norm_inputs(blk, P("residual"))}, {aB, aQ, aD},
           std::move(out));
    tr.saved[P("merged")] = std::move(merged);
    tr.saved[P("ln_mean")] = std::move(mean);
    tr.saved[P("ln_rstd")] = std::move(rstd);
}

// One PoswiseFeedForwardNet block reading entry `in` (B, L, D).
void ffn_forward(const ModelCtx& m, Trace& tr, const Block& blk, const std::string& in, AxisKind tk) {
    Backend& be = m.be;
    Staging& st = m.st;
    const Config& c = m.c;
    const Tensor& X = tr.at(in).value;  // (B, L, D)
    const int B = static_cast<int>(X.dim(0)), L = static_cast<int>(X.dim(1)), D = c.d_model;
    const auto F = [&](std::string_view leaf) { return names::entry(blk, leaf); };
    const std::string w0 = names::param(blk, "fc.0.weight"), w2 = names::param(blk, "fc.2.weight");
    Tensor hidden({B, L, c.d_ff}), relu({B, L, c.d_ff}), fc_out({B, L, D}), residual({B, L, D});
    be.linear_forward(st.out(hidden), st.in(X), m.w(w0), B * L, D, c.d_ff);
    be.relu_forward(st.out(relu), st.in(hidden), relu.size());
    be.linear_forward(st.out(fc_out), st.in(relu), m.w(w2), B * L, c.d_ff, D);
    be.add_forward(st.out(residual), st.in(fc_out), st.in(X), residual.size());
    Tensor out({B, L, D}), mean({B * L}), rstd({B * L});
    be.layernorm_forward(st.out(out), st.out(mean), st.out(rstd), st.in(residual), m.norm_w(blk, "weight"),
                         m.norm_w(blk, "bias"), B * L, D, static_cast<float>(c.layer_norm_eps));
    const Axis aB = ax(AxisKind::Batch, "batch_size"), aL = ax(tk, "seq_len"), aD = ax(AxisKind::Feature, "d_model"),
               aF = ax(AxisKind::Feature, "d_ff");
    tr.add(F("hidden"), Node{Role::FfnHidden, Op::Linear, blk, {in, w0}}, {aB, aL, aF}, std::move(hidden));
    tr.add(F("relu"), Node{Role::Relu, Op::Relu, blk, {F("hidden")}}, {aB, aL, aF}, std::move(relu));
    tr.add(F("fc_out"), Node{Role::FfnOut, Op::Linear, blk, {F("relu"), w2}}, {aB, aL, aD}, std::move(fc_out));
    tr.add(F("residual"), Node{Role::Residual, Op::Add, blk, {F("fc_out"), in}}, {aB, aL, aD}, std::move(residual));
    tr.add(F("out"), Node{Role::LayerNorm, Op::LayerNorm, blk, m.norm_inputs(blk, F("residual"))}, {aB, aL, aD},
           std::move(out));
    tr.saved[F("ln_mean")] = std::move(mean);
    tr.saved[F("ln_rstd")] = std::move(rstd);
}

// Embedding + positional encoding (+ dropout in training) of one stack.
void embed_forward(const ModelCtx& m, Trace& tr, Stack stack, const std::vector<int>& ids, int B, int L, AxisKind tk,
                   const ForwardOptions& opt, const Tensor& pe_table) {
    Backend& be = m.be;
    Staging& st = m.st;
    const int D = m.c.d_model;
    const Block blk{stack, BlockKind::Input, -1};
    const std::string table = names::embedding_table(stack), emb = names::embedding_out(stack),
                      pe_name = names::entry(blk, "pos_emb.pe");
    Tensor e({B, L, D});
    const int V = static_cast<int>(m.p.at(table).dim(0));
    be.embedding_forward(st.out(e), st.in(ids), m.w(table), B * L, V, D);
    Tensor pe = pe_table;  // (L, D)
    Tensor out({B, L, D});
    const bool drop = opt.train && m.c.dropout > 0.0;
    Tensor keep;
    if (drop) {
        keep = Tensor({B, L, D});
        // Two masks per step, one per stack: the stream (seed, 2 * step + stack).
        const uint64_t offset = 2 * opt.step + (stack == Stack::Decoder ? 1 : 0);
        be.dropout_mask(st.out(keep), keep.size(), static_cast<float>(m.c.dropout), opt.seed, offset);
    }
    be.positional_forward(st.out(out), st.in(e), st.in(pe), drop ? st.in(keep) : nullptr, B, L, D);
    const Axis aB = ax(AxisKind::Batch, "batch_size"), aL = ax(tk, stack == Stack::Encoder ? "src_len" : "tgt_len"),
               aD = ax(AxisKind::Feature, "d_model");
    tr.add(emb, Node{Role::Embedding, Op::Embedding, blk, {table}}, {aB, aL, aD}, std::move(e));
    tr.add(pe_name, Node{Role::PositionalTable, Op::PositionalTable, blk, {}}, {ax(AxisKind::Position, "position"), aD},
           std::move(pe));
    tr.add(names::stack_input(stack), Node{Role::PositionalAdd, Op::PositionalAdd, blk, {emb, pe_name}}, {aB, aL, aD},
           std::move(out));
    if (drop) tr.saved[names::entry(blk, "dropout_keep")] = std::move(keep);
}

}  // namespace detail

void Transformer::forward(const Batch& batch, Trace& tr, const ForwardOptions& opt) const {
    using namespace detail;
    const Config& c = config_;
    const int B = batch.B, S = batch.S, T = batch.T;
    if (!c.layers()) {
        if (B <= 0 || S <= 0 || T <= 0 || batch.src.size() != size_t(B) * S || batch.tgt.size() != size_t(B) * T)
            throw std::invalid_argument("forward: malformed batch");
        for (int id : batch.src)
            if (id < 0 || id >= c.src_vocab_size()) throw std::invalid_argument("forward: source id out of the vocabulary");
        for (int id : batch.tgt)
            if (id < 0 || id >= c.tgt_vocab_size()) throw std::invalid_argument("forward: target id out of the vocabulary");
    }

    tr.clear();
    for (int b = 0; b < B; ++b) {
        tr.src_tokens.emplace_back();
        tr.tgt_tokens.emplace_back();
        // The layer lab's inputs are vectors, not tokens: their positions label the axes.
        for (int s = 0; s < S; ++s)
            tr.src_tokens.back().push_back(c.layers() ? std::to_string(s) : c.src_vocab[size_t(batch.src[size_t(b) * S + s])]);
        for (int t = 0; t < T; ++t)
            tr.tgt_tokens.back().push_back(c.layers() ? std::to_string(t) : c.tgt_vocab[size_t(batch.tgt[size_t(b) * T + t])]);
    }
    Staging& st = tr.staging(*backend_);  // after clear(): a fresh one
    st.set_parent(kept_);
    st.set_copy_back(opt.trace_to_host);
    ModelCtx m{c, params(), *backend_, st, resident_weights()};
    if (c.aiayn()) {
        AiaynPass pass{m, opt};
        aiayn_forward(pass, batch, tr, pe_table(S), pe_table(T));
        if (opt.finish) st.finish();
        return;
    }
    if (c.torch()) {
        TorchPass pass{m, opt, TorchNames(c)};
        if (c.layers()) torch_forward_layers(pass, batch, tr);
        else torch_forward_seq2seq(pass, batch, tr, pe_table(S), pe_table(T));
        if (opt.finish) st.finish();
        return;
    }
    const Axis aB = ax(AxisKind::Batch, "batch_size");
    const Axis aSq = ax(AxisKind::SrcToken, "len_q"), aSk = ax(AxisKind::SrcToken, "len_k");
    const Axis aTq = ax(AxisKind::TgtToken, "len_q"), aTk = ax(AxisKind::TgtToken, "len_k");

    // Encoder
    const Block enc_in{Stack::Encoder, BlockKind::Input, -1}, dec_in{Stack::Decoder, BlockKind::Input, -1};
    embed_forward(m, tr, Stack::Encoder, batch.src, B, S, AxisKind::SrcToken, opt, pe_table(S));
    const std::string enc_mask = names::entry(enc_in, "self_attn_mask");
    tr.add(enc_mask, Node{Role::PadMask, Op::TokenMask, enc_in, {}}, {aB, aSq, aSk}, pad_mask(m, batch.src, B, S, S), true);
    std::string x = names::stack_input(Stack::Encoder);
    for (int i = 0; i < c.n_layers; ++i) {
        const Block attn{Stack::Encoder, BlockKind::SelfAttention, i}, ffn{Stack::Encoder, BlockKind::FeedForward, i};
        attention_forward(m, tr, attn, x, x, enc_mask, AxisKind::SrcToken, AxisKind::SrcToken);
        ffn_forward(m, tr, ffn, names::entry(attn, "out"), AxisKind::SrcToken);
        x = names::entry(ffn, "out");
    }
    const std::string enc_out = x;

    // Decoder
    embed_forward(m, tr, Stack::Decoder, batch.tgt, B, T, AxisKind::TgtToken, opt, pe_table(T));
    Tensor pad = pad_mask(m, batch.tgt, B, T, T);  // (B, T, T)
    Tensor sub({B, T, T}), both({B, T, T});
    backend_->subsequence_mask(st.out(sub), B, T);
    backend_->mask_or(st.out(both), st.in(pad), st.in(sub), both.size());
    const std::string pad_name = names::entry(dec_in, "self_attn_pad_mask"),
                      sub_name = names::entry(dec_in, "self_attn_subsequence_mask"),
                      self_mask = names::entry(dec_in, "self_attn_mask"), cross_mask = names::entry(dec_in, "enc_attn_mask");
    tr.add(pad_name, Node{Role::PadMask, Op::TokenMask, dec_in, {}}, {aB, aTq, aTk}, std::move(pad), true);
    tr.add(sub_name, Node{Role::SubsequenceMask, Op::TokenMask, dec_in, {}}, {aB, aTq, aTk}, std::move(sub), true);
    tr.add(self_mask, Node{Role::CombinedMask, Op::MaskOr, dec_in, {pad_name, sub_name}}, {aB, aTq, aTk}, std::move(both),
           true);
    tr.add(cross_mask, Node{Role::PadMask, Op::TokenMask, dec_in, {}}, {aB, aTq, aSk}, pad_mask(m, batch.src, B, T, S), true);
    x = names::stack_input(Stack::Decoder);
    for (int i = 0; i < c.n_layers; ++i) {
        const Block self{Stack::Decoder, BlockKind::MaskedSelfAttention, i},
            cross{Stack::Decoder, BlockKind::CrossAttention, i}, ffn{Stack::Decoder, BlockKind::FeedForward, i};
        attention_forward(m, tr, self, x, x, self_mask, AxisKind::TgtToken, AxisKind::TgtToken);
        attention_forward(m, tr, cross, names::entry(self, "out"), enc_out, cross_mask, AxisKind::TgtToken,
                          AxisKind::SrcToken);
        ffn_forward(m, tr, ffn, names::entry(cross, "out"), AxisKind::TgtToken);
        x = names::entry(ffn, "out");
    }

    // Projection
    const int V = c.tgt_vocab_size();
    const Block proj{Stack::None, BlockKind::Projection, -1};
    const std::string wp = names::param(proj, "weight"), logits_name = names::entry(proj, "logits");
    Tensor logits({B, T, V}), probs({B, T, V});
    backend_->linear_forward(st.out(logits), st.in(tr.at(x).value), m.w(wp), B * T, c.d_model, V);
    backend_->softmax_forward(st.out(probs), st.in(logits), B * T, V);
    const Axis aT = ax(AxisKind::TgtToken, "tgt_len"), aV = ax(AxisKind::Vocab, "tgt_vocab_size");
    tr.add(logits_name, Node{Role::Logits, Op::Linear, proj, {x, wp}}, {aB, aT, aV}, std::move(logits));
    tr.add(names::entry(proj, "probs"), Node{Role::Probs, Op::Softmax, proj, {logits_name}}, {aB, aT, aV},
           std::move(probs));
    if (opt.finish) st.finish();  // the pass's one synchronisation: its tensors are on the host from here
}

float Transformer::loss(const Batch& batch, Trace& tr) const {
    queue_loss(batch, tr);
    tr.staging(*backend_).finish();  // the loss is read here (and, after forward(finish = false), the forward's tensors arrive)
    return tr.at(names::entry(Block{Stack::None, BlockKind::Loss, -1}, "")).value.data[0];
}

void Transformer::queue_loss(const Batch& batch, Trace& tr) const {
    if (batch.out.size() != size_t(batch.B) * batch.T)
        throw std::invalid_argument("loss: the batch has no expected outputs (dec_output)");
    const int V = config_.tgt_vocab_size(), N = batch.B * batch.T;
    for (int id : batch.out)
        if (id < 0 || id >= V) throw std::invalid_argument("loss: target id out of the vocabulary");
    const Block blk{Stack::None, BlockKind::Loss, -1};
    const TraceEntry* probs_entry = graph::output_probs(tr);
    if (!probs_entry) throw std::logic_error("loss: the trace has no probabilities (call forward() first)");
    // attention-is-all-you-need-pytorch trains on cal_loss: label-smoothed, summed over the targets.
    const bool smoothed = config_.aiayn();
    const std::string probs = probs_entry->name, logits = graph::output_logits(tr)->name,
                      per_token_name = names::entry(blk, "per_token");
    const Axis aB = detail::ax(AxisKind::Batch, "batch_size"), aT = detail::ax(AxisKind::TgtToken, "tgt_len");
    // The entries first: the kernel writes into them (the mean at the next synchronisation).
    Tensor& per_token = tr.add(per_token_name, Node{Role::LossPerToken, Op::CrossEntropy, blk, {smoothed ? logits : probs}},
                               {aB, aT}, Tensor({batch.B, batch.T}))
                            .value;
    Tensor& mean = tr.add(names::entry(blk, ""), Node{Role::Loss, smoothed ? Op::Sum : Op::Mean, blk, {per_token_name}}, {},
                          Tensor(Shape{}))
                       .value;
    Tensor& finite = tr.saved[names::entry(blk, "finite")] = Tensor(Shape{1});
    Staging& st = tr.staging(*backend_);
    float* dper_token = st.out(per_token);
    const int pad = config_.tgt_id(config_.pad);
    if (smoothed)
        backend_->smoothed_cross_entropy_forward(dper_token, mean.ptr(), st.in(tr.at(logits).value), st.in(batch.out), N,
                                                 V, pad, kLabelSmoothing);
    else
        backend_->cross_entropy_forward(dper_token, mean.ptr(), nullptr, st.in(tr.at(probs).value), st.in(batch.out), N, V,
                                        pad);
    backend_->all_finite(st.out(finite), dper_token, per_token.size());  // the mean is finite when every loss is
}

}  // namespace stepformer
