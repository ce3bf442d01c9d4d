// Finite-difference checks of every backward kernel of the CPU backend, with 1 and 2 threads
// and at sizes below and above the size where the kernels start splitting work across
// threads; of the whole model's parameter gradients; and of the optimizer updates against a
// double-precision transcription of torch.optim's formulas.
//
// Each kernel check uses the scalar objective L = sum(out * R) with a random R, so dL/dout = R
// is what the backward kernel is fed, and compares the kernel's input gradient with central
// differences of L computed from the float forward kernel (L itself is summed in double).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <functional>
#include <random>
#include <sstream>

#include "fixture_util.h"
#include "stepformer/backend.h"
#include "stepformer/dataset.h"
#include "stepformer/model.h"
#include "stepformer/trace_graph.h"
#include "stepformer/optimizer.h"
#include "stepformer/train.h"

using namespace stepformer;

namespace {

using Vec = std::vector<float>;

Vec randn(size_t n, uint64_t seed, float scale = 1.0f) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> nd(0.0f, scale);
    Vec v(n);
    for (float& x : v) x = nd(rng);
    return v;
}

Vec randu(size_t n, uint64_t seed, float lo, float hi) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> ud(lo, hi);
    Vec v(n);
    for (float& x : v) x = ud(rng);
    return v;
}

double dot(const Vec& a, const Vec& b) {
    double s = 0.0;
    for (size_t i = 0; i < a.size(); ++i) s += double(a[i]) * double(b[i]);
    return s;
}

// Indices to probe: every one when there are at most `max`, else the first, the last and a
// random sample.
std::vector<size_t> probe(size_t n, size_t max = 32, uint64_t seed = 99) {
    std::vector<size_t> idx;
    if (n <= max) {
        for (size_t i = 0; i < n; ++i) idx.push_back(i);
        return idx;
    }
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<size_t> u(0, n - 1);
    idx = {0, n - 1};
    while (idx.size() < max) idx.push_back(u(rng));
    return idx;
}

// Central differences of `objective` (which reads x) at the probed indices, compared with
// `analytic`: |num - ana| <= rtol |ana| + abs_frac * max|analytic| + abs_floor.
::testing::AssertionResult check_grad(const std::string& what, Vec& x, const Vec& analytic,
                                      const std::function<double()>& objective, float eps,
                                      const std::vector<size_t>& idx, double rtol = 1e-2, double abs_frac = 2e-3,
                                      double abs_floor = 1e-6) {
    if (x.size() != analytic.size())
        return ::testing::AssertionFailure()
               << what << ": gradient has " << analytic.size() << " values for " << x.size() << " inputs";
    double scale = 0.0;
    for (float g : analytic) scale = std::max(scale, double(std::abs(g)));
    const double atol = abs_frac * scale + abs_floor;
    for (size_t i : idx) {
        const float orig = x[i];
        x[i] = orig + eps;
        const double lp = objective();
        x[i] = orig - eps;
        const double lm = objective();
        x[i] = orig;
        // the perturbation actually applied, after float rounding
        const double h = (double(orig + eps) - double(orig - eps));
        if (h == 0.0) return ::testing::AssertionFailure() << what << "[" << i << "]: eps vanishes at " << orig;
        const double num = (lp - lm) / h;
        const double ana = analytic[i];
        if (!(std::abs(num - ana) <= rtol * std::abs(ana) + atol))
            return ::testing::AssertionFailure()
                   << what << "[" << i << "]: analytic " << ana << " vs numeric " << num << " (tolerance "
                   << rtol * std::abs(ana) + atol << ", max |grad| " << scale << ")";
    }
    return ::testing::AssertionSuccess();
}

// Tolerances (relative, and as a fraction of the largest gradient entry). For kernels linear in
// the perturbed input the central difference is exact up to float rounding; for softmax,
// LayerNorm and the loss, eps = 1e-2 leaves a truncation error of order eps^2.
constexpr double kExactRtol = 1e-3, kExactAbs = 1e-4;
constexpr double kSmoothRtol = 2e-3, kSmoothAbs = 5e-4;

struct Case {
    int threads;
    bool large;  // large enough that the kernels split their work across threads
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    return std::string("threads") + std::to_string(info.param.threads) + (info.param.large ? "_large" : "_small");
}

// The backward kernels run on the backend under test (`be`). The objectives' forward kernels
// run on `fwd`, normally a 1-thread reference, so the many finite-difference evaluations stay
// cheap even when the machine is busy; forward_agrees() checks the forward kernel of the
// backend under test against that reference once per test.
class KernelGrad : public ::testing::TestWithParam<Case> {
protected:
    void SetUp() override {
        be = make_cpu_backend(GetParam().threads);
        ref = make_cpu_backend(1);
        fwd = ref.get();
    }
    bool large() const { return GetParam().large; }

    // Runs `objective` on the backend under test and on the reference; `out` (written by the
    // objective's forward) must agree.
    template <typename F>
    ::testing::AssertionResult forward_agrees(F&& objective, const Vec& out) {
        fwd = be.get();
        const double l_be = objective();
        const Vec got = out;
        fwd = ref.get();
        const double l_ref = objective();
        for (size_t i = 0; i < out.size(); ++i)
            if (!(std::abs(got[i] - out[i]) <= 1e-5 * (1.0 + std::abs(out[i]))))
                return ::testing::AssertionFailure() << "forward output [" << i << "]: " << got[i] << " with "
                                                     << be->describe() << " vs " << out[i];
        if (!(std::abs(l_be - l_ref) <= 1e-5 * (1.0 + std::abs(l_ref))))
            return ::testing::AssertionFailure() << "objective " << l_be << " vs " << l_ref;
        return ::testing::AssertionSuccess();
    }

    std::unique_ptr<Backend> be, ref;
    Backend* fwd = nullptr;
};

// The checker itself must notice a wrong gradient, or every check below proves nothing.
TEST(GradCheckHarness, RejectsASlightlyWrongGradient) {
    Vec x = randn(6, 1);
    const Vec R = randn(6, 2);
    auto objective = [&] {
        double s = 0.0;
        for (size_t i = 0; i < x.size(); ++i) s += double(x[i]) * x[i] * R[i];
        return s;
    };
    Vec g(6);
    for (size_t i = 0; i < 6; ++i) g[i] = 2.0f * x[i] * R[i];
    EXPECT_TRUE(check_grad("x^2", x, g, objective, 1e-2f, probe(6)));
    Vec wrong = g;
    wrong[3] *= 1.05f;
    EXPECT_FALSE(check_grad("x^2", x, wrong, objective, 1e-2f, probe(6)));
    Vec zeroed = g;
    zeroed[0] = 0.0f;
    EXPECT_FALSE(check_grad("x^2", x, zeroed, objective, 1e-2f, probe(6)));
}

// Shapes with widths that are and are not multiples of the SIMD width; the large shapes have
// enough work to be split across threads.
TEST_P(KernelGrad, Linear) {
    struct Shape3 {
        int N, I, O;
    };
    const std::vector<Shape3> shapes = large()
                                           ? std::vector<Shape3>{{16, 64, 75}, {9, 61, 130}, {40, 61, 41}, {17, 96, 50}}
                                           : std::vector<Shape3>{{3, 5, 4}, {1, 37, 3}, {9, 64, 7}, {17, 33, 5}};
    for (const auto [N, I, O] : shapes) {
        SCOPED_TRACE("N=" + std::to_string(N) + " I=" + std::to_string(I) + " O=" + std::to_string(O));
        Vec x = randn(size_t(N) * I, 1 + N), W = randn(size_t(O) * I, 2 + I, 0.3f), R = randn(size_t(N) * O, 3 + O);
        Vec y(size_t(N) * O);
        auto objective = [&] {
            fwd->linear_forward(y.data(), x.data(), W.data(), N, I, O);
            return dot(y, R);
        };
        EXPECT_TRUE(forward_agrees(objective, y));
        // overwrite mode for both: whatever was in dx and dW before is gone
        Vec dx = randn(x.size(), 5, 100.0f), dW = randn(W.size(), 4, 100.0f);
        be->linear_backward(dx.data(), dW.data(), R.data(), x.data(), W.data(), N, I, O, false, false);
        EXPECT_TRUE(check_grad("linear dx", x, dx, objective, 1e-2f, probe(x.size(), 24), kExactRtol, kExactAbs));
        EXPECT_TRUE(check_grad("linear dW", W, dW, objective, 1e-2f, probe(W.size(), 24), kExactRtol, kExactAbs));

        // accumulate mode adds onto what is there (the default for dW)
        const Vec dx0 = randn(x.size(), 6), dW0 = randn(W.size(), 7);
        Vec dx_acc = dx0, dW_acc = dW0;
        be->linear_backward(dx_acc.data(), dW_acc.data(), R.data(), x.data(), W.data(), N, I, O, true, true);
        for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(dx_acc[i] - dx0[i], dx[i], 1e-4 * (1 + std::abs(dx[i]))) << i;
        for (size_t i = 0; i < W.size(); ++i) ASSERT_NEAR(dW_acc[i] - dW0[i], dW[i], 1e-4 * (1 + std::abs(dW[i]))) << i;
        Vec dW_default = dW0;
        be->linear_backward(nullptr, dW_default.data(), R.data(), x.data(), W.data(), N, I, O, false);
        EXPECT_EQ(dW_default, dW_acc) << "accumulate_dw defaults to true";

        // either output may be null
        Vec dW_alone(W.size(), 9.0f), dx_alone(x.size(), 9.0f);
        be->linear_backward(nullptr, dW_alone.data(), R.data(), x.data(), W.data(), N, I, O, false, false);
        be->linear_backward(dx_alone.data(), nullptr, R.data(), x.data(), W.data(), N, I, O, false, false);
        EXPECT_EQ(dW_alone, dW);
        EXPECT_EQ(dx_alone, dx);
    }
}

