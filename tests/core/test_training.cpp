// Training against PyTorch (30 optimizer steps, loss curve and final weights), the training
// loop's controls, divergence, and learning the two sentences.
#include <cstdio>
#include <thread>

#include "copy_backend.h"
#include "fixture_util.h"
#include "stepformer/checkpoint.h"
#include "stepformer/decode.h"
#include "stepformer/model_io.h"
#include "stepformer/train.h"
#include "temp_dir.h"

using namespace stepformer;

namespace {

std::vector<Example> fixture_examples(const std::string& c) {
    auto in = fixtures::inputs(c);
    std::vector<Example> ex;
    for (size_t i = 0; i < in.src.size(); ++i) ex.push_back({in.src[i], in.tgt[i], in.out[i]});
    return ex;
}

void check_against_torch(const std::string& losses_file, OptimizerOptions oo, const std::string& backend_name) {
    SCOPED_TRACE(losses_file + " on " + backend_name);
    const std::unique_ptr<Backend> backend = make_backend(backend_name);
    const auto ref = fixtures::read_json(losses_file);
    ModelSource src;
    src.config_path = fixtures::path("sgd.config.json");
    src.weights_path = fixtures::path("sgd.weights.safetensors");
    LoadedModel lm = load_model(src);
    Transformer model(lm.config, std::move(lm.params), backend.get());  // the Trainer steps on the model's backend
    ASSERT_EQ(model.backend().name(), backend_name);
    TrainOptions to;
    to.epochs = ref.at("steps").get<int>();
    to.batch_size = 1000;  // the whole file as one batch, as the reference did
    to.shuffle = false;
    to.optimizer = oo;
    Trainer trainer(model, fixture_examples("sgd"), to);
    std::vector<double> losses;
    auto r = trainer.run([&](const StepReport& s) { losses.push_back(s.loss); });
    ASSERT_EQ(r.status, TrainStatus::Finished);
    const auto want = ref.at("losses").get<std::vector<double>>();
    ASSERT_EQ(losses.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(losses[i], want[i], 1e-4 * std::abs(want[i])) << "step " << i + 1;
    // and the weights after the last step
    const auto final_file = losses_file.substr(0, losses_file.find('.')) + ".final.safetensors";
    const auto f = read_safetensors(fixtures::path(final_file));
    for (size_t i = 0; i < model.params().size(); ++i) {
        const auto* w = f.find(model.params().name(i));
        ASSERT_NE(w, nullptr) << model.params().name(i);
        EXPECT_TRUE(fixtures::close(w->name, model.params()[i], w->value, 1e-4));
    }
}

// The 30-step goldens on every registered backend (copy_backend.h); the parameter is its name.
class TrainingGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(TrainingGolden, ThirtySgdStepsMatchTorch) {
    OptimizerOptions o;
    o.kind = OptimizerKind::SGD;
    o.lr = 0.05;
    o.momentum = 0.99;
    check_against_torch("sgd.losses.json", o, GetParam());
}

TEST_P(TrainingGolden, ThirtyAdamStepsMatchTorch) {
    OptimizerOptions o;
    o.kind = OptimizerKind::Adam;
    o.lr = 1e-3;
    check_against_torch("adam.losses.json", o, GetParam());
}


// Seed 001's own training loop on its own model code (tests/reference/make_fixtures.py,
// tutorial_recipe_case), at d_model 128 (1 layer): SGD lr 1e-3 momentum 0.99, both sentences as one batch,
// 30 epochs, dropout 0, LayerNorm gamma = 1 / beta = 0 never trained. Every epoch's loss and
// the greedy translations after training.
// On every registered backend, as the 30-step goldens above.
TEST_P(TrainingGolden, TheTutorialsRecipeForThirtyEpochsMatchesTheTutorialProgram) {
    const std::unique_ptr<Backend> backend = make_backend(GetParam());
    const auto ref = fixtures::read_json("recipe.losses.json");
    ModelSource src;
    src.weights_path = fixtures::path(ref.at("init").get<std::string>());
    LoadedModel lm = load_model(src);
    ASSERT_FALSE(lm.config.learn_layer_norm);
    ASSERT_EQ(lm.config.dropout, 0.0);
    Transformer model(lm.config, std::move(lm.params), backend.get());
    TrainOptions to;
    to.epochs = ref.at("epochs").get<int>();
    to.batch_size = 2;
    to.shuffle = false;
    to.optimizer.kind = OptimizerKind::SGD;
    to.optimizer.lr = 1e-3;
    to.optimizer.momentum = 0.99;
    Trainer trainer(model, fixture_examples("recipe"), to);
    std::vector<double> losses;
    auto r = trainer.run([&](const StepReport& s) { losses.push_back(s.loss); });
    ASSERT_EQ(r.status, TrainStatus::Finished) << r.message;
    const auto want = ref.at("losses").get<std::vector<double>>();
    ASSERT_EQ(losses.size(), want.size());
    double worst = 0.0;
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_NEAR(losses[i], want[i], 1e-5 * std::abs(want[i])) << "epoch " << i + 1;
        worst = std::max(worst, std::abs(losses[i] - want[i]) / std::abs(want[i]));
    }
    char worst_text[32];
    std::snprintf(worst_text, sizeof worst_text, "%.3g", worst);
    RecordProperty("max_relative_loss_difference", worst_text);
    const auto in = fixtures::inputs("recipe");
    const auto translations = ref.at("translations").get<std::vector<std::string>>();
    ASSERT_EQ(translations.size(), in.src.size());
    for (size_t i = 0; i < in.src.size(); ++i)
        EXPECT_EQ(greedy_decode(model, in.src[i]).text, translations[i]) << in.src[i];
}

INSTANTIATE_TEST_SUITE_P(Backends, TrainingGolden, ::testing::ValuesIn(stepformer::testing::registered_backends()),
                         [](const auto& i) { return stepformer::testing::test_name(i.param); });

// Fixed LayerNorm leaves no trace in what training makes: no parameters, no gradients, no
// optimizer state, nothing in the checkpoint.
TEST(Training, FixedLayerNormIsNeitherTrainedNorSaved) {
    Config c = Config::small();
    ASSERT_FALSE(c.learn_layer_norm);
    Transformer model(c, init_params(c, 3));
    TrainOptions to;
    to.epochs = 2;
    to.optimizer.kind = OptimizerKind::Adam;
    Trainer trainer(model, builtin_examples(), to);
    ASSERT_EQ(trainer.run().status, TrainStatus::Finished);
    const testutil::TempDir dir;
    const std::string path = dir.file("fixed_norm.safetensors");
    save_checkpoint(path, model, &trainer.optimizer());
    const auto f = read_safetensors(path);
    int optim = 0;
    for (const auto& t : f.tensors) {
        EXPECT_EQ(t.name.find("layer_norm"), std::string::npos) << t.name;
        optim += t.name.rfind("optim.", 0) == 0;
    }
    EXPECT_GT(optim, 0);
    const Batch b = make_training_batch(c, builtin_examples(), {0, 1});
    Trace tr;
    model.forward(b, tr);
    model.loss(b, tr);
    ParamSet grads;
    model.backward(b, tr, grads, true);
    for (size_t i = 0; i < grads.size(); ++i) EXPECT_EQ(grads.name(i).find("layer_norm"), std::string::npos);
    for (const auto& e : tr.entries()) EXPECT_FALSE(e.name.starts_with("grad.") && e.name.find("layer_norm.") != std::string::npos);
}

TEST(Training, SmallModelLearnsBothSentencesAndTranslates) {
    Config c = Config::small();
    Transformer model(c, init_params(c, 7));
    TrainOptions to;
    to.epochs = 60;
    to.batch_size = 2;
    to.optimizer.kind = OptimizerKind::Adam;
    to.optimizer.lr = 5e-3;
    Trainer trainer(model, builtin_examples(), to);
    auto r = trainer.run();
    ASSERT_EQ(r.status, TrainStatus::Finished) << r.message;
    EXPECT_LT(r.last_loss, 0.05);
    EXPECT_EQ(greedy_decode(model, "ich mochte ein bier P").text, "i want a beer .");
    EXPECT_EQ(greedy_decode(model, "ich mochte ein cola P").text, "i want a coke .");
}

// On the CPU the updates are made in place, and the weights before a diverging step come back
// from a copy and a replay of the steps since (train_rollback.h): whether the copy is made every
// step, every few steps, or as the run's timing decides, the weights kept are the same, bit for
// bit, and the same as the second buffer's (the app's runs).
class Divergence : public ::testing::TestWithParam<int> {};

TEST_P(Divergence, StopsAndKeepsLastGoodWeights) {
    // Learned LayerNorm: its gamma can grow without bound. (With the tutorial's fixed LayerNorm
    // every layer's output has norm sqrt(d_model), and no learning rate up to 100 overflows.)
    Config c = Config::small();
    c.learn_layer_norm = true;
    // Absurd learning rates on purpose; between them the runs end both ways, at steps 5 to 22.
    struct Case { uint64_t init_seed; double lr; };
    int bad_losses = 0, bad_gradients = 0;
    for (const Case k : {Case{3, 100.0}, Case{1, 100.0}, Case{1, 1.0}, Case{2, 1.0}}) {
        SCOPED_TRACE("init seed " + std::to_string(k.init_seed) + ", lr " + std::to_string(k.lr));
        Transformer model(c, init_params(c, k.init_seed));
        TrainOptions to;
        to.epochs = 200;
        to.optimizer.kind = OptimizerKind::SGD;
        to.optimizer.lr = k.lr;
        to.optimizer.momentum = 0.99;
        if (GetParam() < 0)
            to.divergence_guard = TrainOptions::DivergenceGuard::SecondBuffer;
        else
            to.rollback_every_steps = GetParam();
        Trainer trainer(model, builtin_examples(), to);
        // Copies of the weights before and after the last completed step (both the initial weights
        // until a step completes).
        ParamSet before_last = model.params(), last = model.params();
        int reported = 0;
        auto r = trainer.run([&](const StepReport& s) {
            reported = s.step;
            before_last = std::move(last);
            last = model.params();
        });
        ASSERT_EQ(r.status, TrainStatus::Diverged) << r.message;
        EXPECT_NE(r.message.find("step"), std::string::npos);
        EXPECT_EQ(r.steps_done, reported);
        // The last good weights are the ones from before the step that diverged. A non-finite loss
        // at step N comes from the weights step N-1 made, so the weights from before step N-1 are
        // kept; a non-finite gradient at step N leaves the weights from before step N.
        const bool bad_loss = r.message.rfind("the loss", 0) == 0;
        ASSERT_TRUE(bad_loss || r.message.rfind("the gradient", 0) == 0) << r.message;
        ++(bad_loss ? bad_losses : bad_gradients);
        const ParamSet& good = bad_loss ? before_last : last;
        ASSERT_EQ(model.params().size(), good.size());
        for (size_t i = 0; i < good.size(); ++i) {
            const Tensor& got = model.params()[i];
            const Tensor& want = good[i];
            ASSERT_EQ(model.params().name(i), good.name(i));
            ASSERT_EQ(got.shape, want.shape) << good.name(i);
            for (size_t e = 0; e < want.data.size(); ++e)
                ASSERT_EQ(got.data[e], want.data[e]) << good.name(i) << "[" << e << "] (" << r.message << ")";
        }
        for (size_t i = 0; i < model.params().size(); ++i)
            for (float v : model.params()[i].data) ASSERT_TRUE(std::isfinite(v)) << model.params().name(i);
        // The kept weights still produce a finite loss.
        Trace t;
        Batch b = make_training_batch(c, builtin_examples(), {0, 1});
        model.forward(b, t);
        EXPECT_TRUE(std::isfinite(model.loss(b, t)));
    }
    EXPECT_GT(bad_losses, 0) << "the cases no longer cover a loss that is not finite";
    EXPECT_GT(bad_gradients, 0) << "the cases no longer cover a gradient that is not finite";
}

// -1: the second buffer instead (the app's runs).
INSTANTIATE_TEST_SUITE_P(RollbackEvery, Divergence, ::testing::Values(-1, 0, 1, 2, 3, 5), [](const auto& info) {
    return info.param < 0 ? std::string("second_buffer") : "every_" + std::to_string(info.param);
});

// A loss that is not finite at the very first step: nothing to go back one more step to, so the
// starting weights are kept (the CPU's run copies them before its first step, whatever its loss).
TEST(Training, ABadFirstLossKeepsTheStartingWeights) {
    Config c = Config::small();
    ParamSet start = init_params(c, 3);
    ASSERT_TRUE(start.contains("projection.weight"));
    for (float& w : start.at("projection.weight").data) w = std::copysign(3e38f, w);  // finite weights, logits beyond float
    Transformer model(c, start);
    TrainOptions to;
    to.epochs = 5;
    Trainer trainer(model, builtin_examples(), to);
    int reported = 0;
    const TrainResult r = trainer.run([&](const StepReport&) { ++reported; });
    ASSERT_EQ(r.status, TrainStatus::Diverged) << r.message;
    EXPECT_EQ(r.message.rfind("the loss", 0), 0u) << r.message;
    EXPECT_NE(r.message.find("step 1 "), std::string::npos) << r.message;
    EXPECT_EQ(r.steps_done, 0);
    EXPECT_EQ(reported, 0);
    for (size_t i = 0; i < start.size(); ++i) EXPECT_EQ(model.params()[i].data, start[i].data) << start.name(i);
}

TEST(Training, StopFromAnotherThreadBetweenSteps) {
    Config c = Config::small();
    Transformer model(c, init_params(c, 3));
    TrainOptions to;
    to.epochs = 100000;
    Trainer trainer(model, builtin_examples(), to);
    TrainControl control;
    int steps = 0;
    std::thread stopper;
    auto r = trainer.run(
        [&](const StepReport& s) {
            steps = s.step;
            if (s.step == 5) stopper = std::thread([&] { control.request_stop(); });
        },
        {}, &control);
    stopper.join();
    EXPECT_EQ(r.status, TrainStatus::Stopped);
    EXPECT_GE(steps, 5);
    EXPECT_LT(steps, 100000);
}

TEST(Training, PauseBlocksUntilResume) {
    Config c = Config::small();
    Transformer model(c, init_params(c, 3));
    TrainOptions to;
    to.epochs = 20;
    Trainer trainer(model, builtin_examples(), to);
    TrainControl control;
    control.pause();
    std::atomic<int> steps{0};
    std::thread worker([&] { trainer.run([&](const StepReport&) { ++steps; }, {}, &control); });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(steps.load(), 0);  // paused before the first step
    control.resume();
    worker.join();
    EXPECT_EQ(steps.load(), 20);
}

TEST(Training, InvalidOptionsAreRejected) {
    Config c = Config::small();
    Transformer model(c, init_params(c, 3));
    TrainOptions to;
    to.epochs = 0;
    EXPECT_THROW(Trainer(model, builtin_examples(), to), std::invalid_argument);
    to.epochs = 1;
    to.optimizer.lr = -1;
    EXPECT_THROW(Trainer(model, builtin_examples(), to), std::invalid_argument);
    to.optimizer.lr = 1e-3;
    std::vector<Example> bad{{"ich mochte ein wein P", "S i want a beer .", "i want a beer . E"}};
    try {
        Trainer(model, bad, to);
        FAIL() << "expected an error";
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("wein"), std::string::npos) << e.what();
    }
}

