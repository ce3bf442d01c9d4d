// The GPU backend's counters (Backend::counters, stepformer-cli bench --counts): what a traced
// forward pass and a training step record, submit, copy and allocate, and the device time per
// kernel family from timestamp queries. On lavapipe here; the figures are the GPU plan's measure
// on machines without a GPU, so they must count what happens.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "stepformer/backend.h"
#include "stepformer/backend_counters.h"
#include "stepformer/dataset.h"
#include "stepformer/devices.h"
#include "stepformer/model.h"
#include "stepformer/optimizer.h"
#include "stepformer/step_counts.h"
#include "stepformer/train.h"

using namespace stepformer;

namespace {

bool have_gpu() {
    const auto names = available_backends();
    if (std::find(names.begin(), names.end(), "gpu") != names.end()) return true;
    // No "gpu" is right only where there is no usable Vulkan device.
    for (const auto& d : gpu_devices()) EXPECT_FALSE(d.usable) << d.name << " is usable but gpu is not registered";
    return false;
}

BackendCounters counted(Backend& be, const std::function<void()>& f) {
    be.sync();
    const BackendCounters before = *be.counters();
    f();
    be.sync();
    return be.counters()->since(before);
}

TEST(GpuCounters, TheCpuHasNone) {
    const auto cpu = make_cpu_backend(1);
    EXPECT_FALSE(cpu->counters().has_value());
    EXPECT_FALSE(cpu->set_profiling(true));
}

TEST(GpuCounters, SinceSubtractsEveryCount) {
    BackendCounters a, b;
    a.dispatches = 10, a.barriers = 12, a.submissions = 3, a.recordings = 3, a.replays = 7, a.uploads = 2, a.bytes_uploaded = 80;
    a.downloads = 1, a.bytes_downloaded = 4, a.allocations = 5, a.bytes_allocated = 500, a.timed_dispatches = 10;
    a.device_ms = {{"rows", 2.5}, {"gather", 1.0}};
    b.dispatches = 4, b.barriers = 5, b.submissions = 1, b.recordings = 1, b.uploads = 1, b.bytes_uploaded = 20;
    b.allocations = 5, b.bytes_allocated = 500, b.timed_dispatches = 4;
    b.device_ms = {{"rows", 0.5}, {"gather", 1.0}};
    const BackendCounters d = a.since(b);
    EXPECT_EQ(d.dispatches, 6u);
    EXPECT_EQ(d.barriers, 7u);
    EXPECT_EQ(d.submissions, 2u);
    EXPECT_EQ(d.recordings, 2u);
    EXPECT_EQ(d.replays, 7u);
    EXPECT_EQ(d.uploads, 1u);
    EXPECT_EQ(d.bytes_uploaded, 60u);
    EXPECT_EQ(d.downloads, 1u);
    EXPECT_EQ(d.bytes_downloaded, 4u);
    EXPECT_EQ(d.allocations, 0u);
    EXPECT_EQ(d.bytes_allocated, 0u);
    EXPECT_EQ(d.timed_dispatches, 6u);
    EXPECT_EQ(d.device_ms, (std::map<std::string, double>{{"rows", 2.0}}));  // a family with no new time is left out
}

TEST(GpuCounters, CountTheWorkOfAForwardPassAndATrainingStep) {
    if (!have_gpu()) return;
    const std::unique_ptr<Backend> be = make_backend("gpu", 1);
    ASSERT_TRUE(be->counters().has_value());
    const Config c = Config::small();
    Transformer model(c, init_params(c, 3), be.get());
    const Batch batch = make_training_batch(c, builtin_examples(c), {0, 1});
    Trace trace;
    ParamSet grads;
    Optimizer opt(OptimizerOptions{}, model.params());

    const auto step = [&] { train_step(model, batch, trace, grads, opt, nullptr, false); };
    const BackendCounters first = counted(*be, step);
    const BackendCounters later = counted(*be, step);
    model.forward(batch, trace);  // the first pass of a length makes its positional table
    const BackendCounters fwd = counted(*be, [&] { model.forward(batch, trace); });
    for (const BackendCounters* x : {&first, &later, &fwd}) {
        EXPECT_GT(x->dispatches, 20u);
        // Independent dispatches share a level: a barrier between levels, and one before the host
        // reads (before, one followed each dispatch).
        EXPECT_GE(x->barriers, x->submissions);
        EXPECT_LT(x->barriers, x->dispatches);
        EXPECT_GE(x->submissions, 1u);
        // Every submission is a command buffer recorded now or one recorded before.
        EXPECT_EQ(x->recordings + x->replays, x->submissions);
        EXPECT_EQ(x->timed_dispatches, 0u);  // profiling is off
        EXPECT_TRUE(x->device_ms.empty());
    }
    // A step's backward pass has more that is independent (a layer's weight and input gradients,
    // the updates): fewer than half as many barriers as dispatches.
    EXPECT_LE(2 * later.barriers, later.dispatches);
    // The step computes the forward pass and more.
    EXPECT_GT(later.dispatches, fwd.dispatches);
    // The first step allocates the step's buffers; a later one reuses them.
    EXPECT_GT(first.allocations, 0u);
    EXPECT_GT(first.bytes_allocated, 0u);
    EXPECT_LE(later.allocations, first.allocations);
    // The same step again: the same kernels, in command buffers recorded before.
    const BackendCounters third = counted(*be, step);
    EXPECT_EQ(third.dispatches, later.dispatches);
    EXPECT_EQ(third.barriers, later.barriers);
    EXPECT_EQ(third.recordings, 0u);
    EXPECT_EQ(third.replays, third.submissions);
}

// A Trainer's steps keep the weights and the optimizer state on the device: after the first,
// a step uploads its batch, reads back its scalars, allocates nothing and records nothing.
TEST(GpuCounters, ATrainersLaterStepsReplayWhatTheFirstRecorded) {
    if (!have_gpu()) return;
    const std::unique_ptr<Backend> be = make_backend("gpu", 1);
    const Config c = Config::small();
    Transformer model(c, init_params(c, 3), be.get());
    std::vector<Example> data;
    for (int i = 0; i < 3; ++i)
        for (const Example& e : builtin_examples(c)) data.push_back(e);
    const std::vector<BackendCounters> steps = trainer_step_counts(model, data, 2, 3);
    ASSERT_EQ(steps.size(), 3u);
    EXPECT_GT(steps[0].recordings, 0u);
    EXPECT_GT(steps[0].allocations, 0u);
    for (const BackendCounters* s : {&steps[1], &steps[2]}) {
        EXPECT_EQ(s->recordings, 0u);
        EXPECT_EQ(s->replays, s->submissions);
        EXPECT_EQ(s->submissions, 1u);
        EXPECT_EQ(s->allocations, 0u);
        EXPECT_EQ(s->dispatches, steps[1].dispatches);
        EXPECT_LE(2 * s->barriers, s->dispatches);
        // The batch's token ids (and the step's few constants), not the weights.
        EXPECT_LT(s->bytes_uploaded, 64u * 1024u);
        EXPECT_LT(s->bytes_downloaded, 64u * 1024u);
    }
    // The batch's token ids as words again.
    const Batch b = make_training_batch(c, data, {0, 1});
    const std::vector<Example> back = examples_of(c, b);
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[0].enc_input, data[0].enc_input);
    EXPECT_EQ(back[1].dec_input, data[1].dec_input);
    EXPECT_EQ(back[1].dec_output, data[1].dec_output);
}

