// "architecture": "aiayn" (attention-is-all-you-need-pytorch, seed 003) against PyTorch 1.13
// (tests/fixtures/aiayn/, made by tests/reference/make_aiayn_fixtures.py from a faithful copy of
// that model): every trace tensor and gradient with the weight sharings on and off and each
// scale_emb_or_prj, the float64-made positional table, the padding row's gradient and 30 steps of
// its training recipe, on every registered backend.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "copy_backend.h"
#include "fixture_util.h"
#include "stepformer/model_io.h"
#include "stepformer/params.h"
#include "temp_dir.h"
#include "stepformer/safetensors.h"
#include "stepformer/trace_names.h"
#include "stepformer/train.h"

using namespace stepformer;

namespace {

constexpr double kTol = 1e-4;

std::string aiayn_path(const std::string& c, const std::string& kind) { return fixtures::path("aiayn/" + c + "." + kind); }

const Tensor& get(const SafetensorsFile& f, const std::string& name) {
    const StoredTensor* t = f.find(name);
    if (!t) throw std::runtime_error("fixture has no tensor " + name);
    return t->value;
}

Batch batch_of(const Config& c, const std::string& case_name) {
    const auto in = fixtures::inputs("aiayn/" + case_name);
    return make_batch(c, in.src, in.tgt, in.out);
}

class AiaynCase : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(AiaynCase, EveryTraceTensorAndGradientIsPyTorchs) {
    const auto& [case_name, backend_name] = GetParam();
    const std::unique_ptr<Backend> backend = make_backend(backend_name);
    LoadedWeights lw = load_weights(aiayn_path(case_name, "weights.safetensors"), nullptr);
    const Config c = lw.config;
    ASSERT_TRUE(c.aiayn());
    EXPECT_TRUE(lw.warnings.empty()) << lw.warnings.front().text();  // its pos_table is the float64 one we make
    const SafetensorsFile want = read_safetensors(aiayn_path(case_name, "trace.safetensors"));
    const SafetensorsFile grads = read_safetensors(aiayn_path(case_name, "grads.safetensors"));
    Transformer model(c, std::move(lw.params), backend.get());
    const Batch batch = batch_of(c, case_name);
    Trace tr;
    model.forward(batch, tr);
    const float loss = model.loss(batch, tr);

    const auto order = nlohmann::json::parse(want.metadata.at("stepformer.order")).get<std::vector<std::string>>();
    std::vector<std::string> ours;
    for (const TraceEntry& e : tr.entries())
        if (e.role != Role::PositionalTable) ours.push_back(e.name);
    EXPECT_EQ(ours, order);
    for (const std::string& name : order) {
        const TraceEntry* e = tr.find(name);
        ASSERT_NE(e, nullptr) << name;
        EXPECT_TRUE(fixtures::close_nonfinite(name, e->value, get(want, name), kTol));
    }
    EXPECT_NEAR(loss, get(grads, "loss").data[0], kTol * std::abs(get(grads, "loss").data[0]));

