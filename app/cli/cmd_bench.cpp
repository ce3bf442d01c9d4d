// `stepformer-cli bench`: the figures users ask about, timed on their machine. The Google
// Benchmarks in bench/ are the reference measurements; this is the quick look.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cli_common.h"
#include "stepformer/backend_counters.h"
#include "stepformer/dataset.h"
#include "stepformer/optimizer.h"
#include "stepformer/step_counts.h"
#include "stepformer/train.h"

namespace cli {
namespace {

using namespace stepformer;
using clock_type = std::chrono::steady_clock;

template <typename F>
double median_ms(int iters, F&& f) {
    f();  // warm-up: first-touch page faults and allocator growth don't belong in the figure
    std::vector<double> ms;
    for (int i = 0; i < iters; ++i) {
        auto t0 = clock_type::now();
        f();
        ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

double peak_rss_mb() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

struct BenchArgs {
    int iters = 10;
    bool large = false;
    bool counts = false;
    BackendOption backend;
};

// The device work of one call of `f` (its counters' difference), timed per kernel family where the
// device has timestamps.
template <typename F>
BackendCounters counted(Backend& be, F&& f) {
    be.sync();
    const BackendCounters before = be.counters().value_or(BackendCounters{});
    f();
    be.sync();
    return be.counters().value_or(BackendCounters{}).since(before);
}

std::string bytes_text(uint64_t b) {
    char buf[32];
    if (b >= (uint64_t{1} << 20)) std::snprintf(buf, sizeof buf, "%.1f MB", double(b) / double(1 << 20));
    else if (b >= 1024) std::snprintf(buf, sizeof buf, "%.1f kB", double(b) / 1024.0);
    else std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
    return buf;
}

void print_counts(const char* const titles[3], const BackendCounters c[3]) {
    std::printf("\ndevice work                 %18s %18s %18s\n", titles[0], titles[1], titles[2]);
    auto row = [&](const char* what, auto get) {
        std::printf("  %-26s", what);
        for (int i = 0; i < 3; ++i) std::printf(" %18s", get(c[i]).c_str());
        std::printf("\n");
    };
    auto n = [](uint64_t v) { return std::to_string(v); };
    row("dispatches", [&](const BackendCounters& x) { return n(x.dispatches); });
    row("barriers", [&](const BackendCounters& x) { return n(x.barriers); });
    row("queue submissions", [&](const BackendCounters& x) { return n(x.submissions); });
    row("command buffers recorded", [&](const BackendCounters& x) { return n(x.recordings); });
    row("command buffers replayed", [&](const BackendCounters& x) { return n(x.replays); });
    row("uploads", [&](const BackendCounters& x) { return n(x.uploads) + " / " + bytes_text(x.bytes_uploaded); });
    row("downloads", [&](const BackendCounters& x) { return n(x.downloads) + " / " + bytes_text(x.bytes_downloaded); });
    row("device allocations", [&](const BackendCounters& x) { return n(x.allocations) + " / " + bytes_text(x.bytes_allocated); });
}

void print_device_time(const char* title, const BackendCounters& c) {
    if (c.device_ms.empty()) return;
    double total = 0.0;
    for (const auto& [family, ms] : c.device_ms) total += ms;
    std::printf("device time, %s (timestamps around %llu dispatches): %.2f ms\n", title,
                static_cast<unsigned long long>(c.timed_dispatches), total);
    std::vector<std::pair<double, std::string>> by_time;
    for (const auto& [family, ms] : c.device_ms) by_time.emplace_back(ms, family);
    std::sort(by_time.rbegin(), by_time.rend());
    for (const auto& [ms, family] : by_time)
        std::printf("  %-26s %9.3f ms %5.1f %%\n", family.c_str(), ms, 100.0 * ms / total);
}

int run_bench(const BenchArgs& a) {
    const Config c = a.large ? synthetic_config(Config::tutorial(), 1000, 64, 64) : Config::tutorial();
    const int B = a.large ? 32 : 2;
    Transformer model(c, init_params(c, 0), a.backend.get());
    const Batch batch = random_batch(c, B, c.src_len, c.tgt_len, 1);
    Trace trace;
    ParamSet grads;
    Optimizer opt(OptimizerOptions{}, model.params());
    Backend& be = model.backend();
    if (a.counts && !be.counters()) {
        std::fprintf(stderr, "stepformer: --counts: the %s backend computes in the host's memory and has no device "
                             "counters (try --backend gpu)\n",
                     be.name().c_str());
        return 1;
    }
    // A Trainer's steps (weights and optimizer state resident on the device), counted before
    // anything else runs: the first (what is recorded, allocated and uploaded the first time) and
    // the third. Then a traced forward pass.
    const auto trainer_data = [&] {
        std::vector<Example> data, rows = examples_of(c, batch);
        for (int i = 0; i < 3; ++i) data.insert(data.end(), rows.begin(), rows.end());
        return data;
    };
    BackendCounters counts[3];
    if (a.counts) {
        Transformer trained(c, init_params(c, 0), a.backend.get());
        const std::vector<BackendCounters> steps = trainer_step_counts(trained, trainer_data(), B, 3);
        model.forward(batch, trace);  // the first pass makes its constants (the positional table)
        counts[0] = counted(be, [&] { model.forward(batch, trace); });
        counts[1] = steps.front();
        counts[2] = steps.back();
    }
    const auto lean_step = [&] { train_step(model, batch, trace, grads, opt, nullptr, false); };
    std::printf("backend: %s, model: d_model %d, %d layers, batch %d x length %d/%d, %.1f M parameters\n",
                model.backend().describe().c_str(), c.d_model, c.n_layers, B, c.src_len, c.tgt_len,
                model.params().total_elements() / 1e6);
    const double fwd = median_ms(a.iters, [&] { model.forward(batch, trace); });
    std::printf("forward with full trace:                   %8.2f ms\n", fwd);
    const double step = median_ms(a.iters, [&] { train_step(model, batch, trace, grads, opt); });
    std::printf("training step (fwd+bwd+SGD, memory planned): %6.2f ms\n", step);
    const double lean = median_ms(a.iters, lean_step);
    std::printf("  update fused, no dW stored (trainer's):  %8.2f ms\n", lean);
    std::printf("peak resident memory:                      %8.1f MB\n", peak_rss_mb());
    if (a.counts) {
        const char* const titles[3] = {"traced forward", "first step", "later step"};
        print_counts(titles, counts);
        std::printf("(steps: a Trainer's, its weights and optimizer state kept on the device)\n");
        // Timestamps on: every command buffer is recorded afresh, so the times come from runs of their own.
        if (be.set_profiling(true)) {
            const BackendCounters fwd = counted(be, [&] { model.forward(batch, trace); });
            Transformer trained(c, init_params(c, 0), a.backend.get());
            const std::vector<BackendCounters> steps = trainer_step_counts(trained, trainer_data(), B, 2);
            be.set_profiling(false);
            print_device_time("traced forward", fwd);
            print_device_time("later step", steps.back());
        } else {
            std::printf("(the device has no timestamps: no device times)\n");
        }
    }
    return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, Action& run) {
    auto* cmd = app.add_subcommand("bench", "time the forward pass and a training step at the tutorial's size");
    auto a = std::make_shared<BenchArgs>();
    cmd->add_option("--iters", a->iters, "timed iterations (median reported)")->check(CLI::Range(1, 10000));
    cmd->add_flag("--large", a->large, "batch 32 x length 64 with 1000-word vocabularies instead");
    cmd->add_flag("--counts", a->counts,
                  "also print the device's work per traced forward pass and per training step (first and later): "
                  "dispatches, barriers, submissions, recordings, copies, allocations, and device time per kernel "
                  "family where the device has timestamps");
    a->backend.add_to(*cmd);
    cmd->callback([&run, a] { run = [a] { return run_bench(*a); }; });
}

}  // namespace cli