// The fused backward + optimizer update of a linear weight gives what linear_backward, then
// apply_update (SGD, Adam, AdamW) give: in the streaming regime (N <= 48 tokens; widths that are not
// multiples of the SIMD width, row counts that are not multiples of the row block) and the GEMM
// regime (N > 48); with and without a kept gradient, accumulating into dx or not.
TEST_P(KernelGrad, LinearBackwardFusedWithUpdate) {
    struct Shape3 {
        int N, I, O;
    };
    const std::vector<Shape3> shapes = large() ? std::vector<Shape3>{{10, 61, 131}, {2, 512, 96}, {60, 70, 33}}
                                               : std::vector<Shape3>{{3, 5, 4}, {1, 37, 3}, {9, 16, 9}, {49, 7, 5}};
    for (const auto [N, I, O] : shapes)
        for (WeightUpdate::Kind kind : {WeightUpdate::Kind::SGD, WeightUpdate::Kind::Adam, WeightUpdate::Kind::AdamW})
            for (bool keep_dW : {true, false})
                for (bool acc_dx : {false, true}) {
                    SCOPED_TRACE("N=" + std::to_string(N) + " I=" + std::to_string(I) + " O=" + std::to_string(O) +
                                 (kind == WeightUpdate::Kind::SGD    ? " sgd"
                                  : kind == WeightUpdate::Kind::Adam ? " adam"
                                                                     : " adamw") +
                                 (keep_dW ? " dW" : "") +
                                 (acc_dx ? " acc" : ""));
                    const size_t nw = size_t(O) * I;
                    const Vec x = randn(size_t(N) * I, 1 + N), dy = randn(size_t(N) * O, 3 + O), W0 = randn(nw, 2 + I, 0.3f);
                    const Vec b10 = randn(nw, 8, 0.1f), b20 = randu(nw, 9, 0.0f, 0.01f), dx0 = randn(x.size(), 6);
                    WeightUpdate u;
                    u.kind = kind;
                    u.lr = kind == WeightUpdate::Kind::SGD ? 0.05f : 1e-3f;
                    u.momentum = 0.9f;
                    u.beta1 = 0.9f;
                    u.beta2 = 0.98f;
                    u.eps = 1e-9f;
                    u.weight_decay = 0.1;  // AdamW's (the others ignore it)
                    u.step = 3;

                    Vec W_ref = W0, b1_ref = b10, b2_ref = b20, dx_ref = dx0, dW_ref(nw, 7.0f);
                    be->linear_backward(dx_ref.data(), dW_ref.data(), dy.data(), x.data(), W_ref.data(), N, I, O, acc_dx,
                                        false);
                    WeightUpdate ur = u;
                    ur.buf1 = b1_ref.data();
                    ur.buf2 = b2_ref.data();
                    be->apply_update(W_ref.data(), dW_ref.data(), int64_t(nw), ur);

                    Vec W = W0, b1 = b10, b2 = b20, dx = dx0, dW(nw, 7.0f);
                    WeightUpdate uf = u;
                    uf.buf1 = b1.data();
                    uf.buf2 = kind != WeightUpdate::Kind::SGD ? b2.data() : nullptr;
                    double sq = 0.0;
                    be->linear_backward_update(dx.data(), keep_dW ? dW.data() : nullptr, &sq, dy.data(), x.data(),
                                               W.data(), N, I, O, acc_dx, uf);
                    be->sync();
                    const double sq_ref = be->sum_squares_now(dW_ref.data(), int64_t(nw));
                    EXPECT_NEAR(sq, sq_ref, 1e-5 * sq_ref);
                    auto near = [](const char* what, const Vec& got, const Vec& want, double tol) {
                        for (size_t i = 0; i < got.size(); ++i)
                            if (!(std::abs(got[i] - want[i]) <= tol * (1.0 + std::abs(want[i]))))
                                return ::testing::AssertionFailure()
                                       << what << "[" << i << "]: " << got[i] << " vs " << want[i];
                        return ::testing::AssertionSuccess();
                    };
                    EXPECT_TRUE(near("dx", dx, dx_ref, 1e-5));
                    if (keep_dW) {
                        EXPECT_TRUE(near("dW", dW, dW_ref, 1e-5));
                    } else {
                        EXPECT_EQ(dW, Vec(nw, 7.0f)) << "dW untouched when not kept";
                    }
                    EXPECT_TRUE(near("W", W, W_ref, 1e-6));
                    EXPECT_TRUE(near("buf1", b1, b1_ref, 1e-5));
                    if (kind != WeightUpdate::Kind::SGD) {
                        EXPECT_TRUE(near("buf2", b2, b2_ref, 1e-5));
                    }
                    EXPECT_NE(W, W0) << "the weight was updated";
                }
}

TEST_P(KernelGrad, EmbeddingWithRepeatedIds) {
    const int V = 7, D = large() ? 33 : 5;
    const std::vector<int> ids{3, 0, 3, 6, 1, 3, 0, 2, 6, 3};  // 3 four times, 5 never
    const int N = static_cast<int>(ids.size());
    Vec table = randn(size_t(V) * D, 1), R = randn(size_t(N) * D, 2), out(size_t(N) * D);
    auto objective = [&] {
        fwd->embedding_forward(out.data(), ids.data(), table.data(), N, V, D);
        return dot(out, R);
    };
    EXPECT_TRUE(forward_agrees(objective, out));
    const Vec d0 = randn(table.size(), 3);
    Vec dtable = d0;
    be->embedding_backward(dtable.data(), R.data(), ids.data(), N, V, D);
    Vec g(table.size());
    for (size_t i = 0; i < g.size(); ++i) g[i] = dtable[i] - d0[i];
    EXPECT_TRUE(
        check_grad("embedding dtable", table, g, objective, 1e-2f, probe(table.size(), 1000), kExactRtol, kExactAbs));
    // the row of an id that never occurs gets nothing; a repeated id gets the sum of its rows
    for (int d = 0; d < D; ++d) EXPECT_EQ(g[size_t(5) * D + d], 0.0f);
    for (int d = 0; d < D; ++d)
        EXPECT_NEAR(g[size_t(3) * D + d],
                    R[size_t(0) * D + d] + R[size_t(2) * D + d] + R[size_t(5) * D + d] + R[size_t(9) * D + d], 1e-5);
}

TEST_P(KernelGrad, SplitAndMergeHeadsAreEachOthersBackward) {
    const int B = 2, L = large() ? 9 : 3, H = 3, d = large() ? 8 : 2;
    const size_t n = size_t(B) * L * H * d;
    Vec x = randn(n, 1), R = randn(n, 2), out(n);
    // split: (B, L, H*d) -> (B, H, L, d); its gradient is merge(R)
    auto split_obj = [&] {
        fwd->split_heads(out.data(), x.data(), B, L, H, d);
        return dot(out, R);
    };
    EXPECT_TRUE(forward_agrees(split_obj, out));
    Vec g(n);
    be->merge_heads(g.data(), R.data(), B, L, H, d);
    EXPECT_TRUE(check_grad("split_heads", x, g, split_obj, 1e-2f, probe(n, 200), kExactRtol, kExactAbs));
    auto merge_obj = [&] {
        fwd->merge_heads(out.data(), x.data(), B, L, H, d);
        return dot(out, R);
    };
    EXPECT_TRUE(forward_agrees(merge_obj, out));
    be->split_heads(g.data(), R.data(), B, L, H, d);
    EXPECT_TRUE(check_grad("merge_heads", x, g, merge_obj, 1e-2f, probe(n, 200), kExactRtol, kExactAbs));
    // and they are exact inverses
    Vec back(n);
    be->split_heads(out.data(), x.data(), B, L, H, d);
    be->merge_heads(back.data(), out.data(), B, L, H, d);
    EXPECT_EQ(back, x);
}

