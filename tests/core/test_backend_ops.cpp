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
//
// This file: the matrix products, embeddings, heads and attention, the instantiation over the
// backends, and the check that every kernel of backend.h is covered. Beside it:
// test_backend_rows.cpp (softmax, LayerNorm, cross-entropy, and the GPU's two ways to reduce a
// row), test_backend_elementwise.cpp (element-wise kernels, masks, tables, dropout, fill),
// test_backend_optimizer.cpp (the optimizer kernels and their guards), test_backend_memory.cpp
// (counters, copies, threads, memory, staging, a whole training step).
#include <fstream>
#include <regex>
#include <set>

#include "backend_ops_util.h"

namespace backend_ops_test {

// ---------------------------------------------------------------- linear

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

INSTANTIATE_TEST_SUITE_P(Backends, BackendOps, ::testing::ValuesIn(stepformer::testing::registered_backends()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                             return stepformer::testing::test_name(i.param);
                         });

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
                        k == "download" || k == "download_many" || k == "memory_in_use" || k == "trim" || k == "counters" || k == "set_profiling" ||
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

}  // namespace backend_ops_test
