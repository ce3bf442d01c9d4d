#include "cpu_backend.h"

#include <omp.h>

#include <Eigen/Core>

namespace stepformer {

namespace cpu {
CpuBackend::CpuBackend(int threads) : threads_(threads > 0 ? threads : omp_get_num_procs()) {
    // We split work across threads ourselves (by output columns, heads, rows), so Eigen's own
    // GEMM threading would only nest.
    Eigen::setNbThreads(1);
}
}  // namespace cpu

std::unique_ptr<Backend> make_cpu_backend(int threads) { return std::make_unique<cpu::CpuBackend>(threads); }

Backend& default_backend() {
    static std::unique_ptr<Backend> backend = make_cpu_backend();
    return *backend;
}

}  // namespace stepformer
