// Linear layers and embeddings: forward and backward side by side.
//
// Few tokens (the tutorial's 10): a streaming kernel reads each weight row once and keeps the
// dot products of a 6-row x 4-token tile in registers; measured 3-4 ms faster than Eigen's
// packed GEMM on the traced forward at the tutorial's size (~22 vs ~25 ms; 2-row and 8-row tiles
// were no better than Eigen). Many tokens: Eigen's GEMM on per-thread slices of W. The backward
// pass fused with the optimizer update is in cpu_linear_update.cpp.
#include <algorithm>
#include <cstring>

#include "cpu_backend.h"
#include "cpu_simd.h"

namespace stepformer::cpu {
namespace {

// y[n0:n0+T, o:o+R] = x[n0:n0+T] W[o:o+R]^T, the sums over I in R x T vector registers.
// `next`: the rows the following call reads, fetched into the cache meanwhile (or null). A block's
// rows are short streams (2-8 KB each) that the hardware prefetcher would only learn part-way.
template <int R, int T>
void rows_forward(float* y, const float* x, const float* Wr, int I, int O, int o, int n0, const float* next) {
    using L = VectorLanes;
    typename L::V acc[R][T];
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < T; ++t) acc[r][t] = L::zero();
    const int vec_end = I / L::width * L::width;
    for (int i = 0; i < vec_end; i += L::width) {
        typename L::V w[R];
        for (int r = 0; r < R; ++r) w[r] = L::load(Wr + int64_t(r) * I + i);
        if (next)
            for (int r = 0; r < R; ++r) __builtin_prefetch(next + int64_t(r) * I + i);
        for (int t = 0; t < T; ++t) {
            const typename L::V xv = L::load(x + int64_t(n0 + t) * I + i);
            for (int r = 0; r < R; ++r) acc[r][t] = L::fmaddv(xv, w[r], acc[r][t]);
        }
    }
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < T; ++t) {
            float s = L::sum(acc[r][t]);
            const float* xr = x + int64_t(n0 + t) * I;
            for (int i = vec_end; i < I; ++i) s += xr[i] * Wr[int64_t(r) * I + i];
            y[int64_t(n0 + t) * O + o + r] = s;
        }
}

template <int R, int T>
void rows_forward_tokens(float* y, const float* x, const float* Wr, int I, int O, int o, int n0, int tokens,
                         const float* next) {
    if constexpr (T > 1) {
        if (tokens < T) return rows_forward_tokens<R, T - 1>(y, x, Wr, I, O, o, n0, tokens, next);
    }
    rows_forward<R, T>(y, x, Wr, I, O, o, n0, next);
}

template <int R, int T>
void stream_forward(float* y, const float* x, const float* W, int N, int I, int O, int o0, int o1) {
    for (int o = o0; o < o1;) {
        const bool full = o1 - o >= R;
        const int rows = full ? R : 1;
        // The next block's rows, fetched during this block's first pass over the tokens.
        const float* next = o + rows + R <= o1 ? W + int64_t(o + rows) * I : nullptr;
        for (int n0 = 0; n0 < N; n0 += T) {
            const int tokens = std::min(T, N - n0);
            const float* fetch = n0 == 0 ? next : nullptr;
            if (full)
                rows_forward_tokens<R, T>(y, x, W + int64_t(o) * I, I, O, o, n0, tokens, fetch);
            else
                rows_forward_tokens<1, T>(y, x, W + int64_t(o) * I, I, O, o, n0, tokens, fetch);
        }
        o += rows;
    }
}

}  // namespace

// y (N, O) = x (N, I) W^T. Threads split the output features, so each streams its own rows of W.
void CpuBackend::linear_forward(float* y, const float* x, const float* W, int N, int I, int O) {
    const int parts = threads_for(int64_t(N) * I * O);
#pragma omp parallel for num_threads(parts) schedule(static)
    for (int p = 0; p < parts; ++p) {
        const int o0 = chunk_begin(O, parts, p), o1 = chunk_begin(O, parts, p + 1);
        if (o1 <= o0) continue;
        if (N <= kStreamingMaxTokens) {
            stream_forward<kForwardRows, kForwardTokens>(y, x, W, N, I, O, o0, o1);
            continue;
        }
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

void CpuBackend::embedding_forward(float* out, const int* ids, const float* table, int N, int /*V*/, int D) {
    for (int n = 0; n < N; ++n) std::memcpy(out + int64_t(n) * D, table + int64_t(ids[n]) * D, sizeof(float) * D);
}

void CpuBackend::embedding_backward(float* dtable, const float* dout, const int* ids, int N, int /*V*/, int D) {
    for (int n = 0; n < N; ++n) {
        float* row = dtable + int64_t(ids[n]) * D;
        const float* g = dout + int64_t(n) * D;
        for (int d = 0; d < D; ++d) row[d] += g[d];
    }
}

}  // namespace stepformer::cpu
