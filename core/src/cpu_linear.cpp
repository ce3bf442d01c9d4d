// Linear layers and embeddings: forward and backward side by side.
//
// Eigen's blocked GEMM on per-thread slices of W. (Hand-written streaming kernels for the
// tutorial's 10 tokens were tried and measured slower than this; see docs/architecture.md.)
#include <algorithm>
#include <cstring>

#include "cpu_backend.h"

namespace stepformer::cpu {
// y (N, O) = x (N, I) W^T. Threads split the output features, so each streams its own rows of W.
void CpuBackend::linear_forward(float* y, const float* x, const float* W, int N, int I, int O) {
    const int parts = threads_for(int64_t(N) * I * O);
#pragma omp parallel for num_threads(parts) schedule(static)
    for (int p = 0; p < parts; ++p) {
        const int o0 = chunk_begin(O, parts, p), o1 = chunk_begin(O, parts, p + 1);
        if (o1 <= o0) continue;
        CMapR X(x, N, I);
        CMapR Wc(W + int64_t(o0) * I, o1 - o0, I);  // (o, I)
        MapRS Yc(y + o0, N, o1 - o0, Strided(O));   // (N, o)
        Yc.noalias() = X * Wc.transpose();
    }
}

// dx (N, I) = dy W, split by columns of dx; dW (O, I) = or += dy^T x, split by rows of dW.
void CpuBackend::linear_backward(float* dx, float* dW, const float* dy, const float* x, const float* W, int N, int I,
                                 int O, bool accumulate_dx, bool accumulate_dw) {
    const int parts = threads_for(int64_t(N) * I * O);
#pragma omp parallel for num_threads(parts) schedule(static)
    for (int p = 0; p < parts; ++p) {
        const int o0 = chunk_begin(O, parts, p), o1 = chunk_begin(O, parts, p + 1);
        const int i0 = chunk_begin(I, parts, p), i1 = chunk_begin(I, parts, p + 1);
        if (dW && o1 > o0) {
            CMapR X(x, N, I);
            CMapRS dYc(dy + o0, N, o1 - o0, Strided(O));  // (N, o)
            MapR dWc(dW + int64_t(o0) * I, o1 - o0, I);    // (o, I)
            if (accumulate_dw)
                dWc.noalias() += dYc.transpose() * X;
            else
                dWc.noalias() = dYc.transpose() * X;
        }
        if (dx && i1 > i0) {
            CMapR dY(dy, N, O);
            CMapRS Wc(W + i0, O, i1 - i0, Strided(I));   // (O, i)
            MapRS dXc(dx + i0, N, i1 - i0, Strided(I));  // (N, i)
            if (accumulate_dx)
                dXc.noalias() += dY * Wc;
            else
                dXc.noalias() = dY * Wc;
        }
    }
}

void CpuBackend::embedding_forward(float* out, const int* ids, const float* table, int N, int D) {
    for (int n = 0; n < N; ++n) std::memcpy(out + int64_t(n) * D, table + int64_t(ids[n]) * D, sizeof(float) * D);
}

void CpuBackend::embedding_backward(float* dtable, const float* dout, const int* ids, int N, int D) {
    for (int n = 0; n < N; ++n) {
        float* row = dtable + int64_t(ids[n]) * D;
        const float* g = dout + int64_t(n) * D;
        for (int d = 0; d < D; ++d) row[d] += g[d];
    }
}

}  // namespace stepformer::cpu
