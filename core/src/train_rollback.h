// How a run that updates its weights in place gets back the ones from before a step that
// diverged. On the CPU the alternative, a second weight buffer that each step writes its updates
// into (what a device's run keeps, and the app's, TrainOptions::divergence_guard), cost 4 more
// bytes of memory traffic a parameter every step (each of its lines read before it was
// overwritten): about a tenth of the tutorial's step. Its writes now stream past the cache
// (update_weights, isa/update.cpp), and it still costs ~2-3 ms of the ~31 (docs/cpu_speed.md).
// The price here is memory: a copy holds the optimizer state as well as the weights.
//
// Every so often the run copies its weights, its optimizer state and where its batches stood; on
// divergence it puts them back and runs the steps since again. The trainer is deterministic (its
// batches follow the seed's shuffles, its dropout masks (seed, step), its kernels split their
// work the same way on the same threads), so the replay lands on the same weights bit for bit.
// The replay checks that: each replayed step's loss must equal the one the run saw, and were one
// to differ, the copy's own weights (older, but good) are what it leaves.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <vector>

#include "stepformer/optimizer.h"
#include "stepformer/params.h"

namespace stepformer::train_detail {

// Where a step's batch comes from: its epoch, its place in the epoch's order, and the shuffler
// that orders the next epoch.
struct BatchCursor {
    int epoch = 1;  // 1-based
    int batch = 0;  // 0-based, within the epoch
    std::vector<size_t> order;
    std::mt19937_64 rng;
    // The first step's batch of a run over n examples: the rng seeded, the order 0..n-1, shuffled
    // (with `shuffle`) as every later epoch's is.
    void start(size_t n, uint64_t seed, bool shuffle);
    // To the next step's batch; a new epoch shuffles its order first (with `shuffle`).
    void next(int per_epoch, bool shuffle);

private:
    void reshuffle(bool shuffle);
};

class Rollback {
public:
    // A copy every `every_steps` steps; 0 or less: whenever the steps since the last one have
    // taken kCostRatio times as long as it did (the copies then cost the run ~2 % of its time,
    // and a replay takes about as long as kCostRatio copies).
    explicit Rollback(int every_steps) : every_(every_steps) {}

    static constexpr double kCostRatio = 50.0;

    // Whether the step about to update the weights should copy them first (always, before the
    // first copy). The run copies before its first step whatever that step's loss; after that,
    // ask only once the step's loss is known to be finite, so that a copy is never of weights a
    // later bad loss would disown (a bad loss at step N keeps the weights from before step N - 1,
    // which the copy before it still has).
    bool due() const;
    // The weights and optimizer state after `steps_done` steps, the next step's batch at `at`.
    void keep(const ParamSet& weights, const Optimizer& opt, const BatchCursor& at, int steps_done);
    // A step after the copy updated the weights; its loss (finite), and how long it took.
    void stepped(double loss, double seconds);

    // The weights and optimizer state after `target` steps (at least the copy's, at most the last
    // step that stepped()), by replaying the steps since the copy: `step(cursor, index)` runs the
    // step with 0-based index `index` on the cursor's batch, in place, and returns its loss.
    // Returns the number of steps the weights now hold: `target`, or the copy's own when a
    // replayed loss differed from the run's.
    int restore(ParamSet& weights, Optimizer& opt, int target, int per_epoch, bool shuffle,
                const std::function<double(const BatchCursor&, int)>& step) const;

private:
    int every_;
    ParamSet weights_;
    std::optional<Optimizer> opt_;
    BatchCursor at_;
    int steps_done_ = -1;          // -1: no copy yet
    std::vector<double> losses_;   // of the steps since the copy, in order
    double since_s_ = 0.0, cost_s_ = 0.0;
};

}  // namespace stepformer::train_detail
