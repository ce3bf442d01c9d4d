// Scaled dot-product attention pieces, forward and backward side by side. G = batch * heads;
// every (G) slice is an independent small GEMM, so threads take whole slices.
#include <cstring>

#include "cpu_backend.h"

namespace stepformer::cpu::STEPFORMER_ISA {

void CpuBackend::split_heads(float* out, const float* in, int B, int L, int H, int d) {
    // in (B, L, H*d) -> out (B, H, L, d)
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int l = 0; l < L; ++l)
                std::memcpy(out + ((int64_t(b) * H + h) * L + l) * d, in + (int64_t(b) * L + l) * H * d + int64_t(h) * d,
                            sizeof(float) * d);
}

void CpuBackend::merge_heads(float* out, const float* in, int B, int L, int H, int d) {
    // in (B, H, L, d) -> out (B, L, H*d)
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int l = 0; l < L; ++l)
                std::memcpy(out + (int64_t(b) * L + l) * H * d + int64_t(h) * d, in + ((int64_t(b) * H + h) * L + l) * d,
                            sizeof(float) * d);
}

void CpuBackend::attn_scores_forward(float* scores, const float* Q, const float* K, int G, int Lq, int Lk, int dk,
                                     float scale) {
    const KernelSet& k = kernel_set();
#pragma omp parallel for num_threads(threads_for(int64_t(G) * Lq * Lk * dk)) schedule(static)
    for (int g = 0; g < G; ++g) {
        // scores (Lq, Lk) = scale Q (Lq, dk) K^T (dk, Lk)
        k.gemm_scaled(false, true, Lq, Lk, dk, scale, Q + int64_t(g) * Lq * dk, dk, K + int64_t(g) * Lk * dk, dk,
                      scores + int64_t(g) * Lq * Lk, Lk);
    }
}

void CpuBackend::attn_scores_backward(float* dQ, float* dK, const float* dscores, const float* Q, const float* K, int G,
                                      int Lq, int Lk, int dk, float scale) {
    const KernelSet& k = kernel_set();
#pragma omp parallel for num_threads(threads_for(int64_t(G) * Lq * Lk * dk)) schedule(static)
    for (int g = 0; g < G; ++g) {
        const float* ds = dscores + int64_t(g) * Lq * Lk;  // (Lq, Lk)
        const float* q = Q + int64_t(g) * Lq * dk;         // (Lq, dk)
        const float* kk = K + int64_t(g) * Lk * dk;        // (Lk, dk)
        k.gemm_scaled(false, false, Lq, dk, Lk, scale, ds, Lk, kk, dk, dQ + int64_t(g) * Lq * dk, dk);  // dQ = s dS K
        k.gemm_scaled(true, false, Lk, dk, Lq, scale, ds, Lk, q, dk, dK + int64_t(g) * Lk * dk, dk);   // dK = s dS^T Q
    }
}

void CpuBackend::mask_fill_forward(float* out, const float* in, const float* mask, int B, int H, int Lq, int Lk,
                                   float value) {
    const int64_t plane = int64_t(Lq) * Lk;
#pragma omp parallel for collapse(2) num_threads(threads_for(int64_t(B) * H * plane * 2)) schedule(static)
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            const float* m = mask + b * plane;
            const float* src = in + (int64_t(b) * H + h) * plane;
            float* dst = out + (int64_t(b) * H + h) * plane;
            for (int64_t i = 0; i < plane; ++i) dst[i] = m[i] != 0.0f ? value : src[i];
        }
}

void CpuBackend::mask_fill_backward(float* din, const float* dout, const float* mask, int B, int H, int Lq, int Lk) {
    const int64_t plane = int64_t(Lq) * Lk;
#pragma omp parallel for collapse(2) num_threads(threads_for(int64_t(B) * H * plane * 2)) schedule(static)
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            const float* m = mask + b * plane;
            const float* src = dout + (int64_t(b) * H + h) * plane;
            float* dst = din + (int64_t(b) * H + h) * plane;
            for (int64_t i = 0; i < plane; ++i) dst[i] = m[i] != 0.0f ? 0.0f : src[i];
        }
}

void CpuBackend::attn_context_forward(float* context, const float* attn, const float* V, int G, int Lq, int Lk,
                                      int dv) {
    const KernelSet& k = kernel_set();
#pragma omp parallel for num_threads(threads_for(int64_t(G) * Lq * Lk * dv)) schedule(static)
    for (int g = 0; g < G; ++g) {
        // context (Lq, dv) = attn (Lq, Lk) V (Lk, dv)
        k.gemm(false, false, Lq, dv, Lk, attn + int64_t(g) * Lq * Lk, Lk, V + int64_t(g) * Lk * dv, dv, false,
               context + int64_t(g) * Lq * dv, dv);
    }
}

void CpuBackend::attn_context_backward(float* dattn, float* dV, const float* dcontext, const float* attn,
                                       const float* V, int G, int Lq, int Lk, int dv) {
    const KernelSet& k = kernel_set();
#pragma omp parallel for num_threads(threads_for(int64_t(G) * Lq * Lk * dv)) schedule(static)
    for (int g = 0; g < G; ++g) {
        const float* dc = dcontext + int64_t(g) * Lq * dv;  // (Lq, dv)
        const float* a = attn + int64_t(g) * Lq * Lk;       // (Lq, Lk)
        const float* v = V + int64_t(g) * Lk * dv;          // (Lk, dv)
        k.gemm(false, true, Lq, Lk, dv, dc, dv, v, dv, false, dattn + int64_t(g) * Lq * Lk, Lk);  // dA = dC V^T
        k.gemm(true, false, Lk, dv, Lq, a, Lk, dc, dv, false, dV + int64_t(g) * Lk * dv, dv);     // dV = A^T dC
    }
}

}  // namespace stepformer::cpu::STEPFORMER_ISA
