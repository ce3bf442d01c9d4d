// The backward pass, block by block in reverse. Each intermediate's gradient is accumulated in
// a pending map until every consumer has contributed, then it is recorded as grad.<name>.
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "backward_internal.h"
#include "stepformer/trace_graph.h"
#include "torch_internal.h"
#include "stepformer/trace_names.h"

namespace stepformer {
namespace {

using detail::Ctx;
using detail::GradState;

// LayerNorm(residual) backward: from grad(out) to grad(residual) and dgamma/dbeta.
Tensor layernorm_backward(Ctx& x, const Block& blk, int rows) {
    const Trace& tr = x.gs.tr;
    const auto P = [&](std::string_view leaf) { return names::entry(blk, leaf); };
    const std::string gamma = names::param(blk, "layer_norm.weight"), beta = names::param(blk, "layer_norm.bias");
    Tensor dres(tr.at(P("residual")).value.shape);
    const bool learned = x.c.learn_layer_norm;  // else gamma = 1, beta = 0: nothing to differentiate
    x.be.layernorm_backward(x.st.out(dres), learned ? x.dw(gamma) : nullptr, learned ? x.dw(beta) : nullptr,
                            x.gs.gd(P("out")), x.in(P("residual")), x.saved(P("ln_mean")), x.saved(P("ln_rstd")),
                            learned ? x.w(gamma) : nullptr, rows, x.c.d_model);
    if (learned) {
        x.ready(gamma);
        x.ready(beta);
    }
    return dres;
}

// Backward of one MultiHeadAttention block. Its query input xq, key/value input xkv (the same
// entry for self-attention) and mask are read from the graph. Accumulates into g(xq), g(xkv).
void attention_backward(Ctx& x, const Block& blk) {
    Trace& tr = x.gs.tr;
    const auto P = [&](std::string_view leaf) { return names::entry(blk, leaf); };
    const std::string xq = tr.at(P("Q")).inputs.at(0), xkv = tr.at(P("K")).inputs.at(0),
                      mask = tr.at(P("masked_scores")).inputs.at(1);
    Backend& be = x.be;
    Staging& st = x.st;
    const Tensor& Xq = tr.at(xq).value;    // (B, Lq, D)
    const Tensor& Xkv = tr.at(xkv).value;  // (B, Lk, D)
    const int B = static_cast<int>(Xq.dim(0)), Lq = static_cast<int>(Xq.dim(1)), Lk = static_cast<int>(Xkv.dim(1));
    const int D = x.c.d_model, H = x.c.n_heads, dk = x.c.d_k, dv = x.c.d_v;
    const float scale = 1.0f / std::sqrt(static_cast<float>(dk));

    Tensor dres = layernorm_backward(x, blk, B * Lq);  // (B, Lq, D)
    x.gs.finish(P("out"));
    // residual = fc_out + xq: both receive dres
    {
        float* dxq = x.gs.gd(xq);
        be.add_forward(dxq, dxq, st.in(dres), dres.size());
    }
    Tensor dfc(dres.shape);
    be.copy(st.out(dfc), st.in(dres), dres.size());
    x.gs.put_and_finish(P("residual"), std::move(dres));

    const Staging::Temp dmerged = st.temp(int64_t(B) * Lq * H * dv);  // (B, Lq, H*dv)
    x.linear(names::param(blk, "fc.weight"), dmerged.get(), st.in(dfc), x.saved(P("merged")), B * Lq, H * dv, D, false);
    x.gs.put_and_finish(P("fc_out"), std::move(dfc));
    Tensor dcontext({B, H, Lq, dv});
    be.split_heads(st.out(dcontext), dmerged.get(), B, Lq, H, dv);

    Tensor dattn({B, H, Lq, Lk}), dV({B, H, Lk, dv});
    be.attn_context_backward(st.out(dattn), st.out(dV), st.in(dcontext), x.in(P("attn")), x.in(P("V")), B * H, Lq, Lk,
                             dv);
    x.gs.put_and_finish(P("context"), std::move(dcontext));
    Tensor dmasked({B, H, Lq, Lk});
    be.softmax_backward(st.out(dmasked), st.in(dattn), x.in(P("attn")), B * H * Lq, Lk);
    x.gs.put_and_finish(P("attn"), std::move(dattn));
    Tensor dscores({B, H, Lq, Lk});
    be.mask_fill_backward(st.out(dscores), st.in(dmasked), x.in(mask), B, H, Lq, Lk);
    x.gs.put_and_finish(P("masked_scores"), std::move(dmasked));
    Tensor dQ({B, H, Lq, dk}), dK({B, H, Lk, dk});
    be.attn_scores_backward(st.out(dQ), st.out(dK), st.in(dscores), x.in(P("Q")), x.in(P("K")), B * H, Lq, Lk, dk,
                            scale);
    x.gs.put_and_finish(P("scores"), std::move(dscores));

    // Back through the head split and the three projections.
    const Staging::Temp tmp = st.temp(int64_t(B) * std::max(Lq, Lk) * H * std::max(dk, dv));  // (B, L, H*d)
    float* dtmp = tmp.get();
    be.merge_heads(dtmp, st.in(dV), B, Lk, H, dv);
    x.linear(names::param(blk, "W_V.weight"), x.gs.gd(xkv), dtmp, st.in(Xkv), B * Lk, D, H * dv, true);
    x.gs.put_and_finish(P("V"), std::move(dV));
    be.merge_heads(dtmp, st.in(dK), B, Lk, H, dk);
    x.linear(names::param(blk, "W_K.weight"), x.gs.gd(xkv), dtmp, st.in(Xkv), B * Lk, D, H * dk, true);
    x.gs.put_and_finish(P("K"), std::move(dK));
    be.merge_heads(dtmp, st.in(dQ), B, Lq, H, dk);
    x.linear(names::param(blk, "W_Q.weight"), x.gs.gd(xq), dtmp, st.in(Xq), B * Lq, D, H * dk, true);
    x.gs.put_and_finish(P("Q"), std::move(dQ));
}

void ffn_backward(Ctx& x, const Block& blk) {
    Trace& tr = x.gs.tr;
    const auto F = [&](std::string_view leaf) { return names::entry(blk, leaf); };
    const std::string in = tr.at(F("hidden")).inputs.at(0);
    Backend& be = x.be;
    Staging& st = x.st;
    const Tensor& X = tr.at(in).value;  // (B, L, D)
    const int N = static_cast<int>(X.dim(0) * X.dim(1)), D = x.c.d_model, Dff = x.c.d_ff;

    Tensor dres = layernorm_backward(x, blk, N);
    x.gs.finish(F("out"));
    {
        float* dx = x.gs.gd(in);
        be.add_forward(dx, dx, st.in(dres), dres.size());
    }
    Tensor dfc(dres.shape);
    be.copy(st.out(dfc), st.in(dres), dres.size());
    x.gs.put_and_finish(F("residual"), std::move(dres));
    Tensor drelu(tr.at(F("relu")).value.shape);  // (B, L, d_ff)
    x.linear(names::param(blk, "fc.2.weight"), st.out(drelu), st.in(dfc), x.in(F("relu")), N, Dff, D, false);
    x.gs.put_and_finish(F("fc_out"), std::move(dfc));
    Tensor dhidden(drelu.shape);
    be.relu_backward(st.out(dhidden), st.in(drelu), x.in(F("relu")), dhidden.size());
    x.gs.put_and_finish(F("relu"), std::move(drelu));
    x.linear(names::param(blk, "fc.0.weight"), x.gs.gd(in), st.in(dhidden), st.in(X), N, D, Dff, true);
    x.gs.put_and_finish(F("hidden"), std::move(dhidden));
}

// From grad(pos_emb.out) to the embedding table; the PE table gets no gradient.
void embed_backward(Ctx& x, Stack stack, const std::vector<int>& ids) {
    Trace& tr = x.gs.tr;
    const std::string in = names::stack_input(stack), table = names::embedding_table(stack);
    Staging& st = x.st;
    Tensor demb(x.gs.g(in).shape);
    x.be.copy(st.out(demb), x.gs.gd(in), demb.size());
    x.gs.finish(in);
    if (auto it = tr.saved.find(names::entry(Block{stack, BlockKind::Input, -1}, "dropout_keep")); it != tr.saved.end()) {
        float* d = st.inout(demb);
        x.be.mul_forward(d, d, st.in(it->second), demb.size());
    }
    const int N = static_cast<int>(demb.dim(0) * demb.dim(1));
    const int V = static_cast<int>(x.grads.at(table).dim(0));
    x.be.embedding_backward(x.dw(table), st.in(demb), st.in(ids), N, V, x.c.d_model);
    x.ready(table);
    x.gs.put_and_finish(names::embedding_out(stack), std::move(demb));
}

}  // namespace

void Transformer::backward(const Batch& batch, Trace& tr, ParamSet& grads, bool trace_grads,
                           ParamUpdater* updater) const {
    const Config& c = config_;
    if (c.layers()) throw std::logic_error("backward: the layer lab has no loss; use backward_from_output()");
    if (!tr.contains("loss")) throw std::logic_error("backward: call loss() after forward() first");
    // Reused only when it is laid out as the parameters are, name by name and shape by shape: a
    // narrower model of the same depth has as many parameters, and its gradients would be written
    // past the end of the old buffers.
    if (!grads.same_layout(params())) grads = ParamSet(param_specs(c));
    // Linear weights are each used once, so their kernels overwrite dW; only the accumulated
    // ones (ParamSpec::grad_accumulates: embedding tables, LayerNorm gamma/beta) need zeroing.
    Staging& st = tr.staging(*backend_);
    st.set_parent(kept_);  // the forward's did already, unless the trace is a copy
    for (size_t i = 0; i < grads.size(); ++i)
        if (grad_accumulates_[i]) backend_->fill(st.out(grads[i]), grads[i].size(), 0.0f);
    GradState gs{tr, st, trace_grads, {}};
    Ctx x{c, params(), grads, *backend_, st, gs, updater, updater ? nullptr : resident_weights()};

    const int B = batch.B, T = batch.T, V = c.tgt_vocab_size();
    if (c.torch() || c.aiayn()) {
        // The loss straight to the logits (CrossEntropyLoss(ignore_index=pad), or aiayn's
        // label-smoothed sum); then the graph, backwards.
        const TraceEntry* logits = graph::output_logits(tr);
        Tensor& dlogits = gs.pending.emplace(logits->name, Tensor(logits->value.shape)).first->second;
        const float* probs = x.in(graph::output_probs(tr)->name);
        if (c.aiayn())
            backend_->smoothed_cross_entropy_backward(st.out(dlogits), probs, st.in(batch.out), B * T, V, c.tgt_id(c.pad),
                                                      kLabelSmoothing, 1.0f);
        else
            backend_->cross_entropy_backward(st.out(dlogits), probs, st.in(batch.out), B * T, V, c.tgt_id(c.pad));
        detail::graph_backward(x, batch);
        st.finish();
        return;
    }
    const Block proj{Stack::None, BlockKind::Projection, -1};
    const std::string logits = names::entry(proj, "logits"), probs = names::entry(proj, "probs");
    // CrossEntropyLoss(ignore_index=0) straight to the logits.
    Tensor dlogits({B, T, V});
    backend_->cross_entropy_backward(st.out(dlogits), x.in(probs), st.in(batch.out), B * T, V, 0);
    const std::string dec_out = tr.at(logits).inputs.at(0);
    x.linear(names::param(proj, "weight"), gs.gd(dec_out), st.in(dlogits), x.in(dec_out), B * T, c.d_model, V, true);
    gs.put_and_finish(logits, std::move(dlogits));

    for (int i = c.n_layers - 1; i >= 0; --i) {
        ffn_backward(x, Block{Stack::Decoder, BlockKind::FeedForward, i});
        attention_backward(x, Block{Stack::Decoder, BlockKind::CrossAttention, i});
        attention_backward(x, Block{Stack::Decoder, BlockKind::MaskedSelfAttention, i});
    }
    embed_backward(x, Stack::Decoder, batch.tgt);

    for (int i = c.n_layers - 1; i >= 0; --i) {
        ffn_backward(x, Block{Stack::Encoder, BlockKind::FeedForward, i});
        attention_backward(x, Block{Stack::Encoder, BlockKind::SelfAttention, i});
    }
    embed_backward(x, Stack::Encoder, batch.src);
    st.finish();  // the backward pass's one synchronisation: gradients and the updater's scalars are in
}

}  // namespace stepformer
