// The model on "cpu-device" (copy_backend.h), the stand-in for a GPU: how often a pass waits for
// the device, and that a pass's device memory goes with its trace. The numbers themselves are
// the goldens' business (they run on every registered backend).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <vector>

#include "copy_backend.h"
#include "fixture_util.h"
#include "stepformer/dataset.h"
#include "stepformer/decode.h"
#include "stepformer/model_io.h"
#include "stepformer/optimizer.h"
#include "stepformer/train.h"

using namespace stepformer;
using stepformer::testing::device_live_bytes;
using stepformer::testing::device_sync_waits;
using stepformer::testing::reset_device_sync_waits;

namespace {

// The sgd fixture's model (config and weights) and its batch of every example.
struct SgdCase {
    LoadedModel lm;
    Batch batch;
};
SgdCase sgd_case() {
    ModelSource src;
    src.config_path = fixtures::path("sgd.config.json");
    src.weights_path = fixtures::path("sgd.weights.safetensors");
    SgdCase c{load_model(src), {}};
    const auto in = fixtures::inputs("sgd");
    c.batch = make_batch(c.lm.config, in.src, in.tgt, in.out);
    return c;
}

// The bytes of a trace's tensors and saved internals: what a pass brings back to the host.
size_t trace_bytes(const Trace& t) {
    size_t n = 0;
    for (const TraceEntry& e : t.entries()) n += e.value.data.size() * sizeof(float) + e.saved.bytes();
    return n;
}

struct DeviceModel {
    std::unique_ptr<Backend> be = stepformer::testing::make_device_backend(2);
    std::unique_ptr<Transformer> model;
    std::vector<Example> examples;
    Batch batch;

