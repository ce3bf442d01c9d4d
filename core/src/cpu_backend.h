// Private: the CPU backend's class, compiled once per kernel set (cpu_kernels.h): a class of its own
// in each set's namespace (stepformer::cpu::avx512::CpuBackend, ...), its kernels split by family
// over cpu_*.cpp. make_cpu_backend() makes the one of the set in use. Only the kernel sets include it.
#pragma once

#include <algorithm>
#include <cstdint>

#include "isa/isa.h"
#include "stepformer/backend.h"
#include "stepformer/compute_threads.h"

namespace stepformer::cpu::STEPFORMER_ISA {

// Work below this many multiply-adds is not worth waking a second thread for.
constexpr int64_t kParallelFlops = 1 << 16;

class CpuBackend final : public Backend {
public:
    explicit CpuBackend(int threads);
    std::string name() const override;
    std::string describe() const override;
    int threads() const { return threads_; }
    bool supports(Kernel) const override { return true; }  // the reference: every kernel
    // Backend's answers, given here again: inherited, this set's vtable would name Backend's inline
    // ones and make each set compile its own copy under their shared names (isa.h).
    bool host_memory() const override { return true; }  // kernels run on the caller's memory
    size_t memory_in_use() const override { return 0; }  // nothing held besides the caller's

    void linear_forward(float* y, const float* x, const float* W, int N, int I, int O) override;
    void linear_backward(float* dx, float* dW, const float* dy, const float* x, const float* W, int N, int I, int O,
                         bool accumulate_dx, bool accumulate_dw = true) override;
    void linear_backward_update(float* dx, float* dW, double* dW_sum_squares, const float* dy, const float* x, float* W,
                                int N, int I, int O, bool accumulate_dx, const WeightUpdate& upd) override {
        const double s = linear_backward_update_sum(dx, dW, dy, x, W, N, I, O, accumulate_dx, upd);
        if (dW_sum_squares) *dW_sum_squares += s;
    }
    void embedding_forward(float* out, const int* ids, const float* table, int N, int V, int D) override;
    void embedding_backward(float* dtable, const float* dout, const int* ids, int N, int V, int D) override;
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
    void gelu_forward(float* out, const float* in, int64_t n) override;
    void gelu_backward(float* din, const float* dout, const float* in, int64_t n) override;
    void add_bias(float* y, const float* bias, int N, int O) override;
    void bias_backward(float* dbias, const float* dy, int N, int O) override;
    void scale(float* out, const float* in, int64_t n, float s) override;
    void cross_entropy_forward(float* losses, float* mean, int* counted, const float* probs, const int* targets, int N,
                               int V, int ignore_index) override;
    void cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                int ignore_index) override;
    void smoothed_cross_entropy_forward(float* losses, float* sum, const float* logits, const int* targets, int N,
                                        int V, int ignore_index, float eps) override;
    void smoothed_cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                         int ignore_index, float eps, float scale) override;
    void all_finite(float* flag, const float* x, int64_t n) override;
    void pad_mask(float* mask, const int* ids_k, int B, int Lq, int Lk, int pad_id) override;
    void subsequence_mask(float* mask, int B, int T) override;
    void mask_or(float* out, const float* a, const float* b, int64_t n) override;
    void positional_table(float* pe, int L, int D) override;
    void dropout_mask(float* keep, int64_t n, float p, uint64_t seed, uint64_t offset) override;
    void mul_forward(float* out, const float* a, const float* b, int64_t n) override;
    void fill(float* x, int64_t n, float value) override;
    void copy(float* out, const float* in, int64_t n) override;
    void apply_update(float* param, const float* grad, int64_t n, const WeightUpdate& upd) override;
    void sgd_step(float* param, float* momentum_buf, const float* grad, int64_t n, float lr, float momentum) override;
    void adam_step(float* param, float* m, float* v, const float* grad, int64_t n, float lr, float beta1, float beta2,
                   float eps, int64_t step) override;
    // AdamW in place (apply_update's, for upd.kind AdamW): no kernel of its own in the interface,
    // apply_update and linear_backward_update are how it is reached.
    void adamw_apply(float* param, float* m, float* v, const float* grad, int64_t n, const WeightUpdate& upd);
    void sum_squares(double* acc, const float* x, int64_t n) override { *acc += sum_squares_of(x, n); }
    // The CPU computes as it is called: every result is in place when a kernel returns.
    void sync() override {}

    // Threads to use for `work` multiply-adds (1 when small, or while another thread holds the
    // cores: stepformer/compute_threads.h).
    int threads_for(int64_t work) const {
        return work < kParallelFlops ? 1 : std::min(threads_, thread_team_limit());
    }

private:
    double linear_backward_update_sum(float* dx, float* dW, const float* dy, const float* x, float* W, int N, int I,
                                      int O, bool accumulate_dx, const WeightUpdate& upd);
    double sum_squares_of(const float* x, int64_t n) const;
    int threads_;
};

// Splits [0, n) into `parts` near-equal ranges aligned to `align`; returns the begin of part p.
inline int chunk_begin(int n, int parts, int p, int align = 8) {
    int64_t raw = static_cast<int64_t>(n) * p / parts;
    int b = static_cast<int>(raw / align * align);
    return p == 0 ? 0 : (p == parts ? n : b);
}

}  // namespace stepformer::cpu::STEPFORMER_ISA
