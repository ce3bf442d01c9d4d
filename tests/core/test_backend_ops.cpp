// Every kernel of the Backend interface on every registered backend, against a fresh
// single-threaded CPU backend, in the spirit of ggml's test-backend-ops: random (seeded)
// inputs, shapes with odd sizes (1, 3, 7, 63, 65, 129) in the dimensions a kernel splits its
// work by, masks with fully masked rows, accumulate flags both ways, null optional arguments.
//
// The backends are the registry's (available_backends()), "cpu-copy" (copy_backend.h)
// registered first: "cpu" checks the threaded CPU kernels against the single-threaded ones,
// "cpu-copy" checks that the interface works for a backend whose memory is not the caller's,
// and a GPU backend that registers itself is checked by the same tests. Every kernel call on the
// backend under test passes addresses in that backend's memory, staged as the model stages them
// (staging.h); the Memory and Staging tests check that machinery itself.
//
// Tolerance: |got - want| <= 1e-5 * (1 + |want|) element by element, and bit-exact for what has
// one right answer (masks, fill, copy, embedding, dropout, head reshapes, memory round trips).
// Every failure names the kernel, the backend and the shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <cstring>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "copy_backend.h"
#include "stepformer/backend.h"
#include "stepformer/dataset.h"
#include "stepformer/devices.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "stepformer/staging.h"
#include "stepformer/train.h"

using namespace stepformer;

namespace {

// The kernels these tests cover, one name each: every virtual kernel of Backend (not name() and
// describe()). When a kernel is added to backend.h, add its
// name here, bump kInterfaceCount, and add a TEST_P that calls it on every backend (with
// `kernel("its_name")` so the table and the tests stay tied); AllKernelsAreCovered reads
// backend.h and fails until then.
constexpr size_t kInterfaceCount = 55;
const std::vector<std::string>& covered_kernels() {
    static const std::vector<std::string> k = {
        "linear_forward",       "linear_backward",       "linear_backward_update", "apply_update",
        "embedding_forward",    "embedding_backward",    "split_heads",            "merge_heads",
        "attn_scores_forward",  "attn_scores_backward",  "mask_fill_forward",      "mask_fill_backward",
        "softmax_forward",      "softmax_backward",      "attn_context_forward",   "attn_context_backward",
        "add_forward",          "positional_forward",    "layernorm_forward",      "layernorm_backward",
        "relu_forward",         "relu_backward",         "cross_entropy_forward",  "cross_entropy_backward",
        "gelu_forward",         "gelu_backward",         "add_bias",               "bias_backward",
        "scale",
        "smoothed_cross_entropy_forward",                "smoothed_cross_entropy_backward",
        "all_finite",
        "pad_mask",             "subsequence_mask",      "mask_or",                "positional_table",
        "dropout_mask",         "mul_forward",           "fill",                   "copy",
        "sgd_step",             "adam_step",             "sum_squares",            "sync",
        "host_memory",          "alloc",                 "release",                "upload",
        "download",             "memory_in_use",         "trim",                   "counters",
        "set_profiling",
        "supports",             "run_elsewhere",  // test_kernel_fallback.cpp
    };
    return k;
}

using Vec = std::vector<float>;
const float kNaN = std::numeric_limits<float>::quiet_NaN();

Vec rnd(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    Vec v(n);
    for (auto& x : v) x = d(g);
    return v;
}
std::vector<int> rnd_ints(size_t n, uint32_t seed, int lo, int hi) {
    std::mt19937 g(seed);
    std::uniform_int_distribution<int> d(lo, hi);
    std::vector<int> v(n);
    for (auto& x : v) x = d(g);
    return v;
}
// Random 0/1 mask (B, Lq, Lk), the last query row of every batch fully masked.
Vec rnd_mask(int B, int Lq, int Lk, uint32_t seed) {
    std::mt19937 g(seed);
    std::bernoulli_distribution d(0.3);
    Vec m(size_t(B) * Lq * Lk);
    for (auto& x : m) x = d(g) ? 1.0f : 0.0f;
    for (int b = 0; b < B; ++b)
        for (int k = 0; k < Lk; ++k) m[(size_t(b) * Lq + Lq - 1) * Lk + k] = 1.0f;
    return m;
}
Vec nan_vec(size_t n) { return Vec(n, kNaN); }

// Element-wise |got - want| <= tol (1 + |want|); a NaN anywhere fails.
::testing::AssertionResult near(const char* what, const Vec& got, const Vec& want, double tol = 1e-5) {
    if (got.size() != want.size())
        return ::testing::AssertionFailure() << what << ": size " << got.size() << " vs " << want.size();
    for (size_t i = 0; i < got.size(); ++i) {
        const double g = got[i], w = want[i];
        if (std::isnan(g) || std::isnan(w) || !(std::abs(g - w) <= tol * (1.0 + std::abs(w))))
            return ::testing::AssertionFailure()
                   << what << "[" << i << "] = " << g << ", the CPU reference gives " << w << " (tolerance " << tol
                   << " * (1 + |ref|))";
    }
    return ::testing::AssertionSuccess();
}
// Normalised mean squared error sum (got - want)^2 / sum want^2 at most `bound`.
::testing::AssertionResult nmse(const char* what, const Vec& got, const Vec& want, double bound = 1e-10) {
    if (got.size() != want.size())
        return ::testing::AssertionFailure() << what << ": size " << got.size() << " vs " << want.size();
    double err = 0.0, ref = 0.0;
    for (size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(got[i]) || std::isnan(want[i])) return ::testing::AssertionFailure() << what << "[" << i << "] is NaN";
        err += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
        ref += double(want[i]) * want[i];
    }
    if (err <= bound * std::max(ref, 1e-30)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << what << ": NMSE " << err / std::max(ref, 1e-30) << " > " << bound;
}
template <class T>
::testing::AssertionResult exact(const char* what, const std::vector<T>& got, const std::vector<T>& want) {
    if (got.size() != want.size())
        return ::testing::AssertionFailure() << what << ": size " << got.size() << " vs " << want.size();
    for (size_t i = 0; i < got.size(); ++i)
        if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0)
            return ::testing::AssertionFailure()
                   << what << "[" << i << "] = " << got[i] << ", the CPU reference gives " << want[i] << " (exact)";
    return ::testing::AssertionSuccess();
}
::testing::AssertionResult near_scalar(const char* what, double got, double want, double tol = 1e-5) {
    if (std::isnan(got) || std::isnan(want) || !(std::abs(got - want) <= tol * (1.0 + std::abs(want))))
        return ::testing::AssertionFailure() << what << " = " << got << ", the CPU reference gives " << want;
    return ::testing::AssertionSuccess();
}

std::string shape(std::initializer_list<std::pair<const char*, int64_t>> dims) {
    std::ostringstream s;
    bool first = true;
    for (const auto& [n, v] : dims) {
        s << (first ? "" : " ") << n << "=" << v;
        first = false;
    }
    return s.str();
}

// A kernel's arguments in the backend's memory, as the model passes them: every call on the
// backend under test goes through one of these (ref, the single-threaded CPU, takes host
// pointers), and finish() brings the outputs back before the test reads them. A backend may
// queue its kernels, so nothing is read on the host before finish(). Storage is found by host
// address: a Vec written by two kernels in one staging is declared (out/inout) before each.
struct VecStaging : Staging {
    using Staging::Staging;
    using Staging::in;
    using Staging::inout;
    using Staging::out;
    const float* in(const Vec& v) { return in(v.data(), int64_t(v.size())); }
    float* out(Vec& v) { return out(v.data(), int64_t(v.size())); }
    float* inout(Vec& v) { return inout(v.data(), int64_t(v.size())); }
};

class BackendOps : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        // 3 threads: an odd split of the odd sizes, for the kernels that divide their work
        be = make_backend(GetParam(), 3);
        ref = make_cpu_backend(1);
    }
    // Names the kernel under test (checked against the coverage table) for the messages.
    std::string kernel(const std::string& k) const {
        EXPECT_NE(std::find(covered_kernels().begin(), covered_kernels().end(), k), covered_kernels().end())
            << k << " is not in covered_kernels()";
        return k + " on " + GetParam();
    }
    std::unique_ptr<Backend> be, ref;
};

#define TRACE(k, shp) SCOPED_TRACE(kernel(k) + ", " + (shp))

// ---------------------------------------------------------------- linear

struct LinShape {
    int N, I, O;
};
const std::vector<LinShape> kLinShapes = {{1, 1, 1}, {3, 7, 5}, {7, 63, 65}, {10, 129, 3}, {65, 64, 129}, {1, 65, 63}};
std::string lin_str(const LinShape& s) { return shape({{"N", s.N}, {"I", s.I}, {"O", s.O}}); }

TEST_P(BackendOps, LinearForward) {
    for (const auto& s : kLinShapes) {
        TRACE("linear_forward", lin_str(s));
        const Vec x = rnd(size_t(s.N) * s.I, 1), W = rnd(size_t(s.O) * s.I, 2);
        Vec y = nan_vec(size_t(s.N) * s.O), want = y;
        VecStaging st(*be);
        be->linear_forward(st.out(y), st.in(x), st.in(W), s.N, s.I, s.O);
        st.finish();
        ref->linear_forward(want.data(), x.data(), W.data(), s.N, s.I, s.O);
        EXPECT_TRUE(near("y", y, want));
    }
}