    DeviceModel() {
        ModelSource src;
        src.config_path = fixtures::path("sgd.config.json");
        src.weights_path = fixtures::path("sgd.weights.safetensors");
        LoadedModel lm = load_model(src);
        model = std::make_unique<Transformer>(lm.config, std::move(lm.params), be.get());
        const auto in = fixtures::inputs("sgd");
        for (size_t i = 0; i < in.src.size(); ++i) examples.push_back({in.src[i], in.tgt[i], in.out[i]});
        std::vector<size_t> all(examples.size());
        for (size_t i = 0; i < all.size(); ++i) all[i] = i;
        batch = make_training_batch(model->config(), examples, all);
        Trace warm;  // the positional tables (one wait per length, once per model)
        model->forward(batch, warm);
        reset_device_sync_waits(*be);
    }
};

TEST(DeviceModel, AForwardPassWaitsOnce) {
    DeviceModel d;
    Trace tr;
    d.model->forward(d.batch, tr);
    EXPECT_EQ(device_sync_waits(*d.be), 1u);
    // and its values are on the host: not the NaN of unwritten device memory
    for (const TraceEntry& e : tr.entries())
        for (float v : e.value.data) ASSERT_FALSE(std::isnan(v)) << e.name;
}

TEST(DeviceModel, ForwardAndLossWaitOnceTogether) {
    DeviceModel d;
    Trace tr;
    ForwardOptions fo;
    fo.finish = false;
    d.model->forward(d.batch, tr, fo);
    EXPECT_EQ(device_sync_waits(*d.be), 0u) << "the forward pass was asked not to wait";
    const float loss = d.model->loss(d.batch, tr);
    EXPECT_EQ(device_sync_waits(*d.be), 1u);
    EXPECT_TRUE(std::isfinite(loss));
    for (const TraceEntry& e : tr.entries())
        for (float v : e.value.data) ASSERT_FALSE(std::isnan(v)) << e.name << " did not come back with the loss";
}

TEST(DeviceModel, ATrainingStepWaitsOnce) {
    DeviceModel d;
    OptimizerOptions oo;
    oo.kind = OptimizerKind::Adam;
    oo.lr = 1e-3;
    Optimizer opt(oo, d.model->params());
    Trace tr;
    ParamSet grads;
    for (int step = 1; step <= 3; ++step) {
        reset_device_sync_waits(*d.be);
        const double loss = train_step(*d.model, d.batch, tr, grads, opt);
        EXPECT_EQ(device_sync_waits(*d.be), 1u) << "step " << step << ": forward, loss and backward together";
        EXPECT_TRUE(std::isfinite(loss));
    }
}

TEST(DeviceModel, TheTrainerWaitsOncePerStep) {
    DeviceModel d;
    TrainOptions to;
    to.epochs = 4;
    to.batch_size = 1000;  // one step per epoch
    to.shuffle = false;
    to.optimizer.kind = OptimizerKind::SGD;
    to.optimizer.lr = 0.05;
    to.optimizer.momentum = 0.9;
    Trainer trainer(*d.model, d.examples, to);
    reset_device_sync_waits(*d.be);
    const TrainResult r = trainer.run();
    ASSERT_EQ(r.status, TrainStatus::Finished) << r.message;
    EXPECT_EQ(r.steps_done, 4);
    // Once a step, and once before the first: the run's weights and optimizer state uploaded.
    EXPECT_EQ(device_sync_waits(*d.be), 5u);
}

// A run keeps the model where the backend computes: after the first step, a step uploads its
// batch and a few flags, nothing of the model's size, and downloads no weights or optimizer state
// (its trace and scalars only); run() brings the weights and state back at its end, equal to the
// CPU's run. A callback's forward pass on the model meanwhile computes with the device's weights.
TEST(DeviceModel, ATrainingRunKeepsTheModelOnTheDevice) {
    using stepformer::testing::device_bytes_downloaded;
    using stepformer::testing::device_bytes_uploaded;
    TrainOptions to;
    to.epochs = 6;
    to.batch_size = 1000;  // one step per epoch
    to.shuffle = false;
    to.optimizer.kind = OptimizerKind::Adam;
    to.optimizer.lr = 1e-3;
    DeviceModel d;
    const ParamSet init = d.model->params();
    const size_t weight_bytes = size_t(init.total_elements()) * sizeof(float);

    Transformer on_cpu(d.model->config(), init, &default_backend());
    Trainer cpu_trainer(on_cpu, d.examples, to);
    std::vector<std::vector<float>> cpu_logits;
    size_t probe_bytes = 0;  // what a probe's trace brings back
    auto probe = [&](const Transformer& m, std::vector<std::vector<float>>& out) {
        Trace t;
        m.forward(d.batch, t);
        out.push_back(t.at("projection.logits").value.data);
        probe_bytes = trace_bytes(t);
    };
    ASSERT_EQ(cpu_trainer.run([&](const StepReport&) { probe(on_cpu, cpu_logits); }).status, TrainStatus::Finished);

    Trainer trainer(*d.model, d.examples, to);
    std::vector<size_t> up, down;
    std::vector<std::vector<float>> dev_logits;
    const TrainResult r = trainer.run([&](const StepReport&) {
        up.push_back(device_bytes_uploaded(*d.be));
        down.push_back(device_bytes_downloaded(*d.be));
        probe(*d.model, dev_logits);  // the live views' pass: on the device's weights
    });
    ASSERT_EQ(r.status, TrainStatus::Finished) << r.message;
    ASSERT_EQ(up.size(), 6u);
    // Between two reports: one step and one probe pass. The step brings back nothing (its loss and
    // gradient norm are scalar results), the probe its trace.
    const size_t traces = probe_bytes + 64;
    for (size_t i = 2; i < up.size(); ++i) {
        EXPECT_LT(up[i] - up[i - 1], weight_bytes / 20) << "step " << i + 1 << " uploaded the model";
        EXPECT_LE(down[i] - down[i - 1], traces) << "step " << i + 1 << " brought the model back";
    }
    for (size_t i = 0; i < init.size(); ++i)
        EXPECT_TRUE(fixtures::close(init.name(i), d.model->params()[i], on_cpu.params()[i], 1e-6));
    ASSERT_EQ(dev_logits.size(), cpu_logits.size());
    for (size_t s = 0; s < cpu_logits.size(); ++s)
        for (size_t j = 0; j < cpu_logits[s].size(); ++j)
            ASSERT_NEAR(dev_logits[s][j], cpu_logits[s][j], 1e-5) << "step " << s + 1 << ", logit " << j;
    EXPECT_EQ(trainer.optimizer().step_count(), 6);
    EXPECT_EQ(d.model->resident(), nullptr) << "the run's residency ends with it";
}

// A device lost under a run: the run stops, saying so, with the weights and optimizer state the
// host last had (here those it started from: a short run brings nothing back before its end).
TEST(DeviceModel, ARunWhoseDeviceIsLostKeepsTheLastWeightsTheHostHas) {
    TrainOptions to;
    to.epochs = 8;
    to.batch_size = 1000;
    to.shuffle = false;
    to.optimizer.kind = OptimizerKind::SGD;
    to.optimizer.lr = 0.05;
    to.optimizer.momentum = 0.9;
    DeviceModel d;
    const ParamSet init = d.model->params();
    Trainer trainer(*d.model, d.examples, to);
    stepformer::testing::lose_device_after(*d.be, 4);  // the third step's wait (the first is the uploads')
    const TrainResult r = trainer.run();
    EXPECT_EQ(r.status, TrainStatus::Stopped);
    EXPECT_TRUE(r.device_lost);
    EXPECT_EQ(r.steps_done, 0);
    EXPECT_NE(r.message.find("the device stopped working at step 3"), std::string::npos) << r.message;
    for (size_t i = 0; i < init.size(); ++i) EXPECT_EQ(d.model->params()[i].data, init[i].data) << init.name(i);
    EXPECT_EQ(trainer.optimizer().step_count(), 0);
    EXPECT_EQ(d.model->resident(), nullptr);
}

// Lost while the run's weights go to the device, before the first step: the same, at step 1.
TEST(DeviceModel, ADeviceLostBeforeTheFirstStepStopsTheRunThere) {
    TrainOptions to;
    to.epochs = 2;
    to.batch_size = 1000;
    to.shuffle = false;
    DeviceModel d;
    const ParamSet init = d.model->params();
    Trainer trainer(*d.model, d.examples, to);
    stepformer::testing::lose_device_after(*d.be, 1);
    const TrainResult r = trainer.run();
    EXPECT_EQ(r.status, TrainStatus::Stopped);
    EXPECT_TRUE(r.device_lost);
    EXPECT_EQ(r.steps_done, 0);
    EXPECT_NE(r.message.find("the device stopped working at step 1"), std::string::npos) << r.message;
    for (size_t i = 0; i < init.size(); ++i) EXPECT_EQ(d.model->params()[i].data, init[i].data) << init.name(i);
    EXPECT_EQ(d.model->resident(), nullptr);
}

// The Trainer learns of a bad loss at the end of the step, after the backward pass has run; the
// updates, guarded on the device (WeightUpdate::apply_if), must have changed nothing, so it keeps
// the same weights as on the CPU, where the flag is there at once.
TEST(DeviceModel, ADivergingRunKeepsTheSameWeightsAsOnTheCpu) {
    Config c = Config::small();
    c.learn_layer_norm = true;  // gamma can grow without bound
    const ParamSet init = init_params(c, 3);
    TrainOptions to;
    to.epochs = 200;
    to.optimizer.kind = OptimizerKind::SGD;
    to.optimizer.lr = 100.0;  // absurd on purpose
    to.optimizer.momentum = 0.99;
    auto run = [&](Backend* be, TrainResult& r) {
        Transformer model(c, init, be);
        Trainer trainer(model, builtin_examples(), to);
        r = trainer.run();
        return model.params();
    };
    const std::unique_ptr<Backend> dev = stepformer::testing::make_device_backend(2), cpu = make_cpu_backend(2);
    TrainResult on_dev, on_cpu;
    const ParamSet w_dev = run(dev.get(), on_dev), w_cpu = run(cpu.get(), on_cpu);
    ASSERT_EQ(on_cpu.status, TrainStatus::Diverged) << on_cpu.message;
    EXPECT_EQ(on_dev.status, on_cpu.status);
    EXPECT_EQ(on_dev.message, on_cpu.message);
    EXPECT_EQ(on_dev.steps_done, on_cpu.steps_done);
    for (size_t i = 0; i < w_cpu.size(); ++i)
        EXPECT_TRUE(fixtures::close(w_cpu.name(i), w_dev[i], w_cpu[i], 1e-5)) << on_cpu.message;
}

TEST(DeviceModel, APassesDeviceMemoryGoesWithItsTrace) {
    DeviceModel d;
    const size_t before = device_live_bytes(*d.be);
    Trace tr;
    ParamSet grads;
    d.model->forward(d.batch, tr);
    d.model->loss(d.batch, tr);
    d.model->backward(d.batch, tr, grads);
    const size_t during = device_live_bytes(*d.be);
    EXPECT_GT(during, before) << "the trace keeps its tensors in the backend's memory for the backward pass";
    tr.clear();
    EXPECT_EQ(device_live_bytes(*d.be), before);
}

TEST(DeviceModel, RepeatedPassesDoNotGrowDeviceMemory) {
    DeviceModel d;
    Trace tr;
    d.model->forward(d.batch, tr);
    const size_t first = device_live_bytes(*d.be);
    for (int i = 0; i < 200; ++i) d.model->forward(d.batch, tr);
    EXPECT_EQ(device_live_bytes(*d.be), first);
}

}  // namespace

