// The CPU backend's construction, in each kernel set (cpu_backend.h).
#include "cpu_backend.h"

#include <mutex>

#include <omp.h>

#include "stepformer/heap.h"

namespace stepformer::cpu::STEPFORMER_ISA {

CpuBackend::CpuBackend(int threads) : threads_(threads > 0 ? threads : omp_get_num_procs()) {
    // (Eigen's own GEMM threading is compiled out of the kernel sets: we split work between
    // threads ourselves, by output columns, heads and rows.)
    static std::once_flag once;
    std::call_once(once, [] { default_heap_policy(); });  // speed, unless the process chose (stepformer/heap.h)
}

std::string CpuBackend::name() const { return cpu_name(); }
std::string CpuBackend::describe() const { return describe_cpu(threads_); }

std::unique_ptr<Backend> make_backend(int threads) { return std::unique_ptr<Backend>(new CpuBackend(threads)); }

}  // namespace stepformer::cpu::STEPFORMER_ISA
