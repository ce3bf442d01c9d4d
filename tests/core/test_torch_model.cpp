// "architecture": "torch" against PyTorch 1.13 (tests/fixtures/torch/, made by
// tests/reference/make_torch_fixtures.py): nn.TransformerEncoderLayer / DecoderLayer in the layer
// lab and a translation model around nn.Transformer, every trace tensor and every gradient, and
// 30 SGD and Adam steps, on every registered backend.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "copy_backend.h"
#include "fixture_util.h"
#include "stepformer/decode.h"
#include "stepformer/model_io.h"
#include "stepformer/params.h"
#include "stepformer/safetensors.h"
#include "stepformer/trace_graph.h"
#include "stepformer/trace_names.h"
#include "stepformer/train.h"

using namespace stepformer;

namespace {

constexpr double kTol = 1e-4;

std::string torch_path(const std::string& c, const std::string& kind) { return fixtures::path("torch/" + c + "." + kind); }

const Tensor& get(const SafetensorsFile& f, const std::string& name) {
    const StoredTensor* t = f.find(name);
    if (!t) throw std::runtime_error("fixture has no tensor " + name);
    return t->value;
}

::testing::AssertionResult same(const std::string& name, const Tensor& got, const Tensor& want) {
    return fixtures::close_nonfinite(name, got, want, kTol);
}

std::vector<int> bool_mask(const SafetensorsFile& f, const std::string& name) {
    const StoredTensor* t = f.find(name);
    if (!t) return {};
    std::vector<int> out;
    for (float v : t->value.data) out.push_back(v != 0.0f ? 1 : 0);
    return out;
}

// An attn_mask as the layer lab takes it: float as given, a bool one as 0 / −inf.
Tensor attn_mask(const SafetensorsFile& f, const std::string& name) {
    const StoredTensor* t = f.find(name);
    if (!t) return {};
    Tensor m = t->value;
    if (t->dtype == DType::U8 || t->dtype == DType::BOOL)
        for (float& v : m.data) v = v != 0.0f ? -std::numeric_limits<float>::infinity() : 0.0f;
    return m;
}

// The first place two name lists differ, for a readable failure.
::testing::AssertionResult same_order(const std::vector<std::string>& ours, const std::vector<std::string>& theirs) {
    for (size_t i = 0; i < std::max(ours.size(), theirs.size()); ++i) {
        const std::string a = i < ours.size() ? ours[i] : "(end)", b = i < theirs.size() ? theirs[i] : "(end)";
        if (a != b) return ::testing::AssertionFailure() << "entry " << i << ": '" << a << "', PyTorch's '" << b << "'";
    }
    return ::testing::AssertionSuccess();
}

class TorchLayers : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(TorchLayers, EveryTraceTensorAndGradientIsPyTorchs) {
    const auto& [case_name, backend_name] = GetParam();
    const std::unique_ptr<Backend> backend = make_backend(backend_name);
    const Config c = load_config_file(torch_path(case_name, "config.json"));
    ASSERT_TRUE(c.layers());
    LoadedWeights lw = load_weights(torch_path(case_name, "weights.safetensors"), nullptr);
    ASSERT_TRUE(lw.config_from_file);
    const SafetensorsFile in = read_safetensors(torch_path(case_name, "inputs.safetensors"));
    const SafetensorsFile want = read_safetensors(torch_path(case_name, "trace.safetensors"));
    const SafetensorsFile grads = read_safetensors(torch_path(case_name, "grads.safetensors"));

    Batch batch = make_layer_batch(c, get(in, "src"), c.decoder_layer ? get(in, "tgt") : Tensor{});
    batch.src_mask = attn_mask(in, "src_mask");
    batch.tgt_mask = attn_mask(in, "tgt_mask");
    batch.memory_mask = attn_mask(in, "memory_mask");
    batch.src_key_padding_mask = bool_mask(in, "src_key_padding_mask");
    batch.tgt_key_padding_mask = bool_mask(in, "tgt_key_padding_mask");
    batch.memory_key_padding_mask = bool_mask(in, "memory_key_padding_mask");
    Transformer model(c, std::move(lw.params), backend.get());
    Trace tr;
    model.forward(batch, tr);

