// The CPU backend's kernel sets (stepformer/cpu_kernels.h): every set this CPU runs computes what
// the generic set computes, kernel by kernel, on shapes that take each path (few tokens: the
// streaming kernels; many: the GEMMs; odd sizes for the leftover columns and rows). AdamW is
// rounded as torch rounds it, so every set must agree with the generic one bit for bit; the rest
// to float rounding (the vector sets fuse multiply-adds and sum in another order).
//
// ctest runs the model goldens again under STEPFORMER_CPU_KERNELS=generic and =avx2
// (tests/CMakeLists.txt); on a CPU without the set asked for, the environment below skips them,
// saying so.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "stepformer/backend.h"
#include "stepformer/cpu_kernels.h"
#include "stepformer/message.h"

using namespace stepformer;

namespace {

class KernelSetEnvironment : public ::testing::Environment {
public:
    void SetUp() override {
        const char* asked = std::getenv("STEPFORMER_CPU_KERNELS");
        if (!asked || !*asked) return;
        for (const std::string& s : cpu_kernel_sets())
            if (s == asked) return;
        GTEST_SKIP() << "this CPU does not run the " << asked << " kernel set";
    }
};
[[maybe_unused]] const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new KernelSetEnvironment);

std::vector<float> random_values(size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i)
        ASSERT_LE(std::abs(got[i] - want[i]), 2e-5f * (1.0f + std::abs(want[i])))
            << what << " at " << i << ": " << got[i] << " vs " << want[i];
}

// Restores the set in use when a test ends.
class KernelSets : public ::testing::Test {
protected:
    void TearDown() override { use_cpu_kernel_set(initial_); }
    // Runs `compute` on a backend of every set and compares each with the generic set's.
    template <class F>
    void each_against_generic(const std::string& what, F compute, bool bit_exact = false) {
        // A backend made after each switch: a CPU backend is its kernel set's for life.
        use_cpu_kernel_set("generic");
        const std::vector<float> want = compute(*make_cpu_backend(2));
        for (const std::string& set : cpu_kernel_sets()) {
            use_cpu_kernel_set(set);
            const std::vector<float> got = compute(*make_cpu_backend(2));
            if (bit_exact)
                ASSERT_EQ(got, want) << what << ": the " << set << " set differs from the generic one";
            else
                expect_close(got, want, what + " (" + set + " set)");
        }
    }
    std::string initial_ = cpu_kernel_set();
};

struct LinearShape {
    int N, I, O;
};
// Few tokens (streaming kernels) with leftover rows and columns, and many tokens (GEMMs).
const LinearShape kShapes[] = {{1, 7, 3}, {5, 37, 19}, {10, 64, 129}, {13, 100, 33}, {48, 65, 40}, {49, 65, 40},
                               {70, 33, 17}};

// A linear layer's backward-and-update inputs: x (N, I), W0 (O, I), dy (N, O), the moments m0, v0.
struct UpdateInputs {
    std::vector<float> x, W0, dy, m0, v0;
};
UpdateInputs update_inputs(const LinearShape& s, unsigned seed) {
    const size_t n = size_t(s.O) * s.I;
    return {random_values(size_t(s.N) * s.I, seed), random_values(n, seed + 1), random_values(size_t(s.N) * s.O, seed + 2),
            random_values(n, seed + 3, -0.1f, 0.1f), random_values(n, seed + 4, 0.0f, 0.01f)};
}

TEST_F(KernelSets, GenericIsAlwaysThereAndLast) {
    const std::vector<std::string> sets = cpu_kernel_sets();
    ASSERT_FALSE(sets.empty());
    EXPECT_EQ(sets.back(), "generic");
    EXPECT_NE(std::find(sets.begin(), sets.end(), cpu_kernel_set()), sets.end());
}

TEST_F(KernelSets, UnknownSetIsRefusedNamingTheOnesThisCpuRuns) {
    try {
        use_cpu_kernel_set("sse9");
        FAIL() << "an unknown kernel set was accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("sse9"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("generic"), std::string::npos) << e.what();
    }
    EXPECT_EQ(cpu_kernel_set(), initial_);
}

