// The backend-ops tests of what is not arithmetic: counters and profiling, copies, two threads on
// one backend, memory (alloc, release, upload, download, trim), staging, and a whole training
// step with dropout, on every backend against the single-threaded CPU (test_backend_ops.cpp says
// how these tests work).
#include "backend_ops_util.h"

namespace backend_ops_test {

// ---------------------------------------------------------------- memory

// The memory section, by hand: what Staging is built on.
// Several ranges with one wait: each arrives as download() of it would bring it, after the kernels
// queued before (one of them writes a range being brought back), whatever its size (0, not a
// multiple of 4, large); a range that is not the backend's memory is refused.
TEST_P(BackendOps, DownloadMany) {
    TRACE("download_many", "ranges of 0, 3, 4, 65, 4097 floats' bytes and 7 bytes, after a kernel");
    const std::vector<size_t> sizes = {0, 3 * 4, 4, 65 * 4, 4097 * 4, 7};
    std::vector<std::vector<unsigned char>> src, back;
    std::vector<void*> dev;
    for (size_t i = 0; i < sizes.size(); ++i) {
        std::vector<unsigned char> v(sizes[i]);
        std::mt19937 g(static_cast<uint32_t>(90 + i));
        for (auto& c : v) c = static_cast<unsigned char>(g());
        src.push_back(v);
        back.emplace_back(sizes[i], 0xee);
        dev.push_back(be->alloc(std::max<size_t>(sizes[i], 1)));
        be->upload(dev.back(), v.data(), sizes[i]);
    }
    // A kernel queued before the download writes range 3 (65 floats): what comes back is its output.
    const Vec a = rnd(65, 95), b = rnd(65, 96);
    void* da = be->alloc(65 * 4);
    void* db = be->alloc(65 * 4);
    be->upload(da, a.data(), 65 * 4);
    be->upload(db, b.data(), 65 * 4);
    be->add_forward(static_cast<float*>(dev[3]), static_cast<const float*>(da), static_cast<const float*>(db), 65);
    Vec sum(65);
    ref->add_forward(sum.data(), a.data(), b.data(), 65);
    std::memcpy(src[3].data(), sum.data(), 65 * 4);

    std::vector<DownloadRange> ranges;
    for (size_t i = 0; i < sizes.size(); ++i) ranges.push_back(DownloadRange{back[i].data(), dev[i], sizes[i]});
    be->download_many(ranges);
    for (size_t i = 0; i < sizes.size(); ++i) EXPECT_EQ(back[i], src[i]) << "range " << i << " (" << sizes[i] << " bytes)";
    be->download_many({});  // nothing: fine

    if (!be->host_memory()) {
        // A range that is not the backend's memory: refused.
        std::vector<unsigned char> host(16, 1), first(16, 0xee);
        const std::vector<DownloadRange> bad = {{first.data(), dev[4], 16}, {back[1].data(), host.data(), 16}};
        EXPECT_ANY_THROW(be->download_many(bad));
    }
    if (auto c = be->counters()) {
        const auto before = *c;
        be->download_many(ranges);
        const auto after = *be->counters();
        EXPECT_EQ(after.downloads - before.downloads, sizes.size() - 1) << "one download a non-empty range";
        EXPECT_LE(after.submissions - before.submissions, 1u) << "one submission for them all";
    }
    for (void* d : dev) be->release(d);
    be->release(da);
    be->release(db);
}

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

// backend.h: a backend with a queue keeps one per thread, so that one thread's sync() runs its own
// kernels, not another's. A scalar result shows when its kernel ran: at once on a backend that
// computes as it is called, at the caller's sync() on one that queues.
TEST_P(BackendOps, EachThreadsSyncRunsItsOwnKernels) {
    TRACE("sync", "a kernel queued by this thread, another thread's kernel and sync");
    const Vec v = {1, 2, 3};
    auto* x = static_cast<float*>(be->alloc(v.size() * sizeof(float)));
    be->upload(x, v.data(), v.size() * sizeof(float));
    be->sync();
    double mine = 0.0, theirs = 0.0;
    be->sum_squares(&mine, x, 3);
    const double mine_before = mine;  // 14 if it ran at once, 0 if it is queued
    std::thread([&] {
        be->sum_squares(&theirs, x, 3);
        be->sync();
    }).join();
    EXPECT_EQ(theirs, 14.0);
    EXPECT_EQ(mine, mine_before) << "another thread's sync() ran this thread's kernel";
    be->sync();
    EXPECT_EQ(mine, 14.0);
    be->release(x);
}

TEST_P(BackendOps, NameAndDescription) {
    EXPECT_EQ(be->name(), GetParam());
    EXPECT_FALSE(be->describe().empty());
}

}  // namespace backend_ops_test
