// The backward pass against PyTorch: the loss, every parameter gradient and every traced
// intermediate's gradient (grad.<name>), on every registered backend (copy_backend.h).
#include <memory>
#include <tuple>

#include "copy_backend.h"
#include "fixture_util.h"
#include "stepformer/model_io.h"

using namespace stepformer;

namespace {

// (fixture case, backend name)
class GoldenBackward : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(GoldenBackward, LossAndAllGradientsMatchPyTorch) {
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
    ParamSet grads;
    model.backward(batch, trace, grads);

    const SafetensorsFile want = read_safetensors(fixtures::path(c + ".grads.safetensors"));
    size_t params_seen = 0, traced_seen = 0;
    for (const auto& w : want.tensors) {
        if (w.name == "loss") {
            EXPECT_TRUE(fixtures::close("loss", trace.at("loss").value, w.value, 1e-5));
            continue;
        }
        ASSERT_EQ(w.name.rfind("grad.", 0), 0u) << w.name;
        const std::string target = w.name.substr(5);
        if (grads.contains(target)) {
            EXPECT_TRUE(fixtures::close(w.name, grads.at(target), w.value, 1e-4));
            ++params_seen;
        } else {
            const TraceEntry* got = trace.find(w.name);
            ASSERT_NE(got, nullptr) << "trace lacks " << w.name;
            EXPECT_TRUE(fixtures::close(w.name, got->value, w.value, 1e-4));
            ++traced_seen;
        }
    }
    EXPECT_EQ(params_seen, grads.size());
    EXPECT_GT(traced_seen, 50u);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoldenBackward,
                         ::testing::Combine(::testing::Values("tiny", "small"),
                                            ::testing::ValuesIn(stepformer::testing::registered_backends())),
                         [](const auto& i) {
                             return std::get<0>(i.param) + "_" + stepformer::testing::test_name(std::get<1>(i.param));
                         });

}  // namespace
