// "architecture": "gpt" (nanoGPT's model.py on PyTorch 1.13) against the fixtures of
// tests/reference/make_gpt_fixtures.py: every trace tensor and gradient with biases and without,
// one layer and three, uneven sentences padded at the end; the tied lm_head; the causal-mask
// buffers older PyTorch saves; its configuration's named errors. On every registered backend.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "copy_backend.h"
#include "error_helpers.h"
#include "fixture_util.h"
#include "stepformer/model_io.h"
#include "stepformer/params.h"
#include "stepformer/safetensors.h"
#include "stepformer/trace_names.h"
#include "temp_dir.h"

using namespace stepformer;

namespace {

constexpr double kTol = 1e-4;

template <typename E, typename F>
void expect_error(F&& fn, std::initializer_list<std::string> parts) {
    EXPECT_TRUE(errortest::mentions(errortest::error_of<E>(std::forward<F>(fn)), parts));
}

std::string gpt_path(const std::string& name) { return fixtures::path("gpt/" + name); }

const Tensor& get(const SafetensorsFile& f, const std::string& name) {
    const StoredTensor* t = f.find(name);
    if (!t) throw std::runtime_error("fixture has no tensor " + name);
    return t->value;
}

Config gpt_config(const std::string& case_name) { return load_config_file(gpt_path(case_name + ".config.json")); }

// The fixture's rows: inputs tokens[:-1], targets tokens[1:], padded at the end.
Batch batch_of(const Config& c, const std::string& inputs_file) {
    const auto in = fixtures::read_json("gpt/" + inputs_file);
    return make_batch(c, {}, in.at("inputs").get<std::vector<std::string>>(), in.at("targets").get<std::vector<std::string>>());
}

class GptCase : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(GptCase, EveryTraceTensorAndGradientIsPyTorchs) {
    const auto& [case_name, backend_name] = GetParam();
    const std::unique_ptr<Backend> backend = make_backend(backend_name);
    const Config c = gpt_config(case_name);
    LoadedWeights lw = load_weights(gpt_path(case_name + ".weights.safetensors"), &c);
    EXPECT_TRUE(lw.warnings.empty());
    const SafetensorsFile want = read_safetensors(gpt_path(case_name + ".trace.safetensors"));
    const SafetensorsFile grads = read_safetensors(gpt_path(case_name + ".grads.safetensors"));
    Transformer model(c, std::move(lw.params), backend.get());
    const Batch batch = batch_of(c, case_name + ".inputs.json");
    ASSERT_EQ(batch.T, get(want, "transformer.wte.out").dim(1));  // padded to the longest row
    Trace tr;
    model.forward(batch, tr);
    const float loss = model.loss(batch, tr);

    const auto order = nlohmann::json::parse(want.metadata.at("stepformer.order")).get<std::vector<std::string>>();
    std::vector<std::string> ours;
    for (const TraceEntry& e : tr.entries())
        if (!e.is_mask) ours.push_back(e.name);  // the causal-mask buffers are ours to show; PyTorch keeps them
    EXPECT_EQ(ours, order);
    for (const std::string& name : order) {
        const TraceEntry* e = tr.find(name);
        ASSERT_NE(e, nullptr) << name;
        EXPECT_TRUE(fixtures::close_nonfinite(name, e->value, get(want, name), kTol));
    }
    EXPECT_NEAR(loss, get(grads, "loss").data[0], kTol * std::abs(get(grads, "loss").data[0]));
    for (int i = 0; i < c.n_layers; ++i) {  // bias[:T, :T]: 1 on and below the diagonal
        const TraceEntry& m = tr.at("transformer.h." + std::to_string(i) + ".attn.bias");
        for (int q = 0; q < batch.T; ++q)
            for (int k = 0; k < batch.T; ++k) EXPECT_EQ(m.value.data[size_t(q) * batch.T + k], k <= q ? 1.0f : 0.0f);
    }