// Every backend with memory of its own (cpu-device, and gpu where there is a device): a pass's
// memory goes with its trace and model, and 1000 passes do not grow it.
class OwnMemory : public ::testing::TestWithParam<std::string> {};

TEST_P(OwnMemory, AThousandPassesDoNotGrowItAndAModelChangeGivesItAllBack) {
    const std::unique_ptr<Backend> be = make_backend(GetParam(), 2);
    ASSERT_FALSE(be->host_memory());
    const size_t before = be->memory_in_use();
    {
        ModelSource src;
        src.config_path = fixtures::path("sgd.config.json");
        src.weights_path = fixtures::path("sgd.weights.safetensors");
        LoadedModel lm = load_model(src);
        Transformer model(lm.config, std::move(lm.params), be.get());
        const auto in = fixtures::inputs("sgd");
        const Batch batch = make_batch(model.config(), in.src, in.tgt, in.out);
        Trace tr;
        model.forward(batch, tr);
        const size_t first = be->memory_in_use();
        EXPECT_GT(first, before);
        for (int i = 1; i < 1000; ++i) model.forward(batch, tr);
        EXPECT_EQ(be->memory_in_use(), first) << "after 1000 forward passes";
        ParamSet grads;
        model.loss(batch, tr);
        model.backward(batch, tr, grads);
    }
    be->sync();
    EXPECT_LE(be->memory_in_use(), before + 4096 * sizeof(float)) << "only the backend's own scalar slots may stay";
}

