// The training step's memory plan (ForwardOptions::keep_all = false), on every model and every
// registered backend: what the backward pass does not read is gone before the backward starts,
// what it reads is there, and the gradients are those of a pass that kept everything, bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <tuple>

#include "model_cases.h"
#include "stepformer/graph.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "stepformer/trace_graph.h"

namespace {

using namespace stepformer;
using stepformer::testing::model_config;
using stepformer::testing::sentence_batch;

class MemoryPlan : public ::testing::TestWithParam<stepformer::testing::ModelCase> {};

TEST_P(MemoryPlan, FreesWhatTheBackwardDoesNotReadAndKeepsItsGradients) {
    const std::unique_ptr<Backend> be = make_backend(std::get<1>(GetParam()));
    Config c = model_config(std::get<0>(GetParam()));
    c.dropout = 0.1;  // dropout masks and dropped copies in the plan too
    const Transformer model(c, init_params(c, 3), be.get());
    const Batch batch = sentence_batch(c);
    const auto step = [&](bool keep_all, Trace& t, ParamSet& grads) {
        ForwardOptions fo;
        fo.train = true;
        fo.seed = 5;
        fo.step = 2;
        fo.keep_all = keep_all;
        model.forward(batch, t, fo);
        if (!keep_all) {
            // Before the backward: the scores and the out projections' outputs are gone (no backward
            // reads them), a LayerNorm's input and the softmax's output are there.
            for (const TraceEntry& e : t.entries()) {
                if (e.role == Role::Scores || e.role == Role::MaskedScores || e.role == Role::OutProjection) {
                    EXPECT_TRUE(e.value.data.empty()) << e.name << " is kept";
                }
                if (e.role == Role::Softmax) {
                    EXPECT_FALSE(e.value.data.empty()) << e.name << " was freed";
                }
                if (e.op == Op::LayerNorm) {
                    EXPECT_FALSE(t.at(e.inputs.at(0)).value.data.empty()) << e.inputs[0] << " was freed";
                }
                EXPECT_EQ(e.value.shape, t.graph->find(e.name)->shape) << e.name;
            }
        }
        const float loss = model.loss(batch, t);
        model.backward(batch, t, grads, false);
        return loss;
    };
    Trace full, lean;
    ParamSet g_full, g_lean;
    const float l_full = step(true, full, g_full), l_lean = step(false, lean, g_lean);
    EXPECT_EQ(l_full, l_lean);
    ASSERT_EQ(g_full.size(), g_lean.size());
    for (size_t i = 0; i < g_full.size(); ++i)
        EXPECT_EQ(0, std::memcmp(g_full[i].ptr(), g_lean[i].ptr(), g_full[i].data.size() * sizeof(float))) << g_full.name(i);
    // After the backward, only the outputs and the loss keep values.
    size_t with_values = 0;
    for (const TraceEntry& e : lean.entries()) with_values += e.value.data.empty() ? 0 : 1;
    EXPECT_LT(with_values, lean.size() / 4);
    EXPECT_FALSE(full.at("loss").value.data.empty());
    // Nothing can run again from a lean trace's steps: it says so instead of reading freed tensors.
    EXPECT_THROW(model.recompute_from(batch, lean, lean.graph->steps().front().name), std::logic_error);
}

INSTANTIATE_TEST_SUITE_P(Models, MemoryPlan, stepformer::testing::model_cases(), stepformer::testing::model_case_name);

}  // namespace
