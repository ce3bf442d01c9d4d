// Private: the CPU backend's hot loops, compiled once per instruction set and chosen at run time.
//
// One binary must run on every x86-64, and the loops that set the CPU's speed (the streaming
// linear kernels, the matrix products, the optimizer updates) are worth AVX-512 or AVX2 where the
// CPU has them. So cpu_isa_*.cpp are compiled three times (core/CMakeLists.txt), each time into
// its own namespace (stepformer::cpu::avx512 / avx2 / generic, Eigen renamed with them so no
// inline function of one build can stand in for another's), and kernels() hands out the table of
// the best set this CPU runs. The CPU backend itself is compiled per set too (cpu_backend.h, every
// cpu_*.cpp kernel file): make_cpu_backend() makes the one of the set in use. tests/core/test_cpu_kernels.cpp checks each set against the generic
// one; ctest runs the model goldens once more under each set (STEPFORMER_CPU_KERNELS).
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include "adamw_scalars.h"
#include "stepformer/backend.h"

namespace stepformer::cpu {

// Up to this many tokens a linear layer is bound by streaming its weight from memory and the
// streaming kernels (each weight row read once, the products in registers) win; above, GEMMs.
constexpr int kStreamingMaxTokens = 48;

struct AdamScalars {
    float beta1, beta2, eps, step_size, bc2_sqrt;
};
inline AdamScalars adam_scalars(float lr, float beta1, float beta2, float eps, int64_t step) {
    const double bc1 = 1.0 - std::pow(double(beta1), double(step));
    const double bc2 = 1.0 - std::pow(double(beta2), double(step));
    return {beta1, beta2, eps, static_cast<float>(lr / bc1), static_cast<float>(std::sqrt(bc2))};
}

// A step's optimizer scalars, computed once per call by the caller (in the baseline build).
struct UpdateScalars {
    AdamScalars adam{};
    AdamWScalars adamw{};
};

struct KernelSet {
    const char* name;  // "avx512", "avx2" or "generic"
    // The whole CPU backend of this set (cpu_backend.h): every kernel built for its instructions.
    std::unique_ptr<Backend> (*make_backend)(int threads);
    int update_rows;   // rows of W per block in backward_update_rows (its blocks align to this)

    // C (M, N) = op(A) op(B), or += when `accumulate`; row-major, leading dimensions lda, ldb, ldc;
    // op(A) is A (M, K) or, with ta, A^T of A stored (K, M); likewise B. The linear layers'.
    void (*gemm)(bool ta, bool tb, int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                 bool accumulate, float* C, int ldc);
    // C = (op(A) op(B)) × alpha, the attention scores' and contexts' (alpha 1 included: a product
    // scaled afterwards rounds as Eigen's scaled product, not as the plain one).
    void (*gemm_scaled)(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                        int ldb, float* C, int ldc);

    // y[:, o0:o1] = x W[o0:o1]^T for N <= kStreamingMaxTokens tokens: x (N, I), W (O, I), y (N, O).
    void (*stream_forward)(float* y, const float* x, const float* W, int N, int I, int O, int o0, int o1);

    // Rows [o0, o1) of a linear layer's backward pass fused with its weight's update (few tokens):
    // dxp (N, I, rows ldp apart) += dy[:, o0:o1] W[o0:o1]; the rows' gradient g = dy^T x goes to
    // dW (when not null); the update is applied when `apply`. `g` is scratch of update_rows x I.
    // Returns the rows' sum of squared gradients.
    double (*backward_update_rows)(float* dW, float* dxp, int ldp, float* g, const float* dy, const float* x, float* W,
                                   int N, int I, int O, int o0, int o1, const WeightUpdate& upd,
                                   const UpdateScalars& s, bool apply);

    // The optimizers' element loops (torch's rounding; `out` may be `param`), and sum(x^2).
    void (*sgd)(float* out, const float* param, float* buf, const float* grad, int64_t n, float lr, float momentum);
    void (*adam)(float* out, const float* param, float* m, float* v, const float* grad, int64_t n,
                 const AdamScalars& a);
    void (*adamw)(float* out, const float* param, float* m, float* v, const float* grad, int64_t n,
                  const AdamWScalars& a);
    double (*sum_squares)(const float* x, int64_t n);
};

// Compiled once (cpu_registry.cpp), for the CPU backends of every set: what they are called.
std::string cpu_name();
std::string describe_cpu(int threads);

// The set in use: STEPFORMER_CPU_KERNELS's if set (an unknown name or one this CPU cannot run
// throws InvalidArgument, naming the sets it can), otherwise the best this CPU runs.
const KernelSet& kernels();

}  // namespace stepformer::cpu
