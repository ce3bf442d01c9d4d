// The backward pass of every model: the trace is walked from its last entry to its first, and each
// entry's op sends its gradient to the entries and parameters it read (ggml's way: the graph is
// the data). What an op needs besides its inputs and output is the step's own: its Attrs (scales,
// padding_idx, which input a dropout acted on) and its Saved slots (LayerNorm statistics, dropout
// masks, merged heads, a mask's fill), never a look-up by name and never the model's config.
// An entry's gradient is complete when it is visited, since every entry that read it comes after
// it in the trace; a parameter's, when its last reader has been visited (a packed or shared
// weight is read several times), and then the optimizer may update it.
#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>
#include <stdexcept>

#include "engine/backward_internal.h"
#include "stepformer/trace_graph.h"

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

    // The gradient of entry `name` for a kernel to write into: its buffer if some consumer has
    // contributed already (*exists: the kernel must add), else a fresh one (the kernel overwrites).
    float* dest(const std::string& name, bool* exists) {
        auto it = x.gs.pending.find(name);
        *exists = it != x.gs.pending.end();
        if (*exists) return st().inout(it->second);
        Tensor& t = x.gs.pending.emplace(name, tr().pool.take(tr().at(name).value.shape)).first->second;
        return st().out(t);
    }
    // g(name) += d (n floats), or = d when nothing was there.
    void add_into(const std::string& name, const float* d, int64_t n) {
        bool exists = false;
        float* g = dest(name, &exists);
        if (exists) be().add_forward(g, g, d, n);
        else be().copy(g, d, n);
    }
    // d *= keep where the step's dropout acted (nothing without one).
    void undo_dropout(const TraceEntry& e, float* d, int64_t n) {
        if (!e.saved.keep.empty()) be().mul_forward(d, d, st().in(e.saved.keep), n);
    }

    // (x − mean)·rstd (· γ + β when the step reads γ and β: the tutorial's LayerNorm is never
    // trained; γ alone: nanoGPT's LayerNorm with bias=False).
    void layer_norm(const TraceEntry& e, const float* dy) {
        const std::string& in = e.inputs.at(0);
        const bool affine = e.inputs.size() >= 2, shifted = e.inputs.size() == 3;
        const Tensor& X = tr().at(in).value;
        const int D = static_cast<int>(X.dim(-1)), rows = static_cast<int>(X.size() / D);
        bool exists = false;
        float* din = dest(in, &exists);
        std::optional<Staging::Temp> tmp;
        if (exists) din = tmp.emplace(st().temp(X.size())).get();
        be().layernorm_backward(din, affine ? x.dw(own(e.inputs[1])) : nullptr, shifted ? x.dw(own(e.inputs[2])) : nullptr,
                                dy, st().in(X), st().in(e.saved.mean), st().in(e.saved.rstd),
                                affine ? x.w(own(e.inputs[1])) : nullptr, rows, D);
        for (size_t i = 1; i < e.inputs.size(); ++i) release(e.inputs[i]);
        if (tmp) add_into(in, din, X.size());
    }

    // x + dropout(sub-layer output): the gradient reaches both, through the dropout's mask on the
    // sub-layer's side (Attrs::sublayer: PyTorch's layers add x first, aiayn's q += residual).
    void residual(const TraceEntry& e, const float* dy) {
        const int64_t n = numel(e.value.shape);
        const int sub = e.attrs.sublayer;
        if (sub != 0 && sub != 1) throw std::logic_error("backward: '" + e.name + "' does not say which input is its sub-layer");
        add_into(e.inputs.at(size_t(1 - sub)), dy, n);
        if (e.saved.keep.empty()) {
            add_into(e.inputs.at(size_t(sub)), dy, n);
            return;
        }
        const Staging::Temp d = st().temp(n);
        be().copy(d.get(), dy, n);
        undo_dropout(e, d.get(), n);
        add_into(e.inputs.at(size_t(sub)), d.get(), n);
    }

    // y = (x W^T + b) · s with W (and b) parameters, s the step's scale; x what the forward
    // multiplied: the input entry, or its dropped-out copy (whose step undoes the dropout).
    void linear(const TraceEntry& e, const float* dy) {
        const std::string &in = e.inputs.at(0), &W = e.inputs.at(1);
        const TraceEntry& X = tr().at(in);
        const Tensor& Wt = x.p.at(own(W));
        const int O = static_cast<int>(Wt.dim(0)), I = static_cast<int>(Wt.dim(1));
        const int N = static_cast<int>(numel(e.value.shape) / O);
        std::optional<Staging::Temp> scaled;  // only for a scaled linear (aiayn's logits)
        if (const float s = e.attrs.scale; s != 1.0f) {
            scaled.emplace(st().temp(numel(e.value.shape)));
            be().scale(scaled->get(), dy, numel(e.value.shape), s);
            dy = scaled->get();
        }
        if (e.inputs.size() > 2) {
            be().bias_backward(x.dw(own(e.inputs[2])), dy, N, O);
            release(e.inputs[2]);
        }
        bool exists = false;
        float* dx = dest(in, &exists);
        weight_backward(W, dx, dy, st().in(X.saved.dropped.empty() ? X.value : X.saved.dropped), N, I, O, exists);
    }

    void out_projection(const TraceEntry& e, const float* dy) {
        const std::string context = e.inputs.at(0), W = e.inputs.at(1);
        const Tensor& C = tr().at(context).value;  // (B, H, Lq, dv)
        const int B = int(C.dim(0)), H = int(C.dim(1)), Lq = int(C.dim(2)), dv = int(C.dim(3)), HV = H * dv;
        const int D = int(e.value.dim(-1));
        if (e.inputs.size() > 2) {
            be().bias_backward(x.dw(own(e.inputs[2])), dy, B * Lq, D);
            release(e.inputs[2]);
        }
        const Staging::Temp dmerged = st().temp(int64_t(B) * Lq * HV);
        weight_backward(W, dmerged.get(), dy, st().in(tr().at(context).saved.merged), B * Lq, HV, D, false);
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
        const Tensor& dropped = tr().at(attn).saved.dropped;
        bool ea = false, ev = false;
        float* dattn = dest(attn, &ea);
        float* dV = dest(V, &ev);
        if (ea || ev) throw std::logic_error("backward: attention weights and V have one reader");
        be().attn_context_backward(dattn, dV, dctx, st().in(dropped.empty() ? A : dropped), st().in(Vt), G, Lq, Lk, hd);
    }

    void scores(const TraceEntry& e, const float* ds) {
        const Tensor& Q = tr().at(e.inputs.at(0)).value;  // (B, H, Lq, hd)
        const Tensor& K = tr().at(e.inputs.at(1)).value;  // (B, H, Lk, hd)
        const int G = int(Q.dim(0) * Q.dim(1)), Lq = int(Q.dim(2)), Lk = int(K.dim(2)), hd = int(Q.dim(3));
        bool eq = false, ek = false;
        float* dQ = dest(e.inputs.at(0), &eq);
        float* dK = dest(e.inputs.at(1), &ek);
        if (eq || ek) throw std::logic_error("backward: Q and K have one reader");
        be().attn_scores_backward(dQ, dK, ds, st().in(Q), st().in(K), G, Lq, Lk, hd, e.attrs.scale);
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
        if (e.attrs.slice < 0) {  // its own weight (HD, D), no bias
            weight_backward(e.inputs[1], dx, dtmp.get(), st().in(X), N, D, HD, exists);
            return;
        }
        // A third of a packed weight (and of its bias, when there is one: nanoGPT's bias=False has none).
        const std::string& W = e.inputs.at(1);
        const int slice = e.attrs.slice;
        if (e.inputs.size() > 2) be().bias_backward(x.dw(e.inputs[2]) + int64_t(slice) * HD, dtmp.get(), N, HD);
        const size_t wi = x.p.index_of(W);
        float* dW = st().out(x.grads[wi]) + int64_t(slice) * HD * D;
        const float* Wslice = x.weight(x.p[wi]) + int64_t(slice) * HD * D;
        be().linear_backward(dx, dW, dtmp.get(), st().in(X), Wslice, N, D, HD, exists, false);
        for (size_t i = 1; i < e.inputs.size(); ++i) release(e.inputs[i]);
    }

    // q / temperature: the gradient scaled the same way.
    void scale(const TraceEntry& e, const float* dy) {
        bool exists = false;
        float* d = dest(e.inputs.at(0), &exists);
        if (exists) throw std::logic_error("backward: a scaled query has one reader");
        be().scale(d, dy, numel(e.value.shape), e.attrs.scale);
    }

    // masked_fill(mask, −1e9): the filled cells get no gradient. The fill is the mask input (1 =
    // fill), or the one the step saved (a mask that is 1 = keep).
    void mask_fill(const TraceEntry& e, const float* dy) {
        const Tensor& fill = e.saved.fill ? *e.saved.fill : tr().at(e.inputs.at(1)).value;
        const int B = int(e.value.dim(0)), H = int(e.value.dim(1)), Lq = int(e.value.dim(2)), Lk = int(e.value.dim(3));
        bool exists = false;
        float* d = dest(e.inputs.at(0), &exists);
        if (exists) throw std::logic_error("backward: the scores have one reader");
        be().mask_fill_backward(d, dy, st().in(fill), B, H, Lq, Lk);
    }

    void activation(const TraceEntry& e, const float* dy) {
        const std::string& in = e.inputs.at(0);
        const int64_t n = numel(e.value.shape);
        bool exists = false;
        float* d = dest(in, &exists);
        if (exists) throw std::logic_error("backward: an activation's input has one reader");
        if (e.op == Op::Gelu) be().gelu_backward(d, dy, st().in(tr().at(in).value), n);
        else be().relu_backward(d, dy, st().in(e.value), n);
    }

    // dropout(emb + pe): the gradient through the dropout's mask to the embedding (B, L, D), and to
    // the positions (L, D) summed over the batch when they are learned (nanoGPT's wpe rows; the
    // sinusoid table is fixed).
    void positional(const TraceEntry& e, const float* dy) {
        const int64_t n = numel(e.value.shape);
        bool exists = false;
        float* d = dest(e.inputs.at(0), &exists);
        if (exists) throw std::logic_error("backward: an embedding has one reader");
        be().copy(d, dy, n);
        undo_dropout(e, d, n);
        const TraceEntry& pe = tr().at(e.inputs.at(1));
        if (pe.op == Op::PositionalTable) return;
        const int64_t LD = numel(pe.value.shape);
        float* dpe = dest(pe.name, &exists);
        if (exists) throw std::logic_error("backward: a position table has one reader");
        be().fill(dpe, LD, 0.0f);
        be().bias_backward(dpe, d, int(n / LD), int(LD));  // the column sums of (B, L·D)
    }

    // table[ids] (× the step's scale: the translation tutorial's √d_model, aiayn's scale_emb). An
    // embedding with a padding_idx sends nothing to that row.
    void embedding(const TraceEntry& e, const float* dy) {
        const std::string table = own(e.inputs.at(0));
        const std::vector<int>& ids = stream_ids(batch, e.attrs.stream);
        const int64_t n = numel(e.value.shape);
        const int D = int(e.value.dim(-1)), N = int(n / D), V = int(x.grads.at(table).dim(0));
        std::optional<Staging::Temp> scaled;
        if (e.attrs.scale != 1.0f || e.attrs.padding_idx >= 0) {
            scaled.emplace(st().temp(n));
            be().scale(scaled->get(), dy, n, e.attrs.scale);
            dy = scaled->get();
        }
        if (const int pad = e.attrs.padding_idx; pad >= 0) {
            Tensor keep({n});
            for (int r = 0; r < N; ++r) std::fill_n(keep.data.begin() + int64_t(r) * D, D, ids[size_t(r)] == pad ? 0.0f : 1.0f);
            be().mul_forward(scaled->get(), scaled->get(), st().in(keep), n);
            st().forget(keep);
        }
        be().embedding_backward(x.dw(table), dy, st().in(ids), N, V, D);
        release(table);
    }

    void step(const TraceEntry& e) {
        auto it = x.gs.pending.find(e.name);
        if (it == x.gs.pending.end()) return;  // nothing downstream depends on it
        // A dropout on the step's output (its readers read Saved::dropped): the gradient they sent
        // is the dropped copy's; through the mask it becomes the step's own.
        if (!e.saved.dropped.empty()) {
            float* d = st().inout(it->second);
            be().mul_forward(d, d, st().in(e.saved.keep), numel(e.value.shape));
        }
        const float* dy = st().in(it->second);
        switch (e.op) {
            case Op::LayerNorm: layer_norm(e, dy); break;
            case Op::Add: residual(e, dy); break;
            case Op::Linear:
                if (e.role == Role::OutProjection) out_projection(e, dy);
                else if (e.role == Role::Q || e.role == Role::K || e.role == Role::V) in_projection(e, dy);
                else linear(e, dy);
                break;
            case Op::MatMul: context(e, dy); break;
            case Op::Softmax: {
                bool exists = false;
                float* d = dest(e.inputs.at(0), &exists);
                be().softmax_backward(d, dy, st().in(e.value), int(numel(e.value.shape) / e.value.dim(-1)), int(e.value.dim(-1)));
                break;
            }
            case Op::MaskAdd: add_into(e.inputs.at(0), dy, numel(e.value.shape)); break;
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
            if (tr().lean && !x.gs.record) release(e);
        }
    }

    // A lean trace (a training step): once its backward has run, nothing reads the step's tensors.
    void release(const TraceEntry& entry) {
        TraceEntry& e = tr().mutable_at(entry.name);
        for (Tensor* t : {&e.value, &e.saved.mean, &e.saved.rstd, &e.saved.keep, &e.saved.dropped, &e.saved.merged})
            st().forget(*t);
        tr().give_to_pool(e);
    }
};

}  // namespace