TEST_F(KernelSets, LinearForwardAndBackward) {
    for (const LinearShape& s : kShapes) {
        const auto x = random_values(size_t(s.N) * s.I, 1), W = random_values(size_t(s.O) * s.I, 2),
                   dy = random_values(size_t(s.N) * s.O, 3);
        const std::string shape = std::to_string(s.N) + "x" + std::to_string(s.I) + "x" + std::to_string(s.O);
        each_against_generic("linear_forward " + shape, [&](Backend& be) {
            std::vector<float> y(size_t(s.N) * s.O, 7.0f);
            be.linear_forward(y.data(), x.data(), W.data(), s.N, s.I, s.O);
            return y;
        });
        each_against_generic("linear_backward " + shape, [&](Backend& be) {
            std::vector<float> dx(size_t(s.N) * s.I, 0.5f), dW(size_t(s.O) * s.I, 0.25f);
            be.linear_backward(dx.data(), dW.data(), dy.data(), x.data(), W.data(), s.N, s.I, s.O, true, true);
            dx.insert(dx.end(), dW.begin(), dW.end());
            return dx;
        });
    }
}

// The fused backward and update with each optimizer; AdamW bit for bit.
TEST_F(KernelSets, LinearBackwardUpdate) {
    for (const auto kind : {WeightUpdate::Kind::SGD, WeightUpdate::Kind::Adam, WeightUpdate::Kind::AdamW})
        for (const LinearShape& s : kShapes) {
            const size_t n = size_t(s.O) * s.I;
            const UpdateInputs in = update_inputs(s, 4);
            const auto &x = in.x, &W0 = in.W0, &dy = in.dy, &m0 = in.m0, &v0 = in.v0;
            const std::string what = "linear_backward_update kind " + std::to_string(int(kind)) + " " +
                                     std::to_string(s.N) + "x" + std::to_string(s.I) + "x" + std::to_string(s.O);
            auto run = [&](Backend& be) {
                std::vector<float> W = W0, m = m0, v = v0, dx(size_t(s.N) * s.I), dW(n);
                WeightUpdate u;
                u.kind = kind;
                u.buf1 = m.data();
                u.buf2 = kind == WeightUpdate::Kind::SGD ? nullptr : v.data();
                u.lr = 0.01;
                u.momentum = 0.9f;
                u.beta1 = 0.9;
                u.beta2 = 0.98;
                u.eps = 1e-9f;
                u.weight_decay = 0.1;
                u.step = 3;
                double sq = 0.0;
                be.linear_backward_update(dx.data(), dW.data(), &sq, dy.data(), x.data(), W.data(), s.N, s.I, s.O,
                                           false, u);
                std::vector<float> all = W;
                all.insert(all.end(), m.begin(), m.end());
                all.insert(all.end(), v.begin(), v.end());
                all.insert(all.end(), dx.begin(), dx.end());
                all.insert(all.end(), dW.begin(), dW.end());
                all.push_back(float(sq / (1.0 + sq)));
                return all;
            };
            each_against_generic(what, run);
        }
}

// Into a second buffer (the trainer's TrainOptions::DivergenceGuard::SecondBuffer) the updated
// weights go through a 4 KB buffer and non-temporal stores: the same values as in place, bit for
// bit, and the weights read are left as they were. Rows of 300 floats: a block of rows is several
// of those buffers and a part; `out` one float off a cache line; 60 tokens: the GEMMs' path.
TEST_F(KernelSets, LinearBackwardUpdateIntoASecondBufferIsTheInPlaceUpdate) {
    const LinearShape shapes[] = {{10, 300, 37}, {3, 1030, 9}, {60, 300, 37}};
    for (const std::string& set : cpu_kernel_sets()) {
        use_cpu_kernel_set(set);
        const auto be = make_cpu_backend(2);
        for (const auto kind : {WeightUpdate::Kind::SGD, WeightUpdate::Kind::Adam, WeightUpdate::Kind::AdamW})
            for (const LinearShape& s : shapes) {
                const size_t n = size_t(s.O) * s.I;
                const UpdateInputs in = update_inputs(s, 11);
                const auto &x = in.x, &W0 = in.W0, &dy = in.dy, &m0 = in.m0, &v0 = in.v0;
                auto run = [&](std::vector<float>& W, std::vector<float>& m, std::vector<float>& v, float* out) {
                    std::vector<float> dx(size_t(s.N) * s.I);
                    WeightUpdate u;
                    u.kind = kind;
                    u.buf1 = m.data();
                    u.buf2 = kind == WeightUpdate::Kind::SGD ? nullptr : v.data();
                    u.out = out;
                    u.lr = 0.01;
                    u.momentum = 0.9f;
                    u.step = 2;
                    double sq = 0.0;
                    be->linear_backward_update(dx.data(), nullptr, &sq, dy.data(), x.data(), W.data(), s.N, s.I, s.O,
                                               false, u);
                    return dx;
                };
                std::vector<float> W_in = W0, m_in = m0, v_in = v0;
                const std::vector<float> dx_in = run(W_in, m_in, v_in, nullptr);
                std::vector<float> W = W0, m = m0, v = v0, second(n + 17, -3.0f);
                float* out = second.data() + 1;
                const std::vector<float> dx = run(W, m, v, out);
                const std::string what = set + " set, kind " + std::to_string(int(kind)) + ", " + std::to_string(s.N) +
                                         "x" + std::to_string(s.I) + "x" + std::to_string(s.O);
                ASSERT_NE(W_in, W0) << what << ": the update changed nothing";
                EXPECT_EQ(std::vector<float>(out, out + n), W_in) << what;
                EXPECT_EQ(W, W0) << what << ": the weights read were written";
                EXPECT_EQ(m, m_in) << what;
                EXPECT_EQ(v, v_in) << what;
                EXPECT_EQ(dx, dx_in) << what;
                EXPECT_EQ(second.front(), -3.0f) << what << ": written before out";
                EXPECT_TRUE(std::all_of(second.begin() + 1 + long(n), second.end(), [](float f) { return f == -3.0f; }))
                    << what << ": written past out's end";
            }
    }
}

