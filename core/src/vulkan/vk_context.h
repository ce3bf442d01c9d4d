// A Vulkan device for compute: instance, the chosen physical device, a logical device with up to
// kMaxQueues compute queues of one family (as many as the family has), and the compute pipelines made from the embedded shaders (spirv.h), each made
// once and kept. Kernel arguments travel as buffer device addresses in push constants, so a
// pipeline needs no descriptor sets.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace stepformer::vk {

struct DeviceInfo {
    std::string name;  // "llvmpipe (LLVM 15.0.6, 256 bits)", "NVIDIA H100 80GB HBM3"
    std::string type;  // "discrete", "integrated", "virtual", "cpu", "other"
    uint32_t api = 0;  // VK_MAKE_API_VERSION
    bool usable = false;
    std::string why;  // what is missing, when not usable
    // subgroupAdd/subgroupMax in compute shaders (the *_subgroup shaders' row reductions), and the
    // subgroup size the driver reports: a hint for sizing dispatches, the shaders do not rely on it
    bool subgroup_arithmetic = false;
    uint32_t subgroup_size = 0;
    // Timestamp queries on the compute queue: nanoseconds per tick, and the valid bits (0: none).
    float timestamp_period = 0.0f;
    uint32_t timestamp_bits = 0;
};

// The Vulkan devices this machine has; empty when there is no Vulkan loader or driver.
std::vector<DeviceInfo> list_devices();

class Context {
public:
    explicit Context(int device_index);  // throws std::runtime_error naming what failed
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    static constexpr uint32_t kMaxQueues = 4;

    VkDevice device() const { return device_; }
    // The device's queues (1 to kMaxQueues): the backend's per-thread queues share them in turn.
    uint32_t queue_count() const { return uint32_t(queues_.size()); }
    // Submits to queue i % queue_count(), under that queue's lock (Vulkan wants a queue's
    // submissions serialised by the caller; waiting for the fence is the caller's, unlocked).
    void submit(uint32_t i, const VkSubmitInfo& si, VkFence fence);
    uint32_t queue_family() const { return family_; }
    uint32_t host_memory_type() const { return host_type_; }  // host-visible, host-coherent
    // Device-local memory, not host-visible where the device has such (a discrete GPU's own
    // memory), else the host-visible type.
    uint32_t device_memory_type() const { return device_type_; }
    const DeviceInfo& info() const { return info_; }

    struct Pipeline {
        VkPipelineLayout layout = VK_NULL_HANDLE;
        VkPipeline pipeline = VK_NULL_HANDLE;
    };
    // The compute pipeline of shader `name` and its layout, with `push_bytes` of push constants;
    // made on the first call, valid while the context lives.
    Pipeline pipeline(const std::string& name, uint32_t push_bytes);

private:
    VkInstance instance_ = VK_NULL_HANDLE;
    VkPhysicalDevice phys_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    std::vector<VkQueue> queues_;
    std::mutex submit_mu_[kMaxQueues];
    uint32_t family_ = 0, host_type_ = 0, device_type_ = 0;
    DeviceInfo info_;
    std::mutex mu_;
    std::map<std::string, Pipeline> pipelines_;
};

// Throws std::runtime_error("<what>: <VkResult>") unless r is VK_SUCCESS.
void check(VkResult r, const char* what);

}  // namespace stepformer::vk