TEST_P(KernelGrad, AttentionScoresWithScale) {
    const int G = large() ? 8 : 2, Lq = large() ? 16 : 3, Lk = large() ? 17 : 4, dk = large() ? 32 : 5;
    const float scale = 0.37f;
    Vec Q = randn(size_t(G) * Lq * dk, 1), K = randn(size_t(G) * Lk * dk, 2), R = randn(size_t(G) * Lq * Lk, 3);
    Vec s(R.size());
    auto objective = [&] {
        fwd->attn_scores_forward(s.data(), Q.data(), K.data(), G, Lq, Lk, dk, scale);
        return dot(s, R);
    };
    EXPECT_TRUE(forward_agrees(objective, s));
    Vec dQ = randn(Q.size(), 4, 50.0f), dK = randn(K.size(), 5, 50.0f);  // overwritten
    be->attn_scores_backward(dQ.data(), dK.data(), R.data(), Q.data(), K.data(), G, Lq, Lk, dk, scale);
    EXPECT_TRUE(check_grad("attn_scores dQ", Q, dQ, objective, 1e-2f, probe(Q.size()), kExactRtol, kExactAbs));
    EXPECT_TRUE(check_grad("attn_scores dK", K, dK, objective, 1e-2f, probe(K.size()), kExactRtol, kExactAbs));
}

TEST_P(KernelGrad, MaskFillGivesMaskedCellsExactlyZero) {
    const int B = 2, H = 3, Lq = large() ? 7 : 3, Lk = large() ? 9 : 4;
    const int64_t plane = int64_t(Lq) * Lk;
    Vec mask(size_t(B) * plane);
    for (size_t i = 0; i < mask.size(); ++i) mask[i] = (i * 7 + i / 3) % 3 == 0 ? 1.0f : 0.0f;
    Vec in = randn(size_t(B) * H * plane, 1), R = randn(in.size(), 2), out(in.size());
    auto objective = [&] {
        fwd->mask_fill_forward(out.data(), in.data(), mask.data(), B, H, Lq, Lk, -1e9f);
        return dot(out, R);
    };
    EXPECT_TRUE(forward_agrees(objective, out));
    Vec din = randn(in.size(), 3, 10.0f);  // overwritten
    be->mask_fill_backward(din.data(), R.data(), mask.data(), B, H, Lq, Lk);
    EXPECT_TRUE(check_grad("mask_fill din", in, din, objective, 1e-2f, probe(in.size(), 1000), kExactRtol, kExactAbs));
    int masked = 0;
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int64_t i = 0; i < plane; ++i) {
                const size_t at = (size_t(b) * H + h) * plane + i;
                if (mask[size_t(b) * plane + i] != 0.0f) {
                    ++masked;
                    EXPECT_EQ(din[at], 0.0f) << at;
                    EXPECT_EQ(out[at], -1e9f);
                } else {
                    EXPECT_EQ(din[at], R[at]) << at;
                }
            }
    EXPECT_GT(masked, 0);
}

TEST_P(KernelGrad, Softmax) {
    const int rows = large() ? 240 : 6, cols = large() ? 70 : 5;
    Vec in = randn(size_t(rows) * cols, 1, 2.0f), R = randn(in.size(), 2), out(in.size());
    in[1] = -1e9f;  // a masked entry, as the attention feeds it
    auto objective = [&] {
        fwd->softmax_forward(out.data(), in.data(), rows, cols);
        return dot(out, R);
    };
    EXPECT_TRUE(forward_agrees(objective, out));
    objective();
    const Vec y = out;
    Vec din = randn(in.size(), 3, 10.0f);
    be->softmax_backward(din.data(), R.data(), y.data(), rows, cols);
    EXPECT_EQ(din[1], 0.0f);
    // -1e9 +- eps is -1e9 in float: that entry is checked by the exact zero above instead
    auto idx = probe(in.size());
    idx.erase(std::remove(idx.begin(), idx.end(), size_t{1}), idx.end());
    EXPECT_TRUE(check_grad("softmax din", in, din, objective, 1e-2f, idx, kSmoothRtol, kSmoothAbs));
}

TEST_P(KernelGrad, AttentionContext) {
    const int G = large() ? 8 : 2, Lq = large() ? 16 : 3, Lk = large() ? 17 : 4, dv = large() ? 32 : 5;
    Vec A = randu(size_t(G) * Lq * Lk, 1, 0.0f, 1.0f), V = randn(size_t(G) * Lk * dv, 2),
        R = randn(size_t(G) * Lq * dv, 3), c(R.size());
    auto objective = [&] {
        fwd->attn_context_forward(c.data(), A.data(), V.data(), G, Lq, Lk, dv);
        return dot(c, R);
    };
    EXPECT_TRUE(forward_agrees(objective, c));
    Vec dA = randn(A.size(), 4, 50.0f), dV = randn(V.size(), 5, 50.0f);
    be->attn_context_backward(dA.data(), dV.data(), R.data(), A.data(), V.data(), G, Lq, Lk, dv);
    EXPECT_TRUE(check_grad("attn_context dattn", A, dA, objective, 1e-2f, probe(A.size()), kExactRtol, kExactAbs));
    EXPECT_TRUE(check_grad("attn_context dV", V, dV, objective, 1e-2f, probe(V.size()), kExactRtol, kExactAbs));
}

TEST_P(KernelGrad, LayerNormInputGammaBeta) {
    const int rows = large() ? 130 : 4, cols = large() ? 70 : 7;
    const float eps = 1e-5f;
    Vec in = randn(size_t(rows) * cols, 1, 1.5f), gamma = randn(size_t(cols), 2), beta = randn(size_t(cols), 3),
        R = randn(in.size(), 4), out(in.size()), mean(static_cast<size_t>(rows)), rstd(static_cast<size_t>(rows));
    for (size_t i = 0; i < in.size(); ++i) in[i] += 0.5f * float(i % 3);  // rows with a non-zero mean
    auto objective = [&] {
        fwd->layernorm_forward(out.data(), mean.data(), rstd.data(), in.data(), gamma.data(), beta.data(), rows, cols,
                               eps);
        return dot(out, R);
    };
    EXPECT_TRUE(forward_agrees(objective, out));
    objective();
    const Vec m = mean, rs = rstd;
    const Vec dg0 = randn(gamma.size(), 5), db0 = randn(beta.size(), 6);
    Vec din = randn(in.size(), 7, 10.0f), dgamma = dg0, dbeta = db0;
    be->layernorm_backward(din.data(), dgamma.data(), dbeta.data(), R.data(), in.data(), m.data(), rs.data(),
                           gamma.data(), rows, cols);
    for (size_t i = 0; i < gamma.size(); ++i) {
        dgamma[i] -= dg0[i];
        dbeta[i] -= db0[i];
    }
    EXPECT_TRUE(check_grad("layernorm din", in, din, objective, 1e-2f, probe(in.size()), kSmoothRtol, kSmoothAbs));
    EXPECT_TRUE(check_grad("layernorm dgamma", gamma, dgamma, objective, 1e-2f, probe(gamma.size(), 100), kSmoothRtol,
                           kSmoothAbs));
    EXPECT_TRUE(
        check_grad("layernorm dbeta", beta, dbeta, objective, 1e-2f, probe(beta.size(), 100), kSmoothRtol, kSmoothAbs));
}

