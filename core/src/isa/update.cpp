// The optimizers' element loops of one kernel set (isa.h), shared by the separate updates
// (apply_update, sgd_step, adam_step) and the fused linear_backward_update so both round the same.
#include <algorithm>

#include "isa/isa.h"
#include "isa/simd.h"

namespace stepformer::cpu::STEPFORMER_ISA {

// torch.optim.SGD (dampening 0, no nesterov): buf = momentum * buf + grad; param -= lr * buf.
void sgd(float* out, const float* param, float* buf, const float* grad, int64_t n, float lr, float momentum) {
    for (int64_t i = 0; i < n; ++i) {
        const float b = momentum * buf[i] + grad[i];
        buf[i] = b;
        out[i] = param[i] - lr * b;
    }
}

// torch.optim.Adam (no weight decay, no amsgrad), in the order of its single-tensor path.
void adam(float* out, const float* param, float* m, float* v, const float* grad, int64_t n, const AdamScalars& a) {
    for (int64_t i = 0; i < n; ++i) {
        const float g = grad[i];
        m[i] = m[i] + (g - m[i]) * (1.0f - a.beta1);  // torch uses lerp_
        v[i] = v[i] * a.beta2 + (1.0f - a.beta2) * g * g;
        const float denom = std::sqrt(v[i]) / a.bc2_sqrt + a.eps;
        out[i] = param[i] - a.step_size * (m[i] / denom);
    }
}

namespace {
void update_into(float* out, float* W, int64_t off, const float* g, int64_t n, const WeightUpdate& u,
                 const UpdateScalars& s) {
    if (u.kind == WeightUpdate::Kind::SGD)
        sgd(out, W + off, u.buf1 + off, g, n, float(u.lr), u.momentum);
    else if (u.kind == WeightUpdate::Kind::Adam)
        adam(out, W + off, u.buf1 + off, u.buf2 + off, g, n, s.adam);
    else
        adamw(out, W + off, u.buf1 + off, u.buf2 + off, g, n, s.adamw);
}
}  // namespace

// Into a second buffer (the trainer's, TrainOptions::DivergenceGuard::SecondBuffer: the app's
// runs) its lines are not in cache, and plain stores would first read each from memory only to
// overwrite it: 4 more bytes a weight a step. So the updated weights are made in a 4 KB buffer
// that stays in L1 and go on with non-temporal stores. stepformer_gemm_bench
// BackwardUpdateFromMemory (10 tokens, 512 x 2048 and 2048 x 512, 160 MB of weights), the second
// buffer's time over in place's in the same run, two batches of six alternating runs of three:
// medians 1.24 and 1.22 with plain stores, 1.15 and 1.12 so. In a whole step the gain is within
// the noise (docs/cpu_speed.md): plain stores leave the last-updated layers in L3 for the next
// forward, which reads them first. Buffers of 1 KB and of 16-32 KB measured no better than plain
// stores. The same element loop either way, so the same roundings.
void update_weights(float* W, int64_t off, const float* g, int64_t n, const WeightUpdate& u, const UpdateScalars& s) {
    if (!u.out || u.out == W) return update_into(W + off, W, off, g, n, u, s);
    constexpr int64_t kChunk = 1024;  // floats
    alignas(64) float fresh[kChunk];
    for (int64_t c = 0; c < n; c += kChunk) {
        const int64_t len = std::min(kChunk, n - c);
        update_into(fresh, W, off + c, g + c, len, u, s);
        stream_copy(u.out + off + c, fresh, len);
    }
    stream_fence();  // before another thread reads u.out
}

// sum(x^2) in double. `omp simd` lets the compiler keep vector partial sums (a plain loop is
// one scalar dependency chain: measured as most of the fused update's time).
double sum_squares(const float* x, int64_t n) {
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += double(x[i]) * double(x[i]);
    return s;
}

}  // namespace stepformer::cpu::STEPFORMER_ISA
