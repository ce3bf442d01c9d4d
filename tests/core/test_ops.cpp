// Direct unit tests of the forward kernels and the model's building blocks, with values small
// enough to compute by hand: masks, the positional table, softmax, LayerNorm, the linear and
// attention kernels, the loss, batching with different padding, and greedy decoding's stops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <numeric>

#include "../../core/src/philox.h"
#include "stepformer/backend.h"
#include "stepformer/dataset.h"
#include "stepformer/decode.h"
#include "stepformer/model.h"

using namespace stepformer;

namespace {

using Vec = std::vector<float>;

Config small_config(int layers = 1) {
    Config c = Config::small();
    c.n_layers = layers;
    return c;
}

class Ops : public ::testing::TestWithParam<int> {
protected:
    void SetUp() override { be = make_cpu_backend(GetParam()); }
    std::unique_ptr<Backend> be;
};

TEST_P(Ops, LinearIsXTimesWTransposed) {
    // x (2, 3), W (2 outputs, 3 inputs)
    const Vec x{1, 2, 3, -1, 0, 2};
    const Vec W{1, 0, 0, 0.5f, 1, -1};
    Vec y(4, -7.0f);
    be->linear_forward(y.data(), x.data(), W.data(), 2, 3, 2);
    EXPECT_EQ(y, (Vec{1, -0.5f, -1, -2.5f}));
}

TEST_P(Ops, EmbeddingCopiesRows) {
    const Vec table{0, 0, 1, 2, 3, 4};  // 3 rows of 2
    const std::vector<int> ids{2, 0, 2, 1};
    Vec out(8);
    be->embedding_forward(out.data(), ids.data(), table.data(), 4, 3, 2);
    EXPECT_EQ(out, (Vec{3, 4, 0, 0, 3, 4, 1, 2}));
}

TEST_P(Ops, SplitHeadsMovesEachHeadsSliceTogether) {
    // B=1, L=2, H=2, d=2: in[l][h*2+j] = 10*l + 2*h + j
    const Vec in{0, 1, 2, 3, 10, 11, 12, 13};
    Vec out(8);
    be->split_heads(out.data(), in.data(), 1, 2, 2, 2);
    EXPECT_EQ(out, (Vec{0, 1, 10, 11, 2, 3, 12, 13}));  // (H, L, d)
    Vec back(8);
    be->merge_heads(back.data(), out.data(), 1, 2, 2, 2);
    EXPECT_EQ(back, in);
}

TEST_P(Ops, AttentionScoresAndContext) {
    // one group: Q (2, 2), K (3, 2)
    const Vec Q{1, 0, 1, 2};
    const Vec K{1, 1, 0, 1, 2, 0};
    Vec s(6);
    be->attn_scores_forward(s.data(), Q.data(), K.data(), 1, 2, 3, 2, 0.5f);
    EXPECT_EQ(s, (Vec{0.5f, 0, 1, 1.5f, 1, 1}));
    // context = attn (2, 3) V (3, 1)
    const Vec A{1, 0, 0, 0.25f, 0.25f, 0.5f};
    const Vec V{2, 4, 8};
    Vec ctx(2);
    be->attn_context_forward(ctx.data(), A.data(), V.data(), 1, 2, 3, 1);
    EXPECT_EQ(ctx, (Vec{2, 5.5f}));
}

TEST_P(Ops, MaskFillBroadcastsTheMaskOverHeads) {
    // B=1, H=2, 1x3 planes; mask shared by both heads
    const Vec in{1, 2, 3, 4, 5, 6};
    const Vec mask{0, 1, 0};
    Vec out(6);
    be->mask_fill_forward(out.data(), in.data(), mask.data(), 1, 2, 1, 3, -1e9f);
    EXPECT_EQ(out, (Vec{1, -1e9f, 3, 4, -1e9f, 6}));
}

TEST_P(Ops, SoftmaxRowsSumToOneAndMaskedEntriesAreExactlyZero) {
    const Vec in{0,     0,    0,     0,       // uniform
                 1,     2,    3,     4,       // generic
                 1000,  1001, -1e9f, 999,     // large values (needs the max subtraction) + one masked
                 -1e9f, 5,    -1e9f, -1e9f};  // everything masked but one
    Vec out(16);
    be->softmax_forward(out.data(), in.data(), 4, 4);
    for (int r = 0; r < 4; ++r) {
        double s = 0;
        for (int c = 0; c < 4; ++c) {
            EXPECT_TRUE(std::isfinite(out[size_t(r) * 4 + c]));
            s += out[size_t(r) * 4 + c];
        }
        EXPECT_NEAR(s, 1.0, 1e-6) << "row " << r;
    }
    for (int c = 0; c < 4; ++c) EXPECT_FLOAT_EQ(out[size_t(c)], 0.25f);
    const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0) + std::exp(4.0);
    for (int c = 0; c < 4; ++c) EXPECT_NEAR(out[4 + size_t(c)], std::exp(c + 1.0) / z, 1e-6);
    EXPECT_EQ(out[10], 0.0f);
    EXPECT_NEAR(out[9], std::exp(1.0) / (1 + std::exp(1.0) + std::exp(-1.0)), 1e-6);
    EXPECT_EQ(out[12], 0.0f);
    EXPECT_EQ(out[13], 1.0f);
    EXPECT_EQ(out[14], 0.0f);
    EXPECT_EQ(out[15], 0.0f);
}

