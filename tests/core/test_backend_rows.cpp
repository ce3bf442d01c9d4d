// The backend-ops tests of the row reductions (softmax, LayerNorm, cross-entropy and its smoothed
// form) on every backend against the single-threaded CPU, and the GPU's subgroup and serial
// shaders for them (test_backend_ops.cpp says how these tests work).
#include "backend_ops_util.h"

namespace backend_ops_test {

// ---------------------------------------------------------------- row reductions
// Softmax, LayerNorm and cross-entropy's gradient reduce along rows, and a GPU splits a row across
// a subgroup (up to 16 values a lane) or a workgroup of 128 (vk_backend.cpp's row_teams). The
// shapes straddle both: fewer columns than a subgroup (1, 3, 7: lavapipe's is 8, NVIDIA's 32,
// AMD's 64), around a subgroup (31, 33) and the switch to a workgroup (128, 129 on lavapipe; 512,
// 513 on NVIDIA), not a multiple of the workgroup (65, 513, 3000), d_model 512 and wider (2048,
// 3000), one row and many. Shared by the BackendOps tests and by RowReductions,
// which runs them on the GPU with each of its two ways to reduce.

const std::vector<std::array<int, 2>> kRowShapes = {{1, 1},    {3, 7},    {7, 63},   {5, 65},    {2, 129},
                                                    {40, 10},  {129, 513}, {1, 512},  {64, 512},  {1, 2048},
                                                    {3, 3000}, {300, 31}, {70, 33},  {2000, 12}, {1, 3},
                                                    {9, 128}};
const std::vector<std::array<int, 2>> kCrossEntropyShapes = {{1, 1},  {1, 3},   {3, 7},      {7, 63},  {10, 65},
                                                             {5, 129}, {129, 513}, {1, 3000}, {4, 2048}, {300, 31}};

// As near(), but NaN matches NaN and an infinity the same infinity: for inputs whose right answer
// is NaN or infinite (a row of -inf, a NaN in a row), which the CPU gives.
::testing::AssertionResult same_or_near(const char* what, const Vec& got, const Vec& want) {
    if (got.size() != want.size())
        return ::testing::AssertionFailure() << what << ": size " << got.size() << " vs " << want.size();
    for (size_t i = 0; i < got.size(); ++i) {
        const double g = got[i], w = want[i];
        if (std::isnan(g) && std::isnan(w)) continue;
        if (std::isinf(w) && g == w) continue;
        if (std::isnan(g) || std::isnan(w) || !(std::abs(g - w) <= 1e-5 * (1.0 + std::abs(w))))
            return ::testing::AssertionFailure() << what << "[" << i << "] = " << g << ", the CPU reference gives " << w;
    }
    return ::testing::AssertionSuccess();
}

void check_softmax(Backend& be, Backend& ref, const std::string& on, int rows, int cols) {
    const std::string shp = shape({{"rows", rows}, {"cols", cols}}) + " (-1e9 entries, last row all -1e9)";
    const size_t n = size_t(rows) * cols;
    // scores as the model has them: some entries masked to -1e9, the last row all masked
    Vec in = rnd(n, 27, -4.0f, 4.0f);
    const Vec mask = rnd_mask(1, rows, cols, 28);
    for (size_t i = 0; i < n; ++i)
        if (mask[i] != 0.0f) in[i] = -1e9f;
    Vec out = nan_vec(n), out_ref = out;
    {
        SCOPED_TRACE("softmax_forward on " + on + ", " + shp);
        VecStaging st(be);
        be.softmax_forward(st.out(out), st.in(in), rows, cols);
        st.finish();
        ref.softmax_forward(out_ref.data(), in.data(), rows, cols);
        EXPECT_TRUE(near("out", out, out_ref));
    }
    {
        SCOPED_TRACE("softmax_backward on " + on + ", " + shp);
        const Vec dout = rnd(n, 29);
        Vec din = nan_vec(n), want = din;
        VecStaging st(be);
        be.softmax_backward(st.out(din), st.in(dout), st.in(out_ref), rows, cols);
        st.finish();
        ref.softmax_backward(want.data(), dout.data(), out_ref.data(), rows, cols);
        EXPECT_TRUE(near("din", din, want));
    }
}

// Rows whose answer the CPU gives as NaN, or by a rule: all -inf (NaN: -inf - -inf), a +inf
// (NaN), a NaN first or in the middle (NaN), -inf in some entries (0 there), all -1e9 (uniform).
void check_softmax_special(Backend& be, Backend& ref, const std::string& on, int cols) {
    const float inf = std::numeric_limits<float>::infinity();
    const int rows = 6;
    const size_t n = size_t(rows) * cols;
    Vec in = rnd(n, 50, -4.0f, 4.0f);
    const auto row = [&](int r) { return in.begin() + r * cols; };
    std::fill(row(0), row(1), -inf);
    for (int c = 0; c < cols; c += 2) row(1)[c] = -inf;
    row(2)[cols / 2] = inf;
    row(3)[cols / 2] = kNaN;
    std::fill(row(4), row(5), -1e9f);
    row(5)[0] = kNaN;
    const std::string shp = shape({{"rows", rows}, {"cols", cols}}) + " (rows of -inf, +inf, NaN, -1e9)";
    Vec out = nan_vec(n), out_ref = out;
    {
        SCOPED_TRACE("softmax_forward on " + on + ", " + shp);
        VecStaging st(be);
        be.softmax_forward(st.out(out), st.in(in), rows, cols);
        st.finish();
        ref.softmax_forward(out_ref.data(), in.data(), rows, cols);
        EXPECT_TRUE(same_or_near("out", out, out_ref));
    }
    {
        SCOPED_TRACE("softmax_backward on " + on + ", " + shp);
        const Vec dout = rnd(n, 51);
        Vec din = Vec(n, 7.0f), want = din;
        VecStaging st(be);
        be.softmax_backward(st.out(din), st.in(dout), st.in(out_ref), rows, cols);
        st.finish();
        ref.softmax_backward(want.data(), dout.data(), out_ref.data(), rows, cols);
        EXPECT_TRUE(same_or_near("din", din, want));
    }
}

// affine: 0 no gamma/beta (the tutorial's), 1 gamma and beta, 2 gamma without beta (nanoGPT's bias=False)
constexpr int kLayerNormForms = 3;
void check_layernorm(Backend& be, Backend& ref, const std::string& on, int rows, int cols, int affine) {
    const bool shifted = affine == 1;
    const std::string shp = shape({{"rows", rows}, {"cols", cols}}) +
                            (affine == 0 ? " no gamma/beta" : shifted ? " gamma/beta" : " gamma, no beta");
    const size_t n = size_t(rows) * cols;
    const Vec in = rnd(n, 38, -2.0f, 3.0f), gamma = rnd(size_t(cols), 39, 0.5f, 1.5f), beta = rnd(size_t(cols), 40);
    const float* g = affine ? gamma.data() : nullptr;
    const float* b = shifted ? beta.data() : nullptr;
    Vec out = nan_vec(n), mean = nan_vec(size_t(rows)), rstd = mean, out_ref = out, mean_ref = mean, rstd_ref = mean;
    {
        SCOPED_TRACE("layernorm_forward on " + on + ", " + shp);
        VecStaging st(be);
        be.layernorm_forward(st.out(out), st.out(mean), st.out(rstd), st.in(in), affine ? st.in(gamma) : nullptr,
                             shifted ? st.in(beta) : nullptr, rows, cols, 1e-5f);
        st.finish();
        ref.layernorm_forward(out_ref.data(), mean_ref.data(), rstd_ref.data(), in.data(), g, b, rows, cols, 1e-5f);
        EXPECT_TRUE(near("out", out, out_ref));
        EXPECT_TRUE(near("mean", mean, mean_ref));
        EXPECT_TRUE(near("rstd", rstd, rstd_ref));
    }
    {
        SCOPED_TRACE("layernorm_backward on " + on + ", " + shp);
        const Vec dout = rnd(n, 41);
        Vec din = nan_vec(n), din_ref = din;
        Vec dg = rnd(size_t(cols), 42), db = rnd(size_t(cols), 43), dg_ref = dg, db_ref = db;  // accumulated
        VecStaging st(be);
        be.layernorm_backward(st.out(din), affine ? st.inout(dg) : nullptr, shifted ? st.inout(db) : nullptr,
                              st.in(dout), st.in(in), st.in(mean_ref), st.in(rstd_ref), affine ? st.in(gamma) : nullptr,
                              rows, cols);
        st.finish();
        ref.layernorm_backward(din_ref.data(), affine ? dg_ref.data() : nullptr, shifted ? db_ref.data() : nullptr,
                               dout.data(), in.data(), mean_ref.data(), rstd_ref.data(), g, rows, cols);
        EXPECT_TRUE(near("din", din, din_ref));
        if (affine) {
            // Sums over every row: with tens of thousands of rows, cancellation leaves a few
            // ulps of the terms' magnitude, so these are held to the NMSE bound past 10k rows.
            EXPECT_TRUE(rows > 10000 ? nmse("dgamma", dg, dg_ref) : near("dgamma", dg, dg_ref));
            EXPECT_TRUE(rows > 10000 ? nmse("dbeta", db, db_ref) : near("dbeta", db, db_ref));
        }
    }
}

// Rows with a NaN (all NaN, mean NaN), a +inf (mean inf, the rest NaN), all equal (variance 0:
// out 0, rstd 1/sqrt(eps)), and an ordinary one.
void check_layernorm_special(Backend& be, Backend& ref, const std::string& on, int cols) {
    const int rows = 4;
    const size_t n = size_t(rows) * cols;
    Vec in = rnd(n, 52, -2.0f, 3.0f);
    in[size_t(cols / 2)] = kNaN;
    in[size_t(cols) + size_t(cols / 3)] = std::numeric_limits<float>::infinity();
    std::fill(in.begin() + 2 * cols, in.begin() + 3 * cols, 0.75f);
    const std::string shp = shape({{"rows", rows}, {"cols", cols}}) + " (rows with NaN, +inf, all equal)";
    Vec out = nan_vec(n), mean = nan_vec(size_t(rows)), rstd = mean, out_ref = out, mean_ref = mean, rstd_ref = mean;
    {
        SCOPED_TRACE("layernorm_forward on " + on + ", " + shp);
        VecStaging st(be);
        be.layernorm_forward(st.out(out), st.out(mean), st.out(rstd), st.in(in), nullptr, nullptr, rows, cols, 1e-5f);
        st.finish();
        ref.layernorm_forward(out_ref.data(), mean_ref.data(), rstd_ref.data(), in.data(), nullptr, nullptr, rows, cols,
                              1e-5f);
        EXPECT_TRUE(same_or_near("out", out, out_ref));
        EXPECT_TRUE(same_or_near("mean", mean, mean_ref));
        EXPECT_TRUE(same_or_near("rstd", rstd, rstd_ref));
    }
    {
        SCOPED_TRACE("layernorm_backward on " + on + ", " + shp);
        const Vec dout = rnd(n, 53);
        Vec din = Vec(n, 7.0f), din_ref = din;
        VecStaging st(be);
        be.layernorm_backward(st.out(din), nullptr, nullptr, st.in(dout), st.in(in), st.in(mean_ref),
                              st.in(rstd_ref), nullptr, rows, cols);
        st.finish();
        ref.layernorm_backward(din_ref.data(), nullptr, nullptr, dout.data(), in.data(), mean_ref.data(),
                               rstd_ref.data(), nullptr, rows, cols);
        EXPECT_TRUE(same_or_near("din", din, din_ref));
    }
}

void check_cross_entropy(Backend& be, Backend& ref, const std::string& on, int N, int V, bool all_ignored) {
    const int ignore = 0;
    const std::string shp = shape({{"N", N}, {"V", V}}) + (all_ignored ? " all rows ignored" : " some ignored");
    // probs: a softmax of random logits
    Vec logits = rnd(size_t(N) * V, 44, -3.0f, 3.0f), probs(logits.size());
    ref.softmax_forward(probs.data(), logits.data(), N, V);
    std::vector<int> targets = rnd_ints(size_t(N), 45, 0, V - 1);
    if (all_ignored)
        std::fill(targets.begin(), targets.end(), ignore);
    else if (N > 1) {
        targets[0] = ignore;
        targets[N - 1] = V - 1;
    }
    Vec losses = nan_vec(size_t(N)), losses_ref = losses;
    int counted = -1, counted_ref = -2;
    {
        SCOPED_TRACE("cross_entropy_forward on " + on + ", " + shp);
        float m = -1.0f, m_ref = -2.0f;
        VecStaging st(be);  // m and counted: host pointers, as every scalar result is
        be.cross_entropy_forward(st.out(losses), &m, &counted, st.in(probs), st.in(targets), N, V, ignore);
        st.finish();
        ref.cross_entropy_forward(losses_ref.data(), &m_ref, &counted_ref, probs.data(), targets.data(), N, V, ignore);
        ref.sync();
        EXPECT_TRUE(near("losses", losses, losses_ref));
        EXPECT_EQ(counted, counted_ref);
        EXPECT_TRUE(near_scalar("mean loss", m, m_ref));
        if (all_ignored) {
            EXPECT_EQ(counted, 0);
            EXPECT_EQ(m, 0.0f);
        }
    }
    {
        SCOPED_TRACE("cross_entropy_backward on " + on + ", " + shp);
        Vec d = nan_vec(probs.size()), want = d;
        VecStaging st(be);
        be.cross_entropy_backward(st.out(d), st.in(probs), st.in(targets), N, V, ignore);
        st.finish();
        ref.cross_entropy_backward(want.data(), probs.data(), targets.data(), N, V, ignore);
        EXPECT_TRUE(near("dlogits", d, want));
        if (all_ignored) {
            EXPECT_TRUE(exact("dlogits (all ignored)", d, Vec(d.size(), 0.0f)));
        }
    }
}

// Label-smoothed cross-entropy (cal_loss): N up to 70,000, V from 1 to 300 with tails past 64,
// 128 and 256 (the subgroup shader's lanes), eps 0 (the ordinary loss) and 0.1.
const std::vector<std::array<int, 2>> kSmoothedShapes = {{1, 1},  {1, 2},   {1, 3},   {3, 7},     {7, 63},   {10, 65},
                                                         {5, 129}, {4, 257}, {33, 300}, {300, 31}, {2000, 300},
                                                         {70000, 5}};

// Rows with ignore_index: some (targets[0], every 7th), or all. The ignore index is a class when
// V > 1 (cal_loss's trg_pad_idx) and -100 for V = 1 (so that V = 1 has counted rows). Large:
// logits in [-80, 80], and in every other row the target's at -80 with another at 80 (its
// probability underflows to 0 in float; the loss from the logits stays finite and exact).
void check_smoothed_cross_entropy(Backend& be, Backend& ref, const std::string& on, int N, int V, float eps,
                                  bool large, bool all_ignored) {
    const int ignore = V > 1 ? 1 : -100;
    const std::string shp = shape({{"N", N}, {"V", V}}) + " eps=" + std::to_string(eps) +
                            (large ? " logits in ±80" : " logits in ±3") +
                            (all_ignored ? " all rows ignored" : " some ignored");
    Vec logits = large ? rnd(size_t(N) * V, 70, -80.0f, 80.0f) : rnd(size_t(N) * V, 71, -3.0f, 3.0f);
    std::vector<int> targets = rnd_ints(size_t(N), 72, 0, V - 1);
    if (all_ignored) {
        std::fill(targets.begin(), targets.end(), ignore);
    } else {
        for (int r = 3; r < N; r += 7) targets[size_t(r)] = ignore;
        if (N > 1) targets[0] = ignore;
    }
    int counted = 0;
    for (int t : targets) counted += t != ignore;
    if (large && V > 1)
        for (int r = 1; r < N; r += 2) {
            if (targets[size_t(r)] == ignore) continue;
            float* x = logits.data() + size_t(r) * V;
            x[targets[size_t(r)]] = -80.0f;
            x[(targets[size_t(r)] + 1) % V] = 80.0f;
        }
    {
        SCOPED_TRACE("smoothed_cross_entropy_forward on " + on + ", " + shp);
        Vec losses = nan_vec(size_t(N)), losses_ref = losses;
        float sum = -1.0f, sum_ref = -2.0f;
        VecStaging st(be);  // sum: a host pointer, as every scalar result is
        be.smoothed_cross_entropy_forward(st.out(losses), &sum, st.in(logits), st.in(targets), N, V, ignore, eps);
        st.finish();
        ref.smoothed_cross_entropy_forward(losses_ref.data(), &sum_ref, logits.data(), targets.data(), N, V, ignore,
                                           eps);
        ref.sync();
        for (float l : losses_ref) ASSERT_TRUE(std::isfinite(l) && l >= 0.0f) << "the reference loss " << l;
        EXPECT_TRUE(near("losses", losses, losses_ref));
        EXPECT_TRUE(near_scalar("sum", sum, sum_ref));
        for (int r = 0; r < N; ++r) {
            if (targets[size_t(r)] == ignore) {
                ASSERT_EQ(losses[size_t(r)], 0.0f) << "ignored row " << r;
            }
        }
        if (all_ignored) {
            EXPECT_EQ(sum, 0.0f);
        }
    }
    {
        SCOPED_TRACE("smoothed_cross_entropy_backward on " + on + ", " + shp);
        Vec probs(logits.size());
        ref.softmax_forward(probs.data(), logits.data(), N, V);
        // cal_loss's sum (scale 1), or a mean over the counted rows
        const float scale = eps == 0.0f && counted ? 1.0f / static_cast<float>(counted) : 1.0f;
        Vec d = nan_vec(probs.size()), want = d;
        VecStaging st(be);
        be.smoothed_cross_entropy_backward(st.out(d), st.in(probs), st.in(targets), N, V, ignore, eps, scale);
        st.finish();
        ref.smoothed_cross_entropy_backward(want.data(), probs.data(), targets.data(), N, V, ignore, eps, scale);
        EXPECT_TRUE(near("dlogits", d, want));
        if (all_ignored) {
            EXPECT_TRUE(exact("dlogits (all ignored)", d, Vec(d.size(), 0.0f)));
        }
    }
}

TEST_P(BackendOps, Softmax) {
    kernel("softmax_forward"), kernel("softmax_backward");
    for (auto [rows, cols] : kRowShapes) check_softmax(*be, *ref, GetParam(), rows, cols);
    for (int cols : {1, 5, 40, 600}) check_softmax_special(*be, *ref, GetParam(), cols);
}

// ---------------------------------------------------------------- LayerNorm

TEST_P(BackendOps, LayerNorm) {
    kernel("layernorm_forward"), kernel("layernorm_backward");
    for (auto [rows, cols] : kRowShapes)
        for (int affine = 0; affine < kLayerNormForms; ++affine)
            check_layernorm(*be, *ref, GetParam(), rows, cols, affine);
    for (int cols : {1, 5, 40, 600}) check_layernorm_special(*be, *ref, GetParam(), cols);
}

// ---------------------------------------------------------------- cross-entropy

TEST_P(BackendOps, CrossEntropy) {
    kernel("cross_entropy_forward"), kernel("cross_entropy_backward");
    for (auto [N, V] : kCrossEntropyShapes)
        for (int all_ignored = 0; all_ignored < 2; ++all_ignored) check_cross_entropy(*be, *ref, GetParam(), N, V, all_ignored);
}

TEST_P(BackendOps, SmoothedCrossEntropy) {
    kernel("smoothed_cross_entropy_forward"), kernel("smoothed_cross_entropy_backward");
    for (auto [N, V] : kSmoothedShapes)
        for (float eps : {0.0f, 0.1f})
            for (int large = 0; large < 2; ++large)
                for (int all_ignored = 0; all_ignored < 2; ++all_ignored)
                    check_smoothed_cross_entropy(*be, *ref, GetParam(), N, V, eps, large, all_ignored);
}

// Values worked out by hand (in double, as NumPy would): logits [1, 2, 3], target 0, eps 0.1:
// q = [0.9, 0.05, 0.05], log_softmax = x - log(e + e² + e³), loss = 2.25760596444438, and the
// gradient softmax - q = [-0.80996942683, 0.19472847105, 0.61524095577]. Logits [80, -80],
// target 1, eps 0: loss 160 + log(1 + e^-160) = 160 in float, where the probability of the
// target (e^-160) is 0 in float. A row whose target is ignore_index counts for nothing.
TEST_P(BackendOps, SmoothedCrossEntropyByHand) {
    TRACE("smoothed_cross_entropy_forward", "N=3 V=3, by hand");
    const int N = 3, V = 3, ignore = 2;
    const Vec logits = {1.0f, 2.0f, 3.0f, 80.0f, -80.0f, 0.0f, 5.0f, 6.0f, 7.0f};
    const std::vector<int> targets = {0, 1, ignore};
    // the first row in double, directly from the definition
    const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
    const double row0 = -(0.9 * (1.0 - lse) + 0.05 * (2.0 - lse) + 0.05 * (3.0 - lse));
    EXPECT_NEAR(row0, 2.25760596444438, 1e-13);
    // the second row with eps 0.1: q = [0.05, 0.9, 0.05], and x - max = [0, -160, -80]
    const double lse1 = std::log(1.0 + std::exp(-160.0) + std::exp(-80.0));
    const double row1_smoothed = 0.05 * lse1 + 0.9 * (160.0 + lse1) + 0.05 * (80.0 + lse1);
    for (float eps : {0.1f, 0.0f}) {
        SCOPED_TRACE("eps " + std::to_string(eps));
        Vec losses = nan_vec(size_t(N));
        float sum = -1.0f;
        VecStaging st(*be);
        be->smoothed_cross_entropy_forward(st.out(losses), &sum, st.in(logits), st.in(targets), N, V, ignore, eps);
        st.finish();
        if (eps != 0.0f) {
            EXPECT_NEAR(losses[0], 2.25760596444438, 1e-5);
            EXPECT_NEAR(losses[1], row1_smoothed, 1e-4);  // 148.0
        } else {
            // the ordinary cross-entropy: -log_softmax at the target
            EXPECT_NEAR(losses[0], lse - 1.0, 1e-5);
            EXPECT_EQ(losses[1], 160.0f);
        }
        EXPECT_EQ(losses[2], 0.0f);
        EXPECT_NEAR(sum, double(losses[0]) + double(losses[1]), 1e-4);
    }
    {
        TRACE("smoothed_cross_entropy_backward", "N=3 V=3, by hand");
        Vec probs(logits.size());
        ref->softmax_forward(probs.data(), logits.data(), N, V);
        Vec d = nan_vec(probs.size());
        VecStaging st(*be);
        be->smoothed_cross_entropy_backward(st.out(d), st.in(probs), st.in(targets), N, V, ignore, 0.1f, 2.0f);
        st.finish();
        const double want0[3] = {-0.8099694268296196, 0.19472847105479768, 0.615240955774822};
        for (int c = 0; c < V; ++c) EXPECT_NEAR(d[size_t(c)], 2.0 * want0[c], 1e-6) << "row 0, class " << c;
        EXPECT_NEAR(d[3], 2.0 * (1.0 - 0.05), 1e-6);  // probs [1, 0, e^-80]: (1 - 0.05) * 2
        EXPECT_NEAR(d[4], 2.0 * (0.0 - 0.9), 1e-6);
        EXPECT_NEAR(d[5], 2.0 * (0.0 - 0.05), 1e-6);
        for (int c = 0; c < V; ++c) EXPECT_EQ(d[size_t(6 + c)], 0.0f) << "ignored row, class " << c;
    }
    {
        // V = 1: eps / (V - 1) is taken as 0 (no division by zero), and log_softmax is 0.
        TRACE("smoothed_cross_entropy_forward", "N=2 V=1");
        const Vec one = {3.0f, -2.0f};
        const std::vector<int> t1 = {0, 0};
        Vec l = nan_vec(2), g = nan_vec(2);
        const Vec p1 = {1.0f, 1.0f};
        float sum = -1.0f;
        VecStaging st(*be);
        be->smoothed_cross_entropy_forward(st.out(l), &sum, st.in(one), st.in(t1), 2, 1, -100, 0.1f);
        be->smoothed_cross_entropy_backward(st.out(g), st.in(p1), st.in(t1), 2, 1, -100, 0.1f, 1.0f);
        st.finish();
        EXPECT_EQ(l[0], 0.0f);
        EXPECT_EQ(l[1], 0.0f);
        EXPECT_EQ(sum, 0.0f);
        EXPECT_NEAR(g[0], 0.1f, 1e-7);  // 1 - (1 - eps)
        EXPECT_NEAR(g[1], 0.1f, 1e-7);
    }
}

// ---------------------------------------------------------------- the GPU's two ways to reduce a row

// The gpu backend splits a row across a subgroup or a workgroup where the device has subgroup
// arithmetic, and runs one invocation a row otherwise (STEPFORMER_VK_REDUCE=subgroup|serial
// chooses; lavapipe has it, so both run here): each against the CPU on the shapes above, and on
// more rows than a dispatch has teams for (the subgroup shaders stride over the rows), with a
// short row (a subgroup each) and a long one (a workgroup each).
TEST(RowReductions, SubgroupAndSerialShadersBothGiveTheCpus) {
    const auto names = available_backends();
    if (std::find(names.begin(), names.end(), "gpu") == names.end()) {
        // No "gpu" is right only where there is no usable Vulkan device.
        for (const auto& d : gpu_devices()) EXPECT_FALSE(d.usable) << d.name << " is usable but gpu is not registered";
        return;
    }
    const std::unique_ptr<Backend> ref = make_cpu_backend(1);
    for (const char* reduce : {"subgroup", "serial"}) {
        setenv("STEPFORMER_VK_REDUCE", reduce, 1);
        const std::unique_ptr<Backend> be = make_backend("gpu", 1);
        unsetenv("STEPFORMER_VK_REDUCE");
        const std::string on = std::string("gpu (") + reduce + ")";
        for (auto [rows, cols] : kRowShapes) {
            check_softmax(*be, *ref, on, rows, cols);
            for (int affine = 0; affine < kLayerNormForms; ++affine) check_layernorm(*be, *ref, on, rows, cols, affine);
        }
        for (int cols : {1, 5, 40, 600}) {
            check_softmax_special(*be, *ref, on, cols);
            check_layernorm_special(*be, *ref, on, cols);
        }
        for (auto [N, V] : kCrossEntropyShapes)
            for (int all_ignored = 0; all_ignored < 2; ++all_ignored) check_cross_entropy(*be, *ref, on, N, V, all_ignored);
        // More rows than one loop may run on lavapipe (65535 iterations): the column sums of
        // dgamma/dbeta and the loss's row count go in chunks.
        for (auto [rows, cols] : std::vector<std::array<int, 2>>{{1100000, 2}, {66000, 130}}) {
            check_softmax(*be, *ref, on, rows, cols);
            for (int affine = 0; affine < kLayerNormForms; ++affine) check_layernorm(*be, *ref, on, rows, cols, affine);
        }
        check_cross_entropy(*be, *ref, on, 70000, 3, 0);
        // the smoothed loss reduces along its rows too: a subgroup a row (short) or a workgroup (long)
        for (auto [N, V] : kSmoothedShapes)
            for (float eps : {0.0f, 0.1f})
                for (int large = 0; large < 2; ++large)
                    check_smoothed_cross_entropy(*be, *ref, on, N, V, eps, large, false);
        check_smoothed_cross_entropy(*be, *ref, on, 70000, 130, 0.1f, true, false);
    }
}

}  // namespace backend_ops_test
