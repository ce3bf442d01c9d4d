// The Vulkan backend's counters (Backend::counters) and, with profiling on, every dispatch's
// device time from timestamp queries, summed per shader.
#include <vector>

#include "vulkan/vk_backend_internal.h"

namespace stepformer::vk {

std::optional<BackendCounters> VulkanBackend::counters() const {
    const std::lock_guard lock(stats_mu_);
    return counts_;
}

// For every thread's queue: each times the command buffers it records from its next flush on.
bool VulkanBackend::set_profiling(bool on) {
    if (on && ctx_.info().timestamp_bits == 0) return false;
    const QueueLock lock(*this);
    flush();  // the queries are reset when a command buffer begins: profiling starts with the next
    profiling_ = on;
    return true;
}

// When a command buffer begins. The queue held.
void VulkanBackend::start_timing(VkCommandBuffer cb) {
    Queue& qu = q();
    qu.queries_used = 0;
    qu.timed.clear();
    qu.timing = profiling_;
    if (!qu.timing) return;
    if (!qu.queries) {
        VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = kQueries;
        check(vkCreateQueryPool(ctx_.device(), &qi, nullptr, &qu.queries), "vkCreateQueryPool");
    }
    vkCmdResetQueryPool(cb, qu.queries, 0, kQueries);
}

// Before a dispatch: a timestamp once the commands before it are done. Dispatches of one level
// have no barrier between them: on a GPU that runs them together, their times overlap (lavapipe
// runs one after the other). False when not timing, or when this command buffer's queries are
// used up.
bool VulkanBackend::stamp_before(VkCommandBuffer cb) {
    Queue& qu = q();
    if (!qu.timing || qu.queries_used + 2 > kQueries) return false;
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qu.queries, qu.queries_used);
    return true;
}

void VulkanBackend::stamp_after(VkCommandBuffer cb, const char* shader) {
    Queue& qu = q();
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qu.queries, qu.queries_used + 1);
    qu.queries_used += 2;
    qu.timed.push_back(shader);
}

// After the fence: the timestamps of the submitted command buffer, summed per shader. The queue held.
void VulkanBackend::collect_timing() {
    Queue& qu = q();
    if (qu.timed.empty()) return;
    std::vector<uint64_t> ticks(qu.queries_used);
    check(vkGetQueryPoolResults(ctx_.device(), qu.queries, 0, qu.queries_used, ticks.size() * sizeof(uint64_t),
                                ticks.data(), sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
    const uint32_t bits = ctx_.info().timestamp_bits;
    const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    const double ms_per_tick = double(ctx_.info().timestamp_period) * 1e-6;
    count([&](BackendCounters& c) {
        for (size_t i = 0; i < qu.timed.size(); ++i) {
            const uint64_t t0 = ticks[2 * i] & mask, t1 = ticks[2 * i + 1] & mask;
            c.device_ms[qu.timed[i]] += double((t1 - t0) & mask) * ms_per_tick;
            ++c.timed_dispatches;
        }
    });
    qu.timed.clear();
    qu.queries_used = 0;
}

}  // namespace stepformer::vk
