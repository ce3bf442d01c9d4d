// stepformer-cli on "architecture": "gpt": forward --text, the dump against nanoGPT's numbers,
// train on lines, generate (greedy as the fixture's, seeded draws), and the errors that name the
// option a decoder-only model takes instead.
#include <fstream>

#include "cli_runner.h"
#include "fixture_util.h"
#include "stepformer/safetensors.h"
#include "temp_dir.h"

using namespace stepformer;
using clitest::cli;
using clitest::has;
using clitest::Result;
using testutil::TempDir;

namespace {

std::string gpt(const std::string& name) { return fixtures::path("gpt/" + name); }

TEST(CliGpt, ForwardDumpsNanoGptsTrace) {
    TempDir dir;
    const std::string dump = dir.file("trace.safetensors");
    const auto in = fixtures::read_json("gpt/bias_1layer.inputs.json");
    std::vector<std::string> args{"forward", "--config", gpt("bias_1layer.config.json"), "--weights",
                                  gpt("bias_1layer.weights.safetensors"), "--dump", dump};
    for (const auto& s : in.at("inputs")) args.insert(args.end(), {"--text", s.get<std::string>()});
    const Result r = cli(args);
    ASSERT_EQ(r.rc, 0) << r.err;
    const SafetensorsFile got = read_safetensors(dump), want = read_safetensors(gpt("bias_1layer.trace.safetensors"));
    for (const char* name : {"transformer.wpe.out", "transformer.h.0.attn.attn", "lm_head.logits"})
        EXPECT_TRUE(fixtures::close(name, got.find(name)->value, want.find(name)->value, 1e-4));
}

TEST(CliGpt, ForwardPrintsItsConfigAndAttention) {
    const Result r = cli({"forward", "--config", gpt("nobias_3layer.config.json"), "--text", "S i want"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_TRUE(has(r.out, "GPT(GPTConfig(block_size=8, vocab_size=13, n_layer=3, n_head=2, n_embd=8")) << r.out;
    EXPECT_TRUE(has(r.out, "transformer.h.2.attn.attn")) << r.out;
}

TEST(CliGpt, TrainOnLinesThenGenerateTheToySentence) {
    TempDir dir;
    const std::string lines = dir.file("lines.txt"), saved = dir.file("gpt.safetensors");
    {
        std::ofstream f(lines);
        f << "# the toy sentences\nS i want a beer . E\ni like tea .\n";
    }
    Result r = cli({"train", "--config", gpt("bias_1layer.config.json"), "--data", lines, "--optimizer", "adamw", "--lr",
                    "1e-2", "--epochs", "150", "--batch-size", "2", "--save", saved, "--quiet"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_TRUE(has(r.out, "training on 2 sentences")) << r.out;
    r = cli({"generate", "--weights", saved, "--prompt", "S i want", "--prompt", "S i like"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out, "S i want a beer . E\nS i like tea . E\n");
    // Draws: the same seed, the same words.
    const std::vector<std::string> draw{"generate", "--weights", saved, "--sample", "--temperature", "2", "--top-k", "3",
                                        "--sample-seed", "5", "--max-new-tokens", "4", "--ignore-eos"};
    const Result a = cli(draw), b = cli(draw);
    ASSERT_EQ(a.rc, 0) << a.err;
    EXPECT_EQ(a.out, b.out);
}

TEST(CliGpt, GreedyGenerationIsTheFixtures) {
    const auto ref = fixtures::read_json("gpt/nobias_3layer_sgd.generate.json");
    for (const auto& g : ref.at("greedy")) {
        const std::string prompt = g.at("prompt").get<std::string>();
        const Result r = cli({"generate", "--config", gpt("nobias_3layer.config.json"), "--weights",
                              gpt("nobias_3layer_sgd.final.safetensors"), "--prompt", prompt});
        ASSERT_EQ(r.rc, 0) << r.err;
        EXPECT_EQ(r.out, prompt + " " + g.at("until_eos").get<std::string>() + "\n");
    }
}

TEST(CliGpt, ErrorsNameWhatThisModelTakes) {
    const std::string config = gpt("bias_1layer.config.json");
    Result r = cli({"forward", "--config", config, "--src", "ich"});
    EXPECT_EQ(r.rc, 1);
    EXPECT_TRUE(has(r.err, "--text")) << r.err;
    r = cli({"forward", "--text", "S i"});  // the tutorial's model
    EXPECT_EQ(r.rc, 1);
    EXPECT_TRUE(has(r.err, "--src and --tgt")) << r.err;
    r = cli({"translate", "--config", config});
    EXPECT_EQ(r.rc, 1);
    EXPECT_TRUE(has(r.err, "generate --prompt")) << r.err;
    r = cli({"generate"});  // the tutorial's model
    EXPECT_EQ(r.rc, 1);
    EXPECT_TRUE(has(r.err, "translate --src")) << r.err;
    r = cli({"generate", "--config", config, "--temperature", "-1"});
    EXPECT_EQ(r.rc, 1);
    EXPECT_TRUE(has(r.err, "--temperature")) << r.err;
    r = cli({"generate", "--config", config, "--prompt", "S i want a beer . E P P", "--max-new-tokens", "2"});
    EXPECT_EQ(r.rc, 0) << r.err;  // as nanoGPT's loop: the context is cropped to its last block_size words
    r = cli({"forward", "--config", config, "--text", "S i want a beer . E P P"});
    EXPECT_EQ(r.rc, 1);
    EXPECT_TRUE(has(r.err, "block_size 8")) << r.err;
}

}  // namespace