TEST(Training, ResumeFromCheckpointContinuesExactly) {
    // 10 steps straight == 5 steps, save with optimizer state, load, 5 more.
    Config c = Config::small();
    Transformer a(c, init_params(c, 11));
    TrainOptions to;
    to.epochs = 10;
    to.shuffle = false;
    to.optimizer.kind = OptimizerKind::Adam;
    to.optimizer.lr = 1e-3;
    Trainer ta(a, builtin_examples(), to);
    ta.run();

    Transformer b(c, init_params(c, 11));
    to.epochs = 5;
    Trainer tb(b, builtin_examples(), to);
    tb.run();
    const testutil::TempDir dir;
    const std::string path = dir.file("resume.safetensors");
    save_checkpoint(path, b, &tb.optimizer());
    Checkpoint ck = load_checkpoint(path, &c);
    ASSERT_TRUE(ck.optimizer_json.has_value());
    Transformer b2(ck.config, std::move(ck.params));
    Trainer tb2(b2, builtin_examples(), to);
    restore_optimizer(ck, tb2.optimizer());
    EXPECT_EQ(tb2.optimizer().step_count(), 5);
    tb2.run();
    for (size_t i = 0; i < a.params().size(); ++i)
        EXPECT_TRUE(fixtures::close(a.params().name(i), b2.params()[i], a.params()[i], 1e-6));
}

}  // namespace

