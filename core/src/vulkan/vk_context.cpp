#include "vulkan/vk_context.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "stepformer/devices.h"
#include "vulkan/spirv.h"

namespace stepformer::vk {

void check(VkResult r, const char* what) {
    if (r == VK_SUCCESS) return;
    if (r == VK_ERROR_DEVICE_LOST)
        throw DeviceLost(Message(Msg::gpu_device_lost, {what}));
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
        throw Error(Message(Msg::gpu_out_of_memory, {what}));
    throw Error(Message(Msg::gpu_call_failed, {what, int(r)}));
}

namespace {

// Never destroyed: a backend kept in a static (the CLI's) is destroyed at exit, maybe after
// these would have been.
std::mutex& messengers_mu() {
    static auto* mu = new std::mutex;
    return *mu;
}
std::map<VkInstance, VkDebugUtilsMessengerEXT>& messengers() {
    static auto* m = new std::map<VkInstance, VkDebugUtilsMessengerEXT>;
    return *m;
}

bool validating() {
    const char* v = std::getenv("STEPFORMER_VK_VALIDATION");
    return v && std::strcmp(v, "1") == 0;
}

// Any message of the validation layer is a defect: say it and stop (the tests run with it on).
VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
    std::fprintf(stderr, "Vulkan validation: %s\n", data && data->pMessage ? data->pMessage : "(no message)");
    std::abort();
}

// STEPFORMER_VK_VALIDATION=1: the Khronos validation layer, its warnings and errors fatal (the
// messenger rides on the create info, so instance creation and destruction are checked too).
VkInstance make_instance() {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "stepformer";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;
    const char* layer = "VK_LAYER_KHRONOS_validation";
    const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkDebugUtilsMessengerCreateInfoEXT messenger{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messenger.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    messenger.pfnUserCallback = &on_validation_message;
    if (validating()) {
        ci.enabledLayerCount = 1;
        ci.ppEnabledLayerNames = &layer;
        ci.enabledExtensionCount = 1;
        ci.ppEnabledExtensionNames = &ext;
        ci.pNext = &messenger;
    }
    VkInstance inst = VK_NULL_HANDLE;
    if (vkCreateInstance(&ci, nullptr, &inst) != VK_SUCCESS) {
        if (!validating()) return VK_NULL_HANDLE;  // no loader or no driver: no devices
        // Without the layer: if that works, the layer is what is missing.
        VkInstanceCreateInfo plain{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        plain.pApplicationInfo = &app;
        if (vkCreateInstance(&plain, nullptr, &inst) != VK_SUCCESS) return VK_NULL_HANDLE;
        vkDestroyInstance(inst, nullptr);
        std::fprintf(stderr, "STEPFORMER_VK_VALIDATION=1 but the validation layer could not be loaded "
                             "(apt-get install vulkan-validationlayers)\n");
        std::abort();
    }
    if (validating()) {
        // The one on the create info covers only vkCreateInstance and vkDestroyInstance.
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(inst, "vkCreateDebugUtilsMessengerEXT"));
        VkDebugUtilsMessengerEXT m = VK_NULL_HANDLE;
        if (!create || create(inst, &messenger, nullptr, &m) != VK_SUCCESS) {
            std::fprintf(stderr, "STEPFORMER_VK_VALIDATION=1 but no debug messenger could be made\n");
            std::abort();
        }
        const std::lock_guard lock(messengers_mu());
        messengers()[inst] = m;
    }
    return inst;
}

void destroy_instance(VkInstance inst) {
    VkDebugUtilsMessengerEXT m = VK_NULL_HANDLE;
    {
        const std::lock_guard lock(messengers_mu());
        if (auto it = messengers().find(inst); it != messengers().end()) {
            m = it->second;
            messengers().erase(it);
        }
    }
    if (m) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(inst, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(inst, m, nullptr);
    }
    vkDestroyInstance(inst, nullptr);
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

std::vector<VkQueueFamilyProperties> queue_families(VkPhysicalDevice d) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d, &n, nullptr);
    std::vector<VkQueueFamilyProperties> f(n);
    vkGetPhysicalDeviceQueueFamilyProperties(d, &n, f.data());
    return f;
}

int compute_family(VkPhysicalDevice d) {
    const auto f = queue_families(d);
    for (size_t i = 0; i < f.size(); ++i)
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
    if (const int family = compute_family(d); family >= 0) {
        info.timestamp_bits = queue_families(d)[size_t(family)].timestampValidBits;
        info.timestamp_period = p.limits.timestampPeriod;
    }
    if (p.apiVersion >= VK_API_VERSION_1_1) {
        VkPhysicalDeviceSubgroupProperties sg{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
        VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        p2.pNext = &sg;
        vkGetPhysicalDeviceProperties2(d, &p2);
        const VkSubgroupFeatureFlags ops = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
        info.subgroup_arithmetic =
            (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) && (sg.supportedOperations & ops) == ops && sg.subgroupSize > 0;
        info.subgroup_size = sg.subgroupSize;
    }
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
    destroy_instance(inst);
    return out;
}

Context::Context(int device_index) {
    instance_ = make_instance();
    if (!instance_) throw Error(Message(Msg::gpu_no_instance));
    try {
        const auto devs = physical_devices(instance_);
        if (device_index < 0 || size_t(device_index) >= devs.size())
            throw Error(Message(Msg::gpu_no_device, {device_index}));
        phys_ = devs[size_t(device_index)];
        info_ = describe(phys_);
        if (!info_.usable) throw Error(Message(Msg::gpu_device_unusable, {info_.name, info_.why}));
        family_ = uint32_t(compute_family(phys_));

        // Several queues where the family has them (lavapipe has one; GPUs have many): one
        // thread's submission then need not wait behind another's on the device.
        const uint32_t count = std::clamp(queue_families(phys_)[family_].queueCount, 1u, kMaxQueues);
        const std::vector<float> priorities(count, 1.0f);
        VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        q.queueFamilyIndex = family_;
        q.queueCount = count;
        q.pQueuePriorities = priorities.data();
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
        queues_.resize(count);
        for (uint32_t i = 0; i < count; ++i) vkGetDeviceQueue(device_, family_, i, &queues_[i]);

        VkPhysicalDeviceMemoryProperties mp{};
        vkGetPhysicalDeviceMemoryProperties(phys_, &mp);
        const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        host_type_ = UINT32_MAX;
        for (uint32_t i = 0; i < mp.memoryTypeCount && host_type_ == UINT32_MAX; ++i)
            if ((mp.memoryTypes[i].propertyFlags & want) == want) host_type_ = i;
        if (host_type_ == UINT32_MAX) throw Error(Message(Msg::gpu_no_host_memory));
        device_type_ = host_type_;
        for (uint32_t i = 0; i < mp.memoryTypeCount; ++i) {
            const VkMemoryPropertyFlags f = mp.memoryTypes[i].propertyFlags;
            if (!(f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) continue;
            device_type_ = i;
            if (!(f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) break;  // the GPU's own memory: the best
        }
    } catch (...) {
        if (device_) vkDestroyDevice(device_, nullptr);
        destroy_instance(instance_);
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
    destroy_instance(instance_);
}

void Context::submit(uint32_t i, const VkSubmitInfo& si, VkFence fence) {
    i %= queue_count();
    const std::lock_guard lock(submit_mu_[i]);
    check(vkQueueSubmit(queues_[i], 1, &si, fence), "vkQueueSubmit");
}

Context::Pipeline Context::pipeline(const std::string& name, uint32_t push_bytes) {
    const std::lock_guard lock(mu_);
    if (auto it = pipelines_.find(name); it != pipelines_.end()) return it->second;
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
    return p;
}

}  // namespace stepformer::vk
