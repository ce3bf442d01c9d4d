// Which instructions the CPU backend's hot loops use. One binary runs on every x86-64: its
// matrix products, streaming linear kernels and optimizer updates are built for AVX-512, AVX2 and
// the baseline ("generic"), and the best set this CPU runs is chosen when first needed. The
// environment variable STEPFORMER_CPU_KERNELS=avx512|avx2|generic asks for one (tests use it to
// check every set; docs/contracts.md). Every set computes the same numbers to float rounding.
#pragma once

#include <string>
#include <vector>

namespace stepformer {

// The set in use ("avx512", "avx2" or "generic"). Throws InvalidArgument when
// STEPFORMER_CPU_KERNELS names a set this CPU cannot run or one that does not exist.
std::string cpu_kernel_set();
// The sets this build has and this CPU runs, best first.
std::vector<std::string> cpu_kernel_sets();
// Switches every CPU backend to `name` (tests and benchmarks; not while a kernel runs). Throws
// InvalidArgument when this CPU cannot run it.
void use_cpu_kernel_set(const std::string& name);

// Which library computes the CPU backend's large products (linear layers over hundreds of tokens,
// on two or more threads): "eigen" (the kernel set's), "openblas" (Debian's OpenMP build, opened at
// run time where installed), or "undecided" before the first such product. The environment variable
// STEPFORMER_CPU_GEMM=eigen|openblas|auto chooses; auto, the default, measures both on this machine
// at the first large product and keeps the faster (docs/cpu_blas.md, docs/contracts.md).
std::string cpu_large_gemm();
// Sets that choice for the process (tests and benchmarks; not while a kernel runs): "eigen",
// "openblas", or "auto" to decide again at the next large product (STEPFORMER_CPU_GEMM first).
// Throws InvalidArgument for another name, or "openblas" where it is not installed.
void use_cpu_large_gemm(const std::string& name);
// Whether OpenBLAS's OpenMP build can be opened here (libopenblas0-openmp).
bool cpu_openblas_installed();

}  // namespace stepformer
