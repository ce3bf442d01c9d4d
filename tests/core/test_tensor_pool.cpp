// stepformer/tensor_pool.h: a trace keeps the buffers its passes free and lends them, unfilled, to
// the next tensors of the same size. The pool itself (what it keeps, for how long, how much), and
// the engine's use of it: a pass whose every fresh tensor starts as NaN computes the same numbers,
// bit for bit, as a pass whose tensors all start as zeros, for every model family, forward and
// training (dropout on).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "stepformer/dataset.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "stepformer/tensor_pool.h"
#include "stepformer/train.h"

using namespace stepformer;

namespace {

// Sets the process's test mode for the scope.
struct PoolMode {
    explicit PoolMode(TensorPool::TestMode m) { TensorPool::set_test_mode(m); }
    ~PoolMode() { TensorPool::set_test_mode(TensorPool::TestMode::Normal); }
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST(TensorPool, LendsAKeptBufferOfTheSameSizeOnly) {
    TensorPool pool;
    pool.set_enabled(true);
    Tensor t({4, 8}, 3.0f);
    const float* storage = t.ptr();
    pool.give(t);
    EXPECT_TRUE(t.data.empty());
    EXPECT_EQ(pool.bytes(), 32 * sizeof(float));

    const Tensor other = pool.take({5, 8});  // another size: fresh zeros
    EXPECT_NE(other.ptr(), storage);
    EXPECT_EQ(other.data, std::vector<float>(40, 0.0f));
    EXPECT_EQ(pool.bytes(), 32 * sizeof(float));

    const Tensor again = pool.take({8, 4});  // the same number of floats: the kept buffer, unfilled
    EXPECT_EQ(again.ptr(), storage);
    EXPECT_EQ(again.shape, (Shape{8, 4}));
    EXPECT_EQ(again.data, std::vector<float>(32, 3.0f));
    EXPECT_EQ(pool.bytes(), 0u);
}

TEST(TensorPool, KeepsNothingWhenOffOrFull) {
    TensorPool off;  // off until a pass turns it on
    Tensor a({16});
    off.give(a);
    EXPECT_TRUE(a.data.empty());
    EXPECT_EQ(off.bytes(), 0u);

    TensorPool small(100 * sizeof(float));
    small.set_enabled(true);
    Tensor b({60}), c({60});
    small.give(b);
    small.give(c);  // past the cap: freed
    EXPECT_EQ(small.bytes(), 60 * sizeof(float));
    small.set_enabled(false);  // turning it off lets go of what it kept
    EXPECT_EQ(small.bytes(), 0u);
}

TEST(TensorPool, ACopyOfATraceStartsWithoutItsBuffers) {
    Trace t;
    t.pool.set_enabled(true);
    Tensor a({64});
    t.pool.give(a);
    const Trace copy = t;
    EXPECT_EQ(copy.pool.bytes(), 0u);
    EXPECT_FALSE(copy.pool.enabled());
    EXPECT_EQ(t.pool.bytes(), 64 * sizeof(float));
}

TEST(TensorPool, PoisonFillsWhatItLends) {
    const PoolMode poison(TensorPool::TestMode::Poison);
    TensorPool pool;
    pool.set_enabled(true);
    Tensor a({8}, 1.0f);
    pool.give(a);
    const Tensor b = pool.take({8});
    for (float v : b.data) EXPECT_TRUE(std::isnan(v));
}

class PoolPerModel : public ::testing::TestWithParam<int> {
protected:
    static Config config(int which) {
        Config c = which == 0 ? Config::small() : which == 1 ? Config::torch_small() : which == 2 ? Config::aiayn_small() : Config::gpt_small();
        c.dropout = 0.1;  // the dropout paths' tensors too
        return c;
    }
};

// A traced forward pass, twice on one trace (the second takes the first's buffers), against the
// same pass with no pool: every entry and every saved tensor the same bits.
TEST_P(PoolPerModel, AForwardOnLentBuffersComputesWhatOneOnZerosDoes) {
    const Config c = config(GetParam());
    const Transformer model(c, init_params(c, 3));
    const std::vector<Example> data = builtin_examples(c);
    std::vector<size_t> all(data.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    const Batch batch = make_training_batch(c, data, all);
    ForwardOptions fo;
    fo.train = true;  // dropout's masks and dropped copies
    fo.seed = 5;

    Trace zeros;
    {
        const PoolMode off(TensorPool::TestMode::Off);
        model.forward(batch, zeros, fo);
    }
    Trace lent;
    {
        const PoolMode poison(TensorPool::TestMode::Poison);
        model.forward(batch, lent, fo);
        const uint64_t before = TensorPool::lent_total();
        model.forward(batch, lent, fo);
        EXPECT_GE(TensorPool::lent_total() - before, lent.size() / 2);  // most of its tensors were lent
    }
    ASSERT_EQ(lent.size(), zeros.size());
    for (size_t i = 0; i < zeros.size(); ++i) {
        const TraceEntry &a = zeros.entries()[i], &b = lent.entries()[i];
        ASSERT_EQ(a.name, b.name);
        EXPECT_TRUE(same_bits(a.value.data, b.value.data)) << a.name;
        EXPECT_TRUE(same_bits(a.saved.mean.data, b.saved.mean.data)) << a.name;
        EXPECT_TRUE(same_bits(a.saved.rstd.data, b.saved.rstd.data)) << a.name;
        EXPECT_TRUE(same_bits(a.saved.keep.data, b.saved.keep.data)) << a.name;
        EXPECT_TRUE(same_bits(a.saved.dropped.data, b.saved.dropped.data)) << a.name;
        EXPECT_TRUE(same_bits(a.saved.merged.data, b.saved.merged.data)) << a.name;
    }
}

// A training run (lean passes: the backward's freed buffers feed the next step's forward) on
// lent, NaN-filled buffers ends with the weights of a run on zero-filled ones, bit for bit.
TEST_P(PoolPerModel, TrainingOnLentBuffersEndsWithTheSameWeights) {
    const Config c = config(GetParam());
    TrainOptions to;
    to.epochs = 3;
    to.seed = 7;
    const auto run = [&](TensorPool::TestMode mode, std::vector<double>* losses) {
        const PoolMode m(mode);
        Transformer model(c, init_params(c, 3));
        Trainer trainer(model, builtin_examples(c), to);
        const TrainResult r = trainer.run([&](const StepReport& s) { losses->push_back(s.loss); });
        EXPECT_EQ(r.status, TrainStatus::Finished) << r.message;
        return model.params();
    };
    std::vector<double> zero_losses, lent_losses;
    const ParamSet zeros = run(TensorPool::TestMode::Off, &zero_losses);
    const uint64_t before = TensorPool::lent_total();
    const ParamSet lent = run(TensorPool::TestMode::Poison, &lent_losses);
    EXPECT_GT(TensorPool::lent_total() - before, 10 * zero_losses.size());  // tens a step
    ASSERT_FALSE(zero_losses.empty());
    EXPECT_EQ(lent_losses, zero_losses);
    ASSERT_EQ(lent.size(), zeros.size());
    for (size_t i = 0; i < zeros.size(); ++i) EXPECT_TRUE(same_bits(zeros[i].data, lent[i].data)) << i;
}

std::string pool_test_family(const ::testing::TestParamInfo<int>& i) {
    static const char* const names[] = {"Tutorial", "TorchLayers", "Aiayn", "Gpt"};
    return names[i.param];
}

INSTANTIATE_TEST_SUITE_P(Families, PoolPerModel, ::testing::Values(0, 1, 2, 3), pool_test_family);
