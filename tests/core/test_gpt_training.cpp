// nanoGPT's model trained as its reference does (tests/reference/make_gpt_fixtures.py): 30 steps
// of SGD (lr 0.1, momentum 0.9) and 30 of AdamW as configure_optimizers sets it up (lr 1e-2,
// betas 0.9/0.95, eps 1e-8, weight decay 0.1 on the tensors of 2 or more dimensions) on the whole
// toy batch, every loss and the final weights; then generate() from the trained weights, greedy
// (every new word of nanoGPT's loop, which does not stop at eos) and one step's temperature and
// top-k distribution. On every registered backend.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "copy_backend.h"
#include "fixture_util.h"
#include "stepformer/dataset.h"
#include "stepformer/decode.h"
#include "stepformer/params.h"
#include "stepformer/safetensors.h"
#include "stepformer/train.h"

using namespace stepformer;

namespace {

constexpr double kTol = 1e-4;

std::string gpt_path(const std::string& name) { return fixtures::path("gpt/" + name); }

// The toy batch exactly as the reference made it: its rows' inputs and targets.
std::vector<Example> toy_examples() {
    const auto in = fixtures::read_json("gpt/toy.inputs.json");
    const auto inputs = in.at("inputs").get<std::vector<std::string>>(), targets = in.at("targets").get<std::vector<std::string>>();
    std::vector<Example> ex;
    for (size_t i = 0; i < inputs.size(); ++i) ex.push_back({"", inputs[i], targets[i]});
    return ex;
}

class GptTraining : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(GptTraining, ThirtyStepsMatchPyTorch) {
    const auto& [run, backend_name] = GetParam();
    const std::unique_ptr<Backend> backend = make_backend(backend_name);
    const auto ref = fixtures::read_json("gpt/" + run + ".losses.json");
    const Config c = load_config_file(gpt_path(ref.at("config").get<std::string>()));
    LoadedWeights lw = load_weights(gpt_path(ref.at("init").get<std::string>()), &c);
    Transformer model(c, std::move(lw.params), backend.get());
    const auto& o = ref.at("optimizer");
    const bool adamw = o.at("type").get<std::string>() == "AdamW";
    TrainOptions to;
    to.epochs = ref.at("steps").get<int>();
    to.batch_size = 1000;
    to.shuffle = false;
    to.optimizer = optimizer_defaults(adamw ? OptimizerKind::AdamW : OptimizerKind::SGD);
    to.optimizer.lr = o.at("lr").get<double>();
    if (adamw) {
        to.optimizer.beta1 = o.at("betas").at(0).get<double>();
        to.optimizer.beta2 = o.at("betas").at(1).get<double>();
        to.optimizer.eps = o.at("eps").get<double>();
        to.optimizer.weight_decay = o.at("weight_decay").get<double>();
    } else {
        to.optimizer.momentum = o.at("momentum").get<double>();
    }
    Trainer trainer(model, toy_examples(), to);
    std::vector<double> losses;
    const auto r = trainer.run([&](const StepReport& s) { losses.push_back(s.loss); });
    ASSERT_EQ(r.status, TrainStatus::Finished) << r.message;
    const auto want = ref.at("losses").get<std::vector<double>>();
    ASSERT_EQ(losses.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(losses[i], want[i], kTol * std::abs(want[i])) << "step " << i + 1;
    const SafetensorsFile final = read_safetensors(gpt_path(run + ".final.safetensors"));
    for (size_t i = 0; i < model.params().size(); ++i) {
        const std::string& name = model.params().name(i);
        const StoredTensor* t = final.find(name);
        ASSERT_NE(t, nullptr) << name;
        Tensor ours = model.params()[i], theirs = t->value;
        if (adamw && name.size() > 16 && name.compare(name.size() - 16, 16, "attn.c_attn.bias") == 0) {
            // The key's bias adds q·b_k to every score of a row, which softmax ignores: its gradient is
            // 0 but for rounding (~1e-12), and AdamW, dividing by √v, turns that noise into steps of
            // about lr. Both sides move it by noise, so only its query and value thirds are compared.
            const int64_t third = ours.size() / 3;
            for (int64_t k = third; k < 2 * third; ++k) {
                EXPECT_LE(std::abs(ours.data[size_t(k)] - theirs.data[size_t(k)]), 2.0 * to.optimizer.lr * to.epochs);
                ours.data[size_t(k)] = theirs.data[size_t(k)] = 0.0f;
            }
        }
        EXPECT_TRUE(fixtures::close(name, ours, theirs, 1e-3)) << "after 30 steps";
    }
}

INSTANTIATE_TEST_SUITE_P(Runs, GptTraining,
                         ::testing::Combine(::testing::Values("bias_1layer_sgd", "bias_1layer_adamw", "nobias_3layer_sgd",
                                                              "nobias_3layer_adamw"),
                                            ::testing::ValuesIn(stepformer::testing::registered_backends())),
                         [](const auto& i) {
                             return std::get<0>(i.param) + "_" + stepformer::testing::test_name(std::get<1>(i.param));
                         });

class GptGeneration : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

// The trained weights generate the toy sentences as nanoGPT's loop does, word for word.
TEST_P(GptGeneration, GreedyAndOneSamplingStepMatchNanoGpt) {
    const auto& [run, backend_name] = GetParam();
    const std::unique_ptr<Backend> backend = make_backend(backend_name);
    const auto ref = fixtures::read_json("gpt/" + run + ".generate.json");
    const Config c = load_config_file(gpt_path(ref.at("config").get<std::string>()));
    LoadedWeights lw = load_weights(gpt_path(ref.at("weights").get<std::string>()), &c);
    const Transformer model(c, std::move(lw.params), backend.get());
    for (const auto& g : ref.at("greedy")) {
        const std::string prompt = g.at("prompt").get<std::string>();
        const auto margins = g.at("top1_minus_top2_logit").get<std::vector<double>>();
        GenerateOptions opt;
        opt.max_new_tokens = ref.at("max_new_tokens").get<int>();
        opt.stop_at_eos = false;
        const DecodeResult all = generate(model, prompt, opt, true);
        const auto want = g.at("new_ids").get<std::vector<int>>();
        ASSERT_EQ(all.tokens.size(), want.size()) << prompt;
        for (size_t i = 0; i < want.size(); ++i) {
            if (margins[i] < 1e-3) break;  // a near tie: float rounding may pick the other word, and all after differ
            EXPECT_EQ(all.tokens[i], want[i]) << prompt << ", new word " << i;
            EXPECT_EQ(int(all.steps[i].dec_input.size()), g.at("context_lengths")[i].get<int>()) << "cropped to block_size";
        }
        opt.stop_at_eos = true;
        const DecodeResult until = generate(model, prompt, opt);
        EXPECT_TRUE(until.reached_eos);
        std::string words;
        for (int t : until.tokens) words += (words.empty() ? "" : " ") + c.tgt_vocab[size_t(t)];
        EXPECT_EQ(words, g.at("until_eos").get<std::string>());
        EXPECT_EQ(greedy_decode(model, prompt).tokens, until.tokens);  // the Decode view's call
    }
    for (const auto& s : ref.at("sampling")) {
        const auto logits = s.at("logits").get<std::vector<float>>();
        const auto want = s.at("probs").get<std::vector<float>>();
        const auto p = next_token_probs(logits.data(), int(logits.size()), s.at("temperature").get<float>(), s.at("top_k").get<int>());
        for (size_t v = 0; v < want.size(); ++v) EXPECT_NEAR(p[v], want[v], 1e-6) << "word " << v;
        // and the model's own logits at the prompt's last position are these
        GenerateOptions one;
        one.max_new_tokens = 1;
        one.temperature = s.at("temperature").get<float>();
        one.top_k = s.at("top_k").get<int>();
        const DecodeResult r = generate(model, s.at("prompt").get<std::string>(), one, true);
        for (size_t v = 0; v < want.size(); ++v) EXPECT_NEAR(r.steps[0].probs[v], want[v], 1e-4) << "word " << v;
    }
}

INSTANTIATE_TEST_SUITE_P(Runs, GptGeneration,
                         ::testing::Combine(::testing::Values("bias_1layer_sgd", "bias_1layer_adamw", "nobias_3layer_sgd",
                                                              "nobias_3layer_adamw"),
                                            ::testing::ValuesIn(stepformer::testing::registered_backends())),
                         [](const auto& i) {
                             return std::get<0>(i.param) + "_" + stepformer::testing::test_name(std::get<1>(i.param));
                         });

// Drawing is seeded: the same seed draws the same words; only words top_k keeps are drawn.
TEST(GptGenerate, SamplingIsSeededAndKeepsToTopK) {
    const Config c = load_config_file(gpt_path("bias_1layer.config.json"));
    LoadedWeights lw = load_weights(gpt_path("bias_1layer_sgd.final.safetensors"), &c);
    const Transformer model(c, std::move(lw.params));
    GenerateOptions opt;
    opt.sample = true;
    opt.top_k = 2;
    opt.temperature = 1.5f;
    opt.seed = 11;
    opt.max_new_tokens = 6;
    opt.stop_at_eos = false;
    const DecodeResult a = generate(model, "S", opt, true), b = generate(model, "S", opt);
    EXPECT_EQ(a.tokens, b.tokens);
    for (const DecodeStep& s : a.steps) {
        int kept = 0;
        for (float p : s.probs) kept += p > 0.0f;
        EXPECT_LE(kept, 2);
        EXPECT_GT(s.probs[size_t(s.chosen)], 0.0f);
    }
    EXPECT_THROW(generate(model, "", opt), ConfigError);
    opt.temperature = 0.0f;
    EXPECT_THROW(generate(model, "S", opt), std::invalid_argument);
}

// The toy lines: bos and eos added where a line lacks them; inputs words[:-1], targets words[1:].
TEST(GptData, LinesBecomeNextWordExamples) {
    const Config c = Config::gpt_small();
    const auto ex = parse_lines("# comment\ni want a beer .\n\nS you like coke . E\n", c);
    ASSERT_EQ(ex.size(), 2u);
    EXPECT_EQ(ex[0].dec_input, "S i want a beer .");
    EXPECT_EQ(ex[0].dec_output, "i want a beer . E");
    EXPECT_EQ(ex[1].dec_input, "S you like coke .");
    EXPECT_TRUE(ex[0].enc_input.empty());
    EXPECT_EQ(parse_tsv(to_tsv(ex), c).size(), 2u);
    EXPECT_EQ(to_tsv(ex), "# one sentence per line\nS i want a beer . E\nS you like coke . E\n");
    try {
        parse_lines("i want a beer .\ni want a wine .\n", c);
        FAIL();
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("wine"), std::string::npos) << e.what();
    }
    EXPECT_THROW(parse_lines("i want a beer . i want a beer . i want\n", c), DataError);  // over block_size 12
    EXPECT_EQ(builtin_examples(c).size(), builtin_lines().size());
    const Batch b = make_training_batch(c, builtin_examples(c), {0, 2});
    EXPECT_EQ(b.S, 0);
    EXPECT_EQ(b.T, 7);  // "S you want a cold beer ." : the longest input
}

}  // namespace
