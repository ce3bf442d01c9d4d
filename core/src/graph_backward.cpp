// The backward pass of PyTorch's layers ("architecture": "torch") and of attention-is-all-you-
// need-pytorch's model ("aiayn"): the trace is walked from its last entry to its first, and each
// entry's op sends its gradient to the entries and parameters it read (ggml's way: the graph is
// the data). An entry's gradient is complete when it is visited, since every entry that read it
// comes after it in the trace; a parameter's, when its last reader has been visited (a packed or
// shared weight is read several times), and then the optimizer may update it.
#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>
#include <stdexcept>

#include "backward_internal.h"
#include "stepformer/trace_graph.h"
#include "torch_internal.h"

namespace stepformer {
namespace detail {
namespace {

struct GraphBackward {
    Ctx& x;
    const Batch& batch;
    std::unordered_map<std::string, int> reads;  // parameter (its own name) -> readers not visited yet

    // A parameter's own name for any of its state_dict names (a shared weight's others).
    std::string own(const std::string& name) const { return canonical_param(x.c, name); }
    void count_reads() {
        for (const TraceEntry& e : tr().entries())
            if (e.role != Role::Gradient)
                for (const std::string& in : e.inputs)
                    if (!tr().contains(in)) ++reads[own(in)];
    }
    // One reader of parameter `name` is done; after the last, its gradient is final.
    void release(const std::string& name) {
        const std::string p = own(name);
        if (--reads.at(p) == 0) x.ready(p);
    }
    float scale_of(const std::string& entry, float fallback) {
        const Tensor* s = saved(entry + ".scale");
        return s ? s->data[0] : fallback;
    }
    // dx (N, I) = or += dy W and dW += dy^T x for weight `name`: fused with the optimizer's update
    // when this is the weight's only reader, else accumulated and released.
    void weight_backward(const std::string& name, float* dx, const float* dy, const float* xin, int N, int I, int O,
                         bool acc_dx) {
        const std::string p = own(name);
        if (reads.at(p) == 1) {
            reads[p] = 0;
            x.linear(p, dx, dy, xin, N, I, O, acc_dx);
            return;
        }
        const size_t i = x.p.index_of(p);
        be().linear_backward(dx, st().inout(x.grads[i]), dy, xin, x.weight(x.p[i]), N, I, O, acc_dx, true);
        release(p);
    }

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
        release(gamma);
        release(beta);
        add_into(in, din.get(), X.size());
    }

    // x + dropout(sub-layer output): the gradient reaches both, through the dropout's mask on the
    // sub-layer's side (whichever argument it is: PyTorch's layers add x first, aiayn's q += residual).
    void residual(const TraceEntry& e, const float* dy) {
        const int64_t n = e.value.size();
        const auto is_sublayer = [&](const std::string& in) {
            const Role r = tr().at(in).role;
            return r == Role::OutProjection || r == Role::FfnOut;
        };
        const size_t sub = is_sublayer(e.inputs.at(0)) ? 0 : 1;
        add_into(e.inputs.at(1 - sub), dy, n);
        const Staging::Temp d = st().temp(n);
        be().copy(d.get(), dy, n);
        undo_dropout(e.name, d.get(), n);
        add_into(e.inputs.at(sub), d.get(), n);
    }

    // y = (x W^T + b) · s with W (and b) parameters, s saved or 1; x_used what the forward
    // multiplied (the input entry, or its dropped-out copy); dx to the input entry, dropout undone.
    void linear(const TraceEntry& e, const float* dy, const float* x_used, const std::string& in_key) {
        const std::string &in = e.inputs.at(0), &W = e.inputs.at(1);
        const Tensor& Wt = x.p.at(own(W));
        const int O = static_cast<int>(Wt.dim(0)), I = static_cast<int>(Wt.dim(1));
        const int N = static_cast<int>(e.value.size() / O);
        std::optional<Staging::Temp> scaled;  // only for a scaled linear (aiayn's logits)
        if (const float s = scale_of(e.name, 1.0f); s != 1.0f) {
            scaled.emplace(st().temp(e.value.size()));
            be().scale(scaled->get(), dy, e.value.size(), s);
            dy = scaled->get();
        }
        if (e.inputs.size() > 2) {
            be().bias_backward(x.dw(own(e.inputs[2])), dy, N, O);
            release(e.inputs[2]);
        }
        const int64_t nx = int64_t(N) * I;
        if (saved(in_key + ".dropout_keep")) {
            const Staging::Temp dx = st().temp(nx);
            weight_backward(W, dx.get(), dy, x_used, N, I, O, false);
            undo_dropout(in_key, dx.get(), nx);
            add_into(in, dx.get(), nx);
            return;
        }
        bool exists = false;
        float* dx = dest(in, &exists);
        weight_backward(W, dx, dy, x_used, N, I, O, exists);
    }

    void out_projection(const TraceEntry& e, const float* dy) {
        const Block& blk = e.block;
        const std::string context = e.inputs.at(0), W = e.inputs.at(1);
        const Tensor& C = tr().at(context).value;  // (B, H, Lq, dv)
        const int B = int(C.dim(0)), H = int(C.dim(1)), Lq = int(C.dim(2)), dv = int(C.dim(3)), HV = H * dv;
        const int D = int(e.value.dim(-1));
        if (e.inputs.size() > 2) {
            be().bias_backward(x.dw(own(e.inputs[2])), dy, B * Lq, D);
            release(e.inputs[2]);
        }
        const Staging::Temp dmerged = st().temp(int64_t(B) * Lq * HV);
        weight_backward(W, dmerged.get(), dy, x.saved(names::entry(blk, "merged")), B * Lq, HV, D, false);
        bool exists = false;
        float* dc = dest(context, &exists);
        if (exists) throw std::logic_error("backward: the context has one reader");
        be().split_heads(dc, dmerged.get(), B, Lq, H, dv);
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
        be().attn_scores_backward(dQ, dK, ds, st().in(Q), st().in(K), G, Lq, Lk, hd,
                                  scale_of(e.name, 1.0f / std::sqrt(float(hd))));
    }

