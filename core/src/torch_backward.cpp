// PyTorch's layers ("architecture": "torch"), backward: the trace is walked from its last entry
// to its first, and each entry's op sends its gradient to the entries and parameters it read
// (ggml's way: the graph is the data). An entry's gradient is complete when it is visited, since
// every entry that read it comes after it in the trace.
#include <cmath>
#include <stdexcept>

#include "backward_internal.h"
#include "stepformer/trace_graph.h"
#include "torch_internal.h"

namespace stepformer {
namespace detail {
namespace {

struct TorchBackward {
    Ctx& x;
    const Batch& batch;

    Trace& tr() { return x.gs.tr; }
    Staging& st() { return x.st; }
    Backend& be() { return x.be; }
    const Tensor* saved(const std::string& key) {
        auto it = tr().saved.find(key);
        return it == tr().saved.end() ? nullptr : &it->second;
    }

    // The gradient of entry `name` for a kernel to write into: its buffer if some consumer has
    // contributed already (*exists: the kernel must add), else a fresh one (the kernel overwrites).
    float* dest(const std::string& name, bool* exists) {
        auto it = x.gs.pending.find(name);
        *exists = it != x.gs.pending.end();
        if (*exists) return st().inout(it->second);
        Tensor& t = x.gs.pending.emplace(name, Tensor(tr().at(name).value.shape)).first->second;
        return st().out(t);
    }
    // g(name) += d (n floats), or = d when nothing was there.
    void add_into(const std::string& name, const float* d, int64_t n) {
        bool exists = false;
        float* g = dest(name, &exists);
        if (exists) be().add_forward(g, g, d, n);
        else be().copy(g, d, n);
    }
    // d *= keep where the forward dropped out (the mask saved under `key`.dropout_keep).
    void undo_dropout(const std::string& key, float* d, int64_t n) {
        if (const Tensor* keep = saved(key + ".dropout_keep")) be().mul_forward(d, d, st().in(*keep), n);
    }

    void layer_norm(const TraceEntry& e, const float* dy) {
        const std::string& in = e.inputs.at(0);
        const std::string &gamma = e.inputs.at(1), &beta = e.inputs.at(2);
        const Tensor& X = tr().at(in).value;
        const int D = static_cast<int>(X.dim(-1)), rows = static_cast<int>(X.size() / D);
        const Staging::Temp din = st().temp(X.size());
        be().layernorm_backward(din.get(), x.dw(gamma), x.dw(beta), dy, st().in(X), x.saved(e.name + ".mean"),
                                x.saved(e.name + ".rstd"), x.w(gamma), rows, D);
        x.ready(gamma);
        x.ready(beta);
        add_into(in, din.get(), X.size());
    }

    void residual(const TraceEntry& e, const float* dy) {
        const int64_t n = e.value.size();
        add_into(e.inputs.at(0), dy, n);
        const Staging::Temp d = st().temp(n);
        be().copy(d.get(), dy, n);
        undo_dropout(e.name, d.get(), n);
        add_into(e.inputs.at(1), d.get(), n);
    }

    // y = x W^T + b with W, b parameters; x_used what the forward multiplied (the input entry,
    // or its dropped-out copy); dx sent to the input entry through `to_input` (dropout undone).
    void linear(const TraceEntry& e, const float* dy, const float* x_used, const std::string& in_key) {
        const std::string &in = e.inputs.at(0), &W = e.inputs.at(1), &b = e.inputs.at(2);
        const Tensor& Wt = x.p.at(W);
        const int O = static_cast<int>(Wt.dim(0)), I = static_cast<int>(Wt.dim(1));
        const int N = static_cast<int>(e.value.size() / O);
        be().bias_backward(x.dw(b), dy, N, O);
        x.ready(b);
        const int64_t nx = int64_t(N) * I;
        if (saved(in_key + ".dropout_keep")) {
            const Staging::Temp dx = st().temp(nx);
            x.linear(W, dx.get(), dy, x_used, N, I, O, false);
            undo_dropout(in_key, dx.get(), nx);
            add_into(in, dx.get(), nx);
            return;
        }
        bool exists = false;
        float* dx = dest(in, &exists);
        x.linear(W, dx, dy, x_used, N, I, O, exists);
    }