    // Every intermediate PyTorch's layers make, in the same order, and nothing else but the inputs.
    std::vector<std::string> ours, theirs;
    for (const TraceEntry& e : tr.entries())
        if (e.role != Role::Input) ours.push_back(e.name);
    for (const StoredTensor& t : want.tensors)
        if (t.name != "encoder_layer.out" && t.name != "decoder_layer.out") theirs.push_back(t.name);
    EXPECT_TRUE(same_order(ours, theirs));
    for (const std::string& name : theirs) EXPECT_TRUE(same(name, tr.at(name).value, get(want, name)));
    // The module's output in PyTorch's layout is the last entry.
    const std::string out_name = c.decoder_layer ? "decoder_layer.out" : "encoder_layer.out";
    const Tensor& last = tr.entries().back().value;
    EXPECT_TRUE(same(out_name, c.batch_first ? last : swap_leading_axes(last), get(want, out_name)));

    // Backward from d loss / d out = loss.weight.
    const Tensor& w = get(grads, "loss.weight");
    ParamSet g;
    model.backward_from_output(batch, tr, c.batch_first ? w : swap_leading_axes(w), g);
    for (size_t i = 0; i < g.size(); ++i) EXPECT_TRUE(same("grad." + g.name(i), g[i], get(grads, "grad." + g.name(i))));
    for (const StoredTensor& t : grads.tensors) {
        if (t.name == "loss" || t.name == "loss.weight" || !names::is_grad(t.name)) continue;
        const std::string base = names::forward_name(t.name);
        if (model.params().contains(base)) continue;
        const std::string base_ours = base == "encoder_layer.out" || base == "decoder_layer.out" ? "" : base;
        if (base_ours.empty()) continue;
        const TraceEntry* e = tr.find(t.name);
        ASSERT_NE(e, nullptr) << t.name;
        const bool pytorch_layout = base == "src" || base == "tgt";
        EXPECT_TRUE(same(t.name, pytorch_layout && !c.batch_first ? swap_leading_axes(e->value) : e->value, t.value));
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, TorchLayers,
                         ::testing::Combine(::testing::Values("seed004", "pair_post_relu", "pair_pre_gelu", "batch_first",
                                                              "key_padding", "fully_masked_row"),
                                            ::testing::ValuesIn(stepformer::testing::registered_backends())),
                         [](const auto& i) {
                             return std::get<0>(i.param) + "_" + stepformer::testing::test_name(std::get<1>(i.param));
                         });

// Seed 004's printed digits, as a student reads them in the notebook.
TEST(TorchLayers, Seed004PrintsItsNumbers) {
    const Config c = load_config_file(torch_path("seed004", "config.json"));
    LoadedWeights lw = load_weights(torch_path("seed004", "weights.safetensors"), &c);
    const SafetensorsFile in = read_safetensors(torch_path("seed004", "inputs.safetensors"));
    Transformer model(c, std::move(lw.params));
    Trace tr;
    model.forward(make_layer_batch(c, get(in, "src")), tr);
    const std::vector<float> printed = {-1.0328f, -0.9185f, 0.6710f, 1.2804f, -1.4175f, -0.1948f,
                                        1.3775f,  0.2347f,  -1.0022f, -0.8035f, 0.3029f, 1.5028f};
    const Tensor& out = tr.at("encoder_layer.norm2").value;  // (1, 3, 4): batch 1, so the same order as [3, 1, 4]
    ASSERT_EQ(out.size(), 12);
    for (size_t i = 0; i < printed.size(); ++i) EXPECT_NEAR(out.data[i], printed[i], 5e-5) << i;
}

class TorchSeq2Seq : public ::testing::TestWithParam<std::string> {};

Batch seq2seq_batch(const Config& c) {
    const auto in = fixtures::inputs("torch/seq2seq");
    return make_batch(c, in.src, in.tgt, in.out);
}

TEST_P(TorchSeq2Seq, EveryTraceTensorAndGradientIsPyTorchs) {
    const std::unique_ptr<Backend> backend = make_backend(GetParam());
    LoadedWeights lw = load_weights(torch_path("seq2seq", "weights.safetensors"), nullptr);
    const Config c = lw.config;
    ASSERT_TRUE(c.torch());
    ASSERT_FALSE(c.layers());
    EXPECT_EQ(lw.ignored, std::vector<std::string>{"positional_encoding.pos_embedding"});
    const SafetensorsFile want = read_safetensors(torch_path("seq2seq", "trace.safetensors"));
    const SafetensorsFile grads = read_safetensors(torch_path("seq2seq", "grads.safetensors"));
    Transformer model(c, std::move(lw.params), backend.get());
    const Batch batch = seq2seq_batch(c);
    Trace tr;
    model.forward(batch, tr);
    const float loss = model.loss(batch, tr);
    std::vector<std::string> ours, theirs;
    // (The loss entries: PyTorch's script records the mean first, the model adds the per-token losses first.)
    for (const TraceEntry& e : tr.entries())
        if (e.role != Role::PositionalTable) ours.push_back(e.name);
    for (const StoredTensor& t : want.tensors)
        if (t.name != "loss") theirs.push_back(t.name);
    theirs.push_back("loss");
    EXPECT_TRUE(same_order(ours, theirs));
    for (const std::string& name : theirs) EXPECT_TRUE(same(name, tr.at(name).value, get(want, name)));
    EXPECT_NEAR(loss, get(grads, "loss").data[0], kTol * std::abs(get(grads, "loss").data[0]));

    ParamSet g;
    model.backward(batch, tr, g);
    for (size_t i = 0; i < g.size(); ++i) EXPECT_TRUE(same("grad." + g.name(i), g[i], get(grads, "grad." + g.name(i))));
    int traced = 0;
    for (const StoredTensor& t : grads.tensors) {
        if (!names::is_grad(t.name) || model.params().contains(names::forward_name(t.name))) continue;
        const TraceEntry* e = tr.find(t.name);
        ASSERT_NE(e, nullptr) << t.name;
        EXPECT_TRUE(same(t.name, e->value, t.value));
        ++traced;
    }
    EXPECT_EQ(traced, 87);  // every intermediate but the masks, the probabilities and the loss
}

void train_like_torch(const std::string& run, OptimizerOptions oo, const std::string& backend_name) {
    const std::unique_ptr<Backend> backend = make_backend(backend_name);
    const auto ref = fixtures::read_json("torch/" + run + ".losses.json");
    LoadedWeights lw = load_weights(torch_path("seq2seq", "weights.safetensors"), nullptr);
    Transformer model(lw.config, std::move(lw.params), backend.get());
    const auto in = fixtures::inputs("torch/seq2seq");
    std::vector<Example> ex;
    for (size_t i = 0; i < in.src.size(); ++i) ex.push_back({in.src[i], in.tgt[i], in.out[i]});
    TrainOptions to;
    to.epochs = ref.at("steps").get<int>();
    to.batch_size = 1000;
    to.shuffle = false;
    to.optimizer = oo;
    Trainer trainer(model, ex, to);
    std::vector<double> losses;
    const auto r = trainer.run([&](const StepReport& s) { losses.push_back(s.loss); });
    ASSERT_EQ(r.status, TrainStatus::Finished) << r.message;
    const auto want = ref.at("losses").get<std::vector<double>>();
    ASSERT_EQ(losses.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(losses[i], want[i], kTol * std::abs(want[i])) << "step " << i + 1;
    const SafetensorsFile f = read_safetensors(torch_path(run, "final.safetensors"));
    const int64_t D = model.config().d_model;
    for (size_t i = 0; i < model.params().size(); ++i) {
        const std::string& name = model.params().name(i);
        Tensor got = model.params()[i], w = get(f, name);
        // Adam turns the K bias's rounding-noise gradient (zero in exact arithmetic) into steps of
        // about lr (tests/reference/README.md): compare everything else.
        if (oo.kind == OptimizerKind::Adam && name.find("in_proj_bias") != std::string::npos)
            for (int64_t k = D; k < 2 * D; ++k) got.data[size_t(k)] = w.data[size_t(k)] = 0.0f;
        EXPECT_TRUE(fixtures::close(name, got, w, kTol));
    }
}

TEST_P(TorchSeq2Seq, ThirtySgdStepsMatchTorch) {
    OptimizerOptions o;
    o.kind = OptimizerKind::SGD;
    o.lr = 0.05;
    o.momentum = 0.9;
    train_like_torch("seq2seq_sgd", o, GetParam());
}

TEST_P(TorchSeq2Seq, ThirtyAdamStepsMatchTorch) {
    OptimizerOptions o;
    o.kind = OptimizerKind::Adam;
    o.lr = 1e-3;
    o.beta2 = 0.999;  // torch.optim.Adam's defaults
    o.eps = 1e-8;
    train_like_torch("seq2seq_adam", o, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Backends, TorchSeq2Seq, ::testing::ValuesIn(stepformer::testing::registered_backends()),
                         [](const auto& i) { return stepformer::testing::test_name(i.param); });

}  // namespace
