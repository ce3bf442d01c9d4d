// The backend-ops tests of the optimizer kernels (SGD, Adam, the fused update, sums of squares,
// scalar results collected at sync, guarded updates) on every backend against the single-threaded
// CPU (test_backend_ops.cpp says how these tests work).
#include "backend_ops_util.h"

namespace backend_ops_test {

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

}  // namespace backend_ops_test