// The tutorial's LayerNorm: no gamma/beta (null), y = (x - mean) * rstd exactly, and the
// backward of that alone.
TEST_P(KernelGrad, LayerNormWithoutAffine) {
    const int rows = large() ? 130 : 4, cols = large() ? 70 : 7;
    const float eps = 1e-5f;
    Vec in = randn(size_t(rows) * cols, 11, 1.5f), R = randn(in.size(), 12), out(in.size()),
        mean(static_cast<size_t>(rows)), rstd(static_cast<size_t>(rows));
    for (size_t i = 0; i < in.size(); ++i) in[i] += 0.5f * float(i % 3);
    auto objective = [&] {
        fwd->layernorm_forward(out.data(), mean.data(), rstd.data(), in.data(), nullptr, nullptr, rows, cols, eps);
        return dot(out, R);
    };
    EXPECT_TRUE(forward_agrees(objective, out));
    objective();
    // Identical to gamma = 1, beta = 0 given explicitly.
    const Vec ones(size_t(cols), 1.0f), zeros(size_t(cols), 0.0f);
    Vec out1(in.size()), mean1 = mean, rstd1 = rstd;
    fwd->layernorm_forward(out1.data(), mean1.data(), rstd1.data(), in.data(), ones.data(), zeros.data(), rows, cols,
                           eps);
    EXPECT_EQ(out, out1);
    const Vec m = mean, rs = rstd;
    Vec din = randn(in.size(), 13, 10.0f);
    be->layernorm_backward(din.data(), nullptr, nullptr, R.data(), in.data(), m.data(), rs.data(), nullptr, rows, cols);
    EXPECT_TRUE(check_grad("layernorm (no affine) din", in, din, objective, 1e-2f, probe(in.size()), kSmoothRtol,
                           kSmoothAbs));
}

TEST_P(KernelGrad, ReluAwayFromZero) {
    const int64_t n = large() ? 70000 : 50;
    Vec in = randu(size_t(n), 1, 0.1f, 2.0f);
    std::mt19937_64 rng(2);
    for (float& v : in)
        if (rng() % 2) v = -v;  // |x| >= 0.1, so eps 1e-2 never crosses the kink
    Vec R = randn(in.size(), 3), out(in.size());
    auto objective = [&] {
        fwd->relu_forward(out.data(), in.data(), n);
        return dot(out, R);
    };
    EXPECT_TRUE(forward_agrees(objective, out));
    objective();
    const Vec y = out;
    Vec din = randn(in.size(), 4, 10.0f);
    be->relu_backward(din.data(), R.data(), y.data(), n);
    EXPECT_TRUE(check_grad("relu din", in, din, objective, 1e-2f, probe(in.size()), kExactRtol, kExactAbs));
    for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(din[i], in[i] > 0 ? R[i] : 0.0f) << i;
}

TEST_P(KernelGrad, Gelu) {
    const int64_t n = large() ? 70000 : 50;
    Vec in = randn(size_t(n), 1, 2.0f);  // smooth everywhere: both tails and the middle
    Vec R = randn(in.size(), 3), out(in.size());
    auto objective = [&] {
        fwd->gelu_forward(out.data(), in.data(), n);
        return dot(out, R);
    };
    EXPECT_TRUE(forward_agrees(objective, out));
    Vec din = randn(in.size(), 4, 10.0f);
    be->gelu_backward(din.data(), R.data(), in.data(), n);
    EXPECT_TRUE(check_grad("gelu din", in, din, objective, 1e-2f, probe(in.size()), kSmoothRtol, kSmoothAbs));
}

// nn.Linear's bias, y = x W^T + b: add_bias adds b to every row, so dL/db is the column sums of
// dL/dy (bias_backward, accumulated onto what dbias held) and dL/dy passes through unchanged.
TEST_P(KernelGrad, AddBiasAndItsBackward) {
    const int N = large() ? 700 : 5, O = large() ? 130 : 3;  // large: N*O above the split size
    const size_t n = size_t(N) * O;
    Vec bias = randn(size_t(O), 1), y0 = randn(n, 2), R = randn(n, 3), y(n);
    auto objective = [&] {
        y = y0;
        fwd->add_bias(y.data(), bias.data(), N, O);
        return dot(y, R);
    };
    EXPECT_TRUE(forward_agrees(objective, y));
    const Vec d0 = randn(size_t(O), 4);
    Vec dbias = d0;  // accumulated: starts from a non-zero gradient
    be->bias_backward(dbias.data(), R.data(), N, O);
    Vec g(static_cast<size_t>(O));
    for (size_t c = 0; c < g.size(); ++c) g[c] = dbias[c] - d0[c];
    EXPECT_TRUE(check_grad("add_bias dbias", bias, g, objective, 1e-2f, probe(g.size()), kExactRtol, kExactAbs));
    EXPECT_TRUE(check_grad("add_bias dy", y0, R, objective, 1e-2f, probe(n), kExactRtol, kExactAbs));
    // from zero: the column sums alone, which the accumulated run added to d0 (row by row, so
    // only up to rounding)
    Vec from_zero(size_t(O), 0.0f);
    be->bias_backward(from_zero.data(), R.data(), N, O);
    for (size_t c = 0; c < g.size(); ++c)
        ASSERT_NEAR(dbias[c], d0[c] + from_zero[c], 1e-4 * (1 + std::abs(dbias[c]))) << c;
    // and it adds again on a second call
    Vec twice = dbias;
    be->bias_backward(twice.data(), R.data(), N, O);
    for (size_t c = 0; c < g.size(); ++c)
        ASSERT_NEAR(twice[c], dbias[c] + from_zero[c], 1e-4 * (1 + std::abs(twice[c]))) << c;
}

// out = s x: d out / d x = s, so the backward is scale by s again (in place, as the model may
// run it); in place and into another buffer agree.
TEST_P(KernelGrad, Scale) {
    const int64_t n = large() ? 70000 : 50;
    const float s = 22.627417f;  // √512: the embedding's × √d_model
    Vec x = randn(size_t(n), 1), R = randn(size_t(n), 2), out(static_cast<size_t>(n));
    auto objective = [&] {
        fwd->scale(out.data(), x.data(), n, s);
        return dot(out, R);
    };
    EXPECT_TRUE(forward_agrees(objective, out));
    Vec din = R;
    be->scale(din.data(), din.data(), n, s);
    EXPECT_TRUE(check_grad("scale din", x, din, objective, 1e-2f, probe(x.size()), kExactRtol, kExactAbs));
    Vec o(static_cast<size_t>(n)), x2 = x;
    be->scale(o.data(), x.data(), n, s);
    be->scale(x2.data(), x2.data(), n, s);
    EXPECT_EQ(x2, o);
}

TEST_P(KernelGrad, PositionalAddAndResidualAdd) {
    const int B = 2, L = large() ? 40 : 3, D = large() ? 64 : 4;
    const size_t n = size_t(B) * L * D;
    Vec in = randn(n, 1), pe = randn(size_t(L) * D, 2), R = randn(n, 3), out(n);
    Vec keep(n);
    std::mt19937_64 rng(4);
    for (float& k : keep) k = rng() % 4 == 0 ? 0.0f : 1.0f / 0.75f;  // inverted dropout, p = 0.25
    for (const float* kp : {static_cast<const float*>(nullptr), static_cast<const float*>(keep.data())}) {
        auto objective = [&] {
            fwd->positional_forward(out.data(), in.data(), pe.data(), kp, B, L, D);
            return dot(out, R);
        };
        EXPECT_TRUE(forward_agrees(objective, out));
        // what the model's backward does: grad(in) = grad(out) * keep; the table gets none
        Vec g(n);
        for (size_t i = 0; i < n; ++i) g[i] = kp ? R[i] * kp[i] : R[i];
        EXPECT_TRUE(check_grad(kp ? "positional (dropout) din" : "positional din", in, g, objective, 1e-2f, probe(n),
                               kExactRtol, kExactAbs));
    }
    // residual add: both inputs receive the output's gradient
    Vec a = randn(n, 5), b = randn(n, 6);
    auto add_obj = [&] {
        fwd->add_forward(out.data(), a.data(), b.data(), int64_t(n));
        return dot(out, R);
    };
    EXPECT_TRUE(forward_agrees(add_obj, out));
    EXPECT_TRUE(check_grad("add da", a, R, add_obj, 1e-2f, probe(n), kExactRtol, kExactAbs));
    EXPECT_TRUE(check_grad("add db", b, R, add_obj, 1e-2f, probe(n), kExactRtol, kExactAbs));
}

