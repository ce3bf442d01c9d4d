// Element-wise kernels, the loss and the optimizer updates.
#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu_backend.h"
#include "stepformer/loss.h"

namespace stepformer::cpu::STEPFORMER_ISA {

void CpuBackend::add_forward(float* out, const float* a, const float* b, int64_t n) {
#pragma omp parallel for num_threads(threads_for(n)) schedule(static)
    for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

void CpuBackend::positional_forward(float* out, const float* in, const float* pe, const float* keep, int B, int L,
                                    int D) {
    for (int b = 0; b < B; ++b)
        for (int l = 0; l < L; ++l) {
            const int64_t row = (int64_t(b) * L + l) * D;
            const float* p = pe + int64_t(l) * D;
            for (int d = 0; d < D; ++d) {
                const float v = in[row + d] + p[d];
                out[row + d] = keep ? v * keep[row + d] : v;
            }
        }
}

void CpuBackend::relu_forward(float* out, const float* in, int64_t n) {
#pragma omp parallel for num_threads(threads_for(n)) schedule(static)
    for (int64_t i = 0; i < n; ++i) out[i] = in[i] <= 0.0f ? 0.0f : in[i];  // NaN passes, as torch.relu's
}

void CpuBackend::relu_backward(float* din, const float* dout, const float* out, int64_t n) {
#pragma omp parallel for num_threads(threads_for(n)) schedule(static)
    for (int64_t i = 0; i < n; ++i) din[i] = out[i] <= 0.0f ? 0.0f : dout[i];  // threshold_backward's test
}

void CpuBackend::gelu_forward(float* out, const float* in, int64_t n) {
    constexpr float kSqrtHalf = 0.70710678118654752f;  // 1/√2
#pragma omp parallel for num_threads(threads_for(n)) schedule(static)
    for (int64_t i = 0; i < n; ++i) out[i] = 0.5f * in[i] * (1.0f + std::erf(in[i] * kSqrtHalf));
}

void CpuBackend::gelu_backward(float* din, const float* dout, const float* in, int64_t n) {
    constexpr float kSqrtHalf = 0.70710678118654752f, kInvSqrt2Pi = 0.39894228040143268f;  // 1/√2, 1/√(2π)
#pragma omp parallel for num_threads(threads_for(n)) schedule(static)
    for (int64_t i = 0; i < n; ++i) {
        const float x = in[i];
        const float cdf = 0.5f * (1.0f + std::erf(x * kSqrtHalf));
        const float pdf = kInvSqrt2Pi * std::exp(-0.5f * x * x);
        din[i] = dout[i] * (cdf + x * pdf);
    }
}

// y (N, O) += bias, row by row.
void CpuBackend::add_bias(float* y, const float* bias, int N, int O) {
#pragma omp parallel for num_threads(threads_for(int64_t(N) * O)) schedule(static)
    for (int r = 0; r < N; ++r) {
        float* row = y + int64_t(r) * O;
        for (int c = 0; c < O; ++c) row[c] += bias[c];
    }
}

// dbias[c] += dy[0, c], then dy[1, c], ... in row order into the running value (LayerNorm's dbeta
// order, and the GPU's columns.comp): the threads split the columns, in slices of 16 floats (a
// cache line each), never the rows.
void CpuBackend::bias_backward(float* dbias, const float* dy, int N, int O) {
    const int parts = std::max(1, std::min(threads_for(int64_t(N) * O), (O + 15) / 16));
#pragma omp parallel for num_threads(parts) schedule(static)
    for (int p = 0; p < parts; ++p) {
        const int b = chunk_begin(O, parts, p, 16), e = chunk_begin(O, parts, p + 1, 16);
        for (int r = 0; r < N; ++r) {
            const float* row = dy + int64_t(r) * O;
            for (int c = b; c < e; ++c) dbias[c] += row[c];
        }
    }
}

void CpuBackend::scale(float* out, const float* in, int64_t n, float s) {
#pragma omp parallel for num_threads(threads_for(n)) schedule(static)
    for (int64_t i = 0; i < n; ++i) out[i] = in[i] * s;
}

void CpuBackend::cross_entropy_forward(float* losses, float* mean, int* counted, const float* probs, const int* targets,
                                       int N, int V, int ignore_index) {
    CrossEntropy ce;
    ce.sum = cross_entropy_into(losses, probs, targets, N, V, ignore_index, &ce.counted);
    if (counted) *counted = ce.counted;
    *mean = ce.loss();
}

void CpuBackend::cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                        int ignore_index) {
    int counted = 0;
    for (int n = 0; n < N; ++n) counted += targets[n] != ignore_index;
    const float scale = counted ? 1.0f / static_cast<float>(counted) : 0.0f;
    for (int n = 0; n < N; ++n) {
        float* d = dlogits + int64_t(n) * V;
        const float* p = probs + int64_t(n) * V;
        if (targets[n] == ignore_index) {
            for (int v = 0; v < V; ++v) d[v] = 0.0f;
            continue;
        }
        for (int v = 0; v < V; ++v) d[v] = p[v] * scale;
        d[targets[n]] -= scale;
    }
}

// cal_loss's smoothing: q = 1 - eps at the target, eps / (V - 1) elsewhere (0 when V is 1), both
// rounded to float here once, as the GPU's host code rounds them for its shaders.
// Per row: log_softmax_c = (x_c - max) - log Σ exp(x - max), so losses[r] = Σ_c q_c (log s + (max -
// x_c)), every term ≥ 0 and nothing taken the log of is below 1. The row's Σ exp and Σ q·(...) are
// accumulated in double (as softmax_forward's Σ exp and log_sum_exp), the loss rounded to float;
// *sum adds the counted rows' float losses in row order in double (as cross_entropy_into).
void CpuBackend::smoothed_cross_entropy_forward(float* losses, float* sum, const float* logits, const int* targets,
                                                int N, int V, int ignore_index, float eps) {
    const float q_target = 1.0f - eps, q_other = V > 1 ? eps / static_cast<float>(V - 1) : 0.0f;
#pragma omp parallel for num_threads(threads_for(int64_t(N) * V * 8)) schedule(static)
    for (int r = 0; r < N; ++r) {
        const int t = targets[r];
        if (t == ignore_index) {
            losses[r] = 0.0f;
            continue;
        }
        const float* x = logits + int64_t(r) * V;
        float mx = -std::numeric_limits<float>::infinity();
        for (int c = 0; c < V; ++c) mx = std::max(mx, x[c]);
        double s = 0.0;
        for (int c = 0; c < V; ++c) s += std::exp(double(x[c]) - mx);
        const double log_s = std::log(s);
        double acc = 0.0;
        for (int c = 0; c < V; ++c) {
            const float q = c == t ? q_target : q_other;
            if (q != 0.0f) acc += double(q) * (log_s + (double(mx) - x[c]));  // eps 0: a −inf logit adds 0, not NaN
        }
        losses[r] = static_cast<float>(acc);
    }
    double total = 0.0;
    for (int r = 0; r < N; ++r)
        if (targets[r] != ignore_index) total += losses[r];
    *sum = static_cast<float>(total);
}

// (probs - q) * scale in float, q as in the forward.
void CpuBackend::smoothed_cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                                 int ignore_index, float eps, float scale) {
    const float q_target = 1.0f - eps, q_other = V > 1 ? eps / static_cast<float>(V - 1) : 0.0f;
#pragma omp parallel for num_threads(threads_for(int64_t(N) * V)) schedule(static)
    for (int r = 0; r < N; ++r) {
        float* d = dlogits + int64_t(r) * V;
        const float* p = probs + int64_t(r) * V;
        const int t = targets[r];
        if (t == ignore_index) {
            for (int c = 0; c < V; ++c) d[c] = 0.0f;
            continue;
        }
        for (int c = 0; c < V; ++c) d[c] = (p[c] - (c == t ? q_target : q_other)) * scale;
    }
}

