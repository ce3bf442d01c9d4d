// stepformer-cli train --optimizer adamw [--weight-decay D]: bad values refused naming the
// option before anything is written; a run's checkpoint records AdamW and its weight decay; a
// resumed run keeps the checkpoint's weight decay unless given another.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"
#include "stepformer/checkpoint.h"
#include "stepformer/config.h"
#include "temp_dir.h"

using namespace stepformer;
using clitest::cli;
using clitest::Result;
using testutil::TempDir;

namespace {

// A small tutorial config (as test_cli.cpp's), learned LayerNorm: parameters that decay and
// parameters that do not.
std::string write_config(const TempDir& dir, Config* out) {
    Config c;
    c.learn_layer_norm = true;
    c.d_model = 16;
    c.d_ff = 32;
    c.d_k = 4;
    c.d_v = 4;
    c.n_heads = 2;
    c.n_layers = 1;
    c.dropout = 0.0;
    const std::string path = dir.file("small16.json");
    std::ofstream(path) << config_to_json_text(c, 2);
    *out = c;
    return path;
}

nlohmann::json optimizer_json(const std::string& path, const Config& c) {
    const Checkpoint ck = load_checkpoint(path, &c);
    EXPECT_TRUE(ck.optimizer_json.has_value()) << path;
    return ck.optimizer_json ? nlohmann::json::parse(*ck.optimizer_json) : nlohmann::json{};
}

}  // namespace

TEST(CliAdamW, BadWeightDecayIsRefusedNamingTheOption) {
    TempDir dir;
    Config c;
    const std::string cfg = write_config(dir, &c), save = dir.file("m.safetensors");
    for (const char* bad : {"-0.1", "nan", "inf", "abc"}) {
        SCOPED_TRACE(std::string("--weight-decay ") + bad);
        const Result r = cli({"train", "--config", cfg, "--optimizer", "adamw", "--weight-decay", bad, "--save", save});
        EXPECT_USER_ERROR(r);
        EXPECT_HAS(r.err, "--weight-decay");
        EXPECT_HAS(r.err, bad);
    }
    // In range by itself, but lr * weight decay >= 1: said after the options are all read.
    Result r = cli({"train", "--config", cfg, "--optimizer", "adamw", "--lr", "0.5", "--weight-decay", "2", "--save",
                    save});
    EXPECT_USER_ERROR(r);
    EXPECT_HAS(r.err, "--weight-decay: weight decay must be at least 0, and below 1 / learning rate, got 2");
    // Only AdamW decays weights.
    r = cli({"train", "--config", cfg, "--optimizer", "adam", "--weight-decay", "0.1", "--save", save});
    EXPECT_USER_ERROR(r);
    EXPECT_HAS(r.err, "--weight-decay");
    EXPECT_HAS(r.err, "adamw");
    r = cli({"train", "--config", cfg, "--optimizer", "rmsprop", "--save", save});
    EXPECT_USER_ERROR(r);
    EXPECT_HAS(r.err, "unknown optimizer 'rmsprop' (use sgd, adam or adamw)");
    EXPECT_FALSE(std::filesystem::exists(save));
}

TEST(CliAdamW, TrainsSavesAndResumesWithItsWeightDecay) {
    TempDir dir;
    Config c;
    const std::string cfg = write_config(dir, &c), first = dir.file("first.safetensors"),
                      kept = dir.file("kept.safetensors"), changed = dir.file("changed.safetensors");
    Result r = cli({"train", "--config", cfg, "--epochs", "2", "--optimizer", "adamw", "--lr", "0.01",
                    "--weight-decay", "0.2", "--save", first, "--save-optimizer", "--quiet"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_HAS(r.out, "adamw lr 0.01");
    nlohmann::json j = optimizer_json(first, c);
    EXPECT_EQ(j.at("kind"), "adamw");
    EXPECT_EQ(j.at("weight_decay").get<double>(), 0.2);
    EXPECT_EQ(j.at("beta1").get<double>(), 0.9);  // nanoGPT's betas and AdamW's eps, not Adam's
    EXPECT_EQ(j.at("beta2").get<double>(), 0.95);
    EXPECT_EQ(j.at("eps").get<double>(), 1e-8);
    const int64_t steps = j.at("step").get<int64_t>();
    EXPECT_GT(steps, 0);

    // Resumed without --weight-decay: the checkpoint's 0.2, not the default 0.1.
    r = cli({"train", "--init", first, "--resume", "--epochs", "1", "--optimizer", "adamw", "--lr", "0.01", "--save",
             kept, "--save-optimizer", "--quiet"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_HAS(r.out, "resumed optimizer state at step " + std::to_string(steps));
    j = optimizer_json(kept, c);
    EXPECT_EQ(j.at("weight_decay").get<double>(), 0.2);
    EXPECT_GT(j.at("step").get<int64_t>(), steps);
    // With it: the one given.
    r = cli({"train", "--init", first, "--resume", "--epochs", "1", "--optimizer", "adamw", "--lr", "0.01",
             "--weight-decay", "0.05", "--save", changed, "--save-optimizer", "--quiet"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(optimizer_json(changed, c).at("weight_decay").get<double>(), 0.05);
    // An AdamW state does not resume another optimizer.
    r = cli({"train", "--init", first, "--resume", "--epochs", "1", "--optimizer", "adam", "--quiet"});
    EXPECT_USER_ERROR(r);
    EXPECT_HAS(r.err, "adamw");
}
