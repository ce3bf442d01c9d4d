// The forward engine: each op of a graph computed by the backend's kernels, whatever model built
// the graph. A step's output goes to the trace (or, for an internal step, to the trace's
// internals); what its backward needs goes to its Saved slots.
// Shapes in comments: B batch, H heads, Lq/Lk query and key lengths, L either, D features.
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "engine/engine.h"
#include "stepformer/params.h"

namespace stepformer::engine {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

int dim(const Shape& s, int i) { return static_cast<int>(s[size_t(i < 0 ? int(s.size()) + i : i)]); }

struct Runner {
    Pass& p;
    Trace& tr;
    const Graph& g;
    int site = 0;  // the pass's next dropout site

    Backend& be() { return p.m.be; }
    Staging& st() { return p.m.st; }
    const float* w(const std::string& name) { return p.m.w(canonical_param(p.m.c, name)); }
    bool is_param(const std::string& name) const { return !g.contains(name); }

    // An earlier step's output: a trace entry, or an internal step's tensor.
    const Tensor& value(const std::string& name) {
        if (const TraceEntry* e = tr.find(name)) return e->value;
        const std::shared_ptr<Tensor>& t = tr.internals.at(g.index_of(name));
        if (!t) throw std::logic_error("engine: '" + name + "' has not run");
        return *t;
    }
    const TraceEntry* entry(const std::string& name) { return tr.find(name); }
    // What a reader of step `name` multiplies: its dropped-out copy when it has one.
    const Tensor& read(const std::string& name) {
        const TraceEntry* e = entry(name);
        return e && !e->saved.dropped.empty() ? e->saved.dropped : value(name);
    }
    const std::vector<int>& ids(int stream) { return detail::stream_ids(p.batch, stream); }

    // A tensor a kernel overwrites whole (Staging::out): a buffer of its size the trace's pool kept
    // (tensor_pool.h), contents stale, or a fresh one.
    Tensor overwritten(Shape s) { return tr.pool.take(std::move(s)); }

    // The keep mask of a dropout at this step, or empty (not training, p = 0).
    Tensor draw(const Attrs& a, int64_t n) {
        if (!p.opt.train || a.dropout <= 0.0f) return {};
        Tensor keep = overwritten({n});
        const int s = a.site >= 0 ? a.site : site++;
        be().dropout_mask(st().out(keep), n, a.dropout, p.opt.seed, p.opt.step * uint64_t(a.sites_per_step) + uint64_t(s));
        return keep;
    }
    // A dropout on the step's output (attention weights, an FFN's activation): its readers read `dropped`.
    void drop_output(const Attrs& a, const Tensor& out, Saved& sv) {
        sv.keep = draw(a, out.size());
        if (sv.keep.empty()) return;
        sv.dropped = overwritten(out.shape);
        be().mul_forward(st().out(sv.dropped), st().in(out), st().in(sv.keep), out.size());
    }

    void embedding(const Step& s, Tensor& out) {
        const std::string& table = s.node.inputs.at(0);
        const int D = dim(s.shape, -1), N = int(out.size() / D);
        const int V = static_cast<int>(p.m.p.at(canonical_param(p.m.c, table)).dim(0));
        float* o = st().out(out);
        be().embedding_forward(o, st().in(ids(s.node.attrs.stream)), w(table), N, V, D);
        if (s.node.attrs.scale != 1.0f) be().scale(o, o, out.size(), s.node.attrs.scale);
    }

    // A mask from token ids: the kernels' 1 = masked (pad, subsequence), or 1 = keep made on the host.
    void token_mask(const Step& s, Tensor& out) {
        const int B = dim(s.shape, 0), Lq = dim(s.shape, 1), Lk = dim(s.shape, 2);
        const bool causal = s.node.role == Role::SubsequenceMask || s.node.role == Role::CombinedMask;
        if (s.node.attrs.keep_ones) {
            const std::vector<int>& k = ids(s.node.attrs.stream);
            for (int b = 0; b < B; ++b)
                for (int q = 0; q < Lq; ++q)
                    for (int j = 0; j < Lk; ++j)
                        out.data[(size_t(b) * Lq + q) * Lk + j] =
                            k[size_t(b) * Lk + j] != s.node.attrs.padding_idx && (!causal || j <= q) ? 1.0f : 0.0f;
            return;
        }
        if (s.node.role == Role::SubsequenceMask) be().subsequence_mask(st().out(out), B, Lq);
        else be().pad_mask(st().out(out), st().in(ids(s.node.attrs.stream)), B, Lq, Lk, s.node.attrs.padding_idx);
    }

