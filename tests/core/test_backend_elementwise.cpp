// The backend-ops tests of the element-wise kernels and the inputs' kernels (masks, positional
// tables, dropout masks, fill) on every backend against the single-threaded CPU
// (test_backend_ops.cpp says how these tests work).
#include "backend_ops_util.h"

namespace backend_ops_test {

// ---------------------------------------------------------------- element-wise


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

}  // namespace backend_ops_test
