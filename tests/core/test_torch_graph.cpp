// "architecture": "torch" as data: its config keys (PyTorch's defaults, clear errors), its
// initialisation, and its trace as a graph (names that parse back, inputs that exist, blocks
// that say where a step sits), for the translation model and the layer lab.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "fixture_util.h"
#include "stepformer/params.h"
#include "stepformer/safetensors.h"
#include "stepformer/trace_graph.h"
#include "stepformer/trace_names.h"
#include "temp_dir.h"

using namespace stepformer;

namespace {

::testing::AssertionResult throws_mentioning(const std::function<void()>& f, const std::string& words) {
    try {
        f();
    } catch (const std::exception& e) {
        if (std::string(e.what()).find(words) != std::string::npos) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "message '" << e.what() << "' does not mention '" << words << "'";
    }
    return ::testing::AssertionFailure() << "nothing thrown";
}

TEST(TorchConfig, MissingKeysTakePyTorchsDefaults) {
    const Config c = config_from_json_text(R"({"architecture": "torch"})");
    EXPECT_TRUE(c.torch());
    EXPECT_FALSE(c.layers());
    EXPECT_EQ(c.d_model, 512);
    EXPECT_EQ(c.n_heads, 8);
    EXPECT_EQ(c.d_k, 64);
    EXPECT_EQ(c.encoder_layers(), 6);
    EXPECT_EQ(c.decoder_layers(), 6);
    EXPECT_EQ(c.d_ff, 2048);
    EXPECT_DOUBLE_EQ(c.dropout, 0.1);
    EXPECT_EQ(c.activation, "relu");
    EXPECT_DOUBLE_EQ(c.layer_norm_eps, 1e-5);
    EXPECT_FALSE(c.batch_first);
    EXPECT_FALSE(c.norm_first);
    EXPECT_EQ(c.src_vocab, Config::tutorial().src_vocab);
    const Config lab = config_from_json_text(R"({"architecture": "torch", "structure": "layers", "d_model": 4, "nhead": 2})");
    EXPECT_TRUE(lab.layers());
    EXPECT_FALSE(lab.decoder_layer);
    EXPECT_EQ(lab.decoder_layers(), 0);
}

TEST(TorchConfig, RoundTripsThroughJson) {
    Config c = Config::torch_small();
    c.norm_first = true;
    c.activation = "gelu";
    c.n_decoder_layers = 3;
    c.batch_first = true;
    const Config back = config_from_json_text(config_to_json_text(c));
    std::string why;
    EXPECT_TRUE(back.same_architecture(c, &why)) << why;
    EXPECT_EQ(config_to_json(back), config_to_json(c));
    Config lab = Config::seed004();
    lab.decoder_layer = true;
    lab.n_decoder_layers = 1;
    EXPECT_EQ(config_to_json(config_from_json_text(config_to_json_text(lab))), config_to_json(lab));
    EXPECT_FALSE(Config::torch_small().same_architecture(Config::small(), &why));
    EXPECT_NE(why.find("architecture"), std::string::npos) << why;
}

TEST(TorchConfig, BadValuesAreNamed) {
    EXPECT_TRUE(throws_mentioning([] { config_from_json_text(R"({"architecture": "torch", "d_model": 10, "nhead": 3})"); },
                                  "not divisible by 'nhead'"));
    EXPECT_TRUE(throws_mentioning([] { config_from_json_text(R"({"architecture": "torch", "activation": "tanh"})"); },
                                  "'activation'"));
    EXPECT_TRUE(throws_mentioning([] { config_from_json_text(R"({"architecture": "torch", "d_ff": 64})"); },
                                  "'d_ff' is a key of the tutorial's model"));
    EXPECT_TRUE(throws_mentioning([] { config_from_json_text(R"({"architecture": "keras"})"); }, "'architecture'"));
    EXPECT_TRUE(throws_mentioning(
        [] { config_from_json_text(R"({"architecture": "torch", "structure": "layers", "num_encoder_layers": 2})"); },
        "does not apply to the layer lab"));
    EXPECT_TRUE(throws_mentioning([] { config_from_json_text(R"({"architecture": "torch", "structure": "stack"})"); },
                                  "'structure'"));
    EXPECT_TRUE(throws_mentioning([] { config_from_json_text(R"({"architecture": "torch", "num_decoder_layers": 0})"); },
                                  "num_decoder_layers"));
}

TEST(TorchConfig, InitialisationIsPyTorchs) {
    const Config c = Config::torch_small();
    const ParamSet p = init_params(c, 5);
    const int D = c.d_model;
    const Tensor& w = p.at("transformer.encoder.layers.0.self_attn.in_proj_weight");
    const float xavier = std::sqrt(6.0f / float(D + 3 * D));
    float largest = 0.0f;
    for (float v : w.data) largest = std::max(largest, std::abs(v));
    EXPECT_LE(largest, xavier);
    EXPECT_GT(largest, 0.9f * xavier);
    for (float v : p.at("transformer.decoder.layers.1.multihead_attn.in_proj_bias").data) EXPECT_EQ(v, 0.0f);
    for (float v : p.at("transformer.encoder.norm.weight").data) EXPECT_EQ(v, 1.0f);
    EXPECT_EQ(p.at("generator.weight").shape, (Shape{c.tgt_vocab_size(), D}));
    EXPECT_EQ(p.name(p.size() - 1), "tgt_tok_emb.embedding.weight");
}

TEST(TorchConfig, AStateDictWithoutAConfigAsksForOne) {
    testutil::TempDir dir;
    const std::string path = dir.file("bare.safetensors");
    const Config c = Config::seed004();
    const ParamSet p = init_params(c, 1);
    std::vector<TensorToWrite> tensors;
    for (size_t i = 0; i < p.size(); ++i) tensors.push_back({p.name(i), &p[i]});
    write_safetensors(path, tensors, {});
    EXPECT_TRUE(throws_mentioning([&] { load_weights(path, nullptr); }, "\"architecture\": \"torch\""));
    EXPECT_NO_THROW(load_weights(path, &c));
}

struct Traced {
    Config config;
    std::set<std::string> params;
    Trace trace;
};

Traced seq2seq_trace(Config c) {
    Traced t{c, {}, {}};
    const ParamSet p = init_params(c, 11);
    for (size_t i = 0; i < p.size(); ++i) t.params.insert(p.name(i));
    Transformer model(c, p);
    const Batch b = make_batch(c, {"ich mochte ein bier P"}, {"S i want a beer ."}, {"i want a beer . E"});
    model.forward(b, t.trace);
    model.loss(b, t.trace);
    ParamSet g;
    model.backward(b, t.trace, g);
    return t;
}

Traced layers_trace(Config c) {
    Traced t{c, {}, {}};
    const ParamSet p = init_params(c, 12);
    for (size_t i = 0; i < p.size(); ++i) t.params.insert(p.name(i));
    Transformer model(c, p);
    Tensor src({3, 2, c.d_model}, 0.5f), tgt({4, 2, c.d_model}, -0.25f);
    for (size_t i = 0; i < src.data.size(); ++i) src.data[i] = std::sin(float(i));
    for (size_t i = 0; i < tgt.data.size(); ++i) tgt.data[i] = std::cos(float(i));
    const Batch b = make_layer_batch(c, src, c.decoder_layer ? tgt : Tensor{});
    model.forward(b, t.trace);
    ParamSet g;
    model.backward_from_output(b, t.trace, Tensor(t.trace.entries().back().value.shape, 1.0f), g);
    return t;
}

std::vector<Traced> every_shape() {
    std::vector<Traced> out;
    for (bool pre : {false, true}) {
        Config s = Config::torch_small();
        s.norm_first = pre;
        s.n_decoder_layers = 3;
        out.push_back(seq2seq_trace(s));
        Config lab = Config::seed004();
        lab.norm_first = pre;
        lab.decoder_layer = true;
        lab.n_decoder_layers = 1;
        lab.activation = pre ? "gelu" : "relu";
        out.push_back(layers_trace(lab));
    }
    return out;
}

TEST(TorchGraph, NamesParseBackToTheirBlocks) {
    for (const Traced& t : every_shape())
        for (const TraceEntry& e : t.trace.entries()) {
            const names::Parsed p = names::parse(e.name);
            EXPECT_EQ(p.block, e.block) << e.name;
            EXPECT_EQ(p.grad, e.role == Role::Gradient) << e.name;
            EXPECT_EQ(p.grad ? names::grad(names::entry(p.block, p.leaf)) : names::entry(p.block, p.leaf), e.name);
        }
}

TEST(TorchGraph, EveryInputIsAnEarlierEntryOrAParameterAndEveryParameterIsRead) {
    for (const Traced& t : every_shape()) {
        std::set<std::string> seen, read;
        for (const TraceEntry& e : t.trace.entries()) {
            for (const std::string& in : e.inputs) {
                if (t.trace.contains(in)) EXPECT_TRUE(seen.count(in)) << e.name << " reads " << in << " before it exists";
                else {
                    EXPECT_TRUE(t.params.count(in)) << e.name << " reads '" << in << "'";
                    read.insert(in);
                }
            }
            seen.insert(e.name);
        }
        EXPECT_EQ(read, t.params);
        // Every forward entry but the masks, the tables, the probabilities and the loss has its gradient.
        for (const TraceEntry& e : t.trace.entries()) {
            if (e.role == Role::Gradient || e.role == Role::AttnMask || e.role == Role::PositionalTable ||
                e.role == Role::Probs || e.role == Role::Loss || e.role == Role::LossPerToken)
                continue;
            EXPECT_TRUE(t.trace.contains(names::grad(e.name))) << e.name;
        }
    }
}

TEST(TorchGraph, BlocksSayWhereAStepSits) {
    const std::vector<Traced> all = every_shape();
    for (const Traced& t : all) {
        const Trace& tr = t.trace;
        const Config& c = t.config;
        const Naming n = c.layers() ? Naming::TorchLayers : Naming::TorchSeq2Seq;
        EXPECT_EQ(graph::layer_count(tr, Stack::Encoder), c.encoder_layers());
        EXPECT_EQ(graph::layer_count(tr, Stack::Decoder), c.decoder_layers());
        EXPECT_EQ(graph::attention_blocks(tr).size(), size_t(c.encoder_layers() + 2 * c.decoder_layers()));
        const Block sa{Stack::Encoder, BlockKind::SelfAttention, 0, n}, ff{Stack::Encoder, BlockKind::FeedForward, 0, n};
        const Block ca{Stack::Decoder, BlockKind::CrossAttention, 0, n};
        ASSERT_NE(graph::find(tr, sa, Role::LayerNorm), nullptr);
        EXPECT_EQ(graph::find(tr, sa, Role::LayerNorm)->name, names::entry(sa, "norm1"));
        EXPECT_EQ(graph::find(tr, ff, Role::Residual)->name, names::entry(ff, "add2"));
        EXPECT_EQ(graph::mask_of(tr, sa)->role, Role::AttnMask);
        EXPECT_EQ(graph::key_input(tr, ca), graph::stack_output(tr, Stack::Encoder));
        if (c.norm_first) {  // the sub-layer reads its own norm; the residual skips it
            EXPECT_EQ(graph::query_input(tr, sa), graph::find(tr, sa, Role::LayerNorm));
            EXPECT_EQ(graph::input(tr, *graph::find(tr, sa, Role::Residual), 0), graph::stack_input(tr, Stack::Encoder));
        } else {
            EXPECT_EQ(graph::query_input(tr, sa), graph::stack_input(tr, Stack::Encoder));
            EXPECT_EQ(graph::input(tr, *graph::find(tr, sa, Role::LayerNorm), 0), graph::find(tr, sa, Role::Residual));
        }
        if (c.layers()) {
            EXPECT_EQ(graph::stack_input(tr, Stack::Encoder)->name, "src");
            EXPECT_EQ(graph::output_probs(tr), nullptr);
        } else {
            EXPECT_EQ(graph::stack_output(tr, Stack::Encoder)->name, "transformer.encoder.norm.out");
            EXPECT_EQ(graph::output_probs(tr)->name, "generator.probs");
            EXPECT_EQ(graph::stack_input(tr, Stack::Decoder)->name, "tgt_positional_encoding.out");
        }
    }
}

}  // namespace

namespace {

// The positional buffer is recomputed: the fixture's (PyTorch's table) passes quietly, another
// table is said, not used silently.
TEST(TorchConfig, APositionalBufferThatIsNotTheSinusoidIsSaid) {
    const std::string fixture = fixtures::path("torch/seq2seq.weights.safetensors");
    const LoadedWeights good = load_weights(fixture, nullptr);
    EXPECT_TRUE(good.warnings.empty());
    SafetensorsFile f = read_safetensors(fixture);
    std::vector<TensorToWrite> tensors;
    for (StoredTensor& t : f.tensors) {
        if (t.name == "positional_encoding.pos_embedding") t.value.data[9] += 0.25f;
        tensors.push_back({t.name, &t.value});
    }
    testutil::TempDir dir;
    const std::string path = dir.file("changed.safetensors");
    write_safetensors(path, tensors, f.metadata);
    const LoadedWeights changed = load_weights(path, nullptr);
    ASSERT_EQ(changed.warnings.size(), 1u);
    EXPECT_NE(changed.warnings[0].text().find("is not the sinusoid table"), std::string::npos) << changed.warnings[0].text();
}

}  // namespace
