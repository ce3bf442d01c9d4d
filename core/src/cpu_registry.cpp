// The backends' registry and the CPU backend's factory (compiled once, for the baseline): the CPU
// backend itself is compiled per kernel set (cpu_backend.h), and the one made is the set's in use.
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <stdexcept>

#include "cpu_kernels.h"
#include "stepformer/backend.h"
#include "stepformer/message.h"

#ifdef STEPFORMER_HAVE_VULKAN
#include "stepformer/devices.h"
#include "vulkan/vk_backend.h"
#endif

namespace stepformer {

namespace cpu {
std::string cpu_name() { return "cpu"; }
std::string describe_cpu(int threads) {
    return "cpu, " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}
}  // namespace cpu

// The host's memory: what every backend whose kernels run on the caller's memory inherits.
size_t Backend::trim() { return 0; }
std::optional<BackendCounters> Backend::counters() const { return std::nullopt; }
bool Backend::set_profiling(bool) { return false; }
void* Backend::alloc(size_t bytes) { return ::operator new(bytes ? bytes : 1, std::align_val_t(64)); }
void Backend::release(void* p) {
    if (p) ::operator delete(p, std::align_val_t(64));
}
void Backend::upload(void* dst, const void* src, size_t bytes) {
    if (bytes) std::memcpy(dst, src, bytes);
}
void Backend::download(void* dst, const void* src, size_t bytes) {
    if (bytes) std::memcpy(dst, src, bytes);
}
void Backend::download_many(std::span<const DownloadRange> ranges) {
    for (const DownloadRange& r : ranges) download(r.dst, r.src, r.bytes);
}

std::unique_ptr<Backend> make_cpu_backend(int threads) { return cpu::kernels().make_backend(threads); }

Backend& default_backend() {
    static std::unique_ptr<Backend> backend = make_cpu_backend();
    return *backend;
}

namespace {

#ifdef STEPFORMER_HAVE_VULKAN
std::unique_ptr<Backend> make_gpu_backend(int threads) { return vk::make_vulkan_backend(-1, threads); }
#endif

struct Registry {
    std::mutex mu;
    std::map<std::string, BackendFactory> factories{{"cpu", &make_cpu_backend}};
    bool probed = false;
    // "gpu" where this machine has a usable Vulkan device (lavapipe counts: it runs the same
    // shaders on the CPU, which is how CI tests them). Looked for only when a backend other than
    // the CPU is asked for or listed: loading a Vulkan driver costs start-up time and ~50 MB. mu held.
    void probe() {
        if (probed) return;
        probed = true;
#ifdef STEPFORMER_HAVE_VULKAN
        if (gpu_device_for(gpu_devices()) >= 0) factories.emplace("gpu", &make_gpu_backend);
#endif
    }
};

Registry& registry() {
    static Registry r;
    return r;
}

}  // namespace

void register_backend(const std::string& name, BackendFactory make) {
    if (name.empty() || !make) throw std::invalid_argument("register_backend: a backend needs a name and a factory");
    Registry& r = registry();
    const std::lock_guard lock(r.mu);
    r.factories[name] = make;
}

std::vector<std::string> available_backends() {
    Registry& r = registry();
    const std::lock_guard lock(r.mu);
    r.probe();
    std::vector<std::string> names;
    for (const auto& [name, make] : r.factories) names.push_back(name);
    return names;
}

std::unique_ptr<Backend> make_backend(const std::string& name, int threads) {
    BackendFactory make = nullptr;
    {
        Registry& r = registry();
        const std::lock_guard lock(r.mu);
        if (name != "cpu") r.probe();
        if (auto it = r.factories.find(name); it != r.factories.end()) make = it->second;
    }
    if (!make) {
        std::string known;
        for (const std::string& n : available_backends()) known += (known.empty() ? "" : ", ") + n;
        throw InvalidArgument(Message(Msg::backend_unknown, {name, known}));
    }
    return make(threads);
}

}  // namespace stepformer
