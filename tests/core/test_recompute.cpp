// Transformer::recompute_from: a pass re-run from any step of its graph, on every model and
// every registered backend. Unedited, it is the full pass bit for bit; with one step's output
// replaced, every number after it is the one a from-scratch pass of the equivalently edited model
// gives (a head knocked out = its columns of the out projection zeroed).
#include <gtest/gtest.h>

#include <cmath>
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

struct Case {
    std::unique_ptr<Backend> be;
    Config c;
    std::unique_ptr<Transformer> model;
    Batch batch;
    explicit Case(const std::tuple<std::string, std::string>& p)
        : be(make_backend(std::get<1>(p))), c(model_config(std::get<0>(p))) {
        c.dropout = 0.0;
        model = std::make_unique<Transformer>(c, init_params(c, 7), be.get());
        batch = sentence_batch(c);
    }
};

class Recompute : public ::testing::TestWithParam<stepformer::testing::ModelCase> {};

void expect_same(const Trace& a, const Trace& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        const TraceEntry &x = a.entries()[i], &y = b.entries()[i];
        ASSERT_EQ(x.name, y.name);
        EXPECT_EQ(x.value.shape, y.value.shape) << x.name;
        EXPECT_EQ(0, std::memcmp(x.value.data.data(), y.value.data.data(), x.value.data.size() * sizeof(float))) << x.name;
    }
}

TEST_P(Recompute, FromAnyStepIsTheFullPassBitForBit) {
    Case s(GetParam());
    Trace full;
    s.model->forward(s.batch, full);
    ASSERT_TRUE(full.graph);
    const auto& steps = full.graph->steps();
    // From the first, a middle and the last step, and from every step of the first attention block.
    std::vector<size_t> from{0, steps.size() / 2, steps.size() - 1};
    const Block first = graph::attention_blocks(full).at(0);
    for (size_t i = 0; i < steps.size(); ++i)
        if (steps[i].node.block == first) from.push_back(i);
    for (size_t i : from) {
        Trace t = full;  // a copy: the same graph, values on the host
        s.model->recompute_from(s.batch, t, steps[i].name);
        SCOPED_TRACE("from " + steps[i].name);
        expect_same(full, t);
    }
}

TEST_P(Recompute, AnEditedStepChangesWhatFollowsAsTheEditedModelWould) {
    Case s(GetParam());
    Trace t;
    s.model->forward(s.batch, t);
    // Knock out head h of the decoder's first cross-attention (a decoder-only model's first
    // self-attention): its context is zero.
    const auto blocks = graph::attention_blocks(t);
    Block cross = blocks.front();
    for (const Block& b : blocks)
        if (b.kind == BlockKind::CrossAttention && b.layer == 0) cross = b;
    const TraceEntry* ctx = graph::find(t, cross, Role::Context);
    ASSERT_NE(ctx, nullptr);
    const int B = int(ctx->value.dim(0)), H = int(ctx->value.dim(1)), Lq = int(ctx->value.dim(2)), dv = int(ctx->value.dim(3));
    const int h = 1;
    const std::string ctx_name = ctx->name, out_name = graph::consumers(t, ctx_name).at(0)->name;
    {
        TraceEntry& e = t.mutable_at(ctx_name);
        for (int b = 0; b < B; ++b)
            for (int q = 0; q < Lq; ++q)
                for (int d = 0; d < dv; ++d) e.value.data[((size_t(b) * H + h) * Lq + q) * dv + d] = 0.0f;
        // The out projection reads the heads side by side: edit them as the context is.
        for (int b = 0; b < B; ++b)
            for (int q = 0; q < Lq; ++q)
                for (int d = 0; d < dv; ++d) e.saved.merged.data[(size_t(b) * Lq + q) * H * dv + h * dv + d] = 0.0f;
    }
    s.model->recompute_from(s.batch, t, out_name);

    // The same model with head h's columns of the out projection zeroed, from scratch.
    ParamSet p = s.model->params();
    const std::string w = graph::params(t, t.at(out_name)).at(0);
    Tensor& W = p.at(canonical_param(s.c, w));  // (D, H·dv)
    const int64_t cols = W.dim(1);
    for (int64_t r = 0; r < W.dim(0); ++r)
        for (int d = 0; d < dv; ++d) W.data[size_t(r * cols + h * dv + d)] = 0.0f;
    Transformer edited(s.c, std::move(p), s.be.get());
    Trace ref;
    edited.forward(s.batch, ref);

    const size_t first = t.graph->index_of(out_name);
    size_t checked = 0;
    for (size_t i = 0; i < t.size(); ++i) {
        const TraceEntry& e = t.entries()[i];
        if (t.graph->index_of(e.name) < first) continue;
        const TraceEntry& r = ref.at(e.name);
        for (size_t k = 0; k < e.value.data.size(); ++k)
            if (e.value.data[k] != r.value.data[k]) {  // equal infinities (a −inf mask) pass here
                ASSERT_NEAR(e.value.data[k], r.value.data[k], 1e-5f * (1.0f + std::abs(r.value.data[k]))) << e.name << "[" << k << "]";
            }
        ++checked;
    }
    EXPECT_GT(checked, 5u);
    // And the edit is visible: the logits differ from the unedited pass's.
    Trace plain;
    s.model->forward(s.batch, plain);
    EXPECT_NE(graph::output_logits(plain)->value.data, graph::output_logits(t)->value.data);
}

INSTANTIATE_TEST_SUITE_P(Models, Recompute, stepformer::testing::model_cases(), stepformer::testing::model_case_name);

}  // namespace