TEST(GpuCounters, ProfilingTimesEveryDispatchPerKernelFamily) {
    if (!have_gpu()) return;
    const std::unique_ptr<Backend> be = make_backend("gpu", 1);
    const bool timestamps = be->set_profiling(true);
    if (be->describe().find("llvmpipe") != std::string::npos) {
        ASSERT_TRUE(timestamps);  // lavapipe has them
    }
    if (!timestamps) {
        // A device without timestamps still counts; it times nothing.
        EXPECT_TRUE(be->counters().has_value());
        return;
    }
    const Config c = Config::small();
    Transformer model(c, init_params(c, 3), be.get());
    const Batch batch = make_training_batch(c, builtin_examples(c), {0, 1});
    Trace trace;
    model.forward(batch, trace);  // the first pass of a length makes its positional table
    const BackendCounters fwd = counted(*be, [&] { model.forward(batch, trace); });
    EXPECT_EQ(fwd.timed_dispatches, fwd.dispatches);
    ASSERT_FALSE(fwd.device_ms.empty());
    double total = 0.0;
    for (const auto& [family, ms] : fwd.device_ms) {
        EXPECT_GE(ms, 0.0) << family;
        total += ms;
    }
    EXPECT_GT(total, 0.0);
    // The products run in one of the matrix shaders, softmax in its own.
    const bool products = fwd.device_ms.count("batched_matmul") || fwd.device_ms.count("batched_matmul_tiled") ||
                          fwd.device_ms.count("batched_matmul_strip");
    EXPECT_TRUE(products);
    // Off again: nothing more is timed.
    ASSERT_TRUE(be->set_profiling(false));
    const BackendCounters off = counted(*be, [&] { model.forward(batch, trace); });
    EXPECT_EQ(off.timed_dispatches, 0u);
    EXPECT_EQ(off.dispatches, fwd.dispatches);
}

}  // namespace
