// The forward trace against PyTorch: every tensor the reference recorded must match, on every
// registered backend (copy_backend.h).
#include <memory>
#include <tuple>

#include "copy_backend.h"
#include "fixture_util.h"
#include "stepformer/model_io.h"

using namespace stepformer;

namespace {

// (fixture case, backend name)
class GoldenForward : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(GoldenForward, EveryTraceTensorMatchesPyTorch) {
    const auto& [c, backend_name] = GetParam();
    SCOPED_TRACE(c + " on " + backend_name);
    const std::unique_ptr<Backend> backend = make_backend(backend_name);
    ModelSource src;
    src.config_path = fixtures::path(c + ".config.json");
    src.weights_path = fixtures::path(c + ".weights.safetensors");
    LoadedModel lm = load_model(src);
    const auto in = fixtures::inputs(c);
    const Batch batch = make_batch(lm.config, in.src, in.tgt, in.out);
    Transformer model(lm.config, std::move(lm.params), backend.get());
    ASSERT_EQ(model.backend().name(), backend_name);
    Trace trace;
    model.forward(batch, trace);
    model.loss(batch, trace);

    const SafetensorsFile want = read_safetensors(fixtures::path(c + ".trace.safetensors"));
    ASSERT_GT(want.tensors.size(), 40u);
    size_t compared = 0;
    for (const auto& w : want.tensors) {
        const TraceEntry* got = trace.find(w.name);
        ASSERT_NE(got, nullptr) << "trace lacks " << w.name;
        EXPECT_TRUE(fixtures::close(w.name, got->value, w.value, 1e-5));
        if (w.dtype == DType::U8 || w.dtype == DType::BOOL) {
            EXPECT_TRUE(got->is_mask) << w.name;
        }
        ++compared;
    }
    // Nothing we trace is missing from PyTorch's side, either.
    EXPECT_EQ(compared, trace.size());
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoldenForward,
                         ::testing::Combine(::testing::Values("tiny", "small", "tutorial_state_dict"),
                                            ::testing::ValuesIn(stepformer::testing::registered_backends())),
                         [](const auto& i) {
                             return std::get<0>(i.param) + "_" + stepformer::testing::test_name(std::get<1>(i.param));
                         });

TEST(GoldenForward, TraceOrderIsComputationOrder) {
    Config c = Config::small();
    c.n_layers = 1;
    Transformer model(c, init_params(c, 1));
    Trace t;
    model.forward(make_batch(c, {"ich mochte ein bier P"}, {"S i want a beer ."}), t);
    std::vector<std::string> names;
    for (const auto& e : t.entries()) names.push_back(e.name);
    auto pos = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
    EXPECT_EQ(pos("encoder.src_emb.out"), 0);
    EXPECT_LT(pos("encoder.layers.0.enc_self_attn.scores"), pos("encoder.layers.0.enc_self_attn.masked_scores"));
    EXPECT_LT(pos("encoder.layers.0.enc_self_attn.masked_scores"), pos("encoder.layers.0.enc_self_attn.attn"));
    EXPECT_LT(pos("encoder.layers.0.pos_ffn.out"), pos("decoder.tgt_emb.out"));
    EXPECT_LT(pos("decoder.layers.0.dec_self_attn.out"), pos("decoder.layers.0.dec_enc_attn.Q"));
    EXPECT_EQ(names.back(), "projection.probs");
    // axes know their meaning, so a viewer can label them
    const auto& e = t.at("decoder.layers.0.dec_enc_attn.attn");
    ASSERT_EQ(e.axes.size(), 4u);
    EXPECT_EQ(e.axes[2].kind, AxisKind::TgtToken);
    EXPECT_EQ(e.axes[3].kind, AxisKind::SrcToken);
    EXPECT_EQ(t.src_tokens[0][4], "P");
}

}  // namespace
