// The Vulkan backend's queues: one per thread that queues kernels, so that the GUI thread, a
// view's worker and a training run each record, submit and wait for their own work without
// holding the others up (backend.h: "a backend with a queue keeps one per thread").
#include <algorithm>

#include "vulkan/vk_backend_internal.h"

namespace stepformer::vk {

thread_local VulkanBackend::Queue* VulkanBackend::held_ = nullptr;

VulkanBackend::QueueLock::QueueLock(VulkanBackend& be) : q_(&be.acquire()), outer_(held_) { held_ = q_; }

VulkanBackend::QueueLock::~QueueLock() {
    held_ = outer_;
    q_->mu.unlock();
}

VulkanBackend::Retired::~Retired() {
    const std::lock_guard lock(be->mem_mu_);
    be->recycle(a);
}

// The calling thread's queue, locked: the one it used last while that is still its own (the
// usual case: one lock, no search); else a new one, or, once there are kQueues, the idle one
// taken longest ago. A queue with commands queued stays with its thread, so a thread's kernels are
// never split across two queues. A thread whose idle queue passed to another takes another.
VulkanBackend::Queue& VulkanBackend::acquire() {
    struct Mine {
        uint64_t backend = 0;
        Queue* queue = nullptr;
    };
    thread_local Mine mine;
    const std::thread::id me = std::this_thread::get_id();
    if (mine.backend == id_ && mine.queue->owner.load() == me) {
        Queue* q = mine.queue;
        q->mu.lock();  // others hold it only for a moment (a search) unless they took it over
        if (q->owner.load() == me) return *q;
        q->mu.unlock();
    }
    const std::lock_guard lock(queues_mu_);
    Queue* pick = nullptr;
    if (queues_.size() >= kQueues) {
        for (const auto& q : queues_) {
            if (!q->mu.try_lock()) continue;  // in use: not idle
            const bool idle = q->commands.empty() && q->after.empty();
            if (idle && (!pick || q->last_used < pick->last_used)) {
                if (pick) pick->mu.unlock();
                pick = q.get();
            } else {
                q->mu.unlock();
            }
        }
    }
    if (!pick) {
        queues_.push_back(make_queue(uint32_t(queues_.size())));
        pick = queues_.back().get();
        pick->mu.lock();
    }
    pick->owner = me;
    pick->last_used = ++queue_uses_;
    mine = Mine{id_, pick};
    return *pick;
}

std::unique_ptr<VulkanBackend::Queue> VulkanBackend::make_queue(uint32_t index) {
    auto q = std::make_unique<Queue>();
    q->index = index;
    try {
        VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        pci.queueFamilyIndex = ctx_.queue_family();
        check(vkCreateCommandPool(ctx_.device(), &pci, nullptr, &q->pool), "vkCreateCommandPool");
        VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        check(vkCreateFence(ctx_.device(), &fci, nullptr, &q->fence), "vkCreateFence");
        const std::lock_guard lock(mem_mu_);
        q->args = make(kArgsBytes);
        q->scalars = make(kScalarSlots * sizeof(float));
    } catch (...) {
        destroy_queue(*q);
        throw;
    }
    return q;
}

// Its Vulkan objects and buffers; what it had queued is dropped (the backend is going).
void VulkanBackend::destroy_queue(Queue& q) {
    q.after.clear();
    q.retired.clear();  // recycled into the pool, which the backend frees next
    const std::lock_guard lock(mem_mu_);
    if (q.args.buffer) destroy(q.args);
    if (q.scalars.buffer) destroy(q.scalars);
    if (q.queries) vkDestroyQueryPool(ctx_.device(), q.queries, nullptr);
    if (q.fence) vkDestroyFence(ctx_.device(), q.fence, nullptr);
    if (q.pool) vkDestroyCommandPool(ctx_.device(), q.pool, nullptr);  // and the command buffers recorded
}

// The held queue has a command: memory released from now on waits for its flush.
void VulkanBackend::mark_busy(Queue& q) {
    if (!q.commands.empty()) return;
    const std::lock_guard lock(q.retire_mu);
    q.busy = true;
}

VulkanBackend::Alloc VulkanBackend::scratch(size_t bytes) {
    std::shared_ptr<Retired> r;
    {
        const std::lock_guard lock(mem_mu_);
        r = std::make_shared<Retired>(this, obtain(bytes, true));
    }
    Queue& queue = q();
    const std::lock_guard lock(queue.retire_mu);
    queue.retired.push_back(r);
    return r->a;
}

// Memory no kernel queued from now on may use: back to the pool now, or, while a queue has
// commands that may still read it (queued by any thread), after that queue's flush.
void VulkanBackend::release(void* p) {
    if (!p) return;
    std::shared_ptr<Retired> r;  // declared first: recycled (under mem_mu_) after the locks below
    {
        const std::lock_guard lock(mem_mu_);
        auto it = allocs_.find(reinterpret_cast<uintptr_t>(p));
        if (it == allocs_.end()) throw std::logic_error("gpu: release of memory the backend did not allocate");
        const Alloc a = it->second;
        allocs_.erase(it);
        r = std::make_shared<Retired>(this, a);
    }
    const std::lock_guard lock(queues_mu_);
    for (const auto& q : queues_) {
        const std::lock_guard busy(q->retire_mu);
        if (q->busy) q->retired.push_back(r);
    }
}

void VulkanBackend::sync() {
    const QueueLock lock(*this);
    flush();
}

}  // namespace stepformer::vk
