// stepformer-cli on "architecture": "torch": seed 004's layer lab fed tensors (.npy as NumPy saves
// them, masks under PyTorch's argument names) and a translation model around nn.Transformer,
// each checked against the PyTorch fixtures in tests/fixtures/torch/.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "cli_runner.h"
#include "fixture_util.h"
#include "stepformer/checkpoint.h"
#include "stepformer/decode.h"
#include "stepformer/devices.h"
#include "stepformer/model_io.h"
#include "stepformer/npy.h"
#include "stepformer/safetensors.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using namespace stepformer;
using clitest::cli;
using clitest::has;
using clitest::read_text;
using clitest::Result;
using testutil::TempDir;

namespace {

constexpr double kTol = 1e-4;  // as tests/core/test_torch_model.cpp compares with PyTorch

std::string torch_path(const std::string& c, const std::string& kind) { return fixtures::path("torch/" + c + "." + kind); }

const Tensor& get(const SafetensorsFile& f, const std::string& name) {
    const StoredTensor* t = f.find(name);
    if (!t) throw std::runtime_error("fixture has no '" + name + "'");
    return t->value;
}


::testing::AssertionResult same(const std::string& name, const Tensor& got, const Tensor& want) {
    return fixtures::close_nonfinite(name, got, want, kTol);
}

// np.save's format for the dtypes masks come in: '|b1' (bool) and '<i8' (int64).
void write_npy_as(const std::string& path, const Tensor& t, const std::string& descr) {
    std::string shape = "(";
    for (size_t i = 0; i < t.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(t.shape[i]);
    shape += t.shape.size() == 1 ? ",)" : ")";
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    std::ofstream out(path, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    out.put(char(header.size() & 0xff));
    out.put(char(header.size() >> 8));
    out << header;
    for (float v : t.data) {
        if (descr == "|b1") {
            out.put(v != 0.0f ? 1 : 0);
        } else {
            const int64_t i = static_cast<int64_t>(v);
            out.write(reinterpret_cast<const char*>(&i), 8);
        }
    }
}

// A fixture's input saved as .npy the way the user would: floats by the core's writer, masks as bool.
std::string save_input(const TempDir& dir, const SafetensorsFile& in, const std::string& name,
                       const std::string& descr = "<f4") {
    const std::string path = dir.file(name + ".npy");
    if (descr == "<f4")
        write_npy(path, get(in, name));
    else
        write_npy_as(path, get(in, name), descr);
    return path;
}

std::vector<std::string> model_args(const std::string& c) {
    return {"forward", "--config", torch_path(c, "config.json"), "--weights", torch_path(c, "weights.safetensors")};
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// Every tensor of a layer lab fixture's trace in the dump, and its output (PyTorch's layout) as
// the last layer's last step.
void expect_pytorchs_trace(const std::string& case_name, const SafetensorsFile& dump, bool batch_first) {
    const SafetensorsFile want = read_safetensors(torch_path(case_name, "trace.safetensors"));
    size_t compared = 0;
    for (const StoredTensor& w : want.tensors) {
        if (w.name == "encoder_layer.out" || w.name == "decoder_layer.out") continue;
        const StoredTensor* g = dump.find(w.name);
        ASSERT_NE(g, nullptr) << w.name;
        EXPECT_TRUE(same(w.name, g->value, w.value));
        ++compared;
    }
    EXPECT_GT(compared, 15u);
    const bool decoder = want.find("decoder_layer.out") != nullptr;
    const Tensor& last = get(dump, decoder ? "decoder_layer.norm3" : "encoder_layer.norm2");
    const std::string out = decoder ? "decoder_layer.out" : "encoder_layer.out";
    EXPECT_TRUE(same(out, batch_first ? last : swap_leading_axes(last), get(want, out)));
}

}  // namespace

// ---------------------------------------------------------------------------
// Seed 004: x = torch.randn(3, 1, 4) after torch.manual_seed(42), through
// nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0).

TEST(CliLayerLab, Seed004PrintsTheSeedsNumbers) {
    TempDir dir;
    const SafetensorsFile in = read_safetensors(torch_path("seed004", "inputs.safetensors"));
    const std::string x = save_input(dir, in, "src"), dump = dir.file("trace.safetensors");
    const Result r = cli(model_args("seed004") + std::vector<std::string>{"--src-input", x, "--dump", dump});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err, "");
    // print(out) in the seed's notebook, character for character
    EXPECT_HAS(r.out, "output encoder_layer.norm2 in PyTorch's layout [3, 1, 4] (length, batch, d_model):\n"
                      "tensor([[[-1.0328, -0.9185,  0.6710,  1.2804]],\n"
                      "\n"
                      "        [[-1.4175, -0.1948,  1.3775,  0.2347]],\n"
                      "\n"
                      "        [[-1.0022, -0.8035,  0.3029,  1.5028]]])\n");
    EXPECT_HAS(r.out, "nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0, activation=relu");
    EXPECT_HAS(r.out, "encoder_layer.norm1 ");  // the seed's hand-derived LayerNorm after the first residual
    EXPECT_HAS(r.out, "wrote 17 tensors to " + dump);

    const SafetensorsFile d = read_safetensors(dump);
    const std::vector<float> printed = {-1.0328f, -0.9185f, 0.6710f, 1.2804f, -1.4175f, -0.1948f,
                                        1.3775f,  0.2347f,  -1.0022f, -0.8035f, 0.3029f, 1.5028f};
    const Tensor& out = get(d, "encoder_layer.norm2");  // (1, 3, 4): batch 1, the same order as [3, 1, 4]
    ASSERT_EQ(out.shape, (Shape{1, 3, 4}));
    for (size_t i = 0; i < printed.size(); ++i) EXPECT_NEAR(out.data[i], printed[i], 5e-5) << i;
    expect_pytorchs_trace("seed004", d, false);
    EXPECT_TRUE(same("src", get(d, "src"), swap_leading_axes(get(in, "src"))));  // the input, batch-first like every entry
    ASSERT_TRUE(d.metadata.count("stepformer.config"));
    EXPECT_TRUE(config_from_json_text(d.metadata.at("stepformer.config")).layers());

    // --show prints any step the same way: the seed's hand-derived LayerNorm after the first
    // residual ("normalized"), batch-first as traced
    const Result s = cli(model_args("seed004") + std::vector<std::string>{"--src-input", x, "--show",
                                                                           "encoder_layer.norm1"});
    ASSERT_EQ(s.rc, 0) << s.err;
    EXPECT_HAS(s.out, "encoder_layer.norm1 [1, 3, 4]:\n"
                      "tensor([[[-0.9493, -1.0434,  1.1045,  0.8881],\n"
                      "         [-1.0025, -0.1531,  1.6511, -0.4955],\n"
                      "         [-1.0129, -0.9286,  0.6342,  1.3073]]])\n");
}

// The weights' own config is enough, and a tensor of a safetensors file is an input too.
TEST(CliLayerLab, TheWeightsConfigAndASafetensorsEntryWork) {
    const Result r = cli({"forward", "--weights", torch_path("seed004", "weights.safetensors"), "--src-input",
                          torch_path("seed004", "inputs.safetensors") + ":src"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_HAS(r.out, "        [[-1.4175, -0.1948,  1.3775,  0.2347]],\n");
}

TEST(CliLayerLab, APairWithACausalTgtMaskIsPyTorchsDecoderLayer) {
    TempDir dir;
    const SafetensorsFile in = read_safetensors(torch_path("pair_post_relu", "inputs.safetensors"));
    // the fixture's tgt_mask is generate_square_subsequent_mask(3): what "causal" must make
    const Tensor& m = get(in, "tgt_mask");
    ASSERT_EQ(m.shape, (Shape{3, 3}));
    for (int q = 0; q < 3; ++q)
        for (int k = 0; k < 3; ++k) ASSERT_EQ(m.data[size_t(q * 3 + k)], k > q ? -INFINITY : 0.0f);
    const std::vector<std::string> inputs{"--src-input", save_input(dir, in, "src"), "--tgt-input",
                                          save_input(dir, in, "tgt")};
    const std::string dump = dir.file("d.safetensors");
    Result r = cli(model_args("pair_post_relu") + inputs + std::vector<std::string>{"--tgt-mask", "causal", "--dump", dump});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_HAS(r.out, "nn.TransformerDecoderLayer(d_model=8, nhead=2");
    EXPECT_HAS(r.out, "output decoder_layer.norm3 in PyTorch's layout [3, 2, 8] (length, batch, d_model):\ntensor([[[");
    expect_pytorchs_trace("pair_post_relu", read_safetensors(dump), false);

    // the same mask from a float .npy; and without one the output is not PyTorch's (the mask matters)
    r = cli(model_args("pair_post_relu") + inputs +
            std::vector<std::string>{"--tgt-mask", save_input(dir, in, "tgt_mask"), "--dump", dump});
    ASSERT_EQ(r.rc, 0) << r.err;
    expect_pytorchs_trace("pair_post_relu", read_safetensors(dump), false);
    r = cli(model_args("pair_post_relu") + inputs + std::vector<std::string>{"--dump", dump});
    ASSERT_EQ(r.rc, 0) << r.err;
    const Tensor unmasked = swap_leading_axes(get(read_safetensors(dump), "decoder_layer.norm3"));
    const Tensor want = get(read_safetensors(torch_path("pair_post_relu", "trace.safetensors")), "decoder_layer.out");
    EXPECT_GT(fixtures::rel_error(unmasked, want), 1e-2);
}

// Pads mid-batch: the three key padding masks as bool .npy files (np.save of a bool array), and
// the backward pass from PyTorch's d loss / d out.
TEST(CliLayerLab, KeyPaddingMasksAndTheBackwardPassArePyTorchs) {
    TempDir dir;
    const std::string c = "key_padding";
    const SafetensorsFile in = read_safetensors(torch_path(c, "inputs.safetensors"));
    const SafetensorsFile grads = read_safetensors(torch_path(c, "grads.safetensors"));
    const std::string dout = dir.file("dout.npy");
    write_npy(dout, get(grads, "loss.weight"));
    const std::vector<std::string> inputs{
        "--src-input", save_input(dir, in, "src"), "--tgt-input", save_input(dir, in, "tgt"), "--tgt-mask",
        save_input(dir, in, "tgt_mask"), "--src-key-padding-mask", save_input(dir, in, "src_key_padding_mask", "|b1"),
        "--tgt-key-padding-mask", save_input(dir, in, "tgt_key_padding_mask", "|b1"), "--memory-key-padding-mask",
        save_input(dir, in, "memory_key_padding_mask", "|b1")};
    const std::string dump = dir.file("d.safetensors");
    Result r = cli(model_args(c) + inputs + std::vector<std::string>{"--dout", dout, "--dump", dump});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_HAS(r.out, "backward from --dout " + dout);
    EXPECT_HAS(r.out, "src.grad [4, 3, 4]:\ntensor(");
    const SafetensorsFile d = read_safetensors(dump);
    expect_pytorchs_trace(c, d, false);
    size_t params = 0, intermediates = 0;
    for (const StoredTensor& g : grads.tensors) {
        if (g.name.rfind("grad.", 0) != 0 || g.name == "grad.encoder_layer.out" || g.name == "grad.decoder_layer.out")
            continue;
        const StoredTensor* ours = d.find(g.name);
        ASSERT_NE(ours, nullptr) << g.name;
        const bool pytorch_layout = g.name == "grad.src" || g.name == "grad.tgt";
        EXPECT_TRUE(same(g.name, pytorch_layout ? swap_leading_axes(ours->value) : ours->value, g.value));
        ++(g.value.rank() <= 2 && !pytorch_layout ? params : intermediates);
    }
    EXPECT_EQ(params, 30u);  // every parameter of both layers: 12 + 18
    EXPECT_GT(intermediates, 20u);

    // the masks as int64 give the same numbers; without them the output is not PyTorch's
    const std::vector<std::string> ints{
        "--src-input", inputs[1], "--tgt-input", inputs[3], "--tgt-mask", inputs[5], "--src-key-padding-mask",
        save_input(dir, in, "src_key_padding_mask", "<i8"), "--tgt-key-padding-mask",
        save_input(dir, in, "tgt_key_padding_mask", "<i8"), "--memory-key-padding-mask",
        save_input(dir, in, "memory_key_padding_mask", "<i8"), "--dump", dump};
    r = cli(model_args(c) + ints);
    ASSERT_EQ(r.rc, 0) << r.err;
    expect_pytorchs_trace(c, read_safetensors(dump), false);
    r = cli(model_args(c) + std::vector<std::string>(inputs.begin(), inputs.begin() + 6) +
            std::vector<std::string>{"--dump", dump});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_GT(fixtures::rel_error(get(read_safetensors(dump), "encoder_layer.norm2"),
                                  get(read_safetensors(torch_path(c, "trace.safetensors")), "encoder_layer.norm2")),
              1e-2);
}

// A bool src_mask hiding every key of a row: PyTorch's NaN row, as PyTorch makes it.
TEST(CliLayerLab, AFullyMaskedRowIsPyTorchs) {
    TempDir dir;
    const std::string c = "fully_masked_row";
    const SafetensorsFile in = read_safetensors(torch_path(c, "inputs.safetensors"));
    const std::string dump = dir.file("d.safetensors");
    const Result r = cli(model_args(c) + std::vector<std::string>{"--src-input", save_input(dir, in, "src"),
                                                                   "--src-mask", save_input(dir, in, "src_mask", "|b1"),
                                                                   "--dump", dump});
    ASSERT_EQ(r.rc, 0) << r.err;
    expect_pytorchs_trace(c, read_safetensors(dump), false);
}

TEST(CliLayerLab, BatchFirstTakesAndPrintsBatchLengthDModel) {
    TempDir dir;
    const std::string c = "batch_first";
    const SafetensorsFile in = read_safetensors(torch_path(c, "inputs.safetensors"));
    const std::string dump = dir.file("d.safetensors");
    const Result r = cli(model_args(c) + std::vector<std::string>{"--src-input", save_input(dir, in, "src"), "--tgt-input",
                                                                   save_input(dir, in, "tgt"), "--tgt-mask", "causal",
                                                                   "--dump", dump});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_HAS(r.out, "output decoder_layer.norm3 in PyTorch's layout [2, 3, 8] (batch, length, d_model)");
    expect_pytorchs_trace(c, read_safetensors(dump), true);
}

// Without weights: PyTorch-style initialisation from --seed, as for the other models.
TEST(CliLayerLab, WithoutWeightsTheSeedInitialises) {
    TempDir dir;
    const SafetensorsFile in = read_safetensors(torch_path("seed004", "inputs.safetensors"));
    const std::string x = save_input(dir, in, "src");
    const auto run = [&](const std::string& seed) {
        const std::string dump = dir.file("s" + seed + ".safetensors");
        const Result r = cli({"forward", "--config", torch_path("seed004", "config.json"), "--seed", seed,
                              "--src-input", x, "--dump", dump});
        EXPECT_EQ(r.rc, 0) << r.err;
        return get(read_safetensors(dump), "encoder_layer.norm2");
    };
    const Tensor a = run("5"), b = run("6");
    const Config c = load_config_file(torch_path("seed004", "config.json"));
    Transformer model(c, init_params(c, 5));
    Trace tr;
    model.forward(make_layer_batch(c, get(in, "src")), tr);
    EXPECT_TRUE(same("seed 5", a, tr.at("encoder_layer.norm2").value));
    EXPECT_GT(fixtures::rel_error(b, a), 1e-3);
}

TEST(CliLayerLab, BadInputsAreNamed) {
    TempDir dir;
    const SafetensorsFile in = read_safetensors(torch_path("seed004", "inputs.safetensors"));
    const std::string x = save_input(dir, in, "src");
    const std::vector<std::string> seed004 = model_args("seed004");
    const auto fails = [&](const std::vector<std::string>& args, const std::vector<std::string>& parts) {
        const Result r = cli(args);
        EXPECT_USER_ERROR(r);
        for (const auto& p : parts) EXPECT_HAS(r.err, p);
        EXPECT_EQ(r.out, "");
    };
    // NaN in the input
    Tensor nan = get(in, "src");
    nan.data[5] = std::numeric_limits<float>::quiet_NaN();
    write_npy(dir.file("nan.npy"), nan);
    fails(seed004 + std::vector<std::string>{"--src-input", dir.file("nan.npy")},
          {"--src-input " + dir.file("nan.npy"), "contains NaN (element 5)"});
    // the wrong shape: [L, D] without the batch axis, and a wrong d_model
    write_npy(dir.file("2d.npy"), Tensor({3, 4}));
    fails(seed004 + std::vector<std::string>{"--src-input", dir.file("2d.npy")},
          {"has shape [3, 4]", "[length, batch, d_model] with d_model = 4"});
    write_npy(dir.file("d5.npy"), Tensor({3, 1, 5}));
    fails(seed004 + std::vector<std::string>{"--src-input", dir.file("d5.npy")}, {"has shape [3, 1, 5]"});
    // a sentence for the layer lab, no input at all, a tgt without a decoder layer
    fails(seed004 + std::vector<std::string>{"--src", "ich mochte ein bier P"},
          {"--src takes a sentence", "layer lab", "--src-input"});
    fails(seed004, {"give the encoder layer's input as a tensor, --src-input"});
    fails(seed004 + std::vector<std::string>{"--src-input", x, "--tgt-input", x},
          {"--tgt-input was given, but this layer lab has no decoder layer"});
    // masks: a float key padding mask, an int attn mask, the wrong shape, causal on a non-square mask
    write_npy(dir.file("kpm_float.npy"), Tensor({1, 3}));
    fails(seed004 + std::vector<std::string>{"--src-input", x, "--src-key-padding-mask", dir.file("kpm_float.npy")},
          {"--src-key-padding-mask", "is float", "bool or int, 1 = ignore"});
    write_npy_as(dir.file("kpm_t.npy"), Tensor({3, 1}), "|b1");
    fails(seed004 + std::vector<std::string>{"--src-input", x, "--src-key-padding-mask", dir.file("kpm_t.npy")},
          {"has shape [3, 1]; the layer needs [1, 3] (batch, src length)"});
    write_npy_as(dir.file("mask_int.npy"), Tensor({3, 3}), "<i8");
    fails(seed004 + std::vector<std::string>{"--src-input", x, "--src-mask", dir.file("mask_int.npy")},
          {"--src-mask", "<i8", "float (added to the scores) or bool (True = masked)"});
    write_npy_as(dir.file("mask_small.npy"), Tensor({2, 2}), "|b1");
    fails(seed004 + std::vector<std::string>{"--src-input", x, "--src-mask", dir.file("mask_small.npy")},
          {"has shape [2, 2]; the layer needs [3, 3]"});
    // --dout of another shape, a missing file, a safetensors without that tensor
    write_npy(dir.file("dout.npy"), Tensor({1, 3, 4}));
    fails(seed004 + std::vector<std::string>{"--src-input", x, "--dout", dir.file("dout.npy")},
          {"--dout", "has shape [1, 3, 4]; the output encoder_layer.norm2 is [3, 1, 4]"});
    fails(seed004 + std::vector<std::string>{"--src-input", dir.file("none.npy")},
          {"--src-input " + dir.file("none.npy"), "No such file or directory"});
    fails(seed004 + std::vector<std::string>{"--src-input", torch_path("seed004", "inputs.safetensors") + ":x"},
          {"has no tensor 'x' (it has: src)"});
    // tensors for a model that takes sentences; sentence commands for the layer lab
    fails(model_args("seq2seq") + std::vector<std::string>{"--src-input", x},
          {"--src-input is for the layer lab", "(\"torch\", \"seq2seq\") takes sentences"});
    fails({"forward", "--src-input", x}, {"(\"tutorial\", \"seq2seq\")"});
    for (const char* cmd : {"train", "translate"})
        fails({cmd, "--config", torch_path("seed004", "config.json")},
              {std::string(cmd) + ": this model is the layer lab", "forward --src-input"});
    fails({"grad", "--config", torch_path("seed004", "config.json"), "--dump", dir.file("g.safetensors")},
          {"grad: this model is the layer lab"});
    EXPECT_FALSE(fs::exists(dir.file("g.safetensors")));
}

// ---------------------------------------------------------------------------
// A translation model around nn.Transformer

TEST(CliTorchSeq2Seq, ForwardAndGradArePyTorchs) {
    TempDir dir;
    const std::string w = torch_path("seq2seq", "weights.safetensors");
    Result r = cli({"forward", "--weights", w});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_HAS(r.out, "nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2");
    EXPECT_HAS(r.out, "src_tok_emb.out");
    EXPECT_HAS(r.out, "transformer.encoder.layers.0.self_attn.scores");
    EXPECT_HAS(r.out, "transformer.decoder.layers.1.multihead_attn.attn, sentence 0, head 0");
    EXPECT_HAS(r.out, "predicted next tokens (argmax of generator.probs)");
    EXPECT_HAS(r.out, "note: ignored buffer positional_encoding.pos_embedding");

    const auto in = fixtures::inputs("torch/seq2seq");
    std::vector<std::string> args{"forward", "--weights", w};
    for (size_t i = 0; i < in.src.size(); ++i) args = args + std::vector<std::string>{"--src", in.src[i], "--tgt", in.tgt[i]};
    const std::string dump = dir.file("d.safetensors");
    r = cli(args + std::vector<std::string>{"--dump", dump});
    ASSERT_EQ(r.rc, 0) << r.err;
    const SafetensorsFile d = read_safetensors(dump), want = read_safetensors(torch_path("seq2seq", "trace.safetensors"));
    size_t compared = 0;
    for (const StoredTensor& t : want.tensors) {
        if (t.name == "loss" || t.name == "loss.per_token") continue;
        const StoredTensor* g = d.find(t.name);
        ASSERT_NE(g, nullptr) << t.name;
        EXPECT_TRUE(same(t.name, g->value, t.value));
        ++compared;
    }
    EXPECT_EQ(compared, want.tensors.size() - 2);

    // grad over the tutorial's two sentences (the fixture's batch): every gradient is PyTorch's
    const std::string g = dir.file("g.safetensors");
    r = cli({"grad", "--weights", w, "--dump", g});
    ASSERT_EQ(r.rc, 0) << r.err;
    const SafetensorsFile gd = read_safetensors(g), gw = read_safetensors(torch_path("seq2seq", "grads.safetensors"));
    EXPECT_NEAR(get(gd, "loss").data[0], get(want, "loss").data[0], kTol);
    size_t grads = 0;
    for (const StoredTensor& t : gw.tensors) {
        if (t.name.rfind("grad.", 0) != 0) continue;
        const StoredTensor* ours = gd.find(t.name);
        ASSERT_NE(ours, nullptr) << t.name;
        EXPECT_TRUE(same(t.name, ours->value, t.value));
        ++grads;
    }
    EXPECT_GT(grads, 100u);
}

// The CLI's SGD run is PyTorch's 30 steps; the checkpoint it saves opens again and translates.
TEST(CliTorchSeq2Seq, TrainIsPyTorchsAndItsCheckpointOpensAndTranslates) {
    TempDir dir;
    const std::string w = torch_path("seq2seq", "weights.safetensors");
    const std::string log = dir.file("log.csv"), save = dir.file("trained.safetensors");
    Result r = cli({"train", "--init", w, "--epochs", "30", "--batch-size", "2", "--no-shuffle", "--optimizer", "sgd",
                    "--lr", "0.05", "--momentum", "0.9", "--log", log, "--save", save, "--quiet"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto want = fixtures::read_json("torch/seq2seq_sgd.losses.json").at("losses").get<std::vector<double>>();
    std::istringstream lines(read_text(log));
    std::string line;
    std::getline(lines, line);  // header: step,epoch,loss,...
    std::vector<double> losses;
    while (std::getline(lines, line)) {
        const size_t a = line.find(','), b = line.find(',', a + 1), c = line.find(',', b + 1);
        losses.push_back(std::stod(line.substr(b + 1, c - b - 1)));
    }
    ASSERT_EQ(losses.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(losses[i], want[i], kTol * want[i]) << "step " << i + 1;
    EXPECT_LT(losses.back(), 0.9 * losses.front());

    const Checkpoint ck = load_checkpoint(save, nullptr);
    EXPECT_TRUE(ck.config.torch());
    EXPECT_EQ(ck.config.structure, Structure::Seq2Seq);
    r = cli({"info", save});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_HAS(r.out, "model: \"architecture\": \"torch\", \"structure\": \"seq2seq\"");
    EXPECT_HAS(r.out, "transformer.decoder.layers.1.multihead_attn.in_proj_weight");

    // Adam until it has learnt both sentences; then translate says them
    r = cli({"train", "--init", w, "--epochs", "60", "--optimizer", "adam", "--lr", "0.01", "--save", save, "--quiet"});
    ASSERT_EQ(r.rc, 0) << r.err;
    r = cli({"translate", "--weights", save, "--verbose"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out, "ich mochte ein bier P -> i want a beer .\nich mochte ein cola P -> i want a coke .\n");
    LoadedModel lm = load_model(ModelSource{std::nullopt, save, 0});
    Transformer model(lm.config, std::move(lm.params));
    EXPECT_EQ(greedy_decode(model, "ich mochte ein cola P").text, "i want a coke .");
}

// --compare-cpu for both structures: the CPU against itself bit for bit; a GPU within rounding.
TEST(CliTorchSeq2Seq, CompareCpuCoversTheTorchModels) {
    TempDir dir;
    const SafetensorsFile in = read_safetensors(torch_path("pair_post_relu", "inputs.safetensors"));
    const std::vector<std::vector<std::string>> runs{
        {"forward", "--weights", torch_path("seq2seq", "weights.safetensors")},
        model_args("pair_post_relu") + std::vector<std::string>{"--src-input", save_input(dir, in, "src"), "--tgt-input",
                                                                 save_input(dir, in, "tgt"), "--tgt-mask", "causal",
                                                                 "--grad"}};
    bool gpu = false;
    for (const auto& d : gpu_devices()) gpu = gpu || d.usable;
    for (const auto& args : runs) {
        Result r = cli(args + std::vector<std::string>{"--compare-cpu", "--backend", "cpu"});
        ASSERT_EQ(r.rc, 0) << r.err;
        const size_t at = r.out.find(" traced tensors");
        ASSERT_NE(at, std::string::npos) << r.out;
        const size_t from = r.out.rfind(' ', at - 1) + 1;
        const std::string n = r.out.substr(from, at - from);
        EXPECT_HAS(r.out, n + " of " + n + " tensors bit for bit equal");
        EXPECT_GT(std::stoi(n), 40);
        if (!gpu) continue;
        r = cli(args + std::vector<std::string>{"--compare-cpu", "--backend", "gpu"});
        ASSERT_EQ(r.rc, 0) << r.err;
        const size_t rel = r.out.find("max relative ");
        ASSERT_NE(rel, std::string::npos) << r.out;
        EXPECT_LT(std::stod(r.out.substr(rel + 13)), 1e-4) << r.out;
    }
}
