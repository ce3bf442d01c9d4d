// Every bad input gets a clear error: the exception's type, and a message that names the
// problem (the token, the key, the line, the option). Files: test_file_errors.cpp.
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
#include "temp_dir.h"

namespace fs = std::filesystem;
using namespace stepformer;
using json = nlohmann::json;

namespace {

using namespace errortest;
using testutil::TempDir;

// ---------------------------------------------------------------------------
// Sentences

TEST(SentenceErrors, UnknownTokenIsNamedWithTheVocabulary) {
    const Config c = Config::small();
    auto m = error_of<ConfigError>([&] { encode_sentence("ich mochte ein wein", c.src_vocab, c.src_len, "source"); });
    EXPECT_TRUE(mentions(m, {"unknown source token 'wein'", "ich mochte ein wein", kSrcVocab}));
    m = error_of<ConfigError>([&] { make_batch(c, {"ich mochte ein bier P"}, {"S i want a wine ."}); });
    EXPECT_TRUE(mentions(m, {"target token 'wine'", kTgtVocab}));
    m = error_of<ConfigError>(
        [&] { make_batch(c, {"ich mochte ein bier P"}, {"S i want a beer ."}, {"i want a beer . EOS"}); });
    EXPECT_TRUE(mentions(m, {"'EOS'", kTgtVocab}));
    // case matters: "Ich" is not "ich"
    m = error_of<ConfigError>([&] { make_batch(c, {"Ich mochte"}, {"S i"}); });
    EXPECT_TRUE(mentions(m, {"'Ich'"}));
    Transformer model(c, init_params(c, 1));
    m = error_of<ConfigError>([&] { greedy_decode(model, "ich mochte ein bier bitte"); });
    EXPECT_TRUE(mentions(m, {"'bitte'", kSrcVocab}));
}

// A Chinese keyboard's ideographic space (U+3000) and full-width forms read as their ASCII.
TEST(SentenceErrors, FullWidthInputReadsAsAscii) {
    const Config c = Config::small();
    const std::vector<int> plain = encode_sentence("ich mochte ein bier P", c.src_vocab, c.src_len, "source");
    EXPECT_EQ(encode_sentence("ich\u3000mochte\u3000ein bier\u3000\uFF30", c.src_vocab, c.src_len, "source"), plain);
    EXPECT_EQ(fold_full_width("S i want a beer \uFF0E\uFF01\uFF5E"), "S i want a beer .!~");
    EXPECT_EQ(fold_full_width("\u6CE8\u610F\u529B"), "\u6CE8\u610F\u529B");  // other characters stay
    EXPECT_EQ(fold_full_width("\xEF\xBC"), "\xEF\xBC");  // a cut sequence stays as it was
    auto m = error_of<ConfigError>([&] { encode_sentence("ich\u3000wein", c.src_vocab, c.src_len, "source"); });
    EXPECT_TRUE(mentions(m, {"unknown source token 'wein'"}));
}

TEST(SentenceErrors, TooLongSentencesNameTheLimit) {
    const Config c = Config::small();  // src_len 5, tgt_len 6
    auto m = error_of<ConfigError>([&] { make_batch(c, {"ich mochte ein bier cola ich"}, {"S i"}); });
    EXPECT_TRUE(mentions(m, {"source sentence", "has 6 tokens", "more than the length 5"}));
    m = error_of<ConfigError>([&] { make_batch(c, {"ich"}, {"S i want a beer . E"}); });
    EXPECT_TRUE(mentions(m, {"target sentence", "has 7 tokens", "more than the length 6"}));
    Transformer model(c, init_params(c, 1));
    m = error_of<ConfigError>([&] { greedy_decode(model, "ich ich ich ich ich ich"); });
    EXPECT_TRUE(mentions(m, {"more than the length 5"}));
    // exactly the limit is fine
    EXPECT_NO_THROW(make_batch(c, {"ich mochte ein bier cola"}, {"S i want a beer ."}));
}

TEST(SentenceErrors, EmptySentencesAndMismatchedBatches) {
    const Config c = Config::small();
    auto m = error_of<ConfigError>([&] { make_batch(c, {"   "}, {"S i"}); });
    EXPECT_TRUE(mentions(m, {"source sentence is empty"}));
    m = error_of<ConfigError>([&] { make_batch(c, {"ich", "ich"}, {"S i"}); });
    EXPECT_TRUE(mentions(m, {"2 source sentences but 1 target"}));
    m = error_of<ConfigError>([&] { make_batch(c, {}, {}); });
    EXPECT_TRUE(mentions(m, {"empty"}));
    m = error_of<ConfigError>([&] { make_batch(c, {"ich"}, {"S i"}, {"i E", "i E"}); });
    EXPECT_TRUE(mentions(m, {"2 expected outputs for 1"}));
}

// ---------------------------------------------------------------------------
// Configs

json good_config() { return config_to_json(Config::small()); }

std::string config_error(const json& j) {
    return error_of<ConfigError>([&] { config_from_json_text(j.dump(), "my.json"); });
}

TEST(ConfigErrors, TheGoodConfigParses) {
    const Config c = config_from_json_text(good_config().dump(), "my.json");
    EXPECT_TRUE(c.same_architecture(Config::small()));
    // the two optional keys default
    json j = good_config();
    j.erase("layer_norm_eps");
    j.erase("dropout");
    const Config d = config_from_json(j);
    EXPECT_EQ(d.layer_norm_eps, 1e-5);
    EXPECT_EQ(d.dropout, 0.1);
}

TEST(ConfigErrors, ZeroNegativeAndHugeSizes) {
    for (const char* key : {"d_model", "d_ff", "d_k", "d_v", "n_layers", "n_heads", "src_len", "tgt_len"}) {
        json j = good_config();
        j[key] = 0;
        EXPECT_TRUE(mentions(config_error(j), {"my.json", std::string("'") + key + "' must be positive, got 0"}));
        j[key] = -3;
        EXPECT_TRUE(mentions(config_error(j), {std::string("'") + key + "' must be positive, got -3"}));
    }
    json j = good_config();
    j["n_layers"] = 1000;
    EXPECT_TRUE(mentions(config_error(j), {"'n_layers' = 1000 is larger than the limit 64"}));
    j = good_config();
    j["d_model"] = 1e12;
    EXPECT_TRUE(mentions(config_error(j), {"'d_model'", "out of range"}));
    // Beyond any integer type (found by fuzzing: the old check converted it first, undefined).
    for (double huge : {4.4e68, -1e300, 9.3e18}) {
        j["d_model"] = huge;
        EXPECT_TRUE(mentions(config_error(j), {"'d_model'", "out of range"})) << huge;
    }
    j = good_config();
    j["d_k"] = 0;
    std::string text = j.dump();
    ASSERT_NE(text.find("\"d_k\":0"), std::string::npos) << text;
    text.replace(text.find("\"d_k\":0"), 7, "\"d_k\":444444444444444444444444444444444444444444444444448");
    try {
        config_from_json_text(text, "huge.json");
        ADD_FAILURE() << "a 51-digit d_k was accepted";
    } catch (const ConfigError& e) {
        EXPECT_TRUE(mentions(e.what(), {"'d_k'", "out of range"})) << e.what();
    }
    // A number no double holds is the JSON parser's out_of_range, not its parse_error (found by
    // fuzzing: it escaped as an nlohmann exception): still a ConfigError naming the file.
    text = j.dump();
    text.replace(text.find("\"d_k\":0"), 7, "\"d_k\":1e400");
    try {
        config_from_json_text(text, "overflow.json");
        ADD_FAILURE() << "1e400 was accepted";
    } catch (const ConfigError& e) {
        EXPECT_TRUE(mentions(e.what(), {"overflow.json", "not valid JSON"})) << e.what();
    }
    j = good_config();
    j["layer_norm_eps"] = 0.0;
    EXPECT_TRUE(mentions(config_error(j), {"'layer_norm_eps' must be in (0, 1]"}));
    j = good_config();
    j["dropout"] = 1.0;
    EXPECT_TRUE(mentions(config_error(j), {"'dropout' must be in [0, 1)"}));
}

TEST(ConfigErrors, MissingKeys) {
    for (const char* key : {"d_model", "d_ff", "d_k", "d_v", "n_layers", "n_heads", "src_vocab", "tgt_vocab", "src_len",
                            "tgt_len", "pad", "bos", "eos"}) {
        json j = good_config();
        j.erase(key);
        EXPECT_TRUE(mentions(config_error(j), {"my.json", std::string("missing key '") + key + "'"}));
    }
}

TEST(ConfigErrors, WrongTypes) {
    json j = good_config();
    j["d_model"] = "32";
    EXPECT_TRUE(mentions(config_error(j), {"'d_model' must be an integer", "\"32\""}));
    j["d_model"] = 32.5;
    EXPECT_TRUE(mentions(config_error(j), {"'d_model' must be an integer", "32.5"}));
    j["d_model"] = 32.0;  // an integral float is accepted
    EXPECT_EQ(config_from_json(j).d_model, 32);
    j = good_config();
    j["src_vocab"] = "P ich";
    EXPECT_TRUE(mentions(config_error(j), {"'src_vocab' has the wrong type"}));
    j["src_vocab"] = json::array({"P", 1});
    EXPECT_TRUE(mentions(config_error(j), {"'src_vocab' has the wrong type"}));
    j = good_config();
    j["pad"] = 0;
    EXPECT_TRUE(mentions(config_error(j), {"'pad' has the wrong type"}));
    j = good_config();
    j["dropout"] = "none";
    EXPECT_TRUE(mentions(config_error(j), {"'dropout' has the wrong type"}));
    EXPECT_TRUE(mentions(error_of<ConfigError>([] { config_from_json_text("[1, 2]", "my.json"); }),
                         {"my.json", "expected a JSON object"}));
    EXPECT_TRUE(mentions(error_of<ConfigError>([] { config_from_json_text("{\"d_model\": 3,", "my.json"); }),
                         {"my.json", "not valid JSON"}));
}

TEST(ConfigErrors, VocabularyRules) {
    json j = good_config();
    j["src_vocab"] = json::array({"ich", "P", "mochte"});
    EXPECT_TRUE(mentions(config_error(j), {"pad token 'P' must have id 0 in 'src_vocab'", "id 0 is 'ich'"}));
    j = good_config();
    j["tgt_vocab"] = json::array({"P", "i", "S", "E", "i"});
    EXPECT_TRUE(mentions(config_error(j), {"'tgt_vocab' lists 'i' twice"}));
    j = good_config();
    j["bos"] = "<s>";
    EXPECT_TRUE(mentions(config_error(j), {"'bos' = '<s>' is not in tgt_vocab"}));
    j = good_config();
    j["eos"] = "</s>";
    EXPECT_TRUE(mentions(config_error(j), {"'eos' = '</s>' is not in tgt_vocab"}));
    j = good_config();
    j["src_vocab"] = json::array();
    EXPECT_TRUE(mentions(config_error(j), {"'src_vocab' is empty"}));
    j = good_config();
    j["src_vocab"] = json::array({"P", "two words"});
    EXPECT_TRUE(mentions(config_error(j), {"'src_vocab'", "whitespace", "'two words'"}));
    j = good_config();
    j["eos"] = "S";
    EXPECT_TRUE(mentions(config_error(j), {"three different tokens"}));
}

TEST(ConfigErrors, FilesAndConstructors) {
    TempDir dir;
    auto m = error_of<ConfigError>([&] { load_config_file(dir.file("nope.json")); });
    EXPECT_TRUE(mentions(m, {"cannot open config file", "nope.json"}));
    json j = good_config();
    j["d_model"] = 0;
    std::ofstream(dir.file("bad.json")) << j.dump(2);
    m = error_of<ConfigError>([&] { load_config_file(dir.file("bad.json")); });
    EXPECT_TRUE(mentions(m, {"config file '" + dir.file("bad.json") + "'", "'d_model' must be positive"}));
    Config c = Config::small();
    c.n_heads = 0;
    m = error_of<ConfigError>([&] { Transformer(c, ParamSet{}); });
    EXPECT_TRUE(mentions(m, {"'n_heads' must be positive"}));
}

// ---------------------------------------------------------------------------
// TSV datasets

const std::string kGoodLine = "ich mochte ein bier P\tS i want a beer .\ti want a beer . E";

std::string tsv_error(const std::string& text) {
    return error_of<DataError>([&] { parse_tsv(text, Config::small(), "data.tsv"); });
}

TEST(TsvErrors, GoodFilesParse) {
    const auto ex = parse_tsv("# a comment\n\n" + kGoodLine + "\r\nich mochte ein cola\ti want a coke .\n",
                              Config::small(), "data.tsv");
    ASSERT_EQ(ex.size(), 2u);
    EXPECT_EQ(ex[0].dec_output, "i want a beer . E");  // the \r is gone
    EXPECT_EQ(ex[1].dec_input, "S i want a coke .");   // 2-column form: bos and eos added
    EXPECT_EQ(ex[1].dec_output, "i want a coke . E");
    // and to_tsv round-trips
    const auto again = parse_tsv(to_tsv(ex), Config::small(), "again");
    ASSERT_EQ(again.size(), 2u);
    EXPECT_EQ(again[1].enc_input, ex[1].enc_input);
}

TEST(TsvErrors, WrongColumnCountNamesTheLine) {
    auto m = tsv_error("# header\n" + kGoodLine + "\n" + kGoodLine + "\textra\n");
    EXPECT_TRUE(mentions(m, {"data.tsv line 3:", "expected 2 columns", "or 3", "found 4"}));
    m = tsv_error(kGoodLine + "\nich mochte ein bier P\n");
    EXPECT_TRUE(mentions(m, {"line 2:", "found 1"}));
}

TEST(TsvErrors, EmptyColumn) {
    const auto m = tsv_error("ich mochte\t  \ti want E\n");
    EXPECT_TRUE(mentions(m, {"line 1:", "column 2 is empty"}));
}

TEST(TsvErrors, DecInputAndOutputLengthsDiffer) {
    const auto m = tsv_error(kGoodLine + "\n\nich mochte ein bier P\tS i want a beer .\ti want a beer E\n");
    EXPECT_TRUE(mentions(m, {"line 3:", "dec_input has 6 tokens but dec_output has 5"}));
    const auto m2 = tsv_error("ich\ti want\ti want E\n");
    EXPECT_TRUE(mentions(m2, {"line 1:", "must start with the start token 'S'"}));
}

TEST(TsvErrors, UnknownTokenAndTooLong) {
    auto m = tsv_error(kGoodLine + "\nich mochte ein wein P\tS i want a beer .\ti want a beer . E\n");
    EXPECT_TRUE(mentions(m, {"line 2:", "unknown source token 'wein'", kSrcVocab}));
    m = tsv_error("ich\ti want a lager\n");
    EXPECT_TRUE(mentions(m, {"line 1:", "'lager'", kTgtVocab}));
    m = tsv_error("ich\ti want a beer . .\n");  // + bos = 7 > tgt_len 6
    EXPECT_TRUE(mentions(m, {"line 1:", "more than the length 6"}));
}

TEST(TsvErrors, NoExamplesAndMissingFile) {
    EXPECT_TRUE(mentions(tsv_error("# only a comment\n\n   \n"), {"data.tsv", "no examples"}));
    auto m = error_of<DataError>([] { load_tsv("/nonexistent/dir/data.tsv", Config::small()); });
    EXPECT_TRUE(mentions(m, {"cannot open dataset", "/nonexistent/dir/data.tsv"}));
    TempDir dir;
    std::ofstream(dir.file("d.tsv")) << "ich\t\n";
    m = error_of<DataError>([&] { load_tsv(dir.file("d.tsv"), Config::small()); });
    EXPECT_TRUE(mentions(m, {"dataset '" + dir.file("d.tsv") + "' line 1", "column 2 is empty"}));
}

// ---------------------------------------------------------------------------
// Training options

std::string train_option_error(const TrainOptions& to) {
    return error_of<std::invalid_argument>([&] { to.validate(); });
}

TEST(TrainOptionErrors, EpochsAndBatchSizeOutOfRange) {
    TrainOptions to;
    EXPECT_NO_THROW(to.validate());
    for (int e : {0, -5, 1000001}) {
        to.epochs = e;
        EXPECT_TRUE(
            mentions(train_option_error(to), {"epochs must be between 1 and 1000000, got " + std::to_string(e)}));
    }
    to.epochs = 1;
    to.batch_size = 0;
    EXPECT_TRUE(mentions(train_option_error(to), {"batch size", "got 0"}));
}

TEST(TrainOptionErrors, LearningRateAndOptimizerHyperparameters) {
    for (double lr : {-1.0, 0.0, 101.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
        TrainOptions to;
        to.optimizer.lr = lr;
        EXPECT_TRUE(mentions(train_option_error(to), {"learning rate must be in (0, 100]"})) << lr;
    }
    TrainOptions to;
    to.optimizer.lr = -1;
    EXPECT_TRUE(mentions(train_option_error(to), {"got -1"}));
    to = TrainOptions{};
    to.optimizer.momentum = 1.0;
    EXPECT_TRUE(mentions(train_option_error(to), {"momentum must be in [0, 1)"}));
    to = TrainOptions{};
    to.optimizer.beta2 = 1.0;
    EXPECT_TRUE(mentions(train_option_error(to), {"Adam betas"}));
    to = TrainOptions{};
    to.optimizer.eps = 0.0;
    EXPECT_TRUE(mentions(train_option_error(to), {"eps must be positive"}));
    to = TrainOptions{};
    to.optimizer.warmup_schedule = true;
    to.optimizer.warmup_steps = 0;
    EXPECT_TRUE(mentions(train_option_error(to), {"warm-up steps must be positive"}));
    EXPECT_TRUE(mentions(error_of<std::invalid_argument>([] { optimizer_from_name("rmsprop"); }),
                         {"unknown optimizer 'rmsprop'", "sgd, adam or adamw"}));
    // the optimizer and the trainer check on construction
    const Config c = Config::small();
    Transformer model(c, init_params(c, 1));
    OptimizerOptions bad;
    bad.lr = 0;
    EXPECT_THROW(Optimizer(bad, model.params()), std::invalid_argument);
    to = TrainOptions{};
    to.epochs = 0;
    EXPECT_TRUE(mentions(error_of<std::invalid_argument>([&] { Trainer(model, builtin_examples(), to); }), {"epochs"}));
    EXPECT_TRUE(mentions(error_of<DataError>([&] { Trainer(model, {}, TrainOptions{}); }), {"dataset is empty"}));
    std::vector<Example> bad_data = builtin_examples();
    bad_data.push_back({"ich", "S i want a lager", "i want a lager E"});
    EXPECT_TRUE(
        mentions(error_of<DataError>([&] { Trainer(model, bad_data, TrainOptions{}); }), {"example 3", "'lager'"}));
}

}  // namespace
