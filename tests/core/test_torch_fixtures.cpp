// The PyTorch fixtures for issue 17's "architecture": "torch" (tests/fixtures/torch/, made by
// tests/reference/make_torch_fixtures.py) are complete and self-consistent, so the C++
// nn.TransformerEncoderLayer / DecoderLayer can later be tested against them. Needs no torch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixture_util.h"
#include "stepformer/backend.h"
#include "stepformer/safetensors.h"

namespace {

using stepformer::Shape;
using stepformer::Tensor;

const std::vector<std::string> kCases = {"seed004",     "pair_post_relu", "pair_pre_gelu",
                                         "batch_first", "key_padding",    "fully_masked_row"};

std::string file(const std::string& case_name, const std::string& kind) {
    return "torch/" + case_name + "." + kind;
}

stepformer::SafetensorsFile load(const std::string& case_name, const std::string& kind) {
    return stepformer::read_safetensors(fixtures::path(file(case_name, kind + ".safetensors")));
}

const Tensor& get(const stepformer::SafetensorsFile& f, const std::string& name) {
    const auto* t = f.find(name);
    if (t == nullptr) throw std::runtime_error("missing tensor " + name);
    return t->value;
}

// The sizes a case's tensors are made of, read from its config and inputs.
struct Dims {
    int64_t B = 0, S = 0, T = 0, D = 0, H = 0, F = 0;
    bool batch_first = false, norm_first = false, decoder = false;
};

Dims dims(const std::string& case_name) {
    const auto cfg = fixtures::read_json(file(case_name, "config.json"));
    const auto in = load(case_name, "inputs");
    Dims d;
    d.D = cfg.at("d_model").get<int64_t>();
    d.H = cfg.at("nhead").get<int64_t>();
    d.F = cfg.at("dim_feedforward").get<int64_t>();
    d.batch_first = cfg.at("batch_first").get<bool>();
    d.norm_first = cfg.at("norm_first").get<bool>();
    d.decoder = cfg.at("decoder_layer").get<bool>();
    const Shape& src = get(in, "src").shape;
    d.B = d.batch_first ? src.at(0) : src.at(1);
    d.S = d.batch_first ? src.at(1) : src.at(0);
    if (d.decoder) {
        const Shape& tgt = get(in, "tgt").shape;
        d.T = d.batch_first ? tgt.at(1) : tgt.at(0);
    }
    return d;
}

using Names = std::vector<std::pair<std::string, Shape>>;

// The trace names the README documents, in computation order, with their shapes.
Names expected_trace(const Dims& d) {
    Names n;
    const int64_t hd = d.D / d.H;
    auto attention = [&](const std::string& p, int64_t lq, int64_t lk) {
        n.push_back({p + ".Q", {d.B, d.H, lq, hd}});
        n.push_back({p + ".K", {d.B, d.H, lk, hd}});
        n.push_back({p + ".V", {d.B, d.H, lk, hd}});
        n.push_back({p + ".scores", {d.B, d.H, lq, lk}});
        n.push_back({p + ".mask", {d.B, d.H, lq, lk}});
        n.push_back({p + ".masked_scores", {d.B, d.H, lq, lk}});
        n.push_back({p + ".attn", {d.B, d.H, lq, lk}});
        n.push_back({p + ".context", {d.B, d.H, lq, hd}});
        n.push_back({p + ".out_proj", {d.B, lq, d.D}});
    };
    auto add = [&](const std::string& name, int64_t l, int64_t width) { n.push_back({name, {d.B, l, width}}); };
    auto ffn = [&](const std::string& L, int64_t l) {
        add(L + ".linear1", l, d.F);
        add(L + ".activation", l, d.F);
        add(L + ".linear2", l, d.D);
    };
    const std::string E = "encoder_layer", Dl = "decoder_layer";
    if (d.norm_first) {
        add(E + ".norm1", d.S, d.D);
        attention(E + ".self_attn", d.S, d.S);
        add(E + ".add1", d.S, d.D);
        add(E + ".norm2", d.S, d.D);
        ffn(E, d.S);
        add(E + ".add2", d.S, d.D);
    } else {
        attention(E + ".self_attn", d.S, d.S);
        add(E + ".add1", d.S, d.D);
        add(E + ".norm1", d.S, d.D);
        ffn(E, d.S);
        add(E + ".add2", d.S, d.D);
        add(E + ".norm2", d.S, d.D);
    }
    if (d.decoder) {
        if (d.norm_first) {
            add(Dl + ".norm1", d.T, d.D);
            attention(Dl + ".self_attn", d.T, d.T);
            add(Dl + ".add1", d.T, d.D);
            add(Dl + ".norm2", d.T, d.D);
            attention(Dl + ".multihead_attn", d.T, d.S);
            add(Dl + ".add2", d.T, d.D);
            add(Dl + ".norm3", d.T, d.D);
            ffn(Dl, d.T);
            add(Dl + ".add3", d.T, d.D);
        } else {
            attention(Dl + ".self_attn", d.T, d.T);
            add(Dl + ".add1", d.T, d.D);
            add(Dl + ".norm1", d.T, d.D);
            attention(Dl + ".multihead_attn", d.T, d.S);
            add(Dl + ".add2", d.T, d.D);
            add(Dl + ".norm2", d.T, d.D);
            ffn(Dl, d.T);
            add(Dl + ".add3", d.T, d.D);
            add(Dl + ".norm3", d.T, d.D);
        }
    }
    // the modules' outputs, in PyTorch's own layout
    auto torch_layout = [&](int64_t l) { return d.batch_first ? Shape{d.B, l, d.D} : Shape{l, d.B, d.D}; };
    n.push_back({E + ".out", torch_layout(d.S)});
    if (d.decoder) n.push_back({Dl + ".out", torch_layout(d.T)});
    return n;
}

// The layers' state_dict names (PyTorch's), with their shapes.
Names expected_weights(const Dims& d) {
    Names n;
    auto mha = [&](const std::string& p) {
        n.push_back({p + ".in_proj_weight", {3 * d.D, d.D}});
        n.push_back({p + ".in_proj_bias", {3 * d.D}});
        n.push_back({p + ".out_proj.weight", {d.D, d.D}});
        n.push_back({p + ".out_proj.bias", {d.D}});
    };
    auto rest = [&](const std::string& L, int norms) {
        n.push_back({L + ".linear1.weight", {d.F, d.D}});
        n.push_back({L + ".linear1.bias", {d.F}});
        n.push_back({L + ".linear2.weight", {d.D, d.F}});
        n.push_back({L + ".linear2.bias", {d.D}});
        for (int i = 1; i <= norms; ++i) {
            n.push_back({L + ".norm" + std::to_string(i) + ".weight", {d.D}});
            n.push_back({L + ".norm" + std::to_string(i) + ".bias", {d.D}});
        }
    };
    mha("encoder_layer.self_attn");
    rest("encoder_layer", 2);
    if (d.decoder) {
        mha("decoder_layer.self_attn");
        mha("decoder_layer.multihead_attn");
        rest("decoder_layer", 3);
    }
    return n;
}

std::vector<std::string> names_of(const stepformer::SafetensorsFile& f) {
    std::vector<std::string> v;
    for (const auto& t : f.tensors) v.push_back(t.name);
    return v;
}

std::set<std::string> name_set(const Names& n) {
    std::set<std::string> s;
    for (const auto& [name, shape] : n) s.insert(name);
    return s;
}

// [L, B, D] -> [B, L, D]
Tensor transpose01(const Tensor& t) {
    Tensor r;
    r.shape = {t.shape.at(1), t.shape.at(0), t.shape.at(2)};
    r.data.resize(t.data.size());
    const int64_t a = t.shape[0], b = t.shape[1], c = t.shape[2];
    for (int64_t i = 0; i < a; ++i)
        for (int64_t j = 0; j < b; ++j)
            for (int64_t k = 0; k < c; ++k) r.data[(j * a + i) * c + k] = t.data[(i * b + j) * c + k];
    return r;
}

// Same shape and the same floats, NaN matching NaN.
::testing::AssertionResult identical(const std::string& what, const Tensor& a, const Tensor& b) {
    if (a.shape != b.shape) return ::testing::AssertionFailure() << what << ": shapes differ";
    for (size_t i = 0; i < a.data.size(); ++i) {
        const bool na = std::isnan(a.data[i]), nb = std::isnan(b.data[i]);
        if (na != nb || (!na && a.data[i] != b.data[i]))
            return ::testing::AssertionFailure() << what << ": element " << i << " " << a.data[i] << " vs "
                                                 << b.data[i];
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult rounds_to(const std::string& what, const Tensor& t, const std::vector<float>& printed) {
    if (t.data.size() != printed.size()) return ::testing::AssertionFailure() << what << ": size";
    for (size_t i = 0; i < printed.size(); ++i)
        if (std::round(double(t.data[i]) * 1e4) / 1e4 != double(std::round(double(printed[i]) * 1e4) / 1e4))
            return ::testing::AssertionFailure() << what << "[" << i << "] = " << t.data[i] << ", printed "
                                                 << printed[i];
    return ::testing::AssertionSuccess();
}

TEST(TorchFixtures, EveryCaseHasItsFiveFiles) {
    for (const auto& c : kCases) {
        for (const char* kind : {"config.json", "weights.safetensors", "inputs.safetensors", "trace.safetensors",
                                 "grads.safetensors"})
            EXPECT_TRUE(std::filesystem::is_regular_file(fixtures::path(file(c, kind)))) << c << "." << kind;
        const auto cfg = fixtures::read_json(file(c, "config.json"));
        EXPECT_EQ(cfg.at("architecture"), "torch") << c;
        EXPECT_EQ(cfg.at("structure"), "layers") << c;
        for (const char* key : {"d_model", "nhead", "dim_feedforward", "dropout", "activation", "layer_norm_eps",
                                "batch_first", "norm_first", "decoder_layer"})
            EXPECT_TRUE(cfg.contains(key)) << c << ": " << key;
        EXPECT_EQ(cfg.at("dropout").get<double>(), 0.0) << c;
        const auto w = load(c, "weights");
        EXPECT_EQ(nlohmann::json::parse(w.metadata.at("stepformer.config")), cfg) << c;
    }
}

TEST(TorchFixtures, WeightsAreTheLayersStateDict) {
    for (const auto& c : kCases) {
        const Dims d = dims(c);
        const auto w = load(c, "weights");
        const Names want = expected_weights(d);
        EXPECT_EQ(w.tensors.size(), want.size()) << c;
        for (const auto& [name, shape] : want) {
            const auto* t = w.find(name);
            ASSERT_NE(t, nullptr) << c << ": " << name;
            EXPECT_EQ(t->dtype, stepformer::DType::F32) << c << ": " << name;
            EXPECT_EQ(t->shape, shape) << c << ": " << name;
        }
    }
}

TEST(TorchFixtures, TraceHasEveryDocumentedNameInOrder) {
    for (const auto& c : kCases) {
        const Dims d = dims(c);
        const auto tr = load(c, "trace");
        const Names want = expected_trace(d);
        std::vector<std::string> want_names;
        for (const auto& [name, shape] : want) {
            want_names.push_back(name);
            const auto* t = tr.find(name);
            ASSERT_NE(t, nullptr) << c << ": " << name;
            EXPECT_EQ(t->dtype, stepformer::DType::F32) << c << ": " << name;
            EXPECT_EQ(t->shape, shape) << c << ": " << name << " is " << stepformer::shape_to_string(t->shape);
        }
        EXPECT_EQ(names_of(tr), want_names) << c << ": names or order differ from the README";
    }
}

TEST(TorchFixtures, GradsCoverEveryParameterAndTraceTensor) {
    for (const auto& c : kCases) {
        const Dims d = dims(c);
        const auto g = load(c, "grads");
        std::set<std::string> want = {"loss", "loss.weight", "grad.src"};
        if (d.decoder) want.insert("grad.tgt");
        for (const auto& n : name_set(expected_weights(d))) want.insert("grad." + n);
        for (const auto& n : name_set(expected_trace(d)))
            if (n.size() < 5 || n.substr(n.size() - 5) != ".mask") want.insert("grad." + n);
        const auto have = names_of(g);
        EXPECT_EQ(std::set<std::string>(have.begin(), have.end()), want) << c;
        const auto w = load(c, "weights");
        for (const auto& t : w.tensors) EXPECT_EQ(get(g, "grad." + t.name).shape, t.shape) << c << ": " << t.name;
        const auto tr = load(c, "trace");
        for (const auto& t : tr.tensors) {
            if (g.find("grad." + t.name) != nullptr) {
                EXPECT_EQ(get(g, "grad." + t.name).shape, t.shape) << c;
            }
        }
        EXPECT_EQ(get(g, "loss").shape, Shape{}) << c;
        // loss = sum(out * loss.weight) over the last module's output (PyTorch's layout)
        const std::string out = d.decoder ? "decoder_layer.out" : "encoder_layer.out";
        const Tensor& y = get(tr, out);
        const Tensor& r = get(g, "loss.weight");
        ASSERT_EQ(r.shape, y.shape) << c;
        EXPECT_TRUE(identical(c + " grad." + out, get(g, "grad." + out), r));
        double sum = 0.0, scale = 0.0;
        for (size_t i = 0; i < y.data.size(); ++i) {
            sum += double(y.data[i]) * double(r.data[i]);
            scale += std::abs(double(y.data[i]) * double(r.data[i]));
        }
        const double loss = get(g, "loss").data.at(0);
        if (std::isnan(sum))
            EXPECT_TRUE(std::isnan(loss)) << c;
        else
            EXPECT_NEAR(loss, sum, 1e-5 * (1.0 + scale)) << c;
    }
}

TEST(TorchFixtures, Seed004PrintsItsDigits) {
    const auto in = load("seed004", "inputs");
    const auto tr = load("seed004", "trace");
    EXPECT_EQ(get(in, "src").shape, (Shape{3, 1, 4}));
    EXPECT_TRUE(rounds_to("src", get(in, "src"),
                          {0.3367f, 0.1288f, 0.2345f, 0.2303f, -1.1229f, -0.1863f, 2.2082f, -0.6380f, 0.4617f,
                           0.2674f, 0.5349f, 0.8094f}));
    EXPECT_EQ(get(tr, "encoder_layer.out").shape, (Shape{3, 1, 4}));
    EXPECT_TRUE(rounds_to("encoder_layer.out", get(tr, "encoder_layer.out"),
                          {-1.0328f, -0.9185f, 0.6710f, 1.2804f, -1.4175f, -0.1948f, 1.3775f, 0.2347f, -1.0022f,
                           -0.8035f, 0.3029f, 1.5028f}));
    // the seed's hand-made LayerNorm after the first residual (B = 1: batch-first has the same order)
    EXPECT_TRUE(rounds_to("encoder_layer.norm1", get(tr, "encoder_layer.norm1"),
                          {-0.9493f, -1.0434f, 1.1045f, 0.8881f, -1.0025f, -0.1531f, 1.6511f, -0.4955f, -1.0129f,
                           -0.9286f, 0.6342f, 1.3073f}));
    // PyTorch's initialisation: biases 0, LayerNorm 1/0 (the seed prints norm1 and norm2)
    const auto w = load("seed004", "weights");
    for (const char* n : {"encoder_layer.norm1.weight", "encoder_layer.norm2.weight"})
        for (float v : get(w, n).data) EXPECT_EQ(v, 1.0f) << n;
    for (const char* n : {"encoder_layer.norm1.bias", "encoder_layer.norm2.bias", "encoder_layer.self_attn.in_proj_bias",
                          "encoder_layer.self_attn.out_proj.bias"})
        for (float v : get(w, n).data) EXPECT_EQ(v, 0.0f) << n;
}

TEST(TorchFixtures, PostNormOutputIsTheLastNorm) {
    const auto tr = load("pair_post_relu", "trace");
    EXPECT_TRUE(identical("encoder_layer.norm2", get(tr, "encoder_layer.norm2"),
                          transpose01(get(tr, "encoder_layer.out"))));
    EXPECT_TRUE(identical("decoder_layer.norm3", get(tr, "decoder_layer.norm3"),
                          transpose01(get(tr, "decoder_layer.out"))));
    const auto pre = load("pair_pre_gelu", "trace");
    EXPECT_TRUE(identical("encoder_layer.add2", get(pre, "encoder_layer.add2"),
                          transpose01(get(pre, "encoder_layer.out"))));
    EXPECT_TRUE(identical("decoder_layer.add3", get(pre, "decoder_layer.add3"),
                          transpose01(get(pre, "decoder_layer.out"))));
}

// The backend's GELU is PyTorch's: its forward and backward on the gelu layers' own tensors.
TEST(TorchFixtures, TheBackendsGeluIsPyTorchs) {
    const auto tr = load("pair_pre_gelu", "trace"), gr = load("pair_pre_gelu", "grads");
    stepformer::Backend& be = stepformer::default_backend();
    for (const std::string layer : {"encoder_layer", "decoder_layer"}) {
        const Tensor& in = get(tr, layer + ".linear1");
        const Tensor& want = get(tr, layer + ".activation");
        Tensor out(in.shape);
        be.gelu_forward(out.ptr(), in.ptr(), in.size());
        Tensor din(in.shape);
        be.gelu_backward(din.ptr(), get(gr, "grad." + layer + ".activation").ptr(), in.ptr(), in.size());
        const Tensor& din_want = get(gr, "grad." + layer + ".linear1");
        for (int64_t i = 0; i < in.size(); ++i) {
            EXPECT_NEAR(out.data[size_t(i)], want.data[size_t(i)], 1e-6 * (1 + std::fabs(want.data[size_t(i)])))
                << layer << ".activation[" << i << "]";
            EXPECT_NEAR(din.data[size_t(i)], din_want.data[size_t(i)], 1e-6 * (1 + std::fabs(din_want.data[size_t(i)])))
                << "grad." << layer << ".linear1[" << i << "]";
        }
    }
}

TEST(TorchFixtures, BatchFirstEqualsSeqFirst) {
    // the same weights and inputs in the other layout give the same batch-first trace
    const auto a = load("pair_post_relu", "trace"), b = load("batch_first", "trace");
    const auto wa = load("pair_post_relu", "weights"), wb = load("batch_first", "weights");
    for (const auto& t : wa.tensors) EXPECT_TRUE(identical(t.name, get(wb, t.name), t.value));
    const auto ia = load("pair_post_relu", "inputs"), ib = load("batch_first", "inputs");
    EXPECT_TRUE(identical("src", get(ib, "src"), transpose01(get(ia, "src"))));
    EXPECT_TRUE(identical("tgt", get(ib, "tgt"), transpose01(get(ia, "tgt"))));
    for (const auto& t : a.tensors) {
        const bool torch_layout = t.name.size() > 4 && t.name.substr(t.name.size() - 4) == ".out";
        EXPECT_TRUE(identical(t.name, get(b, t.name), torch_layout ? transpose01(t.value) : t.value));
    }
}

TEST(TorchFixtures, AttentionIsConsistent) {
    // masked_scores = scores + mask; attn = softmax(masked_scores) (rows sum to 1 unless NaN)
    for (const auto& c : kCases) {
        const auto tr = load(c, "trace");
        for (const auto& t : tr.tensors) {
            const std::string suffix = ".attn";
            if (t.name.size() < suffix.size() || t.name.substr(t.name.size() - suffix.size()) != suffix) continue;
            const std::string p = t.name.substr(0, t.name.size() - suffix.size());
            const Tensor& attn = t.value;
            const Tensor& s = get(tr, p + ".scores");
            const Tensor& m = get(tr, p + ".mask");
            const Tensor& ms = get(tr, p + ".masked_scores");
            for (size_t i = 0; i < s.data.size(); ++i) {
                EXPECT_TRUE(m.data[i] == 0.0f || m.data[i] == -INFINITY) << c << " " << p;
                EXPECT_EQ(ms.data[i], s.data[i] + m.data[i]) << c << " " << p << " " << i;
            }
            const int64_t lk = t.shape.back();
            for (size_t row = 0; row * lk < attn.data.size(); ++row) {
                double mx = -INFINITY;
                for (int64_t j = 0; j < lk; ++j) mx = std::max(mx, double(ms.data[row * lk + j]));
                if (mx == -INFINITY) {  // fully masked: PyTorch's softmax gives NaN
                    for (int64_t j = 0; j < lk; ++j) EXPECT_TRUE(std::isnan(attn.data[row * lk + j])) << c << " " << p;
                    continue;
                }
                double z = 0.0;
                for (int64_t j = 0; j < lk; ++j) z += std::exp(double(ms.data[row * lk + j]) - mx);
                for (int64_t j = 0; j < lk; ++j)
                    EXPECT_NEAR(attn.data[row * lk + j], std::exp(double(ms.data[row * lk + j]) - mx) / z, 1e-6)
                        << c << " " << p;
            }
        }
    }
}

TEST(TorchFixtures, KeyPaddingMasksArePaddedMidBatch) {
    const auto in = load("key_padding", "inputs");
    const auto tr = load("key_padding", "trace");
    const Tensor& src_kpm = get(in, "src_key_padding_mask");
    const Tensor& tgt_kpm = get(in, "tgt_key_padding_mask");
    ASSERT_EQ(src_kpm.shape, (Shape{3, 4}));
    ASSERT_EQ(tgt_kpm.shape, (Shape{3, 3}));
    EXPECT_TRUE(identical("memory_key_padding_mask", get(in, "memory_key_padding_mask"), src_kpm));
    EXPECT_EQ(src_kpm.data, (std::vector<float>{0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0}));
    EXPECT_EQ(tgt_kpm.data, (std::vector<float>{0, 0, 0, 0, 1, 0, 0, 0, 0}));
    // a padded key is -inf in every head and query of its batch row, and gets no attention
    auto check = [&](const std::string& p, const Tensor& kpm) {
        const Tensor& mask = get(tr, p + ".mask");
        const Tensor& attn = get(tr, p + ".attn");
        const int64_t B = mask.shape[0], H = mask.shape[1], Lq = mask.shape[2], Lk = mask.shape[3];
        for (int64_t b = 0; b < B; ++b)
            for (int64_t h = 0; h < H; ++h)
                for (int64_t q = 0; q < Lq; ++q)
                    for (int64_t k = 0; k < Lk; ++k) {
                        const size_t i = size_t(((b * H + h) * Lq + q) * Lk + k);
                        if (kpm.data[size_t(b * Lk + k)] != 0.0f) {
                            EXPECT_EQ(mask.data[i], -INFINITY) << p;
                            EXPECT_EQ(attn.data[i], 0.0f) << p;
                        }
                    }
    };
    check("encoder_layer.self_attn", src_kpm);
    check("decoder_layer.self_attn", tgt_kpm);
    check("decoder_layer.multihead_attn", src_kpm);
    // the causal tgt_mask from generate_square_subsequent_mask: -inf above the diagonal, 0 elsewhere
    const Tensor& causal = get(in, "tgt_mask");
    for (int64_t q = 0; q < 3; ++q)
        for (int64_t k = 0; k < 3; ++k)
            EXPECT_EQ(causal.data[size_t(q * 3 + k)], k > q ? -INFINITY : 0.0f);
}

TEST(TorchFixtures, FullyMaskedRowIsNaN) {
    const auto in = load("fully_masked_row", "inputs");
    const auto tr = load("fully_masked_row", "trace");
    const Tensor& m = get(in, "src_mask");  // bool, stored U8 (1 = may not attend)
    ASSERT_EQ(m.shape, (Shape{4, 4}));
    for (int64_t k = 0; k < 4; ++k) EXPECT_EQ(m.data[size_t(2 * 4 + k)], 1.0f);
    // PyTorch 1.13: the softmax of a row of -inf is NaN, and the NaN reaches that position's
    // output (only that one: the feed-forward part works position by position)
    const Tensor& out = get(tr, "encoder_layer.out");  // [S, B, D]
    ASSERT_EQ(out.shape, (Shape{4, 2, 4}));
    for (int64_t s = 0; s < 4; ++s)
        for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(std::isnan(out.data[size_t(s * 8 + i)]), s == 2) << s;
    EXPECT_TRUE(std::isnan(get(load("fully_masked_row", "grads"), "loss").data.at(0)));
}

// ---- "structure": "seq2seq": a translation model around nn.Transformer (torch_seq2seq.py) ----

struct Seq2SeqDims {
    int64_t B = 0, S = 0, T = 0, D = 0, H = 0, F = 0, Ne = 0, Nd = 0, Vs = 0, Vt = 0;
};

Seq2SeqDims seq2seq_dims() {
    const auto cfg = fixtures::read_json("torch/seq2seq.config.json");
    const auto in = fixtures::read_json("torch/seq2seq.inputs.json");
    Seq2SeqDims d;
    d.D = cfg.at("d_model").get<int64_t>();
    d.H = cfg.at("nhead").get<int64_t>();
    d.F = cfg.at("dim_feedforward").get<int64_t>();
    d.Ne = cfg.at("num_encoder_layers").get<int64_t>();
    d.Nd = cfg.at("num_decoder_layers").get<int64_t>();
    d.Vs = int64_t(cfg.at("src_vocab").size());
    d.Vt = int64_t(cfg.at("tgt_vocab").size());
    d.S = cfg.at("src_len").get<int64_t>();
    d.T = cfg.at("tgt_len").get<int64_t>();
    d.B = int64_t(in.at("src").size());
    return d;
}

// The trace the README documents for seq2seq (post-norm), in computation order.
Names seq2seq_trace(const Seq2SeqDims& d) {
    Names n;
    const int64_t hd = d.D / d.H;
    auto add = [&](const std::string& name, int64_t l, int64_t w) { n.push_back({name, {d.B, l, w}}); };
    auto attention = [&](const std::string& p, int64_t lq, int64_t lk) {
        for (const char* x : {".Q", ".K", ".V"}) n.push_back({p + x, {d.B, d.H, x[1] == 'Q' ? lq : lk, hd}});
        for (const char* x : {".scores", ".mask", ".masked_scores", ".attn"}) n.push_back({p + x, {d.B, d.H, lq, lk}});
        n.push_back({p + ".context", {d.B, d.H, lq, hd}});
        add(p + ".out_proj", lq, d.D);
    };
    auto ffn = [&](const std::string& L, int64_t l) {
        add(L + ".linear1", l, d.F);
        add(L + ".activation", l, d.F);
        add(L + ".linear2", l, d.D);
    };
    add("src_tok_emb.out", d.S, d.D);
    add("src_positional_encoding.out", d.S, d.D);
    add("tgt_tok_emb.out", d.T, d.D);
    add("tgt_positional_encoding.out", d.T, d.D);
    for (int64_t i = 0; i < d.Ne; ++i) {
        const std::string L = "transformer.encoder.layers." + std::to_string(i);
        attention(L + ".self_attn", d.S, d.S);
        add(L + ".add1", d.S, d.D);
        add(L + ".norm1", d.S, d.D);
        ffn(L, d.S);
        add(L + ".add2", d.S, d.D);
        add(L + ".norm2", d.S, d.D);
    }
    add("transformer.encoder.norm.out", d.S, d.D);
    for (int64_t i = 0; i < d.Nd; ++i) {
        const std::string L = "transformer.decoder.layers." + std::to_string(i);
        attention(L + ".self_attn", d.T, d.T);
        add(L + ".add1", d.T, d.D);
        add(L + ".norm1", d.T, d.D);
        attention(L + ".multihead_attn", d.T, d.S);
        add(L + ".add2", d.T, d.D);
        add(L + ".norm2", d.T, d.D);
        ffn(L, d.T);
        add(L + ".add3", d.T, d.D);
        add(L + ".norm3", d.T, d.D);
    }
    add("transformer.decoder.norm.out", d.T, d.D);
    add("generator.logits", d.T, d.Vt);
    add("generator.probs", d.T, d.Vt);
    n.push_back({"loss", {}});
    n.push_back({"loss.per_token", {d.B, d.T}});
    return n;
}

// The translation tutorial's state_dict names, with their shapes.
Names seq2seq_weights(const Seq2SeqDims& d, int64_t maxlen) {
    Names n;
    auto mha = [&](const std::string& p) {
        n.push_back({p + ".in_proj_weight", {3 * d.D, d.D}});
        n.push_back({p + ".in_proj_bias", {3 * d.D}});
        n.push_back({p + ".out_proj.weight", {d.D, d.D}});
        n.push_back({p + ".out_proj.bias", {d.D}});
    };
    auto norm = [&](const std::string& p) {
        n.push_back({p + ".weight", {d.D}});
        n.push_back({p + ".bias", {d.D}});
    };
    auto rest = [&](const std::string& L, int norms) {
        n.push_back({L + ".linear1.weight", {d.F, d.D}});
        n.push_back({L + ".linear1.bias", {d.F}});
        n.push_back({L + ".linear2.weight", {d.D, d.F}});
        n.push_back({L + ".linear2.bias", {d.D}});
        for (int i = 1; i <= norms; ++i) norm(L + ".norm" + std::to_string(i));
    };
    for (int64_t i = 0; i < d.Ne; ++i) {
        const std::string L = "transformer.encoder.layers." + std::to_string(i);
        mha(L + ".self_attn");
        rest(L, 2);
    }
    norm("transformer.encoder.norm");
    for (int64_t i = 0; i < d.Nd; ++i) {
        const std::string L = "transformer.decoder.layers." + std::to_string(i);
        mha(L + ".self_attn");
        mha(L + ".multihead_attn");
        rest(L, 3);
    }
    norm("transformer.decoder.norm");
    n.push_back({"generator.weight", {d.Vt, d.D}});
    n.push_back({"generator.bias", {d.Vt}});
    n.push_back({"src_tok_emb.embedding.weight", {d.Vs, d.D}});
    n.push_back({"tgt_tok_emb.embedding.weight", {d.Vt, d.D}});
    n.push_back({"positional_encoding.pos_embedding", {maxlen, 1, d.D}});
    return n;
}

const char* kPosEmbedding = "positional_encoding.pos_embedding";

int64_t seq2seq_maxlen() { return get(load("seq2seq", "weights"), kPosEmbedding).shape.at(0); }

TEST(TorchFixtures, Seq2SeqHasItsFilesAndConfig) {
    for (const char* f : {"seq2seq.config.json", "seq2seq.weights.safetensors", "seq2seq.inputs.json",
                          "seq2seq.inputs.safetensors", "seq2seq.trace.safetensors", "seq2seq.grads.safetensors",
                          "seq2seq_sgd.losses.json", "seq2seq_sgd.final.safetensors", "seq2seq_adam.losses.json",
                          "seq2seq_adam.final.safetensors"})
        EXPECT_TRUE(std::filesystem::is_regular_file(fixtures::path(std::string("torch/") + f))) << f;
    const auto cfg = fixtures::read_json("torch/seq2seq.config.json");
    EXPECT_EQ(cfg.at("architecture"), "torch");
    EXPECT_EQ(cfg.at("structure"), "seq2seq");
    for (const char* key : {"d_model", "nhead", "num_encoder_layers", "num_decoder_layers", "dim_feedforward",
                            "dropout", "activation", "layer_norm_eps", "batch_first", "norm_first", "src_vocab",
                            "tgt_vocab", "src_len", "tgt_len", "pad", "bos", "eos"})
        EXPECT_TRUE(cfg.contains(key)) << key;
    EXPECT_EQ(cfg.at("batch_first"), false);
    EXPECT_EQ(cfg.at("norm_first"), false);
    EXPECT_EQ(cfg.at("dropout").get<double>(), 0.0);
    // the tutorial's vocabulary and lengths, as tiny.config.json spells them
    const auto tiny = fixtures::read_json("tiny.config.json");
    for (const char* key : {"src_vocab", "tgt_vocab", "src_len", "tgt_len", "pad", "bos", "eos"})
        EXPECT_EQ(cfg.at(key), tiny.at(key)) << key;
    EXPECT_EQ(nlohmann::json::parse(load("seq2seq", "weights").metadata.at("stepformer.config")), cfg);
    for (const char* f : {"seq2seq_sgd", "seq2seq_adam"}) {
        const auto w = stepformer::read_safetensors(fixtures::path(std::string("torch/") + f + ".final.safetensors"));
        EXPECT_EQ(nlohmann::json::parse(w.metadata.at("stepformer.config")), cfg) << f;
    }
}

TEST(TorchFixtures, Seq2SeqWeightsAreTheTutorialsStateDict) {
    const Seq2SeqDims d = seq2seq_dims();
    const int64_t maxlen = seq2seq_maxlen();
    EXPECT_GE(maxlen, std::max(d.S, d.T));
    const Names want = seq2seq_weights(d, maxlen);
    for (const char* f : {"seq2seq.weights", "seq2seq_sgd.final", "seq2seq_adam.final"}) {
        const auto w = stepformer::read_safetensors(fixtures::path(std::string("torch/") + f + ".safetensors"));
        EXPECT_EQ(w.tensors.size(), want.size()) << f;
        for (const auto& [name, shape] : want) {
            const auto* t = w.find(name);
            ASSERT_NE(t, nullptr) << f << ": " << name;
            EXPECT_EQ(t->dtype, stepformer::DType::F32) << f << ": " << name;
            EXPECT_EQ(t->shape, shape) << f << ": " << name;
        }
    }
    // the buffer is the translation tutorial's table: sin at even columns, cos at odd ones
    const auto weights = load("seq2seq", "weights");
    const Tensor& pe = get(weights, kPosEmbedding);
    for (int64_t pos = 0; pos < maxlen; ++pos)
        for (int64_t i = 0; i < d.D; i += 2) {
            const double a = double(pos) * std::exp(-double(i) * std::log(10000.0) / double(d.D));
            EXPECT_NEAR(pe.data[size_t(pos * d.D + i)], std::sin(a), 2e-6) << pos << " " << i;
            EXPECT_NEAR(pe.data[size_t(pos * d.D + i + 1)], std::cos(a), 2e-6) << pos << " " << i;
        }
}

TEST(TorchFixtures, Seq2SeqInputsAreTheTutorialsSentences) {
    const Seq2SeqDims d = seq2seq_dims();
    const auto js = fixtures::read_json("torch/seq2seq.inputs.json");
    EXPECT_EQ(js.at("src"), (nlohmann::json{"ich mochte ein bier P", "ich mochte ein cola P"}));
    EXPECT_EQ(js.at("tgt"), (nlohmann::json{"S i want a beer .", "S i want a coke ."}));
    EXPECT_EQ(js.at("out"), (nlohmann::json{"i want a beer . E", "i want a coke . E"}));
    // inputs.safetensors: the forward's arguments in PyTorch's layout ([L, B] ids)
    const auto in = load("seq2seq", "inputs");
    const Tensor& src = get(in, "src");
    const Tensor& tgt = get(in, "tgt");
    const Tensor& out = get(in, "tgt_out");
    ASSERT_EQ(src.shape, (Shape{d.S, d.B}));
    ASSERT_EQ(tgt.shape, (Shape{d.T, d.B}));
    ASSERT_EQ(out.shape, (Shape{d.T, d.B}));
    EXPECT_EQ(in.find("src")->dtype, stepformer::DType::I64);
    const auto src_ids = js.at("src_ids"), tgt_ids = js.at("tgt_ids"), out_ids = js.at("out_ids");
    for (int64_t b = 0; b < d.B; ++b) {
        for (int64_t s = 0; s < d.S; ++s)
            EXPECT_EQ(src.data[size_t(s * d.B + b)], src_ids.at(size_t(b)).at(size_t(s)).get<float>());
        for (int64_t t = 0; t < d.T; ++t) {
            EXPECT_EQ(tgt.data[size_t(t * d.B + b)], tgt_ids.at(size_t(b)).at(size_t(t)).get<float>());
            EXPECT_EQ(out.data[size_t(t * d.B + b)], out_ids.at(size_t(b)).at(size_t(t)).get<float>());
        }
    }
    // the masks as the translation tutorial builds them (pad id 0; bool masks stored U8)
    const Tensor& skpm = get(in, "src_key_padding_mask");
    ASSERT_EQ(skpm.shape, (Shape{d.B, d.S}));
    EXPECT_TRUE(identical("memory_key_padding_mask", get(in, "memory_key_padding_mask"), skpm));
    for (int64_t b = 0; b < d.B; ++b)
        for (int64_t s = 0; s < d.S; ++s)
            EXPECT_EQ(skpm.data[size_t(b * d.S + s)], src.data[size_t(s * d.B + b)] == 0.0f ? 1.0f : 0.0f);
    EXPECT_EQ(skpm.data[size_t(d.S - 1)], 1.0f);  // "P" ends each source sentence
    for (float v : get(in, "tgt_key_padding_mask").data) EXPECT_EQ(v, 0.0f);
    EXPECT_EQ(get(in, "tgt_key_padding_mask").shape, (Shape{d.B, d.T}));
    EXPECT_EQ(get(in, "src_mask").shape, (Shape{d.S, d.S}));
    for (float v : get(in, "src_mask").data) EXPECT_EQ(v, 0.0f);
    const Tensor& causal = get(in, "tgt_mask");
    ASSERT_EQ(causal.shape, (Shape{d.T, d.T}));
    for (int64_t q = 0; q < d.T; ++q)
        for (int64_t k = 0; k < d.T; ++k) EXPECT_EQ(causal.data[size_t(q * d.T + k)], k > q ? -INFINITY : 0.0f);
}

TEST(TorchFixtures, Seq2SeqTraceHasEveryDocumentedNameInOrder) {
    const Seq2SeqDims d = seq2seq_dims();
    const auto tr = load("seq2seq", "trace");
    std::vector<std::string> want_names;
    for (const auto& [name, shape] : seq2seq_trace(d)) {
        want_names.push_back(name);
        const auto* t = tr.find(name);
        ASSERT_NE(t, nullptr) << name;
        EXPECT_EQ(t->dtype, stepformer::DType::F32) << name;
        EXPECT_EQ(t->shape, shape) << name << " is " << stepformer::shape_to_string(t->shape);
    }
    EXPECT_EQ(names_of(tr), want_names) << "names or order differ from the README";
}

TEST(TorchFixtures, Seq2SeqGradsCoverEveryParameterAndTraceTensor) {
    const Seq2SeqDims d = seq2seq_dims();
    const auto g = load("seq2seq", "grads");
    const auto w = load("seq2seq", "weights");
    const auto tr = load("seq2seq", "trace");
    std::set<std::string> want = {"loss"};
    for (const auto& t : w.tensors) {
        if (t.name != kPosEmbedding) want.insert("grad." + t.name);  // a buffer: no gradient
    }
    auto ends_with = [](const std::string& s, const std::string& x) {
        return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
    };
    for (const auto& t : tr.tensors) {
        if (!ends_with(t.name, ".mask") && t.name != "generator.probs" && t.name.rfind("loss", 0) != 0)
            want.insert("grad." + t.name);
    }
    const auto have = names_of(g);
    EXPECT_EQ(std::set<std::string>(have.begin(), have.end()), want);
    for (const auto& t : w.tensors) {
        if (t.name != kPosEmbedding) {
            EXPECT_EQ(get(g, "grad." + t.name).shape, t.shape) << t.name;
        }
    }
    for (const auto& t : tr.tensors) {
        if (g.find("grad." + t.name) != nullptr) {
            EXPECT_EQ(get(g, "grad." + t.name).shape, t.shape) << t.name;
        }
    }
    EXPECT_TRUE(identical("loss", get(g, "loss"), get(tr, "loss")));
    // d loss / d logits = (probs - onehot(out)) / n_valid (no target is pad here)
    const Tensor& probs = get(tr, "generator.probs");
    const Tensor& gl = get(g, "grad.generator.logits");
    const auto out_ids = fixtures::read_json("torch/seq2seq.inputs.json").at("out_ids");
    const double n_valid = double(d.B * d.T);
    for (int64_t b = 0; b < d.B; ++b)
        for (int64_t t = 0; t < d.T; ++t)
            for (int64_t v = 0; v < d.Vt; ++v) {
                const size_t i = size_t((b * d.T + t) * d.Vt + v);
                const double hot = out_ids.at(size_t(b)).at(size_t(t)).get<int64_t>() == v ? 1.0 : 0.0;
                EXPECT_NEAR(gl.data[i], (probs.data[i] - hot) / n_valid, 1e-6) << b << " " << t << " " << v;
            }
}

TEST(TorchFixtures, Seq2SeqTraceIsSelfConsistent) {
    const Seq2SeqDims d = seq2seq_dims();
    const auto tr = load("seq2seq", "trace");
    const auto w = load("seq2seq", "weights");
    const auto js = fixtures::read_json("torch/seq2seq.inputs.json");
    // embeddings x sqrt(d_model), then + the buffer's first rows
    const Tensor& pe = get(w, kPosEmbedding);
    for (const std::string side : {"src", "tgt"}) {
        const Tensor& table = get(w, side + "_tok_emb.embedding.weight");
        const Tensor& emb = get(tr, side + "_tok_emb.out");
        const Tensor& pos = get(tr, side + "_positional_encoding.out");
        const int64_t L = emb.shape.at(1);
        const auto ids = js.at(side + "_ids");
        for (int64_t b = 0; b < d.B; ++b)
            for (int64_t l = 0; l < L; ++l) {
                const int64_t id = ids.at(size_t(b)).at(size_t(l)).get<int64_t>();
                for (int64_t k = 0; k < d.D; ++k) {
                    const size_t i = size_t((b * L + l) * d.D + k);
                    EXPECT_EQ(emb.data[i], table.data[size_t(id * d.D + k)] * float(std::sqrt(double(d.D))))
                        << side;
                    EXPECT_EQ(pos.data[i], emb.data[i] + pe.data[size_t(l * d.D + k)]) << side;
                }
            }
    }
    // generator.probs = softmax(generator.logits); rows sum to 1
    const Tensor& logits = get(tr, "generator.logits");
    const Tensor& probs = get(tr, "generator.probs");
    const auto out_ids = js.at("out_ids");
    double loss = 0.0;
    const Tensor& per_token = get(tr, "loss.per_token");
    for (int64_t r = 0; r < d.B * d.T; ++r) {
        double mx = -INFINITY, z = 0.0, sum = 0.0;
        for (int64_t v = 0; v < d.Vt; ++v) mx = std::max(mx, double(logits.data[size_t(r * d.Vt + v)]));
        for (int64_t v = 0; v < d.Vt; ++v) z += std::exp(double(logits.data[size_t(r * d.Vt + v)]) - mx);
        for (int64_t v = 0; v < d.Vt; ++v) {
            const double p = probs.data[size_t(r * d.Vt + v)];
            EXPECT_NEAR(p, std::exp(double(logits.data[size_t(r * d.Vt + v)]) - mx) / z, 1e-6);
            sum += p;
        }
        EXPECT_NEAR(sum, 1.0, 1e-6) << "row " << r;
        const int64_t target = out_ids.at(size_t(r / d.T)).at(size_t(r % d.T)).get<int64_t>();
        const double nll = -(double(logits.data[size_t(r * d.Vt + target)]) - mx - std::log(z));
        EXPECT_NEAR(per_token.data[size_t(r)], nll, 1e-5) << "row " << r;
        loss += nll;
    }
    EXPECT_NEAR(get(tr, "loss").data.at(0), loss / double(d.B * d.T), 1e-5);
    // the masks as applied: the padded source key is -inf and unattended in the encoder's
    // self-attention and the decoders' cross-attention, the decoder's self-attention is causal
    const auto skpm = get(load("seq2seq", "inputs"), "src_key_padding_mask");
    auto check = [&](const std::string& p, bool causal) {
        const Tensor& mask = get(tr, p + ".mask");
        const Tensor& attn = get(tr, p + ".attn");
        const Tensor& s = get(tr, p + ".scores");
        const Tensor& ms = get(tr, p + ".masked_scores");
        const int64_t H = mask.shape[1], Lq = mask.shape[2], Lk = mask.shape[3];
        for (int64_t b = 0; b < d.B; ++b)
            for (int64_t h = 0; h < H; ++h)
                for (int64_t q = 0; q < Lq; ++q) {
                    double row = 0.0;
                    for (int64_t k = 0; k < Lk; ++k) {
                        const size_t i = size_t(((b * H + h) * Lq + q) * Lk + k);
                        const bool masked = causal ? k > q : skpm.data[size_t(b * Lk + k)] != 0.0f;
                        EXPECT_EQ(mask.data[i], masked ? -INFINITY : 0.0f) << p;
                        EXPECT_EQ(ms.data[i], s.data[i] + mask.data[i]) << p;
                        if (masked) {
                            EXPECT_EQ(attn.data[i], 0.0f) << p;
                        }
                        row += attn.data[i];
                    }
                    EXPECT_NEAR(row, 1.0, 1e-6) << p;
                }
    };
    for (int64_t i = 0; i < d.Ne; ++i) check("transformer.encoder.layers." + std::to_string(i) + ".self_attn", false);
    for (int64_t i = 0; i < d.Nd; ++i) {
        check("transformer.decoder.layers." + std::to_string(i) + ".self_attn", true);
        check("transformer.decoder.layers." + std::to_string(i) + ".multihead_attn", false);
    }
}

TEST(TorchFixtures, Seq2SeqTrainingLowersTheLossAndMovesEveryWeight) {
    const auto init = load("seq2seq", "weights");
    const auto tr = load("seq2seq", "trace");
    for (const std::string name : {"seq2seq_sgd", "seq2seq_adam"}) {
        const auto j = fixtures::read_json("torch/" + name + ".losses.json");
        EXPECT_EQ(j.at("config"), "seq2seq.config.json");
        EXPECT_EQ(j.at("init"), "seq2seq.weights.safetensors");
        EXPECT_EQ(j.at("inputs"), "seq2seq.inputs.json");
        EXPECT_EQ(j.at("final"), name + ".final.safetensors");
        EXPECT_EQ(j.at("optimizer").at("type"), name == "seq2seq_sgd" ? "SGD" : "Adam");
        const int steps = j.at("steps").get<int>();
        EXPECT_EQ(steps, 30);
        const auto losses = j.at("losses").get<std::vector<double>>();
        ASSERT_EQ(losses.size(), size_t(steps)) << name;
        EXPECT_EQ(j.at("float64_losses").size(), size_t(steps)) << name;
        // step 0's loss is the seq2seq trace's loss (same weights, same batch)
        EXPECT_EQ(float(losses[0]), get(tr, "loss").data.at(0)) << name;
        for (size_t i = 1; i < losses.size(); ++i) EXPECT_LT(losses[i], losses[i - 1]) << name << " step " << i;
        EXPECT_LT(j.at("final_loss").get<double>(), losses.back()) << name;
        EXPECT_LT(j.at("float32_vs_float64_max_abs_dev").get<double>(), 1e-5) << name;
        EXPECT_LT(j.at("float32_vs_float64_final_weights_max_abs_dev_except_k_bias").get<double>(), 1e-5) << name;
        const auto fin = stepformer::read_safetensors(fixtures::path("torch/" + name + ".final.safetensors"));
        for (const auto& t : init.tensors) {
            const Tensor& after = get(fin, t.name);
            ASSERT_EQ(after.shape, t.shape) << name << ": " << t.name;
            if (t.name == kPosEmbedding) {
                EXPECT_TRUE(identical(name + " " + t.name, after, t.value));  // a buffer, not trained
            } else {
                EXPECT_NE(after.data, t.value.data) << name << ": " << t.name << " did not move";
            }
        }
    }
}

}  // namespace
