// The PyTorch fixtures for issue 17's "architecture": "torch" (tests/fixtures/torch/, made by
// tests/reference/make_torch_fixtures.py) are complete and self-consistent, so the C++
// nn.TransformerEncoderLayer / DecoderLayer can later be tested against them. Needs no torch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixture_util.h"
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

}  // namespace
