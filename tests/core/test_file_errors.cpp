// Every bad file gets a clear error naming the problem (the tensor, the path, expected and found),
// and the failure modes of saving: an interrupted or impossible save leaves the previous
// checkpoint loadable. Also the model's misuse. (Sentences, configs, datasets, options:
// test_errors.cpp.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "stepformer/trace_graph.h"
#include "stepformer/atomic_file.h"
#include "stepformer/checkpoint.h"
#include "stepformer/dataset.h"
#include "stepformer/decode.h"
#include "stepformer/model_io.h"
#include "stepformer/optimizer.h"
#include "stepformer/safetensors.h"
#include "stepformer/train.h"
#include "error_helpers.h"

namespace fs = std::filesystem;
using namespace stepformer;
using json = nlohmann::json;

namespace {

using namespace errortest;
using testutil::TempDir;

// ---------------------------------------------------------------------------
// Weights files

// Writes `params` as the file the loader expects, minus `skip`, with `extra` tensors and the
// config in the metadata unless `meta_config` is null.
void write_weights(const std::string& path, const ParamSet& params, const Config* meta_config,
                   const std::string& skip = {}, const std::vector<std::pair<std::string, Tensor>>& extra = {}) {
    std::vector<TensorToWrite> items;
    for (size_t i = 0; i < params.size(); ++i)
        if (params.name(i) != skip) items.push_back({params.name(i), &params[i], DType::F32});
    for (const auto& [name, t] : extra) items.push_back({name, &t, DType::F32});
    std::map<std::string, std::string> meta;
    if (meta_config) meta["stepformer.config"] = config_to_json_text(*meta_config, -1);
    write_safetensors(path, items, meta);
}

class WeightsErrors : public ::testing::Test {
protected:
    TempDir dir;
    Config c = Config::small();
    ParamSet params = init_params(c, 1);
    std::string path = dir.file("w.safetensors");
};

TEST_F(WeightsErrors, TheGoodFileLoadsExactly) {
    write_weights(path, params, &c, {}, {{"encoder.pos_emb.pe", positional_table(5, 32)}});
    const LoadedWeights w = load_weights(path, nullptr);
    EXPECT_TRUE(w.config_from_file);
    EXPECT_EQ(w.ignored, std::vector<std::string>{"encoder.pos_emb.pe"});
    for (size_t i = 0; i < params.size(); ++i) EXPECT_EQ(w.params[i].data, params[i].data) << params.name(i);
}

TEST_F(WeightsErrors, MissingWeightIsNamed) {
    const std::string name = "decoder.layers.1.dec_enc_attn.W_V.weight";
    write_weights(path, params, &c, name);
    auto m = error_of<WeightsError>([&] { load_weights(path, nullptr); });
    EXPECT_TRUE(mentions(m, {path, "missing parameter '" + name + "'", "[32, 32]"}));
    // Learned LayerNorm parameters may be absent from a file: defaulted to 1/0, not an error.
    Config learned = c;
    learned.learn_layer_norm = true;
    const ParamSet lp = init_params(learned, 1);
    write_weights(path, lp, &learned, "encoder.layers.0.pos_ffn.layer_norm.weight");
    const LoadedWeights w = load_weights(path, nullptr);
    EXPECT_TRUE(w.config.learn_layer_norm);
    EXPECT_EQ(w.defaulted, std::vector<std::string>{"encoder.layers.0.pos_ffn.layer_norm.weight"});
    for (float v : w.params.at("encoder.layers.0.pos_ffn.layer_norm.weight").data) EXPECT_EQ(v, 1.0f);
}

// ---------------------------------------------------------------------------
// LayerNorm gamma/beta: the tutorial's model has none; "learn_layer_norm": true has them.

TEST_F(WeightsErrors, TheTutorialsModelHasNoLayerNormParameters) {
    EXPECT_FALSE(c.learn_layer_norm);
    for (const auto& sp : param_specs(c)) EXPECT_EQ(sp.name.find("layer_norm"), std::string::npos) << sp.name;
    Config learned = c;
    learned.learn_layer_norm = true;
    // two per attention block and FFN: (1 + 1) encoder + (2 + 1) decoder blocks per layer
    EXPECT_EQ(param_specs(learned).size(), param_specs(c).size() + size_t(2 * 5 * c.n_layers));
}

TEST_F(WeightsErrors, LayerNormAtOneAndZeroIsSkippedWhenNotLearned) {
    Config learned = c;
    learned.learn_layer_norm = true;
    const ParamSet lp = init_params(learned, 1);  // gamma = 1, beta = 0
    write_weights(path, lp, &c);                  // config says: not learned
    const LoadedWeights w = load_weights(path, nullptr);
    EXPECT_FALSE(w.config.learn_layer_norm);
    EXPECT_EQ(w.params.size(), param_specs(c).size());
    ASSERT_EQ(w.notes.size(), 1u);
    EXPECT_TRUE(mentions(w.notes[0].text(), {std::to_string(2 * 5 * c.n_layers) + " LayerNorm", "exactly 1 and 0"}));
    EXPECT_TRUE(w.warnings.empty());
    for (size_t i = 0; i < w.params.size(); ++i) EXPECT_EQ(w.params[i].data, lp.at(w.params.name(i)).data);
}

TEST_F(WeightsErrors, TrainedLayerNormNamesTheOptionWhenNotLearned) {
    Config learned = c;
    learned.learn_layer_norm = true;
    ParamSet lp = init_params(learned, 1);
    lp.at("decoder.layers.1.dec_enc_attn.layer_norm.bias").data[5] = 0.25f;
    write_weights(path, lp, &c);
    auto m = error_of<WeightsError>([&] { load_weights(path, nullptr); });
    EXPECT_TRUE(mentions(m, {path, "'decoder.layers.1.dec_enc_attn.layer_norm.bias'", "0.25", "index 5",
                             "\"learn_layer_norm\": true"}));
    // the same with the config given on the command line
    m = error_of<WeightsError>([&] { load_weights(path, &c); });
    EXPECT_TRUE(mentions(m, {"\"learn_layer_norm\": true"}));
    // and with the option on, it loads as it is
    const LoadedWeights w = load_weights(path, &learned);
    EXPECT_EQ(w.params.at("decoder.layers.1.dec_enc_attn.layer_norm.bias").data[5], 0.25f);
}

TEST_F(WeightsErrors, ACheckpointFromBeforeTheOptionOpensWithItsTrainedLayerNorm) {
    // An earlier Stepformer learned gamma/beta and wrote a config without "learn_layer_norm".
    Config learned = c;
    learned.learn_layer_norm = true;
    ParamSet lp = init_params(learned, 1);
    lp.at("encoder.layers.0.enc_self_attn.layer_norm.weight").data[0] = 1.5f;
    nlohmann::json old = nlohmann::json::parse(config_to_json_text(c));
    old.erase("learn_layer_norm");
    std::vector<TensorToWrite> items;
    for (size_t i = 0; i < lp.size(); ++i) items.push_back({lp.name(i), &lp[i], DType::F32});
    write_safetensors(path, items, {{"stepformer.config", old.dump()}});
    const LoadedWeights w = load_weights(path, nullptr);
    EXPECT_TRUE(w.config.learn_layer_norm);
    EXPECT_EQ(w.params.at("encoder.layers.0.enc_self_attn.layer_norm.weight").data[0], 1.5f);
    ASSERT_EQ(w.warnings.size(), 1u);
    EXPECT_TRUE(mentions(w.warnings[0].text(), {path, "earlier Stepformer", "\"learn_layer_norm\": true", "retrain"}));
    // Forced to the tutorial's semantics by an explicit config, it refuses and says why.
    auto m = error_of<WeightsError>([&] { load_weights(path, &c); });
    EXPECT_TRUE(mentions(m, {"\"learn_layer_norm\": true", "earlier Stepformer"}));
}

TEST_F(WeightsErrors, MisshapenWeightGivesExpectedAndFound) {
    write_weights(path, params, &c, "projection.weight", {{"projection.weight", Tensor({9, 31})}});
    auto m = error_of<WeightsError>([&] { load_weights(path, nullptr); });
    EXPECT_TRUE(mentions(m, {"'projection.weight'", "has shape [9, 31]", "expected [9, 32]"}));
    // a transposed matrix is caught too
    const Tensor& fc0 = params.at("encoder.layers.0.pos_ffn.fc.0.weight");  // (64, 32)
    write_weights(path, params, &c, "encoder.layers.0.pos_ffn.fc.0.weight",
                  {{"encoder.layers.0.pos_ffn.fc.0.weight", Tensor({32, 64}, fc0.data)}});
    m = error_of<WeightsError>([&] { load_weights(path, nullptr); });
    EXPECT_TRUE(mentions(m, {"'encoder.layers.0.pos_ffn.fc.0.weight'", "has shape [32, 64]", "expected [64, 32]"}));
}

TEST_F(WeightsErrors, UnexpectedExtraTensorIsNamed) {
    write_weights(path, params, &c, {}, {{"encoder.layers.2.pos_ffn.fc.0.weight", Tensor({64, 32})}});
    auto m = error_of<WeightsError>([&] { load_weights(path, nullptr); });
    EXPECT_TRUE(mentions(m, {"unexpected tensor 'encoder.layers.2.pos_ffn.fc.0.weight'", "[64, 32]", "n_layers=2"}));
}

TEST_F(WeightsErrors, NaNAndInfinityAreRejected) {
    const float inf = std::numeric_limits<float>::infinity();
    for (float bad : {std::numeric_limits<float>::quiet_NaN(), inf, -inf}) {
        ParamSet p = params;
        p.at("decoder.layers.0.pos_ffn.fc.2.weight").data[17] = bad;
        p.at("decoder.layers.0.pos_ffn.fc.2.weight").data[40] = 1e30f * 1e30f;  // +inf
        write_weights(path, p, &c);
        auto m = error_of<WeightsError>([&] { load_weights(path, nullptr); });
        const char* value = std::isnan(bad) ? "the first, NaN," : bad > 0 ? "the first, +inf," : "the first, -inf,";
        EXPECT_TRUE(mentions(m, {path, "'decoder.layers.0.pos_ffn.fc.2.weight'", "holds 2 NaN or infinite values", value,
                                 "at entry 17"}));
    }
}

TEST_F(WeightsErrors, NaNAndInfinityAreReportedWhenAskedAndTrainingRefusesThem) {
    ParamSet p = params;
    p.at("encoder.layers.0.pos_ffn.fc.0.weight").data[5] = std::numeric_limits<float>::quiet_NaN();
    p.at("decoder.layers.1.pos_ffn.fc.2.weight").data[0] = -std::numeric_limits<float>::infinity();
    p.at("decoder.layers.1.pos_ffn.fc.2.weight").data[3] = std::numeric_limits<float>::infinity();
    write_weights(path, p, &c);
    // The app's way: the model opens as the file holds it, the bad parameters listed in order.
    const LoadedWeights w = load_weights(path, nullptr, NonFiniteWeights::Report);
    ASSERT_EQ(w.not_finite.size(), 2u);
    EXPECT_EQ(w.not_finite[0].name, "encoder.layers.0.pos_ffn.fc.0.weight");
    EXPECT_EQ(w.not_finite[0].count, 1);
    EXPECT_EQ(w.not_finite[0].first_index, 5);
    EXPECT_EQ(w.not_finite[1].name, "decoder.layers.1.pos_ffn.fc.2.weight");
    EXPECT_EQ(w.not_finite[1].count, 2);
    EXPECT_EQ(w.not_finite[1].first_value, -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(w.params.at("encoder.layers.0.pos_ffn.fc.0.weight").data[5]));  // kept, not repaired
    EXPECT_EQ(non_finite_parameters(w.params).size(), 2u);
    // A clean file reports nothing.
    write_weights(path, params, &c);
    EXPECT_TRUE(load_weights(path, nullptr, NonFiniteWeights::Report).not_finite.empty());

    // Training from such weights is refused before any step, naming the first bad parameter.
    Transformer model(c, w.params);
    auto m = error_of<WeightsError>([&] { Trainer(model, builtin_examples(c), TrainOptions{}); });
    EXPECT_TRUE(mentions(m, {"training cannot start from these weights", "'encoder.layers.0.pos_ffn.fc.0.weight'",
                             "holds 1 NaN or infinite values", "at entry 5"}));
}

TEST_F(WeightsErrors, ConfigInTheFileMustMatchTheGivenConfig) {
    write_weights(path, params, &c);
    Config other = c;
    other.d_model = 16;
    auto m = error_of<WeightsError>([&] { load_weights(path, &other); });
    EXPECT_TRUE(mentions(m, {path, "different model than the given config", "'d_model' differs: 32 vs 16"}));
    other = c;
    other.tgt_vocab.push_back("bitte");
    m = error_of<WeightsError>([&] { load_weights(path, &other); });
    EXPECT_TRUE(mentions(m, {"'tgt_vocab' differs"}));
    // lengths, dropout etc. are not architecture: the given config wins
    other = c;
    other.src_len = 9;
    EXPECT_EQ(load_weights(path, &other).config.src_len, 9);
}

TEST_F(WeightsErrors, NoConfigAnywhereOrABrokenOne) {
    // Without a config a file can only be the tutorial's model; this one is smaller.
    write_weights(path, params, nullptr);
    auto m = error_of<WeightsError>([&] { load_weights(path, nullptr); });
    EXPECT_TRUE(mentions(m, {path, "carry no config", "not the tutorial's model", "'encoder.src_emb.weight'",
                             "has shape [6, 32]", "the tutorial's is [6, 512]", "--config"}));
    EXPECT_NO_THROW(load_weights(path, &c));
    std::vector<TensorToWrite> items{{params.name(0), &params[0], DType::F32}};
    write_safetensors(path, items, {{"stepformer.config", "{\"d_model\": "}});
    m = error_of<ConfigError>([&] { load_weights(path, nullptr); });
    EXPECT_TRUE(mentions(m, {"config in the metadata of '" + path + "'", "not valid JSON"}));
}

TEST_F(WeightsErrors, TruncatedOrCorruptFiles) {
    write_weights(path, params, &c);
    const auto good = slurp(path);
    ASSERT_GT(good.size(), 1000u);
    uint64_t header_len = 0;
    std::memcpy(&header_len, good.data(), 8);

    auto load_error = [&](const std::vector<uint8_t>& bytes) {
        const std::string bad = dir.file("bad.safetensors");
        put(bad, bytes);
        return error_of<SafetensorsError>([&] { load_weights(bad, &c); });
    };
    // cut in the data section: the last tensors' offsets run past the end
    auto m = load_error(std::vector<uint8_t>(good.begin(), good.begin() + long(good.size() / 2)));
    EXPECT_TRUE(mentions(m, {"bad.safetensors", "out of range"}));
    // cut inside the header
    m = load_error(std::vector<uint8_t>(good.begin(), good.begin() + 8 + long(header_len / 2)));
    EXPECT_TRUE(mentions(m, {"bad.safetensors", "truncated"}));
    // shorter than the length prefix
    m = load_error(std::vector<uint8_t>(good.begin(), good.begin() + 5));
    EXPECT_TRUE(mentions(m, {"5 bytes", "8-byte header length"}));
    // a text file
    const std::string text = "this is not a safetensors file at all, just some words\n";
    m = load_error(std::vector<uint8_t>(text.begin(), text.end()));
    EXPECT_TRUE(mentions(m, {"bad.safetensors", "not a safetensors file"}));
    // the header's JSON damaged
    auto broken = good;
    broken[8] = '[';
    m = load_error(broken);
    EXPECT_TRUE(mentions(m, {"bad.safetensors", "not valid JSON"}));
    // a missing file names the path and the reason
    m = error_of<SafetensorsError>([&] { load_weights(dir.file("missing.safetensors"), &c); });
    EXPECT_TRUE(mentions(m, {"missing.safetensors", "No such file or directory"}));
    // and through load_model, as the CLI calls it
    ModelSource src;
    src.weights_path = dir.file("bad.safetensors");
    EXPECT_THROW(load_model(src), SafetensorsError);
}

TEST_F(WeightsErrors, ParamSetNotMatchingTheConfig) {
    ParamSet wrong = init_params(c, 1);
    wrong.at("decoder.layers.0.dec_self_attn.fc.weight") = Tensor({32, 31});
    auto m = error_of<WeightsError>([&] { Transformer(c, wrong); });
    EXPECT_TRUE(mentions(m, {"'decoder.layers.0.dec_self_attn.fc.weight' [32, 31]", "[32, 32]"}));
    Config one = c;
    one.n_layers = 1;
    m = error_of<WeightsError>([&] { Transformer(c, init_params(one, 1)); });
    EXPECT_TRUE(mentions(m, {"parameter set has", "tensors, the config needs"}));
}

// ---------------------------------------------------------------------------
// Dumps to places that cannot be written

TEST(DumpErrors, DirectoryThatDoesNotExist) {
    TempDir dir;
    const Config c = Config::small();
    Transformer model(c, init_params(c, 1));
    Trace t;
    model.forward(make_batch(c, {"ich"}, {"S"}), t);
    const std::string path = dir.file("no_such_dir") + "/trace.safetensors";
    auto m = error_of<SafetensorsError>([&] { write_trace(path, t, c); });
    EXPECT_TRUE(mentions(m, {path, "No such file or directory"}));
    EXPECT_FALSE(fs::exists(dir.file("no_such_dir")));
    EXPECT_TRUE(dir.entries().empty());
    m = error_of<SafetensorsError>([&] { save_weights(path, c, model.params()); });
    EXPECT_TRUE(mentions(m, {path, "No such file or directory"}));
}

TEST(DumpErrors, PathIsADirectory) {
    TempDir dir;
    const Config c = Config::small();
    Transformer model(c, init_params(c, 1));
    Trace t;
    model.forward(make_batch(c, {"ich"}, {"S"}), t);
    fs::create_directory(dir.file("sub"));
    auto m = error_of<SafetensorsError>([&] { write_trace(dir.file("sub"), t, c); });
    EXPECT_TRUE(mentions(m, {dir.file("sub"), "Is a directory"}));
    EXPECT_TRUE(fs::is_directory(dir.file("sub")));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"sub"});  // no temporary file left behind
    EXPECT_TRUE(fs::is_empty(dir.file("sub")));
}