TEST_P(BackendOps, LinearBackward) {
    for (const auto& s : kLinShapes)
        for (int acc_dx = 0; acc_dx < 2; ++acc_dx)
            for (int acc_dw = 0; acc_dw < 2; ++acc_dw)
                for (int null_dx = 0; null_dx < 2; ++null_dx)
                    for (int null_dw = 0; null_dw < 2; ++null_dw) {
                        TRACE("linear_backward", lin_str(s) + " accumulate_dx=" + std::to_string(acc_dx) +
                                                     " accumulate_dw=" + std::to_string(acc_dw) +
                                                     (null_dx ? " dx=null" : "") + (null_dw ? " dW=null" : ""));
                        const Vec x = rnd(size_t(s.N) * s.I, 3), W = rnd(size_t(s.O) * s.I, 4),
                                  dy = rnd(size_t(s.N) * s.O, 5);
                        // an overwritten gradient starts as NaN: a kernel that reads it fails
                        Vec dx = acc_dx ? rnd(size_t(s.N) * s.I, 6) : nan_vec(size_t(s.N) * s.I), dx_ref = dx;
                        Vec dW = acc_dw ? rnd(size_t(s.O) * s.I, 7) : nan_vec(size_t(s.O) * s.I), dW_ref = dW;
                        VecStaging st(*be);
                        // an accumulated gradient is read: inout; an overwritten one: out
                        float* ddx = null_dx ? nullptr : acc_dx ? st.inout(dx) : st.out(dx);
                        float* ddW = null_dw ? nullptr : acc_dw ? st.inout(dW) : st.out(dW);
                        be->linear_backward(ddx, ddW, st.in(dy), st.in(x), st.in(W), s.N, s.I, s.O, acc_dx, acc_dw);
                        st.finish();
                        ref->linear_backward(null_dx ? nullptr : dx_ref.data(), null_dw ? nullptr : dW_ref.data(),
                                             dy.data(), x.data(), W.data(), s.N, s.I, s.O, acc_dx, acc_dw);
                        if (!null_dx) {
                            EXPECT_TRUE(near("dx", dx, dx_ref));
                        }
                        if (!null_dw) {
                            EXPECT_TRUE(near("dW", dW, dW_ref));
                        }
                    }
}

struct UpdCase {
    const char* name;
    WeightUpdate::Kind kind;
    float momentum;
    bool to_out;
};
const std::vector<UpdCase> kUpdCases = {{"SGD momentum 0", WeightUpdate::Kind::SGD, 0.0f, false},
                                        {"SGD momentum 0.9", WeightUpdate::Kind::SGD, 0.9f, false},
                                        {"SGD momentum 0.9 into out", WeightUpdate::Kind::SGD, 0.9f, true},
                                        {"Adam in place", WeightUpdate::Kind::Adam, 0.0f, false},
                                        {"Adam into out", WeightUpdate::Kind::Adam, 0.0f, true},
                                        {"AdamW in place", WeightUpdate::Kind::AdamW, 0.0f, false},
                                        {"AdamW into out", WeightUpdate::Kind::AdamW, 0.0f, true}};
bool two_moments(const UpdCase& c) { return c.kind != WeightUpdate::Kind::SGD; }

// A weight's optimizer state and where its update goes, for one backend's run.
struct UpdState {
    Vec W, buf1, buf2, out;
    WeightUpdate spec(const UpdCase& c) {
        WeightUpdate u;
        u.kind = c.kind;
        u.buf1 = buf1.data();
        u.buf2 = two_moments(c) ? buf2.data() : nullptr;
        u.lr = two_moments(c) ? 1e-2 : 0.05;
        u.momentum = c.momentum;
        const bool adamw = c.kind == WeightUpdate::Kind::AdamW;
        u.beta1 = 0.9;
        u.beta2 = adamw ? 0.95 : 0.98;  // nanoGPT's for AdamW
        u.eps = adamw ? 1e-8f : 1e-9f;
        u.weight_decay = adamw ? 0.1 : 0.0;
        u.step = 3;
        u.out = c.to_out ? out.data() : nullptr;
        return u;
    }
    // The same in the backend's memory: the state is updated in place, and out is written
    // (declared inout all the same: a backend that skips an element keeps the NaN there).
    WeightUpdate spec(const UpdCase& c, VecStaging& st) {
        WeightUpdate u = spec(c);
        u.buf1 = st.inout(buf1);
        u.buf2 = u.buf2 ? st.inout(buf2) : nullptr;
        u.out = u.out ? st.inout(out) : nullptr;
        return u;
    }
};
UpdState upd_state(size_t n, const UpdCase& c) {
    UpdState s;
    s.W = rnd(n, 11);
    s.buf1 = rnd(n, 12, -0.1f, 0.1f);
    s.buf2 = rnd(n, 13, 0.0f, 0.01f);  // exp_avg_sq >= 0
    s.out = c.to_out ? nan_vec(n) : Vec();
    return s;
}

TEST_P(BackendOps, LinearBackwardUpdate) {
    for (const auto& s : kLinShapes)
        for (const auto& c : kUpdCases)
            for (int acc_dx = 0; acc_dx < 2; ++acc_dx)
                for (int null_dw = 0; null_dw < 2; ++null_dw) {
                    TRACE("linear_backward_update", lin_str(s) + " " + c.name + " accumulate_dx=" +
                                                        std::to_string(acc_dx) + (null_dw ? " dW=null" : ""));
                    const size_t nw = size_t(s.O) * s.I;
                    const Vec x = rnd(size_t(s.N) * s.I, 8), dy = rnd(size_t(s.N) * s.O, 9);
                    Vec dx = acc_dx ? rnd(size_t(s.N) * s.I, 10) : nan_vec(size_t(s.N) * s.I), dx_ref = dx;
                    Vec dW = nan_vec(nw), dW_ref = dW;
                    UpdState a = upd_state(nw, c), r = upd_state(nw, c);
                    const Vec W0 = a.W;
                    double ss = 0.25, ss_ref = 0.25;  // added to, not overwritten
                    {
                        VecStaging st(*be);  // ss: a host pointer, as every scalar result is
                        be->linear_backward_update(acc_dx ? st.inout(dx) : st.out(dx), null_dw ? nullptr : st.out(dW),
                                                   &ss, st.in(dy), st.in(x), st.inout(a.W), s.N, s.I, s.O, acc_dx,
                                                   a.spec(c, st));
                        st.finish();
                    }
                    ref->linear_backward_update(dx_ref.data(), null_dw ? nullptr : dW_ref.data(), &ss_ref, dy.data(),
                                                x.data(), r.W.data(), s.N, s.I, s.O, acc_dx, r.spec(c));
                    ref->sync();
                    EXPECT_TRUE(near_scalar("sum(dW^2)", ss, ss_ref));
                    EXPECT_TRUE(near("dx", dx, dx_ref));
                    if (!null_dw) {
                        EXPECT_TRUE(near("dW", dW, dW_ref));
                    }
                    EXPECT_TRUE(near("W", a.W, r.W));
                    EXPECT_TRUE(near("buf1", a.buf1, r.buf1));
                    if (two_moments(c)) {
                        EXPECT_TRUE(near("buf2", a.buf2, r.buf2));
                    }
                    if (c.to_out) {
                        EXPECT_TRUE(near("out", a.out, r.out));
                        EXPECT_TRUE(exact("W (kept: the update went to out)", a.W, W0));
                    }

                    // and it is linear_backward (dW overwritten) followed by apply_update, on this backend
                    UpdState b = upd_state(nw, c);
                    Vec g = nan_vec(nw);
                    VecStaging st(*be);  // one pass: g stays in the backend's memory between the kernels
                    float* dg = st.out(g);
                    be->linear_backward(nullptr, dg, st.in(dy), st.in(x), st.in(b.W), s.N, s.I, s.O, false, false);
                    be->apply_update(st.inout(b.W), dg, int64_t(nw), b.spec(c, st));
                    const double g_ss = be->sum_squares_now(dg, int64_t(nw));
                    st.finish();
                    EXPECT_TRUE(near("W vs linear_backward + apply_update", c.to_out ? a.out : a.W,
                                     c.to_out ? b.out : b.W));
                    EXPECT_TRUE(near("buf1 vs linear_backward + apply_update", a.buf1, b.buf1));
                    EXPECT_TRUE(near_scalar("sum(dW^2) vs sum_squares", ss - 0.25, g_ss));
                }
}

// ---------------------------------------------------------------- embedding

