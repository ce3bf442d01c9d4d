// Which GEMM to call, measured (issue 32): our CPU backend's (Eigen) against OpenBLAS and BLIS,
// each through CBLAS, on the shapes the models compute — the tutorial's ~10 tokens through
// 512 × 512 / 2048 weights, a batch of 32 × 64 tokens (2048 rows), the backward's dW = dyᵀ x, the
// attention's batched per-head products — and the memory bandwidth that bounds the small ones (a
// STREAM-like triad). The libraries are opened at run time (dlopen, each on its own: both export
// cblas_sgemm), so the benchmark needs none at build time and skips one that is not installed.
// Run: build/bin/stepformer_gemm_bench   (docs/cpu_blas.md has the figures and the choice).
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "stepformer/backend.h"
#include "stepformer/cpu_kernels.h"

namespace {

using Sgemm = void (*)(int order, int ta, int tb, int m, int n, int k, float alpha, const float* a, int lda,
                       const float* b, int ldb, float beta, float* c, int ldc);
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;  // CBLAS's enum values

struct Blas {
    std::string name;
    Sgemm sgemm = nullptr;
};

// A CBLAS from `path`, on two threads (the machine's cores, as our backend uses); null when absent.
Blas open_blas(const char* name, const char* path, const char* set_threads) {
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return {name, nullptr};
    if (auto set = reinterpret_cast<void (*)(long)>(dlsym(h, set_threads))) set(omp_get_max_threads());
    return {name, reinterpret_cast<Sgemm>(dlsym(h, "cblas_sgemm"))};
}

const Blas& openblas() {
    static const Blas b = open_blas("openblas", "/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0",
                                    "openblas_set_num_threads");
    return b;
}
const Blas& blis() {
    static const Blas b =
        open_blas("blis", "/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4", "bli_thread_set_num_threads");
    return b;
}

std::vector<float> random_floats(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = u(rng);
    return v;
}

enum class Impl { Ours, OpenBlas, Blis };

const Blas* blas_of(Impl impl) { return impl == Impl::OpenBlas ? &openblas() : impl == Impl::Blis ? &blis() : nullptr; }

// The library `impl` calls (null: our backend); false, with the benchmark skipped, when it is not
// installed.
bool pick(benchmark::State& st, Impl impl, const Blas*& blas) {
    blas = blas_of(impl);
    if (blas && !blas->sgemm) {
        st.SkipWithError((blas->name + " is not installed").c_str());
        return false;
    }
    return true;
}

// A per-second counter of `amount` per iteration (flops, bytes), in units of 10^9 when printed.
benchmark::Counter rate(double amount) {
    return benchmark::Counter(amount, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

// y (N, O) = x (N, I) Wᵀ, W (O, I): a Linear layer's forward.
void BM_Linear(benchmark::State& st, Impl impl, int N, int I, int O) {
    const Blas* blas = nullptr;
    if (!pick(st, impl, blas)) return;
    stepformer::Backend& be = stepformer::default_backend();
    const auto x = random_floats(size_t(N) * I, 1), W = random_floats(size_t(O) * I, 2);
    std::vector<float> y(size_t(N) * O);
    for (auto _ : st) {
        if (blas)
            blas->sgemm(kRowMajor, kNoTrans, kTrans, N, O, I, 1.0f, x.data(), I, W.data(), I, 0.0f, y.data(), O);
        else
            be.linear_forward(y.data(), x.data(), W.data(), N, I, O);
        benchmark::DoNotOptimize(y.data());
    }
    st.counters["GFLOP/s"] = rate(2.0 * N * I * O);
}

// The same forward with its weights coming from memory, as in a step (the shapes above repeat
// one W, which then stays in the 32 MB L3): each iteration goes through 160 MB of distinct
// weight matrices. GB/s: weight bytes read per second (compare BM_Triad's).
// How many (O, I) matrices make 160 MB, five times the L3.
int matrices_in_160mb(int I, int O) { return int((size_t(160) << 20) / (size_t(O) * I * 4)); }

void BM_LinearFromMemory(benchmark::State& st, int N, int I, int O) {
    stepformer::Backend& be = stepformer::default_backend();
    const int count = matrices_in_160mb(I, O);
    std::vector<std::vector<float>> Ws;
    for (int m = 0; m < count; ++m) Ws.push_back(random_floats(size_t(O) * I, 20 + m));
    const auto x = random_floats(size_t(N) * I, 19);
    std::vector<float> y(size_t(N) * O);
    for (auto _ : st) {
        for (const auto& W : Ws) be.linear_forward(y.data(), x.data(), W.data(), N, I, O);
        benchmark::DoNotOptimize(y.data());
    }
    st.counters["GB/s"] = rate(4.0 * double(count) * O * I);
    st.counters["GFLOP/s"] = rate(2.0 * double(count) * N * I * O);
}

// dW (O, I) = dyᵀ (O, N) x (N, I): a Linear layer's weight gradient (the backward's other half).
void BM_WeightGrad(benchmark::State& st, Impl impl, int N, int I, int O) {
    const Blas* blas = nullptr;
    if (!pick(st, impl, blas)) return;
    stepformer::Backend& be = stepformer::default_backend();
    const auto x = random_floats(size_t(N) * I, 3), dy = random_floats(size_t(N) * O, 4), W = random_floats(size_t(O) * I, 5);
    std::vector<float> dW(size_t(O) * I);
    for (auto _ : st) {
        if (blas)
            blas->sgemm(kRowMajor, kTrans, kNoTrans, O, I, N, 1.0f, dy.data(), O, x.data(), I, 0.0f, dW.data(), I);
        else
            be.linear_backward(nullptr, dW.data(), dy.data(), x.data(), W.data(), N, I, O, false, false);
        benchmark::DoNotOptimize(dW.data());
    }
    st.counters["GFLOP/s"] = rate(2.0 * N * I * O);
}

// A Linear layer's whole backward as the trainer runs it: dx = dy W, dW = dyᵀ x and the SGD
// momentum update of W, fused (our backend only). Counted: the two products' flops, and the bytes
// the update must move (W and its momentum read and written: 16 per weight).
void BM_BackwardUpdate(benchmark::State& st, int N, int I, int O) {
    stepformer::Backend& be = stepformer::default_backend();
    const auto x = random_floats(size_t(N) * I, 8), dy = random_floats(size_t(N) * O, 9);
    auto W = random_floats(size_t(O) * I, 10);
    std::vector<float> dx(size_t(N) * I), momentum(size_t(O) * I, 0.0f);
    stepformer::WeightUpdate u;
    u.buf1 = momentum.data();
    u.lr = 1e-9;  // the weights barely move: every iteration does the same work
    u.momentum = 0.99f;
    double sum_squares = 0.0;
    for (auto _ : st) {
        be.linear_backward_update(dx.data(), nullptr, &sum_squares, dy.data(), x.data(), W.data(), N, I, O, false, u);
        be.sync();
        benchmark::DoNotOptimize(sum_squares);
    }
    st.counters["GFLOP/s"] = rate(4.0 * N * I * O);
    st.counters["GB/s"] = rate(16.0 * I * O);
}

// The same from memory, as in a step: 160 MB of distinct weights (and as much momentum) per
// iteration, so neither stays in the 32 MB L3. `second_buffer`: the updated weights written to a
// second array (the app's trainer, TrainOptions::DivergenceGuard::SecondBuffer), not in place.
void BM_BackwardUpdateFromMemory(benchmark::State& st, int N, int I, int O, bool second_buffer) {
    stepformer::Backend& be = stepformer::default_backend();
    const int count = matrices_in_160mb(I, O);
    const auto x = random_floats(size_t(N) * I, 8), dy = random_floats(size_t(N) * O, 9);
    std::vector<std::vector<float>> Ws, momenta, outs;
    for (int m = 0; m < count; ++m) {
        Ws.push_back(random_floats(size_t(O) * I, 40 + m));
        momenta.emplace_back(size_t(O) * I, 0.0f);
        if (second_buffer) outs.emplace_back(size_t(O) * I, 0.0f);
    }
    std::vector<float> dx(size_t(N) * I);
    double sum_squares = 0.0;
    for (auto _ : st) {
        for (int m = 0; m < count; ++m) {
            stepformer::WeightUpdate u;
            u.buf1 = momenta[size_t(m)].data();
            if (second_buffer) u.out = outs[size_t(m)].data();
            u.lr = 1e-9;
            u.momentum = 0.99f;
            be.linear_backward_update(dx.data(), nullptr, &sum_squares, dy.data(), x.data(), Ws[size_t(m)].data(), N, I,
                                      O, false, u);
        }
        be.sync();
        benchmark::DoNotOptimize(sum_squares);
    }
    st.counters["GB/s"] = rate(16.0 * double(count) * I * O);
}

// scores (G, L, L) = Q Kᵀ per head, G = batch × heads: many small products.
void BM_AttentionScores(benchmark::State& st, Impl impl, int G, int L, int d) {
    const Blas* blas = nullptr;
    if (!pick(st, impl, blas)) return;
    stepformer::Backend& be = stepformer::default_backend();
    const auto Q = random_floats(size_t(G) * L * d, 6), K = random_floats(size_t(G) * L * d, 7);
    std::vector<float> S(size_t(G) * L * L);
    for (auto _ : st) {
        if (blas)
            for (int g = 0; g < G; ++g)
                blas->sgemm(kRowMajor, kNoTrans, kTrans, L, L, d, 0.125f, Q.data() + size_t(g) * L * d, d,
                            K.data() + size_t(g) * L * d, d, 0.0f, S.data() + size_t(g) * L * L, L);
        else
            be.attn_scores_forward(S.data(), Q.data(), K.data(), G, L, L, d, 0.125f);
        benchmark::DoNotOptimize(S.data());
    }
    st.counters["GFLOP/s"] = rate(2.0 * G * L * L * d);
}

// a = b + s·c over three arrays far larger than the caches, on the OpenMP threads: the memory
// bandwidth a step that streams its weights cannot beat (bytes counted: 3 arrays × 4 bytes).
void BM_Triad(benchmark::State& st) {
    const size_t n = size_t(1) << 25;  // 32 M floats: 128 MB each
    std::vector<float> a(n), b(n, 1.0f), c(n, 2.0f);
    const long long nn = static_cast<long long>(n);
    for (auto _ : st) {
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < nn; ++i) a[size_t(i)] = b[size_t(i)] + 3.0f * c[size_t(i)];
        benchmark::DoNotOptimize(a.data());
    }
    st.counters["GB/s"] = rate(3.0 * 4.0 * double(n));
}

// A cache line passed back and forth between the first two OpenMP threads: ns a round trip.
// On a virtual machine the two cores are not always neighbours: the development VM's pair read
// ~50 ns (one core complex, one L3) for minutes and then ~320 ns (apart) for minutes, and the
// rounds of scripts/bench_vs_torch.sh print which placement each measurement had.
void BM_CoreRoundTrip(benchmark::State& st) {
    if (omp_get_max_threads() < 2) {
        st.SkipWithError("one thread: nothing to pass a line to");
        return;
    }
    constexpr long kTrips = 20000;
    alignas(64) static std::atomic<long> line{0};
    double seconds = 0.0;
    for (auto _ : st) {
        line.store(0);
        const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(2)
        {
            // Thread 0 writes odd values and waits for the next even one; thread 1 answers.
            const long parity = omp_get_thread_num() == 0 ? 0 : 1;
            for (long v = parity; v < 2 * kTrips; v += 2) {
                while (line.load(std::memory_order_acquire) != v) {
                }
                line.store(v + 1, std::memory_order_release);
            }
        }
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    // (The team's start is in the time too: ~1 us against the 1-6 ms of the trips.)
    st.counters["ns"] = seconds * 1e9 / (double(kTrips) * double(st.iterations()));
}

#if defined(__x86_64__)
// Twelve independent chains of 256-bit FMAs on every OpenMP thread: the most single-precision
// GFLOP/s the cores can do, which no GEMM beats (issue 32: what batch 32 x 64 could win at best).
// Twelve chains cover the FMA latency on two pipes (Zen 4: 4 cycles; Intel since Skylake: 4).
__attribute__((target("avx2,fma"))) double fma_chains(long long iterations) {
    double sink = 0.0;
#pragma omp parallel reduction(+ : sink)
    {
        const __m256 scale = _mm256_set1_ps(0.999999f), add = _mm256_set1_ps(1e-7f);
        // Different starting values: equal chains would be merged into one by the compiler.
        __m256 a0 = _mm256_set1_ps(1.0f), a1 = _mm256_set1_ps(1.1f), a2 = _mm256_set1_ps(1.2f), a3 = _mm256_set1_ps(1.3f),
               a4 = _mm256_set1_ps(1.4f), a5 = _mm256_set1_ps(1.5f), a6 = _mm256_set1_ps(1.6f), a7 = _mm256_set1_ps(1.7f),
               a8 = _mm256_set1_ps(1.8f), a9 = _mm256_set1_ps(1.9f), a10 = _mm256_set1_ps(2.0f), a11 = _mm256_set1_ps(2.1f);
        for (long long i = 0; i < iterations; ++i) {
            a0 = _mm256_fmadd_ps(a0, scale, add), a1 = _mm256_fmadd_ps(a1, scale, add);
            a2 = _mm256_fmadd_ps(a2, scale, add), a3 = _mm256_fmadd_ps(a3, scale, add);
            a4 = _mm256_fmadd_ps(a4, scale, add), a5 = _mm256_fmadd_ps(a5, scale, add);
            a6 = _mm256_fmadd_ps(a6, scale, add), a7 = _mm256_fmadd_ps(a7, scale, add);
            a8 = _mm256_fmadd_ps(a8, scale, add), a9 = _mm256_fmadd_ps(a9, scale, add);
            a10 = _mm256_fmadd_ps(a10, scale, add), a11 = _mm256_fmadd_ps(a11, scale, add);
        }
        const __m256 s = _mm256_add_ps(
            _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)), _mm256_add_ps(a4, a5)),
            _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a6, a7), _mm256_add_ps(a8, a9)), _mm256_add_ps(a10, a11)));
        alignas(32) float lanes[8];
        _mm256_store_ps(lanes, s);
        for (float v : lanes) sink += v;
    }
    return sink;
}