// ---------------------------------------------------------------------------
// Checkpoints

class CheckpointErrors : public ::testing::Test {
protected:
    TempDir dir;
    Config c = Config::small();
    std::string path = dir.file("ck.safetensors");

    // A model whose weights differ from the first one's, and an optimizer with state.
    void trained_pair(Transformer& a, Optimizer& opt) {
        Trace t;
        const Batch b = make_training_batch(c, builtin_examples(), {0, 1});
        a.forward(b, t);
        a.loss(b, t);
        ParamSet g;
        a.backward(b, t, g, false);
        opt.step(a.params(), g, a.backend());
    }
};

TEST_F(CheckpointErrors, InterruptedSaveLeavesThePreviousCheckpointLoadable) {
    Transformer a(c, init_params(c, 1));
    OptimizerOptions oo;
    oo.kind = OptimizerKind::Adam;
    Optimizer opt(oo, a.params());
    trained_pair(a, opt);
    save_checkpoint(path, a, &opt);
    const auto before = slurp(path);

    Transformer b(c, init_params(c, 2));
    for (int fail_after : {0, 100, int(before.size()) - 1}) {
        set_atomic_write_fault_for_testing(fail_after);
        auto m = error_of<std::runtime_error>([&] { save_checkpoint(path, b); });
        EXPECT_TRUE(mentions(m, {path, "simulated interruption"}));
        EXPECT_EQ(slurp(path), before) << "after a fault at byte " << fail_after;
        EXPECT_EQ(dir.entries(), std::vector<std::string>{"ck.safetensors"});  // the partial temp file is gone
        const Checkpoint ck = load_checkpoint(path, &c);
        for (size_t i = 0; i < a.params().size(); ++i) ASSERT_EQ(ck.params[i].data, a.params()[i].data);
        ASSERT_TRUE(ck.optimizer_json.has_value());
        Optimizer restored(oo, ck.params);
        restore_optimizer(ck, restored);
        EXPECT_EQ(restored.step_count(), 1);
    }
    // the hook fired once per arming; the next save goes through
    save_checkpoint(path, b);
    EXPECT_EQ(load_checkpoint(path).params[0].data, b.params()[0].data);
}

