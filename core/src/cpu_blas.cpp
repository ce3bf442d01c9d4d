// OpenBLAS for the large products (cpu_blas.h): opened, measured against the kernel set's GEMM
// once, then handed out.
#include "cpu_blas.h"

#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "stepformer/cpu_kernels.h"
#include "stepformer/message.h"

#ifndef STEPFORMER_OPENBLAS_OPENMP
#define STEPFORMER_OPENBLAS_OPENMP "/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0"
#endif

namespace stepformer::cpu {
namespace {

using Sgemm = void (*)(int order, int ta, int tb, int m, int n, int k, float alpha, const float* a, int lda,
                       const float* b, int ldb, float beta, float* c, int ldc);
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;  // CBLAS's enum values
constexpr int kOpenMpBuild = 2;                              // openblas_get_parallel()'s

struct OpenBlas {
    Sgemm sgemm = nullptr;
    int (*threads)() = nullptr;  // openblas_get_num_threads
};

OpenBlas open_openblas() {
    void* h = dlopen(STEPFORMER_OPENBLAS_OPENMP, RTLD_NOW | RTLD_LOCAL);
    if (!h) return {};
    const auto parallel = reinterpret_cast<int (*)()>(dlsym(h, "openblas_get_parallel"));
    OpenBlas b{reinterpret_cast<Sgemm>(dlsym(h, "cblas_sgemm")), reinterpret_cast<int (*)()>(dlsym(h, "openblas_get_num_threads"))};
    // Its own threads (a pthreads build) would compete with ours: OpenMP's only.
    if (!parallel || !b.sgemm || !b.threads || parallel() != kOpenMpBuild) {
        dlclose(h);
        return {};
    }
    return b;  // kept open for the process's life
}

const OpenBlas& openblas_lib() {
    static const OpenBlas b = open_openblas();
    return b;
}
Sgemm openblas() { return openblas_lib().sgemm; }

void blas_gemm(bool ta, bool tb, int M, int N, int K, const float* A, int lda, const float* B, int ldb,
               bool accumulate, float* C, int ldc) {
    openblas()(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, M, N, K, 1.0f, A, lda, B, ldb,
               accumulate ? 1.0f : 0.0f, C, ldc);
}

// A whole product on OpenBLAS's own team. OpenBLAS documents its OpenMP build as safe for one
// such caller at a time unless built for more (NUM_PARALLEL), so two threads that call it outside
// a parallel region at once take turns (the test of two callers passed here without the lock too;
// it costs nothing when there is one). Inside a parallel region (blas_gemm, a slice per thread) it
// computes on the calling thread alone, which is safe.
void blas_gemm_whole(bool ta, bool tb, int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                     bool accumulate, float* C, int ldc) {
    static std::mutex mu;
    const std::lock_guard lock(mu);
    blas_gemm(ta, tb, M, N, K, A, lda, B, ldb, accumulate, C, ldc);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Both libraries on two threads at once, each thread its own 1024 x 512 x 512 slice (the large
// linear layers' per-thread share at batch 32 x 64 is 2048 x 512 x 1024), alternately, best of
// three each: ~65 ms, once, with opening the library. OpenBLAS is kept only when 10 % faster, so
// that a machine where the two are even keeps the numbers of the kernel set's GEMM.
bool openblas_measures_faster(const KernelSet& set) {
    constexpr int M = 1024, N = 512, K = 512;
    std::vector<float> a(size_t(M) * K), b(size_t(N) * K), c(size_t(2) * M * N);
    for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 97) * 0.01f - 0.5f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = float(i % 89) * 0.01f - 0.4f;
    double eigen = 1e30, blas = 1e30;
    bool two = false;
#pragma omp parallel num_threads(2)
    {
        float* out = c.data() + size_t(omp_get_thread_num()) * M * N;
#pragma omp single
        two = omp_get_num_threads() == 2 && omp_in_parallel();
        if (two) {
            for (int round = 0; round < 4; ++round) {  // the first to warm up
#pragma omp barrier
                const auto t0 = std::chrono::steady_clock::now();
                set.gemm(false, true, M, N, K, a.data(), K, b.data(), K, false, out, N);
#pragma omp barrier
                const double te = seconds_since(t0);
                const auto t1 = std::chrono::steady_clock::now();
                blas_gemm(false, true, M, N, K, a.data(), K, b.data(), K, false, out, N);
#pragma omp barrier
                const double tb = seconds_since(t1);
#pragma omp master
                if (round > 0) {
                    eigen = std::min(eigen, te);
                    blas = std::min(blas, tb);
                }
            }
        }
    }
    return two && blas < 0.9 * eigen;
}

enum Choice : int { Undecided = -1, Eigen = 0, OpenBlas = 1 };
std::atomic<int> choice{Undecided};

// The choice `name` names; Undecided for "auto" ("" counts as auto: an unset variable).
int choice_named(const std::string& name) {
    if (name == "eigen") return Eigen;
    if (name == "openblas") {
        if (!openblas()) throw InvalidArgument(Message(Msg::cpu_gemm_not_installed, {STEPFORMER_OPENBLAS_OPENMP}));
        return OpenBlas;
    }
    if (name == "auto" || name.empty()) return Undecided;
    throw InvalidArgument(Message(Msg::cpu_gemm_unknown, {name}));
}

std::mutex& choice_mutex() {
    static std::mutex mu;
    return mu;
}

}  // namespace

BlasGemm large_gemm(const KernelSet& set, int threads) {
    if (threads < 2) return nullptr;
    int c = choice.load(std::memory_order_acquire);
    if (c == Undecided) {
        const std::lock_guard lock(choice_mutex());
        c = choice.load(std::memory_order_relaxed);
        if (c == Undecided) {
            const char* env = std::getenv("STEPFORMER_CPU_GEMM");
            c = choice_named(env ? env : "");
            if (c == Undecided) c = openblas() && openblas_measures_faster(set) ? OpenBlas : Eigen;
            choice.store(c, std::memory_order_release);
        }
    }
    return c == OpenBlas ? &blas_gemm : nullptr;
}

BlasGemm large_gemm_whole(const KernelSet& set, int threads) {
    if (!large_gemm(set, threads) || omp_in_parallel() || openblas_lib().threads() != threads) return nullptr;
    return &blas_gemm_whole;
}

}  // namespace stepformer::cpu

namespace stepformer {

std::string cpu_large_gemm() {
    const int c = cpu::choice.load(std::memory_order_acquire);
    return c == cpu::Undecided ? "undecided" : c == cpu::OpenBlas ? "openblas" : "eigen";
}

bool cpu_openblas_installed() { return cpu::openblas() != nullptr; }

void use_cpu_large_gemm(const std::string& name) {
    const int c = cpu::choice_named(name);
    const std::lock_guard lock(cpu::choice_mutex());
    cpu::choice.store(c, std::memory_order_release);
}

}  // namespace stepformer