void BM_PeakFma(benchmark::State& st) {
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        st.SkipWithError("no AVX2 + FMA on this CPU");
        return;
    }
    const long long iterations = 20'000'000;
    for (auto _ : st) benchmark::DoNotOptimize(fma_chains(iterations));
    st.counters["GFLOP/s"] = rate(double(iterations) * 12 * 8 * 2 * omp_get_max_threads());
}
#endif

// The GPU backend's product shaders (issue 35) on the same shapes: a Linear forward on device
// memory, synchronised every iteration. `gemm` is STEPFORMER_VK_GEMM when the backend is made
// ("" for its own choice); skipped where no Vulkan device is usable.
void BM_GpuLinear(benchmark::State& st, std::string gemm, int N, int I, int O) {
    const auto names = stepformer::available_backends();
    if (std::find(names.begin(), names.end(), "gpu") == names.end()) {
        st.SkipWithError("no usable Vulkan device");
        return;
    }
    if (gemm.empty())
        unsetenv("STEPFORMER_VK_GEMM");
    else
        setenv("STEPFORMER_VK_GEMM", gemm.c_str(), 1);
    const std::unique_ptr<stepformer::Backend> be = stepformer::make_backend("gpu", 0);
    unsetenv("STEPFORMER_VK_GEMM");
    const auto x = random_floats(size_t(N) * I, 11), W = random_floats(size_t(O) * I, 12);
    auto* dx = static_cast<float*>(be->alloc(x.size() * 4));
    auto* dW = static_cast<float*>(be->alloc(W.size() * 4));
    auto* dy = static_cast<float*>(be->alloc(size_t(N) * O * 4));
    be->upload(dx, x.data(), x.size() * 4);
    be->upload(dW, W.data(), W.size() * 4);
    be->sync();
    for (auto _ : st) {
        be->linear_forward(dy, dx, dW, N, I, O);
        be->sync();
    }
    for (void* p : {static_cast<void*>(dx), static_cast<void*>(dW), static_cast<void*>(dy)}) be->release(p);
    st.counters["GFLOP/s"] = rate(2.0 * N * I * O);
}

