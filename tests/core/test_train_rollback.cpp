// The trainer's way back from a diverging step on the CPU (core/src/train_rollback.h): a copy of
// the weights, the optimizer state and the batch cursor, and a replay of the steps since.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "../../core/src/train_rollback.h"

using namespace stepformer;
using train_detail::BatchCursor;
using train_detail::Rollback;

namespace {

ParamSet one_param(std::vector<float> values) {
    ParamSet p({ParamSpec{"w", Shape{int64_t(values.size())}, ParamSpec::Init::Zeros}});
    p[0].data = std::move(values);
    return p;
}

BatchCursor cursor(int examples, uint64_t seed) {
    BatchCursor c;
    c.rng.seed(seed);
    c.order.resize(size_t(examples));
    std::iota(c.order.begin(), c.order.end(), size_t{0});
    std::shuffle(c.order.begin(), c.order.end(), c.rng);
    return c;
}

// A stand-in for a training step: moves the weights by an amount that depends on the step's
// batch (its first example) and index, takes an optimizer step, and returns a "loss" read from
// the weights. Checks on the way that the optimizer has the step count of the weights it sees.
struct FakeStep {
    ParamSet& w;
    Optimizer& opt;
    double operator()(const BatchCursor& c, int index) {
        EXPECT_EQ(opt.step_count(), index) << "the optimizer's state goes back with the weights";
        opt.begin_step();
        const float shift = 0.25f * float(c.order[size_t(c.batch) * 2]) + 0.01f * float(index);
        for (float& v : w[0].data) v = v * 0.5f + shift;
        return double(w[0].data[0]) + double(w[0].data[1]);
    }
};

}  // namespace

TEST(TrainRollback, ReplaysToTheStepAskedBitForBit) {
    const int per_epoch = 3, examples = 6;  // batches of two
    ParamSet w = one_param({1.0f, -2.0f, 3.0f});
    Optimizer opt(OptimizerOptions{}, w);
    FakeStep step{w, opt};
    Rollback rb(/*every_steps=*/4);
    BatchCursor at = cursor(examples, 11);
    std::vector<ParamSet> after;  // after[k]: the weights after k steps
    after.push_back(w);
    for (int k = 0; k < 9; ++k) {
        if (rb.due()) rb.keep(w, opt, at, k);
        const double loss = step(at, k);
        rb.stepped(loss, 0.001);
        after.push_back(w);
        at.next(per_epoch, /*shuffle=*/true);
    }
    // Copies at steps 0, 4 and 8: the last one is the start of any replay now.
    for (int target : {8, 9}) {
        const int got = rb.restore(w, opt, target, per_epoch, true, step);
        EXPECT_EQ(got, target);
        EXPECT_EQ(w[0].data, after[size_t(target)][0].data) << "target " << target;
        EXPECT_EQ(opt.step_count(), target);
    }
    EXPECT_THROW(rb.restore(w, opt, 7, per_epoch, true, step), std::logic_error);   // before the copy
    EXPECT_THROW(rb.restore(w, opt, 10, per_epoch, true, step), std::logic_error);  // after the last step
}

TEST(TrainRollback, ReplaysAcrossEpochsWithTheirShuffles) {
    const int per_epoch = 2, examples = 4;
    ParamSet w = one_param({0.5f, 0.5f});
    Optimizer opt(OptimizerOptions{}, w);
    FakeStep step{w, opt};
    Rollback rb(/*every_steps=*/0);  // by time: only the first step's copy, as the steps take no time
    BatchCursor at = cursor(examples, 5);
    std::vector<ParamSet> after{w};
    for (int k = 0; k < 7; ++k) {
        if (rb.due()) rb.keep(w, opt, at, k);
        rb.stepped(step(at, k), 0.0);
        after.push_back(w);
        at.next(per_epoch, true);
    }
    EXPECT_EQ(at.epoch, 4);
    for (int target = 0; target <= 7; ++target) {
        EXPECT_EQ(rb.restore(w, opt, target, per_epoch, true, step), target);
        EXPECT_EQ(w[0].data, after[size_t(target)][0].data) << "target " << target;
    }
}

TEST(TrainRollback, AReplayThatDiffersKeepsTheCopysWeights) {
    ParamSet w = one_param({1.0f, 1.0f});
    Optimizer opt(OptimizerOptions{}, w);
    FakeStep step{w, opt};
    Rollback rb(0);
    BatchCursor at = cursor(4, 1);
    for (int k = 0; k < 3; ++k) {
        if (rb.due()) rb.keep(w, opt, at, k);
        rb.stepped(step(at, k) + (k == 1 ? 1e-9 : 0.0), 0.0);  // the run saw another loss at step 2
        at.next(2, true);
    }
    EXPECT_EQ(rb.restore(w, opt, 3, 2, true, step), 0);
    EXPECT_EQ(w[0].data, (std::vector<float>{1.0f, 1.0f}));
    EXPECT_EQ(opt.step_count(), 0);
}

TEST(TrainRollback, CopiesAsOftenAsAskedOrAsTheirCostAllows) {
    ParamSet w = one_param({1.0f});
    Optimizer opt(OptimizerOptions{}, w);
    const BatchCursor at = cursor(2, 0);
    Rollback every(3);
    EXPECT_TRUE(every.due());  // the first step always copies
    every.keep(w, opt, at, 0);
    for (int k = 0; k < 3; ++k) {
        EXPECT_FALSE(every.due());
        every.stepped(1.0, 100.0);
    }
    EXPECT_TRUE(every.due());

    Rollback by_time(0);
    by_time.keep(w, opt, at, 0);  // a copy of one float: microseconds
    EXPECT_FALSE(by_time.due());
    by_time.stepped(1.0, 1.0);  // a second of steps is far more than 50 such copies
    EXPECT_TRUE(by_time.due());
}

TEST(TrainRollback, TheCursorShufflesEachNewEpochFromTheSameGenerator) {
    BatchCursor c = cursor(5, 42);
    std::mt19937_64 rng(42);
    std::vector<size_t> order(5);
    std::iota(order.begin(), order.end(), size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    EXPECT_EQ(c.order, order);
    c.next(2, true);
    EXPECT_EQ(c.epoch, 1);
    EXPECT_EQ(c.batch, 1);
    EXPECT_EQ(c.order, order);
    c.next(2, true);
    std::shuffle(order.begin(), order.end(), rng);
    EXPECT_EQ(c.epoch, 2);
    EXPECT_EQ(c.batch, 0);
    EXPECT_EQ(c.order, order);
    c.next(2, false);
    c.next(2, false);
    EXPECT_EQ(c.epoch, 3);
    EXPECT_EQ(c.order, order);  // without shuffling the order stays
}