void CpuBackend::all_finite(float* flag, const float* x, int64_t n) {
    bool finite = true;
    for (int64_t i = 0; i < n && finite; ++i) finite = std::isfinite(x[i]);
    *flag = finite ? 1.0f : 0.0f;
}

// torch.optim.SGD (dampening 0, no Nesterov, no weight decay): buf = momentum*buf + g; p -= lr*buf.
void CpuBackend::sgd_step(float* param, float* buf, const float* grad, int64_t n, float lr, float momentum) {
    const int parts = threads_for(n);
#pragma omp parallel for num_threads(parts) schedule(static)
    for (int p = 0; p < parts; ++p) {
        const int64_t b = n * p / parts, e = n * (p + 1) / parts;
        kernel_set().sgd(param + b, param + b, buf + b, grad + b, e - b, lr, momentum);
    }
}

void CpuBackend::adam_step(float* param, float* m, float* v, const float* grad, int64_t n, float lr, float beta1,
                           float beta2, float eps, int64_t step) {
    const AdamScalars a = adam_scalars(lr, beta1, beta2, eps, step);
    const int parts = threads_for(n);
#pragma omp parallel for num_threads(parts) schedule(static)
    for (int p = 0; p < parts; ++p) {
        const int64_t b = n * p / parts, e = n * (p + 1) / parts;
        kernel_set().adam(param + b, param + b, m + b, v + b, grad + b, e - b, a);
    }
}

double CpuBackend::sum_squares_of(const float* x, int64_t n) const {
    const int parts = threads_for(n);
    double total = 0.0;
#pragma omp parallel for num_threads(parts) reduction(+ : total) schedule(static)
    for (int p = 0; p < parts; ++p) {
        const int64_t b = n * p / parts, e = n * (p + 1) / parts;
        total += kernel_set().sum_squares(x + b, e - b);
    }
    return total;
}

}  // namespace stepformer::cpu::STEPFORMER_ISA