    ParamSet g;
    model.backward(batch, tr, g);
    int params = 0, traced = 0;
    for (const StoredTensor& t : grads.tensors) {
        if (!names::is_grad(t.name)) continue;
        const std::string base = names::forward_name(t.name);
        const std::string own = canonical_param(c, base);
        if (g.contains(own)) {  // a shared weight's gradient under each of its names: the sum of every use
            EXPECT_TRUE(fixtures::close(t.name, g.at(own), t.value, kTol));
            ++params;
            continue;
        }
        const TraceEntry* e = tr.find(t.name);
        ASSERT_NE(e, nullptr) << t.name;
        EXPECT_TRUE(fixtures::close_nonfinite(t.name, e->value, t.value, kTol));
        ++traced;
    }
    EXPECT_EQ(params, int(g.size() + param_aliases(c).size()));
    int with_gradient = 0;  // every intermediate but the masks, the tables, the probabilities and the loss
    for (const TraceEntry& e : tr.entries())
        with_gradient += e.role != Role::Gradient && !e.is_mask && e.role != Role::PositionalTable &&
                         e.role != Role::Probs && e.role != Role::Loss && e.role != Role::LossPerToken;
    EXPECT_EQ(traced, with_gradient);
}

INSTANTIATE_TEST_SUITE_P(Cases, AiaynCase,
                         ::testing::Combine(::testing::Values("shared_prj", "shared_emb", "unshared_none", "prj_only_shared"),
                                            ::testing::ValuesIn(stepformer::testing::registered_backends())),
                         [](const auto& i) {
                             return std::get<0>(i.param) + "_" + stepformer::testing::test_name(std::get<1>(i.param));
                         });

// The sinusoid table made in float64 and stored as float32 is the project's bit for bit, and it
// is not the tutorial's float32 table (which differs in the last bits).
TEST(Aiayn, PositionalTableIsTheFloat64OneBitForBit) {
    const SafetensorsFile f = read_safetensors(fixtures::path("aiayn/pos_table.safetensors"));
    const Tensor ours = positional_table_float64(200, 8);
    EXPECT_EQ(ours.data, get(f, "aiayn.200x8").data);
    EXPECT_NE(positional_table(200, 8).data, ours.data);  // the float32 table differs in the last bits
    const Tensor big = positional_table_float64(200, 512);
    const Tensor& rows = get(f, "rows.200x512");
    const Tensor& want = get(f, "aiayn.200x512.rows");
    for (int64_t r = 0; r < rows.size(); ++r)
        for (int j = 0; j < 512; ++j)
            EXPECT_EQ(big.data[size_t(rows.data[size_t(r)]) * 512 + j], want.data[size_t(r) * 512 + j]) << r << "," << j;
}

// padding_idx: the pad row of an embedding gets no gradient from the embedding (a projection that
// shares the table still sends it one).
TEST(Aiayn, ThePadRowGetsNoGradientFromItsEmbedding) {
    LoadedWeights lw = load_weights(aiayn_path("unshared_none", "weights.safetensors"), nullptr);
    const Config c = lw.config;
    Transformer model(c, std::move(lw.params));
    const Batch batch = batch_of(c, "unshared_none");
    Trace tr;
    model.forward(batch, tr);
    model.loss(batch, tr);
    ParamSet g;
    model.backward(batch, tr, g);
    for (const char* table : {"encoder.src_word_emb.weight", "decoder.trg_word_emb.weight"}) {
        const Tensor& t = g.at(table);
        for (int d = 0; d < c.d_model; ++d) EXPECT_EQ(t.data[size_t(d)], 0.0f) << table << " pad row, column " << d;
        double other = 0.0;
        for (int d = 0; d < c.d_model; ++d) other += std::abs(t.data[size_t(c.d_model + d)]);
        EXPECT_GT(other, 0.0) << table << ": row 1 is a word and gets a gradient";
    }
}

// A shared weight is saved under every name, as state_dict() writes it, and opens again; a file
// whose names of one shared weight hold different values is not this model, and says so.
TEST(Aiayn, SharedWeightsAreSavedUnderEveryNameAndChecked) {
    LoadedWeights lw = load_weights(aiayn_path("shared_prj", "weights.safetensors"), nullptr);
    const Config c = lw.config;
    ASSERT_EQ(param_aliases(c).size(), 2u);
    EXPECT_FALSE(lw.params.contains("trg_word_prj.weight"));
    testutil::TempDir dir;
    const std::string path = dir.file("saved.safetensors");
    save_weights(path, c, lw.params);
    const SafetensorsFile f = read_safetensors(path);
    for (const auto& [alias, own] : param_aliases(c)) EXPECT_EQ(get(f, alias).data, get(f, own).data) << alias;
    EXPECT_NO_THROW(load_weights(path, nullptr));
    SafetensorsFile changed = read_safetensors(path);
    std::vector<TensorToWrite> tensors;
    for (StoredTensor& t : changed.tensors) {
        if (t.name == "trg_word_prj.weight") t.value.data[3] += 1.0f;
        tensors.push_back({t.name, &t.value});
    }
    const std::string bad = dir.file("untied.safetensors");
    write_safetensors(bad, tensors, changed.metadata);
    try {
        load_weights(bad, nullptr);
        FAIL() << "untied values opened as a tied model";
    } catch (const WeightsError& e) {
        EXPECT_NE(std::string(e.what()).find("'trg_word_prj.weight' is 'decoder.trg_word_emb.weight'"), std::string::npos)
            << e.what();
    }
}

class AiaynTraining : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

// Its recipe: Adam(β 0.9/0.98, ε 1e-9) under ScheduledOptim (lr_mul · d_model^−0.5 ·
// min(n^−0.5, n · warmup^−1.5)), cal_loss with label smoothing, the whole batch, 30 steps.
TEST_P(AiaynTraining, ThirtyStepsOfItsRecipeMatchPyTorch) {
    const auto& [run, backend_name] = GetParam();
    const std::unique_ptr<Backend> backend = make_backend(backend_name);
    const auto ref = fixtures::read_json("aiayn/" + run + ".losses.json");
    const std::string init = ref.at("init").get<std::string>();
    const std::string case_name = init.substr(0, init.find('.'));
    LoadedWeights lw = load_weights(fixtures::path("aiayn/" + init), nullptr);
    Transformer model(lw.config, std::move(lw.params), backend.get());
    const auto in = fixtures::inputs("aiayn/" + case_name);
    std::vector<Example> ex;
    for (size_t i = 0; i < in.src.size(); ++i) ex.push_back({in.src[i], in.tgt[i], in.out[i]});
    const auto& sched = ref.at("optimizer").at("schedule");
    TrainOptions to;
    to.epochs = ref.at("steps").get<int>();
    to.batch_size = 1000;
    to.shuffle = false;
    to.optimizer.kind = OptimizerKind::Adam;
    to.optimizer.lr = sched.at("lr_mul").get<double>();
    to.optimizer.beta1 = 0.9;
    to.optimizer.beta2 = 0.98;
    to.optimizer.eps = 1e-9;
    to.optimizer.warmup_schedule = true;
    to.optimizer.warmup_steps = sched.at("n_warmup_steps").get<int>();
    Trainer trainer(model, ex, to);
    std::vector<double> losses;
    const auto r = trainer.run([&](const StepReport& s) { losses.push_back(s.loss); });
    ASSERT_EQ(r.status, TrainStatus::Finished) << r.message;
    const auto want = ref.at("losses").get<std::vector<double>>();
    ASSERT_EQ(losses.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(losses[i], want[i], kTol * std::abs(want[i])) << "step " << i + 1;
    // The weights after 30 steps, within 1e-4 absolute: Adam at these learning rates turns rounding
    // into steps (the reference's own float32 and float64 runs end 2.6e-5 apart; ours 8.7e-5).
    const double spread = std::max(1e-4, 3.0 * ref.at("float32_vs_float64_final_weights_max_abs_dev").get<double>());
    const SafetensorsFile f = read_safetensors(fixtures::path("aiayn/" + run + ".final.safetensors"));
    for (size_t i = 0; i < model.params().size(); ++i) {
        const std::string& name = model.params().name(i);
        const Tensor& w = get(f, name);
        double worst = 0.0;
        for (size_t k = 0; k < w.data.size(); ++k)
            worst = std::max(worst, double(std::abs(model.params()[i].data[k] - w.data[k])));
        EXPECT_LE(worst, spread) << name;
    }
}

INSTANTIATE_TEST_SUITE_P(Runs, AiaynTraining,
                         ::testing::Combine(::testing::Values("aiayn_train", "aiayn_train_shared"),
                                            ::testing::ValuesIn(stepformer::testing::registered_backends())),
                         [](const auto& i) {
                             return std::get<0>(i.param) + "_" + stepformer::testing::test_name(std::get<1>(i.param));
                         });

}  // namespace
