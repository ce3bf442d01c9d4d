// The backward pass, block by block in reverse. Each intermediate's gradient is accumulated in
// a pending map until every consumer has contributed, then it is recorded as grad.<name>.
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "model_internal.h"
#include "stepformer/trace_names.h"

namespace stepformer {
namespace {

struct GradState {
    Trace& tr;
    bool record;
    std::unordered_map<std::string, Tensor> pending;

    // The gradient buffer of trace entry `name`, created zeroed on first use.
    Tensor& g(const std::string& name) {
        auto it = pending.find(name);
        if (it != pending.end()) return it->second;
        return pending.emplace(name, Tensor(tr.at(name).value.shape)).first->second;
    }
    // Every consumer has contributed: record the gradient (or drop it).
    void finish(const std::string& name) {
        auto it = pending.find(name);
        if (it == pending.end()) throw std::logic_error("backward: no gradient for '" + name + "'");
        if (record) {
            const TraceEntry& e = tr.at(name);
            std::vector<Axis> axes = e.axes;
            tr.add(names::grad(name), Node{Role::Gradient, Op::Gradient, e.block, {name}}, std::move(axes),
                   std::move(it->second));
        }
        pending.erase(it);
    }
    // Moves a freshly computed gradient in as complete.
    void put_and_finish(const std::string& name, Tensor grad) {
        pending[name] = std::move(grad);
        finish(name);
    }
};

struct Ctx {
    const Config& c;
    const ParamSet& p;
    ParamSet& grads;
    Backend& be;
    GradState& gs;
    ParamUpdater* updater;
    const float* w(const std::string& n) const { return p.at(n).ptr(); }
    float* dw(const std::string& n) { return grads.at(n).ptr(); }
    // The backward pass has made its last use of parameter n: its gradient is final and the
    // weight itself is no longer read, so an optimizer may update it now (while it is in cache).
    void ready(const std::string& n) const {
        if (updater) updater->ready(p.index_of(n));
    }
    // Backward of the linear layer with weight n (its last use): dx (N, I) = or += dy W and
    // dW = dy^T x, with the optimizer's update fused in when there is one.
    void linear(const std::string& n, float* dx, const float* dy, const float* x, int N, int I, int O, bool acc_dx) {
        const size_t i = p.index_of(n);
        const ParamUpdater::Fused* f = updater ? updater->fused_update(i) : nullptr;
        if (!f) {
            be.linear_backward(dx, grads[i].ptr(), dy, x, p[i].ptr(), N, I, O, acc_dx, false);
            ready(n);
            return;
        }
        float* dW = f->keep_gradient ? grads[i].ptr() : nullptr;
        be.linear_backward_update(dx, dW, f->grad_sum_squares, dy, x, f->weight, N, I, O, acc_dx, f->update);
    }
};

// LayerNorm(residual) backward: from grad(out) to grad(residual) and dgamma/dbeta.
Tensor layernorm_backward(Ctx& x, const Block& blk, int rows) {
    const Trace& tr = x.gs.tr;
    const auto P = [&](std::string_view leaf) { return names::entry(blk, leaf); };
    const std::string gamma = names::param(blk, "layer_norm.weight"), beta = names::param(blk, "layer_norm.bias");
    const Tensor& residual = tr.at(P("residual")).value;
    Tensor dres(residual.shape);
    const bool learned = x.c.learn_layer_norm;  // else gamma = 1, beta = 0: nothing to differentiate
    x.be.layernorm_backward(dres.ptr(), learned ? x.dw(gamma) : nullptr,
                            learned ? x.dw(beta) : nullptr, x.gs.g(P("out")).ptr(),
                            residual.ptr(), tr.saved.at(P("ln_mean")).ptr(), tr.saved.at(P("ln_rstd")).ptr(), learned ? x.w(gamma) : nullptr,
                            rows, x.c.d_model);
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
    const Tensor& Xq = tr.at(xq).value;    // (B, Lq, D)
    const Tensor& Xkv = tr.at(xkv).value;  // (B, Lk, D)
    const int B = static_cast<int>(Xq.dim(0)), Lq = static_cast<int>(Xq.dim(1)), Lk = static_cast<int>(Xkv.dim(1));
    const int D = x.c.d_model, H = x.c.n_heads, dk = x.c.d_k, dv = x.c.d_v;
    const float scale = 1.0f / std::sqrt(static_cast<float>(dk));

    Tensor dres = layernorm_backward(x, blk, B * Lq);  // (B, Lq, D)
    x.gs.finish(P("out"));
    // residual = fc_out + xq: both receive dres
    {
        Tensor& dxq = x.gs.g(xq);
        be.add_forward(dxq.ptr(), dxq.ptr(), dres.ptr(), dxq.size());
    }
    Tensor dfc = dres;
    x.gs.put_and_finish(P("residual"), std::move(dres));

    Tensor dmerged({B, Lq, H * dv});
    x.linear(names::param(blk, "fc.weight"), dmerged.ptr(), dfc.ptr(), tr.saved.at(P("merged")).ptr(), B * Lq, H * dv, D, false);
    x.gs.put_and_finish(P("fc_out"), std::move(dfc));
    Tensor dcontext({B, H, Lq, dv});
    be.split_heads(dcontext.ptr(), dmerged.ptr(), B, Lq, H, dv);

    Tensor dattn({B, H, Lq, Lk}), dV({B, H, Lk, dv});
    be.attn_context_backward(dattn.ptr(), dV.ptr(), dcontext.ptr(), tr.at(P("attn")).value.ptr(),
                             tr.at(P("V")).value.ptr(), B * H, Lq, Lk, dv);
    x.gs.put_and_finish(P("context"), std::move(dcontext));
    Tensor dmasked({B, H, Lq, Lk});
    be.softmax_backward(dmasked.ptr(), dattn.ptr(), tr.at(P("attn")).value.ptr(), B * H * Lq, Lk);
    x.gs.put_and_finish(P("attn"), std::move(dattn));
    Tensor dscores({B, H, Lq, Lk});
    be.mask_fill_backward(dscores.ptr(), dmasked.ptr(), tr.at(mask).value.ptr(), B, H, Lq, Lk);
    x.gs.put_and_finish(P("masked_scores"), std::move(dmasked));
    Tensor dQ({B, H, Lq, dk}), dK({B, H, Lk, dk});
    be.attn_scores_backward(dQ.ptr(), dK.ptr(), dscores.ptr(), tr.at(P("Q")).value.ptr(), tr.at(P("K")).value.ptr(),
                            B * H, Lq, Lk, dk, scale);
    x.gs.put_and_finish(P("scores"), std::move(dscores));

    // Back through the head split and the three projections.
    Tensor tmp({B, std::max(Lq, Lk), H * std::max(dk, dv)});
    be.merge_heads(tmp.ptr(), dV.ptr(), B, Lk, H, dv);
    x.linear(names::param(blk, "W_V.weight"), x.gs.g(xkv).ptr(), tmp.ptr(), Xkv.ptr(), B * Lk, D, H * dv, true);
    x.gs.put_and_finish(P("V"), std::move(dV));
    be.merge_heads(tmp.ptr(), dK.ptr(), B, Lk, H, dk);
    x.linear(names::param(blk, "W_K.weight"), x.gs.g(xkv).ptr(), tmp.ptr(), Xkv.ptr(), B * Lk, D, H * dk, true);
    x.gs.put_and_finish(P("K"), std::move(dK));
    be.merge_heads(tmp.ptr(), dQ.ptr(), B, Lq, H, dk);
    x.linear(names::param(blk, "W_Q.weight"), x.gs.g(xq).ptr(), tmp.ptr(), Xq.ptr(), B * Lq, D, H * dk, true);
    x.gs.put_and_finish(P("Q"), std::move(dQ));
}

void ffn_backward(Ctx& x, const Block& blk) {
    Trace& tr = x.gs.tr;
    const auto F = [&](std::string_view leaf) { return names::entry(blk, leaf); };
    const std::string in = tr.at(F("hidden")).inputs.at(0);
    Backend& be = x.be;
    const Tensor& X = tr.at(in).value;  // (B, L, D)
    const int N = static_cast<int>(X.dim(0) * X.dim(1)), D = x.c.d_model, Dff = x.c.d_ff;

    Tensor dres = layernorm_backward(x, blk, N);
    x.gs.finish(F("out"));
    {
        Tensor& dx = x.gs.g(in);
        be.add_forward(dx.ptr(), dx.ptr(), dres.ptr(), dx.size());
    }
    Tensor dfc = dres;
    x.gs.put_and_finish(F("residual"), std::move(dres));
    Tensor drelu(tr.at(F("relu")).value.shape);  // (B, L, d_ff)
    x.linear(names::param(blk, "fc.2.weight"), drelu.ptr(), dfc.ptr(), tr.at(F("relu")).value.ptr(), N, Dff, D, false);
    x.gs.put_and_finish(F("fc_out"), std::move(dfc));
    Tensor dhidden(drelu.shape);
    be.relu_backward(dhidden.ptr(), drelu.ptr(), tr.at(F("relu")).value.ptr(), dhidden.size());
    x.gs.put_and_finish(F("relu"), std::move(drelu));
    x.linear(names::param(blk, "fc.0.weight"), x.gs.g(in).ptr(), dhidden.ptr(), X.ptr(), N, D, Dff, true);
    x.gs.put_and_finish(F("hidden"), std::move(dhidden));
}

// From grad(pos_emb.out) to the embedding table; the PE table gets no gradient.
void embed_backward(Ctx& x, Stack stack, const std::vector<int>& ids) {
    Trace& tr = x.gs.tr;
    const std::string in = names::stack_input(stack), table = names::embedding_table(stack);
    Tensor demb = x.gs.g(in);
    x.gs.finish(in);
    if (auto it = tr.saved.find(names::entry(Block{stack, BlockKind::Input, -1}, "dropout_keep")); it != tr.saved.end())
        x.be.mul_forward(demb.ptr(), demb.ptr(), it->second.ptr(), demb.size());
    const int N = static_cast<int>(demb.dim(0) * demb.dim(1));
    const int V = static_cast<int>(x.grads.at(table).dim(0));
    x.be.embedding_backward(x.dw(table), demb.ptr(), ids.data(), N, V, x.c.d_model);
    x.ready(table);
    x.gs.put_and_finish(names::embedding_out(stack), std::move(demb));
}

}  // namespace

void Transformer::backward(const Batch& batch, Trace& tr, ParamSet& grads, bool trace_grads,
                           ParamUpdater* updater) const {
    const Config& c = config_;
    if (!tr.contains("loss")) throw std::logic_error("backward: call loss() after forward() first");
    // Reused only when it is laid out as the parameters are, name by name and shape by shape: a
    // narrower model of the same depth has as many parameters, and its gradients would be written
    // past the end of the old buffers.
    if (!grads.same_layout(params())) grads = ParamSet(param_specs(c));
    // Linear weights are each used once, so their kernels overwrite dW; only the accumulated
    // ones (ParamSpec::grad_accumulates: embedding tables, LayerNorm gamma/beta) need zeroing.
    for (size_t i = 0; i < grads.size(); ++i)
        if (grad_accumulates_[i]) backend_->fill(grads[i].ptr(), grads[i].size(), 0.0f);
    GradState gs{tr, trace_grads, {}};
    Ctx x{c, params(), grads, *backend_, gs, updater};

    const int B = batch.B, T = batch.T, V = c.tgt_vocab_size();
    const Block proj{Stack::None, BlockKind::Projection, -1};
    const std::string logits = names::entry(proj, "logits"), probs = names::entry(proj, "probs");
    const int counted = static_cast<int>(tr.saved.at(names::entry(Block{Stack::None, BlockKind::Loss, -1}, "counted")).data[0]);
    // CrossEntropyLoss(ignore_index=0) straight to the logits.
    Tensor dlogits({B, T, V});
    backend_->cross_entropy_backward(dlogits.ptr(), tr.at(probs).value.ptr(), batch.out.data(), B * T, V, 0, counted);
    const std::string dec_out = tr.at(logits).inputs.at(0);
    x.linear(names::param(proj, "weight"), gs.g(dec_out).ptr(), dlogits.ptr(), tr.at(dec_out).value.ptr(), B * T,
             c.d_model, V, true);
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
}

}  // namespace stepformer