TEST_P(BackendOps, Embedding) {
    for (int N : {1, 7, 63, 65, 257})
        for (int D : {1, 3, 64, 129, 513}) {
            const std::string shp = shape({{"N", N}, {"D", D}, {"V", 11}});
            const int V = 11;
            const Vec table = rnd(size_t(V) * D, 14);
            std::vector<int> ids = rnd_ints(size_t(N), 15, 0, V - 1);  // repeats (N > V) and, at N = 1, one row
            ids[0] = 4;
            if (N > 1) ids[N - 1] = 4;  // a repeated id in every case with more than one row
            {
                TRACE("embedding_forward", shp);
                Vec out = nan_vec(size_t(N) * D), want = out;
                VecStaging st(*be);
                be->embedding_forward(st.out(out), st.in(ids), st.in(table), N, V, D);
                st.finish();
                ref->embedding_forward(want.data(), ids.data(), table.data(), N, V, D);
                EXPECT_TRUE(exact("out", out, want));
            }
            {
                TRACE("embedding_backward", shp);
                const Vec dout = rnd(size_t(N) * D, 16);
                Vec dtable = rnd(size_t(V) * D, 17), want = dtable;  // accumulated into
                VecStaging st(*be);
                be->embedding_backward(st.inout(dtable), st.in(dout), st.in(ids), N, V, D);
                st.finish();
                ref->embedding_backward(want.data(), dout.data(), ids.data(), N, V, D);
                EXPECT_TRUE(exact("dtable", dtable, want));
            }
        }
}

// ---------------------------------------------------------------- heads

TEST_P(BackendOps, SplitAndMergeHeads) {
    for (auto [B, L, H, d] :
         std::vector<std::array<int, 4>>{{1, 1, 1, 1}, {2, 3, 4, 7}, {3, 7, 2, 65}, {1, 63, 8, 3}, {3, 65, 8, 33}}) {
        const std::string shp = shape({{"B", B}, {"L", L}, {"H", H}, {"d", d}});
        const size_t n = size_t(B) * L * H * d;
        const Vec x = rnd(n, 18);
        Vec split = nan_vec(n), split_ref = split, merged = nan_vec(n), merged_ref = merged;
        {
            TRACE("split_heads", shp);
            VecStaging st(*be);
            be->split_heads(st.out(split), st.in(x), B, L, H, d);
            st.finish();
            ref->split_heads(split_ref.data(), x.data(), B, L, H, d);
            EXPECT_TRUE(exact("out", split, split_ref));
        }
        {
            TRACE("merge_heads", shp);
            VecStaging st(*be);
            be->merge_heads(st.out(merged), st.in(x), B, L, H, d);
            st.finish();
            ref->merge_heads(merged_ref.data(), x.data(), B, L, H, d);
            EXPECT_TRUE(exact("out", merged, merged_ref));
            Vec back = nan_vec(n);
            VecStaging st2(*be);
            be->merge_heads(st2.out(back), st2.in(split), B, L, H, d);
            st2.finish();
            EXPECT_TRUE(exact("merge(split(x))", back, x));
        }
    }
}

// ---------------------------------------------------------------- attention

struct AttnShape {
    int G, Lq, Lk, d;
};
const std::vector<AttnShape> kAttnShapes = {{1, 1, 1, 1},   {3, 7, 5, 3},    {2, 63, 65, 7},
                                            {1, 129, 3, 64}, {4, 10, 10, 64}, {2, 3, 129, 65},
                                            {3, 65, 63, 33}};  // the last one large enough to run threaded
std::string attn_str(const AttnShape& s, const char* dname) {
    return shape({{"G", s.G}, {"Lq", s.Lq}, {"Lk", s.Lk}, {dname, s.d}});
}

TEST_P(BackendOps, AttnScores) {
    for (const auto& s : kAttnShapes) {
        const float scale = 1.0f / std::sqrt(float(s.d));
        const Vec Q = rnd(size_t(s.G) * s.Lq * s.d, 19), K = rnd(size_t(s.G) * s.Lk * s.d, 20);
        {
            TRACE("attn_scores_forward", attn_str(s, "dk"));
            Vec sc = nan_vec(size_t(s.G) * s.Lq * s.Lk), want = sc;
            VecStaging st(*be);
            be->attn_scores_forward(st.out(sc), st.in(Q), st.in(K), s.G, s.Lq, s.Lk, s.d, scale);
            st.finish();
            ref->attn_scores_forward(want.data(), Q.data(), K.data(), s.G, s.Lq, s.Lk, s.d, scale);
            EXPECT_TRUE(near("scores", sc, want));
        }
        {
            TRACE("attn_scores_backward", attn_str(s, "dk"));
            const Vec ds = rnd(size_t(s.G) * s.Lq * s.Lk, 21);
            Vec dQ = nan_vec(Q.size()), dK = nan_vec(K.size()), dQ_ref = dQ, dK_ref = dK;
            VecStaging st(*be);
            be->attn_scores_backward(st.out(dQ), st.out(dK), st.in(ds), st.in(Q), st.in(K), s.G, s.Lq, s.Lk, s.d,
                                     scale);
            st.finish();
            ref->attn_scores_backward(dQ_ref.data(), dK_ref.data(), ds.data(), Q.data(), K.data(), s.G, s.Lq, s.Lk,
                                      s.d, scale);
            EXPECT_TRUE(near("dQ", dQ, dQ_ref));
            EXPECT_TRUE(near("dK", dK, dK_ref));
        }
    }
}

TEST_P(BackendOps, AttnContext) {
    for (const auto& s : kAttnShapes) {
        const Vec attn = rnd(size_t(s.G) * s.Lq * s.Lk, 22, 0.0f, 1.0f), V = rnd(size_t(s.G) * s.Lk * s.d, 23);
        {
            TRACE("attn_context_forward", attn_str(s, "dv"));
            Vec ctx = nan_vec(size_t(s.G) * s.Lq * s.d), want = ctx;
            VecStaging st(*be);
            be->attn_context_forward(st.out(ctx), st.in(attn), st.in(V), s.G, s.Lq, s.Lk, s.d);
            st.finish();
            ref->attn_context_forward(want.data(), attn.data(), V.data(), s.G, s.Lq, s.Lk, s.d);
            EXPECT_TRUE(near("context", ctx, want));
        }
        {
            TRACE("attn_context_backward", attn_str(s, "dv"));
            const Vec dctx = rnd(size_t(s.G) * s.Lq * s.d, 24);
            Vec da = nan_vec(attn.size()), dV = nan_vec(V.size()), da_ref = da, dV_ref = dV;
            VecStaging st(*be);
            be->attn_context_backward(st.out(da), st.out(dV), st.in(dctx), st.in(attn), st.in(V), s.G, s.Lq, s.Lk,
                                      s.d);
            st.finish();
            ref->attn_context_backward(da_ref.data(), dV_ref.data(), dctx.data(), attn.data(), V.data(), s.G, s.Lq,
                                       s.Lk, s.d);
            EXPECT_TRUE(near("dattn", da, da_ref));
            EXPECT_TRUE(near("dV", dV, dV_ref));
        }
    }
}

TEST_P(BackendOps, MaskFill) {
    for (auto [B, H, Lq, Lk] :
         std::vector<std::array<int, 4>>{
             {1, 1, 1, 1}, {2, 3, 7, 5}, {1, 8, 10, 10}, {3, 2, 63, 65}, {1, 1, 3, 129}, {3, 4, 65, 129}}) {
        const std::string shp = shape({{"B", B}, {"H", H}, {"Lq", Lq}, {"Lk", Lk}});
        const size_t n = size_t(B) * H * Lq * Lk;
        const Vec mask = rnd_mask(B, Lq, Lk, 25), in = rnd(n, 26);
        {
            TRACE("mask_fill_forward", shp + " (last query row fully masked)");
            Vec out = nan_vec(n), want = out;
            VecStaging st(*be);
            be->mask_fill_forward(st.out(out), st.in(in), st.in(mask), B, H, Lq, Lk, -1e9f);
            st.finish();
            ref->mask_fill_forward(want.data(), in.data(), mask.data(), B, H, Lq, Lk, -1e9f);
            EXPECT_TRUE(exact("out", out, want));
        }
        {
            TRACE("mask_fill_backward", shp + " (last query row fully masked)");
            Vec din = nan_vec(n), want = din;
            VecStaging st(*be);
            be->mask_fill_backward(st.out(din), st.in(in), st.in(mask), B, H, Lq, Lk);
            st.finish();
            ref->mask_fill_backward(want.data(), in.data(), mask.data(), B, H, Lq, Lk);
            EXPECT_TRUE(exact("din", din, want));
        }
    }
}

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

// ---------------------------------------------------------------- element-wise

// 70001: above the CPU backend's threshold for splitting work across threads
const std::vector<int64_t> kLengths = {1, 3, 7, 63, 65, 129, 4097, 70001};

TEST_P(BackendOps, AddForward) {
    for (int64_t n : kLengths) {
        TRACE("add_forward", shape({{"n", n}}));
        const Vec a = rnd(size_t(n), 30), b = rnd(size_t(n), 31);
        Vec out = nan_vec(size_t(n)), want = out;
        VecStaging st(*be);
        be->add_forward(st.out(out), st.in(a), st.in(b), n);
        st.finish();
        ref->add_forward(want.data(), a.data(), b.data(), n);
        EXPECT_TRUE(near("out", out, want));
    }
}

