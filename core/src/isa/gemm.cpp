// One kernel set's matrix products (Eigen's GEMM, built for this set's instructions) and the set's
// table (isa.h). Eigen is renamed per set on the command line (-DEigen=Eigen_<set>), so its inline
// functions and templates, compiled three ways, are three sets of symbols.
#include <Eigen/Core>

#include "isa/isa.h"

namespace stepformer::cpu::STEPFORMER_ISA {
namespace {

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Stride = Eigen::OuterStride<>;
using Out = Eigen::Map<Mat, 0, Stride>;
using In = Eigen::Map<const Mat, 0, Stride>;

// C = a b (or +=), or C = (a b) × alpha: the two expressions the backend has always computed its
// products with (linear layers plain, attention scores scaled, by 1 too). Eigen evaluates them by
// different paths, so they are kept apart: the numbers are checked to the last bit (the layer
// lab's print, the score-scaling comparison).
template <class C, class A, class B>
void product(C& c, const A& a, const B& b, const float* alpha, bool accumulate) {
    if (alpha)
        c.noalias() = (a * b) * *alpha;
    else if (accumulate)
        c.noalias() += a * b;
    else
        c.noalias() = a * b;
}

template <class OutMap, class InMap>
void gemmMaps(bool ta, bool tb, const float* alpha, const InMap& a, const InMap& b, bool accumulate, OutMap& c) {
    if (ta && tb)
        product(c, a.transpose(), b.transpose(), alpha, accumulate);
    else if (ta)
        product(c, a.transpose(), b, alpha, accumulate);
    else if (tb)
        product(c, a, b.transpose(), alpha, accumulate);
    else
        product(c, a, b, alpha, accumulate);
}

}  // namespace

static void gemm_any(bool ta, bool tb, int M, int N, int K, const float* alpha, const float* A, int lda, const float* B,
              int ldb, bool accumulate, float* C, int ldc) {
    // Whole matrices (the attention's products) as plain maps: Eigen picks its kernels by the map's
    // type, and these are the expressions the backend always computed them with (the numbers
    // PyTorch's layer lab prints are checked to the last digit).
    if (lda == (ta ? M : K) && ldb == (tb ? K : N) && ldc == N) {
        using PlainOut = Eigen::Map<Mat>;
        using PlainIn = Eigen::Map<const Mat>;
        PlainOut c(C, M, N);
        gemmMaps(ta, tb, alpha, PlainIn(A, ta ? K : M, ta ? M : K), PlainIn(B, tb ? N : K, tb ? K : N), accumulate, c);
        return;
    }
    Out c(C, M, N, Stride(ldc));
    gemmMaps(ta, tb, alpha, In(A, ta ? K : M, ta ? M : K, Stride(lda)), In(B, tb ? N : K, tb ? K : N, Stride(ldb)),
             accumulate, c);
}

void gemm(bool ta, bool tb, int M, int N, int K, const float* A, int lda, const float* B, int ldb, bool accumulate,
          float* C, int ldc) {
    gemm_any(ta, tb, M, N, K, nullptr, A, lda, B, ldb, accumulate, C, ldc);
}

void gemm_scaled(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                 float* C, int ldc) {
    gemm_any(ta, tb, M, N, K, &alpha, A, lda, B, ldb, false, C, ldc);
}

const KernelSet& kernel_set() {
    static const KernelSet set{STEPFORMER_ISA_NAME, &make_backend, update_rows(), &gemm, &gemm_scaled, &stream_forward, &backward_update_rows,
                               &sgd, &adam, &adamw, &sum_squares};
    return set;
}

}  // namespace stepformer::cpu::STEPFORMER_ISA
