// The trace as a graph: every entry names the op that made it, its inputs, its block and role,
// and the queries viewers use (graph::*) find the model's structure from those fields alone.
#include <array>
#include <set>

#include "fixture_util.h"
#include "stepformer/dataset.h"
#include "stepformer/model_io.h"
#include "stepformer/params.h"
#include "stepformer/trace_graph.h"
#include "stepformer/trace_names.h"

using namespace stepformer;

namespace {

struct Traced {
    Config config;
    std::set<std::string> param_names;
    Trace trace;
};

Traced trace_of(const std::string& fixture, bool learn_layer_norm = false) {
    ModelSource src;
    src.config_path = fixtures::path(fixture + ".config.json");
    src.weights_path = fixtures::path(fixture + ".weights.safetensors");
    LoadedModel lm = load_model(src);
    Traced t;
    t.config = lm.config;
    if (learn_layer_norm) {
        t.config.learn_layer_norm = true;
        lm.params = ParamSet(param_specs(t.config));
    }
    for (size_t i = 0; i < lm.params.size(); ++i) t.param_names.insert(lm.params.name(i));
    const auto in = fixtures::inputs(fixture);
    const Batch batch = make_batch(t.config, in.src, in.tgt, in.out);
    Transformer model(t.config, std::move(lm.params));
    model.forward(batch, t.trace);
    model.loss(batch, t.trace);
    ParamSet grads;
    model.backward(batch, t.trace, grads);
    return t;
}

TEST(TraceGraph, EveryInputIsAnEarlierEntryOrAParameterAndEveryParameterIsRead) {
    for (bool learned : {false, true}) {
        const Traced t = trace_of("tiny", learned);
        std::set<std::string> seen, read_params;
        for (const TraceEntry& e : t.trace.entries()) {
            for (const std::string& in : e.inputs) {
                if (t.trace.contains(in)) {
                    EXPECT_TRUE(seen.count(in)) << e.name << " reads " << in << " before it was computed";
                } else {
                    EXPECT_TRUE(t.param_names.count(in)) << e.name << " reads '" << in << "', neither entry nor parameter";
                    read_params.insert(in);
                }
            }
            seen.insert(e.name);
        }
        EXPECT_EQ(read_params, t.param_names) << "learn_layer_norm " << learned;
    }
}

TEST(TraceGraph, OpsRolesAndArityAgree) {
    const Traced t = trace_of("tiny");
    const std::map<Role, std::pair<Op, size_t>> expected = {
        {Role::Q, {Op::Linear, 2}},           {Role::K, {Op::Linear, 2}},
        {Role::V, {Op::Linear, 2}},           {Role::Scores, {Op::ScaledMatMul, 2}},
        {Role::MaskedScores, {Op::MaskFill, 2}}, {Role::Softmax, {Op::Softmax, 1}},
        {Role::Context, {Op::MatMul, 2}},     {Role::OutProjection, {Op::Linear, 2}},
        {Role::Residual, {Op::Add, 2}},       {Role::LayerNorm, {Op::LayerNorm, 1}},
        {Role::FfnHidden, {Op::Linear, 2}},   {Role::Relu, {Op::Relu, 1}},
        {Role::FfnOut, {Op::Linear, 2}},      {Role::Logits, {Op::Linear, 2}},
        {Role::Probs, {Op::Softmax, 1}},      {Role::CombinedMask, {Op::MaskOr, 2}},
        {Role::LossPerToken, {Op::CrossEntropy, 1}}, {Role::Loss, {Op::Mean, 1}},
        {Role::Gradient, {Op::Gradient, 1}},
    };
    std::set<Role> roles;
    for (const TraceEntry& e : t.trace.entries()) {
        roles.insert(e.role);
        auto it = expected.find(e.role);
        if (it == expected.end()) continue;
        EXPECT_EQ(e.op, it->second.first) << e.name;
        const size_t arity = e.role == Role::LayerNorm && t.config.learn_layer_norm ? 3 : it->second.second;
        EXPECT_EQ(e.inputs.size(), arity) << e.name;
    }
    EXPECT_EQ(roles.size(), static_cast<size_t>(Role::Gradient) + 1) << "every role appears in a full trace";
}

TEST(TraceGraph, BlocksAndLayersComeFromTheFields) {
    const Traced t = trace_of("tiny");
    const Trace& tr = t.trace;
    const int N = t.config.n_layers;
    EXPECT_EQ(graph::layer_count(tr, Stack::Encoder), N);
    EXPECT_EQ(graph::layer_count(tr, Stack::Decoder), N);
    EXPECT_EQ(graph::layer_count(tr, Stack::None), 0);
    const auto attn = graph::attention_blocks(tr);
    ASSERT_EQ(attn.size(), size_t(3 * N));
    EXPECT_EQ(attn[0], (Block{Stack::Encoder, BlockKind::SelfAttention, 0}));
    EXPECT_EQ(attn.back(), (Block{Stack::Decoder, BlockKind::CrossAttention, N - 1}));

    const Block enc0{Stack::Encoder, BlockKind::SelfAttention, 0};
    ASSERT_NE(graph::query_input(tr, enc0), nullptr);
    EXPECT_EQ(graph::query_input(tr, enc0), graph::stack_input(tr, Stack::Encoder));
    EXPECT_EQ(graph::key_input(tr, enc0), graph::query_input(tr, enc0));
    EXPECT_EQ(graph::mask_of(tr, enc0)->role, Role::PadMask);

    for (int i = 0; i < N; ++i) {
        const Block self{Stack::Decoder, BlockKind::MaskedSelfAttention, i},
            cross{Stack::Decoder, BlockKind::CrossAttention, i}, ffn{Stack::Decoder, BlockKind::FeedForward, i};
        EXPECT_EQ(graph::query_input(tr, cross), graph::find(tr, self, Role::LayerNorm)) << i;
        EXPECT_EQ(graph::key_input(tr, cross), graph::stack_output(tr, Stack::Encoder)) << i;
        EXPECT_EQ(graph::block_input(tr, ffn), graph::find(tr, cross, Role::LayerNorm)) << i;
        EXPECT_EQ(graph::mask_of(tr, self)->role, Role::CombinedMask);
        EXPECT_EQ(graph::mask_of(tr, cross)->role, Role::PadMask);
        EXPECT_NE(graph::mask_of(tr, self), graph::mask_of(tr, cross));
    }
    const TraceEntry* logits = graph::find(tr, Block{Stack::None, BlockKind::Projection, -1}, Role::Logits);
    ASSERT_NE(logits, nullptr);
    EXPECT_EQ(graph::input(tr, *logits, 0), graph::stack_output(tr, Stack::Decoder));
    EXPECT_EQ(graph::params(tr, *logits), std::vector<std::string>{"projection.weight"});
    EXPECT_EQ(graph::blocks_masked_by(tr, graph::mask_of(tr, enc0)->name).size(), size_t(N));
    // The decoder's pad and subsequence masks reach its self-attention through their combination.
    const TraceEntry* combined = graph::mask_of(tr, Block{Stack::Decoder, BlockKind::MaskedSelfAttention, 0});
    for (size_t k = 0; k < 2; ++k) {
        const TraceEntry* part = graph::input(tr, *combined, k);
        ASSERT_NE(part, nullptr);
        const auto masked = graph::blocks_masked_by(tr, part->name);
        ASSERT_EQ(masked.size(), size_t(N)) << part->name;
        for (const Block& b : masked) EXPECT_EQ(b.kind, BlockKind::MaskedSelfAttention) << part->name;
    }
}

TEST(TraceGraph, GradientsPointAtTheirForwardEntryAndShareItsBlock) {
    const Traced t = trace_of("tiny");
    size_t grads = 0;
    for (const TraceEntry& e : t.trace.entries()) {
        if (e.role != Role::Gradient) continue;
        ++grads;
        const TraceEntry* f = graph::forward_of(t.trace, e);
        ASSERT_NE(f, nullptr) << e.name;
        EXPECT_EQ(names::grad(f->name), e.name);
        EXPECT_EQ(f->block, e.block) << e.name;
        EXPECT_EQ(f->value.shape, e.value.shape) << e.name;
    }
    EXPECT_GT(grads, 0u);
}

TEST(TraceNames, ParseInvertsEntryForEveryTracedName) {
    const Traced t = trace_of("tiny");
    for (const TraceEntry& e : t.trace.entries()) {
        const names::Parsed p = names::parse(e.name);
        EXPECT_EQ(p.block, e.block) << e.name;
        EXPECT_EQ(p.grad, e.role == Role::Gradient) << e.name;
        EXPECT_EQ(p.grad ? names::grad(names::entry(p.block, p.leaf)) : names::entry(p.block, p.leaf), e.name);
    }
    EXPECT_EQ(names::parse("not.a.model.name").block, Block{});
    EXPECT_EQ(names::parse("encoder.layers.x.enc_self_attn.Q").block.kind, BlockKind::Input);
    EXPECT_EQ(names::parse("decoder.layers.12.dec_enc_attn.attn").block,
              (Block{Stack::Decoder, BlockKind::CrossAttention, 12}));
}

}  // namespace

