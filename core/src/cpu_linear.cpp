// Linear layers and embeddings: forward and backward side by side.
//
// Two regimes. With few tokens (the tutorial: 2 sentences x 5 tokens) a linear layer is a
// matrix-vector product in disguise, bound by streaming W from memory: the small-N kernels
// below read every weight exactly once, keep the token vectors in L1 and never pack W. With
// many tokens the layer is GEMM-bound and Eigen's blocked GEMM takes over.
#include <algorithm>
#include <cstring>

#include "cpu_backend.h"

namespace stepformer::cpu {
namespace {

// 16 floats: one AVX-512 register, or two AVX2 ones; GCC lowers it to what -march offers.
typedef float v16 __attribute__((vector_size(64)));
inline v16 load16(const float* p) {
    v16 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store16(float* p, v16 v) { std::memcpy(p, &v, sizeof v); }
inline v16 splat16(float s) { return v16{} + s; }
inline float hsum(v16 v) {
    float s = 0.0f;
    for (int i = 0; i < 16; ++i) s += v[i];
    return s;
}

constexpr int kSmallN = 16;  // at or below this many tokens, use the streaming kernels

// y[n, o] for o in [o0, o1), G tokens starting at x (row stride I), two weight rows at a time.
template <int G>
void forward_rows(float* y, const float* x, const float* W, int I, int O, int o0, int o1) {
    const int I16 = I / 16 * 16;
    for (int o = o0; o < o1; o += 2) {
        const bool two = o + 1 < o1;
        const float* w0 = W + int64_t(o) * I;
        const float* w1 = two ? w0 + I : w0;
        v16 a0[G], a1[G];
        for (int t = 0; t < G; ++t) a0[t] = a1[t] = v16{};
        for (int k = 0; k < I16; k += 16) {
            const v16 wv0 = load16(w0 + k), wv1 = load16(w1 + k);
            for (int t = 0; t < G; ++t) {
                const v16 xv = load16(x + int64_t(t) * I + k);
                a0[t] += wv0 * xv;
                a1[t] += wv1 * xv;
            }
        }
        for (int t = 0; t < G; ++t) {
            float s0 = hsum(a0[t]), s1 = hsum(a1[t]);
            for (int k = I16; k < I; ++k) {
                s0 += w0[k] * x[int64_t(t) * I + k];
                s1 += w1[k] * x[int64_t(t) * I + k];
            }
            y[int64_t(t) * O + o] = s0;
            if (two) y[int64_t(t) * O + o + 1] = s1;
        }
    }
}

void forward_small(float* y, const float* x, const float* W, int N, int I, int O, int o0, int o1) {
    for (int n0 = 0; n0 < N; n0 += 8) {
        const int G = std::min(8, N - n0);
        float* yy = y + int64_t(n0) * O;
        const float* xx = x + int64_t(n0) * I;
        switch (G) {
            case 1: forward_rows<1>(yy, xx, W, I, O, o0, o1); break;
            case 2: forward_rows<2>(yy, xx, W, I, O, o0, o1); break;
            case 3: forward_rows<3>(yy, xx, W, I, O, o0, o1); break;
            case 4: forward_rows<4>(yy, xx, W, I, O, o0, o1); break;
            case 5: forward_rows<5>(yy, xx, W, I, O, o0, o1); break;
            case 6: forward_rows<6>(yy, xx, W, I, O, o0, o1); break;
            case 7: forward_rows<7>(yy, xx, W, I, O, o0, o1); break;
            default: forward_rows<8>(yy, xx, W, I, O, o0, o1); break;
        }
    }
}

// dx[n, i0:i1] (=|+=) sum_o dy[n, o] W[o, i0:i1], 32 columns and up to 8 tokens in registers.
template <int G>
void dx_cols(float* dx, const float* dy, const float* W, int I, int O, int i0, int i1, bool acc) {
    int i = i0;
    for (; i + 32 <= i1; i += 32) {
        v16 a[G][2];
        for (int t = 0; t < G; ++t) a[t][0] = a[t][1] = v16{};
        for (int o = 0; o < O; ++o) {
            const float* w = W + int64_t(o) * I + i;
            const v16 w0 = load16(w), w1 = load16(w + 16);
            for (int t = 0; t < G; ++t) {
                const v16 d = splat16(dy[int64_t(t) * O + o]);
                a[t][0] += d * w0;
                a[t][1] += d * w1;
            }
        }
        for (int t = 0; t < G; ++t) {
            float* out = dx + int64_t(t) * I + i;
            if (acc) {
                store16(out, load16(out) + a[t][0]);
                store16(out + 16, load16(out + 16) + a[t][1]);
            } else {
                store16(out, a[t][0]);
                store16(out + 16, a[t][1]);
            }
        }
    }
    for (; i < i1; ++i)
        for (int t = 0; t < G; ++t) {
            float s = 0.0f;
            for (int o = 0; o < O; ++o) s += dy[int64_t(t) * O + o] * W[int64_t(o) * I + i];
            float& out = dx[int64_t(t) * I + i];
            out = acc ? out + s : s;
        }
}

void dx_small(float* dx, const float* dy, const float* W, int N, int I, int O, int i0, int i1, bool acc) {
    for (int n0 = 0; n0 < N; n0 += 8) {
        const int G = std::min(8, N - n0);
        float* d = dx + int64_t(n0) * I;
        const float* g = dy + int64_t(n0) * O;
        switch (G) {
            case 1: dx_cols<1>(d, g, W, I, O, i0, i1, acc); break;
            case 2: dx_cols<2>(d, g, W, I, O, i0, i1, acc); break;
            case 3: dx_cols<3>(d, g, W, I, O, i0, i1, acc); break;
            case 4: dx_cols<4>(d, g, W, I, O, i0, i1, acc); break;
            case 5: dx_cols<5>(d, g, W, I, O, i0, i1, acc); break;
            case 6: dx_cols<6>(d, g, W, I, O, i0, i1, acc); break;
            case 7: dx_cols<7>(d, g, W, I, O, i0, i1, acc); break;
            default: dx_cols<8>(d, g, W, I, O, i0, i1, acc); break;
        }
    }
}

// dW[o, :] (=|+=) sum_n dy[n, o] x[n, :] for o in [o0, o1): each dW row written once.
void dw_small(float* dW, const float* dy, const float* x, int N, int I, int O, int o0, int o1, bool acc) {
    const int I16 = I / 16 * 16;
    for (int o = o0; o < o1; ++o) {
        float* row = dW + int64_t(o) * I;
        for (int k = 0; k < I16; k += 16) {
            v16 s = acc ? load16(row + k) : v16{};
            for (int n = 0; n < N; ++n) s += splat16(dy[int64_t(n) * O + o]) * load16(x + int64_t(n) * I + k);
            store16(row + k, s);
        }
        for (int k = I16; k < I; ++k) {
            float s = acc ? row[k] : 0.0f;
            for (int n = 0; n < N; ++n) s += dy[int64_t(n) * O + o] * x[int64_t(n) * I + k];
            row[k] = s;
        }
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
        if (N <= kSmallN) {
            forward_small(y, x, W, N, I, O, o0, o1);
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
        const int i0 = chunk_begin(I, parts, p, 32), i1 = chunk_begin(I, parts, p + 1, 32);
        if (N <= kSmallN) {
            if (dx && i1 > i0) dx_small(dx, dy, W, N, I, O, i0, i1, accumulate_dx);
            if (dW && o1 > o0) dw_small(dW, dy, x, N, I, O, o0, o1, accumulate_dw);
            continue;
        }
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