TEST_F(KernelSets, AdamWIsBitExactInEverySet) {
    const int64_t n = 1003;
    const auto g = random_values(size_t(n), 9), W0 = random_values(size_t(n), 10),
               m0 = random_values(size_t(n), 11, -0.1f, 0.1f), v0 = random_values(size_t(n), 12, 0.0f, 0.01f);
    each_against_generic("AdamW apply_update", [&](Backend& be) {
        std::vector<float> W = W0, m = m0, v = v0;
        WeightUpdate u;
        u.kind = WeightUpdate::Kind::AdamW;
        u.buf1 = m.data();
        u.buf2 = v.data();
        u.lr = 6e-4;
        u.beta1 = 0.9;
        u.beta2 = 0.95;
        u.eps = 1e-8f;
        u.weight_decay = 0.1;
        u.step = 5;
        be.apply_update(W.data(), g.data(), n, u);
        W.insert(W.end(), m.begin(), m.end());
        W.insert(W.end(), v.begin(), v.end());
        return W;
    }, /*bit_exact=*/true);
}

TEST_F(KernelSets, AttentionProducts) {
    const int G = 3, Lq = 7, Lk = 9, d = 17;
    const auto Q = random_values(size_t(G) * Lq * d, 13), K = random_values(size_t(G) * Lk * d, 14),
               A = random_values(size_t(G) * Lq * Lk, 15), dS = random_values(size_t(G) * Lq * Lk, 16),
               dC = random_values(size_t(G) * Lq * d, 17);
    each_against_generic("attention products", [&](Backend& be) {
        std::vector<float> s(size_t(G) * Lq * Lk), dQ(Q.size()), dK(K.size()), c(size_t(G) * Lq * d), dA(A.size()),
            dV(K.size());
        be.attn_scores_forward(s.data(), Q.data(), K.data(), G, Lq, Lk, d, 0.25f);
        be.attn_scores_backward(dQ.data(), dK.data(), dS.data(), Q.data(), K.data(), G, Lq, Lk, d, 0.25f);
        be.attn_context_forward(c.data(), A.data(), K.data(), G, Lq, Lk, d);
        be.attn_context_backward(dA.data(), dV.data(), dC.data(), A.data(), K.data(), G, Lq, Lk, d);
        for (const auto* part : {&dQ, &dK, &c, &dA, &dV}) s.insert(s.end(), part->begin(), part->end());
        return s;
    });
}

