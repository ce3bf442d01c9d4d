// `stepformer-cli bench`: the figures users ask about, timed on their machine. The Google
// Benchmarks in bench/ are the reference measurements; this is the quick look.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cli_common.h"
#include "stepformer/dataset.h"
#include "stepformer/optimizer.h"
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
    BackendOption backend;
};

int run_bench(const BenchArgs& a) {
    const Config c = a.large ? synthetic_config(Config::tutorial(), 1000, 64, 64) : Config::tutorial();
    const int B = a.large ? 32 : 2;
    Transformer model(c, init_params(c, 0), a.backend.get());
    const Batch batch = random_batch(c, B, c.src_len, c.tgt_len, 1);
    Trace trace;
    ParamSet grads;
    Optimizer opt(OptimizerOptions{}, model.params());
    std::printf("backend: %s, model: d_model %d, %d layers, batch %d x length %d/%d, %.1f M parameters\n",
                model.backend().describe().c_str(), c.d_model, c.n_layers, B, c.src_len, c.tgt_len,
                model.params().total_elements() / 1e6);
    const double fwd = median_ms(a.iters, [&] { model.forward(batch, trace); });
    std::printf("forward with full trace:                   %8.2f ms\n", fwd);
    const double step = median_ms(a.iters, [&] { train_step(model, batch, trace, grads, opt); });
    std::printf("training step (fwd+bwd+SGD, memory planned): %6.2f ms\n", step);
    const double lean = median_ms(a.iters, [&] { train_step(model, batch, trace, grads, opt, nullptr, false); });
    std::printf("  update fused, no dW stored (trainer's):  %8.2f ms\n", lean);
    std::printf("peak resident memory:                      %8.1f MB\n", peak_rss_mb());
    return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, Action& run) {
    auto* cmd = app.add_subcommand("bench", "time the forward pass and a training step at the tutorial's size");
    auto a = std::make_shared<BenchArgs>();
    cmd->add_option("--iters", a->iters, "timed iterations (median reported)")->check(CLI::Range(1, 10000));
    cmd->add_flag("--large", a->large, "batch 32 x length 64 with 1000-word vocabularies instead");
    a->backend.add_to(*cmd);
    cmd->callback([&run, a] { run = [a] { return run_bench(*a); }; });
}

}  // namespace cli