TEST_P(BackendOps, MulForward) {
    for (int64_t n : kLengths) {
        TRACE("mul_forward", shape({{"n", n}}));
        const Vec a = rnd(size_t(n), 32), b = rnd(size_t(n), 33);
        Vec out = nan_vec(size_t(n)), want = out;
        VecStaging st(*be);
        be->mul_forward(st.out(out), st.in(a), st.in(b), n);
        st.finish();
        ref->mul_forward(want.data(), a.data(), b.data(), n);
        EXPECT_TRUE(near("out", out, want));
    }
}

TEST_P(BackendOps, PositionalForward) {
    for (auto [B, L, D] :
         std::vector<std::array<int, 3>>{{1, 1, 1}, {2, 7, 3}, {3, 10, 64}, {1, 65, 129}, {2, 63, 7}, {3, 65, 513}})
        for (int with_keep = 0; with_keep < 2; ++with_keep) {
            TRACE("positional_forward", shape({{"B", B}, {"L", L}, {"D", D}}) + (with_keep ? " keep" : " keep=null"));
            const size_t n = size_t(B) * L * D;
            const Vec in = rnd(n, 34), pe = rnd(size_t(L) * D, 35);
            Vec keep(n);
            ref->dropout_mask(keep.data(), int64_t(n), 0.25f, 7, 1);
            Vec out = nan_vec(n), want = out;
            VecStaging st(*be);
            be->positional_forward(st.out(out), st.in(in), st.in(pe), with_keep ? st.in(keep) : nullptr, B, L, D);
            st.finish();
            ref->positional_forward(want.data(), in.data(), pe.data(), with_keep ? keep.data() : nullptr, B, L, D);
            EXPECT_TRUE(near("out", out, want));
        }
}

TEST_P(BackendOps, Relu) {
    for (int64_t n : kLengths) {
        Vec in = rnd(size_t(n), 36);
        in[0] = 0.0f;  // the kink
        Vec out = nan_vec(size_t(n)), out_ref = out;
        {
            TRACE("relu_forward", shape({{"n", n}}));
            VecStaging st(*be);
            be->relu_forward(st.out(out), st.in(in), n);
            st.finish();
            ref->relu_forward(out_ref.data(), in.data(), n);
            EXPECT_TRUE(near("out", out, out_ref));
        }
        {
            TRACE("relu_backward", shape({{"n", n}}));
            const Vec dout = rnd(size_t(n), 37);
            Vec din = nan_vec(size_t(n)), want = din;
            VecStaging st(*be);
            be->relu_backward(st.out(din), st.in(dout), st.in(out_ref), n);
            st.finish();
            ref->relu_backward(want.data(), dout.data(), out_ref.data(), n);
            EXPECT_TRUE(near("din", din, want));
        }
    }
}

TEST_P(BackendOps, Gelu) {
    for (int64_t n : kLengths) {
        Vec in = rnd(size_t(n), 44, -6.0f, 6.0f);  // both tails: erf near ±1
        in[0] = 0.0f;
        Vec out = nan_vec(size_t(n)), out_ref = out;
        {
            TRACE("gelu_forward", shape({{"n", n}}));
            VecStaging st(*be);
            be->gelu_forward(st.out(out), st.in(in), n);
            st.finish();
            ref->gelu_forward(out_ref.data(), in.data(), n);
            EXPECT_TRUE(near("out", out, out_ref));
        }
        {
            TRACE("gelu_backward", shape({{"n", n}}));
            const Vec dout = rnd(size_t(n), 45);
            Vec din = nan_vec(size_t(n)), want = din;
            VecStaging st(*be);
            be->gelu_backward(st.out(din), st.in(dout), st.in(in), n);
            st.finish();
            ref->gelu_backward(want.data(), dout.data(), in.data(), n);
            EXPECT_TRUE(near("din", din, want));
        }
    }
}

// A linear layer's bias: (N, O) shapes with odd widths, and row counts past columns.comp's parts
// of 32,768 rows (70000: three parts, the last a tail; 32769: one row past the first part).
const std::vector<std::array<int, 2>> kBiasShapes = {{1, 1},  {3, 7},    {7, 63},    {5, 65},    {2, 129},
                                                     {65, 3}, {33, 513}, {32768, 5}, {32769, 2}, {70000, 3}};

// One add an element: bit-exact.
TEST_P(BackendOps, AddBias) {
    for (auto [N, O] : kBiasShapes) {
        TRACE("add_bias", shape({{"N", N}, {"O", O}}));
        const Vec bias = rnd(size_t(O), 46);
        Vec y = rnd(size_t(N) * O, 47), want = y;  // added to
        VecStaging st(*be);
        be->add_bias(st.inout(y), st.in(bias), N, O);
        st.finish();
        ref->add_bias(want.data(), bias.data(), N, O);
        EXPECT_TRUE(exact("y", y, want));
    }
}

// Accumulated onto a non-zero dbias, rows added in order on every backend: bit-exact, over the
// GPU's row parts too.
TEST_P(BackendOps, BiasBackward) {
    for (auto [N, O] : kBiasShapes) {
        TRACE("bias_backward", shape({{"N", N}, {"O", O}}));
        const Vec dy = rnd(size_t(N) * O, 48);
        Vec dbias = rnd(size_t(O), 49), want = dbias;  // accumulated
        VecStaging st(*be);
        be->bias_backward(st.inout(dbias), st.in(dy), N, O);
        st.finish();
        ref->bias_backward(want.data(), dy.data(), N, O);
        EXPECT_TRUE(exact("dbias", dbias, want));
        // what it means: the starting value, then every row's entry in turn
        Vec sums = rnd(size_t(O), 49);
        for (int r = 0; r < N; ++r)
            for (int c = 0; c < O; ++c) sums[size_t(c)] += dy[size_t(r) * O + c];
        EXPECT_TRUE(exact("dbias (rows added in order)", dbias, sums));
    }
}

