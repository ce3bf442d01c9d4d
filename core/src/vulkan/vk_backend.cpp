// Making the Vulkan backend: the choices of kernels and memory for its device, and what it holds.
#include "vulkan/vk_backend.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "stepformer/devices.h"
#include "vulkan/vk_backend_internal.h"

namespace stepformer::vk {

namespace {
std::atomic<uint64_t> backends_made{0};
}

VulkanBackend::VulkanBackend(int device_index, int threads)
    : ctx_(device_index), cpu_(make_cpu_backend(threads)), id_(++backends_made) {
    // Products of at least 64 rows and 64 columns take register-blocked 64 x 64 tiles (4 x 4
    // outputs an invocation); below that, one output an invocation in 16 x 16 shared-memory tiles
    // on a GPU, and no tiles on a CPU device, where they cost more than they save. On lavapipe the
    // blocked tiles pay a little too when all three sizes pass 64 (fewer rows take the strip
    // shader): a batch of 32 x 64's products ran 1.03-1.16 times faster than the simple shader's
    // (stepformer_gemm_bench's GpuLinear); a sum over the tutorial's ~10 tokens is left to the
    // others. STEPFORMER_VK_GEMM=tiled|simple|strip|blocked forces one for every
    // product (the tests run each on lavapipe that way).
    const char* gemm = std::getenv("STEPFORMER_VK_GEMM");
    const bool cpu_device = ctx_.info().type == "cpu";
    tiled_ = gemm ? std::strcmp(gemm, "tiled") == 0 : !cpu_device;
    blocked_min_ = gemm ? (std::strcmp(gemm, "blocked") == 0 ? 1 : 0) : (cpu_device ? 65 : 64);
    blocked_min_k_ = gemm || !cpu_device ? 0 : 65;
    // On a CPU device a product of few rows (the tutorial's linear layers: 10 rows, 512 or 2048
    // columns) runs four outputs an invocation (batched_matmul_strip.comp); =strip forces it for
    // every product, =simple never.
    strip_rows_ = gemm ? (std::strcmp(gemm, "strip") == 0 ? INT32_MAX : 0) : (ctx_.info().type == "cpu" ? 64 : 0);
    // Row reductions (softmax, LayerNorm, their backwards, cross-entropy's gradient) split a row
    // across a subgroup or a workgroup on a GPU with subgroup arithmetic in compute shaders. On
    // a CPU device one invocation a row is faster (lavapipe: the split rows ran 2 to 7 times
    // slower, its barriers and subgroups being emulated); STEPFORMER_VK_REDUCE=subgroup|serial
    // chooses (the tests run both on lavapipe), subgroup only where the device has it.
    // Memory: a discrete GPU computes on its own memory, which the host reaches through copies
    // (upload and download record them); elsewhere (integrated GPUs, CPU devices) the memory is
    // the host's anyway and is mapped. STEPFORMER_VK_MEMORY=device|host chooses (the tests run
    // the copies on lavapipe too).
    const char* memory = std::getenv("STEPFORMER_VK_MEMORY");
    device_memory_ = memory ? std::strcmp(memory, "device") == 0 : ctx_.info().type == "discrete";
    const char* reduce = std::getenv("STEPFORMER_VK_REDUCE");
    subgroup_ = ctx_.info().subgroup_arithmetic &&
                (reduce ? std::strcmp(reduce, "subgroup") == 0 : ctx_.info().type != "cpu");
}

// No other thread may use the backend now; each queue's last commands run first.
VulkanBackend::~VulkanBackend() {
    Queue* const outer = held_;
    for (const auto& q : queues_) {
        q->mu.lock();
        held_ = q.get();
        try {
            flush();
        } catch (...) {
        }
        held_ = outer;
        destroy_queue(*q);
        q->mu.unlock();
    }
    queues_.clear();
    for (auto& [base, a] : allocs_) destroy(a);
    for (auto& cache : cache_)
        for (auto& [bytes, a] : cache) destroy(a);
    for (auto& blocks : blocks_)
        for (const auto& b : blocks) {
            vkDestroyBuffer(ctx_.device(), b->buffer, nullptr);
            vkFreeMemory(ctx_.device(), b->memory, nullptr);
        }
}

std::unique_ptr<Backend> make_vulkan_backend(int device_index, int cpu_threads) {
    if (device_index < 0) {
        device_index = gpu_device_for(gpu_devices());
        if (device_index < 0) throw Error(Message(Msg::gpu_no_usable_device));
    }
    return std::make_unique<VulkanBackend>(device_index, cpu_threads);
}

}  // namespace stepformer::vk
