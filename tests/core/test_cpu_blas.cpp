// The CPU backend's large products (core/src/cpu_blas.h): linear layers over hundreds of tokens go
// to OpenBLAS's OpenMP build where it measured faster on this machine, else to the kernel set's
// GEMM. Both paths compute what a double-precision product computes, forward and backward, with
// and without accumulation; the choice is reported, and a bad STEPFORMER_CPU_GEMM is refused by
// name. Where OpenBLAS is not installed its runs are skipped, saying so (ctest also runs this file
// under STEPFORMER_CPU_GEMM=eigen and =openblas: tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "backend_ops_util.h"
#include "stepformer/backend.h"
#include "stepformer/cpu_kernels.h"
#include "stepformer/message.h"

using namespace stepformer;
using backend_ops_test::rnd;

namespace {

bool openblas_installed() {
    try {
        use_cpu_large_gemm("openblas");
        return true;
    } catch (const InvalidArgument&) {
        return false;
    }
}

class LargeProducts : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        if (GetParam() == "openblas" && !openblas_installed()) GTEST_SKIP() << "OpenBLAS's OpenMP build is not installed";
        use_cpu_large_gemm(GetParam());
    }
    void TearDown() override { use_cpu_large_gemm("auto"); }
};

// y = x Wᵀ; dx = dy W (+ dx), dW = dyᵀ x (+ dW): against sums in double, over 300 tokens (large)
// with odd feature counts (the threads' slices end mid-vector).
TEST_P(LargeProducts, LinearForwardAndBackwardAgainstDouble) {
    const int N = 300, I = 70, O = 131;
    const auto x = rnd(size_t(N) * I, 1), W = rnd(size_t(O) * I, 2), dy = rnd(size_t(N) * O, 3);
    const auto dx0 = rnd(size_t(N) * I, 4), dW0 = rnd(size_t(O) * I, 5);
    const auto be = make_cpu_backend(2);
    for (bool accumulate : {false, true}) {
        std::vector<float> y(size_t(N) * O, 9.0f), dx = accumulate ? dx0 : std::vector<float>(dx0.size(), 9.0f),
                                                   dW = accumulate ? dW0 : std::vector<float>(dW0.size(), 9.0f);
        be->linear_forward(y.data(), x.data(), W.data(), N, I, O);
        be->linear_backward(dx.data(), dW.data(), dy.data(), x.data(), W.data(), N, I, O, accumulate, accumulate);
        for (int n = 0; n < N; ++n)
            for (int o = 0; o < O; ++o) {
                double s = 0.0;
                for (int i = 0; i < I; ++i) s += double(x[size_t(n) * I + i]) * W[size_t(o) * I + i];
                ASSERT_NEAR(y[size_t(n) * O + o], s, 1e-5 * (1 + std::abs(s))) << GetParam() << ": y at " << n << ", " << o;
            }
        for (int n = 0; n < N; ++n)
            for (int i = 0; i < I; ++i) {
                double s = accumulate ? dx0[size_t(n) * I + i] : 0.0;
                for (int o = 0; o < O; ++o) s += double(dy[size_t(n) * O + o]) * W[size_t(o) * I + i];
                ASSERT_NEAR(dx[size_t(n) * I + i], s, 1e-5 * (1 + std::abs(s))) << GetParam() << ": dx at " << n << ", " << i;
            }
        for (int o = 0; o < O; ++o)
            for (int i = 0; i < I; ++i) {
                double s = accumulate ? dW0[size_t(o) * I + i] : 0.0;
                for (int n = 0; n < N; ++n) s += double(dy[size_t(n) * O + o]) * x[size_t(n) * I + i];
                ASSERT_NEAR(dW[size_t(o) * I + i], s, 1e-5 * (1 + std::abs(s))) << GetParam() << ": dW at " << o << ", " << i;
            }
    }
    EXPECT_EQ(cpu_large_gemm(), GetParam());
}

// Two threads computing large products at once (the app's GUI thread and its background pool
// can): each gets its own product, whichever library and however it is called.
TEST_P(LargeProducts, ConcurrentCallersGetTheirOwnProducts) {
    const int N = 512, I = 256, O = 320;
    std::vector<std::vector<float>> x, W, want;
    for (unsigned t = 0; t < 2; ++t) {
        x.push_back(rnd(size_t(N) * I, 10 + t));
        W.push_back(rnd(size_t(O) * I, 20 + t));
        want.emplace_back(size_t(N) * O);
        make_cpu_backend(2)->linear_forward(want[t].data(), x[t].data(), W[t].data(), N, I, O);
    }
    std::vector<int> wrong(2, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
        threads.emplace_back([&, t] {
            const auto be = make_cpu_backend(2);
            std::vector<float> y(size_t(N) * O);
            for (int r = 0; r < 8; ++r) {
                be->linear_forward(y.data(), x[t].data(), W[t].data(), N, I, O);
                if (y != want[t]) ++wrong[t];
            }
        });
    for (std::thread& th : threads) th.join();
    EXPECT_EQ(wrong[0], 0) << GetParam();
    EXPECT_EQ(wrong[1], 0) << GetParam();
}

std::string name_of(const ::testing::TestParamInfo<std::string>& info) { return info.param; }
INSTANTIATE_TEST_SUITE_P(Gemm, LargeProducts, ::testing::Values(std::string("eigen"), std::string("openblas")), name_of);

// auto decides at the first large product on two threads, by STEPFORMER_CPU_GEMM when it is set,
// and not before (nor on one thread, where the kernel set's GEMM is used whatever the choice).
TEST(LargeProductChoice, DecidedAtTheFirstLargeProductOnTwoThreads) {
    use_cpu_large_gemm("auto");
    EXPECT_EQ(cpu_large_gemm(), "undecided");
    const int N = 300, I = 64, O = 64;
    const auto x = rnd(size_t(N) * I, 6), W = rnd(size_t(O) * I, 7);
    std::vector<float> y(size_t(N) * O);
    make_cpu_backend(1)->linear_forward(y.data(), x.data(), W.data(), N, I, O);
    make_cpu_backend(2)->linear_forward(y.data(), x.data(), W.data(), 40, I, O);  // few tokens: streaming
    EXPECT_EQ(cpu_large_gemm(), "undecided");
    make_cpu_backend(2)->linear_forward(y.data(), x.data(), W.data(), N, I, O);
    const char* env = std::getenv("STEPFORMER_CPU_GEMM");
    if (env && *env && std::string(env) != "auto")
        EXPECT_EQ(cpu_large_gemm(), env);
    else
        EXPECT_TRUE(cpu_large_gemm() == "eigen" || cpu_large_gemm() == "openblas") << cpu_large_gemm();
    use_cpu_large_gemm("auto");
}

TEST(LargeProductChoice, AnUnknownLibraryIsRefusedByName) {
    try {
        use_cpu_large_gemm("mkl");
        FAIL() << "an unknown library was accepted";
    } catch (const InvalidArgument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("mkl"), std::string::npos) << what;
        EXPECT_NE(what.find("openblas"), std::string::npos) << what;
    }
}

}  // namespace
