// The PyTorch fixtures for issue 18's "architecture": "aiayn" (tests/fixtures/aiayn/, made by
// tests/reference/make_aiayn_fixtures.py from aiayn_model.py) are complete and self-consistent,
// so the C++ model of attention-is-all-you-need-pytorch can later be tested against them.
// Needs no torch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
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

const std::vector<std::string> kCases = {"shared_prj", "shared_emb", "unshared_none", "prj_only_shared"};
const char* kSrcEmb = "encoder.src_word_emb.weight";
const char* kTrgEmb = "decoder.trg_word_emb.weight";
const char* kPrj = "trg_word_prj.weight";

std::string file(const std::string& name) { return "aiayn/" + name; }

stepformer::SafetensorsFile load(const std::string& name) {
    return stepformer::read_safetensors(fixtures::path(file(name + ".safetensors")));
}

const Tensor& get(const stepformer::SafetensorsFile& f, const std::string& name) {
    const auto* t = f.find(name);
    if (t == nullptr) throw std::runtime_error("missing tensor " + name);
    return t->value;
}

bool ends_with(const std::string& s, const std::string& x) {
    return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

bool same_bits(const Tensor& a, const Tensor& b) {
    return a.shape == b.shape && std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0;
}

struct Dims {
    int64_t B = 0, S = 0, T = 0, D = 0, H = 0, dk = 0, dv = 0, F = 0, L = 0, Vs = 0, Vt = 0, npos = 0;
    bool tie_prj = false, tie_emb = false, scale_emb = false, scale_prj = false;
};

Dims dims(const std::string& c) {
    const auto cfg = fixtures::read_json(file(c + ".config.json"));
    const auto in = fixtures::read_json(file(c + ".inputs.json"));
    Dims d;
    d.D = cfg.at("d_model").get<int64_t>();
    d.F = cfg.at("d_inner").get<int64_t>();
    d.L = cfg.at("n_layers").get<int64_t>();
    d.H = cfg.at("n_head").get<int64_t>();
    d.dk = cfg.at("d_k").get<int64_t>();
    d.dv = cfg.at("d_v").get<int64_t>();
    d.npos = cfg.at("n_position").get<int64_t>();
    d.Vs = int64_t(cfg.at("src_vocab").size());
    d.Vt = int64_t(cfg.at("tgt_vocab").size());
    d.tie_prj = cfg.at("trg_emb_prj_weight_sharing").get<bool>();
    d.tie_emb = cfg.at("emb_src_trg_weight_sharing").get<bool>();
    const std::string mode = cfg.at("scale_emb_or_prj").get<std::string>();
    // the project applies either scale only when the projection is tied to the target embedding
    d.scale_emb = d.tie_prj && mode == "emb";
    d.scale_prj = d.tie_prj && mode == "prj";
    d.B = int64_t(in.at("src_ids").size());
    d.S = int64_t(in.at("src_ids").at(0).size());
    d.T = int64_t(in.at("tgt_ids").at(0).size());
    return d;
}

using Names = std::vector<std::pair<std::string, Shape>>;

Names expected_weights(const Dims& d) {
    Names n;
    auto mha = [&](const std::string& P) {
        n.push_back({P + ".w_qs.weight", {d.H * d.dk, d.D}});
        n.push_back({P + ".w_ks.weight", {d.H * d.dk, d.D}});
        n.push_back({P + ".w_vs.weight", {d.H * d.dv, d.D}});
        n.push_back({P + ".fc.weight", {d.D, d.H * d.dv}});
        n.push_back({P + ".layer_norm.weight", {d.D}});
        n.push_back({P + ".layer_norm.bias", {d.D}});
    };
    auto ffn = [&](const std::string& P) {
        n.push_back({P + ".w_1.weight", {d.F, d.D}});
        n.push_back({P + ".w_1.bias", {d.F}});
        n.push_back({P + ".w_2.weight", {d.D, d.F}});
        n.push_back({P + ".w_2.bias", {d.D}});
        n.push_back({P + ".layer_norm.weight", {d.D}});
        n.push_back({P + ".layer_norm.bias", {d.D}});
    };
    n.push_back({kSrcEmb, {d.Vs, d.D}});
    n.push_back({"encoder.position_enc.pos_table", {1, d.npos, d.D}});
    for (int64_t i = 0; i < d.L; ++i) {
        const std::string L = "encoder.layer_stack." + std::to_string(i);
        mha(L + ".slf_attn");
        ffn(L + ".pos_ffn");
    }
    n.push_back({"encoder.layer_norm.weight", {d.D}});
    n.push_back({"encoder.layer_norm.bias", {d.D}});
    n.push_back({kTrgEmb, {d.Vt, d.D}});
    n.push_back({"decoder.position_enc.pos_table", {1, d.npos, d.D}});
    for (int64_t i = 0; i < d.L; ++i) {
        const std::string L = "decoder.layer_stack." + std::to_string(i);
        mha(L + ".slf_attn");
        mha(L + ".enc_attn");
        ffn(L + ".pos_ffn");
    }
    n.push_back({"decoder.layer_norm.weight", {d.D}});
    n.push_back({"decoder.layer_norm.bias", {d.D}});
    n.push_back({kPrj, {d.Vt, d.D}});
    return n;
}

// The trace the README documents, in computation order.
Names expected_trace(const Dims& d) {
    Names n;
    n.push_back({"src_mask", {d.B, 1, d.S}});
    n.push_back({"trg_mask", {d.B, d.T, d.T}});
    auto x = [&](const std::string& name, int64_t l, int64_t w) { n.push_back({name, {d.B, l, w}}); };
    auto attention = [&](const std::string& P, int64_t lq, int64_t lk) {
        n.push_back({P + ".Q", {d.B, d.H, lq, d.dk}});
        n.push_back({P + ".K", {d.B, d.H, lk, d.dk}});
        n.push_back({P + ".V", {d.B, d.H, lk, d.dv}});
        n.push_back({P + ".q_scaled", {d.B, d.H, lq, d.dk}});
        for (const char* s : {".scores", ".masked_scores", ".attn"}) n.push_back({P + s, {d.B, d.H, lq, lk}});
        n.push_back({P + ".context", {d.B, d.H, lq, d.dv}});
        for (const char* s : {".fc_out", ".residual", ".out"}) x(P + s, lq, d.D);
    };
    auto ffn = [&](const std::string& P, int64_t l) {
        x(P + ".hidden", l, d.F);
        x(P + ".relu", l, d.F);
        for (const char* s : {".fc_out", ".residual", ".out"}) x(P + s, l, d.D);
    };
    for (const char* s : {"encoder.src_word_emb.out", "encoder.position_enc.out", "encoder.layer_norm.out"})
        x(s, d.S, d.D);
    for (int64_t i = 0; i < d.L; ++i) {
        const std::string L = "encoder.layer_stack." + std::to_string(i);
        attention(L + ".slf_attn", d.S, d.S);
        ffn(L + ".pos_ffn", d.S);
    }
    for (const char* s : {"decoder.trg_word_emb.out", "decoder.position_enc.out", "decoder.layer_norm.out"})
        x(s, d.T, d.D);
    for (int64_t i = 0; i < d.L; ++i) {
        const std::string L = "decoder.layer_stack." + std::to_string(i);
        attention(L + ".slf_attn", d.T, d.T);
        attention(L + ".enc_attn", d.T, d.S);
        ffn(L + ".pos_ffn", d.T);
    }
    x("trg_word_prj.logits", d.T, d.Vt);
    x("trg_word_prj.probs", d.T, d.Vt);
    n.push_back({"loss.per_token", {d.B, d.T}});
    n.push_back({"loss", {}});
    return n;
}

// Tied state_dict names (one parameter): the first is the group's representative.
std::vector<std::string> tied(const Dims& d) {
    std::vector<std::string> g;
    if (d.tie_emb) g.push_back(kSrcEmb);
    g.push_back(kTrgEmb);
    if (d.tie_prj) g.push_back(kPrj);
    return g.size() > 1 ? g : std::vector<std::string>{};
}

// The project's float64 sinusoid table rounded to float32.
float pe_value(int64_t pos, int64_t j, int64_t d) {
    const double angle = double(pos) / std::pow(10000.0, double(2 * (j / 2)) / double(d));
    return float(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
}

std::vector<int64_t> ids(const nlohmann::json& rows, int64_t b) {
    return rows.at(size_t(b)).get<std::vector<int64_t>>();
}

TEST(AiaynFixtures, EveryFileAndConfig) {
    size_t total = 0;
    std::vector<std::string> files = {"pos_table.safetensors", "aiayn_train.losses.json", "aiayn_train.final.safetensors",
                                      "aiayn_train_shared.losses.json", "aiayn_train_shared.final.safetensors"};
    for (const auto& c : kCases)
        for (const char* k : {".config.json", ".weights.safetensors", ".inputs.json", ".trace.safetensors",
                              ".grads.safetensors"})
            files.push_back(c + k);
    for (const auto& f : files) {
        ASSERT_TRUE(std::filesystem::is_regular_file(fixtures::path(file(f)))) << f;
        total += std::filesystem::file_size(fixtures::path(file(f)));
    }
    EXPECT_EQ(size_t(std::distance(std::filesystem::directory_iterator(fixtures::path("aiayn")),
                                   std::filesystem::directory_iterator())),
              files.size());
    EXPECT_LT(total, size_t(900 * 1024));
    const auto tiny = fixtures::read_json("tiny.config.json");
    for (const auto& c : kCases) {
        const auto cfg = fixtures::read_json(file(c + ".config.json"));
        EXPECT_EQ(cfg.at("architecture"), "aiayn") << c;
        for (const char* key : {"d_model", "d_inner", "n_layers", "n_head", "d_k", "d_v", "dropout", "n_position",
                                "trg_emb_prj_weight_sharing", "emb_src_trg_weight_sharing", "scale_emb_or_prj",
                                "src_vocab", "tgt_vocab", "src_len", "tgt_len", "pad", "bos", "eos"})
            EXPECT_TRUE(cfg.contains(key)) << c << ": " << key;
        EXPECT_EQ(cfg.size(), 19u) << c;
        EXPECT_EQ(cfg.at("dropout").get<double>(), 0.0);
        for (const char* key : {"src_len", "tgt_len", "pad", "bos", "eos"}) EXPECT_EQ(cfg.at(key), tiny.at(key)) << key;
        if (cfg.at("emb_src_trg_weight_sharing").get<bool>()) {
            // one joint vocabulary: the union of the tutorial's, pad first
            EXPECT_EQ(cfg.at("src_vocab"), cfg.at("tgt_vocab")) << c;
            EXPECT_EQ(cfg.at("src_vocab").at(0), "P");
            std::set<std::string> u;
            for (const char* k : {"src_vocab", "tgt_vocab"})
                for (const auto& w : tiny.at(k)) u.insert(w.get<std::string>());
            EXPECT_EQ(cfg.at("src_vocab").size(), u.size()) << c;
        } else {
            EXPECT_EQ(cfg.at("src_vocab"), tiny.at("src_vocab")) << c;
            EXPECT_EQ(cfg.at("tgt_vocab"), tiny.at("tgt_vocab")) << c;
        }
        EXPECT_EQ(nlohmann::json::parse(load(c + ".weights").metadata.at("stepformer.config")), cfg) << c;
    }
    EXPECT_EQ(fixtures::read_json(file("shared_prj.config.json")).at("scale_emb_or_prj"), "prj");
    EXPECT_EQ(fixtures::read_json(file("shared_emb.config.json")).at("scale_emb_or_prj"), "emb");
    EXPECT_EQ(fixtures::read_json(file("unshared_none.config.json")).at("scale_emb_or_prj"), "none");
}

TEST(AiaynFixtures, WeightsAreTheProjectsStateDict) {
    for (const auto& c : kCases) {
        const Dims d = dims(c);
        const Names want = expected_weights(d);
        const auto w = load(c + ".weights");
        ASSERT_EQ(w.tensors.size(), want.size()) << c;
        for (size_t i = 0; i < want.size(); ++i) {
            EXPECT_EQ(w.tensors[i].name, want[i].first) << c << " (state_dict order)";
            EXPECT_EQ(w.tensors[i].shape, want[i].second) << c << ": " << want[i].first;
            EXPECT_EQ(w.tensors[i].dtype, stepformer::DType::F32);
        }
        // tied names hold the same values; untied embeddings and projection differ
        const auto group = tied(d);
        for (size_t i = 1; i < group.size(); ++i)
            EXPECT_TRUE(same_bits(get(w, group[i]), get(w, group[0]))) << c << ": " << group[i];
        if (!d.tie_prj) {
            EXPECT_FALSE(same_bits(get(w, kPrj), get(w, kTrgEmb))) << c;
        }
        // xavier_uniform_ overwrote the zero rows nn.Embedding gives padding_idx: pad rows are not 0
        for (const char* e : {kSrcEmb, kTrgEmb}) {
            const Tensor& t = get(w, e);
            bool nonzero = false;
            for (int64_t j = 0; j < d.D; ++j) nonzero = nonzero || t.data[size_t(j)] != 0.0f;
            EXPECT_TRUE(nonzero) << c << ": " << e;
        }
        // both buffers: the float64 table rounded to float32, bit for bit
        for (const char* b : {"encoder.position_enc.pos_table", "decoder.position_enc.pos_table"}) {
            const Tensor& t = get(w, b);
            int64_t differ = 0;
            for (int64_t p = 0; p < d.npos; ++p)
                for (int64_t j = 0; j < d.D; ++j) differ += t.data[size_t(p * d.D + j)] != pe_value(p, j, d.D);
            EXPECT_EQ(differ, 0) << c << ": " << b;
        }
    }
}

TEST(AiaynFixtures, TraceHasEveryDocumentedNameInOrder) {
    for (const auto& c : kCases) {
        const Dims d = dims(c);
        const auto tr = load(c + ".trace");
        const auto order = nlohmann::json::parse(tr.metadata.at("stepformer.order")).get<std::vector<std::string>>();
        const Names want = expected_trace(d);
        ASSERT_EQ(order.size(), want.size()) << c;
        ASSERT_EQ(tr.tensors.size(), want.size()) << c;
        for (size_t i = 0; i < want.size(); ++i) {
            EXPECT_EQ(order[i], want[i].first) << c << " position " << i;
            const auto* t = tr.find(want[i].first);
            ASSERT_NE(t, nullptr) << c << ": " << want[i].first;
            EXPECT_EQ(t->shape, want[i].second) << c << ": " << want[i].first;
            const bool mask = ends_with(want[i].first, "_mask");
            EXPECT_EQ(t->dtype, mask ? stepformer::DType::U8 : stepformer::DType::F32) << want[i].first;
        }
    }
}

TEST(AiaynFixtures, TraceStepsAreConsistent) {
    for (const auto& c : kCases) {
        SCOPED_TRACE(c);
        const Dims d = dims(c);
        const auto tr = load(c + ".trace");
        const auto w = load(c + ".weights");
        const auto in = fixtures::read_json(file(c + ".inputs.json"));
        const auto& T = [&](const std::string& n) -> const Tensor& { return get(tr, n); };
        // masks: 1 = keep; pad keys, and the causal triangle for the decoder
        for (int64_t b = 0; b < d.B; ++b) {
            const auto s = ids(in.at("src_ids"), b), t = ids(in.at("tgt_ids"), b);
            for (int64_t k = 0; k < d.S; ++k) EXPECT_EQ(T("src_mask").data[size_t(b * d.S + k)], s[size_t(k)] != 0);
            for (int64_t q = 0; q < d.T; ++q)
                for (int64_t k = 0; k < d.T; ++k)
                    EXPECT_EQ(T("trg_mask").data[size_t((b * d.T + q) * d.T + k)], k <= q && t[size_t(k)] != 0);
        }
        // embeddings: W[id] (x float(sqrt(d_model)) when scale_emb), + pos_table, exactly
        for (const auto& [side, emb, key, len] :
             {std::tuple<std::string, std::string, std::string, int64_t>{"encoder", "src_word_emb", "src_ids", d.S},
              {"decoder", "trg_word_emb", "tgt_ids", d.T}}) {
            const Tensor& W = get(w, side + "." + emb + ".weight");
            const Tensor& e = T(side + "." + emb + ".out");
            const Tensor& p = T(side + ".position_enc.out");
            for (int64_t b = 0; b < d.B; ++b) {
                const auto row = ids(in.at(key), b);
                for (int64_t l = 0; l < len; ++l)
                    for (int64_t j = 0; j < d.D; ++j) {
                        float v = W.data[size_t(row[size_t(l)] * d.D + j)];
                        if (d.scale_emb) v = v * float(std::sqrt(double(d.D)));
                        const size_t at = size_t((b * len + l) * d.D + j);
                        EXPECT_EQ(e.data[at], v) << side << " " << b << " " << l << " " << j;
                        EXPECT_EQ(p.data[at], v + pe_value(l, j, d.D));
                    }
            }
        }
        // attention blocks
        const float temperature = float(std::sqrt(double(d.dk)));
        for (const auto& st : tr.tensors) {
            if (!ends_with(st.name, ".masked_scores")) continue;
            const std::string P = st.name.substr(0, st.name.size() - std::string(".masked_scores").size());
            const bool causal = P.rfind("decoder", 0) == 0 && ends_with(P, "slf_attn");
            const Tensor &Q = T(P + ".Q"), &qs = T(P + ".q_scaled"), &sc = T(P + ".scores"), &ms = st.value,
                         &a = T(P + ".attn");
            for (size_t i = 0; i < Q.data.size(); ++i) EXPECT_EQ(qs.data[i], Q.data[i] / temperature) << P;
            const int64_t lq = sc.shape[2], lk = sc.shape[3];
            const Tensor& mask = causal ? T("trg_mask") : T("src_mask");
            for (int64_t b = 0; b < d.B; ++b)
                for (int64_t h = 0; h < d.H; ++h)
                    for (int64_t q = 0; q < lq; ++q) {
                        double sum = 0.0;
                        for (int64_t k = 0; k < lk; ++k) {
                            const size_t at = size_t(((b * d.H + h) * lq + q) * lk + k);
                            const float keep = causal ? mask.data[size_t((b * lq + q) * lk + k)]
                                                      : mask.data[size_t(b * lk + k)];
                            EXPECT_EQ(ms.data[at], keep != 0.0f ? sc.data[at] : -1e9f) << P;
                            if (keep == 0.0f) {
                                EXPECT_EQ(a.data[at], 0.0f) << P;
                            }
                            sum += a.data[at];
                        }
                        EXPECT_NEAR(sum, 1.0, 1e-6) << P;
                    }
        }
        // residuals are exact float adds of the sub-layer output and its input; relu exact
        auto add_of = [&](const std::string& P, const std::string& input) {
            const Tensor &f = T(P + ".fc_out"), &r = T(P + ".residual"), &x = T(input);
            for (size_t i = 0; i < r.data.size(); ++i) EXPECT_EQ(r.data[i], f.data[i] + x.data[i]) << P;
        };
        std::string enc_in = "encoder.layer_norm.out";
        for (int64_t i = 0; i < d.L; ++i) {
            const std::string L = "encoder.layer_stack." + std::to_string(i);
            add_of(L + ".slf_attn", enc_in);
            add_of(L + ".pos_ffn", L + ".slf_attn.out");
            enc_in = L + ".pos_ffn.out";
        }
        std::string dec_in = "decoder.layer_norm.out";
        for (int64_t i = 0; i < d.L; ++i) {
            const std::string L = "decoder.layer_stack." + std::to_string(i);
            add_of(L + ".slf_attn", dec_in);
            add_of(L + ".enc_attn", L + ".slf_attn.out");
            add_of(L + ".pos_ffn", L + ".enc_attn.out");
            const Tensor &h = T(L + ".pos_ffn.hidden"), &r = T(L + ".pos_ffn.relu");
            for (size_t k = 0; k < h.data.size(); ++k) EXPECT_EQ(r.data[k], std::max(h.data[k], 0.0f));
            dec_in = L + ".pos_ffn.out";
        }
        // probs and the label-smoothed loss, recomputed in double from the logits
        const Tensor &lg = T("trg_word_prj.logits"), &pr = T("trg_word_prj.probs"), &pt = T("loss.per_token");
        const double eps = 0.1;
        double total = 0.0;
        for (int64_t b = 0; b < d.B; ++b) {
            const auto gold = ids(in.at("out_ids"), b);
            for (int64_t t = 0; t < d.T; ++t) {
                const float* z = lg.data.data() + (b * d.T + t) * d.Vt;
                double m = z[0], s = 0.0;
                for (int64_t v = 1; v < d.Vt; ++v) m = std::max(m, double(z[v]));
                for (int64_t v = 0; v < d.Vt; ++v) s += std::exp(double(z[v]) - m);
                double loss = 0.0;
                for (int64_t v = 0; v < d.Vt; ++v) {
                    const double logp = double(z[v]) - m - std::log(s);
                    EXPECT_NEAR(pr.data[size_t((b * d.T + t) * d.Vt + v)], std::exp(logp), 1e-6);
                    const double target = v == gold[size_t(t)] ? 1.0 - eps : eps / double(d.Vt - 1);
                    loss -= target * logp;
                }
                const float got = pt.data[size_t(b * d.T + t)];
                if (gold[size_t(t)] == 0) {
                    EXPECT_EQ(got, 0.0f);
                } else {
                    EXPECT_NEAR(got, loss, 1e-5 * std::max(1.0, loss));
                    total += loss;
                }
            }
        }
        EXPECT_NEAR(T("loss").data[0], total, 1e-5 * total);
        EXPECT_GT(T("loss").data[0], 0.0f);
    }
}

TEST(AiaynFixtures, GradsCoverEveryParameterAndTraceTensor) {
    for (const auto& c : kCases) {
        SCOPED_TRACE(c);
        const Dims d = dims(c);
        const auto g = load(c + ".grads");
        const auto w = load(c + ".weights");
        const auto tr = load(c + ".trace");
        std::vector<std::string> want = {"loss"};
        for (const auto& t : w.tensors)
            if (!ends_with(t.name, "pos_table")) want.push_back("grad." + t.name);
        for (const auto& name : nlohmann::json::parse(tr.metadata.at("stepformer.order")).get<std::vector<std::string>>())
            if (!ends_with(name, "_mask") && name != "trg_word_prj.probs" && name.rfind("loss", 0) != 0)
                want.push_back("grad." + name);
        std::vector<std::string> have;
        for (const auto& t : g.tensors) {
            have.push_back(t.name);
            EXPECT_EQ(t.dtype, stepformer::DType::F32);
        }
        EXPECT_EQ(have, want);
        for (const auto& name : want)
            if (name != "loss") {
                const std::string base = name.substr(5);
                const auto* ref = w.find(base) != nullptr ? w.find(base) : tr.find(base);
                ASSERT_NE(ref, nullptr) << name;
                EXPECT_EQ(get(g, name).shape, ref->shape) << name;
            }
        EXPECT_EQ(get(g, "loss").data[0], get(tr, "loss").data[0]);
        // one parameter, one gradient under each of its names
        const auto group = tied(d);
        for (size_t i = 1; i < group.size(); ++i)
            EXPECT_TRUE(same_bits(get(g, "grad." + group[i]), get(g, "grad." + group[0]))) << group[i];
        // padding_idx: an embedding's pad row gets no gradient from the lookup; tied to the
        // projection it gets the projection's (pad is a class of the smoothed target)
        for (const char* e : {kSrcEmb, kTrgEmb}) {
            const bool with_prj = std::find(group.begin(), group.end(), e) != group.end() && d.tie_prj;
            const Tensor& ge = get(g, std::string("grad.") + e);
            bool zero = true;
            for (int64_t j = 0; j < d.D; ++j) zero = zero && ge.data[size_t(j)] == 0.0f;
            EXPECT_EQ(zero, !with_prj) << e;
        }
        // d loss / d logits = softmax - smoothed target at non-pad targets, 0 at pads
        const auto in = fixtures::read_json(file(c + ".inputs.json"));
        const Tensor &gl = get(g, "grad.trg_word_prj.logits"), &pr = get(tr, "trg_word_prj.probs");
        for (int64_t b = 0; b < d.B; ++b) {
            const auto gold = ids(in.at("out_ids"), b);
            for (int64_t t = 0; t < d.T; ++t)
                for (int64_t v = 0; v < d.Vt; ++v) {
                    const size_t at = size_t((b * d.T + t) * d.Vt + v);
                    const double target = v == gold[size_t(t)] ? 0.9 : 0.1 / double(d.Vt - 1);
                    EXPECT_NEAR(gl.data[at], gold[size_t(t)] == 0 ? 0.0 : pr.data[at] - target, 1e-6);
                }
        }
    }
}

TEST(AiaynFixtures, TrainingFollowsTheProjectsRecipe) {
    for (const auto& [name, base] : {std::pair<std::string, std::string>{"aiayn_train", "unshared_none"},
                                     {"aiayn_train_shared", "shared_prj"}}) {
        SCOPED_TRACE(name);
        const auto js = fixtures::read_json(file(name + ".losses.json"));
        EXPECT_EQ(js.at("config"), base + ".config.json");
        EXPECT_EQ(js.at("init"), base + ".weights.safetensors");
        const auto losses = js.at("losses").get<std::vector<double>>();
        const auto l64 = js.at("float64_losses").get<std::vector<double>>();
        const auto lrs = js.at("lrs").get<std::vector<double>>();
        ASSERT_EQ(losses.size(), 30u);
        ASSERT_EQ(l64.size(), 30u);
        ASSERT_EQ(lrs.size(), 30u);
        EXPECT_EQ(float(losses[0]), get(load(base + ".trace"), "loss").data[0]);
        const auto& sch = js.at("optimizer").at("schedule");
        EXPECT_EQ(js.at("optimizer").at("betas"), (nlohmann::json{0.9, 0.98}));
        EXPECT_EQ(js.at("optimizer").at("eps").get<double>(), 1e-9);
        const double lr_mul = sch.at("lr_mul").get<double>(), dm = sch.at("d_model").get<double>(),
                     wu = sch.at("n_warmup_steps").get<double>();
        for (size_t i = 0; i < 30; ++i) {
            const double n = double(i + 1);
            EXPECT_NEAR(lrs[i], lr_mul * std::pow(dm, -0.5) * std::min(std::pow(n, -0.5), n * std::pow(wu, -1.5)),
                        1e-15);
            EXPECT_NEAR(losses[i], l64[i], 1e-4 * l64[i]) << i;
        }
        EXPECT_LT(js.at("final_loss").get<double>(), losses[0]);
        EXPECT_LT(js.at("float32_vs_float64_final_weights_max_abs_dev").get<double>(), 1e-4);
        const Dims d = dims(base);
        const auto w0 = load(base + ".weights");
        const auto w1 = load(name + ".final");
        ASSERT_EQ(w1.tensors.size(), w0.tensors.size());
        for (const auto& t : w0.tensors) {
            const Tensor& after = get(w1, t.name);
            if (ends_with(t.name, "pos_table"))
                EXPECT_TRUE(same_bits(after, t.value)) << t.name;
            else
                EXPECT_FALSE(same_bits(after, t.value)) << t.name << " did not move";
        }
        const auto group = tied(d);
        for (size_t i = 1; i < group.size(); ++i)
            EXPECT_TRUE(same_bits(get(w1, group[i]), get(w1, group[0]))) << group[i];
        // an embedding's pad row moves only when the projection shares it (Adam: a zero gradient
        // is a zero step)
        for (const char* e : {kSrcEmb, kTrgEmb}) {
            const bool with_prj = std::find(group.begin(), group.end(), e) != group.end() && d.tie_prj;
            bool same = true;
            for (int64_t j = 0; j < d.D; ++j) same = same && get(w1, e).data[size_t(j)] == get(w0, e).data[size_t(j)];
            EXPECT_EQ(same, !with_prj) << e;
        }
    }
}

TEST(AiaynFixtures, PosTableFromFloat64DiffersFromTheTutorialsInTheLastBits) {
    const auto f = load("pos_table");
    const auto stats = nlohmann::json::parse(f.metadata.at("stepformer.pos_table_stats"));
    // (200, 8): whole tables
    const Tensor &a8 = get(f, "aiayn.200x8"), &t8 = get(f, "tutorial.200x8");
    int64_t differ = 0, not_exact = 0;
    double max_abs = 0.0;
    for (int64_t p = 0; p < 200; ++p)
        for (int64_t j = 0; j < 8; ++j) {
            const size_t at = size_t(p * 8 + j);
            not_exact += a8.data[at] != pe_value(p, j, 8);
            differ += a8.data[at] != t8.data[at];
            max_abs = std::max(max_abs, std::abs(double(a8.data[at]) - double(t8.data[at])));
        }
    EXPECT_EQ(not_exact, 0);
    EXPECT_EQ(differ, stats.at("200x8").at("differ").get<int64_t>());
    EXPECT_EQ(max_abs, stats.at("200x8").at("max_abs_diff").get<double>());
    EXPECT_GT(differ, 0);
    EXPECT_LT(max_abs, 1e-5);
    // (200, 512): the stored rows
    const Tensor &rows = get(f, "rows.200x512"), &a = get(f, "aiayn.200x512.rows"), &t = get(f, "tutorial.200x512.rows");
    ASSERT_EQ(a.shape, (Shape{rows.shape[0], 512}));
    int64_t differ_rows = 0;
    for (int64_t r = 0; r < rows.shape[0]; ++r)
        for (int64_t j = 0; j < 512; ++j) {
            const size_t at = size_t(r * 512 + j);
            EXPECT_EQ(a.data[at], pe_value(int64_t(rows.data[size_t(r)]), j, 512)) << r << " " << j;
            differ_rows += a.data[at] != t.data[at];
        }
    EXPECT_EQ(differ_rows, stats.at("200x512").at("differ_in_stored_rows").get<int64_t>());
    EXPECT_GT(stats.at("200x512").at("differ").get<int64_t>(), 0);
}

}  // namespace
