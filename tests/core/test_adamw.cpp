// AdamW as torch.optim.AdamW (PyTorch 1.13) computes it, with nanoGPT's decay groups: the
// fixture tests/fixtures/optim/adamw.* (tests/reference/make_adamw_fixture.py: five steps on a
// [5, 7] weight that decays and a [7] bias that does not) replayed through Optimizer::step, through
// the fused linear_backward_update and on every backend; its hyperparameters, names, decay groups
// and preview; its state through a checkpoint. The other backends against the CPU: BackendOps (AdamW cases of
// ApplyUpdate, LinearBackwardUpdate, UpdatesGuardedByAFlag, TrainingWithDropoutMatchesTheCpu);
// the CLI's --optimizer adamw and --weight-decay: test_adamw_cli.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "fixture_util.h"
#include "stepformer/checkpoint.h"
#include "stepformer/message.h"
#include "stepformer/model.h"
#include "stepformer/optimizer.h"
#include "stepformer/safetensors.h"
#include "temp_dir.h"

using namespace stepformer;

namespace {

struct Fixture {
    SafetensorsFile file;
    nlohmann::json meta;
    const Tensor& at(const std::string& name) const {
        const StoredTensor* t = file.find(name);
        if (!t) throw std::runtime_error("fixture lacks " + name);
        return t->value;
    }
};
const Fixture& fixture() {
    static const Fixture f{read_safetensors(fixtures::path("optim/adamw.safetensors")),
                           fixtures::read_json("optim/adamw.json")};
    return f;
}
int fixture_steps() { return fixture().meta.at("steps").get<int>(); }

// The fixture's optimizer: AdamW's defaults (nanoGPT's betas, eps 1e-8, weight decay 0.1) at lr 1e-2.
OptimizerOptions fixture_options() {
    OptimizerOptions o = optimizer_defaults(OptimizerKind::AdamW);
    const auto& opt = fixture().meta.at("optimizer");
    EXPECT_EQ(opt.at("betas")[0].get<double>(), o.beta1);
    EXPECT_EQ(opt.at("betas")[1].get<double>(), o.beta2);
    EXPECT_EQ(opt.at("eps").get<double>(), o.eps);
    EXPECT_EQ(opt.at("weight_decay").get<double>(), o.weight_decay);
    o.lr = opt.at("lr").get<double>();
    return o;
}

// Zero-filled parameters of these names and shapes.
ParamSet zero_params(const std::vector<std::pair<std::string, Shape>>& shapes) {
    std::vector<ParamSpec> specs;
    for (const auto& [name, shape] : shapes) {
        ParamSpec s;
        s.name = name;
        s.shape = shape;
        s.init = ParamSpec::Init::Zeros;
        specs.push_back(s);
    }
    return ParamSet(specs);
}

// The fixture's two tensors named <name><suffix>: ".init", ".<step>"; or its gradients at a step.
ParamSet fixture_params(const std::string& prefix, const std::string& suffix) {
    ParamSet p = zero_params({{"weight", {5, 7}}, {"bias", {7}}});
    for (const char* n : {"weight", "bias"}) p.at(n) = fixture().at(prefix + n + suffix);
    return p;
}
ParamSet fixture_init() { return fixture_params("", ".init"); }
ParamSet fixture_grads(int step) { return fixture_params("grad." + std::to_string(step) + ".", ""); }

// max |got - want| <= 1e-6 (the requirement), and counts the numbers whose bits differ (the CPU
// computes in torch's rounding: none should).
::testing::AssertionResult matches(const std::string& what, const Tensor& got, const Tensor& want, int* differing) {
    if (got.shape != want.shape)
        return ::testing::AssertionFailure() << what << ": shape " << shape_to_string(got.shape) << " vs "
                                             << shape_to_string(want.shape);
    double worst = 0.0;
    for (size_t i = 0; i < got.data.size(); ++i) {
        const double d = std::abs(double(got.data[i]) - double(want.data[i]));
        if (!(d <= worst)) worst = std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
        if (std::memcmp(&got.data[i], &want.data[i], sizeof(float)) != 0) ++*differing;
    }
    if (worst <= 1e-6) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << what << ": max |got - torch| " << worst << " > 1e-6";
}

void expect_params_match(const ParamSet& p, int step, int* differing) {
    for (const char* n : {"weight", "bias"})
        EXPECT_TRUE(matches(n, p.at(n), fixture().at(std::string(n) + "." + std::to_string(step)), differing))
            << "after step " << step;
}

void expect_state_matches(const Optimizer& opt, int* differing) {
    const auto state = opt.state_tensors();
    ASSERT_EQ(state.size(), 4u);  // exp_avg and exp_avg_sq of both
    for (const auto& [name, t] : state) {
        ASSERT_EQ(name.rfind("optim.", 0), 0u) << name;
        EXPECT_TRUE(matches(name, *t, fixture().at("state." + name.substr(6)), differing));
    }
}

}  // namespace