    ParamSet g;
    model.backward(batch, tr, g);
    int params = 0, traced = 0;
    for (const StoredTensor& t : grads.tensors) {
        if (!names::is_grad(t.name)) continue;
        const std::string own = canonical_param(c, names::forward_name(t.name));
        if (g.contains(own)) {  // the tied weight's under both names: the sum over the embedding and lm_head
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
    int with_gradient = 0;  // every intermediate but the masks, the probabilities and the loss
    for (const TraceEntry& e : tr.entries())
        with_gradient += e.role != Role::Gradient && !e.is_mask && e.role != Role::Probs && e.role != Role::Loss &&
                         e.role != Role::LossPerToken;
    EXPECT_EQ(traced, with_gradient);
}

INSTANTIATE_TEST_SUITE_P(Cases, GptCase,
                         ::testing::Combine(::testing::Values("bias_1layer", "nobias_3layer"),
                                            ::testing::ValuesIn(stepformer::testing::registered_backends())),
                         [](const auto& i) {
                             return std::get<0>(i.param) + "_" + stepformer::testing::test_name(std::get<1>(i.param));
                         });

// nanoGPT's state_dict: lm_head.weight beside transformer.wte.weight, the same values; no biases
// with bias=False; its parameters initialised as _init_weights does.
TEST(Gpt, TheTiedWeightIsOneParameterSavedUnderBothNames) {
    const Config c = gpt_config("nobias_3layer");
    const ParamSet p = init_params(c, 7);
    EXPECT_TRUE(p.contains("transformer.wte.weight"));
    EXPECT_FALSE(p.contains("lm_head.weight"));
    EXPECT_EQ(canonical_param(c, "lm_head.weight"), "transformer.wte.weight");
    for (size_t i = 0; i < p.size(); ++i) EXPECT_EQ(p.name(i).find(".bias"), std::string::npos) << p.name(i);
    testutil::TempDir dir;
    const std::string path = dir.file("gpt.safetensors");
    save_weights(path, c, p);
    const SafetensorsFile f = read_safetensors(path);
    EXPECT_EQ(get(f, "lm_head.weight").data, get(f, "transformer.wte.weight").data);
    const LoadedWeights back = load_weights(path, nullptr);
    EXPECT_EQ(back.config.architecture, Architecture::Gpt);
    EXPECT_EQ(back.params.at("transformer.wte.weight").data, p.at("transformer.wte.weight").data);
}

TEST(Gpt, InitialisationIsNanoGptsStandardDeviations) {
    Config c = gpt_config("bias_1layer");
    c.d_model = 64, c.d_k = c.d_v = 32, c.d_ff = 256, c.n_layers = 4;
    const ParamSet p = init_params(c, 3);
    const auto stddev = [&](const std::string& name) {
        const Tensor& t = p.at(name);
        double s = 0.0;
        for (float v : t.data) s += double(v) * v;
        return std::sqrt(s / double(t.size()));
    };
    EXPECT_NEAR(stddev("transformer.wte.weight"), 0.02, 0.004);
    EXPECT_NEAR(stddev("transformer.h.0.mlp.c_fc.weight"), 0.02, 0.001);
    EXPECT_NEAR(stddev("transformer.h.3.attn.c_proj.weight"), 0.02 / std::sqrt(8.0), 0.0008);
    EXPECT_NEAR(stddev("transformer.h.3.mlp.c_proj.weight"), 0.02 / std::sqrt(8.0), 0.0005);
    EXPECT_EQ(stddev("transformer.h.0.attn.c_attn.bias"), 0.0);
    EXPECT_EQ(p.at("transformer.ln_f.weight").data, std::vector<float>(64, 1.0f));
}

// The causal-mask buffers PyTorch < 2.0 writes into the state_dict: accepted when they are the
// lower triangle, never read, and a file whose buffer is something else says so.
TEST(Gpt, CausalMaskBuffersAreCheckedAndNotRead) {
    const Config c = gpt_config("nobias_3layer");
    const std::string with = gpt_path("nobias_3layer.weights_with_buffers.safetensors");
    const LoadedWeights lw = load_weights(with, &c);
    EXPECT_EQ(lw.ignored.size(), 3u);
    const LoadedWeights plain = load_weights(gpt_path("nobias_3layer.weights.safetensors"), &c);
    for (size_t i = 0; i < plain.params.size(); ++i) EXPECT_EQ(lw.params[i].data, plain.params[i].data) << lw.params.name(i);

    SafetensorsFile f = read_safetensors(with);
    std::vector<TensorToWrite> tensors;
    for (StoredTensor& t : f.tensors) {
        if (t.name == "transformer.h.1.attn.bias") t.value.data[1] = 1.0f;  // row 0 may see position 1
        tensors.push_back({t.name, &t.value});
    }
    testutil::TempDir dir;
    const std::string bad = dir.file("peeking.safetensors");
    write_safetensors(bad, tensors, f.metadata);
    expect_error<WeightsError>([&] { load_weights(bad, &c); },
                               {"transformer.h.1.attn.bias", "causal mask", "[0, 0, 0, 1]"});
}

TEST(Gpt, ConfigurationErrorsNameTheKey) {
    const auto parse = [](const char* text) { return config_from_json_text(text); };
    expect_error<ConfigError>([&] { parse(R"({"architecture": "gpt", "d_model": 64})"); }, {"'d_model'", "'n_embd'"});
    expect_error<ConfigError>([&] { parse(R"({"architecture": "gpt", "nhead": 4})"); }, {"'nhead'", "'n_head'"});
    expect_error<ConfigError>([&] { parse(R"({"architecture": "gpt", "tgt_vocab": ["P"]})"); }, {"'vocab'"});
    expect_error<ConfigError>([&] { parse(R"({"architecture": "gpt", "d_ff": 64})"); }, {"'d_ff'", "GPTConfig"});
    expect_error<ConfigError>([&] { parse(R"({"architecture": "gpt", "n_embd": 10, "n_head": 4})"); },
                              {"'n_embd' (10)", "'n_head' (4)", "divisible"});
    expect_error<ConfigError>([&] { parse(R"({"architecture": "gtp"})"); }, {"\"gtp\"", "\"gpt\"", "\"aiayn\""});
    const Config c = gpt_config("bias_1layer");
    EXPECT_EQ(c.block_size, 8);
    EXPECT_EQ(c.d_model, 12);
    EXPECT_EQ(c.d_ff, 48);
    EXPECT_EQ(config_from_json(config_to_json(c)).block_size, 8);
    const Config defaults = parse(R"({"architecture": "gpt"})");  // GPTConfig's defaults
    EXPECT_EQ(defaults.block_size, 1024);
    EXPECT_EQ(defaults.n_layers, 12);
    EXPECT_EQ(defaults.n_heads, 12);
    EXPECT_EQ(defaults.d_model, 768);
    EXPECT_EQ(defaults.dropout, 0.0);
    EXPECT_TRUE(defaults.bias);
}

TEST(Gpt, ASentenceLongerThanBlockSizeIsANamedError) {
    const Config c = gpt_config("bias_1layer");
    expect_error<ConfigError>([&] { make_batch(c, {}, {"S i want a beer . E P P"}); }, {"block_size 8", "9 tokens"});
    expect_error<ConfigError>([&] { make_batch(c, {"ich"}, {"S i"}); }, {"no source"});
    const Batch b = make_batch(c, {}, {"S i want", "S i"});  // padded to the longest, not to block_size
    EXPECT_EQ(b.T, 3);
    EXPECT_EQ(b.tgt, (std::vector<int>{1, 3, 4, 1, 3, 0}));
}

}  // namespace
