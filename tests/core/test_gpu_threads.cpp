// The GPU backend's queues, one per thread (backend.h: "a backend with a queue keeps one per
// thread"; BackendOps.EachThreadsSyncRunsItsOwnKernels checks that on every backend): a thread
// queues while another waits for the device, threads computing together get what each gets alone, memory one
// thread releases waits for the kernels another queued, and threads that come and go (a training
// run each) reuse idle queues rather than adding one each. On lavapipe here.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "backend_ops_util.h"
#include "stepformer/backend.h"
#include "stepformer/backend_counters.h"
#include "stepformer/dataset.h"
#include "stepformer/devices.h"
#include "stepformer/model.h"
#include "stepformer/optimizer.h"
#include "stepformer/train.h"

using namespace stepformer;

namespace {

bool have_gpu() {
    const auto names = available_backends();
    return std::find(names.begin(), names.end(), "gpu") != names.end();
}

using backend_ops_test::rnd;
using backend_ops_test::Vec;

float* put(Backend& be, const Vec& v) {
    auto* p = static_cast<float*>(be.alloc(v.size() * sizeof(float)));
    be.upload(p, v.data(), v.size() * sizeof(float));
    return p;
}

Vec get(Backend& be, const float* p, size_t n) {
    Vec v(n);
    be.download(v.data(), p, n * sizeof(float));
    return v;
}

// Chained products (each reads the one before) sized to take ~0.3 s alone on this device: one
// submission, one wait, long enough for another thread to act meanwhile.
struct LongWork {
    Backend& be;
    static constexpr int n = 512;
    float* w = put(be, rnd(size_t(n) * n, 1));
    float* a = put(be, rnd(size_t(n) * n, 2));
    float* b = put(be, Vec(size_t(n) * n));
    int products = 1;