    // y = x Wᵀ (+ b) (· scale), split into heads when the step has a head axis (a packed
    // in-projection's third of W and b); x is the input's merged heads when it has them (an out projection).
    void linear(const Step& s, Tensor& out) {
        const std::vector<std::string>& in = s.node.inputs;
        const TraceEntry* xe = entry(in.at(0));
        const Tensor& X = xe && !xe->saved.merged.empty() ? xe->saved.merged : read(in.at(0));
        const bool heads = s.shape.size() == 4;
        const int O = heads ? dim(s.shape, 1) * dim(s.shape, 3) : dim(s.shape, -1);
        const int I = dim(X.shape, -1), N = int(X.size() / I);
        const int slice = s.node.attrs.slice;
        const float* W = w(in.at(1)) + (slice > 0 ? int64_t(slice) * O * I : 0);
        const float* b = in.size() > 2 ? w(in[2]) + (slice > 0 ? int64_t(slice) * O : 0) : nullptr;
        if (heads) {
            const Staging::Temp t = st().temp(int64_t(N) * O);  // (B, L, H·d) before the split
            be().linear_forward(t.get(), st().in(X), W, N, I, O);
            if (b) be().add_bias(t.get(), b, N, O);
            be().split_heads(st().out(out), t.get(), dim(s.shape, 0), dim(s.shape, 2), dim(s.shape, 1), dim(s.shape, 3));
            return;
        }
        float* y = st().out(out);
        be().linear_forward(y, st().in(X), W, N, I, O);
        if (b) be().add_bias(st().inout(out), b, N, O);
        if (s.node.attrs.scale != 1.0f) be().scale(y, y, out.size(), s.node.attrs.scale);
    }

    void scores(const Step& s, Tensor& out) {
        const Tensor &Q = value(s.node.inputs.at(0)), &K = value(s.node.inputs.at(1));  // (B, H, L, d)
        const int G = dim(Q.shape, 0) * dim(Q.shape, 1), Lq = dim(Q.shape, 2), Lk = dim(K.shape, 2), d = dim(Q.shape, 3);
        if (!s.node.attrs.scale_query) {
            be().attn_scores_forward(st().out(out), st().in(Q), st().in(K), G, Lq, Lk, d, s.node.attrs.scale);
            return;
        }
        const Staging::Temp q = st().temp(Q.size());  // q · scale, then q·kᵀ
        be().scale(q.get(), st().in(Q), Q.size(), s.node.attrs.scale);
        be().attn_scores_forward(st().out(out), q.get(), st().in(K), G, Lq, Lk, d, 1.0f);
    }

    // masked_fill(mask, fill): by the mask input (1 = fill), or by the internal step the model
    // named (its complement, for a mask that is 1 = keep), which the backward then reads too.
    void mask_fill(const Step& s, Tensor& out, Saved& sv) {
        const Tensor* fill = &value(s.node.inputs.at(1));
        if (!s.hidden.empty()) {
            sv.fill = tr.internals.at(g.index_of(s.hidden[0]));
            fill = sv.fill.get();
        }
        be().mask_fill_forward(st().out(out), st().in(value(s.node.inputs.at(0))), st().in(*fill), dim(s.shape, 0),
                               dim(s.shape, 1), dim(s.shape, 2), dim(s.shape, 3), s.node.attrs.fill);
    }

    // PyTorch's attn_mask and key_padding_mask merged into one additive 0 / −inf mask per head:
    // from a 0/1 mask the model made (an internal step, 1 = ignore), from the tensors given with
    // the batch (the layer lab), or zeros.
    void additive_mask(const Step& s, Tensor& out) {
        const int B = dim(s.shape, 0), H = dim(s.shape, 1), Lq = dim(s.shape, 2), Lk = dim(s.shape, 3);
        if (!s.hidden.empty()) {
            float* d = st().zeros(out);
            be().mask_fill_forward(d, d, st().in(value(s.hidden[0])), B, H, Lq, Lk, kNegInf);
            return;
        }
        const Batch& bt = p.batch;
        const int stream = s.node.attrs.stream;
        const Tensor& m = stream == int(Stream::Src) ? bt.src_mask : stream == int(Stream::Tgt) ? bt.tgt_mask : bt.memory_mask;
        const std::vector<int>& pad = stream == int(Stream::Src)   ? bt.src_key_padding_mask
                                      : stream == int(Stream::Tgt) ? bt.tgt_key_padding_mask
                                                                   : bt.memory_key_padding_mask;
        if (m.empty() && pad.empty()) {
            st().zeros(out);
            return;
        }
        for (int b = 0; b < B; ++b)
            for (int h = 0; h < H; ++h)
                for (int q = 0; q < Lq; ++q)
                    for (int k = 0; k < Lk; ++k) {
                        float v = m.empty() ? 0.0f : m.data[size_t(q) * Lk + k];
                        if (!pad.empty() && pad[size_t(b) * Lk + k]) v = kNegInf;
                        out.data[((size_t(b) * H + h) * Lq + q) * Lk + k] = v;
                    }
    }

