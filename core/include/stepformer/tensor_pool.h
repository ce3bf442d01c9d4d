// Float buffers a pass no longer needs, kept for a later tensor of the same size: a training
// step makes the same tensors as the step before it, and a kernel that writes all of its output
// need not have it zero-filled first (at batch 8 x length 256 the fills were ~6 % of a step, and
// the fresh pages' faults more). Held by a Trace (Trace::pool), so reuse spans its passes.
//
// A buffer is matched by its number of floats only; what it holds is whatever was there. Take
// one only for a kernel that overwrites every element (Staging::out), never for one the pass
// zeroes on the host (Staging::zeros on the CPU relies on a fresh tensor's zeros).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "stepformer/tensor.h"

namespace stepformer {

class TensorPool {
public:
    // At most `cap_bytes` kept; past it a buffer given is freed as before.
    explicit TensorPool(size_t cap_bytes = kDefaultCap) : cap_(cap_bytes) {}
    // A copy starts empty and off (its owner is a copy of a trace, whose buffers are its own).
    TensorPool(const TensorPool& o) : cap_(o.cap_) {}
    TensorPool& operator=(const TensorPool&) { return *this; }
    TensorPool(TensorPool&&) noexcept = default;
    TensorPool& operator=(TensorPool&&) noexcept = default;

    // Off (the default, and on a backend with its own memory, whose host tensors a pass may leave
    // unwritten): nothing is kept, and what was kept goes.
    void set_enabled(bool on) {
        enabled_ = on;
        if (!on) clear();
    }
    bool enabled() const { return enabled_; }
    // Keeps v's storage when the pool is on and has room (v is left empty either way).
    void give(std::vector<float>& v);
    void give(Tensor& t) { give(t.data); }
    // A tensor of shape s: a kept buffer of its size, its contents stale (NaN while poisoned), or
    // a fresh zero-filled one (always, while off).
    Tensor take(Shape s);

    size_t bytes() const { return bytes_; }
    void clear();

    // Tests, for every pool in the process: Poison fills each buffer taken with NaN, so that a
    // kernel that reads its output before writing all of it shows; Off keeps nothing (the engine
    // as it was without pools).
    enum class TestMode { Normal, Poison, Off };
    static void set_test_mode(TestMode m);
    // Buffers lent by every pool in the process so far.
    static uint64_t lent_total();

    static constexpr size_t kDefaultCap = size_t(1) << 30;

private:
    std::unordered_map<size_t, std::vector<std::vector<float>>> free_;  // by number of floats
    size_t bytes_ = 0;
    size_t cap_;
    bool enabled_ = false;
};

}  // namespace stepformer
