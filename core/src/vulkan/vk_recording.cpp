// The Vulkan backend's queue: the command buffer kernels are recorded into, submission, and the
// scalar results handed out after it.
#include "vulkan/vk_backend_internal.h"

namespace stepformer::vk {

void VulkanBackend::sync() {
    const std::lock_guard lock(mu_);
    flush();
}

void VulkanBackend::begin() {
    if (recording_) return;
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(cb_, &bi), "vkBeginCommandBuffer");
    recording_ = true;
    ++counts_.recordings;
    start_timing();
}

// Every command sees what the commands before it wrote (kernels are small; ordering is simple).
void VulkanBackend::barrier() {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                       VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                             VK_PIPELINE_STAGE_HOST_BIT,
                         0, 1, &mb, 0, nullptr, 0, nullptr);
    ++counts_.barriers;
}

void VulkanBackend::dispatch(const char* shader, const void* args, uint32_t bytes, uint32_t gx, uint32_t gy,
                             uint32_t gz) {
    VkPipeline p = ctx_.pipeline(shader, bytes);
    begin();
    const bool timed = stamp_before();
    vkCmdBindPipeline(cb_, VK_PIPELINE_BIND_POINT_COMPUTE, p);
    vkCmdPushConstants(cb_, ctx_.layout(shader), VK_SHADER_STAGE_COMPUTE_BIT, 0, bytes, args);
    vkCmdDispatch(cb_, gx, gy, gz);
    ++counts_.dispatches;
    if (timed) stamp_after(shader);
    barrier();
}

// A float in the backend's memory for one scalar result, valid until the next flush. mu_ held.
float* VulkanBackend::scalar_slot() {
    if (!scalars_) scalars_ = make(kScalarSlots * sizeof(float));
    if (scalars_used_ == kScalarSlots) flush();
    return static_cast<float*>(scalars_->mapped) + scalars_used_++;
}

// Submits what is recorded and waits for it, then hands the scalar results out. mu_ held.
void VulkanBackend::flush() {
    if (recording_) {
        recording_ = false;
        // Whatever happens, the queue is empty afterwards: the scalar results and staging
        // buffers of a failed submission are dropped with it.
        struct Reset {
            VulkanBackend& be;
            ~Reset() {
                vkResetFences(be.ctx_.device(), 1, &be.fence_);
                vkResetCommandBuffer(be.cb_, 0);
            }
        } reset{*this};
        try {
            check(vkEndCommandBuffer(cb_), "vkEndCommandBuffer");
            VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
            si.commandBufferCount = 1;
            si.pCommandBuffers = &cb_;
            check(vkQueueSubmit(ctx_.queue(), 1, &si, fence_), "vkQueueSubmit");
            ++counts_.submissions;
            check(vkWaitForFences(ctx_.device(), 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
            collect_timing();
        } catch (...) {
            after_.clear();
            timed_.clear();
            scalars_used_ = 0;
            throw;
        }
    }
    // The scalar results first: they read memory that may have been released meanwhile.
    for (auto& f : after_) f();
    after_.clear();
    scalars_used_ = 0;
    for (const Alloc& a : retired_) recycle(a);
    retired_.clear();
}

}  // namespace stepformer::vk