    void context(const Step& s, Tensor& out, Saved& sv) {
        const Tensor &A = read(s.node.inputs.at(0)), &V = value(s.node.inputs.at(1));  // (B, H, Lq, Lk), (B, H, Lk, dv)
        const int B = dim(A.shape, 0), H = dim(A.shape, 1), Lq = dim(A.shape, 2), Lk = dim(A.shape, 3), dv = dim(V.shape, 3);
        be().attn_context_forward(st().out(out), st().in(A), st().in(V), B * H, Lq, Lk, dv);
        sv.merged = overwritten({B, Lq, H * dv});  // the heads side by side: the out projection's input
        be().merge_heads(st().out(sv.merged), st().in(out), B, Lq, H, dv);
    }

    // in0 + in1, the sub-layer's side through the step's dropout.
    void residual(const Step& s, Tensor& out, Saved& sv) {
        const Tensor &a = value(s.node.inputs.at(0)), &b = value(s.node.inputs.at(1));
        sv.keep = draw(s.node.attrs, out.size());
        if (sv.keep.empty()) {
            be().add_forward(st().out(out), st().in(a), st().in(b), out.size());
            return;
        }
        const Staging::Temp t = st().temp(out.size());
        const int sub = s.node.attrs.sublayer;
        be().mul_forward(t.get(), st().in(sub == 0 ? a : b), st().in(sv.keep), out.size());
        if (sub == 0) be().add_forward(st().out(out), t.get(), st().in(b), out.size());
        else be().add_forward(st().out(out), st().in(a), t.get(), out.size());
    }

    void layer_norm(const Step& s, Tensor& out, Saved& sv) {
        const std::vector<std::string>& in = s.node.inputs;
        const Tensor& X = value(in.at(0));
        const int D = dim(X.shape, -1), rows = int(X.size() / D);
        sv.mean = overwritten({rows});
        sv.rstd = overwritten({rows});
        be().layernorm_forward(st().out(out), st().out(sv.mean), st().out(sv.rstd), st().in(X),
                               in.size() > 1 ? w(in[1]) : nullptr, in.size() > 2 ? w(in[2]) : nullptr, rows, D,
                               s.node.attrs.eps);
    }

    void compute(const Step& s, Tensor& out, Saved& sv) {
        const Attrs& a = s.node.attrs;
        const std::vector<std::string>& in = s.node.inputs;
        switch (s.node.op) {
            case Op::Embedding: embedding(s, out); break;
            case Op::PositionalTable: out = p.pe_table(dim(s.shape, 0), a.precise); break;
            case Op::PositionalAdd: {
                const Tensor& x = value(in.at(0));  // (B, L, D)
                sv.keep = draw(a, out.size());
                be().positional_forward(st().out(out), st().in(x), st().in(value(in.at(1))),
                                        sv.keep.empty() ? nullptr : st().in(sv.keep), dim(s.shape, 0), dim(s.shape, 1),
                                        dim(s.shape, 2));
                break;
            }
            case Op::TokenMask: token_mask(s, out); break;
            case Op::MaskOr:
                be().mask_or(st().out(out), st().in(value(in.at(0))), st().in(value(in.at(1))), out.size());
                break;
            case Op::Linear: linear(s, out); break;
            case Op::Scale: be().scale(st().out(out), st().in(value(in.at(0))), out.size(), a.scale); break;
            case Op::ScaledMatMul: scores(s, out); break;
            case Op::MaskFill: mask_fill(s, out, sv); break;
            case Op::AdditiveMask: additive_mask(s, out); break;
            case Op::MaskAdd:
                be().add_forward(st().out(out), st().in(value(in.at(0))), st().in(value(in.at(1))), out.size());
                break;
            case Op::Softmax:
                be().softmax_forward(st().out(out), st().in(value(in.at(0))), int(out.size() / dim(s.shape, -1)),
                                     dim(s.shape, -1));
                drop_output(a, out, sv);
                break;
            case Op::MatMul: context(s, out, sv); break;
            case Op::Add: residual(s, out, sv); break;
            case Op::LayerNorm: layer_norm(s, out, sv); break;
            case Op::Relu:
            case Op::Gelu:
                if (s.node.op == Op::Gelu) be().gelu_forward(st().out(out), st().in(value(in.at(0))), out.size());
                else be().relu_forward(st().out(out), st().in(value(in.at(0))), out.size());
                drop_output(a, out, sv);
                break;
            case Op::Input: out = a.stream == int(Stream::Tgt) ? p.batch.tgt_x : p.batch.src_x; break;
            default: throw std::logic_error("engine: no forward for '" + s.name + "'");
        }
    }

