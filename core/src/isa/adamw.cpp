// AdamW's element loop of one kernel set (isa.h), rounded as torch 1.13's single-tensor AdamW rounds it.
//
// Compiled with -ffp-contract=off (core/CMakeLists.txt, every set): every multiply and add is rounded on
// its own unless written as std::fma, and std::fma is written exactly where torch's CPU kernels
// fuse: add_ with an alpha (Vectorized fmadd) and addcmul_. Left to the compiler, it would fuse
// whatever it liked across statements (param * decay into the final add, say), and the result
// would drift from torch's by an ulp here and there. Checked bit for bit against torch by
// tests/core/test_adamw.cpp on tests/fixtures/optim/.
#include <cmath>

#include "isa/isa.h"

namespace stepformer::cpu::STEPFORMER_ISA {

void adamw(float* out, const float* param, float* m, float* v, const float* grad, int64_t n,
                 const AdamWScalars& a) {
    for (int64_t i = 0; i < n; ++i) {
        const float g = grad[i];
        // param.mul_(1 - lr * wd)
        const float p = param[i] * a.decay;
        // exp_avg.mul_(b1).add_(g, alpha=1-b1)
        const float mi = std::fma(g, a.one_minus_beta1, m[i] * a.beta1);
        // exp_avg_sq.mul_(b2).addcmul_(g, g, value=1-b2)
        const float vi = std::fma(a.one_minus_beta2 * g, g, v[i] * a.beta2);
        m[i] = mi;
        v[i] = vi;
        const float denom = std::sqrt(vi) / a.bc2_sqrt + a.eps;
        out[i] = p + (a.neg_step_size * mi) / denom;  // param.addcdiv_(exp_avg, denom, value=-step_size)
    }
}

}  // namespace stepformer::cpu::STEPFORMER_ISA