TEST_P(KernelGrad, CrossEntropyThroughSoftmaxWithIgnoredRows) {
    const int N = large() ? 40 : 6, V = large() ? 30 : 5, ignore = 0;
    Vec logits = randn(size_t(N) * V, 1, 1.5f), probs(logits.size()), losses(static_cast<size_t>(N));
    std::vector<int> targets(static_cast<size_t>(N));
    for (int n = 0; n < N; ++n) targets[size_t(n)] = (n * 3 + 1) % V;
    targets[1] = ignore;
    targets[size_t(N) - 1] = ignore;
    int expect_counted = 0;
    for (int t : targets) expect_counted += t != ignore;
    int counted = -1;
    auto objective = [&] {
        fwd->softmax_forward(probs.data(), logits.data(), N, V);
        float mean = 0.0f;
        fwd->cross_entropy_forward(losses.data(), &mean, &counted, probs.data(), targets.data(), N, V, ignore);
        fwd->sync();
        return double(mean);
    };
    EXPECT_TRUE(forward_agrees(objective, probs));
    const double loss = objective();
    EXPECT_EQ(counted, expect_counted);
    double mean = 0.0;
    for (int n = 0; n < N; ++n) {
        if (targets[size_t(n)] == ignore) {
            EXPECT_EQ(losses[size_t(n)], 0.0f);
            continue;
        }
        EXPECT_NEAR(losses[size_t(n)], -std::log(probs[size_t(n) * V + targets[size_t(n)]]), 1e-5);
        mean += losses[size_t(n)];
    }
    EXPECT_NEAR(loss, mean / expect_counted, 1e-6);
    Vec dlogits = randn(logits.size(), 2, 10.0f);
    be->cross_entropy_backward(dlogits.data(), probs.data(), targets.data(), N, V, ignore);
    for (int v = 0; v < V; ++v) {
        EXPECT_EQ(dlogits[size_t(1) * V + v], 0.0f);
        EXPECT_EQ(dlogits[size_t(N - 1) * V + v], 0.0f);
    }
    EXPECT_TRUE(check_grad("cross_entropy dlogits", logits, dlogits, objective, 1e-2f, probe(logits.size()),
                           kSmoothRtol, kSmoothAbs));

    // every row ignored: loss 0, nothing counted, zero gradient
    std::vector<int> all_pad(size_t(N), ignore);
    float all_pad_mean = -1.0f;
    be->cross_entropy_forward(losses.data(), &all_pad_mean, &counted, probs.data(), all_pad.data(), N, V, ignore);
    be->sync();
    EXPECT_EQ(all_pad_mean, 0.0f);
    EXPECT_EQ(counted, 0);
    be->cross_entropy_backward(dlogits.data(), probs.data(), all_pad.data(), N, V, ignore);
    for (float g : dlogits) ASSERT_EQ(g, 0.0f);
}

// cal_loss with smoothing: the summed loss from the logits, whose gradient is softmax - q (scale 1
// for the sum); the objective adds the float per-row losses in double, and *sum must be that sum.
TEST_P(KernelGrad, SmoothedCrossEntropyFromLogitsWithIgnoredRows) {
    const int N = large() ? 40 : 6, V = large() ? 30 : 5, ignore = 0;
    Vec logits = randn(size_t(N) * V, 3, 1.5f), probs(logits.size()), losses(static_cast<size_t>(N));
    std::vector<int> targets(static_cast<size_t>(N));
    for (int n = 0; n < N; ++n) targets[size_t(n)] = (n * 3 + 1) % V;
    targets[1] = ignore;
    targets[size_t(N) - 1] = ignore;
    for (float eps : {0.1f, 0.0f}) {
        SCOPED_TRACE("eps " + std::to_string(eps));
        float sum = -1.0f;
        auto objective = [&] {
            fwd->smoothed_cross_entropy_forward(losses.data(), &sum, logits.data(), targets.data(), N, V, ignore, eps);
            fwd->sync();
            double s = 0.0;
            for (float l : losses) s += l;
            return s;
        };
        EXPECT_TRUE(forward_agrees(objective, losses));
        const double total = objective();
        EXPECT_NEAR(sum, total, 1e-6 * (1.0 + total));
        EXPECT_EQ(losses[1], 0.0f);
        EXPECT_EQ(losses[size_t(N) - 1], 0.0f);
        // the definition, in double: -Σ_c q_c log_softmax_c
        for (int n = 0; n < N; ++n) {
            const int t = targets[size_t(n)];
            if (t == ignore) continue;
            const float* x = logits.data() + size_t(n) * V;
            double lse = 0.0;
            for (int c = 0; c < V; ++c) lse += std::exp(double(x[c]));
            lse = std::log(lse);
            double want = 0.0;
            for (int c = 0; c < V; ++c) want -= (c == t ? 1.0 - eps : eps / (V - 1.0)) * (double(x[c]) - lse);
            EXPECT_NEAR(losses[size_t(n)], want, 1e-5 * (1.0 + want)) << "row " << n;
        }
        fwd->softmax_forward(probs.data(), logits.data(), N, V);
        Vec dlogits = randn(logits.size(), 4, 10.0f);  // overwritten
        be->smoothed_cross_entropy_backward(dlogits.data(), probs.data(), targets.data(), N, V, ignore, eps, 1.0f);
        for (int v = 0; v < V; ++v) {
            EXPECT_EQ(dlogits[size_t(1) * V + v], 0.0f);
            EXPECT_EQ(dlogits[size_t(N - 1) * V + v], 0.0f);
        }
        EXPECT_TRUE(check_grad("smoothed cross_entropy dlogits", logits, dlogits, objective, 1e-2f,
                               probe(logits.size()), kSmoothRtol, kSmoothAbs));
        // scale multiplies the gradient (a mean instead of cal_loss's sum)
        Vec scaled(logits.size());
        be->smoothed_cross_entropy_backward(scaled.data(), probs.data(), targets.data(), N, V, ignore, eps, 0.25f);
        for (size_t i = 0; i < scaled.size(); ++i) ASSERT_NEAR(scaled[i], 0.25f * dlogits[i], 1e-7) << i;
    }
}

// eps = 0 is the ordinary cross-entropy: the per-row losses are cross_entropy_forward's (from the
// softmax's probabilities), the sum is its mean × counted, and with scale 1 / counted the
// gradient is cross_entropy_backward's.
TEST_P(KernelGrad, SmoothedCrossEntropyWithoutSmoothingIsTheCrossEntropy) {
    const int N = large() ? 300 : 7, V = large() ? 65 : 3, ignore = 2;
    const Vec logits = randn(size_t(N) * V, 5, 2.0f);
    std::vector<int> targets(static_cast<size_t>(N));
    for (int n = 0; n < N; ++n) targets[size_t(n)] = (n * 5 + 3) % V;
    targets[0] = ignore;
    Vec probs(logits.size()), ce(static_cast<size_t>(N)), smoothed(static_cast<size_t>(N), -1.0f);
    be->softmax_forward(probs.data(), logits.data(), N, V);
    float mean = -1.0f, sum = -1.0f;
    int counted = -1;
    be->cross_entropy_forward(ce.data(), &mean, &counted, probs.data(), targets.data(), N, V, ignore);
    be->smoothed_cross_entropy_forward(smoothed.data(), &sum, logits.data(), targets.data(), N, V, ignore, 0.0f);
    be->sync();
    ASSERT_GT(counted, 0);
    for (int n = 0; n < N; ++n) EXPECT_NEAR(smoothed[size_t(n)], ce[size_t(n)], 1e-5 * (1.0 + ce[size_t(n)])) << n;
    EXPECT_NEAR(sum, double(mean) * counted, 1e-5 * (1.0 + double(mean) * counted));
    Vec d_ce(probs.size()), d_smoothed(probs.size());
    be->cross_entropy_backward(d_ce.data(), probs.data(), targets.data(), N, V, ignore);
    be->smoothed_cross_entropy_backward(d_smoothed.data(), probs.data(), targets.data(), N, V, ignore, 0.0f,
                                        1.0f / static_cast<float>(counted));
    for (size_t i = 0; i < d_ce.size(); ++i) ASSERT_NEAR(d_smoothed[i], d_ce[i], 1e-7) << i;
}