// Every implementation on one shape, under "<kind>/<shape>/<impl>".
void register_all() {
    struct Shape {
        const char* name;
        int N, I, O;
    };
    const Shape linear[] = {
        {"tutorial_10x512x512", 10, 512, 512},    {"tutorial_10x512x2048", 10, 512, 2048},
        {"tutorial_10x2048x512", 10, 2048, 512},  {"b32l64_2048x512x512", 2048, 512, 512},
        {"b32l64_2048x512x2048", 2048, 512, 2048}, {"b32l64_2048x2048x512", 2048, 2048, 512},
        {"b32l64_logits_2048x512x1000", 2048, 512, 1000}, {"square_1024", 1024, 1024, 1024},
    };
    const std::pair<Impl, const char*> impls[] = {{Impl::Ours, "eigen"}, {Impl::OpenBlas, "openblas"}, {Impl::Blis, "blis"}};
    for (const Shape& s : linear)
        for (const auto& [impl, name] : impls)
            benchmark::RegisterBenchmark((std::string("Linear/") + s.name + "/" + name).c_str(), BM_Linear, impl, s.N, s.I, s.O)
                ->Unit(benchmark::kMicrosecond)
                ->UseRealTime();
    for (const Shape& s : linear)
        for (const auto& [impl, name] : impls)
            benchmark::RegisterBenchmark((std::string("WeightGrad/") + s.name + "/" + name).c_str(), BM_WeightGrad, impl, s.N,
                                         s.I, s.O)
                ->Unit(benchmark::kMicrosecond)
                ->UseRealTime();
    for (const Shape& s : linear)
        if (s.N <= 48)
            benchmark::RegisterBenchmark((std::string("LinearFromMemory/") + s.name + "/ours").c_str(), BM_LinearFromMemory,
                                         s.N, s.I, s.O)
                ->Unit(benchmark::kMicrosecond)
                ->UseRealTime();
    for (const Shape& s : linear)
        if (s.N <= 48)  // the fused kernel's range (kStreamingMaxTokens); beyond it the backend calls the GEMMs above
            benchmark::RegisterBenchmark((std::string("BackwardUpdate/") + s.name + "/ours").c_str(), BM_BackwardUpdate, s.N,
                                         s.I, s.O)
                ->Unit(benchmark::kMicrosecond)
                ->UseRealTime();
    for (const Shape& s : linear)
        if (s.N <= 48)
            for (bool second : {false, true})
                benchmark::RegisterBenchmark(
                    (std::string("BackwardUpdateFromMemory/") + s.name + (second ? "/ours_second_buffer" : "/ours")).c_str(),
                    BM_BackwardUpdateFromMemory, s.N, s.I, s.O, second)
                    ->Unit(benchmark::kMicrosecond)
                    ->UseRealTime();
    const Shape attention[] = {{"b2h8_L6_d64", 16, 6, 64}, {"b32h8_L64_d64", 256, 64, 64}, {"b8h8_L256_d64", 64, 256, 64}};
    for (const Shape& s : attention)
        for (const auto& [impl, name] : impls)
            benchmark::RegisterBenchmark((std::string("AttentionScores/") + s.name + "/" + name).c_str(), BM_AttentionScores,
                                         impl, s.N, s.I, s.O)
                ->Unit(benchmark::kMicrosecond)
                ->UseRealTime();
    for (const Shape& s : linear)
        for (const char* gemm : {"", "simple", "strip", "tiled", "blocked"})
            benchmark::RegisterBenchmark((std::string("GpuLinear/") + s.name + "/" + (*gemm ? gemm : "auto")).c_str(),
                                         BM_GpuLinear, std::string(gemm), s.N, s.I, s.O)
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
    benchmark::RegisterBenchmark("Triad/2x32M", BM_Triad)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark("CoreRoundTrip", BM_CoreRoundTrip)->Unit(benchmark::kMillisecond)->UseRealTime();
#if defined(__x86_64__)
    benchmark::RegisterBenchmark("PeakFma", BM_PeakFma)->Unit(benchmark::kMillisecond)->UseRealTime();
#endif
}

}  // namespace

int main(int argc, char** argv) {
    register_all();
    benchmark::Initialize(&argc, argv);
    // Our backend's own GEMM in the eigen rows: it would otherwise hand its large products to
    // OpenBLAS where that measured faster (docs/cpu_blas.md), and compare OpenBLAS with itself.
    stepformer::use_cpu_large_gemm("eigen");
    std::fprintf(stderr, "threads %d; eigen: our CPU backend, its own GEMM (%s); openblas %s; blis %s\n", omp_get_max_threads(),
                stepformer::default_backend().describe().c_str(), openblas().sgemm ? "found" : "not installed",
                blis().sgemm ? "found" : "not installed");
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