TEST(AdamW, OptimizerStepReplaysTorch) {
    auto be = make_cpu_backend(3);
    ParamSet params = fixture_init();
    Optimizer opt(fixture_options(), params);
    int differing = 0;
    for (int s = 1; s <= fixture_steps(); ++s) {
        opt.step(params, fixture_grads(s), *be);
        expect_params_match(params, s, &differing);
    }
    EXPECT_EQ(opt.step_count(), fixture_steps());
    expect_state_matches(opt, &differing);
    EXPECT_EQ(differing, 0) << "numbers that are not bit for bit torch's";

    // Only the weight decays: without weight decay the bias comes out the same, the weight not.
    OptimizerOptions no_decay = fixture_options();
    no_decay.weight_decay = 0.0;
    ParamSet q = fixture_init();
    Optimizer plain(no_decay, q);
    for (int s = 1; s <= fixture_steps(); ++s) plain.step(q, fixture_grads(s), *be);
    EXPECT_EQ(q.at("bias").data, params.at("bias").data);
    EXPECT_NE(q.at("weight").data, params.at("weight").data);
}

// Every backend this build has (the GPU's shader on lavapipe here) within 1e-6 of torch: a GPU
// need not round its division and square root as the CPU does, so bits are not asked for.
TEST(AdamW, EveryBackendReplaysTorchWithin1e6) {
    for (const std::string& name : available_backends()) {
        SCOPED_TRACE("backend " + name);
        auto be = make_backend(name, 2);
        ParamSet params = fixture_init();
        Optimizer opt(fixture_options(), params);
        int differing = 0;
        for (int s = 1; s <= fixture_steps(); ++s) {
            opt.step(params, fixture_grads(s), *be);
            expect_params_match(params, s, &differing);
        }
        expect_state_matches(opt, &differing);
    }
}

// The weight through linear_backward_update (the bias through apply_update), as
// Transformer::backward's updater runs them. x is the identity (with zero rows added), so
// dW = dy^T x is the fixture's gradient exactly: dy's first 7 rows are its transpose.
// N = 7 is the CPU's streaming regime, N = 60 its GEMM one (N > 48 tokens).
TEST(AdamW, FusedLinearUpdateReplaysTorch) {
    auto be = make_cpu_backend(3);
    const int I = 7, O = 5;
    for (int N : {7, 60}) {
        SCOPED_TRACE("N = " + std::to_string(N));
        ParamSet params = fixture_init();
        Optimizer opt(fixture_options(), params);
        std::mt19937 rng(5);
        std::normal_distribution<float> normal;
        std::vector<float> x(size_t(N) * I, 0.0f), dy(size_t(N) * O), dx(size_t(N) * I), dW(size_t(O) * I);
        for (int i = 0; i < I; ++i) x[size_t(i) * I + size_t(i)] = 1.0f;
        int differing = 0;
        for (int s = 1; s <= fixture_steps(); ++s) {
            const ParamSet g = fixture_grads(s);
            for (float& v : dy) v = normal(rng);  // rows past I meet zero rows of x: no part of dW
            for (int n = 0; n < I; ++n)
                for (int o = 0; o < O; ++o)
                    dy[size_t(n) * O + size_t(o)] = g.at("weight").data[size_t(o) * I + size_t(n)];
            opt.begin_step();
            double sum_squares = 0.0;
            be->linear_backward_update(dx.data(), dW.data(), &sum_squares, dy.data(), x.data(),
                                       params.at("weight").ptr(), N, I, O, false, opt.weight_update(0));
            opt.update(1, params.at("bias"), g.at("bias"), *be);
            be->sync();
            EXPECT_EQ(dW, g.at("weight").data) << "the gradient is the fixture's exactly";
            expect_params_match(params, s, &differing);
        }
        expect_state_matches(opt, &differing);
        EXPECT_EQ(differing, 0) << "numbers that are not bit for bit torch's";
    }
}