    explicit LongWork(Backend& backend) : be(backend) {
        for (;;) {
            const auto t0 = std::chrono::steady_clock::now();
            run();
            if (std::chrono::steady_clock::now() - t0 > std::chrono::milliseconds(300) || products >= 65536) break;
            products *= 2;
        }
    }
    ~LongWork() {
        for (float* p : {w, a, b}) be.release(p);
    }
    void run() {
        for (int i = 0; i < products; ++i) be.linear_forward(i % 2 ? a : b, i % 2 ? b : a, w, n, n, n);
        be.sync();
    }
    // Runs it on another thread, returning once that thread waits for the device; `done` is set
    // when it has.
    std::thread start(std::atomic<bool>& done) {
        const uint64_t submitted = be.counters()->submissions;
        std::thread t([this, &done] {
            run();
            done = true;
        });
        while (be.counters()->submissions == submitted) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return t;
    }
};

// Starts `work` on another thread and, once that thread waits for the device, fills z with
// `value` here: the fill must not wait for the other thread's work. Then z holds `value`.
void fill_while_another_waits(Backend& be, LongWork& work, float* z, float value, const char* waited) {
    std::atomic<bool> done{false};
    std::thread other = work.start(done);
    be.fill(z, 64, value);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(done) << waited << " (" << work.products << " products)";
    be.sync();
    other.join();
    EXPECT_EQ(get(be, z, 64), Vec(64, value));
}

// While one thread waits for a long product on the device, another queues a kernel: the queueing
// does not wait for the first thread's work (with one queue for every thread it did, the lock
// being held through the wait).
TEST(GpuThreads, AThreadQueuesWhileAnotherWaitsForTheDevice) {
    if (!have_gpu()) return;
    const auto be = make_backend("gpu", 1);
    float* z = put(*be, Vec(64));
    be->sync();
    LongWork work(*be);
    fill_while_another_waits(*be, work, z, 1.0f, "queueing a kernel waited for another thread's products");
    be->release(z);
}

// Once four threads have queues, a new thread takes the idle one taken longest ago — here this
// thread's. This thread's next kernel then goes to another queue at once: it does not wait for
// the new owner's long flush to find out that the queue is no longer its own.
TEST(GpuThreads, AThreadWhoseIdleQueuePassedOnDoesNotWaitForItsNewOwner) {
    if (!have_gpu()) return;
    const auto be = make_backend("gpu", 1);
    float* z = put(*be, Vec(64));
    be->sync();  // this thread's queue, the first
    LongWork work(*be);
    for (int i = 0; i < 3; ++i) std::thread([&] { be->sync(); be->fill(z, 64, 0.0f); be->sync(); }).join();
    // the fifth thread takes this thread's idle queue
    fill_while_another_waits(*be, work, z, 2.0f, "a kernel waited for the flush of the thread that took this thread's queue");
    be->release(z);
}

// Two training runs on one backend, at once, each from its own thread: the same weights as each
// run alone, bit for bit.
TEST(GpuThreads, ThreadsTogetherComputeWhatEachComputesAlone) {
    if (!have_gpu()) return;
    const auto be = make_backend("gpu", 1);
    const Config c = Config::small();
    const std::vector<Example> data = builtin_examples(c);
    const auto run = [&](uint64_t seed) {
        Transformer model(c, init_params(c, seed), be.get());
        const Batch batch = make_training_batch(c, data, {0, 1});
        Trace trace;
        ParamSet grads;
        Optimizer opt(OptimizerOptions{}, model.params());
        for (int i = 0; i < 4; ++i) train_step(model, batch, trace, grads, opt, nullptr, false);
        return std::move(model.params());
    };
    const ParamSet alone1 = run(11), alone2 = run(12);
    ParamSet together1, together2;
    std::thread t1([&] { together1 = run(11); });
    std::thread t2([&] { together2 = run(12); });
    t1.join();
    t2.join();
    const auto same = [](const ParamSet& x, const ParamSet& y) {
        if (x.size() != y.size()) return false;
        for (size_t i = 0; i < x.size(); ++i) {
            const Tensor& a = x[i];
            const Tensor& b = y[i];
            if (x.name(i) != y.name(i) || a.size() != b.size() ||
                std::memcmp(a.ptr(), b.ptr(), size_t(a.size()) * sizeof(float)) != 0)
                return false;
        }
        return true;
    };
    EXPECT_FALSE(same(alone1, alone2));  // the two runs differ: the comparison below could fail
    EXPECT_TRUE(same(together1, alone1));
    EXPECT_TRUE(same(together2, alone2));
}

// Memory that one thread releases while another thread's queued kernel reads it is not lent out
// again before that kernel has run.
TEST(GpuThreads, MemoryReleasedByAnotherThreadWaitsForTheKernelsThatUseIt) {
    if (!have_gpu()) return;
    const auto be = make_backend("gpu", 1);
    const Vec xs = rnd(1000, 3);
    float* x = put(*be, xs);
    float* y = put(*be, Vec(1000));
    be->sync();
    be->scale(y, x, 1000, 2.0f);  // queued here, reads x
    std::thread([&] {
        be->release(x);
        float* other = put(*be, Vec(1000, 7.0f));
        EXPECT_NE(other, x) << "x's memory was lent out again while a kernel queued to read it had not run";
        be->sync();
        be->release(other);
    }).join();
    const Vec got = get(*be, y, 1000);
    for (size_t i = 0; i < xs.size(); ++i) ASSERT_EQ(got[i], 2.0f * xs[i]) << i;
    be->release(y);
}

// Twenty threads one after another (as training runs come and go) leave at most a few queues
// behind: a queue's own buffers are device allocations (the counters count them), and after
// the first few threads, each takes an idle queue and allocates nothing.
TEST(GpuThreads, ThreadsThatComeAndGoReuseIdleQueues) {
    if (!have_gpu()) return;
    const auto be = make_backend("gpu", 1);
    float* x = put(*be, {1, 2});
    be->sync();
    const auto one_thread = [&] {
        double s = 0.0;
        be->sum_squares(&s, x, 2);
        be->sync();
        EXPECT_EQ(s, 5.0);
    };
    const BackendCounters before = *be->counters();
    std::thread(one_thread).join();
    const uint64_t one_queue = be->counters()->since(before).allocations;
    EXPECT_GT(one_queue, 0u) << "a new thread's queue";
    for (int i = 0; i < 19; ++i) std::thread(one_thread).join();
    EXPECT_LE(be->counters()->since(before).allocations, 4 * one_queue);
    be->release(x);
}

}  // namespace