namespace {

// Every layer's entry written with its layer index as "*" gives back the entry when the star
// is replaced by the index, in every model's naming (the attention view's "all layers" title).
TEST(TraceNames, EveryLayerStarsTheLayerIndexInEveryNaming) {
    for (const std::string which : {"tutorial", "torch", "aiayn"}) {
        const Config c = which == "tutorial" ? Config::small() : which == "torch" ? Config::torch_small() : Config::aiayn_small();
        const Transformer model(c, init_params(c, 1));
        Trace t;
        model.forward(make_batch(c, {"ich mochte ein bier P"}, {"S i want a beer ."}), t);
        size_t layered = 0;
        for (const TraceEntry& e : t.entries()) {
            const names::Parsed p = names::parse(e.name);
            const std::string every = names::every_layer(p.block, p.leaf);
            if (p.block.layer < 0) {
                EXPECT_EQ(every, e.name);
                continue;
            }
            ++layered;
            const size_t star = every.find('*');
            ASSERT_NE(star, std::string::npos) << which << ": " << every;
            EXPECT_EQ(every.find('*', star + 1), std::string::npos) << every;
            EXPECT_EQ(every.substr(0, star) + std::to_string(p.block.layer) + every.substr(star + 1), e.name) << which;
        }
        EXPECT_GT(layered, 20u) << which;
    }
}

}  // namespace