TEST_P(Ops, SoftmaxOfAFullyMaskedRowIsUniformAsInPyTorch) {
    // masked_fill_(-1e9) then softmax: every entry equal, so torch gives 1/n, not NaN
    const Vec in(5, -1e9f);
    Vec out(5);
    be->softmax_forward(out.data(), in.data(), 1, 5);
    for (float v : out) EXPECT_FLOAT_EQ(v, 0.2f);
}

TEST_P(Ops, LayerNormNormalisesEachRow) {
    const int rows = 3, cols = 6;
    Vec in{1, 2, 3, 4, 5, 6, -10, 0, 10, 20, 30, 40, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
    const Vec gamma(cols, 1.0f), beta(cols, 0.0f);
    Vec out(in.size()), mean(rows), rstd(rows);
    be->layernorm_forward(out.data(), mean.data(), rstd.data(), in.data(), gamma.data(), beta.data(), rows, cols,
                          1e-5f);
    EXPECT_FLOAT_EQ(mean[0], 3.5f);
    EXPECT_FLOAT_EQ(mean[1], 15.0f);
    EXPECT_NEAR(rstd[0], 1.0 / std::sqrt(35.0 / 12.0 + 1e-5), 1e-6);  // biased variance of 1..6
    for (int r = 0; r < 2; ++r) {
        double m = 0, v = 0;
        for (int c = 0; c < cols; ++c) m += out[size_t(r) * cols + c];
        m /= cols;
        for (int c = 0; c < cols; ++c) v += (out[size_t(r) * cols + c] - m) * (out[size_t(r) * cols + c] - m);
        v /= cols;
        EXPECT_NEAR(m, 0.0, 1e-6) << "row " << r;
        EXPECT_NEAR(v, 1.0, 1e-4) << "row " << r;
    }
    // a constant row: variance 0, output 0 (eps keeps it finite)
    for (int c = 0; c < cols; ++c) EXPECT_EQ(out[size_t(2) * cols + c], 0.0f);
    // gamma and beta scale and shift
    const Vec g2(cols, 2.0f), b2(cols, -1.0f);
    Vec out2(in.size());
    be->layernorm_forward(out2.data(), mean.data(), rstd.data(), in.data(), g2.data(), b2.data(), rows, cols, 1e-5f);
    for (size_t i = 0; i < in.size(); ++i) EXPECT_NEAR(out2[i], 2.0f * out[i] - 1.0f, 1e-5);
}

TEST_P(Ops, ReluAddAndPositionalAdd) {
    const Vec in{-2, -0.0f, 0.5f, 3};
    Vec out(4);
    be->relu_forward(out.data(), in.data(), 4);
    EXPECT_EQ(out, (Vec{0, 0, 0.5f, 3}));
    be->add_forward(out.data(), in.data(), in.data(), 4);
    EXPECT_EQ(out, (Vec{-4, 0, 1, 6}));
    // B=2, L=2, D=1: pe broadcast over the batch; keep scales (dropout)
    const Vec x{1, 2, 3, 4}, pe{10, 20}, keep{0, 2, 1, 1};
    be->positional_forward(out.data(), x.data(), pe.data(), nullptr, 2, 2, 1);
    EXPECT_EQ(out, (Vec{11, 22, 13, 24}));
    be->positional_forward(out.data(), x.data(), pe.data(), keep.data(), 2, 2, 1);
    EXPECT_EQ(out, (Vec{0, 44, 13, 24}));
}

TEST_P(Ops, CrossEntropyIsMeanNegativeLogOfTheTargetOverCountedRows) {
    const Vec probs{0.25f, 0.25f, 0.5f,    // target 2
                    0.1f,  0.8f,  0.1f,    // target 0 = ignored
                    0.5f,  0.25f, 0.25f};  // target 1
    const std::vector<int> targets{2, 0, 1};
    Vec losses(3, -1.0f);
    int counted = -1;
    float mean = -1.0f;
    be->cross_entropy_forward(losses.data(), &mean, &counted, probs.data(), targets.data(), 3, 3, 0);
    be->sync();
    EXPECT_EQ(counted, 2);
    EXPECT_FLOAT_EQ(losses[0], std::log(2.0f));
    EXPECT_EQ(losses[1], 0.0f);
    EXPECT_FLOAT_EQ(losses[2], std::log(4.0f));
    EXPECT_FLOAT_EQ(mean, (std::log(2.0f) + std::log(4.0f)) / 2);
    Vec d(9);
    be->cross_entropy_backward(d.data(), probs.data(), targets.data(), 3, 3, 0);
    EXPECT_EQ(d, (Vec{0.125f, 0.125f, -0.25f, 0, 0, 0, 0.25f, -0.375f, 0.125f}));
    // an underflowed probability gives a large finite loss, not inf
    const Vec zero{0.0f, 1.0f};
    const std::vector<int> t0{0};
    be->cross_entropy_forward(losses.data(), &mean, &counted, zero.data(), t0.data(), 1, 2, -100);
    be->sync();
    EXPECT_TRUE(std::isfinite(mean));
    EXPECT_GT(losses[0], 80.0f);
}

TEST_P(Ops, SumSquaresAccumulatesInDouble) {
    Vec x(100000, 1e-3f);
    x[0] = 3.0f;
    EXPECT_NEAR(be->sum_squares_now(x.data(), int64_t(x.size())), 9.0 + 99999 * double(1e-3f) * double(1e-3f), 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Cpu, Ops, ::testing::Values(1, 2),
                         [](const auto& info) { return "threads" + std::to_string(info.param); });

// ---------------------------------------------------------------------------
// The positional table and the masks as the model records them.

TEST(PositionalTable, MatchesTheFormula) {
    for (int D : {8, 7, 1}) {  // even, odd (the last dim is a sine), and a single column
        const int L = 6;
        const Tensor pe = positional_table(L, D);
        ASSERT_EQ(pe.shape, (Shape{L, D}));
        for (int pos = 0; pos < L; ++pos)
            for (int j = 0; j < D; ++j) {
                const int i2 = j - j % 2;  // 2i
                const double angle = pos / std::pow(10000.0, double(i2) / D);
                const double want = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
                EXPECT_NEAR(pe.at({pos, j}), want, 2e-6) << "D=" << D << " pos=" << pos << " dim=" << j;
            }
        EXPECT_EQ(pe.at({0, 0}), 0.0f);
        if (D > 1) {
            EXPECT_EQ(pe.at({0, 1}), 1.0f);
        }
    }
    // the tutorial's size, spot-checked at a far position and a high dimension
    const Tensor big = positional_table(5, 512);
    EXPECT_NEAR(big.at({4, 0}), std::sin(4.0), 1e-6);
    EXPECT_NEAR(big.at({4, 511}), std::cos(4.0 / std::pow(10000.0, 510.0 / 512)), 1e-6);
}

TEST(Masks, PadMaskMarksPadKeysAndSubsequenceMaskIsStrictUpperTriangle) {
    const Config c = small_config();
    Transformer model(c, init_params(c, 1));
    // source: 3 words + 2 pads; target: 4 tokens + 2 pads
    const Batch batch = make_batch(c, {"ich mochte bier"}, {"S i want P"});
    Trace t;
    model.forward(batch, t);
    const Tensor& enc = t.at("encoder.self_attn_mask").value;  // (1, S, S)
    ASSERT_EQ(enc.shape, (Shape{1, 5, 5}));
    for (int q = 0; q < 5; ++q)
        for (int k = 0; k < 5; ++k) EXPECT_EQ(enc.at({0, q, k}), k >= 3 ? 1.0f : 0.0f) << q << "," << k;
    const Tensor& sub = t.at("decoder.self_attn_subsequence_mask").value;  // triu(ones, k=1)
    const Tensor& pad = t.at("decoder.self_attn_pad_mask").value;
    const Tensor& both = t.at("decoder.self_attn_mask").value;
    const Tensor& cross = t.at("decoder.enc_attn_mask").value;  // (1, T, S)
    ASSERT_EQ(cross.shape, (Shape{1, 6, 5}));
    for (int q = 0; q < 6; ++q) {
        for (int k = 0; k < 6; ++k) {
            EXPECT_EQ(sub.at({0, q, k}), k > q ? 1.0f : 0.0f);
            // "P" given explicitly at position 3 is the pad id too, as are the two padded slots
            EXPECT_EQ(pad.at({0, q, k}), k >= 3 ? 1.0f : 0.0f);
            EXPECT_EQ(both.at({0, q, k}), (k > q || k >= 3) ? 1.0f : 0.0f);
        }
        for (int k = 0; k < 5; ++k) EXPECT_EQ(cross.at({0, q, k}), k >= 3 ? 1.0f : 0.0f);
    }
    EXPECT_TRUE(t.at("decoder.self_attn_mask").is_mask);
    EXPECT_FALSE(t.at("decoder.pos_emb.pe").is_mask);
    // masked scores really are -1e9 there, and the attention to them exactly 0
    const Tensor& ms = t.at("encoder.layers.0.enc_self_attn.masked_scores").value;
    const Tensor& at = t.at("encoder.layers.0.enc_self_attn.attn").value;
    for (int h = 0; h < c.n_heads; ++h)
        for (int q = 0; q < 5; ++q)
            for (int k = 3; k < 5; ++k) {
                EXPECT_EQ(ms.at({0, h, q, k}), -1e9f);
                EXPECT_EQ(at.at({0, h, q, k}), 0.0f);
            }
    const Tensor& da = t.at("decoder.layers.0.dec_self_attn.attn").value;
    EXPECT_EQ(da.at({0, 0, 0, 0}), 1.0f);  // the first query sees only itself
}

TEST(Masks, EmbeddingAddsTheTableAndAttentionShapesFollowTheConfig) {
    const Config c = small_config();
    Transformer model(c, init_params(c, 2));
    const Batch batch = make_batch(c, {"ich mochte ein bier P"}, {"S i want a beer ."});
    Trace t;
    model.forward(batch, t);
    const Tensor& emb = t.at("encoder.src_emb.out").value;
    const Tensor& pe = t.at("encoder.pos_emb.pe").value;
    const Tensor& out = t.at("encoder.pos_emb.out").value;
    const Tensor& table = model.params().at("encoder.src_emb.weight");
    for (int s = 0; s < 5; ++s)
        for (int d = 0; d < c.d_model; ++d) {
            EXPECT_EQ(emb.at({0, s, d}), table.at({batch.src[size_t(s)], d}));
            EXPECT_EQ(out.at({0, s, d}), emb.at({0, s, d}) + pe.at({s, d}));
        }
}

// ---------------------------------------------------------------------------
// Model-level behaviour.

TEST(ModelShapes, HeadsTimesDkNeedNotEqualDModel) {
    Config c = small_config(2);
    c.d_model = 10;
    c.n_heads = 3;
    c.d_k = 4;  // 12 != 10
    c.d_v = 5;  // 15 != 10
    c.d_ff = 7;
    Transformer model(c, init_params(c, 3));
    const Batch batch = make_training_batch(c, builtin_examples(), {0, 1});
    Trace t;
    model.forward(batch, t);
    EXPECT_EQ(t.at("encoder.layers.1.enc_self_attn.Q").value.shape, (Shape{2, 3, 5, 4}));
    EXPECT_EQ(t.at("decoder.layers.0.dec_enc_attn.K").value.shape, (Shape{2, 3, 5, 4}));
    EXPECT_EQ(t.at("decoder.layers.0.dec_enc_attn.V").value.shape, (Shape{2, 3, 5, 5}));
    EXPECT_EQ(t.at("decoder.layers.0.dec_enc_attn.context").value.shape, (Shape{2, 3, 6, 5}));
    EXPECT_EQ(t.at("decoder.layers.1.pos_ffn.hidden").value.shape, (Shape{2, 6, 7}));
    EXPECT_EQ(t.at("projection.probs").value.shape, (Shape{2, 6, 9}));
    const float loss = model.loss(batch, t);
    EXPECT_TRUE(std::isfinite(loss));
    EXPECT_GT(loss, 0.0f);
    ParamSet grads;
    model.backward(batch, t, grads);
    EXPECT_EQ(grads.at("decoder.layers.1.dec_self_attn.fc.weight").shape, (Shape{10, 15}));
    EXPECT_GT(model.backend().sum_squares_now(grads.at("encoder.layers.0.enc_self_attn.W_Q.weight").ptr(), 120), 0.0);
    for (const auto& e : t.entries())
        for (float v : e.value.data) ASSERT_TRUE(std::isfinite(v)) << e.name;
}

// A gradient set from a wider model of the same depth has as many parameters but larger ones:
// backward must make a new one rather than write the narrower model's gradients into it.
TEST(ModelShapes, BackwardReplacesGradientsOfAnotherShape) {
    Config wide = small_config(2), narrow = small_config(2);
    narrow.d_model = 8;
    narrow.d_k = narrow.d_v = 4;
    narrow.n_heads = 2;
    narrow.d_ff = 12;
    Transformer w(wide, init_params(wide, 3)), n(narrow, init_params(narrow, 3));
    const Batch batch = make_training_batch(narrow, builtin_examples(), {0, 1});
    Trace tw, tn, fresh_trace;
    w.forward(batch, tw);
    w.loss(batch, tw);
    ParamSet grads;
    w.backward(batch, tw, grads);
    ASSERT_EQ(grads.size(), n.params().size());  // the same count: the case the old check missed
    ASSERT_FALSE(grads.same_layout(n.params()));

    n.forward(batch, tn);
    n.loss(batch, tn);
    n.backward(batch, tn, grads);
    ASSERT_TRUE(grads.same_layout(n.params()));
    ParamSet fresh;
    n.forward(batch, fresh_trace);
    n.loss(batch, fresh_trace);
    n.backward(batch, fresh_trace, fresh);
    for (size_t i = 0; i < fresh.size(); ++i) EXPECT_EQ(grads[i].data, fresh[i].data) << fresh.name(i);
}

TEST(BackendRegistry, CpuIsRegisteredAndUnknownNamesAreNamed) {
    const std::vector<std::string> names = available_backends();
    ASSERT_NE(std::find(names.begin(), names.end(), "cpu"), names.end());
    auto be = make_backend("cpu", 2);
    ASSERT_TRUE(be);
    EXPECT_EQ(be->name(), "cpu");
    EXPECT_EQ(be->describe(), "cpu, 2 threads");
    try {
        make_backend("tpu");
        FAIL() << "an unknown backend was made";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'tpu'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("cpu"), std::string::npos) << e.what();
    }
    // A registered backend is listed and made by its name.
    register_backend("cpu-single", [](int) { return make_cpu_backend(1); });
    const std::vector<std::string> after = available_backends();
    EXPECT_NE(std::find(after.begin(), after.end(), "cpu-single"), after.end());
    EXPECT_EQ(make_backend("cpu-single", 4)->describe(), "cpu, 1 thread");
}

TEST(ModelShapes, BatchRowsAreIndependentOfEachOthersPadding) {
    const Config c = small_config(2);
    Transformer model(c, init_params(c, 4));
    const std::vector<std::string> src{"ich mochte ein bier P", "cola"}, tgt{"S i want a beer .", "S coke"};
    Trace both, one, two;
    model.forward(make_batch(c, src, tgt), both);
    model.forward(make_batch(c, {src[0]}, {tgt[0]}), one);
    model.forward(make_batch(c, {src[1]}, {tgt[1]}), two);
    const Tensor& pb = both.at("projection.probs").value;
    const int T = c.tgt_len, V = c.tgt_vocab_size();
    ASSERT_EQ(pb.shape, (Shape{2, T, V}));
    for (int t = 0; t < T; ++t)
        for (int v = 0; v < V; ++v) {
            EXPECT_NEAR(pb.at({0, t, v}), one.at("projection.probs").value.at({0, t, v}), 1e-6);
            EXPECT_NEAR(pb.at({1, t, v}), two.at("projection.probs").value.at({0, t, v}), 1e-6);
        }
    // the rows really differ in padding
    const Tensor& m = both.at("encoder.self_attn_mask").value;
    EXPECT_EQ(m.at({0, 0, 1}), 0.0f);
    EXPECT_EQ(m.at({1, 0, 1}), 1.0f);
    EXPECT_EQ(both.src_tokens[1][0], "cola");
    EXPECT_EQ(both.tgt_tokens[1][2], "P");
}

TEST(ModelShapes, ForwardIsDeterministicAndDoesNotDependOnThreads) {
    const Config c = small_config(2);
    auto b1 = make_cpu_backend(1), b2 = make_cpu_backend(2);
    Transformer m1(c, init_params(c, 5), b1.get()), m2(c, init_params(c, 5), b2.get());
    const Batch batch = make_training_batch(c, builtin_examples(), {0, 1});
    Trace t1, t2, t1b;
    m1.forward(batch, t1);
    m1.forward(batch, t1b);
    m2.forward(batch, t2);
    ASSERT_EQ(t1.size(), t2.size());
    for (const auto& e : t1.entries()) {
        EXPECT_EQ(e.value.data, t1b.at(e.name).value.data) << e.name;
        const auto& o = t2.at(e.name).value.data;
        for (size_t i = 0; i < o.size(); ++i) ASSERT_NEAR(e.value.data[i], o[i], 1e-5 * (1 + std::abs(o[i]))) << e.name;
    }
}

// ---------------------------------------------------------------------------
// Greedy decoding's two stopping rules, with the output layer rigged so the choice is known:
// the last LayerNorm's gamma = 0 and beta = e_0 make every decoder output e_0, so the logits
// are the projection's column 0 and the argmax is the same at every step.

Transformer rigged_model(Config c, int winner) {
    c.learn_layer_norm = true;  // the rig needs a gamma and beta to set
    ParamSet p = init_params(c, 6);
    const std::string ln = "decoder.layers." + std::to_string(c.n_layers - 1) + ".pos_ffn.layer_norm";
    p.at(ln + ".weight").zero();
    Tensor& beta = p.at(ln + ".bias");
    beta.zero();
    beta.data[0] = 1.0f;
    Tensor& proj = p.at("projection.weight");  // (V, D)
    proj.zero();
    for (int v = 0; v < c.tgt_vocab_size(); ++v) proj.at({v, 0}) = v == winner ? 2.0f : -0.1f * v;
    return Transformer(c, std::move(p));
}

TEST(GreedyDecode, StopsAtEos) {
    const Config c = small_config();
    Transformer model = rigged_model(c, c.eos_id());
    const DecodeResult r = greedy_decode(model, "ich mochte ein bier", true);
    EXPECT_TRUE(r.reached_eos);
    EXPECT_EQ(r.tokens, std::vector<int>{c.eos_id()});
    EXPECT_EQ(r.text, "");
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_EQ(r.steps[0].dec_input, std::vector<int>{c.bos_id()});
    EXPECT_EQ(r.steps[0].chosen, c.eos_id());
    EXPECT_EQ(r.steps[0].probs.size(), size_t(c.tgt_vocab_size()));
}

TEST(GreedyDecode, StopsAfterTgtLenTokensWithoutEos) {
    Config c = small_config();
    c.tgt_len = 4;
    const int a = c.tgt_id("a");
    Transformer model = rigged_model(c, a);
    const DecodeResult r = greedy_decode(model, "ich mochte ein cola P", true);
    EXPECT_FALSE(r.reached_eos);
    EXPECT_EQ(r.tokens, std::vector<int>(4, a));
    EXPECT_EQ(r.text, "a a a a");
    ASSERT_EQ(r.steps.size(), 4u);
    for (size_t i = 0; i < r.steps.size(); ++i) {
        const auto& s = r.steps[i];
        ASSERT_EQ(s.dec_input.size(), i + 1);  // bos, then the tokens chosen so far
        EXPECT_EQ(s.dec_input[0], c.bos_id());
        for (size_t k = 1; k < s.dec_input.size(); ++k) EXPECT_EQ(s.dec_input[k], a);
        EXPECT_EQ(s.chosen, a);
        EXPECT_EQ(int(std::max_element(s.probs.begin(), s.probs.end()) - s.probs.begin()), a);
        EXPECT_NEAR(std::accumulate(s.probs.begin(), s.probs.end(), 0.0), 1.0, 1e-5);
        // each step's trace is a full forward over the dec_input so far
        EXPECT_EQ(s.trace.at("projection.probs").value.shape, (Shape{1, long(i + 1), c.tgt_vocab_size()}));
    }
}

TEST(GreedyDecode, WithoutKeepStepsRecordsNoSteps) {
    const Config c = small_config();
    Transformer model(c, init_params(c, 8));
    const DecodeResult r = greedy_decode(model, "ich mochte ein bier P");
    EXPECT_TRUE(r.steps.empty());
    ASSERT_FALSE(r.tokens.empty());
    EXPECT_LE(r.tokens.size(), size_t(c.tgt_len));
    EXPECT_EQ(r.reached_eos, r.tokens.back() == c.eos_id());
    if (!r.reached_eos) {
        EXPECT_EQ(r.tokens.size(), size_t(c.tgt_len));
    }
}

}  // namespace