    // Q, K or V: a projection split into heads. PyTorch's packs the three in one in_proj_weight
    // (and in_proj_bias), Q | K | V rows; attention-is-all-you-need-pytorch's has w_qs, w_ks, w_vs.
    void in_projection(const TraceEntry& e, const float* dy) {
        const std::string& in = e.inputs.at(0);
        const Tensor& X = tr().at(in).value;  // (B, L, D)
        const int B = int(e.value.dim(0)), H = int(e.value.dim(1)), L = int(e.value.dim(2)), hd = int(e.value.dim(3));
        const int HD = H * hd, N = B * L, D = int(X.dim(2));
        const Staging::Temp dtmp = st().temp(int64_t(N) * HD);
        be().merge_heads(dtmp.get(), dy, B, L, H, hd);
        bool exists = false;
        float* dx = dest(in, &exists);
        if (e.inputs.size() == 2) {  // its own weight (HD, D)
            weight_backward(e.inputs[1], dx, dtmp.get(), st().in(X), N, D, HD, exists);
            return;
        }
        const std::string &W = e.inputs.at(1), &b = e.inputs.at(2);
        const int slice = e.role == Role::Q ? 0 : e.role == Role::K ? 1 : 2;
        be().bias_backward(x.dw(b) + int64_t(slice) * HD, dtmp.get(), N, HD);
        const size_t wi = x.p.index_of(W);
        float* dW = st().out(x.grads[wi]) + int64_t(slice) * HD * D;
        const float* Wslice = x.weight(x.p[wi]) + int64_t(slice) * HD * D;
        be().linear_backward(dx, dW, dtmp.get(), st().in(X), Wslice, N, D, HD, exists, false);
        release(W);
        release(b);
    }

    // q / temperature: the gradient scaled the same way.
    void scale(const TraceEntry& e, const float* dy) {
        bool exists = false;
        float* d = dest(e.inputs.at(0), &exists);
        if (exists) throw std::logic_error("backward: a scaled query has one reader");
        be().scale(d, dy, e.value.size(), scale_of(e.name, 1.0f));
    }

    // masked_fill(mask, −1e9): the filled cells get no gradient; the fill the forward used is saved
    // beside the mask it was made from (the cross-attention's has the decoder's query length).
    void mask_fill(const TraceEntry& e, const float* dy) {
        const std::string& mask = e.inputs.at(1);
        const Tensor* fill = saved(mask + (e.block.kind == BlockKind::CrossAttention ? ".cross_fill" : ".fill"));
        if (!fill) throw std::logic_error("backward: no fill saved for '" + mask + "'");
        const int B = int(e.value.dim(0)), H = int(e.value.dim(1)), Lq = int(e.value.dim(2)), Lk = int(e.value.dim(3));
        bool exists = false;
        float* d = dest(e.inputs.at(0), &exists);
        if (exists) throw std::logic_error("backward: the scores have one reader");
        be().mask_fill_backward(d, dy, st().in(*fill), B, H, Lq, Lk);
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

    // table[ids] (× s when saved: the translation tutorial's √d_model, aiayn's scale_emb). An
    // embedding with padding_idx (aiayn's) sends nothing to the pad row.
    void embedding(const TraceEntry& e, const float* dy) {
        const std::string table = own(e.inputs.at(0));
        const std::vector<int>& ids = e.block.stack == Stack::Decoder ? batch.tgt : batch.src;
        const int64_t n = e.value.size();
        const int D = int(e.value.dim(-1)), N = int(n / D), V = int(x.grads.at(table).dim(0));
        const Staging::Temp d = st().temp(n);
        be().scale(d.get(), dy, n, scale_of(e.name, 1.0f));
        if (x.c.aiayn()) {
            const int pad = e.block.stack == Stack::Decoder ? x.c.tgt_id(x.c.pad) : x.c.src_id(x.c.pad);
            Tensor keep({n});
            for (int r = 0; r < N; ++r) std::fill_n(keep.data.begin() + int64_t(r) * D, D, ids[size_t(r)] == pad ? 0.0f : 1.0f);
            be().mul_forward(d.get(), d.get(), st().in(keep), n);
            st().forget(keep);
        }
        be().embedding_backward(x.dw(table), d.get(), st().in(ids), N, V, D);
        release(table);
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
            case Op::MaskFill: mask_fill(e, dy); break;
            case Op::Scale: scale(e, dy); break;
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
        count_reads();
        const size_t n = tr().size();
        for (size_t i = n; i-- > 0;) {
            const TraceEntry& e = tr().entries()[i];
            if (e.role == Role::Gradient || e.role == Role::Probs || e.role == Role::Loss || e.role == Role::LossPerToken ||
                e.is_mask)
                continue;
            step(e);
        }
    }
};

}  // namespace

void graph_backward(Ctx& x, const Batch& batch) { GraphBackward{x, batch, {}}.run(); }

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
    detail::graph_backward(x, batch);
    st.finish();
}

}  // namespace stepformer