    // A traced step's output the pass no longer needs: its values go to the pool (the entry keeps
    // its shape).
    void release(size_t j) {
        const Step& s = g.steps()[j];
        if (!s.traced) return;
        TraceEntry& e = tr.mutable_at(s.name);
        st().forget(e.value);
        tr.pool.give(e.value);
    }

    // Every kernel these ops call writes all of the output. Not the ones that replace it (a table,
    // an input), zero it on the host (an additive mask) or make masks (small).
    static bool overwrites(Op op) {
        switch (op) {
            case Op::Embedding:
            case Op::PositionalAdd:
            case Op::Linear:
            case Op::Scale:
            case Op::ScaledMatMul:
            case Op::MaskFill:
            case Op::MaskAdd:
            case Op::Softmax:
            case Op::MatMul:
            case Op::Add:
            case Op::LayerNorm:
            case Op::Relu:
            case Op::Gelu: return true;
            default: return false;
        }
    }

    void step(size_t i) {
        const Step& s = g.steps()[i];
        Tensor out = overwrites(s.node.op) ? overwritten(s.shape) : Tensor(s.shape);
        Saved sv;
        compute(s, out, sv);
        if (!s.traced) {
            tr.internals[i] = std::make_shared<Tensor>(std::move(out));
            return;
        }
        tr.add(s.name, s.node, s.axes, std::move(out), s.is_mask).saved = std::move(sv);
    }
};

}  // namespace

void run(const std::shared_ptr<const Graph>& g, size_t from, Pass& p, Trace& tr) {
    tr.graph = g;
    tr.internals.resize(g->size());
    // On a backend with memory of its own a pass may leave host tensors unwritten (no copy back).
    tr.pool.set_enabled(p.m.st.passthrough());
    Runner r{p, tr, *g};
    if (p.opt.train)  // the sites the steps before `from` drew
        for (size_t i = 0; i < from; ++i) {
            const Attrs& a = g->steps()[i].node.attrs;
            if (a.dropout > 0.0f && a.site < 0) ++r.site;
        }
    std::vector<std::vector<size_t>> plan;
    if (!p.opt.keep_all) {
        tr.lean = true;
        plan = release_plan(*g);
    }
    for (size_t i = from; i < g->size(); ++i) {
        r.step(i);
        if (!plan.empty())
            for (size_t j : plan[i]) r.release(j);
    }
    // What the pass did not take goes: between passes the pool holds only what the pass after
    // this one frees (a training step's backward, for the next step's forward), so the peak of
    // memory stays what it was without it.
    tr.pool.clear();
}

std::vector<std::vector<size_t>> release_plan(const Graph& g) {
    const size_t n = g.size();
    std::vector<bool> needed(n, false);
    std::vector<size_t> last(n, n);  // n: no reader
    for (size_t k = 0; k < n; ++k) {
        const Step& s = g.steps()[k];
        const auto in = [&](size_t i) { return i < s.node.inputs.size() && g.contains(s.node.inputs[i]) ? g.index_of(s.node.inputs[i]) : n; };
        const auto need = [&](size_t j) {
            if (j < n) needed[j] = true;
        };
        const Op op = s.node.op;
        if (op == Op::Softmax || op == Op::Relu || !s.traced || s.node.role == Role::Logits || s.node.role == Role::Probs)
            needed[k] = true;  // its backward reads its output; internal masks (small); the loss reads the outputs
        switch (op) {
            case Op::Linear:  // its input, unless that is a context (the out projection reads its merged heads)
                if (const size_t j = in(0); j < n && g.steps()[j].node.op != Op::MatMul) need(j);
                break;
            case Op::ScaledMatMul:
            case Op::MatMul:
                need(in(0));
                need(in(1));
                break;
            case Op::MaskFill: need(in(1)); break;
            case Op::LayerNorm:
            case Op::Gelu: need(in(0)); break;
            default: break;
        }
        for (const std::string& name : s.node.inputs)
            if (g.contains(name)) last[g.index_of(name)] = k;
        for (const std::string& name : s.hidden) last[g.index_of(name)] = k;
    }
    std::vector<std::vector<size_t>> plan(n);
    for (size_t j = 0; j < n; ++j)
        if (!needed[j]) plan[last[j] < n ? last[j] : j].push_back(j);
    return plan;
}

}  // namespace stepformer::engine
