// Private: AdamW's per-step scalars, shared by the CPU kernel (cpu_adamw.cpp) and the Vulkan
// backend's push constants, so both round them the same way.
//
// torch 1.13's _single_tensor_adamw computes its scalars in Python floats (double) and rounds
// each to float only where a tensor op takes it:
//   param.mul_(1 - lr * weight_decay)
//   exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
//   exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
//   denom = (exp_avg_sq.sqrt() / sqrt(1 - beta2 ** step)).add_(eps)
//   param.addcdiv_(exp_avg, denom, value=-(lr / (1 - beta1 ** step)))
// Rounding 1 - beta1 from the double beta1 gives 0.1f for 0.9; from 0.9f it would be a different
// float (0.100000024f), which is why WeightUpdate carries lr and the betas in double.
#pragma once

#include <cmath>

#include "stepformer/backend.h"

namespace stepformer {

struct AdamWScalars {
    float decay;            // 1 - lr * weight_decay (1 exactly for a parameter not decayed)
    float beta1, beta2;     // mul_'s
    float one_minus_beta1;  // add_'s alpha
    float one_minus_beta2;  // addcmul_'s value
    float eps;
    float bc2_sqrt;       // sqrt(1 - beta2^step)
    float neg_step_size;  // addcdiv_'s value: -(lr / (1 - beta1^step))
};

inline AdamWScalars adamw_scalars(const WeightUpdate& u) {
    const double step = static_cast<double>(u.step);
    const double bc1 = 1.0 - std::pow(u.beta1, step), bc2 = 1.0 - std::pow(u.beta2, step);
    AdamWScalars a;
    a.decay = static_cast<float>(1.0 - u.lr * u.weight_decay);
    a.beta1 = static_cast<float>(u.beta1);
    a.beta2 = static_cast<float>(u.beta2);
    a.one_minus_beta1 = static_cast<float>(1.0 - u.beta1);
    a.one_minus_beta2 = static_cast<float>(1.0 - u.beta2);
    a.eps = u.eps;
    a.bc2_sqrt = static_cast<float>(std::sqrt(bc2));
    a.neg_step_size = static_cast<float>(-(u.lr / bc1));
    return a;
}

}  // namespace stepformer
