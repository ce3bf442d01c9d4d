// Private: the backward pass's bookkeeping (engine/backward.cpp): pending
// gradients of trace entries, recorded as grad.<name> once every consumer has contributed, and
// the parameters' gradients with the optimizer's fused updates.
#pragma once

#include <string>
#include <unordered_map>

#include "engine/model_context.h"

namespace stepformer::detail {

struct GradState {
    Trace& tr;
    Staging& st;
    bool record;
    std::unordered_map<std::string, Tensor> pending;

    // The gradient buffer of trace entry `name`, created zeroed on first use.
    Tensor& g(const std::string& name) {
        auto it = pending.find(name);
        if (it != pending.end()) return it->second;
        Tensor& t = pending.emplace(name, Tensor(tr.at(name).value.shape)).first->second;
        st.zeros(t);
        return t;
    }
    // g(name) where the backend computes, to read and add into.
    float* gd(const std::string& name) { return st.inout(g(name)); }
    // Every consumer has contributed: record the gradient (or drop it).
    void finish(const std::string& name) {
        auto it = pending.find(name);
        if (it == pending.end()) throw std::logic_error("backward: no gradient for '" + name + "'");
        if (record) {
            const TraceEntry& e = tr.at(name);
            std::vector<Axis> axes = e.axes;
            tr.add(names::grad(name), Node{Role::Gradient, Op::Gradient, e.block, {name}}, std::move(axes),
                   std::move(it->second));
        } else {
            st.forget(it->second);
            tr.pool.give(it->second);
        }
        pending.erase(it);
    }
    // Moves a freshly computed gradient in as complete.
    void put_and_finish(const std::string& name, Tensor grad) {
        pending[name] = std::move(grad);
        finish(name);
    }
};

// Kernel addresses come from the staging the forward pass made (Trace::staging).
struct Ctx {
    const Config& c;
    const ParamSet& p;
    ParamSet& grads;
    Backend& be;
    Staging& st;
    GradState& gs;
    ParamUpdater* updater;
    const std::unordered_map<const float*, const float*>* resident;  // Transformer::resident_weights()
    const float* weight(const Tensor& t) const { return resident ? resident->at(t.ptr()) : st.in(t); }
    const float* w(const std::string& n) const { return weight(p.at(n)); }
    float* dw(const std::string& n) { return st.inout(grads.at(n)); }
    const float* in(const std::string& entry) const { return st.in(gs.tr.at(entry).value); }
    // The backward pass has made its last use of parameter n: its gradient is final and the
    // weight itself is no longer read, so an optimizer may update it now (while it is in cache).
    void ready(const std::string& n) const {
        if (updater) updater->ready(p.index_of(n), st);
    }
    // Backward of the linear layer with weight n (its last use): dx (N, I) = or += dy W and
    // dW = dy^T x, with the optimizer's update fused in when there is one.
    void linear(const std::string& n, float* dx, const float* dy, const float* x, int N, int I, int O, bool acc_dx) {
        const size_t i = p.index_of(n);
        const ParamUpdater::Fused* f = updater ? updater->fused_update(i) : nullptr;
        if (!f) {
            be.linear_backward(dx, st.out(grads[i]), dy, x, weight(p[i]), N, I, O, acc_dx, false);
            ready(n);
            return;
        }
        float* dW = f->keep_gradient ? st.out(grads[i]) : nullptr;
        const StagedUpdate u = stage_update(st, f->weight, p[i].size(), f->update);
        be.linear_backward_update(dx, dW, f->grad_sum_squares, dy, x, u.weight, N, I, O, acc_dx, u.update);
    }
};

// The backward pass over a trace whose gradient at the output (the logits, or the layer lab's
// last entry) is pending in x.gs (engine/backward.cpp).
void graph_backward(Ctx& x, const Batch& batch);

}  // namespace stepformer::detail
