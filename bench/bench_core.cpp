// Google Benchmarks of the core at the sizes the issues quote. Compare with PyTorch on the same
// machine in the same run: scripts/bench_vs_torch.sh runs both and prints the ratios.
// STEPFORMER_BENCH_BACKEND=gpu (any registered backend's name) runs them on another backend.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "stepformer/backend_counters.h"
#include "stepformer/cpu_kernels.h"
#include "stepformer/dataset.h"
#include "stepformer/model.h"
#include "stepformer/optimizer.h"
#include "stepformer/step_counts.h"
#include "stepformer/train.h"

using namespace stepformer;

namespace {

// The backend the benchmarks run on, made once (a GPU's is expensive to make).
Backend* bench_backend() {
    static const std::unique_ptr<Backend> be = [] {
        const char* name = std::getenv("STEPFORMER_BENCH_BACKEND");
        try {
            return make_backend(name && *name ? name : "cpu");
        } catch (const std::exception& e) {
            std::fprintf(stderr, "STEPFORMER_BENCH_BACKEND: %s\n", e.what());
            std::exit(2);
        }
    }();
    return be.get();
}

struct Workload {
    Config config;
    Transformer model;
    Batch batch;
    Trace trace;
    ParamSet grads;
    Optimizer sgd;

    Workload(const Config& c, int B)
        : config(c), model(c, init_params(c, 0), bench_backend()), batch(random_batch(c, B, c.src_len, c.tgt_len, 1)),
          sgd(OptimizerOptions{}, model.params()) {}

    void train_step(bool keep_param_grads = true) {
        stepformer::train_step(model, batch, trace, grads, sgd, nullptr, keep_param_grads);
    }
};

// MinTime counts wall time (UseRealTime): on a GPU backend the calling thread mostly waits.
// The first step touches every page of the trace, the gradients and the optimizer state for the
// first time (at batch 32 x 64, ~1.4 GB of page faults, which would be a third of a step's time
// spread over three timed steps). PyTorch's side warms up too (torch_bench.py): both figures are
// the steady state a training run spends its time in.
template <typename F>
void warm_up(F&& f) {
    f();
}

void report_memory(benchmark::State& state) {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    state.counters["peak_rss_MB"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
    // Which library the large products used (undecided: none was large enough)
    state.SetLabel(bench_backend()->describe() + ", large products: " + stepformer::cpu_large_gemm());
}

// A backend with a device (STEPFORMER_BENCH_BACKEND=gpu): the device's work per iteration as the
// benchmark's counters (stepformer-cli bench --counts prints the same).
void report_device_work(benchmark::State& state, const BackendCounters& c) {
    state.counters["dispatches"] = double(c.dispatches);
    state.counters["barriers"] = double(c.barriers);
    state.counters["submits"] = double(c.submissions);
    state.counters["recorded"] = double(c.recordings);
    state.counters["replayed"] = double(c.replays);
    state.counters["allocs"] = double(c.allocations);
    state.counters["up_kB"] = double(c.bytes_uploaded) / 1024.0;
    state.counters["down_kB"] = double(c.bytes_downloaded) / 1024.0;
}

template <typename F>
void count_device_work(benchmark::State& state, F&& f) {
    Backend& be = *bench_backend();
    if (!be.counters()) return;
    be.sync();
    const BackendCounters before = *be.counters();
    f();
    be.sync();
    report_device_work(state, be.counters()->since(before));
}

// A Trainer's third step on the workload's model and batch (weights and optimizer state kept on
// the device): the step the app's training runs.
void count_trainer_step(benchmark::State& state, const Config& c, int B) {
    if (!bench_backend()->counters()) return;
    Transformer model(c, init_params(c, 0), bench_backend());
    std::vector<Example> data, rows = examples_of(c, random_batch(c, B, c.src_len, c.tgt_len, 1));
    for (int i = 0; i < 3; ++i) data.insert(data.end(), rows.begin(), rows.end());
    report_device_work(state, trainer_step_counts(model, data, B, 3).back());
}

// The tutorial's model (d_model 512, 6+6 layers) on its two sentences: forward with every
// intermediate traced.
void BM_ForwardTraced_Tutorial_B2(benchmark::State& state) {
    Workload w(Config::tutorial(), 2);
    warm_up([&] { w.model.forward(w.batch, w.trace); });
    for (auto _ : state) {
        w.model.forward(w.batch, w.trace);
        benchmark::DoNotOptimize(w.trace.at("projection.probs").value.data.data());
    }
    count_device_work(state, [&] { w.model.forward(w.batch, w.trace); });
    report_memory(state);
}
BENCHMARK(BM_ForwardTraced_Tutorial_B2)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();

// One training step: forward + loss + backward (grad.* traced) + SGD with momentum, fused.
void BM_TrainStep_Tutorial_B2(benchmark::State& state) {
    Workload w(Config::tutorial(), 2);
    warm_up([&] { w.train_step(); });
    for (auto _ : state) w.train_step();
    report_memory(state);
}
BENCHMARK(BM_TrainStep_Tutorial_B2)->Unit(benchmark::kMillisecond)->MinTime(3.0)->UseRealTime();

// The same step as the Trainer (and so the app) runs it: the linear weights' gradients are
// applied inside the kernel that computes them and never stored (grad.* intermediates still are).
void BM_TrainStep_Tutorial_B2_NoParamGrads(benchmark::State& state) {
    Workload w(Config::tutorial(), 2);
    warm_up([&] { w.train_step(false); });
    for (auto _ : state) w.train_step(false);
    count_trainer_step(state, w.config, 2);
    report_memory(state);
}
BENCHMARK(BM_TrainStep_Tutorial_B2_NoParamGrads)->Unit(benchmark::kMillisecond)->MinTime(3.0)->UseRealTime();

// Batch 32 x length 64, 1000-word vocabularies: GEMM-bound.
void BM_TrainStep_B32_L64(benchmark::State& state) {
    Workload w(synthetic_config(Config::tutorial(), 1000, 64, 64), 32);
    warm_up([&] { w.train_step(); });
    for (auto _ : state) w.train_step();
    report_memory(state);
}
BENCHMARK(BM_TrainStep_B32_L64)->Unit(benchmark::kMillisecond)->Iterations(3);

// Longer sentences at the same 2048 tokens a batch (batch x length), 1000-word vocabularies: the
// attention's share grows with the length (its scores are batch x heads x length^2).
void BM_TrainStep_Long(benchmark::State& state) {
    const int B = int(state.range(0)), L = int(state.range(1));
    Workload w(synthetic_config(Config::tutorial(), 1000, L, L), B);
    warm_up([&] { w.train_step(); });
    for (auto _ : state) w.train_step();
    report_memory(state);
}
BENCHMARK(BM_TrainStep_Long)->Args({8, 256})->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
