// What the backend-ops tests share (test_backend_ops.cpp and the test_backend_*.cpp beside it):
// seeded inputs, the comparisons (near, nmse, exact), shapes in messages, a staging of vectors,
// the fixture over every registered backend and the table of the interface's kernels.
#pragma once

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


namespace backend_ops_test {

using namespace stepformer;


// The kernels these tests cover, one name each: every virtual kernel of Backend (not name() and
// describe()). When a kernel is added to backend.h, add its
// name here, bump kInterfaceCount, and add a TEST_P that calls it on every backend (with
// `kernel("its_name")` so the table and the tests stay tied); AllKernelsAreCovered reads
// backend.h and fails until then.
constexpr size_t kInterfaceCount = 56;
inline const std::vector<std::string>& covered_kernels() {
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
        "download",             "download_many",         "memory_in_use",          "trim",
        "counters",
        "set_profiling",
        "supports",             "run_elsewhere",  // test_kernel_fallback.cpp
    };
    return k;
}

using Vec = std::vector<float>;
const float kNaN = std::numeric_limits<float>::quiet_NaN();

inline Vec rnd(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    Vec v(n);
    for (auto& x : v) x = d(g);
    return v;
}
inline std::vector<int> rnd_ints(size_t n, uint32_t seed, int lo, int hi) {
    std::mt19937 g(seed);
    std::uniform_int_distribution<int> d(lo, hi);
    std::vector<int> v(n);
    for (auto& x : v) x = d(g);
    return v;
}
// Random 0/1 mask (B, Lq, Lk), the last query row of every batch fully masked.
inline Vec rnd_mask(int B, int Lq, int Lk, uint32_t seed) {
    std::mt19937 g(seed);
    std::bernoulli_distribution d(0.3);
    Vec m(size_t(B) * Lq * Lk);
    for (auto& x : m) x = d(g) ? 1.0f : 0.0f;
    for (int b = 0; b < B; ++b)
        for (int k = 0; k < Lk; ++k) m[(size_t(b) * Lq + Lq - 1) * Lk + k] = 1.0f;
    return m;
}
inline Vec nan_vec(size_t n) { return Vec(n, kNaN); }

// Element-wise |got - want| <= tol (1 + |want|); a NaN anywhere fails.
inline ::testing::AssertionResult near(const char* what, const Vec& got, const Vec& want, double tol = 1e-5) {
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
inline ::testing::AssertionResult nmse(const char* what, const Vec& got, const Vec& want, double bound = 1e-10) {
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
inline ::testing::AssertionResult exact(const char* what, const std::vector<T>& got, const std::vector<T>& want) {
    if (got.size() != want.size())
        return ::testing::AssertionFailure() << what << ": size " << got.size() << " vs " << want.size();
    for (size_t i = 0; i < got.size(); ++i)
        if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0)
            return ::testing::AssertionFailure()
                   << what << "[" << i << "] = " << got[i] << ", the CPU reference gives " << want[i] << " (exact)";
    return ::testing::AssertionSuccess();
}
inline ::testing::AssertionResult near_scalar(const char* what, double got, double want, double tol = 1e-5) {
    if (std::isnan(got) || std::isnan(want) || !(std::abs(got - want) <= tol * (1.0 + std::abs(want))))
        return ::testing::AssertionFailure() << what << " = " << got << ", the CPU reference gives " << want;
    return ::testing::AssertionSuccess();
}

inline std::string shape(std::initializer_list<std::pair<const char*, int64_t>> dims) {
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

// ---- shared by the linear and optimizer tests

// 70001: above the CPU backend's threshold for splitting work across threads
inline const std::vector<int64_t> kLengths = {1, 3, 7, 63, 65, 129, 4097, 70001};

struct LinShape {
    int N, I, O;
};
inline const std::vector<LinShape> kLinShapes = {{1, 1, 1}, {3, 7, 5}, {7, 63, 65}, {10, 129, 3}, {65, 64, 129}, {1, 65, 63}};
inline std::string lin_str(const LinShape& s) { return shape({{"N", s.N}, {"I", s.I}, {"O", s.O}}); }

struct UpdCase {
    const char* name;
    WeightUpdate::Kind kind;
    float momentum;
    bool to_out;
};
inline const std::vector<UpdCase> kUpdCases = {{"SGD momentum 0", WeightUpdate::Kind::SGD, 0.0f, false},
                                        {"SGD momentum 0.9", WeightUpdate::Kind::SGD, 0.9f, false},
                                        {"SGD momentum 0.9 into out", WeightUpdate::Kind::SGD, 0.9f, true},
                                        {"Adam in place", WeightUpdate::Kind::Adam, 0.0f, false},
                                        {"Adam into out", WeightUpdate::Kind::Adam, 0.0f, true},
                                        {"AdamW in place", WeightUpdate::Kind::AdamW, 0.0f, false},
                                        {"AdamW into out", WeightUpdate::Kind::AdamW, 0.0f, true}};
inline bool two_moments(const UpdCase& c) { return c.kind != WeightUpdate::Kind::SGD; }

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
inline UpdState upd_state(size_t n, const UpdCase& c) {
    UpdState s;
    s.W = rnd(n, 11);
    s.buf1 = rnd(n, 12, -0.1f, 0.1f);
    s.buf2 = rnd(n, 13, 0.0f, 0.01f);  // exp_avg_sq >= 0
    s.out = c.to_out ? nan_vec(n) : Vec();
    return s;
}

}  // namespace backend_ops_test