// ----- memory: the optimizer's state on demand, and weights shared between models -----

namespace {

// A few Adam steps of the small model, by hand: its optimizer then has a state worth keeping.
struct SteppedAdam {
    Config c = Config::small();
    Transformer model{c, init_params(c, 5)};
    Optimizer opt{[] {
                      OptimizerOptions o;
                      o.kind = OptimizerKind::Adam;
                      o.lr = 5e-3;
                      return o;
                  }(),
                  model.params()};
    Batch batch = make_training_batch(c, builtin_examples(), {0, 1});
    void steps(int n) {
        for (int i = 0; i < n; ++i) {
            Trace t;
            ParamSet g;
            model.forward(batch, t);
            model.loss(batch, t);
            model.backward(batch, t, g, false);
            opt.step(model.params(), g, model.backend());
        }
    }
};

std::vector<std::vector<float>> state_values(const Optimizer& o) {
    std::vector<std::vector<float>> out;
    for (const auto& [name, t] : o.state_tensors()) out.push_back(t->data);
    return out;
}

}  // namespace

TEST(OptimizerState, AFreshOptimizersStateIsZeroWhenAskedFor) {
    const Config c = Config::small();
    const ParamSet p = init_params(c, 1);
    OptimizerOptions o;
    o.kind = OptimizerKind::Adam;
    const Optimizer opt(o, p);
    const auto state = opt.state_tensors();
    ASSERT_EQ(state.size(), 2 * p.size());
    for (size_t i = 0; i < p.size(); ++i) {
        EXPECT_EQ(state[2 * i].second->shape, p[i].shape) << state[2 * i].first;
        for (float v : state[2 * i].second->data) ASSERT_EQ(v, 0.0f) << state[2 * i].first;
        for (float v : state[2 * i + 1].second->data) ASSERT_EQ(v, 0.0f) << state[2 * i + 1].first;
    }
}