// The parallel split must not change results: 1 and 2 threads agree on large sizes.
TEST(KernelThreads, OneAndTwoThreadsAgree) {
    auto b1 = make_cpu_backend(1), b2 = make_cpu_backend(2);
    ASSERT_EQ(b1->describe(), "cpu, 1 thread");
    ASSERT_EQ(b2->describe(), "cpu, 2 threads");
    const int N = 16, I = 61, O = 75;
    Vec x = randn(size_t(N) * I, 1), W = randn(size_t(O) * I, 2), dy = randn(size_t(N) * O, 3);
    Vec y1(dy.size()), y2(dy.size());
    b1->linear_forward(y1.data(), x.data(), W.data(), N, I, O);
    b2->linear_forward(y2.data(), x.data(), W.data(), N, I, O);
    for (size_t i = 0; i < y1.size(); ++i) ASSERT_NEAR(y1[i], y2[i], 1e-4 * (1 + std::abs(y1[i]))) << i;
    Vec dx1(x.size()), dx2(x.size()), dW1(W.size(), 0.0f), dW2(W.size(), 0.0f);
    b1->linear_backward(dx1.data(), dW1.data(), dy.data(), x.data(), W.data(), N, I, O, false);
    b2->linear_backward(dx2.data(), dW2.data(), dy.data(), x.data(), W.data(), N, I, O, false);
    for (size_t i = 0; i < dx1.size(); ++i) ASSERT_NEAR(dx1[i], dx2[i], 1e-4 * (1 + std::abs(dx1[i]))) << i;
    for (size_t i = 0; i < dW1.size(); ++i) ASSERT_NEAR(dW1[i], dW2[i], 1e-4 * (1 + std::abs(dW1[i]))) << i;
    Vec s(size_t(240) * 70), p1(s.size()), p2(s.size());
    s = randn(s.size(), 4, 3.0f);
    b1->softmax_forward(p1.data(), s.data(), 240, 70);
    b2->softmax_forward(p2.data(), s.data(), 240, 70);
    EXPECT_EQ(p1, p2);
    const double s1 = b1->sum_squares_now(s.data(), int64_t(s.size()));
    EXPECT_GT(s1, 0.0);
    EXPECT_NEAR(s1, b2->sum_squares_now(s.data(), int64_t(s.size())), 1e-9 * s1);
}

INSTANTIATE_TEST_SUITE_P(Cpu, KernelGrad,
                         ::testing::Values(Case{1, false}, Case{1, true}, Case{2, false}, Case{2, true}), case_name);

// ---------------------------------------------------------------------------
// The whole model: d(loss)/d(parameter) by central differences of the float loss.

Config tiny_config() {
    Config c;  // the tutorial's vocabularies and lengths
    c.d_model = 8;
    c.d_ff = 12;
    c.d_k = 3;
    c.d_v = 2;
    c.n_heads = 2;
    c.n_layers = 2;
    c.dropout = 0.0;
    return c;
}

// The tutorial's two sentences plus a short one, so the batch has source, decoder-input and
// target padding (target padding is ignore_index and must contribute nothing).
Batch tiny_batch(const Config& c) {
    auto ex = builtin_examples();
    ex.push_back({"ich mochte cola", "S i want coke", "i want coke E"});
    return make_training_batch(c, ex, {0, 1, 2});
}

// (threads, learn_layer_norm): the tutorial's fixed LayerNorm and the learned one.
class ModelGrad : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(ModelGrad, EveryParameterTensorMatchesCentralDifferences) {
    Config c = tiny_config();
    c.learn_layer_norm = std::get<1>(GetParam());
    auto be = make_cpu_backend(std::get<0>(GetParam()));
    ParamSet params = init_params(c, 5);
    // Learned LayerNorm gamma/beta away from their 1/0 initialisation, so their gradients are generic.
    for (size_t i = 0; i < params.size(); ++i)
        if (params.name(i).find("layer_norm") != std::string::npos) {
            const bool is_gamma = params.name(i).ends_with(".weight");
            Vec r = randn(size_t(params[i].size()), 100 + i, 0.2f);
            for (size_t k = 0; k < r.size(); ++k) params[i].data[k] = (is_gamma ? 1.0f : 0.0f) + r[k];
        }
    Transformer model(c, std::move(params), be.get());
    const Batch batch = tiny_batch(c);
    ASSERT_EQ(batch.out[size_t(2) * batch.T + 5], 0) << "the third target must be padded";
    Trace tr;
    model.forward(batch, tr);
    const float loss0 = model.loss(batch, tr);
    ASSERT_TRUE(std::isfinite(loss0));
    ParamSet grads;
    model.backward(batch, tr, grads, false);
    ASSERT_EQ(grads.size(), model.params().size());

    // The mean cross-entropy summed in double from the float probabilities: the float loss is
    // quantised to 2.4e-7 (one ulp at ~2), which would be 1.2e-4 in the difference quotient.
    const int V = c.tgt_vocab_size();
    auto objective = [&] {
        Trace t;
        model.forward(batch, t);
        const auto& probs = t.at("projection.probs").value.data;
        double sum = 0.0;
        int n = 0;
        for (size_t i = 0; i < batch.out.size(); ++i)
            if (batch.out[i] != 0) {
                sum -= std::log(double(probs[i * size_t(V) + size_t(batch.out[i])]));
                ++n;
            }
        return sum / n;
    };
    ASSERT_NEAR(objective(), loss0, 1e-6 * loss0);
    // eps 1e-3: the float forward's rounding leaves about 4e-5 of noise in the quotient (the
    // absolute floor); a larger eps starts crossing ReLU kinks.
    std::mt19937_64 rng(17);
    int checked = 0, nonzero = 0, strict = 0;
    for (size_t p = 0; p < model.params().size(); ++p) {
        Vec& w = model.params()[p].data;
        const Vec& g = grads[p].data;
        // the largest gradient entry plus a few random ones
        std::vector<size_t> idx{
            size_t(std::max_element(g.begin(), g.end(), [](float a, float b) { return std::abs(a) < std::abs(b); }) -
                   g.begin())};
        std::uniform_int_distribution<size_t> u(0, w.size() - 1);
        for (int k = 0; k < 4; ++k) idx.push_back(u(rng));
        EXPECT_TRUE(check_grad(model.params().name(p), w, g, objective, 1e-3f, idx, 1e-2, 0.0, 1e-4));
        checked += static_cast<int>(idx.size());
        nonzero += std::abs(g[idx[0]]) > 3e-4f;                 // several times the noise floor
        for (size_t i : idx) strict += std::abs(g[i]) > 1e-2f;  // where the relative 1e-2 dominates
    }
    EXPECT_EQ(model.params().size(), param_specs(c).size());
    EXPECT_GE(checked, 5 * static_cast<int>(param_specs(c).size()));
    EXPECT_EQ(param_specs(c).size(), c.learn_layer_norm ? 55u : 35u);
    // every tensor has a real gradient somewhere
    EXPECT_EQ(nonzero, static_cast<int>(model.params().size()));
    EXPECT_GE(strict, checked / 4);
}

INSTANTIATE_TEST_SUITE_P(Cpu, ModelGrad, ::testing::Combine(::testing::Values(1, 2), ::testing::Bool()),
                         [](const auto& info) {
                             return "threads" + std::to_string(std::get<0>(info.param)) +
                                    (std::get<1>(info.param) ? "_learned_norm" : "_fixed_norm");
                         });

// With dropout active (training), the same mask must be drawn for every evaluation: each forward
// has the same seed and step. The gradient reaching the embedding tables is scaled by the mask.
TEST(ModelGradDropout, EmbeddingAndFirstLayerGradientsUnderDropout) {
    Config c = tiny_config();
    c.dropout = 0.4;
    Transformer model(c, init_params(c, 9));
    const Batch batch = tiny_batch(c);
    auto forward = [&](Trace& t) {
        ForwardOptions fo;
        fo.train = true;
        fo.seed = 1234;
        fo.step = 7;
        model.forward(batch, t, fo);
        return model.loss(batch, t);
    };
    Trace tr;
    forward(tr);
    const Tensor& keep = graph::stack_input(tr, Stack::Encoder)->saved.keep;
    ASSERT_FALSE(keep.empty());
    int dropped = 0;
    for (float k : keep.data) dropped += k == 0.0f;
    ASSERT_GT(dropped, 0);
    ParamSet grads;
    model.backward(batch, tr, grads, false);
    const int V = c.tgt_vocab_size();
    auto objective = [&] {
        Trace t;
        forward(t);
        const auto& probs = t.at("projection.probs").value.data;
        double sum = 0.0;
        int n = 0;
        for (size_t i = 0; i < batch.out.size(); ++i)
            if (batch.out[i] != 0) {
                sum -= std::log(double(probs[i * size_t(V) + size_t(batch.out[i])]));
                ++n;
            }
        return sum / n;
    };
    for (const char* name :
         {"encoder.src_emb.weight", "decoder.tgt_emb.weight", "encoder.layers.0.enc_self_attn.W_V.weight",
          "decoder.layers.0.dec_self_attn.W_Q.weight"}) {
        Vec& w = model.params().at(name).data;
        const Vec& g = grads.at(name).data;
        std::vector<size_t> idx;
        for (size_t i = 0; i < g.size(); ++i)  // the entries with the clearest signal
            if (std::abs(g[i]) > 1e-2f && idx.size() < 8) idx.push_back(i);
        ASSERT_FALSE(idx.empty()) << name;
        EXPECT_TRUE(check_grad(name, w, g, objective, 1e-3f, idx, 1e-2, 0.0, 1e-4));
    }
}