TEST_F(CheckpointErrors, SaveToAnUnwritablePlaceLeavesTheOldCheckpointIntact) {
    Transformer a(c, init_params(c, 1)), b(c, init_params(c, 2));
    // (1) The checkpoint's name leaves no room for the temporary file beside it (its name
    // would exceed NAME_MAX), so the save cannot even start -- this works even as root.
    const std::string long_name = dir.file(std::string(240, 'c') + ".st");
    save_checkpoint(path, a);
    fs::rename(path, long_name);
    const auto before = slurp(long_name);
    auto m = error_of<std::runtime_error>([&] { save_checkpoint(long_name, b); });
    EXPECT_TRUE(mentions(m, {long_name, "File name too long"}));
    EXPECT_EQ(slurp(long_name), before);
    EXPECT_EQ(load_checkpoint(long_name).params[3].data, a.params()[3].data);

    // (2) A path "inside" the old checkpoint file, as if it were a directory.
    save_checkpoint(path, a);
    const auto before2 = slurp(path);
    m = error_of<std::runtime_error>([&] { save_checkpoint(path + "/new.safetensors", b); });
    EXPECT_TRUE(mentions(m, {path + "/new.safetensors", "Not a directory"}));
    EXPECT_EQ(slurp(path), before2);

    // (3) A read-only directory (not enforced for root, which may write anywhere).
    fs::permissions(dir.file(""), fs::perms::owner_read | fs::perms::owner_exec, fs::perm_options::replace);
    bool failed = false;
    try {
        save_checkpoint(path, b);
    } catch (const std::runtime_error& e) {
        failed = true;
        EXPECT_TRUE(mentions(e.what(), {path, "Permission denied"}));
    }
    fs::permissions(dir.file(""), fs::perms::owner_all, fs::perm_options::replace);
    EXPECT_EQ(failed, ::geteuid() != 0);
    EXPECT_EQ(load_checkpoint(path).params[3].data, (failed ? a : b).params()[3].data);
}