// One multiply an element: bit-exact, into another buffer and in place.
TEST_P(BackendOps, Scale) {
    for (int64_t n : kLengths)
        for (float s : {22.627417f, -0.125f})  // √512: the embedding's × √d_model; and a negative one
            for (int in_place = 0; in_place < 2; ++in_place) {
                TRACE("scale", shape({{"n", n}}) + " s=" + std::to_string(s) + (in_place ? " in place" : ""));
                const Vec in = rnd(size_t(n), 50);
                Vec want = nan_vec(size_t(n));
                ref->scale(want.data(), in.data(), n, s);
                if (in_place) {
                    Vec x = in;
                    VecStaging st(*be);
                    float* p = st.inout(x);
                    be->scale(p, p, n, s);
                    st.finish();
                    EXPECT_TRUE(exact("x", x, want));
                } else {
                    Vec out = nan_vec(size_t(n));
                    VecStaging st(*be);
                    be->scale(st.out(out), st.in(in), n, s);
                    st.finish();
                    EXPECT_TRUE(exact("out", out, want));
                }
            }
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

// ---------------------------------------------------------------- masks, tables, dropout, fill

TEST_P(BackendOps, PadMask) {
    for (auto [B, Lq, Lk] : std::vector<std::array<int, 3>>{{1, 1, 1}, {2, 3, 7}, {3, 65, 63}, {1, 7, 129}}) {
        TRACE("pad_mask", shape({{"B", B}, {"Lq", Lq}, {"Lk", Lk}}) + " (last batch all padding)");
        std::vector<int> ids = rnd_ints(size_t(B) * Lk, 46, 0, 3);
        for (int k = 0; k < Lk; ++k) ids[size_t(B - 1) * Lk + k] = 0;
        Vec m = nan_vec(size_t(B) * Lq * Lk), want = m;
        VecStaging st(*be);
        be->pad_mask(st.out(m), st.in(ids), B, Lq, Lk, 0);
        st.finish();
        ref->pad_mask(want.data(), ids.data(), B, Lq, Lk, 0);
        EXPECT_TRUE(exact("mask", m, want));
    }
}

TEST_P(BackendOps, SubsequenceMask) {
    for (auto [B, T] : std::vector<std::array<int, 2>>{{1, 1}, {2, 7}, {3, 65}, {1, 129}}) {
        TRACE("subsequence_mask", shape({{"B", B}, {"T", T}}));
        Vec m = nan_vec(size_t(B) * T * T), want = m;
        VecStaging st(*be);
        be->subsequence_mask(st.out(m), B, T);
        st.finish();
        ref->subsequence_mask(want.data(), B, T);
        EXPECT_TRUE(exact("mask", m, want));
    }
}

TEST_P(BackendOps, MaskOr) {
    for (int64_t n : kLengths) {
        TRACE("mask_or", shape({{"n", n}}));
        const Vec a = rnd_mask(1, 1, int(n), 47), b = rnd_mask(1, 2, int(n), 48);  // b: 0/1, first row random
        Vec a2 = a;
        for (size_t i = 0; i < a2.size(); i += 2) a2[i] = 0.0f;  // both 0, one 1, both 1 all occur
        Vec out = nan_vec(size_t(n)), want = out;
        VecStaging st(*be);
        be->mask_or(st.out(out), st.in(a2), st.in(b), n);
        st.finish();
        ref->mask_or(want.data(), a2.data(), b.data(), n);
        EXPECT_TRUE(exact("out", out, want));
    }
}

TEST_P(BackendOps, PositionalTable) {
    for (auto [L, D] : std::vector<std::array<int, 2>>{{1, 1}, {7, 3}, {10, 64}, {65, 129}, {129, 512}}) {
        TRACE("positional_table", shape({{"L", L}, {"D", D}}));
        Vec pe = nan_vec(size_t(L) * D), want = pe;
        VecStaging st(*be);
        be->positional_table(st.out(pe), L, D);
        st.finish();
        ref->positional_table(want.data(), L, D);
        EXPECT_TRUE(near("pe", pe, want));
    }
}

TEST_P(BackendOps, DropoutMask) {
    for (int64_t n : kLengths)
        for (float p : {0.0f, 0.1f, 0.5f}) {
            TRACE("dropout_mask", shape({{"n", n}}) + " p=" + std::to_string(p));
            Vec keep = nan_vec(size_t(n)), want = keep, other = keep;
            {
                VecStaging st(*be);
                be->dropout_mask(st.out(keep), n, p, 1234, 5);
                st.finish();
            }
            ref->dropout_mask(want.data(), n, p, 1234, 5);
            EXPECT_TRUE(exact("keep (same seed and offset)", keep, want));
            for (float k : keep) EXPECT_TRUE(k == 0.0f || k == 1.0f / (1.0f - p)) << k;
            VecStaging st(*be);
            be->dropout_mask(st.out(other), n, p, 1234, 6);
            st.finish();
            if (p > 0.0f && n >= 63) {
                EXPECT_NE(other, keep) << "a different offset draws a different mask";
            }
        }
}

TEST_P(BackendOps, Fill) {
    for (int64_t n : kLengths)
        for (float v : {0.0f, -1.5f}) {
            TRACE("fill", shape({{"n", n}}) + " value=" + std::to_string(v));
            Vec x = nan_vec(size_t(n));
            VecStaging st(*be);
            be->fill(st.out(x), n, v);
            st.finish();
            EXPECT_TRUE(exact("x", x, Vec(size_t(n), v)));
        }
}

TEST_P(BackendOps, CountersAndProfiling) {
    TRACE("counters", "the device's work so far: the GPU counts it, a backend without a device has none");
    TRACE("set_profiling", "device time per dispatch where the device has timestamps");
    const auto before = be->counters();
    if (be->name() != "gpu") {
        EXPECT_FALSE(before.has_value());
        EXPECT_FALSE(be->set_profiling(true)) << "nothing to time";
        return;
    }
    ASSERT_TRUE(before.has_value());
    const bool timed = be->set_profiling(true);
    Vec x = nan_vec(4097);
    VecStaging st(*be);
    be->fill(st.out(x), 4097, 2.0f);
    st.finish();
    EXPECT_TRUE(exact("x", x, Vec(4097, 2.0f)));  // timing changes nothing
    const auto after = be->counters();
    EXPECT_GE(after->dispatches, before->dispatches + 1);
    EXPECT_GE(after->submissions, before->submissions + 1);
    if (timed) {
        EXPECT_GE(after->timed_dispatches, before->timed_dispatches + 1);
    }
    EXPECT_TRUE(be->set_profiling(false) || !timed);
}

TEST_P(BackendOps, Copy) {
    for (int64_t n : {0, 1, 3, 7, 63, 65, 129, 4097, 70001}) {
        TRACE("copy", shape({{"n", n}}));
        Vec in = rnd(size_t(n), 58, -1e3f, 1e3f);
        // values an arithmetic copy (x * 1, x + 0) would change: -0, infinities, a denormal
        const std::array<float, 4> odd = {-0.0f, std::numeric_limits<float>::infinity(),
                                          -std::numeric_limits<float>::infinity(),
                                          std::numeric_limits<float>::denorm_min()};
        for (size_t i = 0; i < odd.size() && i < in.size(); ++i) in[i] = odd[i];
        Vec out = nan_vec(size_t(n)), want = out, in_after = nan_vec(size_t(n));
        {
            VecStaging st(*be);
            const float* din = st.in(in);
            be->copy(st.out(out), din, n);
            // the input as the backend holds it after the kernel (download waits for it)
            if (n) be->download(in_after.data(), din, size_t(n) * sizeof(float));
            st.finish();
        }
        ref->copy(want.data(), in.data(), n);
        EXPECT_TRUE(exact("out", out, want));
        EXPECT_TRUE(exact("out (the input's bits)", out, in));
        EXPECT_TRUE(exact("in (unchanged by the kernel)", in_after, in));
    }
}

// ---------------------------------------------------------------- optimizers

TEST_P(BackendOps, SgdStep) {
    for (int64_t n : kLengths)
        for (float momentum : {0.0f, 0.9f}) {
            TRACE("sgd_step", shape({{"n", n}}) + " momentum=" + std::to_string(momentum));
            const Vec grad = rnd(size_t(n), 49);
            Vec p = rnd(size_t(n), 50), buf = rnd(size_t(n), 51, -0.1f, 0.1f), p_ref = p, buf_ref = buf;
            VecStaging st(*be);
            be->sgd_step(st.inout(p), st.inout(buf), st.in(grad), n, 0.05f, momentum);
            st.finish();
            ref->sgd_step(p_ref.data(), buf_ref.data(), grad.data(), n, 0.05f, momentum);
            EXPECT_TRUE(near("param", p, p_ref));
            EXPECT_TRUE(near("momentum_buf", buf, buf_ref));
        }
}

TEST_P(BackendOps, AdamStep) {
    for (int64_t n : kLengths)
        for (int64_t step : {1, 7}) {
            TRACE("adam_step", shape({{"n", n}}) + " step=" + std::to_string(step));
            const Vec grad = rnd(size_t(n), 52);
            Vec p = rnd(size_t(n), 53), m = rnd(size_t(n), 54, -0.1f, 0.1f), v = rnd(size_t(n), 55, 0.0f, 0.01f);
            Vec p_ref = p, m_ref = m, v_ref = v;
            VecStaging st(*be);
            be->adam_step(st.inout(p), st.inout(m), st.inout(v), st.in(grad), n, 1e-3f, 0.9f, 0.98f, 1e-9f, step);
            st.finish();
            ref->adam_step(p_ref.data(), m_ref.data(), v_ref.data(), grad.data(), n, 1e-3f, 0.9f, 0.98f, 1e-9f, step);
            EXPECT_TRUE(near("param", p, p_ref));
            EXPECT_TRUE(near("m", m, m_ref));
            EXPECT_TRUE(near("v", v, v_ref));
        }
}

TEST_P(BackendOps, SumSquares) {
    for (int64_t n : {int64_t(1), int64_t(3), int64_t(7), int64_t(63), int64_t(65), int64_t(129), int64_t(100003)}) {
        TRACE("sum_squares", shape({{"n", n}}));
        const Vec x = rnd(size_t(n), 56, -3.0f, 3.0f);
        VecStaging st(*be);  // x in the backend's memory; the sums: host pointers
        const float* dx = st.in(x);
        EXPECT_TRUE(near_scalar("sum", be->sum_squares_now(dx, n), ref->sum_squares_now(x.data(), n), 1e-6));
        double acc = 2.0;  // sum_squares adds to what is there
        be->sum_squares(&acc, dx, n);
        be->sync();
        EXPECT_TRUE(near_scalar("2 + sum", acc, 2.0 + ref->sum_squares_now(x.data(), n), 1e-6));
    }
}

// The scalars a training step produces (each weight's sum of squared gradients, the loss) are
// written by kernels that may not have run yet when they return; after sync() they are all in
// place and equal the CPU's.
TEST_P(BackendOps, SyncCollectsTheScalars) {
    TRACE("sync", "a gradient norm over 3 weights and a loss");
    const int N = 7, I = 65, O = 63, V = 11;
    const Vec x = rnd(size_t(N) * I, 60), dy = rnd(size_t(N) * O, 61), probs_raw = rnd(size_t(N) * V, 62, 0.01f, 1.0f);
    std::vector<Vec> W(3, rnd(size_t(O) * I, 63));
    std::vector<Vec> buf(3, Vec(size_t(O) * I, 0.0f));
    double norm = 0.0, norm_ref = 0.0;
    // One staging for the whole step, finished once: until then the kernels may not have run.
    VecStaging st(*be);
    Vec dx(size_t(N) * I);  // outlives the staging's finish(), which copies it back
    for (int k = 0; k < 3; ++k) {
        WeightUpdate u;
        u.kind = WeightUpdate::Kind::SGD;
        u.lr = 0.01f;
        u.momentum = 0.9f;
        u.buf1 = st.inout(buf[size_t(k)]);
        be->linear_backward_update(st.out(dx), nullptr, &norm, st.in(dy), st.in(x), st.inout(W[size_t(k)]), N, I, O,
                                   false, u);
        Vec g(size_t(O) * I);
        ref->linear_backward(nullptr, g.data(), dy.data(), x.data(), W[size_t(k)].data(), N, I, O, false, false);
        norm_ref += ref->sum_squares_now(g.data(), int64_t(g.size()));
    }
    Vec probs(probs_raw.size());
    Vec losses(static_cast<size_t>(N));
    ref->softmax_forward(probs.data(), probs_raw.data(), N, V);
    const std::vector<int> targets = rnd_ints(size_t(N), 64, 0, V - 1);
    float mean = -1.0f, mean_ref = -2.0f;
    int counted = -1, counted_ref = -2;
    be->cross_entropy_forward(st.out(losses), &mean, &counted, st.in(probs), st.in(targets), N, V, 0);
    st.finish();
    ref->cross_entropy_forward(losses.data(), &mean_ref, &counted_ref, probs.data(), targets.data(), N, V, 0);
    ref->sync();
    EXPECT_TRUE(near_scalar("sum of squares over the weights", norm, norm_ref));
    EXPECT_TRUE(near_scalar("mean loss", mean, mean_ref));
    EXPECT_EQ(counted, counted_ref);
}

TEST_P(BackendOps, ApplyUpdate) {
    for (int64_t n : kLengths)
        for (const auto& c : kUpdCases) {
            TRACE("apply_update", shape({{"n", n}}) + " " + c.name);
            const Vec grad = rnd(size_t(n), 57);
            UpdState a = upd_state(size_t(n), c), r = upd_state(size_t(n), c);
            const Vec W0 = a.W;
            VecStaging st(*be);
            be->apply_update(st.inout(a.W), st.in(grad), n, a.spec(c, st));
            st.finish();
            ref->apply_update(r.W.data(), grad.data(), n, r.spec(c));
            EXPECT_TRUE(near("param", a.W, r.W));
            EXPECT_TRUE(near("buf1", a.buf1, r.buf1));
            if (two_moments(c)) {
                EXPECT_TRUE(near("buf2", a.buf2, r.buf2));
            }
            if (c.to_out) {
                EXPECT_TRUE(near("out", a.out, r.out));
                EXPECT_TRUE(exact("param (kept: the update went to out)", a.W, W0));
            }
        }
}

// all_finite and the updates it guards (WeightUpdate::apply_if): the Trainer's step that changes
// nothing when its loss is not finite.
TEST_P(BackendOps, AllFinite) {
    const float inf = std::numeric_limits<float>::infinity();
    for (int64_t n : {int64_t(0), int64_t(1), int64_t(7), int64_t(65), int64_t(4099)})
        for (int where = -1; where < 3; ++where)
            for (float bad : {kNaN, inf, -inf}) {
                if (n == 0 && where >= 0) continue;
                TRACE("all_finite", shape({{"n", n}}) + (where < 0 ? " all finite" : " one non-finite at " +
                                                                          std::to_string(where) + "/3 of the way"));
                Vec x = rnd(size_t(n), 90, -1e30f, 1e30f);
                if (where >= 0) x[size_t(n - 1) * size_t(where) / 2] = bad;
                Vec flag = {kNaN}, want = {kNaN};
                VecStaging st(*be);
                be->all_finite(st.out(flag), st.in(x), n);
                st.finish();
                ref->all_finite(want.data(), x.data(), n);
                EXPECT_TRUE(exact("flag", flag, want));
                EXPECT_EQ(flag[0], where < 0 ? 1.0f : 0.0f);
                if (where < 0) break;  // the bad value does not matter
            }
}

TEST_P(BackendOps, UpdatesGuardedByAFlag) {
    const LinShape s{7, 63, 65};
    const size_t nw = size_t(s.O) * s.I;
    const Vec x = rnd(size_t(s.N) * s.I, 91), dy = rnd(size_t(s.N) * s.O, 92), grad = rnd(nw, 93);
    for (const auto& c : kUpdCases)
        for (float flag : {0.0f, 1.0f}) {
            const std::string what = c.name + std::string(flag != 0.0f ? ", flag 1: updated" : ", flag 0: unchanged");
            Vec f = {flag};
            {
                TRACE("linear_backward_update", lin_str(s) + " " + what);
                UpdState a = upd_state(nw, c), r = upd_state(nw, c);
                if (c.to_out) a.out = r.out = rnd(nw, 94);  // values a skipped update must leave there
                const UpdState before = a;
                Vec dx = nan_vec(size_t(s.N) * s.I), dx_ref = dx, dW = nan_vec(nw), dW_ref = dW;
                double ss = 0.0, ss_ref = 0.0;
                VecStaging st(*be);
                WeightUpdate u = a.spec(c, st);
                u.apply_if = st.in(f);
                be->linear_backward_update(st.out(dx), st.out(dW), &ss, st.in(dy), st.in(x), st.inout(a.W), s.N, s.I,
                                           s.O, false, u);
                st.finish();
                // the reference: the same kernel unguarded, or nothing at all
                ref->linear_backward_update(dx_ref.data(), dW_ref.data(), &ss_ref, dy.data(), x.data(), r.W.data(), s.N,
                                            s.I, s.O, false, r.spec(c));
                EXPECT_TRUE(near("dx (computed either way)", dx, dx_ref));
                EXPECT_TRUE(near("dW (computed either way)", dW, dW_ref));
                EXPECT_TRUE(near_scalar("sum(dW^2) (either way)", ss, ss_ref));
                const UpdState& want = flag != 0.0f ? r : before;
                EXPECT_TRUE(near("W", a.W, want.W));
                EXPECT_TRUE(near("buf1", a.buf1, want.buf1));
                if (two_moments(c)) {
                    EXPECT_TRUE(near("buf2", a.buf2, want.buf2));
                }
                if (c.to_out) {
                    EXPECT_TRUE(flag != 0.0f ? near("out", a.out, r.out) : exact("out (kept)", a.out, before.out));
                }
            }
            {
                TRACE("apply_update", shape({{"n", int64_t(nw)}}) + " " + what);
                UpdState a = upd_state(nw, c), r = upd_state(nw, c);
                if (c.to_out) a.out = r.out = rnd(nw, 95);
                const UpdState before = a;
                VecStaging st(*be);
                WeightUpdate u = a.spec(c, st);
                u.apply_if = st.in(f);
                be->apply_update(st.inout(a.W), st.in(grad), int64_t(nw), u);
                st.finish();
                ref->apply_update(r.W.data(), grad.data(), int64_t(nw), r.spec(c));
                const UpdState& want = flag != 0.0f ? r : before;
                EXPECT_TRUE(near("param", a.W, want.W));
                EXPECT_TRUE(near("buf1", a.buf1, want.buf1));
                if (c.to_out) {
                    EXPECT_TRUE(flag != 0.0f ? near("out", a.out, r.out) : exact("out (kept)", a.out, before.out));
                }
            }
        }
}

// The thread-safety contract (backend.h): one backend object, several threads, each with its own
// buffers and its own synchronisations (the GUI thread and the training thread do this).
TEST_P(BackendOps, TwoThreadsComputeAtOnce) {
    TRACE("linear_forward", "two threads, 40 passes each");
    TRACE("softmax_forward", "two threads");
    TRACE("sum_squares", "two threads");
    const int N = 7, I = 65, O = 33;
    const Vec W = rnd(size_t(O) * I, 100);
    auto work = [&](uint32_t seed, std::string* failure) {
        for (int pass = 0; pass < 40 && failure->empty(); ++pass) {
            const Vec x = rnd(size_t(N) * I, seed + uint32_t(pass));
            Vec y = nan_vec(size_t(N) * O), p = y, y_ref = y, p_ref = y;
            double ss = 0.0, ss_ref = 0.0;
            {
                VecStaging st(*be);
                float* dy = st.out(y);
                be->linear_forward(dy, st.in(x), st.in(W), N, I, O);
                be->softmax_forward(st.out(p), dy, N, O);
                be->sum_squares(&ss, dy, int64_t(y.size()));
                st.finish();
            }
            ref->linear_forward(y_ref.data(), x.data(), W.data(), N, I, O);
            ref->softmax_forward(p_ref.data(), y_ref.data(), N, O);
            ref->sum_squares(&ss_ref, y_ref.data(), int64_t(y_ref.size()));
            if (!near("y", y, y_ref) || !near("softmax", p, p_ref) || !near_scalar("sum(y^2)", ss, ss_ref))
                *failure = "pass " + std::to_string(pass) + " of the thread with seed " + std::to_string(seed) +
                           " differs from the CPU";
        }
    };
    std::string fa, fb;
    std::thread a(work, 1000u, &fa), b(work, 2000u, &fb);
    a.join();
    b.join();
    EXPECT_EQ(fa, "");
    EXPECT_EQ(fb, "");
}

// ---------------------------------------------------------------- memory

// The memory section, by hand: what Staging is built on.
TEST_P(BackendOps, Memory) {
    for (size_t bytes : {size_t(1), size_t(3), size_t(65), size_t(129), size_t(4097)}) {
        TRACE("alloc", shape({{"bytes", int64_t(bytes)}}) + " byte round trip");
        TRACE("memory_in_use", "counts what alloc gives until release");
        std::vector<unsigned char> src(bytes), back(bytes, 0xee);
        std::mt19937 g(static_cast<uint32_t>(bytes));
        for (auto& c : src) c = static_cast<unsigned char>(g());
        const size_t in_use = be->memory_in_use();
        void* d = be->alloc(bytes);
        if (be->host_memory())
            EXPECT_EQ(be->memory_in_use(), 0u) << "a host-memory backend does not count the host's";
        else
            EXPECT_GE(be->memory_in_use(), in_use + bytes);
        ASSERT_NE(d, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(d) % 64, 0u) << "alloc's memory is 64-byte aligned";
        be->upload(d, src.data(), bytes);
        be->download(back.data(), d, bytes);
        EXPECT_EQ(back, src);
        be->release(d);
        EXPECT_EQ(be->memory_in_use(), in_use);
    }
    {
        TRACE("trim", "gives back the freed buffers kept for reuse; the backend stays usable");
        void* d = be->alloc(1 << 20);
        be->release(d);
        be->sync();
        const size_t given = be->trim();
        if (be->host_memory()) {
            EXPECT_EQ(given, 0u) << "the host's heap keeps nothing for the backend";
        } else if (be->name() == "gpu") {  // the Vulkan backend keeps freed buffers for the next step
            EXPECT_GE(given, size_t(1) << 20) << "the megabyte just released was kept for reuse";
        }
        EXPECT_EQ(be->trim(), 0u) << "nothing left to give back";
        const std::vector<unsigned char> src(300, 7);
        std::vector<unsigned char> back(300, 0);
        void* again = be->alloc(src.size());
        be->upload(again, src.data(), src.size());
        be->download(back.data(), again, back.size());
        be->release(again);
        EXPECT_EQ(back, src);
    }
    for (int64_t n : {1, 3, 65, 129, 4097}) {
        TRACE("upload", shape({{"n", n}}) + " float and int round trips");
        TRACE("download", shape({{"n", n}}));
        const size_t fb = size_t(n) * sizeof(float), ib = size_t(n) * sizeof(int);
        Vec f = rnd(size_t(n), 70);
        std::vector<int> ids = rnd_ints(size_t(n), 71, std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
        const Vec f0 = f;
        const std::vector<int> ids0 = ids;
        void* df = be->alloc(fb);
        void* di = be->alloc(ib);
        be->upload(df, f.data(), fb);
        be->upload(di, ids.data(), ib);
        // the host source may change as soon as upload returns
        std::fill(f.begin(), f.end(), kNaN);
        std::fill(ids.begin(), ids.end(), -1);
        Vec f_back = nan_vec(size_t(n));
        std::vector<int> ids_back(size_t(n), -2);
        be->download(f_back.data(), df, fb);
        be->download(ids_back.data(), di, ib);
        EXPECT_TRUE(exact("float", f_back, f0));
        EXPECT_TRUE(exact("int", ids_back, ids0));
        be->release(df);
        be->release(di);
    }
    {
        TRACE("release", "release(nullptr), alloc(0)");
        be->release(nullptr);
        be->release(be->alloc(0));
        be->sync();
    }
    for (int64_t n : {1, 65, 4097}) {
        TRACE("download", "add_forward and embedding_forward on alloc'd memory, " + shape({{"n", n}}));
        const size_t bytes = size_t(n) * sizeof(float);
        const Vec a = rnd(size_t(n), 72), a2 = rnd(size_t(n), 73), b = rnd(size_t(n), 74);
        auto* da = static_cast<float*>(be->alloc(bytes));
        auto* db = static_cast<float*>(be->alloc(bytes));
        auto* dout = static_cast<float*>(be->alloc(bytes));
        auto* dout2 = static_cast<float*>(be->alloc(bytes));
        be->upload(da, a.data(), bytes);
        be->upload(db, b.data(), bytes);
        be->add_forward(dout, da, db, n);
        // queued after the first kernel, in order: that kernel still reads a, the next one a2
        be->upload(da, a2.data(), bytes);
        be->add_forward(dout2, da, db, n);
        Vec out = nan_vec(size_t(n)), out2 = out, want = out, want2 = out;
        be->download(out.data(), dout, bytes);  // waits for the kernels queued before it
        be->download(out2.data(), dout2, bytes);
        ref->add_forward(want.data(), a.data(), b.data(), n);
        ref->add_forward(want2.data(), a2.data(), b.data(), n);
        EXPECT_TRUE(near("a + b", out, want));
        EXPECT_TRUE(near("a2 + b (uploaded between the kernels)", out2, want2));
        for (float* p : {da, db, dout, dout2}) be->release(p);

        // int data: token ids
        const int V = 7, D = 3;
        const std::vector<int> ids = rnd_ints(size_t(n), 75, 0, V - 1);
        const Vec table = rnd(size_t(V) * D, 76);
        auto* dids = static_cast<int*>(be->alloc(ids.size() * sizeof(int)));
        auto* dtable = static_cast<float*>(be->alloc(table.size() * sizeof(float)));
        auto* demb = static_cast<float*>(be->alloc(size_t(n) * D * sizeof(float)));
        be->upload(dids, ids.data(), ids.size() * sizeof(int));
        be->upload(dtable, table.data(), table.size() * sizeof(float));
        be->embedding_forward(demb, dids, dtable, int(n), V, D);
        Vec emb = nan_vec(size_t(n) * D), emb_ref = emb;
        be->download(emb.data(), demb, emb.size() * sizeof(float));
        ref->embedding_forward(emb_ref.data(), ids.data(), table.data(), int(n), V, D);
        EXPECT_TRUE(exact("embedding", emb, emb_ref));
        be->release(dids);
        be->release(dtable);
        be->release(demb);
    }
    {
        TRACE("host_memory", std::string("host_memory() = ") + (be->host_memory() ? "true" : "false"));
        EXPECT_EQ(Staging(*be).passthrough(), be->host_memory());
        if (be->host_memory()) {
            // a host pointer is an address in the backend's memory, and alloc's memory is the host's
            const Vec a = rnd(65, 77), b = rnd(65, 78);
            Vec out = nan_vec(65), want = out;
            be->add_forward(out.data(), a.data(), b.data(), 65);
            be->sync();
            ref->add_forward(want.data(), a.data(), b.data(), 65);
            EXPECT_TRUE(near("add_forward on host pointers", out, want));
            auto* d = static_cast<float*>(be->alloc(a.size() * sizeof(float)));
            be->upload(d, a.data(), a.size() * sizeof(float));
            be->sync();
            EXPECT_TRUE(exact("alloc'd memory read on the host", Vec(d, d + a.size()), a));
            be->release(d);
        }
    }
}

// Staging's semantics on this backend (staging.h): what the model's passes rely on.
TEST_P(BackendOps, Staging) {
    const bool host = be->host_memory();
    const int64_t n = 129;
    const Vec a = rnd(size_t(n), 80), b = rnd(size_t(n), 81);
    Vec sum_ref(static_cast<size_t>(n)), sum2_ref(static_cast<size_t>(n));
    ref->add_forward(sum_ref.data(), a.data(), b.data(), n);
    ref->add_forward(sum2_ref.data(), sum_ref.data(), b.data(), n);
    {
        TRACE("add_forward", "Staging: in(), out() copied back at finish(), finish() twice, device_bytes()");
        Tensor ta({n}, a), tb({n}, b), out({n}, kNaN);
        Staging st(*be);
        EXPECT_EQ(st.passthrough(), host);
        EXPECT_EQ(st.device_bytes(), 0u);
        be->add_forward(st.out(out), st.in(ta), st.in(tb), n);
        if (!host) {
            // the kernel wrote the backend's memory; the host tensor waits for finish()
            EXPECT_TRUE(std::all_of(out.data.begin(), out.data.end(), [](float x) { return std::isnan(x); }))
                << "the host tensor changed before finish()";
        }
        st.finish();
        EXPECT_TRUE(near("out after finish()", out.data, sum_ref));
        if (host) {
            EXPECT_EQ(st.device_bytes(), 0u);
        } else {
            EXPECT_GE(st.device_bytes(), 3 * size_t(n) * sizeof(float));
        }
        st.finish();  // no kernel since: harmless
        EXPECT_TRUE(near("out after a second finish()", out.data, sum_ref));
        // the device copies stay after finish(): a later pass in the same staging reads them
        Tensor out2({n}, kNaN);
        be->add_forward(st.out(out2), st.in(out), st.in(tb), n);
        st.finish();
        EXPECT_TRUE(near("a kernel after finish() on the staged result", out2.data, sum2_ref));
        EXPECT_TRUE(near("out (unchanged)", out.data, sum_ref));
    }
    const int N = 65, V = 7, D = 33;
    const std::vector<int> ids = rnd_ints(size_t(N), 82, 0, V - 1);
    const Vec dout = rnd(size_t(N) * D, 83);
    {
        TRACE("embedding_backward", "Staging: inout() accumulates into the host's values");
        Tensor table({V, D}, rnd(size_t(V) * D, 84));
        Vec want = table.data;
        Staging st(*be);
        be->embedding_backward(st.inout(table), st.in(dout.data(), int64_t(dout.size())), st.in(ids), N, V, D);
        st.finish();
        ref->embedding_backward(want.data(), dout.data(), ids.data(), N, V, D);
        EXPECT_TRUE(exact("dtable", table.data, want));
    }
    {
        TRACE("embedding_backward", "Staging: zeros() is zeros in the backend's memory");
        Tensor table({V, D});  // zeros, as zeros() assumes
        Vec want(table.data.size(), 0.0f);
        ref->embedding_backward(want.data(), dout.data(), ids.data(), N, V, D);
        Staging st(*be);
        if (!host) {
            // device storage at this address that holds something else already
            be->fill(st.out(table), table.size(), 9.0f);
        }
        be->embedding_backward(st.zeros(table), st.in(dout.data(), int64_t(dout.size())), st.in(ids), N, V, D);
        st.finish();
        EXPECT_TRUE(exact("dtable", table.data, want));
    }
    {
        TRACE("fill", "Staging: temp() is backend memory that later kernels read, lent again when returned");
        Tensor out({n}, kNaN);
        Staging st(*be);
        size_t lent = 0;
        {
            const Staging::Temp t = st.temp(n);
            be->fill(t.get(), n, 3.0f);
            be->add_forward(st.out(out), t.get(), st.in(a.data(), n), n);  // a later kernel reads it
            lent = st.device_bytes();
        }
        {
            const Staging::Temp again = st.temp(n - 1);  // fits in the returned one
            be->fill(again.get(), n - 1, 5.0f);
            EXPECT_EQ(st.device_bytes(), lent) << "a returned temp is lent again, not allocated anew";
        }
        st.finish();
        Vec want(static_cast<size_t>(n));
        const Vec threes(size_t(n), 3.0f);
        ref->add_forward(want.data(), threes.data(), a.data(), n);
        EXPECT_TRUE(near("a kernel reading the temp", out.data, want));
    }
    {
        TRACE("fill", "Staging: a forgotten tensor's address is free for the next host tensor");
        auto gone = std::make_unique<Tensor>(Shape{n});
        const float* addr = gone->ptr();
        Staging st(*be);
        be->fill(st.out(*gone), n, 4.0f);
        st.forget(*gone);
        gone.reset();
        // host data made next, at the same address when the allocator gives it back
        auto next = std::make_unique<Tensor>(Shape{n}, 6.0f);
        Vec got = nan_vec(size_t(n)), want(static_cast<size_t>(n));
        be->add_forward(st.out(got.data(), n), st.in(*next), st.in(a.data(), n), n);
        st.finish();
        const Vec sixes(size_t(n), 6.0f);
        ref->add_forward(want.data(), sixes.data(), a.data(), n);
        EXPECT_TRUE(near(next->ptr() == addr ? "the next tensor, at the forgotten one's address" : "the next tensor", got,
                         want));
    }
    {
        TRACE("fill", "Staging: forget() prevents the copy back");
        Tensor f({n});
        auto gone = std::make_unique<Tensor>(Shape{n});
        Staging st(*be);
        be->fill(st.out(f), n, 2.0f);
        be->fill(st.out(*gone), n, 4.0f);
        st.forget(f);
        st.forget(*gone);
        be->sync();    // (a host_memory backend writes the host tensor itself)
        gone.reset();  // the host tensor goes away before finish(), which must not write it
        st.finish();
        EXPECT_TRUE(exact("a forgotten tensor", f.data, Vec(size_t(n), host ? 2.0f : 0.0f)));
    }
    {
        TRACE("embedding_forward", "Staging: token ids uploaded on every in(), their storage reused");
        std::vector<int> batch = ids;
        const Vec table = rnd(size_t(V) * D, 85);
        Vec first = nan_vec(size_t(N) * D), second = first, want1 = first, want2 = first;
        VecStaging st(*be);
        const float* dt = st.in(table);
        be->embedding_forward(st.out(first), st.in(batch), dt, N, V, D);
        ref->embedding_forward(want1.data(), batch.data(), table.data(), N, V, D);
        for (int& i : batch) i = (i + 1) % V;  // the next batch, in the same storage
        be->embedding_forward(st.out(second), st.in(batch), dt, N, V, D);
        ref->embedding_forward(want2.data(), batch.data(), table.data(), N, V, D);
        st.finish();
        EXPECT_TRUE(exact("first batch", first, want1));
        EXPECT_TRUE(exact("second batch", second, want2));
    }
}

// ---------------------------------------------------------------- the whole model

// Training with what the goldens leave out (their models have no dropout): dropout's masks
// (dropout_mask, positional_forward with keep, mul_forward), learned LayerNorm, every
// optimizer. A few steps on this backend against the same on the single-threaded CPU backend.
TEST_P(BackendOps, TrainingWithDropoutMatchesTheCpu) {
    for (OptimizerKind kind : {OptimizerKind::SGD, OptimizerKind::Adam, OptimizerKind::AdamW}) {
        const bool adam = kind != OptimizerKind::SGD;
        SCOPED_TRACE("training (small, dropout 0.1, learned LayerNorm, " + optimizer_name(kind) + ") on " + GetParam());
        Config c = Config::small();
        c.dropout = 0.1;
        c.learn_layer_norm = true;
        TrainOptions to;
        to.epochs = 4;
        to.batch_size = 2;
        to.seed = 5;
        to.optimizer = optimizer_defaults(kind);
        to.optimizer.lr = adam ? 5e-3 : 0.05;
        to.optimizer.momentum = adam ? 0.0 : 0.9;
        auto train = [&](Backend& backend, std::vector<double>& losses) {
            auto model = std::make_unique<Transformer>(c, init_params(c, 9), &backend);
            Trainer trainer(*model, builtin_examples(), to);
            const TrainResult r = trainer.run([&](const StepReport& s) { losses.push_back(s.loss); });
            EXPECT_EQ(r.status, TrainStatus::Finished) << r.message;
            return model;
        };
        std::vector<double> losses, losses_ref;
        const auto model = train(*be, losses);
        const auto model_ref = train(*ref, losses_ref);
        ASSERT_EQ(losses.size(), losses_ref.size());
        ASSERT_GT(losses.size(), 3u);
        for (size_t i = 0; i < losses.size(); ++i) {
            EXPECT_TRUE(near_scalar("loss", losses[i], losses_ref[i], 1e-4)) << "step " << i + 1;
        }
        for (size_t i = 0; i < model->params().size(); ++i) {
            const auto& p = model->params()[i].data;
            const auto& q = model_ref->params()[i].data;
            EXPECT_TRUE(near(model->params().name(i).c_str(), Vec(p.begin(), p.end()), Vec(q.begin(), q.end()), 1e-4));
        }
    }
}

TEST_P(BackendOps, NameAndDescription) {
    EXPECT_EQ(be->name(), GetParam());
    EXPECT_FALSE(be->describe().empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendOps, ::testing::ValuesIn(stepformer::testing::registered_backends()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                             return stepformer::testing::test_name(i.param);
                         });

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

// ---------------------------------------------------------------- the list is complete

// The kernels backend.h declares: every `virtual ... name(` but name(), describe() and the
// destructor.
std::set<std::string> kernels_in_header() {
    std::ifstream f(STEPFORMER_BACKEND_HEADER);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string text = ss.str();
    std::set<std::string> names;
    const std::regex virt(R"(virtual\s+[\w:<>\s\*&]*?\b(\w+)\s*\()");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), virt); it != std::sregex_iterator(); ++it)
        names.insert((*it)[1].str());
    names.erase("name");
    names.erase("describe");
    return names;
}

