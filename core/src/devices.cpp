#include "stepformer/devices.h"

#ifdef STEPFORMER_HAVE_VULKAN
#include "vulkan/vk_backend.h"
#include "vulkan/vk_context.h"
#endif

namespace stepformer {

bool gpu_backend_built() {
#ifdef STEPFORMER_HAVE_VULKAN
    return true;
#else
    return false;
#endif
}

std::vector<ComputeDevice> gpu_devices() {
    std::vector<ComputeDevice> out;
#ifdef STEPFORMER_HAVE_VULKAN
    for (const vk::DeviceInfo& d : vk::list_devices()) out.push_back({d.name, d.type, d.usable, d.why});
#endif
    return out;
}

int gpu_device_for(const std::vector<ComputeDevice>& devices, bool for_auto) {
    const char* order[] = {"discrete", "integrated", "virtual", "other", "cpu"};
    for (const char* t : order) {
        if (for_auto && std::string(t) == "cpu") break;
        for (size_t i = 0; i < devices.size(); ++i)
            if (devices[i].usable && devices[i].type == t) return int(i);
    }
    return -1;
}

std::unique_ptr<Backend> choose_backend(const std::string& choice, int threads, std::string* note) {
    if (choice == "cpu") return make_cpu_backend(threads);
    if (choice != "gpu" && choice != "auto")
        throw InvalidArgument(Message(Msg::backend_unknown_choice, {choice}));
#ifdef STEPFORMER_HAVE_VULKAN
    const std::vector<ComputeDevice> devices = gpu_devices();
    int pick = gpu_device_for(devices);
    // auto leaves a CPU device (lavapipe) alone: the CPU backend is the faster way to use the CPU.
    Message why(devices.empty() ? Msg::backend_no_vulkan_device : Msg::backend_no_usable_gpu);
    if (choice == "auto" && pick >= 0 && devices[size_t(pick)].type == "cpu") {
        why = Message(Msg::backend_only_cpu_device, {devices[size_t(pick)].name});
        pick = -1;
    }
    if (pick >= 0) return vk::make_vulkan_backend(pick, threads);
    for (const auto& d : devices)
        if (!d.usable) why = Message(Msg::backend_unusable_device, {why, d.name, d.why});
#else
    const Message why(Msg::backend_not_built);
#endif
    if (choice == "gpu") throw BackendUnavailable(Message(Msg::backend_gpu_unavailable, {why}));
    if (note) *note = "computing on the CPU: " + why.text();
    return make_cpu_backend(threads);
}

}  // namespace stepformer