// The softmax of every set (the vector sets' own exp) against one computed in double, row widths
// that leave columns after the last full vector, scores down to -80 (e^-80 is still a normal
// float) and up to 80; then the rows with a rule: masked entries (-inf, -1e9) exactly 0, a row
// of -1e9 exactly uniform, a NaN or an all -inf row all NaN.
TEST_F(KernelSets, SoftmaxAgainstDoubleAndItsRules) {
    const std::vector<std::string> sets = cpu_kernel_sets();
    for (const std::string& set : sets) {
        use_cpu_kernel_set(set);
        const auto be = make_cpu_backend(2);
        for (int cols : {1, 5, 8, 16, 17, 33, 64, 100, 257}) {
            const int rows = 40;
            const size_t n = size_t(rows) * cols;
            std::vector<float> x = random_values(n, 20 + cols, -80.0f, 80.0f);
            for (int c = 0; c < cols; ++c) x[size_t(cols) + c] *= 0.01f;  // a row near 0
            std::vector<float> y(n, -7.0f);
            be->softmax_forward(y.data(), x.data(), rows, cols);
            for (int r = 0; r < rows; ++r) {
                const float* xr = x.data() + size_t(r) * cols;
                const float mx = *std::max_element(xr, xr + cols);
                // x - max rounded to float as every set rounds it (its error, up to 4e-6 at 70,
                // is the input's): the rest in double
                const auto e = [&](int c) { return std::exp(double(xr[c] - mx)); };
                double sum = 0.0;
                for (int c = 0; c < cols; ++c) sum += e(c);
                for (int c = 0; c < cols; ++c) {
                    const double want = e(c) / sum;
                    const float got = y[size_t(r) * cols + c];
                    ASSERT_LE(std::abs(got - want), 2e-6 * want + 1e-37)
                        << set << " set, " << cols << " columns, row " << r << " col " << c << ": " << got << " vs "
                        << want << " (x " << xr[c] << ", max " << mx << ")";
                }
            }
            // y (dy - Σ dy y) against double
            const std::vector<float> dy = random_values(n, 90 + cols);
            std::vector<float> dx(n, -7.0f);
            be->softmax_backward(dx.data(), dy.data(), y.data(), rows, cols);
            for (int r = 0; r < rows; ++r) {
                double dot = 0.0;
                for (int c = 0; c < cols; ++c) dot += double(dy[size_t(r) * cols + c]) * y[size_t(r) * cols + c];
                for (int c = 0; c < cols; ++c) {
                    const size_t i = size_t(r) * cols + c;
                    const double want = double(y[i]) * (double(dy[i]) - dot);
                    ASSERT_LE(std::abs(dx[i] - want), 1e-6 * (std::abs(want) + double(y[i])) + 1e-37)
                        << set << " set, softmax backward, " << cols << " columns at " << i;
                }
            }
        }
        const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
        for (int cols : {7, 16, 40}) {
            std::vector<float> x = random_values(size_t(5) * cols, 5, -3.0f, 3.0f), y(x.size(), -7.0f);
            float* r = x.data();
            for (int c = 0; c < cols; c += 3) r[c] = c % 2 ? -inf : -1e9f;        // row 0: masked entries
            std::fill(r + cols, r + 2 * cols, -1e9f);                          // row 1: every entry masked
            r[2 * cols + cols - 1] = nan;                                       // row 2: a NaN last
            std::fill(r + 3 * cols, r + 4 * cols, -inf);                        // row 3: every entry -inf
            r[4 * cols] = inf;                                                  // row 4: +inf
            be->softmax_forward(y.data(), x.data(), 5, cols);
            double kept = 0.0;
            for (int c = 0; c < cols; ++c) {
                if (c % 3 == 0) {
                    EXPECT_EQ(y[c], 0.0f) << set << " set, masked column " << c;
                }
                kept += y[c];
                EXPECT_EQ(y[cols + c], 1.0f / cols) << set << " set, a row of -1e9";
                for (int row : {2, 3, 4}) EXPECT_TRUE(std::isnan(y[row * cols + c])) << set << " set, row " << row;
            }
            EXPECT_NEAR(kept, 1.0, 1e-6) << set << " set";
        }
    }
}

TEST_F(KernelSets, OptimizerStepsAndSumOfSquares) {
    const int64_t n = 100003;  // over the threading threshold, odd
    const auto g = random_values(size_t(n), 18), W0 = random_values(size_t(n), 19),
               m0 = random_values(size_t(n), 20, -0.1f, 0.1f), v0 = random_values(size_t(n), 21, 0.0f, 0.01f);
    each_against_generic("sgd_step, adam_step and sum_squares", [&](Backend& be) {
        std::vector<float> W = W0, m = m0, W2 = W0, m2 = m0, v2 = v0;
        be.sgd_step(W.data(), m.data(), g.data(), n, 0.01f, 0.99f);
        be.adam_step(W2.data(), m2.data(), v2.data(), g.data(), n, 1e-3f, 0.9f, 0.98f, 1e-9f, 2);
        double sq = 0.0;
        be.sum_squares(&sq, g.data(), n);
        for (const auto* part : {&m, &W2, &m2, &v2}) W.insert(W.end(), part->begin(), part->end());
        W.push_back(float(sq / double(n)));
        return W;
    });
}

}  // namespace