TEST(BackendOpsCoverage, AllKernelsAreCovered) {
    const auto& table = covered_kernels();
    const std::set<std::string> unique(table.begin(), table.end());
    EXPECT_EQ(unique.size(), table.size()) << "a kernel is listed twice";
    EXPECT_EQ(table.size(), kInterfaceCount);
    const std::set<std::string> declared = kernels_in_header();
    ASSERT_FALSE(declared.empty()) << "could not read " << STEPFORMER_BACKEND_HEADER;
    for (const auto& k : declared) EXPECT_TRUE(unique.count(k)) << k << " is declared in backend.h but not tested here";
    for (const auto& k : unique) EXPECT_TRUE(declared.count(k)) << k << " is tested here but not in backend.h";
    EXPECT_EQ(declared.size(), kInterfaceCount);
    // backend_ops.h's list of kernels (what the fallback and the test backends go by) names
    // every kernel backend.h declares, once.
    std::set<std::string> listed;
    for (int k = 0; k < stepformer::kKernelCount; ++k) {
        const std::string name = kernel_name(static_cast<Kernel>(k));
        EXPECT_TRUE(declared.count(name)) << name << " is in backend_ops.h but not declared in backend.h";
        EXPECT_TRUE(listed.insert(name).second) << name << " is listed twice in backend_ops.h";
    }
    for (const auto& k : declared) {
        if (listed.count(k)) continue;
        EXPECT_TRUE(k == "sync" || k == "host_memory" || k == "alloc" || k == "release" || k == "upload" ||
                        k == "download" || k == "memory_in_use" || k == "trim" || k == "counters" || k == "set_profiling" ||
                        k == "supports" || k == "run_elsewhere")
            << k << " is declared in backend.h but not listed in backend_ops.h";
    }
}

TEST(BackendOpsCoverage, TheCopyBackendIsRegisteredBesideTheCpu) {
    const auto names = stepformer::testing::registered_backends();
    EXPECT_NE(std::find(names.begin(), names.end(), "cpu"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "cpu-copy"), names.end());
    EXPECT_EQ(make_backend("cpu-copy", 1)->name(), "cpu-copy");
}

}  // namespace