    void out_projection(const TraceEntry& e, const float* dy) {
        const Block& blk = e.block;
        const std::string context = e.inputs.at(0), W = e.inputs.at(1), b = e.inputs.at(2);
        const Tensor& C = tr().at(context).value;  // (B, H, Lq, hd)
        const int B = int(C.dim(0)), H = int(C.dim(1)), Lq = int(C.dim(2)), hd = int(C.dim(3)), D = H * hd;
        be().bias_backward(x.dw(b), dy, B * Lq, D);
        x.ready(b);
        const Staging::Temp dmerged = st().temp(int64_t(B) * Lq * D);
        x.linear(W, dmerged.get(), dy, x.saved(names::entry(blk, "merged")), B * Lq, D, D, false);
        bool exists = false;
        float* dc = dest(context, &exists);
        if (exists) throw std::logic_error("backward: the context has one reader");
        be().split_heads(dc, dmerged.get(), B, Lq, H, hd);
    }

    void context(const TraceEntry& e, const float* dctx) {
        const std::string &attn = e.inputs.at(0), &V = e.inputs.at(1);
        const Tensor& A = tr().at(attn).value;  // (B, H, Lq, Lk)
        const Tensor& Vt = tr().at(V).value;    // (B, H, Lk, hd)
        const int G = int(A.dim(0) * A.dim(1)), Lq = int(A.dim(2)), Lk = int(A.dim(3)), hd = int(Vt.dim(3));
        const Tensor* dropped = saved(names::entry(e.block, "attn_dropped"));
        bool ea = false, ev = false;
        float* dattn = dest(attn, &ea);
        float* dV = dest(V, &ev);
        if (ea || ev) throw std::logic_error("backward: attention weights and V have one reader");
        be().attn_context_backward(dattn, dV, dctx, dropped ? st().in(*dropped) : st().in(A), st().in(Vt), G, Lq, Lk, hd);
        undo_dropout(attn, dattn, A.size());
    }

    void scores(const TraceEntry& e, const float* ds) {
        const Tensor& Q = tr().at(e.inputs.at(0)).value;  // (B, H, Lq, hd)
        const Tensor& K = tr().at(e.inputs.at(1)).value;  // (B, H, Lk, hd)
        const int G = int(Q.dim(0) * Q.dim(1)), Lq = int(Q.dim(2)), Lk = int(K.dim(2)), hd = int(Q.dim(3));
        bool eq = false, ek = false;
        float* dQ = dest(e.inputs.at(0), &eq);
        float* dK = dest(e.inputs.at(1), &ek);
        if (eq || ek) throw std::logic_error("backward: Q and K have one reader");
        be().attn_scores_backward(dQ, dK, ds, st().in(Q), st().in(K), G, Lq, Lk, hd, 1.0f / std::sqrt(float(hd)));
    }

    // Q, K or V: the slice of the packed in-projection that made it (visited V, K, Q: the
    // weight's last use is Q's, and then it is ready).
    void in_projection(const TraceEntry& e, const float* dy) {
        const std::string &in = e.inputs.at(0), &W = e.inputs.at(1), &b = e.inputs.at(2);
        const int slice = e.role == Role::Q ? 0 : e.role == Role::K ? 1 : 2;
        const Tensor& X = tr().at(in).value;  // (B, L, D)
        const int B = int(e.value.dim(0)), H = int(e.value.dim(1)), L = int(e.value.dim(2)), hd = int(e.value.dim(3));
        const int D = H * hd, N = B * L;
        const Staging::Temp dtmp = st().temp(int64_t(N) * D);
        be().merge_heads(dtmp.get(), dy, B, L, H, hd);
        be().bias_backward(x.dw(b) + int64_t(slice) * D, dtmp.get(), N, D);
        const size_t wi = x.p.index_of(W);
        float* dW = st().out(x.grads[wi]) + int64_t(slice) * D * D;
        const float* Wslice = x.weight(x.p[wi]) + int64_t(slice) * D * D;
        bool exists = false;
        float* dx = dest(in, &exists);
        be().linear_backward(dx, dW, dtmp.get(), st().in(X), Wslice, N, D, D, exists, false);
        if (slice == 0) {
            x.ready(W);
            x.ready(b);
        }
    }

    void activation(const TraceEntry& e, const float* dy) {
        const std::string& in = e.inputs.at(0);
        const int64_t n = e.value.size();
        bool exists = false;
        float* d = dest(in, &exists);
        if (exists) throw std::logic_error("backward: an activation's input has one reader");
        if (e.op == Op::Gelu) be().gelu_backward(d, dy, st().in(tr().at(in).value), n);
        else be().relu_backward(d, dy, st().in(e.value), n);
    }

    void positional(const TraceEntry& e, const float* dy) {
        const int64_t n = e.value.size();
        const Staging::Temp d = st().temp(n);
        be().copy(d.get(), dy, n);
        undo_dropout(e.name, d.get(), n);
        add_into(e.inputs.at(0), d.get(), n);
    }

