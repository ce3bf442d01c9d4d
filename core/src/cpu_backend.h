// Private: the CPU backend's class. Its kernels are split by family over cpu_*.cpp.
#pragma once

#include <Eigen/Core>

#include "stepformer/backend.h"

namespace stepformer::cpu {

using MatR = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MapR = Eigen::Map<MatR>;
using CMapR = Eigen::Map<const MatR>;
using Strided = Eigen::OuterStride<>;
using MapRS = Eigen::Map<MatR, 0, Strided>;
using CMapRS = Eigen::Map<const MatR, 0, Strided>;

// Work below this many multiply-adds is not worth waking a second thread for.
constexpr int64_t kParallelFlops = 1 << 16;

class CpuBackend final : public Backend {
public:
    explicit CpuBackend(int threads);
    std::string name() const override { return "cpu"; }
    int threads() const override { return threads_; }

    void linear_forward(float* y, const float* x, const float* W, int N, int I, int O) override;
    void linear_backward(float* dx, float* dW, const float* dy, const float* x, const float* W, int N, int I, int O,
                         bool accumulate_dx, bool accumulate_dw = true) override;
    void embedding_forward(float* out, const int* ids, const float* table, int N, int D) override;
    void embedding_backward(float* dtable, const float* dout, const int* ids, int N, int D) override;
    void split_heads(float* out, const float* in, int B, int L, int H, int d) override;
    void merge_heads(float* out, const float* in, int B, int L, int H, int d) override;
    void attn_scores_forward(float* scores, const float* Q, const float* K, int G, int Lq, int Lk, int dk,
                             float scale) override;
    void attn_scores_backward(float* dQ, float* dK, const float* dscores, const float* Q, const float* K, int G, int Lq,
                              int Lk, int dk, float scale) override;
    void mask_fill_forward(float* out, const float* in, const float* mask, int B, int H, int Lq, int Lk,
                           float value) override;
    void mask_fill_backward(float* din, const float* dout, const float* mask, int B, int H, int Lq, int Lk) override;
    void softmax_forward(float* out, const float* in, int rows, int cols) override;
    void softmax_backward(float* din, const float* dout, const float* out, int rows, int cols) override;
    void attn_context_forward(float* context, const float* attn, const float* V, int G, int Lq, int Lk,
                              int dv) override;
    void attn_context_backward(float* dattn, float* dV, const float* dcontext, const float* attn, const float* V, int G,
                               int Lq, int Lk, int dv) override;
    void add_forward(float* out, const float* a, const float* b, int64_t n) override;
    void positional_forward(float* out, const float* in, const float* pe, const float* keep, int B, int L,
                            int D) override;
    void layernorm_forward(float* out, float* mean, float* rstd, const float* in, const float* gamma,
                           const float* beta, int rows, int cols, float eps) override;
    void layernorm_backward(float* din, float* dgamma, float* dbeta, const float* dout, const float* in,
                            const float* mean, const float* rstd, const float* gamma, int rows, int cols) override;
    void relu_forward(float* out, const float* in, int64_t n) override;
    void relu_backward(float* din, const float* dout, const float* out, int64_t n) override;
    float cross_entropy_forward(float* losses, const float* probs, const int* targets, int N, int V, int ignore_index,
                                int* counted) override;
    void cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                int ignore_index, int counted) override;
    void sgd_step(float* param, float* momentum_buf, const float* grad, int64_t n, float lr, float momentum) override;
    void adam_step(float* param, float* m, float* v, const float* grad, int64_t n, float lr, float beta1, float beta2,
                   float eps, int64_t step) override;
    double sum_squares(const float* x, int64_t n) override;

    // Threads to use for `work` multiply-adds (1 when small).
    int threads_for(int64_t work) const { return work < kParallelFlops ? 1 : threads_; }

private:
    int threads_;
};

// Splits [0, n) into `parts` near-equal ranges aligned to `align`; returns the begin of part p.
inline int chunk_begin(int n, int parts, int p, int align = 8) {
    int64_t raw = static_cast<int64_t>(n) * p / parts;
    int b = static_cast<int>(raw / align * align);
    return p == 0 ? 0 : (p == parts ? n : b);
}

}  // namespace stepformer::cpu
