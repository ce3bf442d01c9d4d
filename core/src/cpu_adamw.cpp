// AdamW on the CPU: the element loop is the kernel set's (isa/adamw.cpp, rounded as torch rounds).
#include "cpu_backend.h"

namespace stepformer::cpu::STEPFORMER_ISA {

void CpuBackend::adamw_apply(float* param, float* m, float* v, const float* grad, int64_t n, const WeightUpdate& upd) {
    const AdamWScalars a = adamw_scalars(upd);
    const int parts = threads_for(n);
#pragma omp parallel for num_threads(parts) schedule(static)
    for (int p = 0; p < parts; ++p) {
        const int64_t b = n * p / parts, e = n * (p + 1) / parts;
        kernel_set().adamw(param + b, param + b, m + b, v + b, grad + b, e - b, a);
    }
}

}  // namespace stepformer::cpu::STEPFORMER_ISA
