// Private: OpenBLAS for the CPU backend's large products, where it is the faster library here.
//
// Which GEMM wins depends on the CPU: on one development machine (AVX-512 EPYC, 2 vCPUs) Eigen
// ran the models' 2048-row products 1.2-1.4x faster than Debian's OpenBLAS 0.3.21; on another
// (Zen 4, which OpenBLAS runs with its Cooper Lake kernels) OpenBLAS was 1.1-1.35x faster
// (docs/cpu_blas.md). So the choice is measured, once per process, on the first large product.
//
// Only OpenBLAS's OpenMP build is opened (dlopen, at run time: the project needs no BLAS to build
// or run), so there is one threading layer, libgomp, ours. It is only ever called from inside our
// own parallel regions, one slice of the product per thread: called there, the OpenMP build
// computes on the calling thread alone, so our split, the cores a training run holds
// (compute_threads.h) and the sums' order stay ours.
#pragma once

#include <string>

#include "cpu_kernels.h"

namespace stepformer::cpu {

// Linear layers over at least this many tokens are "large" (the class the choice is for); fewer
// stay with the kernel set's own products. The choice is measured on 1024-row slices.
constexpr int kBlasMinTokens = 256;

// C (M, N) = op(A) op(B), or += when `accumulate`: KernelSet::gemm's contract, through CBLAS.
using BlasGemm = void (*)(bool ta, bool tb, int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                          bool accumulate, float* C, int ldc);

// OpenBLAS's product when large products use it in this process, else null. Decided at the first
// call (STEPFORMER_CPU_GEMM: "eigen", "openblas", or "auto", the default: the faster of the two,
// measured on two threads against `set`'s own GEMM); call it outside a parallel region, with
// `threads` >= 2 the threads the products will run on (with fewer the kernel set's GEMM is used
// and nothing is decided). Throws InvalidArgument for another STEPFORMER_CPU_GEMM value, or
// "openblas" when it is not installed.
BlasGemm large_gemm(const KernelSet& set, int threads);
// The same, for a whole product on `threads` threads at once, called outside a parallel region:
// where OpenBLAS is chosen and its own team is that many threads (the packed blocks are shared
// between them: 21.2-21.8 ms against 24.8-25.8 for a slice per thread at 2048 x 512 x 2048,
// three runs each), else null.
BlasGemm large_gemm_whole(const KernelSet& set, int threads);

}  // namespace stepformer::cpu