void graph_backward(Ctx& x, const Batch& batch) { GraphBackward{x, batch, {}}.run(); }

}  // namespace detail

void Transformer::backward(const Batch& batch, Trace& tr, ParamSet& grads, bool trace_grads,
                           ParamUpdater* updater) const {
    if (config_.layers()) throw std::logic_error("backward: the layer lab has no loss; use backward_from_output()");
    const TraceEntry* loss = graph::find(tr, Block{Stack::None, BlockKind::Loss, -1}, Role::LossPerToken);
    if (!loss) throw std::logic_error("backward: call loss() after forward() first");
    // Reused only when it is laid out as the parameters are, name by name and shape by shape: a
    // narrower model of the same depth has as many parameters, and its gradients would be written
    // past the end of the old buffers.
    if (!grads.same_layout(params())) grads = ParamSet(param_specs(config_));
    // Linear weights are each used once, so their kernels overwrite dW; only the accumulated
    // ones (ParamSpec::grad_accumulates: embedding tables, LayerNorm gamma/beta) need zeroing.
    Staging& st = tr.staging(*backend_);
    st.set_parent(kept_);  // the forward's did already, unless the trace is a copy
    for (size_t i = 0; i < grads.size(); ++i)
        if (grad_accumulates_[i]) backend_->fill(st.out(grads[i]), grads[i].size(), 0.0f);
    detail::GradState gs{tr, st, trace_grads, {}};
    detail::Ctx x{config_, params(), grads, *backend_, st, gs, updater, updater ? nullptr : resident_weights()};

    // The loss straight to the logits, as its step says: cross-entropy's mean with an ignored
    // index, or attention-is-all-you-need-pytorch's label-smoothed sum.
    const TraceEntry* logits = graph::output_logits(tr);
    const TraceEntry* probs = graph::output_probs(tr);
    const int N = batch.B * batch.T, V = int(logits->value.dim(-1));
    Tensor& dlogits = gs.pending.emplace(logits->name, Tensor(logits->value.shape)).first->second;
    if (loss->attrs.label_smoothing > 0.0f)
        backend_->smoothed_cross_entropy_backward(st.out(dlogits), st.in(probs->value), st.in(batch.out), N, V,
                                                  loss->attrs.padding_idx, loss->attrs.label_smoothing, 1.0f);
    else
        backend_->cross_entropy_backward(st.out(dlogits), st.in(probs->value), st.in(batch.out), N, V,
                                         loss->attrs.padding_idx);
    detail::graph_backward(x, batch);
    st.finish();  // the backward pass's one synchronisation: gradients and the updater's scalars are in
}

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
