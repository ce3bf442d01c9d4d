// The Vulkan backend's counters (Backend::counters) and, with profiling on, every dispatch's
// device time from timestamp queries, summed per shader.
#include <vector>

#include "vulkan/vk_backend_internal.h"

namespace stepformer::vk {

std::optional<BackendCounters> VulkanBackend::counters() const {
    const std::lock_guard lock(mu_);
    return counts_;
}

bool VulkanBackend::set_profiling(bool on) {
    const std::lock_guard lock(mu_);
    if (on && ctx_.info().timestamp_bits == 0) return false;
    flush();  // the queries are reset when a command buffer begins: profiling starts with the next
    if (on && !queries_) {
        VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = kQueries;
        check(vkCreateQueryPool(ctx_.device(), &qi, nullptr, &queries_), "vkCreateQueryPool");
    }
    profiling_ = on;
    return true;
}

// When a command buffer begins. mu_ held.
void VulkanBackend::start_timing(VkCommandBuffer cb) {
    queries_used_ = 0;
    timed_.clear();
    if (profiling_) vkCmdResetQueryPool(cb, queries_, 0, kQueries);
}

// Before a dispatch: a timestamp once the commands before it are done. Dispatches of one level
// have no barrier between them: on a GPU that runs them together, their times overlap (lavapipe
// runs one after the other). False when not timing, or when this command buffer's queries are
// used up.
bool VulkanBackend::stamp_before(VkCommandBuffer cb) {
    if (!profiling_ || queries_used_ + 2 > kQueries) return false;
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, queries_used_);
    return true;
}

void VulkanBackend::stamp_after(VkCommandBuffer cb, const char* shader) {
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, queries_used_ + 1);
    queries_used_ += 2;
    timed_.push_back(shader);
}

// After the fence: the timestamps of the submitted command buffer, summed per shader. mu_ held.
void VulkanBackend::collect_timing() {
    if (timed_.empty()) return;
    std::vector<uint64_t> ticks(queries_used_);
    check(vkGetQueryPoolResults(ctx_.device(), queries_, 0, queries_used_, ticks.size() * sizeof(uint64_t), ticks.data(),
                                sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
    const uint32_t bits = ctx_.info().timestamp_bits;
    const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    const double ms_per_tick = double(ctx_.info().timestamp_period) * 1e-6;
    for (size_t i = 0; i < timed_.size(); ++i) {
        const uint64_t t0 = ticks[2 * i] & mask, t1 = ticks[2 * i + 1] & mask;
        counts_.device_ms[timed_[i]] += double((t1 - t0) & mask) * ms_per_tick;
        ++counts_.timed_dispatches;
    }
    timed_.clear();
    queries_used_ = 0;
}

}  // namespace stepformer::vk
