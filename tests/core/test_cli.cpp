// The real stepformer-cli binary, run as a user would: exit codes, what it prints, and the
// files it writes, checked against in-process results and the PyTorch fixtures.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "cli_runner.h"
#include "fixture_util.h"
#include "stepformer/checkpoint.h"
#include "stepformer/dataset.h"
#include "stepformer/decode.h"
#include "stepformer/devices.h"
#include "stepformer/model_io.h"
#include "stepformer/safetensors.h"
#include "stepformer/train.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using namespace stepformer;

namespace {

using testutil::TempDir;

using clitest::cli;
using clitest::has;
using clitest::read_text;
using clitest::Result;

// The contract's names of a forward trace, built from the architecture (not from a Trace).
std::vector<std::string> contract_names(int n_layers) {
    const std::vector<std::string> attn{"Q",    "K",       "V",      "scores",   "masked_scores",
                                        "attn", "context", "fc_out", "residual", "out"};
    const std::vector<std::string> ffn{"hidden", "relu", "fc_out", "residual", "out"};
    std::vector<std::string> n{"encoder.src_emb.out", "encoder.pos_emb.pe", "encoder.pos_emb.out",
                               "encoder.self_attn_mask"};
    for (int i = 0; i < n_layers; ++i) {
        const std::string L = "encoder.layers." + std::to_string(i);
        for (const auto& s : attn) n.push_back(L + ".enc_self_attn." + s);
        for (const auto& s : ffn) n.push_back(L + ".pos_ffn." + s);
    }
    for (const char* s :
         {"decoder.tgt_emb.out", "decoder.pos_emb.pe", "decoder.pos_emb.out", "decoder.self_attn_pad_mask",
          "decoder.self_attn_subsequence_mask", "decoder.self_attn_mask", "decoder.enc_attn_mask"})
        n.push_back(s);
    for (int i = 0; i < n_layers; ++i) {
        const std::string L = "decoder.layers." + std::to_string(i);
        for (const auto& s : attn) n.push_back(L + ".dec_self_attn." + s);
        for (const auto& s : attn) n.push_back(L + ".dec_enc_attn." + s);
        for (const auto& s : ffn) n.push_back(L + ".pos_ffn." + s);
    }
    n.push_back("projection.logits");
    n.push_back("projection.probs");
    return n;
}

bool is_mask_name(const std::string& n) { return n.ends_with("_mask"); }

std::set<std::string> names_of(const SafetensorsFile& f) {
    std::set<std::string> s;
    for (const auto& t : f.tensors) s.insert(t.name);
    return s;
}

// A small config file (the tutorial's vocabulary), as a user would write one.
std::string write_small_config(const TempDir& dir, Config* out = nullptr, bool learn_layer_norm = false) {
    Config c;
    c.learn_layer_norm = learn_layer_norm;
    c.d_model = 16;
    c.d_ff = 32;
    c.d_k = 4;
    c.d_v = 4;
    c.n_heads = 2;
    c.n_layers = 1;
    c.dropout = 0.0;
    const std::string path = dir.file("small16.json");
    std::ofstream(path) << config_to_json_text(c, 2);
    if (out) *out = c;
    return path;
}

// ---------------------------------------------------------------------------
// forward

TEST(CliForward, NoArgumentsPrintsASummary) {
    const Result r = cli({"forward"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_HAS(r.out, "head 0");
    EXPECT_HAS(r.out, "decoder.layers.5.dec_enc_attn.attn");  // the tutorial's 6 layers
    EXPECT_HAS(r.out, "encoder.layers.0.enc_self_attn.scores");
    EXPECT_HAS(r.out, "[1, 8, 5, 5]");
    EXPECT_HAS(r.out, "predicted next tokens");
    EXPECT_HAS(r.out, "d_model=512");
    EXPECT_EQ(r.err, "");
}

TEST(CliForward, DumpHasEveryContractNameAndEqualsAnInProcessForward) {
    TempDir dir;
    const std::string dump = dir.file("trace.safetensors");
    const Result r = cli({"forward", "--dump", dump});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_HAS(r.out, dump);
    const SafetensorsFile f = read_safetensors(dump);

    const auto want_names = contract_names(6);
    EXPECT_EQ(names_of(f), std::set<std::string>(want_names.begin(), want_names.end()));
    ASSERT_NE(f.find("encoder.layers.0.enc_self_attn.masked_scores"), nullptr);
    ASSERT_NE(f.find("decoder.self_attn_mask"), nullptr);
    EXPECT_EQ(f.find("decoder.self_attn_mask")->dtype, DType::U8);
    for (const auto& t : f.tensors) EXPECT_EQ(t.dtype, is_mask_name(t.name) ? DType::U8 : DType::F32) << t.name;
    ASSERT_TRUE(f.metadata.count("stepformer.config"));
    EXPECT_TRUE(config_from_json_text(f.metadata.at("stepformer.config")).same_architecture(Config::tutorial()));

    // the same forward in this process: the tutorial's config, weights from seed 0
    LoadedModel lm = load_model(ModelSource{});
    const Batch batch = make_batch(lm.config, {"ich mochte ein bier P"}, {"S i want a beer ."});
    auto one_thread = make_cpu_backend(1);  // the CLI may use more; the numbers must not change
    Transformer model(lm.config, std::move(lm.params), one_thread.get());
    Trace trace;
    model.forward(batch, trace);
    ASSERT_EQ(trace.size(), f.tensors.size());
    for (const auto& e : trace.entries()) {
        const StoredTensor* t = f.find(e.name);
        ASSERT_NE(t, nullptr) << e.name;
        EXPECT_TRUE(fixtures::close(e.name, t->value, e.value, 1e-5));
    }
    // the source's pad is masked, as a 0/1 U8
    EXPECT_EQ(f.find("encoder.self_attn_mask")->value.at({0, 0, 4}), 1.0f);
    EXPECT_EQ(f.find("encoder.self_attn_mask")->value.at({0, 0, 3}), 0.0f);
}

TEST(CliForward, TinyFixtureDumpEqualsThePyTorchTrace) {
    TempDir dir;
    const auto in = fixtures::inputs("tiny");
    ASSERT_EQ(in.src.size(), 2u);
    const SafetensorsFile want = read_safetensors(fixtures::path("tiny.trace.safetensors"));
    const std::vector<std::string> model_args{"--config", fixtures::path("tiny.config.json"), "--weights",
                                              fixtures::path("tiny.weights.safetensors")};

    // the first rows alone: compare with the fixture's batch row 0
    std::vector<std::string> args{"forward"};
    args.insert(args.end(), model_args.begin(), model_args.end());
    const std::string one = dir.file("one.safetensors");
    for (const auto& a : {std::string("--src"), in.src[0], std::string("--tgt"), in.tgt[0], std::string("--dump"), one})
        args.push_back(a);
    Result r = cli(args);
    ASSERT_EQ(r.rc, 0) << r.err;
    const SafetensorsFile got1 = read_safetensors(one);
    size_t compared = 0;
    for (const auto& g : got1.tensors) {
        const StoredTensor* w = want.find(g.name);
        ASSERT_NE(w, nullptr) << g.name;
        Tensor row0 = w->value;
        if (!g.name.ends_with(".pos_emb.pe")) {  // every other tensor leads with the batch axis
            ASSERT_EQ(w->shape[0], 2) << g.name;
            row0.shape[0] = 1;
            row0.data.resize(row0.data.size() / 2);
        }
        EXPECT_TRUE(fixtures::close(g.name, g.value, row0, 1e-5));
        ++compared;
    }
    EXPECT_EQ(compared, want.tensors.size() - 2);  // all but loss and loss.per_token

    // both rows as one batch: the whole trace
    args = {"forward"};
    args.insert(args.end(), model_args.begin(), model_args.end());
    const std::string both = dir.file("both.safetensors");
    for (size_t i = 0; i < 2; ++i) {
        args.insert(args.end(), {"--src", in.src[i]});
        args.insert(args.end(), {"--tgt", in.tgt[i]});
    }
    args.insert(args.end(), {"--dump", both});
    r = cli(args);
    ASSERT_EQ(r.rc, 0) << r.err;
    const SafetensorsFile got2 = read_safetensors(both);
    for (const auto& w : want.tensors) {
        if (w.name == "loss" || w.name == "loss.per_token") continue;
        const StoredTensor* g = got2.find(w.name);
        ASSERT_NE(g, nullptr) << w.name;
        EXPECT_TRUE(fixtures::close(w.name, g->value, w.value, 1e-5));
        EXPECT_EQ(g->dtype == DType::U8, w.dtype == DType::U8 || w.dtype == DType::BOOL) << w.name;
    }
    EXPECT_EQ(got2.tensors.size(), want.tensors.size() - 2);
}

TEST(CliForward, BadInputsFailWithAMessage) {
    TempDir dir;
    const std::string tiny = fixtures::path("tiny.config.json");  // the tutorial's vocabulary, quick to build
    Result r = cli({"forward", "--config", tiny, "--src", "ich mochte ein wein P", "--tgt", "S i want a beer ."});
    EXPECT_USER_ERROR(r);
    EXPECT_HAS(r.err, "'wein'");
    EXPECT_HAS(r.err, "P ich mochte ein bier cola");
    r = cli({"forward", "--config", tiny, "--src", "ich", "--src", "ich", "--tgt", "S"});
    EXPECT_USER_ERROR(r);
    EXPECT_HAS(r.err, "give as many --tgt as --src");
    r = cli({"forward", "--weights", dir.file("missing.safetensors")});
    EXPECT_NE(r.rc, 0);
    EXPECT_HAS(r.err, "missing.safetensors");
    r = cli({"no-such-command"});
    EXPECT_NE(r.rc, 0);
}

TEST(CliForward, DumpIntoAMissingDirectoryFailsAndCreatesNothing) {
    TempDir dir;
    const std::string path = dir.file("nodir") + "/trace.safetensors";
    const Result r = cli({"forward", "--config", fixtures::path("tiny.config.json"), "--dump", path});
    EXPECT_USER_ERROR(r);
    EXPECT_HAS(r.err, path);
    EXPECT_HAS(r.err, "No such file or directory");
    EXPECT_FALSE(fs::exists(dir.file("nodir")));
    EXPECT_TRUE(fs::is_empty(dir.file("")));
    // a dump path that is a directory
    fs::create_directory(dir.file("d"));
    const Result r2 = cli({"forward", "--config", fixtures::path("tiny.config.json"), "--dump", dir.file("d")});
    EXPECT_USER_ERROR(r2);
    EXPECT_HAS(r2.err, "Is a directory");
    EXPECT_TRUE(fs::is_directory(dir.file("d")));
}

// ---------------------------------------------------------------------------
// info

TEST(CliInfo, ListsTensorsAndTheConfig) {
    const std::string w = fixtures::path("tiny.weights.safetensors");
    const Result r = cli({"info", w});
    ASSERT_EQ(r.rc, 0) << r.err;
    const Config c = load_config_file(fixtures::path("tiny.config.json"));
    const auto f = read_safetensors(w);
    EXPECT_HAS(r.out, std::to_string(f.tensors.size()) + " tensors");
    int64_t total = 0;
    for (const auto& sp : param_specs(c)) {
        const StoredTensor* t = f.find(sp.name);
        if (!t) continue;  // LayerNorm parameters may be absent from a file
        EXPECT_HAS(r.out, sp.name);
        EXPECT_HAS(r.out, shape_to_string(sp.shape));
    }
    for (const auto& t : f.tensors) total += numel(t.shape);
    EXPECT_HAS(r.out, "total elements: " + std::to_string(total));
    EXPECT_HAS(r.out, "F32");
    EXPECT_HAS(r.out, "\"d_model\": 16");
    EXPECT_HAS(r.out, "\"n_heads\": 3");
    EXPECT_HAS(r.out, "\"tgt_vocab\"");

    const Result missing = cli({"info", "/nonexistent/file.safetensors"});
    EXPECT_NE(missing.rc, 0);
    EXPECT_HAS(missing.out + missing.err, "/nonexistent/file.safetensors");
    TempDir dir;
    std::ofstream(dir.file("junk.safetensors")) << "not a safetensors file";
    const Result junk = cli({"info", dir.file("junk.safetensors")});
    EXPECT_USER_ERROR(junk);
    EXPECT_HAS(junk.err, "junk.safetensors");
}

// ---------------------------------------------------------------------------
// grad

TEST(CliGrad, DumpHasTheLossAndAGradientForEveryParameterAndIntermediate) {
    TempDir dir;
    const std::string dump = dir.file("grads.safetensors");
    // the default data is the tutorial's two sentences, which are tiny's fixture inputs
    const Result r = cli({"grad", "--config", fixtures::path("tiny.config.json"), "--weights",
                          fixtures::path("tiny.weights.safetensors"), "--dump", dump});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_HAS(r.out, "loss ");
    const SafetensorsFile got = read_safetensors(dump);
    const SafetensorsFile want = read_safetensors(fixtures::path("tiny.grads.safetensors"));
    const Config c = load_config_file(fixtures::path("tiny.config.json"));

    ASSERT_NE(got.find("loss"), nullptr);
    ASSERT_NE(got.find("loss.per_token"), nullptr);
    EXPECT_EQ(got.find("loss.per_token")->shape, (Shape{2, 6}));
    for (const auto& sp : param_specs(c)) EXPECT_NE(got.find("grad." + sp.name), nullptr) << sp.name;
    // every intermediate that has a gradient: all forward names but the masks, the PE tables
    // and the probabilities (the loss goes straight to the logits)
    for (const auto& n : contract_names(c.n_layers)) {
        const bool has_grad = !is_mask_name(n) && !n.ends_with(".pos_emb.pe") && n != "projection.probs";
        EXPECT_EQ(got.find("grad." + n) != nullptr, has_grad) << n;
    }
    // and the values are PyTorch's
    for (const auto& w : want.tensors) {
        const StoredTensor* g = got.find(w.name);
        ASSERT_NE(g, nullptr) << w.name;
        EXPECT_TRUE(fixtures::close(w.name, g->value, w.value, 1e-4));
    }
    EXPECT_EQ(got.tensors.size(), want.tensors.size() + 1);  // + loss.per_token
}

TEST(CliGrad, BadDumpPathAndBadDataFailEarly) {
    TempDir dir;
    const std::string cfg = write_small_config(dir);
    Result r = cli({"grad", "--config", cfg, "--dump", dir.file("nodir/g.safetensors")});
    EXPECT_USER_ERROR(r);
    EXPECT_HAS(r.err, "does not exist");
    EXPECT_FALSE(fs::exists(dir.file("nodir")));
    std::ofstream(dir.file("bad.tsv"))
        << "ich mochte ein bier P\tS i want a beer .\ti want a beer . E\nich\ti want lager\n";
    r = cli({"grad", "--config", cfg, "--data", dir.file("bad.tsv"), "--dump", dir.file("g.safetensors")});
    EXPECT_USER_ERROR(r);
    EXPECT_HAS(r.err, "line 2");
    EXPECT_HAS(r.err, "'lager'");
    EXPECT_FALSE(fs::exists(dir.file("g.safetensors")));
}

// ---------------------------------------------------------------------------
// train

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(read_text(path));
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> cols;
        std::istringstream ls(line);
        std::string col;
        while (std::getline(ls, col, ',')) cols.push_back(col);
        rows.push_back(cols);
    }
    return rows;
}

TEST(CliTrain, WritesALogRowPerStepAndALoadableCheckpoint) {
    TempDir dir;
    Config c;
    const std::string cfg = write_small_config(dir, &c);
    const std::string log = dir.file("log.csv"), save = dir.file("model.safetensors");
    Result r = cli({"train", "--config", cfg, "--epochs", "3", "--log", log, "--save", save});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_HAS(r.out, "Epoch: 0003");
    EXPECT_HAS(r.out, save);

    const auto rows = read_csv(log);
    ASSERT_EQ(rows.size(), 4u);  // header + 3 epochs x 1 step (2 sentences, batch 2)
    const std::string header = read_text(log).substr(0, read_text(log).find('\n'));
    EXPECT_HAS(header, "step,epoch,loss");
    const auto& h = rows[0];
    const auto col = [&](const std::string& name) { return size_t(std::find(h.begin(), h.end(), name) - h.begin()); };
    ASSERT_LT(col("loss"), h.size());
    for (size_t i = 1; i < rows.size(); ++i) {
        ASSERT_EQ(rows[i].size(), h.size()) << "row " << i;
        EXPECT_EQ(std::stoi(rows[i][col("step")]), int(i));
        EXPECT_EQ(std::stoi(rows[i][col("epoch")]), int(i));
        const double loss = std::stod(rows[i][col("loss")]);
        EXPECT_TRUE(std::isfinite(loss) && loss > 0) << loss;
    }
    // the first step's loss is the loss of the initial model (seed 0) on both sentences
    {
        Transformer m(c, init_params(c, 0));
        const Batch b = make_training_batch(c, builtin_examples(), {0, 1});
        Trace t;
        m.forward(b, t);
        EXPECT_NEAR(std::stod(rows[1][col("loss")]), m.loss(b, t), 1e-4);
    }
    const Checkpoint ck = load_checkpoint(save, &c);
    EXPECT_TRUE(ck.config.same_architecture(c));
    EXPECT_FALSE(ck.optimizer_json.has_value());
    Transformer trained(ck.config, ck.params);  // the shapes fit the config
    EXPECT_NE(trained.params().at("projection.weight").data, init_params(c, 0).at("projection.weight").data);

    // batch 1 with optimizer state: two steps per epoch
    r = cli({"train", "--config", cfg, "--epochs", "2", "--batch-size", "1", "--optimizer", "adam", "--lr", "0.01",
             "--log", log, "--save", save, "--save-optimizer", "--quiet"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_FALSE(has(r.out, "Epoch:"));
    const auto rows2 = read_csv(log);
    ASSERT_EQ(rows2.size(), 5u);
    const std::vector<int> epochs{1, 1, 2, 2};
    for (size_t i = 1; i < rows2.size(); ++i) EXPECT_EQ(std::stoi(rows2[i][col("epoch")]), epochs[i - 1]);
    const Checkpoint ck2 = load_checkpoint(save, &c);
    ASSERT_TRUE(ck2.optimizer_json.has_value());
    OptimizerOptions oo;
    oo.kind = OptimizerKind::Adam;
    Optimizer opt(oo, ck2.params);
    restore_optimizer(ck2, opt);
    EXPECT_EQ(opt.step_count(), 4);
}

TEST(CliTrain, OutOfRangeOptionsFailWithAMessageBeforeWritingAnything) {
    TempDir dir;
    const std::string cfg = write_small_config(dir);
    const std::string log = dir.file("log.csv"), save = dir.file("m.safetensors");
    Result r = cli({"train", "--config", cfg, "--lr", "-1", "--log", log, "--save", save});
    EXPECT_USER_ERROR(r);
    EXPECT_HAS(r.err, "learning rate");
    EXPECT_HAS(r.err, "-1");
    r = cli({"train", "--config", cfg, "--epochs", "0", "--log", log, "--save", save});
    EXPECT_USER_ERROR(r);
    EXPECT_HAS(r.err, "epochs must be between 1 and");
    EXPECT_HAS(r.err, "got 0");
    r = cli({"train", "--config", cfg, "--optimizer", "rmsprop", "--save", save});
    EXPECT_USER_ERROR(r);
    EXPECT_HAS(r.err, "rmsprop");
    r = cli({"train", "--config", cfg, "--save", dir.file("nodir/m.safetensors")});
    EXPECT_USER_ERROR(r);
    EXPECT_HAS(r.err, "does not exist");
    EXPECT_FALSE(fs::exists(log));
    EXPECT_FALSE(fs::exists(save));
}

TEST(CliTrain, DivergenceExitsWithCode2AndSavesTheLastGoodWeights) {
    TempDir dir;
    Config c;
    // learned LayerNorm: the tutorial's fixed one keeps every output bounded (no overflow at lr 100)
    const std::string cfg = write_small_config(dir, &c, true);
    const std::string log = dir.file("log.csv"), save = dir.file("m.safetensors");
    const Result r =
        cli({"train", "--config", cfg, "--epochs", "300", "--lr", "100", "--log", log, "--save", save, "--quiet"});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_HAS(r.err, "error: ");
    EXPECT_HAS(r.err, "at step ");
    EXPECT_HAS(r.out, "saved the last good weights");
    // the failing step is not logged: one row per completed step
    const size_t at = r.err.find("at step ");
    ASSERT_NE(at, std::string::npos);
    const int failed_step = std::stoi(r.err.substr(at + 8));
    EXPECT_GT(failed_step, 1);
    EXPECT_EQ(read_csv(log).size(), size_t(failed_step));  // header + (failed_step - 1) rows
    // load_weights rejects NaN/inf, so loading proves the saved weights are finite
    const Checkpoint ck = load_checkpoint(save, &c);
    EXPECT_EQ(ck.params.size(), param_specs(c).size());
}

// ---------------------------------------------------------------------------
// A bare state_dict, as the tutorial's program saves it

// safetensors.torch.save_file(model.state_dict(), path) of the tutorial's full-size model:
// every parameter under its state_dict name, the pe buffers [5000, 1, 512], no metadata.
std::string write_bare_tutorial_state_dict(const TempDir& dir, const ParamSet& params) {
    const Config t = Config::tutorial();
    const Tensor pe_table = positional_table(5000, t.d_model);
    const Tensor pe({5000, 1, t.d_model}, pe_table.data);
    std::vector<TensorToWrite> items;
    items.push_back({"encoder.pos_emb.pe", &pe, DType::F32});
    items.push_back({"decoder.pos_emb.pe", &pe, DType::F32});
    for (size_t i = 0; i < params.size(); ++i) items.push_back({params.name(i), &params[i], DType::F32});
    const std::string path = dir.file("model.safetensors");
    write_safetensors(path, items, {});
    return path;
}

TEST(CliBareStateDict, TheTutorialsOwnCheckpointOpensWithOnlyWeights) {
    TempDir dir;
    const Config t = Config::tutorial();
    const ParamSet params = init_params(t, 11);
    const std::string path = write_bare_tutorial_state_dict(dir, params);
    ASSERT_TRUE(read_safetensors(path).metadata.empty());

    Result r = cli({"translate", "--weights", path, "--verbose"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_HAS(r.err, path);
    EXPECT_HAS(r.err, "carries no config");
    EXPECT_HAS(r.err, "the tutorial's config was assumed");
    // what the in-process model decodes from the same weights
    Transformer model(t, params);
    EXPECT_EQ(r.out, "ich mochte ein bier P -> " + greedy_decode(model, "ich mochte ein bier P").text +
                         "\nich mochte ein cola P -> " + greedy_decode(model, "ich mochte ein cola P").text + "\n");

    // training from it: the tutorial's recipe, its loss before the first step is the model's
    const std::string log = dir.file("log.csv");
    r = cli({"train", "--init", path, "--epochs", "1", "--no-shuffle", "--dropout", "0", "--log", log});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_HAS(r.err, "the tutorial's config was assumed");
    EXPECT_HAS(r.out, "dropout 0\n");
    EXPECT_HAS(r.out, "Epoch: 0001 loss = ");
    const auto rows = read_csv(log);
    ASSERT_EQ(rows.size(), 2u);
    const Batch b = make_training_batch(t, builtin_examples(), {0, 1});
    Trace tr;
    model.forward(b, tr);
    const float loss = model.loss(b, tr);
    EXPECT_NEAR(std::stod(rows[1][2]), loss, 1e-6 * loss);

    r = cli({"train", "--init", path, "--dropout", "1.5"});
    EXPECT_NE(r.rc, 0);
    EXPECT_HAS(r.err, "--dropout");
}

TEST(CliBareStateDict, AnotherModelWithoutAConfigIsRefusedNamingTheMismatch) {
    // the tutorial's code at d_model 8: its names, not its sizes
    const std::string w = fixtures::path("tutorial_state_dict.weights.safetensors");
    Result r = cli({"translate", "--weights", w});
    EXPECT_USER_ERROR(r);
    EXPECT_HAS(r.err, w);
    EXPECT_HAS(r.err, "not the tutorial's model");
    EXPECT_HAS(r.err, "'encoder.src_emb.weight' has shape [6, 8], the tutorial's is [6, 512]");
    EXPECT_HAS(r.err, "--config");
    EXPECT_EQ(r.out, "");
    // with its config it opens
    r = cli({"translate", "--weights", w, "--config", fixtures::path("tutorial_state_dict.config.json")});
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_FALSE(has(r.err, "assumed"));
}

// ---------------------------------------------------------------------------
// translate

TEST(CliTranslate, AModelTrainedInProcessTranslatesBothSentences) {
    TempDir dir;
    // as tests/core/test_training.cpp's SmallModelLearnsBothSentencesAndTranslates
    const Config c = Config::small();
    Transformer model(c, init_params(c, 7));
    TrainOptions to;
    to.epochs = 60;
    to.batch_size = 2;
    to.optimizer.kind = OptimizerKind::Adam;
    to.optimizer.lr = 5e-3;
    Trainer trainer(model, builtin_examples(), to);
    ASSERT_EQ(trainer.run().status, TrainStatus::Finished);
    const std::string save = dir.file("trained.safetensors");
    save_checkpoint(save, model);

    Result r = cli({"translate", "--weights", save});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out, "i want a beer .\ni want a coke .\n");
    r = cli({"translate", "--weights", save, "--verbose", "--src", "ich mochte ein cola P"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out, "ich mochte ein cola P -> i want a coke .\n");

    r = cli({"translate", "--weights", save, "--src", "ich mochte ein wein P"});
    EXPECT_USER_ERROR(r);
    EXPECT_HAS(r.err, "'wein'");
    EXPECT_HAS(r.err, "P ich mochte ein bier cola");
    EXPECT_EQ(r.out, "");
}

}  // namespace

// ---------------------------------------------------------------------------
// --backend and info --devices

namespace {
bool have_gpu() {
    for (const auto& d : stepformer::gpu_devices())
        if (d.usable) return true;
    return false;
}
}  // namespace

TEST(CliBackend, InfoListsTheDevices) {
    const Result r = cli({"info", "--devices"});
    ASSERT_EQ(r.rc, 0) << r.err;
    if (!stepformer::gpu_backend_built()) {
        EXPECT_HAS(r.out, "no GPU backend");
        return;
    }
    const auto devs = stepformer::gpu_devices();
    if (devs.empty()) {
        EXPECT_HAS(r.out, "no Vulkan devices");
    }
    for (const auto& d : devs) EXPECT_HAS(r.out, d.name);
    const int gpu = stepformer::gpu_device_for(devs);
    if (gpu >= 0) {
        EXPECT_HAS(r.out, devs[size_t(gpu)].name + " (" + devs[size_t(gpu)].type + ")  <- --backend gpu");
    }
    if (stepformer::gpu_device_for(devs, true) < 0 && !devs.empty()) {
        EXPECT_HAS(r.out, "--backend auto computes on the CPU (no GPU)");
    }
}

TEST(CliBackend, InfoWithoutAFileOrDevicesIsAnError) {
    const Result r = cli({"info"});
    EXPECT_EQ(r.rc, 1);
    EXPECT_HAS(r.err, "give a safetensors file, or --devices");
}

TEST(CliBackend, AnUnknownBackendIsNamed) {
    const Result r = cli({"translate", "--backend", "tpu"});
    EXPECT_EQ(r.rc, 1);
    EXPECT_HAS(r.err, "--backend");
    setenv("STEPFORMER_BACKEND", "tpu", 1);
    const Result e = cli({"translate"});
    unsetenv("STEPFORMER_BACKEND");
    EXPECT_EQ(e.rc, 1);
    EXPECT_HAS(e.err, "STEPFORMER_BACKEND='tpu': use cpu, gpu or auto");
}

// The same forward dump on the GPU as on the CPU, to the tolerance the kernel tests allow; or,
// without a device, exit code 2 and why.
TEST(CliBackend, TheGpuComputesTheSameForwardPassOrSaysWhyNot) {
    TempDir dir;
    const std::string on_cpu = dir.file("cpu.safetensors"), on_gpu = dir.file("gpu.safetensors");
    const Result c = cli({"forward", "--backend", "cpu", "--dump", on_cpu});
    ASSERT_EQ(c.rc, 0) << c.err;
    const Result g = cli({"forward", "--backend", "gpu", "--dump", on_gpu});
    if (!have_gpu()) {
        EXPECT_EQ(g.rc, 2) << g.err;
        EXPECT_HAS(g.err, "--backend gpu: ");
        return;
    }
    ASSERT_EQ(g.rc, 0) << g.err;
    const auto a = stepformer::read_safetensors(on_cpu), b = stepformer::read_safetensors(on_gpu);
    ASSERT_EQ(a.tensors.size(), b.tensors.size());
    for (const auto& t : a.tensors) {
        const auto* u = b.find(t.name);
        ASSERT_NE(u, nullptr) << t.name;
        EXPECT_TRUE(fixtures::close(t.name, u->value, t.value, 1e-5));
    }
}

// --compare-cpu: every traced tensor against the CPU's. The CPU against itself is equal bit for
// bit; the GPU within float rounding.
TEST(CliBackend, CompareCpuReportsEveryTensor) {
    const Result c = cli({"forward", "--backend", "cpu", "--compare-cpu"});
    ASSERT_EQ(c.rc, 0) << c.err;
    EXPECT_HAS(c.out, "against the CPU backend");
    const std::string n = [&] {  // "…, 253 traced tensors"
        const size_t at = c.out.find(" traced tensors");
        const size_t from = c.out.rfind(' ', at - 1) + 1;
        return c.out.substr(from, at - from);
    }();
    ASSERT_FALSE(n.empty());
    EXPECT_HAS(c.out, n + " of " + n + " tensors bit for bit equal");
    EXPECT_HAS(c.out, "encoder.layers.0.enc_self_attn.attn");
    EXPECT_HAS(c.out, "projection.probs");
    if (!have_gpu()) return;
    const Result g = cli({"forward", "--backend", "gpu", "--compare-cpu"});
    ASSERT_EQ(g.rc, 0) << g.err;
    EXPECT_HAS(g.out, "gpu, ");
    const size_t at = g.out.find("max relative ");
    ASSERT_NE(at, std::string::npos) << g.out;
    const double worst = std::stod(g.out.substr(at + 13));
    EXPECT_LT(worst, 1e-4) << g.out;
    EXPECT_HAS(g.out, "encoder.layers.0.enc_self_attn.attn");
}

TEST(CliBackend, GpuWithoutADriverExitsWithTwo) {
    setenv("VK_ICD_FILENAMES", "/nonexistent/icd.json", 1);
    const Result r = cli({"forward", "--backend", "gpu"});
    const Result a = cli({"translate", "--backend", "auto"});
    unsetenv("VK_ICD_FILENAMES");
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_HAS(r.err, stepformer::gpu_backend_built() ? "--backend gpu: no Vulkan device or driver on this machine"
                                                      : "--backend gpu: this build has no GPU backend");
    EXPECT_EQ(a.rc, 0) << a.err;
    EXPECT_HAS(a.err, "computing on the CPU");
}