TEST(AdamW, DefaultsNamesAndValidation) {
    const OptimizerOptions w = optimizer_defaults(OptimizerKind::AdamW);
    EXPECT_EQ(w.kind, OptimizerKind::AdamW);
    EXPECT_EQ(w.beta1, 0.9);
    EXPECT_EQ(w.beta2, 0.95);
    EXPECT_EQ(w.eps, 1e-8);
    EXPECT_EQ(w.weight_decay, 0.1);
    const OptimizerOptions a = optimizer_defaults(OptimizerKind::Adam);  // the paper's, unchanged
    EXPECT_EQ(a.kind, OptimizerKind::Adam);
    EXPECT_EQ(a.beta2, 0.98);
    EXPECT_EQ(a.eps, 1e-9);
    EXPECT_EQ(optimizer_defaults(OptimizerKind::SGD).kind, OptimizerKind::SGD);

    EXPECT_EQ(optimizer_from_name("adamw"), OptimizerKind::AdamW);
    EXPECT_EQ(optimizer_from_name("AdamW"), OptimizerKind::AdamW);
    EXPECT_EQ(optimizer_name(OptimizerKind::AdamW), "adamw");
    EXPECT_EQ(optimizer_from_name(optimizer_name(OptimizerKind::Adam)), OptimizerKind::Adam);
    EXPECT_THROW(optimizer_from_name("adam_w"), std::invalid_argument);

    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (auto [lr, wd] : std::vector<std::pair<double, double>>{{1e-3, -0.1}, {1e-3, nan}, {1e-3, inf}, {0.5, 2.0}}) {
        OptimizerOptions o = w;
        o.lr = lr;
        o.weight_decay = wd;
        try {
            o.validate();
            ADD_FAILURE() << "lr " << lr << ", weight decay " << wd << " accepted";
        } catch (const InvalidArgument& e) {
            EXPECT_EQ(e.message().code(), "optimizer.weight_decay") << e.what();
            EXPECT_NE(std::string(e.what()).find("weight decay"), std::string::npos) << e.what();
        }
    }
    OptimizerOptions ok = w;
    ok.weight_decay = 0.0;
    EXPECT_NO_THROW(ok.validate());
    ok.lr = 0.5;
    ok.weight_decay = 1.99;  // lr * weight_decay just below 1
    EXPECT_NO_THROW(ok.validate());
    // SGD and Adam ignore the weight decay, so it limits neither their lr nor anything else.
    for (OptimizerKind k : {OptimizerKind::SGD, OptimizerKind::Adam}) {
        OptimizerOptions other = optimizer_defaults(k);
        other.lr = 100.0;
        EXPECT_NO_THROW(other.validate()) << optimizer_name(k);
    }
}

// nanoGPT's configure_optimizers: every parameter of 2 or more dimensions decays, the rest not;
// only AdamW decays at all.
TEST(AdamW, DecayGoesToParametersOfTwoOrMoreDimensions) {
    const ParamSet p = zero_params({{"matrix", {4, 3}}, {"bias", {3}}, {"cube", {2, 3, 4}}, {"scalar", {1}}});
    OptimizerOptions o = optimizer_defaults(OptimizerKind::AdamW);
    o.weight_decay = 0.25;
    Optimizer opt(o, p);
    opt.begin_step();
    const std::vector<double> want = {0.25, 0.0, 0.25, 0.0};
    for (size_t i = 0; i < p.size(); ++i) {
        const WeightUpdate u = opt.weight_update(i);
        EXPECT_EQ(u.kind, WeightUpdate::Kind::AdamW);
        EXPECT_EQ(u.weight_decay, want[i]) << p.name(i);
        EXPECT_NE(u.buf2, nullptr) << p.name(i);
        EXPECT_EQ(u.beta2, 0.95);
        EXPECT_EQ(u.step, 1);
    }
    OptimizerOptions adam = optimizer_defaults(OptimizerKind::Adam);
    adam.weight_decay = 0.25;  // ignored: Adam has no decoupled decay
    Optimizer opt_adam(adam, p);
    opt_adam.begin_step();
    for (size_t i = 0; i < p.size(); ++i) {
        EXPECT_EQ(opt_adam.weight_update(i).kind, WeightUpdate::Kind::Adam);
        EXPECT_EQ(opt_adam.weight_update(i).weight_decay, 0.0) << p.name(i);
    }
}

