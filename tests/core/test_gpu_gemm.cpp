// The GPU backend's four matrix-product shaders (core/src/vulkan/shaders/batched_matmul*.comp):
// a GPU runs the blocked one (4 x 4 outputs an invocation) for large products and the tiled one for the
// rest, lavapipe the strip one (four outputs an invocation) for few rows and the simple one for the
// rest, so each is forced here (STEPFORMER_VK_GEMM) and
// compared with the CPU on every kernel built on them, at odd sizes around the tiles and strips.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "stepformer/backend.h"
#include "stepformer/devices.h"
#include "stepformer/staging.h"

using namespace stepformer;

namespace {

using Vec = std::vector<float>;

Vec rnd(size_t n, uint32_t seed) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    Vec v(n);
    for (auto& x : v) x = d(g);
    return v;
}

::testing::AssertionResult near(const char* what, const Vec& got, const Vec& want) {
    for (size_t i = 0; i < want.size(); ++i)
        if (!(std::abs(got[i] - want[i]) <= 1e-5 * (1.0 + std::abs(want[i]))))
            return ::testing::AssertionFailure() << what << "[" << i << "] = " << got[i] << ", the CPU gives " << want[i];
    return ::testing::AssertionSuccess();
}

std::unique_ptr<Backend> gpu_with(const char* gemm) {
    setenv("STEPFORMER_VK_GEMM", gemm, 1);
    std::unique_ptr<Backend> be = make_backend("gpu", 1);
    unsetenv("STEPFORMER_VK_GEMM");
    return be;
}

struct Shape {
    int N, I, O;
};

// linear forward and backward (dx accumulated, dW overwritten), Q K^T and attn V forward and
// backward, on `be`, into outputs compared with the CPU's.
void check(Backend& be, const Shape& s) {
    SCOPED_TRACE(be.describe() + " N=" + std::to_string(s.N) + " I=" + std::to_string(s.I) + " O=" + std::to_string(s.O));
    const std::unique_ptr<Backend> cpu = make_cpu_backend(1);
    const Vec x = rnd(size_t(s.N) * s.I, 1), W = rnd(size_t(s.O) * s.I, 2), dy = rnd(size_t(s.N) * s.O, 3);
    Vec y(size_t(s.N) * s.O), dx = rnd(size_t(s.N) * s.I, 4), dW(size_t(s.O) * s.I);
    Vec y_ref = y, dx_ref = dx, dW_ref = dW;
    {
        Staging st(be);
        be.linear_forward(st.out(y.data(), int64_t(y.size())), st.in(x.data(), int64_t(x.size())),
                          st.in(W.data(), int64_t(W.size())), s.N, s.I, s.O);
        be.linear_backward(st.inout(dx.data(), int64_t(dx.size())), st.out(dW.data(), int64_t(dW.size())),
                           st.in(dy.data(), int64_t(dy.size())), st.in(x.data(), int64_t(x.size())),
                           st.in(W.data(), int64_t(W.size())), s.N, s.I, s.O, true, false);
        st.finish();
    }
    cpu->linear_forward(y_ref.data(), x.data(), W.data(), s.N, s.I, s.O);
    cpu->linear_backward(dx_ref.data(), dW_ref.data(), dy.data(), x.data(), W.data(), s.N, s.I, s.O, true, false);
    EXPECT_TRUE(near("y", y, y_ref));
    EXPECT_TRUE(near("dx", dx, dx_ref));
    EXPECT_TRUE(near("dW", dW, dW_ref));

    // attention with G = 3 slices: Lq = N, Lk = O, d = I
    const int G = 3, Lq = s.N, Lk = s.O, d = s.I;
    const Vec Q = rnd(size_t(G) * Lq * d, 5), K = rnd(size_t(G) * Lk * d, 6), ds = rnd(size_t(G) * Lq * Lk, 7),
              V = rnd(size_t(G) * Lk * d, 8), dc = rnd(size_t(G) * Lq * d, 9);
    Vec sc(size_t(G) * Lq * Lk), dQ(Q.size()), dK(K.size()), ctx(size_t(G) * Lq * d), da(ds.size()), dV(V.size());
    Vec sc_ref = sc, dQ_ref = dQ, dK_ref = dK, ctx_ref = ctx, da_ref = da, dV_ref = dV;
    {
        Staging st(be);
        const auto I = [&](const Vec& v) { return st.in(v.data(), int64_t(v.size())); };
        const auto O = [&](Vec& v) { return st.out(v.data(), int64_t(v.size())); };
        be.attn_scores_forward(O(sc), I(Q), I(K), G, Lq, Lk, d, 0.125f);
        be.attn_scores_backward(O(dQ), O(dK), I(ds), I(Q), I(K), G, Lq, Lk, d, 0.125f);
        be.attn_context_forward(O(ctx), I(ds), I(V), G, Lq, Lk, d);
        be.attn_context_backward(O(da), O(dV), I(dc), I(ds), I(V), G, Lq, Lk, d);
        st.finish();
    }
    cpu->attn_scores_forward(sc_ref.data(), Q.data(), K.data(), G, Lq, Lk, d, 0.125f);
    cpu->attn_scores_backward(dQ_ref.data(), dK_ref.data(), ds.data(), Q.data(), K.data(), G, Lq, Lk, d, 0.125f);
    cpu->attn_context_forward(ctx_ref.data(), ds.data(), V.data(), G, Lq, Lk, d);
    cpu->attn_context_backward(da_ref.data(), dV_ref.data(), dc.data(), ds.data(), V.data(), G, Lq, Lk, d);
    EXPECT_TRUE(near("scores", sc, sc_ref));
    EXPECT_TRUE(near("dQ", dQ, dQ_ref));
    EXPECT_TRUE(near("dK", dK, dK_ref));
    EXPECT_TRUE(near("context", ctx, ctx_ref));
    EXPECT_TRUE(near("dattn", da, da_ref));
    EXPECT_TRUE(near("dV", dV, dV_ref));
}

TEST(GpuGemm, EveryProductShaderGivesTheCpusProducts) {
    const auto names = available_backends();
    if (std::find(names.begin(), names.end(), "gpu") == names.end()) {
        // No "gpu" is right only where there is no usable Vulkan device.
        for (const auto& d : gpu_devices()) EXPECT_FALSE(d.usable) << d.name << " is usable but gpu is not registered";
        return;
    }
    // (and widths around the strip shader's 4 columns an invocation, 128 a workgroup, and the
    // blocked shader's 64 x 64 tiles and 16-deep K slices)
    const std::vector<Shape> shapes = {{1, 1, 1},     {3, 7, 5},    {16, 16, 16},  {17, 33, 15},  {7, 63, 65},
                                       {65, 64, 129}, {10, 5, 130}, {5, 9, 257},   {64, 17, 64},  {130, 31, 67},
                                       {129, 100, 191}};
    for (const char* gemm : {"tiled", "simple", "strip", "blocked"}) {
        const std::unique_ptr<Backend> be = gpu_with(gemm);
        SCOPED_TRACE(gemm);
        for (const Shape& s : shapes) check(*be, s);
    }
}

}  // namespace
