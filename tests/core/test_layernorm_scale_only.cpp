// LayerNorm with a scale and no shift (nanoGPT's LayerNorm(bias=False): gamma given, beta null):
// the CPU kernels against the formula in double, y = (x - mean) / sqrt(var + eps) * gamma, and
// their gradients against central differences of that formula. The other backends (the GPU's
// shaders, the fallback's argument handling) against the CPU: BackendOps.LayerNorm and
// RowReductions (test_backend_ops.cpp), whose check_layernorm has the gamma-only form.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "stepformer/backend.h"

using namespace stepformer;

namespace {

using Vec = std::vector<float>;

Vec rnd(size_t n, uint32_t seed, float lo, float hi) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    Vec v(n);
    for (auto& x : v) x = d(g);
    return v;
}

// sum(dout * y) with y the scale-only LayerNorm of x (rows, cols), in double.
double objective(const std::vector<double>& x, const std::vector<double>& gamma, const Vec& dout, int rows, int cols,
                 double eps, std::vector<double>* y = nullptr) {
    double total = 0.0;
    for (int r = 0; r < rows; ++r) {
        const double* xr = x.data() + size_t(r) * cols;
        double mean = 0.0, var = 0.0;
        for (int c = 0; c < cols; ++c) mean += xr[c];
        mean /= cols;
        for (int c = 0; c < cols; ++c) var += (xr[c] - mean) * (xr[c] - mean);
        var /= cols;
        for (int c = 0; c < cols; ++c) {
            const double v = (xr[c] - mean) / std::sqrt(var + eps) * gamma[size_t(c)];
            if (y) (*y)[size_t(r) * cols + size_t(c)] = v;
            total += double(dout[size_t(r) * cols + size_t(c)]) * v;
        }
    }
    return total;
}

::testing::AssertionResult near(const char* what, const Vec& got, const std::vector<double>& want, double tol) {
    for (size_t i = 0; i < got.size(); ++i)
        if (!(std::abs(double(got[i]) - want[i]) <= tol * (1.0 + std::abs(want[i]))))
            return ::testing::AssertionFailure() << what << "[" << i << "] = " << got[i] << ", want " << want[i];
    return ::testing::AssertionSuccess();
}

}  // namespace

TEST(LayerNormScaleOnly, CpuMatchesTheFormulaAndItsDerivatives) {
    const float eps = 1e-5f;
    for (int threads : {1, 3})
        for (auto [rows, cols] : std::vector<std::pair<int, int>>{{1, 1}, {3, 7}, {5, 64}, {40, 33}}) {
            SCOPED_TRACE(std::to_string(threads) + " threads, rows " + std::to_string(rows) + ", cols " +
                         std::to_string(cols));
            auto be = make_cpu_backend(threads);
            const size_t n = size_t(rows) * cols, nr = size_t(rows), nc = size_t(cols);
            const Vec x = rnd(n, 1, -2.0f, 3.0f), gamma = rnd(nc, 2, 0.5f, 1.5f), dout = rnd(n, 3, -1.0f, 1.0f);
            std::vector<double> xd(x.begin(), x.end()), gd(gamma.begin(), gamma.end()), want(n);
            objective(xd, gd, dout, rows, cols, eps, &want);

            Vec y(n), mean(nr), rstd(nr);
            be->layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), gamma.data(), nullptr, rows, cols, eps);
            EXPECT_TRUE(near("y", y, want, 1e-5));

            // dgamma is accumulated: it starts from values the kernel must add to.
            const Vec dgamma0 = rnd(nc, 4, -1.0f, 1.0f);
            Vec din(n, 7.0f), dgamma = dgamma0;
            be->layernorm_backward(din.data(), dgamma.data(), nullptr, dout.data(), x.data(), mean.data(), rstd.data(),
                                   gamma.data(), rows, cols);
            const double h = 1e-5;
            auto loss = [&](const std::vector<double>& xs, const std::vector<double>& gs) {
                return objective(xs, gs, dout, rows, cols, eps);
            };
            std::vector<double> din_fd(n), dgamma_fd(nc);
            for (size_t i = 0; i < n; ++i) {
                std::vector<double> p = xd, m = xd;
                p[i] += h;
                m[i] -= h;
                din_fd[i] = (loss(p, gd) - loss(m, gd)) / (2 * h);
            }
            for (size_t c = 0; c < nc; ++c) {
                std::vector<double> p = gd, m = gd;
                p[c] += h;
                m[c] -= h;
                dgamma_fd[c] = double(dgamma0[c]) + (loss(xd, p) - loss(xd, m)) / (2 * h);
            }
            EXPECT_TRUE(near("din", din, din_fd, 1e-4));
            EXPECT_TRUE(near("dgamma", dgamma, dgamma_fd, 1e-4));

            // The shift changes neither the input's gradient nor gamma's: the gamma-and-beta
            // kernels give the same, and their dbeta is the column sums of dout.
            const Vec beta = rnd(nc, 5, -1.0f, 1.0f);
            Vec y_shifted(n), din_shifted(n), dgamma_shifted = dgamma0, dbeta(nc, 0.0f);
            be->layernorm_forward(y_shifted.data(), mean.data(), rstd.data(), x.data(), gamma.data(), beta.data(), rows,
                                  cols, eps);
            std::vector<double> want_shifted = want;
            for (size_t i = 0; i < n; ++i) want_shifted[i] += beta[i % nc];
            EXPECT_TRUE(near("y with beta", y_shifted, want_shifted, 1e-5));
            be->layernorm_backward(din_shifted.data(), dgamma_shifted.data(), dbeta.data(), dout.data(), x.data(),
                                   mean.data(), rstd.data(), gamma.data(), rows, cols);
            EXPECT_EQ(din_shifted, din);
            EXPECT_EQ(dgamma_shifted, dgamma);
            std::vector<double> column_sums(nc, 0.0);
            for (size_t i = 0; i < n; ++i) column_sums[i % nc] += dout[i];
            EXPECT_TRUE(near("dbeta", dbeta, column_sums, 1e-5));
        }
}
