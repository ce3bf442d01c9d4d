// Linear layers and embeddings: forward and backward side by side.
//
// Few tokens (the tutorial's 10): the kernel set's streaming kernel reads each weight row once and
// keeps a tile of dot products in registers; measured 3-4 ms faster than a packed GEMM on the
// traced forward at the tutorial's size. Many tokens: the set's GEMM on per-thread slices of W.
// The backward pass fused with the optimizer update is in cpu_linear_update.cpp.
#include <cstring>

#include "cpu_backend.h"
#include "cpu_blas.h"

namespace stepformer::cpu::STEPFORMER_ISA {
namespace {

// The products of a linear layer over N tokens on `parts` threads: OpenBLAS's where it is the
// faster library here for large ones (cpu_blas.h: only inside our parallel region, one slice per
// thread), else the kernel set's.
BlasGemm products(const KernelSet& k, int N, int parts) {
    if (N >= kBlasMinTokens && parts >= 2)
        if (const BlasGemm g = large_gemm(k, parts)) return g;
    return k.gemm;
}
// Where OpenBLAS's own team is `parts` threads, the whole product in one call.
BlasGemm whole_product(const KernelSet& k, int N, int parts) {
    return N >= kBlasMinTokens && parts >= 2 ? large_gemm_whole(k, parts) : nullptr;
}

}  // namespace

// y (N, O) = x (N, I) W^T. Threads split the output features, so each streams its own rows of W.
void CpuBackend::linear_forward(float* y, const float* x, const float* W, int N, int I, int O) {
    const KernelSet& k = kernel_set();
    const int parts = threads_for(int64_t(N) * I * O);
    if (const BlasGemm whole = whole_product(k, N, parts)) return whole(false, true, N, O, I, x, I, W, I, false, y, O);
    const auto gemm = products(k, N, parts);
#pragma omp parallel for num_threads(parts) schedule(static)
    for (int p = 0; p < parts; ++p) {
        const int o0 = chunk_begin(O, parts, p), o1 = chunk_begin(O, parts, p + 1);
        if (o1 <= o0) continue;
        if (N <= kStreamingMaxTokens)
            k.stream_forward(y, x, W, N, I, O, o0, o1);
        else  // y[:, o0:o1] (N, o) = x (N, I) W[o0:o1]^T
            gemm(false, true, N, o1 - o0, I, x, I, W + int64_t(o0) * I, I, false, y + o0, O);
    }
}

// dx (N, I) = dy W, split by columns of dx; dW (O, I) = or += dy^T x, split by rows of dW.
void CpuBackend::linear_backward(float* dx, float* dW, const float* dy, const float* x, const float* W, int N, int I,
                                 int O, bool accumulate_dx, bool accumulate_dw) {
    const KernelSet& k = kernel_set();
    const int parts = threads_for(int64_t(N) * I * O);
    if (const BlasGemm whole = whole_product(k, N, parts)) {
        if (dW) whole(true, false, O, I, N, dy, O, x, I, accumulate_dw, dW, I);
        if (dx) whole(false, false, N, I, O, dy, O, W, I, accumulate_dx, dx, I);
        return;
    }
    const auto gemm = products(k, N, parts);
#pragma omp parallel for num_threads(parts) schedule(static)
    for (int p = 0; p < parts; ++p) {
        const int o0 = chunk_begin(O, parts, p), o1 = chunk_begin(O, parts, p + 1);
        const int i0 = chunk_begin(I, parts, p), i1 = chunk_begin(I, parts, p + 1);
        // dW[o0:o1] (o, I) = dy[:, o0:o1]^T (o, N) x (N, I)
        if (dW && o1 > o0)
            gemm(true, false, o1 - o0, I, N, dy + o0, O, x, I, accumulate_dw, dW + int64_t(o0) * I, I);
        // dx[:, i0:i1] (N, i) = dy (N, O) W[:, i0:i1] (O, i)
        if (dx && i1 > i0) gemm(false, false, N, i1 - i0, O, dy, O, W + i0, I, accumulate_dx, dx + i0, I);
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

}  // namespace stepformer::cpu::STEPFORMER_ISA
