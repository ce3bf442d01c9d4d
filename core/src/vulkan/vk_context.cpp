#include "vulkan/vk_context.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "vulkan/spirv.h"

namespace stepformer::vk {

void check(VkResult r, const char* what) {
    if (r != VK_SUCCESS) throw std::runtime_error(std::string(what) + " failed (VkResult " + std::to_string(int(r)) + ")");
}

namespace {

VkInstance make_instance() {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "stepformer";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;
    // STEPFORMER_VK_VALIDATION=1: the Khronos validation layer, where it is installed.
    const char* layer = "VK_LAYER_KHRONOS_validation";
    if (const char* v = std::getenv("STEPFORMER_VK_VALIDATION"); v && std::strcmp(v, "1") == 0) {
        ci.enabledLayerCount = 1;
        ci.ppEnabledLayerNames = &layer;
    }
    VkInstance inst = VK_NULL_HANDLE;
    if (vkCreateInstance(&ci, nullptr, &inst) != VK_SUCCESS) return VK_NULL_HANDLE;
    return inst;
}

const char* type_name(VkPhysicalDeviceType t) {
    switch (t) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
        default: return "other";
    }
}

int compute_family(VkPhysicalDevice d) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d, &n, nullptr);
    std::vector<VkQueueFamilyProperties> f(n);
    vkGetPhysicalDeviceQueueFamilyProperties(d, &n, f.data());
    for (uint32_t i = 0; i < n; ++i)
        if (f[i].queueFlags & VK_QUEUE_COMPUTE_BIT) return int(i);
    return -1;
}

DeviceInfo describe(VkPhysicalDevice d) {
    VkPhysicalDeviceProperties p{};
    vkGetPhysicalDeviceProperties(d, &p);
    DeviceInfo info;
    info.name = p.deviceName;
    info.type = type_name(p.deviceType);
    info.api = p.apiVersion;
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f.pNext = &f12;
    if (p.apiVersion >= VK_API_VERSION_1_2) vkGetPhysicalDeviceFeatures2(d, &f);
    if (p.apiVersion < VK_API_VERSION_1_2)
        info.why = "Vulkan 1.2 is needed";
    else if (!f12.bufferDeviceAddress)
        info.why = "no buffer device addresses";
    else if (!f.features.shaderInt64)
        info.why = "no 64-bit integers in shaders";
    else if (compute_family(d) < 0)
        info.why = "no compute queue";
    info.usable = info.why.empty();
    return info;
}

std::vector<VkPhysicalDevice> physical_devices(VkInstance inst) {
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(inst, &n, nullptr);
    std::vector<VkPhysicalDevice> d(n);
    vkEnumeratePhysicalDevices(inst, &n, d.data());
    return d;
}

}  // namespace

std::vector<DeviceInfo> list_devices() {
    VkInstance inst = make_instance();
    if (!inst) return {};
    std::vector<DeviceInfo> out;
    for (VkPhysicalDevice d : physical_devices(inst)) out.push_back(describe(d));
    vkDestroyInstance(inst, nullptr);
    return out;
}

int best_device(const std::vector<DeviceInfo>& devices) {
    const char* order[] = {"discrete", "integrated", "virtual", "other", "cpu"};
    for (const char* t : order)
        for (size_t i = 0; i < devices.size(); ++i)
            if (devices[i].usable && devices[i].type == t) return int(i);
    return -1;
}

Context::Context(int device_index) {
    instance_ = make_instance();
    if (!instance_) throw std::runtime_error("no Vulkan instance (is a Vulkan driver installed?)");
    try {
        const auto devs = physical_devices(instance_);
        if (device_index < 0 || size_t(device_index) >= devs.size())
            throw std::runtime_error("no Vulkan device " + std::to_string(device_index));
        phys_ = devs[size_t(device_index)];
        info_ = describe(phys_);
        if (!info_.usable) throw std::runtime_error("the Vulkan device " + info_.name + " cannot be used: " + info_.why);
        family_ = uint32_t(compute_family(phys_));

        const float priority = 1.0f;
        VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        q.queueFamilyIndex = family_;
        q.queueCount = 1;
        q.pQueuePriorities = &priority;
        VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
        f12.bufferDeviceAddress = VK_TRUE;
        VkPhysicalDeviceFeatures2 f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
        f.pNext = &f12;
        f.features.shaderInt64 = VK_TRUE;
        VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
        dci.pNext = &f;
        dci.queueCreateInfoCount = 1;
        dci.pQueueCreateInfos = &q;
        check(vkCreateDevice(phys_, &dci, nullptr, &device_), "vkCreateDevice");
        vkGetDeviceQueue(device_, family_, 0, &queue_);

        VkPhysicalDeviceMemoryProperties mp{};
        vkGetPhysicalDeviceMemoryProperties(phys_, &mp);
        const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        host_type_ = UINT32_MAX;
        for (uint32_t i = 0; i < mp.memoryTypeCount && host_type_ == UINT32_MAX; ++i)
            if ((mp.memoryTypes[i].propertyFlags & want) == want) host_type_ = i;
        if (host_type_ == UINT32_MAX) throw std::runtime_error("the Vulkan device has no host-visible memory");
    } catch (...) {
        if (device_) vkDestroyDevice(device_, nullptr);
        vkDestroyInstance(instance_, nullptr);
        throw;
    }
}

Context::~Context() {
    vkDeviceWaitIdle(device_);
    for (auto& [name, p] : pipelines_) {
        vkDestroyPipeline(device_, p.pipeline, nullptr);
        vkDestroyPipelineLayout(device_, p.layout, nullptr);
    }
    vkDestroyDevice(device_, nullptr);
    vkDestroyInstance(instance_, nullptr);
}

VkPipeline Context::pipeline(const std::string& name, uint32_t push_bytes) {
    const std::lock_guard lock(mu_);
    if (auto it = pipelines_.find(name); it != pipelines_.end()) return it->second.pipeline;
    const std::vector<uint32_t> code = spirv(name);
    if (code.empty()) throw std::logic_error("no shader '" + name + "' in the library");
    VkShaderModuleCreateInfo sm{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    sm.codeSize = code.size() * 4;
    sm.pCode = code.data();
    VkShaderModule module = VK_NULL_HANDLE;
    check(vkCreateShaderModule(device_, &sm, nullptr, &module), "vkCreateShaderModule");
    Pipeline p;
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
    VkPipelineLayoutCreateInfo lci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    lci.pushConstantRangeCount = 1;
    lci.pPushConstantRanges = &range;
    VkResult r = vkCreatePipelineLayout(device_, &lci, nullptr, &p.layout);
    if (r == VK_SUCCESS) {
        VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
        ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        ci.stage.module = module;
        ci.stage.pName = "main";
        ci.layout = p.layout;
        r = vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &ci, nullptr, &p.pipeline);
    }
    vkDestroyShaderModule(device_, module, nullptr);
    check(r, "creating the compute pipeline");
    pipelines_[name] = p;
    return p.pipeline;
}

}  // namespace stepformer::vk
