// The CPU backend's kernels for what the model needs besides its layers: masks, the positional
// table, dropout's mask and backward, filling and copying.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpu_backend.h"
#include "philox.h"

namespace stepformer::cpu::STEPFORMER_ISA {

void CpuBackend::pad_mask(float* mask, const int* ids_k, int B, int Lq, int Lk, int pad_id) {
    for (int b = 0; b < B; ++b)
        for (int q = 0; q < Lq; ++q)
            for (int k = 0; k < Lk; ++k)
                mask[(size_t(b) * Lq + q) * Lk + k] = ids_k[size_t(b) * Lk + k] == pad_id ? 1.0f : 0.0f;
}

void CpuBackend::subsequence_mask(float* mask, int B, int T) {
    for (int b = 0; b < B; ++b)
        for (int q = 0; q < T; ++q)
            for (int k = 0; k < T; ++k) mask[(size_t(b) * T + q) * T + k] = k > q ? 1.0f : 0.0f;
}

void CpuBackend::mask_or(float* out, const float* a, const float* b, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i] > 0.0f ? 1.0f : 0.0f;
}

void CpuBackend::positional_table(float* pe, int L, int D) {
    // As the tutorial: div_term = exp(arange(0, D, 2) * (-log(10000) / D)) in float32.
    const float k = -std::log(10000.0f) / static_cast<float>(D);
    for (int i = 0; 2 * i < D; ++i) {
        const float div_term = std::exp(static_cast<float>(2 * i) * k);
        for (int pos = 0; pos < L; ++pos) {
            const float angle = static_cast<float>(pos) * div_term;
            pe[size_t(pos) * D + 2 * i] = std::sin(angle);
            if (2 * i + 1 < D) pe[size_t(pos) * D + 2 * i + 1] = std::cos(angle);
        }
    }
}

void CpuBackend::dropout_mask(float* keep, int64_t n, float p, uint64_t seed, uint64_t offset) {
    const float scale = 1.0f / (1.0f - p);
    const int64_t blocks = (n + 3) / 4;
#pragma omp parallel for num_threads(threads_for(n * 40)) schedule(static)
    for (int64_t j = 0; j < blocks; ++j) {
        const philox::Block r = philox::block(seed, offset, uint64_t(j));
        for (int w = 0; w < 4; ++w) {
            const int64_t i = j * 4 + w;
            if (i < n) keep[i] = philox::uniform(r[size_t(w)]) < p ? 0.0f : scale;
        }
    }
}

void CpuBackend::mul_forward(float* out, const float* a, const float* b, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = a[i] * b[i];
}

void CpuBackend::fill(float* x, int64_t n, float value) { std::fill(x, x + n, value); }

void CpuBackend::copy(float* out, const float* in, int64_t n) {
    if (n > 0) std::memcpy(out, in, size_t(n) * sizeof(float));
}

void CpuBackend::apply_update(float* param, const float* grad, int64_t n, const WeightUpdate& upd) {
    if (upd.apply_if && *upd.apply_if == 0.0f) return;
    if (upd.out && upd.out != param) {
        std::copy(param, param + n, upd.out);
        param = upd.out;
    }
    // SGD and Adam take lr and the betas rounded to float, as before WeightUpdate held doubles.
    if (upd.kind == WeightUpdate::Kind::SGD)
        sgd_step(param, upd.buf1, grad, n, float(upd.lr), upd.momentum);
    else if (upd.kind == WeightUpdate::Kind::Adam)
        adam_step(param, upd.buf1, upd.buf2, grad, n, float(upd.lr), float(upd.beta1), float(upd.beta2), upd.eps,
                  upd.step);
    else
        adamw_apply(param, upd.buf1, upd.buf2, grad, n, upd);
}

}  // namespace stepformer::cpu::STEPFORMER_ISA
