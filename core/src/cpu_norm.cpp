// Softmax and LayerNorm over the last axis, forward and backward side by side.
#include <algorithm>
#include <cmath>

#include "cpu_backend.h"
#include "isa/simd.h"

namespace stepformer::cpu::STEPFORMER_ISA {

namespace {

// One row's softmax, a vector at a time (the columns after the last full vector one by one):
// e^(x - max) by the lanes' exp, summed in double (as always: the layer lab prints PyTorch's
// digits, and the gradient checks' finite differences need the sum's rounding out of the way),
// then times 1 / sum. A NaN anywhere makes the whole row NaN (through the sum), as a max of -inf
// does (-inf - -inf), as in PyTorch: a row with every score masked to -inf. Rows shorter than a
// vector compute exactly as the scalar code always did.
template <class L>
void softmax_row(float* y, const float* x, int n) {
    using V = typename L::V;
    constexpr int w = L::width;
    const int full = n / w * w;
    float mx = x[0];
    if (full > 0) {
        V m = L::load(x);
        for (int c = w; c < full; c += w) m = L::max(m, L::load(x + c));
        mx = max_of<L>(m);
    }
    for (int c = full; c < n; ++c) mx = mx < x[c] ? x[c] : mx;
    const V vmx = L::set1(mx);
    typename L::DoubleSum vs;
    for (int c = 0; c < full; c += w) {
        const V e = L::exp(L::sub(L::load(x + c), vmx));
        L::store(y + c, e);
        vs.add(e);
    }
    double sum = vs.total();
    for (int c = full; c < n; ++c) {
        y[c] = std::exp(x[c] - mx);
        sum += y[c];
    }
    const float inv = static_cast<float>(1.0 / sum);
    const V vinv = L::set1(inv);
    for (int c = 0; c < full; c += w) L::store(y + c, L::mul(L::load(y + c), vinv));
    for (int c = full; c < n; ++c) y[c] *= inv;
}

// din = y * (dy - sum(dy * y)), the sum in double.
template <class L>
void softmax_row_backward(float* dx, const float* dy, const float* y, int n) {
    using V = typename L::V;
    constexpr int w = L::width;
    const int full = n / w * w;
    typename L::DoubleSum vd;
    for (int c = 0; c < full; c += w) vd.add(L::mul(L::load(dy + c), L::load(y + c)));
    double dot = vd.total();
    for (int c = full; c < n; ++c) dot += double(dy[c]) * y[c];
    const float fdot = static_cast<float>(dot);
    const V vdot = L::set1(fdot);
    for (int c = 0; c < full; c += w) L::store(dx + c, L::mul(L::load(y + c), L::sub(L::load(dy + c), vdot)));
    for (int c = full; c < n; ++c) dx[c] = y[c] * (dy[c] - fdot);
}

}  // namespace

void CpuBackend::softmax_forward(float* out, const float* in, int rows, int cols) {
#pragma omp parallel for num_threads(threads_for(int64_t(rows) * cols * 8)) schedule(static)
    for (int r = 0; r < rows; ++r) softmax_row<VectorLanes>(out + int64_t(r) * cols, in + int64_t(r) * cols, cols);
}

void CpuBackend::softmax_backward(float* din, const float* dout, const float* out, int rows, int cols) {
#pragma omp parallel for num_threads(threads_for(int64_t(rows) * cols * 4)) schedule(static)
    for (int r = 0; r < rows; ++r) {
        const int64_t o = int64_t(r) * cols;
        softmax_row_backward<VectorLanes>(din + o, dout + o, out + o, cols);
    }
}

void CpuBackend::layernorm_forward(float* out, float* mean, float* rstd, const float* in, const float* gamma,
                                   const float* beta, int rows, int cols, float eps) {
#pragma omp parallel for num_threads(threads_for(int64_t(rows) * cols * 8)) schedule(static)
    for (int r = 0; r < rows; ++r) {
        const float* x = in + int64_t(r) * cols;
        float* y = out + int64_t(r) * cols;
        // The sums in double lanes (`omp simd`): one scalar chain of double adds was ~1 us a row at
        // 512 features, most of the op's time at the tutorial's 10 rows.
        double s = 0.0;
#pragma omp simd reduction(+ : s)
        for (int c = 0; c < cols; ++c) s += x[c];
        const double m = s / cols;
        double v = 0.0;
#pragma omp simd reduction(+ : v)
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
        // The sums in double lanes, as the forward's.
        double sum_g = 0.0, sum_gx = 0.0;
        if (gamma) {
#pragma omp simd reduction(+ : sum_g, sum_gx)
            for (int c = 0; c < cols; ++c) {
                const float g = dy[c] * gamma[c];
                sum_g += g;
                sum_gx += double(g) * ((x[c] - m) * rs);
            }
        } else {
#pragma omp simd reduction(+ : sum_g, sum_gx)
            for (int c = 0; c < cols; ++c) {
                sum_g += dy[c];
                sum_gx += double(dy[c]) * ((x[c] - m) * rs);
            }
        }
        if (dgamma)
            for (int c = 0; c < cols; ++c) dgamma[c] += dy[c] * ((x[c] - m) * rs);
        if (dbeta)
            for (int c = 0; c < cols; ++c) dbeta[c] += dy[c];
        const float mg = static_cast<float>(sum_g / cols), mgx = static_cast<float>(sum_gx / cols);
        for (int c = 0; c < cols; ++c) {
            const float xhat = (x[c] - m) * rs;
            const float g = gamma ? dy[c] * gamma[c] : dy[c];
            dx[c] = rs * (g - mg - xhat * mgx);
        }
    }
}

}  // namespace stepformer::cpu::STEPFORMER_ISA