TEST(OptimizerState, ASpilledStateComesBackExactly) {
    SteppedAdam a, b;
    a.steps(3);
    b.steps(3);
    const auto before = state_values(a.opt);
    // The preview of the next update, before and after spilling.
    Trace t;
    ParamSet g;
    a.model.forward(a.batch, t);
    a.model.loss(a.batch, t);
    a.model.backward(a.batch, t, g, false);
    const Tensor preview = a.opt.preview_update(0, a.model.params()[0], g[0]);

    a.opt.spill_state();
    ASSERT_TRUE(a.opt.state_spilled()) << "std::tmpfile() failed?";
    const Tensor spilledPreview = a.opt.preview_update(0, a.model.params()[0], g[0]);
    EXPECT_EQ(spilledPreview.data, preview.data);
    a.opt.spill_state();
    EXPECT_EQ(state_values(a.opt), before);
    EXPECT_FALSE(a.opt.state_spilled());

    // Training goes on from a spilled state exactly as from one kept in memory.
    a.opt.spill_state();
    a.steps(2);
    b.steps(2);
    EXPECT_EQ(state_values(a.opt), state_values(b.opt));
    for (size_t i = 0; i < a.model.params().size(); ++i)
        ASSERT_EQ(a.model.params()[i].data, b.model.params()[i].data) << a.model.params().name(i);
}

TEST(TransformerSharedWeights, ASharingModelComputesTheSameAndCopiesOnlyToChange) {
    const Config c = Config::small();
    auto shared = std::make_shared<const ParamSet>(init_params(c, 9));
    const Transformer owner(c, *shared);
    Transformer sharer(c, shared);
    const Transformer& constSharer = sharer;
    EXPECT_EQ(&constSharer.params(), shared.get());  // no copy to read
    const Batch b = make_training_batch(c, builtin_examples(), {0, 1});
    Trace t1, t2;
    owner.forward(b, t1);
    sharer.forward(b, t2);
    EXPECT_EQ(owner.loss(b, t1), sharer.loss(b, t2));
    // Changing the weights detaches them: the shared ones stay as they were.
    const float was = (*shared)[0].data[0];
    sharer.params()[0].data[0] = was + 1.0f;
    EXPECT_NE(&constSharer.params(), shared.get());
    EXPECT_EQ((*shared)[0].data[0], was);
    EXPECT_EQ(constSharer.params()[0].data[0], was + 1.0f);
    EXPECT_THROW(Transformer(Config::tutorial(), shared), WeightsError);  // still checked against the config
}
