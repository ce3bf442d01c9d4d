// A linear layer's backward pass fused with the optimizer's update of its weight.
//
// At the tutorial's size a training step moves ~10 tokens through 44M weights: it is bound by
// memory traffic, not arithmetic. Done separately, each weight is read for dx, its gradient
// written, read again for the norm and again for the update. Fused, each block of rows of W is
// read once (the kernel set's backward_update_rows, isa/linear.cpp); here the threads split the
// rows and sum their private dx at the end. Many tokens: the GEMMs, then one pass to update.
#include <algorithm>
#include <new>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cpu_backend.h"
#include "isa/isa.h"

namespace stepformer::cpu::STEPFORMER_ISA {
namespace {

constexpr int kLinePad = 16;  // floats: one 64-byte cache line

// A buffer of floats (not std::vector: its members are inline templates that every kernel set would
// compile its own way under one name, isa.h).
class Floats {
public:
    explicit Floats(size_t n, bool zero = false) : p_(static_cast<float*>(::operator new(sizeof(float) * (n ? n : 1)))) {
        if (zero)
            for (size_t i = 0; i < n; ++i) p_[i] = 0.0f;
    }
    ~Floats() { ::operator delete(p_); }
    Floats(const Floats&) = delete;
    Floats& operator=(const Floats&) = delete;
    float* data() { return p_; }

private:
    float* p_;
};

}  // namespace

double CpuBackend::linear_backward_update_sum(float* dx, float* dW, const float* dy, const float* x, float* W, int N,
                                              int I, int O, bool accumulate_dx, const WeightUpdate& upd) {
    const KernelSet& k = kernel_set();
    UpdateScalars scalars;
    if (upd.kind == WeightUpdate::Kind::Adam)
        scalars.adam = adam_scalars(float(upd.lr), float(upd.beta1), float(upd.beta2), upd.eps, upd.step);
    else if (upd.kind == WeightUpdate::Kind::AdamW)
        scalars.adamw = adamw_scalars(upd);
    const int64_t n = int64_t(O) * I;
    const int parts = threads_for(int64_t(N) * n);
    double total = 0.0;
    const bool apply = !upd.apply_if || *upd.apply_if != 0.0f;

    if (N > kStreamingMaxTokens) {
        Floats own(dW ? 0 : size_t(n));
        float* g = dW ? dW : own.data();
        linear_backward(dx, g, dy, x, W, N, I, O, accumulate_dx, false);
#pragma omp parallel for num_threads(parts) reduction(+ : total) schedule(static)
        for (int p = 0; p < parts; ++p) {
            const int64_t b = n * p / parts, e = n * (p + 1) / parts;
            total += k.sum_squares(g + b, e - b);
            if (apply) update_weights(W, b, g + b, e - b, upd, scalars);
        }
        return total;
    }

    // Each thread owns a range of rows and a private dx; the private ones are summed at the end.
    // Its rows are a cache line more than I apart: at I = 2048 (8 KB rows) each token's load of
    // its row aliased the previous token's store in the low 12 address bits, and the load waited
    // for the store (4K aliasing): 10 x 2048 x 512 took 906 us, 10 x 512 x 2048 727 us.
    const int ldp = I + kLinePad;
    Floats partial(size_t(parts) * N * ldp, /*zero=*/true);
    Floats scratch(size_t(parts) * k.update_rows * I);
#pragma omp parallel num_threads(parts) reduction(+ : total)
    {
        // The team may be smaller than asked (OMP_DYNAMIC): split by the team actually running.
        int p = 0, team = 1;
#ifdef _OPENMP
        p = omp_get_thread_num();
        team = omp_get_num_threads();
#endif
        const int o0 = chunk_begin(O, team, p, k.update_rows), o1 = chunk_begin(O, team, p + 1, k.update_rows);
        float* dxp = partial.data() + size_t(p) * N * ldp;        // (N, I), rows ldp apart
        float* g = scratch.data() + size_t(p) * k.update_rows * I;  // (rows, I), stays in L1
        total += k.backward_update_rows(dW, dxp, ldp, g, dy, x, W, N, I, O, o0, o1, upd, scalars, apply);
        if (dx) {
#pragma omp barrier
            const int64_t len = int64_t(N) * I, b = len * p / team, e = len * (p + 1) / team;
            for (int64_t at = b; at < e;) {  // a row's run of the thread's share at a time
                const int64_t n = at / I, i0 = at % I, run = std::min<int64_t>(e - at, I - i0);
                const float* src = partial.data() + size_t(n * ldp + i0);
                for (int64_t j = 0; j < run; ++j) {
                    float s = accumulate_dx ? dx[at + j] : 0.0f;
                    for (int q = 0; q < team; ++q) s += src[size_t(q) * N * ldp + size_t(j)];
                    dx[at + j] = s;
                }
                at += run;
            }
        }
    }
    return total;
}

}  // namespace stepformer::cpu::STEPFORMER_ISA