// Shared weights (the app's: they must not change while shared) are uploaded once and kept
// where the backend computes, for every pass; weights a model owns (training's) are not.
TEST_P(OwnMemory, SharedWeightsStayWhereTheBackendComputesOwnedOnesDoNot) {
    const std::unique_ptr<Backend> be = make_backend(GetParam(), 2);
    const auto [lm, batch] = sgd_case();
    const auto shared = std::make_shared<const ParamSet>(lm.params);
    const size_t weights = size_t(shared->total_elements()) * sizeof(float);
    const size_t before = be->memory_in_use();
    std::map<std::string, std::vector<float>> want;  // the owned model's numbers, on the host
    {
        Transformer owned(lm.config, lm.params, be.get());
        Trace tr;
        owned.forward(batch, tr);
        tr.clear();
        EXPECT_LT(be->memory_in_use(), before + weights) << "owned weights go with the pass";
        owned.forward(batch, tr);
        for (const TraceEntry& e : tr.entries()) want[e.name] = e.value.data;
    }
    {
        Transformer viewer(lm.config, shared, be.get());
        Trace tr;
        viewer.forward(batch, tr);
        tr.clear();
        EXPECT_GE(be->memory_in_use(), before + weights) << "shared weights stay for the next pass";
        for (int i = 0; i < 3; ++i) viewer.forward(batch, tr);
        for (const auto& [name, values] : want)
            EXPECT_EQ(tr.at(name).value.data, values) << name << ": the same numbers either way";
        // A copy of its weights (copy on write) leaves the shared ones and their resident copy.
        viewer.params();
        Trace again;
        viewer.forward(batch, again);
        EXPECT_EQ(again.at("projection.logits").value.data, want.at("projection.logits"));
        again.clear();
        tr.clear();
        EXPECT_LT(be->memory_in_use(), before + weights);
    }
    be->sync();
    EXPECT_LE(be->memory_in_use(), before + 4096 * sizeof(float));
}

// A trace kept for viewing holds nothing on the device once its staging is released, and a
// greedy decoding's kept steps never do: the app keeps both, on screen, for as long as it likes.
TEST_P(OwnMemory, TracesKeptForViewingHoldNoDeviceMemory) {
    const std::unique_ptr<Backend> be = make_backend(GetParam(), 2);
    const auto [lm, batch] = sgd_case();
    const auto in = fixtures::inputs("sgd");
    const auto shared = std::make_shared<const ParamSet>(lm.params);
    const Transformer viewer(lm.config, shared, be.get());
    {  // a whole pass first: the backend makes its own buffers (a GPU's scalar slots) once
        Trace warm;
        viewer.forward(batch, warm);
        viewer.loss(batch, warm);
        ParamSet g;
        viewer.backward(batch, warm, g);
    }
    be->sync();
    const size_t resident = be->memory_in_use();  // the weights, uploaded once, and the backend's own

    Trace tr;
    viewer.forward(batch, tr);
    viewer.loss(batch, tr);
    ParamSet grads;
    viewer.backward(batch, tr, grads);
    EXPECT_GT(be->memory_in_use(), resident) << "the pass's tensors and gradients are on the device";
    const std::vector<float> logits = tr.at("projection.logits").value.data;
    tr.release_staging();
    be->sync();
    EXPECT_EQ(be->memory_in_use(), resident);
    EXPECT_EQ(tr.at("projection.logits").value.data, logits) << "the host values stay";

    const DecodeResult d = greedy_decode(viewer, in.src.front(), /*keep_steps=*/true);
    ASSERT_FALSE(d.steps.empty());
    be->sync();
    EXPECT_EQ(be->memory_in_use(), resident) << d.steps.size() << " decoding steps kept";
}

std::vector<std::string> own_memory_backends() {
    std::vector<std::string> out;
    for (const std::string& n : stepformer::testing::registered_backends())
        if (!make_backend(n, 1)->host_memory()) out.push_back(n);
    return out;
}

INSTANTIATE_TEST_SUITE_P(Backends, OwnMemory, ::testing::ValuesIn(own_memory_backends()),
                         [](const auto& i) { return stepformer::testing::test_name(i.param); });
