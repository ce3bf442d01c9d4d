// Softmax and LayerNorm over the last axis, forward and backward side by side.
#include <algorithm>
#include <cmath>

#include "cpu_backend.h"

namespace stepformer::cpu::STEPFORMER_ISA {

void CpuBackend::softmax_forward(float* out, const float* in, int rows, int cols) {
#pragma omp parallel for num_threads(threads_for(int64_t(rows) * cols * 8)) schedule(static)
    for (int r = 0; r < rows; ++r) {
        const float* x = in + int64_t(r) * cols;
        float* y = out + int64_t(r) * cols;
        float mx = *std::max_element(x, x + cols);
        double sum = 0.0;
        for (int c = 0; c < cols; ++c) {
            y[c] = std::exp(x[c] - mx);
            sum += y[c];
        }
        const float inv = static_cast<float>(1.0 / sum);
        for (int c = 0; c < cols; ++c) y[c] *= inv;
    }
}

// din = y * (dy - sum(dy * y))
void CpuBackend::softmax_backward(float* din, const float* dout, const float* out, int rows, int cols) {
#pragma omp parallel for num_threads(threads_for(int64_t(rows) * cols * 4)) schedule(static)
    for (int r = 0; r < rows; ++r) {
        const float* dy = dout + int64_t(r) * cols;
        const float* y = out + int64_t(r) * cols;
        float* dx = din + int64_t(r) * cols;
        double dot = 0.0;
        for (int c = 0; c < cols; ++c) dot += double(dy[c]) * y[c];
        const float fdot = static_cast<float>(dot);
        for (int c = 0; c < cols; ++c) dx[c] = y[c] * (dy[c] - fdot);
    }
}

void CpuBackend::layernorm_forward(float* out, float* mean, float* rstd, const float* in, const float* gamma,
                                   const float* beta, int rows, int cols, float eps) {
#pragma omp parallel for num_threads(threads_for(int64_t(rows) * cols * 8)) schedule(static)
    for (int r = 0; r < rows; ++r) {
        const float* x = in + int64_t(r) * cols;
        float* y = out + int64_t(r) * cols;
        double s = 0.0;
        for (int c = 0; c < cols; ++c) s += x[c];
        const double m = s / cols;
        double v = 0.0;
        for (int c = 0; c < cols; ++c) v += (x[c] - m) * (x[c] - m);
        v /= cols;  // biased variance, as nn.LayerNorm
        const float rs = static_cast<float>(1.0 / std::sqrt(v + eps));
        const float mf = static_cast<float>(m);
        if (gamma && beta)
            for (int c = 0; c < cols; ++c) y[c] = (x[c] - mf) * rs * gamma[c] + beta[c];
        else if (gamma)  // nanoGPT's LayerNorm(bias=False)
            for (int c = 0; c < cols; ++c) y[c] = (x[c] - mf) * rs * gamma[c];
        else
            for (int c = 0; c < cols; ++c) y[c] = (x[c] - mf) * rs;
        mean[r] = mf;
        rstd[r] = rs;
    }
}

// With xhat = (x - mean) rstd and g = dy * gamma:
// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)); dgamma += sum dy*xhat; dbeta += sum dy.
// Without gamma (the tutorial's fresh nn.LayerNorm: gamma = 1, beta = 0, not parameters) g = dy
// and there is no dgamma/dbeta; without beta (nanoGPT's bias=False) there is no dbeta.
void CpuBackend::layernorm_backward(float* din, float* dgamma, float* dbeta, const float* dout, const float* in,
                                    const float* mean, const float* rstd, const float* gamma, int rows, int cols) {
    for (int r = 0; r < rows; ++r) {
        const float* x = in + int64_t(r) * cols;
        const float* dy = dout + int64_t(r) * cols;
        float* dx = din + int64_t(r) * cols;
        const float m = mean[r], rs = rstd[r];
        double sum_g = 0.0, sum_gx = 0.0;
        for (int c = 0; c < cols; ++c) {
            const float xhat = (x[c] - m) * rs;
            const float g = gamma ? dy[c] * gamma[c] : dy[c];
            sum_g += g;
            sum_gx += double(g) * xhat;
            if (dgamma) dgamma[c] += dy[c] * xhat;
            if (dbeta) dbeta[c] += dy[c];
        }
        const float mg = static_cast<float>(sum_g / cols), mgx = static_cast<float>(sum_gx / cols);
        for (int c = 0; c < cols; ++c) {
            const float xhat = (x[c] - m) * rs;
            const float g = gamma ? dy[c] * gamma[c] : dy[c];
            dx[c] = rs * (g - mg - xhat * mgx);
        }
    }
}

}  // namespace stepformer::cpu::STEPFORMER_ISA
