#include "train_rollback.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <stdexcept>

namespace stepformer::train_detail {

void BatchCursor::start(size_t n, uint64_t seed, bool shuffle) {
    rng.seed(seed);
    order.resize(n);
    std::iota(order.begin(), order.end(), size_t{0});
    reshuffle(shuffle);
}

void BatchCursor::next(int per_epoch, bool shuffle) {
    if (++batch < per_epoch) return;
    batch = 0;
    ++epoch;
    reshuffle(shuffle);
}

void BatchCursor::reshuffle(bool shuffle) {
    if (shuffle) std::shuffle(order.begin(), order.end(), rng);
}

bool Rollback::due() const {
    if (steps_done_ < 0) return true;
    if (every_ > 0) return int(losses_.size()) >= every_;
    return since_s_ >= kCostRatio * cost_s_;
}

void Rollback::keep(const ParamSet& weights, const Optimizer& opt, const BatchCursor& at, int steps_done) {
    const auto t0 = std::chrono::steady_clock::now();
    weights_ = weights;  // same shapes after the first copy: the buffers are reused
    if (opt_) *opt_ = opt;
    else opt_.emplace(opt);
    at_ = at;
    steps_done_ = steps_done;
    losses_.clear();
    since_s_ = 0.0;
    cost_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void Rollback::stepped(double loss, double seconds) {
    if (steps_done_ < 0) return;
    losses_.push_back(loss);
    since_s_ += seconds;
}

int Rollback::restore(ParamSet& weights, Optimizer& opt, int target, int per_epoch, bool shuffle,
                      const std::function<double(const BatchCursor&, int)>& step) const {
    if (steps_done_ < 0 || target < steps_done_ || target > steps_done_ + int(losses_.size()))
        throw std::logic_error("Rollback::restore: step " + std::to_string(target) + " is not after the copy (step " +
                               std::to_string(steps_done_) + ", " + std::to_string(losses_.size()) + " since)");
    auto put_back = [&] {
        weights = weights_;
        opt = *opt_;
    };
    put_back();
    BatchCursor at = at_;
    for (int s = steps_done_; s < target; ++s) {
        const double loss = step(at, s);
        if (loss != losses_[size_t(s - steps_done_)]) {
            put_back();
            return steps_done_;
        }
        at.next(per_epoch, shuffle);
    }
    return target;
}

}  // namespace stepformer::train_detail