TEST_F(CheckpointErrors, ConfigMismatchAndOptimizerMismatch) {
    Transformer a(c, init_params(c, 1));
    Optimizer sgd(OptimizerOptions{}, a.params());
    trained_pair(a, sgd);
    save_checkpoint(path, a, &sgd);
    Config other = c;
    other.n_layers = 1;
    auto m = error_of<WeightsError>([&] { load_checkpoint(path, &other); });
    EXPECT_TRUE(mentions(m, {path, "'n_layers' differs: 2 vs 1"}));
    other = c;
    other.n_heads = 2;
    other.d_k = 16;
    m = error_of<WeightsError>([&] { load_checkpoint(path, &other); });
    EXPECT_TRUE(mentions(m, {"'d_k' differs: 8 vs 16"}));
    // SGD state restored into Adam
    const Checkpoint ck = load_checkpoint(path, &c);
    OptimizerOptions adam;
    adam.kind = OptimizerKind::Adam;
    Optimizer opt(adam, ck.params);
    m = error_of<std::runtime_error>([&] { restore_optimizer(ck, opt); });
    EXPECT_TRUE(mentions(m, {"optimizer state is for sgd", "training uses adam"}));
    // a state missing a tensor
    Optimizer sgd2(OptimizerOptions{}, ck.params);
    m = error_of<std::runtime_error>([&] { sgd2.load_state(sgd.state_json(), {}); });
    EXPECT_TRUE(mentions(m, {"missing tensor 'optim.encoder.src_emb.weight.momentum_buffer'"}));
    m = error_of<std::runtime_error>([&] { sgd2.load_state("{not json", {}); });
    EXPECT_TRUE(mentions(m, {"not valid JSON"}));
    // Well-formed JSON of the wrong shape: a runtime_error saying what, not the JSON library's
    m = error_of<std::runtime_error>([&] { sgd2.load_state("[1, 2]", {}); });
    EXPECT_TRUE(mentions(m, {"optimizer state", "not a JSON object", "array"}));
    m = error_of<std::runtime_error>([&] { sgd2.load_state(R"({"kind": 3})", {}); });
    EXPECT_TRUE(mentions(m, {"optimizer state", "\"kind\" must be a string"}));
    m = error_of<std::runtime_error>([&] { sgd2.load_state(R"({"kind": "sgd", "step": "ten"})", {}); });
    EXPECT_TRUE(mentions(m, {"\"step\" a whole number"}));
    m = error_of<std::runtime_error>([&] { sgd2.load_state(R"({"kind": "sgd", "step": -3})", {}); });
    EXPECT_TRUE(mentions(m, {"step -3 is negative"}));
}