// Padded target positions are CrossEntropyLoss's ignore_index: zero loss, zero logit gradient.
TEST(ModelGradPadding, PaddedTargetPositionsHaveZeroLossAndGradient) {
    const Config c = tiny_config();
    Transformer model(c, init_params(c, 5));
    const Batch batch = tiny_batch(c);
    Trace tr;
    model.forward(batch, tr);
    model.loss(batch, tr);
    ParamSet grads;
    model.backward(batch, tr, grads, true);
    const Tensor& per = tr.at("loss.per_token").value;
    const Tensor& dlogits = tr.at("grad.projection.logits").value;
    const int V = c.tgt_vocab_size();
    int pads = 0;
    for (int b = 0; b < batch.B; ++b)
        for (int t = 0; t < batch.T; ++t) {
            const bool pad = batch.out[size_t(b) * batch.T + t] == 0;
            if (!pad) {
                EXPECT_GT(per.at({b, t}), 0.0f);
                continue;
            }
            ++pads;
            EXPECT_EQ(per.at({b, t}), 0.0f);
            for (int v = 0; v < V; ++v) EXPECT_EQ(dlogits.at({b, t, v}), 0.0f);
        }
    EXPECT_EQ(pads, 2);
}

// ---------------------------------------------------------------------------
// Optimizers against double transcriptions of torch.optim's update rules.

struct SgdRef {
    std::vector<double> p, buf;
    void step(const Vec& g, double lr, double momentum) {
        for (size_t i = 0; i < p.size(); ++i) {
            buf[i] = momentum * buf[i] + g[i];  // first step: buf = g (torch clones the gradient)
            p[i] -= lr * buf[i];
        }
    }
};

struct AdamRef {
    std::vector<double> p, m, v;
    int64_t t = 0;
    void step(const Vec& g, double lr, double b1, double b2, double eps) {
        ++t;
        const double bc1 = 1.0 - std::pow(b1, double(t)), bc2 = 1.0 - std::pow(b2, double(t));
        for (size_t i = 0; i < p.size(); ++i) {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * double(g[i]) * g[i];
            const double denom = std::sqrt(v[i]) / std::sqrt(bc2) + eps;
            p[i] -= (lr / bc1) * m[i] / denom;
        }
    }
};

::testing::AssertionResult near_all(const char* what, const Vec& got, const std::vector<double>& want, double rtol,
                                    double atol) {
    for (size_t i = 0; i < got.size(); ++i)
        if (!(std::abs(got[i] - want[i]) <= atol + rtol * std::abs(want[i])))
            return ::testing::AssertionFailure() << what << "[" << i << "]: " << got[i] << " vs reference " << want[i];
    return ::testing::AssertionSuccess();
}

class OptimizerRef : public ::testing::TestWithParam<Case> {};

TEST_P(OptimizerRef, SgdWithMomentumThreeSteps) {
    auto be = make_cpu_backend(GetParam().threads);
    const size_t n = GetParam().large ? 70000 : 9;
    Vec p = randn(n, 1), buf(n, 0.0f);
    SgdRef ref{std::vector<double>(p.begin(), p.end()), std::vector<double>(n, 0.0)};
    const float lr = 0.05f, momentum = 0.9f;
    for (int s = 0; s < 3; ++s) {
        const Vec g = randn(n, 10 + s);
        be->sgd_step(p.data(), buf.data(), g.data(), int64_t(n), lr, momentum);
        ref.step(g, lr, momentum);
        ASSERT_TRUE(near_all("sgd momentum buffer", buf, ref.buf, 1e-5, 1e-6)) << "step " << s + 1;
        ASSERT_TRUE(near_all("sgd param", p, ref.p, 1e-5, 1e-6)) << "step " << s + 1;
    }
    // the parameters really moved: the reference is not trivially equal to the start
    EXPECT_GT(std::abs(ref.p[0] - double(randn(n, 1)[0])), 1e-3);
}

TEST_P(OptimizerRef, AdamThreeSteps) {
    auto be = make_cpu_backend(GetParam().threads);
    const size_t n = GetParam().large ? 70000 : 9;
    Vec p = randn(n, 2), m(n, 0.0f), v(n, 0.0f);
    AdamRef ref{std::vector<double>(p.begin(), p.end()), std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
    const float lr = 1e-2f, b1 = 0.9f, b2 = 0.98f, eps = 1e-9f;
    for (int s = 1; s <= 3; ++s) {
        Vec g = randn(n, 20 + s);
        g[0] = 0.0f;  // a parameter without gradient in this step
        be->adam_step(p.data(), m.data(), v.data(), g.data(), int64_t(n), lr, b1, b2, eps, s);
        ref.step(g, lr, b1, b2, eps);
        ASSERT_TRUE(near_all("adam exp_avg", m, ref.m, 1e-5, 1e-7)) << "step " << s;
        ASSERT_TRUE(near_all("adam exp_avg_sq", v, ref.v, 1e-5, 1e-9)) << "step " << s;
        ASSERT_TRUE(near_all("adam param", p, ref.p, 1e-6, 2e-6)) << "step " << s;
    }
}

INSTANTIATE_TEST_SUITE_P(Cpu, OptimizerRef,
                         ::testing::Values(Case{1, false}, Case{1, true}, Case{2, false}, Case{2, true}), case_name);

// The fused path (train_step: each parameter updated by the optimizer inside backward(), linear
// weights in the same pass that computes their gradient) must give what forward, loss, backward,
// then step gives. The kernels differ (rounding), so within 1e-5; a weight updated before the
// backward pass's last read of it would change later gradients by ~lr * grad, far more.
TEST(OptimizerFused, TrainStepEqualsBackwardThenStep) {
    const Config c = tiny_config();
    for (OptimizerKind kind : {OptimizerKind::SGD, OptimizerKind::Adam}) {
        SCOPED_TRACE(optimizer_name(kind));
        OptimizerOptions o;
        o.kind = kind;
        o.lr = kind == OptimizerKind::SGD ? 0.1 : 1e-2;
        Transformer fused(c, init_params(c, 21)), plain(c, init_params(c, 21));
        Optimizer opt_fused(o, fused.params()), opt_plain(o, plain.params());
        const Batch batch = tiny_batch(c);
        Trace tf, tp;
        ParamSet gf, gp;
        for (int s = 1; s <= 3; ++s) {
            double norm = -1.0;
            const double loss_fused = train_step(fused, batch, tf, gf, opt_fused, &norm);
            plain.forward(batch, tp);
            const double loss_plain = plain.loss(batch, tp);
            plain.backward(batch, tp, gp, true);
            double sq = 0.0;
            for (size_t i = 0; i < gp.size(); ++i) plain.backend().sum_squares(&sq, gp[i].ptr(), gp[i].size());
            plain.backend().sync();
            opt_plain.step(plain.params(), gp, plain.backend());
            if (s == 1) {
                EXPECT_EQ(loss_fused, loss_plain);  // same weights, same forward
            }
            EXPECT_NEAR(loss_fused, loss_plain, 1e-6 * loss_plain) << "step " << s;
            EXPECT_NEAR(norm, std::sqrt(sq), 1e-5 * std::sqrt(sq)) << "step " << s;
            for (size_t i = 0; i < gp.size(); ++i) {
                ASSERT_TRUE(fixtures::close(gp.name(i) + " gradient, step " + std::to_string(s), gf[i], gp[i], 1e-5));
                ASSERT_TRUE(fixtures::close(gp.name(i) + ", step " + std::to_string(s), fused.params()[i],
                                            plain.params()[i], 1e-5));
            }
            // A training step's trace is lean: no gradients recorded, every activation freed once the
            // backward pass was done with it (names and shapes stay), the loss and the outputs kept.
            EXPECT_TRUE(tf.lean);
            size_t freed = 0;
            for (const TraceEntry& e : tf.entries()) {
                ASSERT_NE(e.role, Role::Gradient) << e.name;
                ASSERT_TRUE(tp.contains(e.name)) << e.name;
                EXPECT_EQ(e.value.shape, tp.at(e.name).value.shape) << e.name;
                if (e.value.data.empty()) {
                    ++freed;
                    EXPECT_TRUE(e.saved.mean.empty() && e.saved.merged.empty()) << e.name;
                }
            }
            EXPECT_GT(freed, tf.size() / 2);
            // The loss is kept (not freed with the activations), the plain pass's to rounding: after the
            // first step the two paths' weights differ by the rounding of their gradients' sums.
            ASSERT_EQ(tf.at("loss").value.data.size(), 1u);
            EXPECT_NEAR(tf.at("loss").value.data[0], tp.at("loss").value.data[0], 1e-6 * loss_plain) << "step " << s;
            EXPECT_FALSE(tf.at("projection.probs").value.data.empty());
        }
        EXPECT_EQ(opt_fused.step_count(), 3);
    }
}

// The Optimizer class: every parameter tensor stepped, the warm-up schedule's learning rate.
TEST(OptimizerClass, AdamWithWarmupMatchesReference) {
    const Config c = tiny_config();
    ParamSet params = init_params(c, 1);
    OptimizerOptions o;
    o.kind = OptimizerKind::Adam;
    o.lr = 2.0;
    o.warmup_schedule = true;
    o.warmup_steps = 4;
    o.d_model = c.d_model;
    Optimizer opt(o, params);
    std::vector<AdamRef> refs;
    for (size_t i = 0; i < params.size(); ++i)
        refs.push_back({std::vector<double>(params[i].data.begin(), params[i].data.end()),
                        std::vector<double>(size_t(params[i].size()), 0.0),
                        std::vector<double>(size_t(params[i].size()), 0.0)});
    auto be = make_cpu_backend(1);
    for (int s = 1; s <= 3; ++s) {
        const double want_lr = 2.0 * std::pow(8.0, -0.5) * std::min(std::pow(s, -0.5), s * std::pow(4.0, -1.5));
        EXPECT_NEAR(opt.current_lr(), want_lr, 1e-12) << "step " << s;
        ParamSet grads = init_params(c, 100 + s);
        opt.step(params, grads, *be);
        EXPECT_EQ(opt.step_count(), s);
        for (size_t i = 0; i < params.size(); ++i) {
            refs[i].step(grads[i].data, float(want_lr), o.beta1, o.beta2, o.eps);
            ASSERT_TRUE(near_all(params.name(i).c_str(), params[i].data, refs[i].p, 1e-6, 2e-6)) << "step " << s;
        }
    }
}

TEST(OptimizerClass, SgdMatchesReference) {
    const Config c = tiny_config();
    ParamSet params = init_params(c, 2);
    OptimizerOptions o;  // the tutorial's SGD(lr=1e-3, momentum=0.99)
    Optimizer opt(o, params);
    EXPECT_EQ(opt.current_lr(), 1e-3);
    std::vector<SgdRef> refs;
    for (size_t i = 0; i < params.size(); ++i)
        refs.push_back({std::vector<double>(params[i].data.begin(), params[i].data.end()),
                        std::vector<double>(size_t(params[i].size()), 0.0)});
    auto be = make_cpu_backend(2);
    for (int s = 1; s <= 3; ++s) {
        ParamSet grads = init_params(c, 200 + s);
        opt.step(params, grads, *be);
        for (size_t i = 0; i < params.size(); ++i) {
            refs[i].step(grads[i].data, float(1e-3), float(0.99));
            ASSERT_TRUE(near_all(params.name(i).c_str(), params[i].data, refs[i].p, 1e-6, 1e-7)) << "step " << s;
        }
    }
    // state tensors are named as torch's state_dict would suggest
    const auto state = opt.state_tensors();
    ASSERT_EQ(state.size(), params.size());
    EXPECT_EQ(state[0].first, "optim." + params.name(0) + ".momentum_buffer");
}

}  // namespace

