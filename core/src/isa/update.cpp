// The optimizers' element loops of one kernel set (isa.h), shared by the separate updates
// (apply_update, sgd_step, adam_step) and the fused linear_backward_update so both round the same.
#include "isa/isa.h"

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

// sum(x^2) in double. `omp simd` lets the compiler keep vector partial sums (a plain loop is
// one scalar dependency chain: measured as most of the fused update's time).
double sum_squares(const float* x, int64_t n) {
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += double(x[i]) * double(x[i]);
    return s;
}

}  // namespace stepformer::cpu::STEPFORMER_ISA