// ---------------------------------------------------------------------------
// Misuse of the model API

TEST(ModelMisuse, BadIdsMissingTargetsAndOrder) {
    const Config c = Config::small();
    Transformer model(c, init_params(c, 1));
    Batch b = make_training_batch(c, builtin_examples(), {0});
    Trace t;
    Batch bad = b;
    bad.src[2] = 6;  // src_vocab has 6 entries
    EXPECT_TRUE(
        mentions(error_of<std::invalid_argument>([&] { model.forward(bad, t); }), {"source id out of the vocabulary"}));
    bad = b;
    bad.tgt[0] = -1;
    EXPECT_TRUE(
        mentions(error_of<std::invalid_argument>([&] { model.forward(bad, t); }), {"target id out of the vocabulary"}));
    bad = b;
    bad.S = 4;
    EXPECT_TRUE(mentions(error_of<std::invalid_argument>([&] { model.forward(bad, t); }), {"malformed batch"}));
    model.forward(b, t);
    ParamSet g;
    EXPECT_TRUE(
        mentions(error_of<std::logic_error>([&] { model.backward(b, t, g); }), {"call loss() after forward()"}));
    Batch no_out = b;
    no_out.out.clear();
    EXPECT_TRUE(mentions(error_of<std::invalid_argument>([&] { model.loss(no_out, t); }), {"no expected outputs"}));
    Config dc = c;
    dc.dropout = 0.5;
    Transformer dm(dc, init_params(dc, 1));
    // Dropout needs no generator object (whose absence was a misuse): (seed, step) decide the
    // masks, the same ones every time.
    ForwardOptions fo;
    fo.train = true;
    Trace t1, t2, t3;
    dm.forward(b, t1, fo);
    dm.forward(b, t2, fo);
    fo.step = 1;
    dm.forward(b, t3, fo);
    const auto keep = [](const Trace& t, Stack s) { return graph::stack_input(t, s)->saved.keep.data; };
    ASSERT_FALSE(keep(t1, Stack::Encoder).empty());
    EXPECT_EQ(keep(t1, Stack::Encoder), keep(t2, Stack::Encoder));
    EXPECT_NE(keep(t1, Stack::Encoder), keep(t3, Stack::Encoder));
    EXPECT_NE(keep(t1, Stack::Encoder), keep(t1, Stack::Decoder));
}

}  // namespace
