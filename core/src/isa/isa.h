// Private to cpu_isa_*.cpp: the functions each instruction-set build defines, in that build's
// namespace (STEPFORMER_ISA: avx512, avx2 or generic, set by core/CMakeLists.txt). Nothing here
// may be an inline function with external linkage: compiled three ways, the linker would keep
// one of them for all three (tests/cmake/check_isa_symbols.cmake checks the objects for that).
#pragma once

#ifndef STEPFORMER_ISA
#error "compiled only as part of a kernel set (core/CMakeLists.txt, stepformer_isa_*)"
#endif

#include "cpu_kernels.h"

namespace stepformer::cpu::STEPFORMER_ISA {

void gemm(bool ta, bool tb, int M, int N, int K, const float* A, int lda, const float* B, int ldb, bool accumulate,
          float* C, int ldc);
void gemm_scaled(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                 float* C, int ldc);
void stream_forward(float* y, const float* x, const float* W, int N, int I, int O, int o0, int o1);
double backward_update_rows(float* dW, float* dxp, int ldp, float* g, const float* dy, const float* x, float* W, int N,
                            int I, int O, int o0, int o1, const WeightUpdate& upd, const UpdateScalars& s, bool apply);
void sgd(float* out, const float* param, float* buf, const float* grad, int64_t n, float lr, float momentum);
void adam(float* out, const float* param, float* m, float* v, const float* grad, int64_t n, const AdamScalars& a);
void adamw(float* out, const float* param, float* m, float* v, const float* grad, int64_t n, const AdamWScalars& a);
double sum_squares(const float* x, int64_t n);
// Updates the n weights W[off:off+n] from their gradient g (g[0:n]) as u says: in place, or into
// u.out[off:off+n] when u.out is set (with non-temporal stores, fenced).
void update_weights(float* W, int64_t off, const float* g, int64_t n, const WeightUpdate& u, const UpdateScalars& s);
int update_rows();
std::unique_ptr<Backend> make_backend(int threads);  // this set's CpuBackend (cpu_backend.cpp)

// The set's table (cpu_kernels.cpp collects the three).
const KernelSet& kernel_set();

}  // namespace stepformer::cpu::STEPFORMER_ISA
