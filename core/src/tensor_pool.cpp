#include "stepformer/tensor_pool.h"

#include <algorithm>
#include <atomic>
#include <limits>

namespace stepformer {
namespace {
std::atomic<TensorPool::TestMode> g_test_mode{TensorPool::TestMode::Normal};
std::atomic<uint64_t> g_lent{0};
}  // namespace

void TensorPool::set_test_mode(TestMode m) { g_test_mode.store(m); }
uint64_t TensorPool::lent_total() { return g_lent.load(std::memory_order_relaxed); }

void TensorPool::give(std::vector<float>& v) {
    const size_t n = v.size(), b = n * sizeof(float);
    if (!enabled_ || n == 0 || v.capacity() != n || bytes_ + b > cap_ || g_test_mode.load() == TestMode::Off) {
        std::vector<float>().swap(v);
        return;
    }
    free_[n].push_back(std::move(v));
    bytes_ += b;
    std::vector<float>().swap(v);  // a moved-from vector is empty; say so
}

Tensor TensorPool::take(Shape s) {
    const size_t n = size_t(numel(s));
    auto it = free_.find(n);
    if (!enabled_ || it == free_.end() || it->second.empty()) return Tensor(std::move(s));
    std::vector<float> v = std::move(it->second.back());
    it->second.pop_back();
    bytes_ -= n * sizeof(float);
    g_lent.fetch_add(1, std::memory_order_relaxed);
    if (g_test_mode.load() == TestMode::Poison) std::fill(v.begin(), v.end(), std::numeric_limits<float>::quiet_NaN());
    return Tensor(std::move(s), std::move(v));
}

void TensorPool::clear() {
    free_.clear();
    bytes_ = 0;
}

}  // namespace stepformer
