// Scaled dot-product attention pieces, forward and backward side by side. G = batch * heads;
// every (G) slice is an independent small GEMM, so threads take whole slices.
#include <cstring>

#include "cpu_backend.h"

namespace stepformer::cpu {

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
#pragma omp parallel for num_threads(threads_for(int64_t(G) * Lq * Lk * dk)) schedule(static)
    for (int g = 0; g < G; ++g) {
        CMapR q(Q + int64_t(g) * Lq * dk, Lq, dk);   // (Lq, dk)
        CMapR k(K + int64_t(g) * Lk * dk, Lk, dk);   // (Lk, dk)
        MapR s(scores + int64_t(g) * Lq * Lk, Lq, Lk);  // (Lq, Lk)
        s.noalias() = (q * k.transpose()) * scale;
    }
}

void CpuBackend::attn_scores_backward(float* dQ, float* dK, const float* dscores, const float* Q, const float* K, int G,
                                      int Lq, int Lk, int dk, float scale) {
#pragma omp parallel for num_threads(threads_for(int64_t(G) * Lq * Lk * dk)) schedule(static)
    for (int g = 0; g < G; ++g) {
        CMapR ds(dscores + int64_t(g) * Lq * Lk, Lq, Lk);
        CMapR q(Q + int64_t(g) * Lq * dk, Lq, dk);
        CMapR k(K + int64_t(g) * Lk * dk, Lk, dk);
        MapR dq(dQ + int64_t(g) * Lq * dk, Lq, dk);
        MapR dkm(dK + int64_t(g) * Lk * dk, Lk, dk);
        dq.noalias() = (ds * k) * scale;
        dkm.noalias() = (ds.transpose() * q) * scale;
    }
}

void CpuBackend::mask_fill_forward(float* out, const float* in, const float* mask, int B, int H, int Lq, int Lk,
                                   float value) {
    const int64_t plane = int64_t(Lq) * Lk;
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
#pragma omp parallel for num_threads(threads_for(int64_t(G) * Lq * Lk * dv)) schedule(static)
    for (int g = 0; g < G; ++g) {
        CMapR a(attn + int64_t(g) * Lq * Lk, Lq, Lk);
        CMapR v(V + int64_t(g) * Lk * dv, Lk, dv);
        MapR c(context + int64_t(g) * Lq * dv, Lq, dv);
        c.noalias() = a * v;
    }
}

void CpuBackend::attn_context_backward(float* dattn, float* dV, const float* dcontext, const float* attn,
                                       const float* V, int G, int Lq, int Lk, int dv) {
#pragma omp parallel for num_threads(threads_for(int64_t(G) * Lq * Lk * dv)) schedule(static)
    for (int g = 0; g < G; ++g) {
        CMapR dc(dcontext + int64_t(g) * Lq * dv, Lq, dv);
        CMapR a(attn + int64_t(g) * Lq * Lk, Lq, Lk);
        CMapR v(V + int64_t(g) * Lk * dv, Lk, dv);
        MapR da(dattn + int64_t(g) * Lq * Lk, Lq, Lk);
        MapR dvm(dV + int64_t(g) * Lk * dv, Lk, dv);
        da.noalias() = dc * v.transpose();
        dvm.noalias() = a.transpose() * dc;
    }
}

}  // namespace stepformer::cpu