// Philox4x32-10 against the known-answer vectors of its authors' Random123 (kat_vectors), so
// that a GPU kernel written from the same paper can be checked against these numbers too.

TEST(Philox, KnownAnswers) {
    using philox::philox4x32_10;
    EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}), (philox::Block{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
    EXPECT_EQ(philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}),
              (philox::Block{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
    EXPECT_EQ(philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}),
              (philox::Block{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(Philox, DropoutMaskKeepsAboutOneMinusPAndScales) {
    auto be = make_cpu_backend(2);
    std::vector<float> keep(100003);
    be->dropout_mask(keep.data(), int64_t(keep.size()), 0.3f, 42, 5);
    int64_t dropped = 0;
    for (float k : keep) {
        ASSERT_TRUE(k == 0.0f || k == 1.0f / 0.7f) << k;
        dropped += k == 0.0f;
    }
    // Binomial(100003, 0.3): the standard deviation is ~145; 5 of them either side.
    EXPECT_NEAR(double(dropped), 0.3 * 100003, 725.0);
    // Element i depends on (seed, offset, i) only: a prefix of a longer mask is the shorter mask.
    std::vector<float> shorter(17);
    be->dropout_mask(shorter.data(), 17, 0.3f, 42, 5);
    EXPECT_TRUE(std::equal(shorter.begin(), shorter.end(), keep.begin()));
    auto single = make_cpu_backend(1);
    std::vector<float> again(keep.size());
    single->dropout_mask(again.data(), int64_t(again.size()), 0.3f, 42, 5);
    EXPECT_EQ(again, keep);  // and not on the number of threads
}
