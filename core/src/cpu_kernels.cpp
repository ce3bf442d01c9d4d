// Chooses the CPU backend's kernel set (cpu_kernels.h) for the CPU the process runs on.
#include "cpu_kernels.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "stepformer/cpu_kernels.h"
#include "stepformer/message.h"

namespace stepformer::cpu {

// Each build of isa/*.cpp, in its own namespace (core/CMakeLists.txt says which exist).
#ifdef STEPFORMER_HAVE_AVX512_SET
namespace avx512 {
const KernelSet& kernel_set();
}
#endif
#ifdef STEPFORMER_HAVE_AVX2_SET
namespace avx2 {
const KernelSet& kernel_set();
}
#endif
namespace generic {
const KernelSet& kernel_set();
}


namespace {

// Best first. A set runs where the CPU has every extension it was compiled with (libgcc's checks
// include the operating system's support for the wide registers).
std::vector<const KernelSet*> runnable() {
    std::vector<const KernelSet*> sets;
#if defined(__x86_64__) && (defined(STEPFORMER_HAVE_AVX512_SET) || defined(STEPFORMER_HAVE_AVX2_SET))
    __builtin_cpu_init();
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#ifdef STEPFORMER_HAVE_AVX512_SET
    if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        sets.push_back(&avx512::kernel_set());
#endif
#ifdef STEPFORMER_HAVE_AVX2_SET
    if (avx2) sets.push_back(&avx2::kernel_set());
#endif
#endif
    sets.push_back(&generic::kernel_set());
    return sets;
}

const std::vector<const KernelSet*>& sets() {
    static const std::vector<const KernelSet*> s = runnable();
    return s;
}

std::string names() {
    std::string out;
    for (const KernelSet* s : sets()) out += (out.empty() ? "" : ", ") + std::string(s->name);
    return out;
}

const KernelSet* find(const std::string& name) {
    for (const KernelSet* s : sets())
        if (name == s->name) return s;
    throw InvalidArgument(Message(Msg::cpu_kernels_unsupported, {name, names()}));
}

std::atomic<const KernelSet*> chosen{nullptr};

}  // namespace

const KernelSet& kernels() {
    if (const KernelSet* s = chosen.load(std::memory_order_acquire)) return *s;
    static std::mutex mu;
    const std::lock_guard lock(mu);
    if (const KernelSet* s = chosen.load(std::memory_order_relaxed)) return *s;
    const char* env = std::getenv("STEPFORMER_CPU_KERNELS");
    const KernelSet* s = env && *env ? find(env) : sets().front();
    chosen.store(s, std::memory_order_release);
    return *s;
}

}  // namespace stepformer::cpu

namespace stepformer {

std::string cpu_kernel_set() { return cpu::kernels().name; }

std::vector<std::string> cpu_kernel_sets() {
    std::vector<std::string> out;
    for (const cpu::KernelSet* s : cpu::sets()) out.emplace_back(s->name);
    return out;
}

void use_cpu_kernel_set(const std::string& name) { cpu::chosen.store(cpu::find(name), std::memory_order_release); }

}  // namespace stepformer