    // TokenEmbedding: table[ids] × √d_model.
    void embedding(const TraceEntry& e, const float* dy) {
        const std::string& table = e.inputs.at(0);
        const std::vector<int>& ids = e.block.stack == Stack::Decoder ? batch.tgt : batch.src;
        const int64_t n = e.value.size();
        const int D = int(e.value.dim(-1)), N = int(n / D), V = int(x.grads.at(table).dim(0));
        const Staging::Temp d = st().temp(n);
        be().scale(d.get(), dy, n, std::sqrt(static_cast<float>(D)));
        be().embedding_backward(x.dw(table), d.get(), st().in(ids), N, V, D);
        x.ready(table);
    }

    void step(const TraceEntry& e) {
        auto it = x.gs.pending.find(e.name);
        if (it == x.gs.pending.end()) return;  // nothing downstream depends on it
        const float* dy = st().in(it->second);
        switch (e.op) {
            case Op::LayerNorm: layer_norm(e, dy); break;
            case Op::Add: residual(e, dy); break;
            case Op::Linear:
                if (e.role == Role::OutProjection) out_projection(e, dy);
                else if (e.role == Role::Q || e.role == Role::K || e.role == Role::V) in_projection(e, dy);
                else {
                    const std::string& in = e.inputs.at(0);
                    const Tensor* dropped = saved(in + "_dropped");
                    linear(e, dy, dropped ? st().in(*dropped) : st().in(tr().at(in).value), in);
                }
                break;
            case Op::MatMul: context(e, dy); break;
            case Op::Softmax: {
                bool exists = false;
                float* d = dest(e.inputs.at(0), &exists);
                be().softmax_backward(d, dy, st().in(e.value), int(e.value.size() / e.value.dim(-1)), int(e.value.dim(-1)));
                break;
            }
            case Op::MaskAdd: add_into(e.inputs.at(0), dy, e.value.size()); break;
            case Op::ScaledMatMul: scores(e, dy); break;
            case Op::Relu:
            case Op::Gelu: activation(e, dy); break;
            case Op::PositionalAdd: positional(e, dy); break;
            case Op::Embedding: embedding(e, dy); break;
            case Op::Input: break;
            default: throw std::logic_error("backward: no rule for '" + e.name + "'");
        }
        x.gs.finish(e.name);
    }

    // From the last entry to the first; the entries added meanwhile (the gradients) are not visited.
    void run() {
        const size_t n = tr().size();
        for (size_t i = n; i-- > 0;) {
            const TraceEntry& e = tr().entries()[i];
            if (e.role == Role::Gradient || e.role == Role::Probs || e.role == Role::Loss || e.role == Role::LossPerToken)
                continue;
            step(e);
        }
    }
};

}  // namespace

void torch_backward(Ctx& x, const Batch& batch) { TorchBackward{x, batch}.run(); }

}  // namespace detail

void Transformer::backward_from_output(const Batch& batch, Trace& tr, const Tensor& dout, ParamSet& grads,
                                       bool trace_grads) const {
    if (!config_.layers()) throw std::logic_error("backward_from_output: for the layer lab; a translation model has a loss");
    if (tr.size() == 0) throw std::logic_error("backward_from_output: call forward() first");
    const TraceEntry* last = nullptr;
    for (auto it = tr.entries().rbegin(); it != tr.entries().rend() && !last; ++it)
        if (it->role != Role::Gradient) last = &*it;
    if (tr.contains(names::grad(last->name)))
        throw std::logic_error("backward_from_output: this trace has its gradients already (run forward() again)");
    if (last->value.shape != dout.shape)
        throw std::invalid_argument("backward_from_output: the gradient has shape " + shape_to_string(dout.shape) +
                                    ", the output '" + last->name + "' " + shape_to_string(last->value.shape));
    if (!grads.same_layout(params())) grads = ParamSet(param_specs(config_));
    Staging& st = tr.staging(*backend_);
    for (size_t i = 0; i < grads.size(); ++i)
        if (grad_accumulates_[i]) backend_->fill(st.out(grads[i]), grads[i].size(), 0.0f);
    detail::GradState gs{tr, st, trace_grads, {}};
    detail::Ctx x{config_, params(), grads, *backend_, st, gs, nullptr, resident_weights()};
    Tensor& g = gs.pending.emplace(last->name, Tensor(dout.shape)).first->second;
    backend_->copy(st.out(g), st.in(dout), dout.size());
    detail::torch_backward(x, batch);
    st.finish();
}

}  // namespace stepformer