// A model's dropouts where it puts them: each site's mask drawn once per (seed, step), and the
// backward pass sending the gradient through the same masks (finite differences agree).
void check_dropout_gradients(const Config& c, int expected_sites, const std::vector<std::string>& params,
                             const std::string& what) {
    SCOPED_TRACE(what);
    Transformer model(c, init_params(c, 21));
    const Batch batch = make_batch(c, {"ich mochte ein bier P", "ich mochte ein cola"},
                                   {"S i want a beer .", "S i want a coke ."}, {"i want a beer . E", "i want a coke . E"});
    auto forward = [&](Trace& t, uint64_t step) {
        ForwardOptions fo;
        fo.train = true;
        fo.seed = 99;
        fo.step = step;
        model.forward(batch, t, fo);
        return model.loss(batch, t);
    };
    Trace tr;
    const float loss = forward(tr, 3);
    int sites = 0, dropped = 0;
    for (const TraceEntry& e : tr.entries())
        if (!e.saved.keep.empty()) {
            ++sites;
            for (float k : e.saved.keep.data) dropped += k == 0.0f;
        }
    EXPECT_EQ(sites, expected_sites);
    EXPECT_GT(dropped, 0);
    Trace again, other;
    EXPECT_EQ(forward(again, 3), loss) << "the same seed and step draw the same masks";
    EXPECT_NE(forward(other, 4), loss) << "another step draws other masks";
    ParamSet grads;
    model.backward(batch, tr, grads, false);
    // The loss again in double from the logits (a float sum of ~30 would round away the differences):
    // the mean cross-entropy, or aiayn's label-smoothed sum.
    const int V = c.tgt_vocab_size();
    const double eps = c.aiayn() ? double(kLabelSmoothing) : 0.0;
    auto objective = [&] {
        Trace t;
        forward(t, 3);
        const Tensor& logits = graph::output_logits(t)->value;
        double sum = 0.0;
        int n = 0;
        for (size_t r = 0; r < batch.out.size(); ++r) {
            if (batch.out[r] == 0) continue;
            const float* x = logits.ptr() + r * size_t(V);
            double m = x[0], z = 0.0;
            for (int k = 1; k < V; ++k) m = std::max(m, double(x[k]));
            for (int k = 0; k < V; ++k) z += std::exp(double(x[k]) - m);
            for (int k = 0; k < V; ++k) {
                const double q = k == batch.out[r] ? 1.0 - eps : eps / (V - 1);
                sum -= q * (double(x[k]) - m - std::log(z));
            }
            ++n;
        }
        return c.aiayn() ? sum : sum / n;
    };
    for (const std::string& name : params) {
        Vec& w = model.params().at(name).data;
        const Vec& g = grads.at(name).data;
        std::vector<size_t> idx;
        for (size_t i = 0; i < g.size(); ++i)
            if (std::abs(g[i]) > 1e-2f && idx.size() < 6) idx.push_back(i);
        ASSERT_FALSE(idx.empty()) << name;
        EXPECT_TRUE(check_grad(name, w, g, objective, 1e-3f, idx, 2e-2, 0.0, 1e-4));
    }
}

// PyTorch's layers ("architecture": "torch"): the attention weights', dropout1-3's, the
// feed-forward's and the positional encoding's masks, pre- and post-norm.
TEST(ModelGradDropout, TorchLayersGradientsUnderDropout) {
    Config c = Config::torch_small();
    c.d_model = 8;
    c.n_heads = 2;
    c.d_k = c.d_v = 4;
    c.d_ff = 16;
    c.n_layers = c.n_decoder_layers = 1;
    c.dropout = 0.3;
    for (bool pre : {false, true}) {
        c.norm_first = pre;
        c.activation = pre ? "gelu" : "relu";
        // 2 positional encodings; encoder: attention, add1, feed-forward, add2; decoder: 2 attentions, 3 adds, feed-forward
        check_dropout_gradients(c, 2 + 4 + 6,
                                {"transformer.encoder.layers.0.self_attn.in_proj_weight",
                                 "transformer.encoder.layers.0.linear1.bias",
                                 "transformer.decoder.layers.0.multihead_attn.in_proj_bias",
                                 "transformer.decoder.layers.0.norm2.weight", "src_tok_emb.embedding.weight", "generator.bias"},
                                pre ? "pre-norm" : "post-norm");
    }
}

// attention-is-all-you-need-pytorch's ("aiayn"): the positional encodings', each block's residual
// and (its own 0.1) attention weights', with the projection tied to the target embedding.
TEST(ModelGradDropout, AiaynGradientsUnderDropout) {
    Config c = Config::aiayn_small();
    c.d_model = 8;
    c.n_heads = 2;
    c.d_k = 4;
    c.d_v = 3;
    c.d_ff = 16;
    c.n_layers = 1;
    c.dropout = 0.3;
    // 2 positional encodings; encoder: attention weights + residual, feed-forward residual; decoder: 2 + 2 + 1
    check_dropout_gradients(c, 2 + 3 + 5,
                            {"encoder.layer_stack.0.slf_attn.w_qs.weight", "encoder.layer_stack.0.pos_ffn.w_1.bias",
                             "decoder.layer_stack.0.enc_attn.layer_norm.weight", "decoder.trg_word_emb.weight",
                             "encoder.src_word_emb.weight", "encoder.layer_norm.bias"},
                            "aiayn");
}