// preview_update is what the next step adds, computed by the same kernel on copies of the state.
TEST(AdamW, PreviewIsTheNextStep) {
    auto be = make_cpu_backend(1);
    ParamSet params = fixture_init();
    Optimizer opt(fixture_options(), params);
    for (int s = 1; s <= 3; ++s) {
        const ParamSet g = fixture_grads(s);
        std::vector<Tensor> previews;
        for (size_t i = 0; i < params.size(); ++i) previews.push_back(opt.preview_update(i, params[i], g[i], *be));
        const ParamSet before = params;
        opt.step(params, g, *be);
        for (size_t i = 0; i < params.size(); ++i) {
            Tensor delta = params[i];
            for (size_t k = 0; k < delta.data.size(); ++k) delta.data[k] -= before[i].data[k];
            EXPECT_EQ(previews[i].data, delta.data) << params.name(i) << " at step " << s;
        }
    }
}

// The state through a checkpoint (spilled to its temporary file first, as the app keeps it):
// the file records kind adamw and the weight decay; a restored optimizer continues exactly.
TEST(AdamW, CheckpointRoundTrip) {
    testutil::TempDir dir;
    const std::string path = dir.file("ck.safetensors");
    Config c = Config::small();
    c.learn_layer_norm = true;  // LayerNorm gamma/beta: parameters that do not decay
    Transformer model(c, init_params(c, 3));
    OptimizerOptions o = optimizer_defaults(OptimizerKind::AdamW);
    o.lr = 1e-2;
    o.weight_decay = 0.05;
    Optimizer opt(o, model.params());
    std::mt19937 rng(7);
    std::normal_distribution<float> normal;
    auto random_grads = [&] {
        ParamSet g = model.params();
        for (size_t i = 0; i < g.size(); ++i)
            for (float& v : g[i].data) v = normal(rng);
        return g;
    };
    for (int s = 0; s < 3; ++s) opt.step(model.params(), random_grads(), model.backend());
    opt.spill_state();
    ASSERT_TRUE(opt.state_spilled());
    save_checkpoint(path, model, &opt);

    const Checkpoint ck = load_checkpoint(path, &c);
    ASSERT_TRUE(ck.optimizer_json.has_value());
    const auto j = nlohmann::json::parse(*ck.optimizer_json);
    EXPECT_EQ(j.at("kind"), "adamw");
    EXPECT_EQ(j.at("weight_decay").get<double>(), 0.05);
    EXPECT_EQ(j.at("beta2").get<double>(), 0.95);
    EXPECT_EQ(saved_weight_decay(*ck.optimizer_json), 0.05);
    Optimizer restored(o, ck.params);
    restore_optimizer(ck, restored);
    EXPECT_EQ(restored.step_count(), 3);
    const auto a = opt.state_tensors(), b = restored.state_tensors();
    ASSERT_EQ(a.size(), 2 * model.params().size());
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].first, b[i].first);
        EXPECT_EQ(a[i].second->data, b[i].second->data) << a[i].first;
    }
    // One more step on each: the same numbers.
    ParamSet resumed = ck.params;
    const ParamSet g = random_grads();
    opt.step(model.params(), g, model.backend());
    restored.step(resumed, g, model.backend());
    for (size_t i = 0; i < resumed.size(); ++i) EXPECT_EQ(resumed[i].data, model.params()[i].data) << resumed.name(i);
}

// A state JSON without weight_decay (written before AdamW existed, or by SGD/Adam) still loads;
// a bad one is an error naming the field.
TEST(AdamW, StateWithoutOrWithABadWeightDecay) {
    const ParamSet p = fixture_init();
    Optimizer source(fixture_options(), p);
    std::map<std::string, const Tensor*> tensors;
    for (const auto& [name, t] : source.state_tensors()) tensors.emplace(name, t);
    auto j = nlohmann::json::parse(source.state_json());
    ASSERT_TRUE(j.contains("weight_decay"));
    j["step"] = 2;
    j.erase("weight_decay");
    Optimizer target(fixture_options(), p);
    EXPECT_EQ(saved_weight_decay(j.dump()), std::nullopt);
    target.load_state(j.dump(), tensors);
    EXPECT_EQ(target.step_count(), 2);
    EXPECT_EQ(target.options().weight_decay, 0.1) << "the optimizer's own, not changed by the state";

    for (const char* bad : {"-1", "\"0.1\"", "null"}) {
        j["weight_decay"] = nlohmann::json::parse(bad);
        try {
            target.load_state(j.dump(), tensors);
            ADD_FAILURE() << "weight_decay " << bad << " accepted";
        } catch (const Error& e) {
            EXPECT_EQ(e.message().code(), "optimizer_state.weight_decay") << e.what();
        }
    }
    // SGD and Adam write no weight_decay (they ignore it).
    OptimizerOptions adam = optimizer_defaults(OptimizerKind::Adam);
    EXPECT_FALSE(nlohmann::json::parse(Optimizer(adam, p).state_json()).contains("weight_decay"));
}
