// A Vulkan backend's queue (one per thread, vk_queue.cpp): kernels queued as commands with the
// ranges of memory they read and write, ordered into levels on flush (independent commands share a level, one barrier between
// levels), recorded once and submitted again while the same commands come, and the scalar
// results handed out after each submission.
#include <algorithm>
#include <cstring>
#include <map>

#include "vulkan/vk_backend_internal.h"

namespace stepformer::vk {

// A barrier between levels. The last one (to_host) makes the queue's writes visible to the host
// and to whatever runs after it on the device (the next submission's first level has no barrier
// before it). Where the device has several queues, the first one (from_other_queues) makes
// visible what another thread's submission on another queue wrote before the host handed it
// over (after that submission's fence): the barriers of one queue do not reach another's work.
void VulkanBackend::barrier(VkCommandBuffer cb, Barrier kind) {
    constexpr VkAccessFlags kDevice = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                      VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    constexpr VkPipelineStageFlags kStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = kDevice;
    VkPipelineStageFlags src = kStages, dst = kStages;
    if (kind == Barrier::ToHost) {
        mb.dstAccessMask |= VK_ACCESS_HOST_READ_BIT;
        dst |= VK_PIPELINE_STAGE_HOST_BIT;
    } else if (kind == Barrier::FromOtherQueues) {
        mb.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
        src = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    }
    vkCmdPipelineBarrier(cb, src, dst, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

void VulkanBackend::note(VkDeviceAddress lo, size_t bytes, bool write) {
    Queue& qu = q();
    if (qu.next_taken) {
        qu.next.clear();
        qu.next_taken = false;
    }
    qu.next.push_back(Access{lo, lo + bytes, write});
}

void VulkanBackend::dispatch(const char* shader, const void* args, uint32_t bytes, uint32_t gx, uint32_t gy,
                             uint32_t gz) {
    constexpr size_t kAlign = 16;  // the shaders' buffer_reference_align
    Queue& qu = q();
    if (qu.args_used + bytes > kArgsBytes) flush();
    const Context::Pipeline& p = pipeline_of(shader);
    Command c;
    c.shader = shader;
    c.pipeline = p.pipeline;
    c.layout = p.layout;
    c.groups[0] = gx, c.groups[1] = gy, c.groups[2] = gz;
    c.args = uint32_t(qu.args_used);
    std::memcpy(static_cast<char*>(qu.args.mapped) + qu.args_used, args, bytes);
    qu.args_used += (bytes + kAlign - 1) / kAlign * kAlign;
    c.first = uint32_t(qu.accesses.size());
    c.count = uint32_t(qu.next.size());
    qu.accesses.insert(qu.accesses.end(), qu.next.begin(), qu.next.end());
    qu.next_taken = true;
    mark_busy(qu);
    qu.commands.push_back(c);
}

// The shader's pipeline, by the address of its name (the kernels name their shaders with string
// literals): a step's hundreds of dispatches find theirs without building a std::string and
// searching the context's map by name under its lock. The queue held.
const Context::Pipeline& VulkanBackend::pipeline_of(const char* shader) {
    auto& pipelines = q().pipelines;
    auto [it, fresh] = pipelines.try_emplace(shader);
    if (fresh) {
        try {
            it->second = ctx_.pipeline(shader, sizeof(VkDeviceAddress));
        } catch (...) {
            pipelines.erase(it);
            throw;
        }
    }
    return it->second;
}

// A copy no shader makes (a size not a multiple of 4 bytes). The queue held.
void VulkanBackend::queue_copy(const Alloc& from, size_t from_offset, const Alloc& to, size_t to_offset, size_t bytes) {
    Queue& qu = q();
    Command c;
    c.src = from.buffer;
    c.dst = to.buffer;
    c.region = VkBufferCopy{from.offset + from_offset, to.offset + to_offset, bytes};
    c.first = uint32_t(qu.accesses.size());
    c.count = 2;
    qu.accesses.push_back(Access{from.address + from_offset, from.address + from_offset + bytes, false});
    qu.accesses.push_back(Access{to.address + to_offset, to.address + to_offset + bytes, true});
    qu.next_taken = true;
    mark_busy(qu);
    qu.commands.push_back(c);
}

// A float in the backend's memory for one scalar result, valid until the next flush. The queue held.
float* VulkanBackend::scalar_slot() {
    Queue& qu = q();
    if (qu.scalars_used == kScalarSlots) flush();
    return static_cast<float*>(qu.scalars.mapped) + qu.scalars_used++;
}

// Each command's level (in `levels`) and the commands in the order they are recorded: by level,
// in queue order within one. Ranges are compared with every earlier range they overlap; a
// command that named no memory at all is ordered after everything before it and before
// everything after it.
std::vector<uint32_t> VulkanBackend::schedule(std::vector<uint32_t>& levels) const {
    const std::vector<Command>& commands = q().commands;
    const std::vector<Access>& accesses = q().accesses;
    struct Seen {
        VkDeviceAddress hi;
        uint32_t write_level;  // 1 + the level of the last command that wrote it (0: none)
        uint32_t read_level;   // 1 + the highest level of the commands that read it
    };
    std::multimap<VkDeviceAddress, Seen> seen;  // by the range's start
    VkDeviceAddress longest = 0;                // the longest range seen: how far back an overlap may start
    levels.assign(commands.size(), 0);
    uint32_t floor = 0, top = 0;
    for (size_t i = 0; i < commands.size(); ++i) {
        const Command& c = commands[i];
        uint32_t level = floor;
        if (c.count == 0) level = std::max(level, top + 1);
        for (uint32_t k = c.first; k < c.first + c.count; ++k) {
            const Access& a = accesses[k];
            for (auto it = seen.lower_bound(a.lo > longest ? a.lo - longest : 0); it != seen.end() && it->first < a.hi; ++it) {
                if (it->second.hi <= a.lo) continue;
                level = std::max(level, it->second.write_level);
                if (a.write) level = std::max(level, it->second.read_level);
            }
        }
        for (uint32_t k = c.first; k < c.first + c.count; ++k) {
            const Access& a = accesses[k];
            auto [from, to] = seen.equal_range(a.lo);
            auto same = std::find_if(from, to, [&](const auto& e) { return e.second.hi == a.hi; });
            if (same == to) {
                same = seen.emplace(a.lo, Seen{a.hi, 0, 0});
                longest = std::max(longest, a.hi - a.lo);
            }
            if (a.write) same->second.write_level = level + 1;
            else same->second.read_level = std::max(same->second.read_level, level + 1);
        }
        if (c.count == 0) floor = level + 1;
        levels[i] = level;
        top = std::max(top, level);
    }
    std::vector<uint32_t> order(commands.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return levels[a] < levels[b]; });
    return order;
}

// Records the commands in `order`, a barrier wherever the level changes and one before the host
// reads. The queue held.
VkCommandBuffer VulkanBackend::record(const std::vector<uint32_t>& order, const std::vector<uint32_t>& levels,
                                      uint32_t& barriers) {
    Queue& qu = q();
    VkCommandBuffer cb = VK_NULL_HANDLE;
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = qu.pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    check(vkAllocateCommandBuffers(ctx_.device(), &ai, &cb), "vkAllocateCommandBuffers");
    try {
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        check(vkBeginCommandBuffer(cb, &bi), "vkBeginCommandBuffer");
        start_timing(cb);
        barriers = 0;
        if (ctx_.queue_count() > 1) {
            barrier(cb, Barrier::FromOtherQueues);
            ++barriers;
        }
        for (size_t k = 0; k < order.size(); ++k) {
            const Command& c = qu.commands[order[k]];
            if (k > 0 && levels[order[k]] != levels[order[k - 1]]) {
                barrier(cb, Barrier::Levels);
                ++barriers;
            }
            if (!c.shader) {
                vkCmdCopyBuffer(cb, c.src, c.dst, 1, &c.region);
                continue;
            }
            const bool timed = stamp_before(cb);
            const VkDeviceAddress a = qu.args.address + c.args;
            vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, c.pipeline);
            vkCmdPushConstants(cb, c.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof a, &a);
            vkCmdDispatch(cb, c.groups[0], c.groups[1], c.groups[2]);
            if (timed) stamp_after(cb, c.shader);
        }
        barrier(cb, Barrier::ToHost);
        ++barriers;
        check(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
    } catch (...) {
        vkFreeCommandBuffers(ctx_.device(), qu.pool, 1, &cb);
        throw;
    }
    count([](BackendCounters& c) { ++c.recordings; });
    return cb;
}

// Submits what the held queue has queued and waits for it, then hands the scalar results out.
void VulkanBackend::flush() {
    Queue& qu = q();
    if (!qu.commands.empty()) {
        std::vector<uint32_t> levels;
        const std::vector<uint32_t> order = schedule(levels);
        std::vector<uint64_t> key;
        key.reserve(order.size() * 4);
        uint64_t dispatches = 0;
        bool copies = false;  // a copy names buffers that may go: such a command buffer is not kept
        for (uint32_t i : order) {
            const Command& c = qu.commands[i];
            key.push_back(uint64_t(levels[i]) << 32 | c.args);
            if (c.shader) {
                ++dispatches;
                key.push_back(reinterpret_cast<uint64_t>(c.pipeline));
                key.push_back(uint64_t(c.groups[0]) << 32 | c.groups[1]);
                key.push_back(c.groups[2]);
            } else {
                copies = true;
            }
        }
        try {
            VkCommandBuffer cb = VK_NULL_HANDLE;
            uint32_t barriers = 0;
            bool replayed = false;
            if (profiling_ || copies) {  // recorded afresh, not kept (timestamps are reset in it)
                if (qu.once_cb) vkFreeCommandBuffers(ctx_.device(), qu.pool, 1, &qu.once_cb);
                qu.once_cb = VK_NULL_HANDLE;
                cb = qu.once_cb = record(order, levels, barriers);
            } else {
                auto it = std::find_if(qu.recorded.begin(), qu.recorded.end(), [&](const Recorded& r) { return r.key == key; });
                if (it == qu.recorded.end()) {
                    if (qu.recorded.size() == kRecorded) {  // the one used longest ago goes
                        auto old = std::min_element(qu.recorded.begin(), qu.recorded.end(),
                                                    [](const Recorded& a, const Recorded& b) { return a.used < b.used; });
                        vkFreeCommandBuffers(ctx_.device(), qu.pool, 1, &old->cb);
                        qu.recorded.erase(old);
                    }
                    Recorded r;
                    r.cb = record(order, levels, r.barriers);
                    r.key = std::move(key);
                    qu.recorded.push_back(std::move(r));
                    it = qu.recorded.end() - 1;
                } else {
                    replayed = true;
                }
                it->used = ++qu.submits;
                cb = it->cb;
                barriers = it->barriers;
            }
            VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
            si.commandBufferCount = 1;
            si.pCommandBuffers = &cb;
            ctx_.submit(qu.index, si, qu.fence);
            count([&](BackendCounters& c) {
                c.replays += replayed;
                ++c.submissions;
                c.dispatches += dispatches;
                c.barriers += barriers;
            });
            check(vkWaitForFences(ctx_.device(), 1, &qu.fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
            collect_timing();
        } catch (...) {
            // Whatever happened, the queue is empty afterwards: the scalar results and staging
            // buffers of a failed submission are dropped with it.
            qu.after.clear();
            qu.timed.clear();
            finished(qu);
            throw;
        }
    }
    // The scalar results first: they read memory that may have been released meanwhile.
    for (auto& f : qu.after) f();
    qu.after.clear();
    finished(qu);
}

void VulkanBackend::finished(Queue& qu) {
    if (!qu.commands.empty()) vkResetFences(ctx_.device(), 1, &qu.fence);
    qu.commands.clear();
    qu.accesses.clear();
    qu.next.clear();
    qu.next_taken = false;
    qu.args_used = 0;
    qu.scalars_used = 0;
    std::vector<std::shared_ptr<Retired>> done;
    {
        const std::lock_guard lock(qu.retire_mu);
        qu.busy = false;
        done.swap(qu.retired);
    }
    // done goes here: what no other queue still holds is recycled
}

}  // namespace stepformer::vk