namespace {

// A model keeps the graph of its last batch shape (graph_for): passes over batches of other
// shapes, and of the same shape with other tokens, are each what a fresh model computes, and only
// passes of one shape in a row share a graph.
TEST(GraphCache, EveryShapeAndTokensAsAFreshModelComputes) {
    for (const Config& c : {Config::small(), Config::torch_small(), Config::aiayn_small(), Config::gpt_small()}) {
        const Transformer kept(c, init_params(c, 3));
        const std::vector<std::array<int, 3>> shapes = {{2, 5, 6}, {1, 3, 4}, {2, 5, 6}, {2, 5, 6}, {2, 5, 4}, {2, 4, 4}, {3, 4, 4}};
        uint64_t seed = 10;
        std::shared_ptr<const Graph> last;
        std::array<int, 3> last_shape{};
        for (const auto& given : shapes) {
            const std::array<int, 3> shape = {given[0], c.reads_source() ? given[1] : 0, given[2]};
            const auto [B, S, T] = shape;
            const Batch batch = random_batch(c, B, S, T, seed++);
            Trace mine, fresh;
            kept.forward(batch, mine);
            Transformer(c, kept.params()).forward(batch, fresh);
            const TraceEntry *p = graph::output_probs(mine), *q = graph::output_probs(fresh);
            ASSERT_NE(p, nullptr);
            ASSERT_NE(q, nullptr);
            EXPECT_EQ(mine.entries().size(), fresh.entries().size());
            EXPECT_EQ(p->value.shape, q->value.shape) << "B " << B << " T " << T;
            EXPECT_EQ(p->value.data, q->value.data) << "B " << B << " T " << T;
            if (last) {
                EXPECT_EQ(mine.graph == last, shape == last_shape) << "B " << B << " T " << T;
            }
            last = mine.graph;
            last_shape = shape;
        }
    }
}

}  // namespace
