// The training loop as a library: epochs x batches, a callback after every step, pause/stop
// from another thread between steps. The GUI runs it on a worker thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "stepformer/dataset.h"
#include "stepformer/model.h"
#include "stepformer/optimizer.h"

namespace stepformer {

struct TrainOptions {
    int epochs = 30;
    int batch_size = 2;
    bool shuffle = true;
    uint64_t seed = 0;  // shuffling and dropout
    OptimizerOptions optimizer;
    // How a run on the CPU keeps the weights from before a step that diverges (a device's run
    // always uses a second buffer). Not config keys: the weights a run leaves are the same either way.
    //  - Rollback: the updates are made in place; now and then the run copies its weights and
    //    optimizer state, and on divergence replays the steps since the copy (train_rollback.h).
    //    The faster step (the tutorial's ~31 against ~36-45 ms); the copy holds the optimizer
    //    state too, one more model-sized array for SGD, two for Adam.
    //  - SecondBuffer: each step writes its updates into a second weight buffer and swaps; one
    //    copy of the weights and nothing more (the app's runs, which keep to a memory budget).
    enum class DivergenceGuard { Rollback, SecondBuffer };
    DivergenceGuard divergence_guard = DivergenceGuard::Rollback;
    // Rollback: a copy every that many steps; 0 (or less): as often as keeps the copies near 2 %
    // of the run's time. Tests set it to replay from a later copy.
    int rollback_every_steps = 0;
    void validate() const;  // throws std::invalid_argument naming the bad value
};

struct StepReport {
    int epoch = 0;          // 1-based
    int step = 0;           // 1-based optimizer step, over the whole run
    int steps_total = 0;
    int step_in_epoch = 0;  // 1-based
    int steps_per_epoch = 0;
    double loss = 0.0;
    double grad_norm = 0.0;
    double lr = 0.0;
    double elapsed_s = 0.0;
};

enum class TrainStatus { Finished, Stopped, Diverged };

struct TrainResult {
    TrainStatus status = TrainStatus::Finished;
    int steps_done = 0;
    double last_loss = 0.0;
    std::string message;  // e.g. "loss became NaN at step 12; the weights of step 11 were kept"
    Message message_value;  // the same as a message value (message.h), for the app to translate
    // The device stopped working under the run (DeviceLost): status Stopped, and the model holds
    // the weights (and the optimizer its state) of step steps_done, the last the host has.
    bool device_lost = false;
};

// Thread-safe controls for a running training.
class TrainControl {
public:
    void request_stop();
    void pause();
    void resume();
    bool paused() const { return paused_.load(); }
    bool stop_requested() const { return stop_.load(); }
    // Called by the loop between steps: blocks while paused; returns false when stop was asked.
    bool checkpoint();

private:
    std::atomic<bool> stop_{false}, paused_{false};
    std::mutex mu_;
    std::condition_variable cv_;
};

// One training step without dropout: forward, loss, backward with the optimizer update fused
// into it, its memory planned (ForwardOptions::keep_all = false: the trace keeps its loss, not
// its activations, and records no gradients). Returns the loss. What the benchmarks time. Without
// `keep_param_grads` the linear weights' gradients are applied but not stored in `grads`
// (their entries keep old values): less memory traffic, as the Trainer runs.
double train_step(Transformer& model, const Batch& batch, Trace& trace, ParamSet& grads, Optimizer& opt,
                  double* grad_norm = nullptr, bool keep_param_grads = true);

class Trainer {
public:
    Trainer(Transformer& model, std::vector<Example> data, TrainOptions opt);

    // Runs to the end (or stop/divergence). `on_step` is called after every optimizer step on the
    // calling thread; `on_epoch` after every epoch. On divergence (NaN/inf loss or gradient) the
    // weights are restored to the last good step (on the CPU, which updates them in place, from
    // a copy kept now and then and a replay of the steps since: core/src/train_rollback.h).
    //
    // On a backend with memory of its own the weights, the second weight buffer, the optimizer
    // state and the accumulated gradients stay there for the whole run (Transformer::
    // set_resident), and so does each step's trace (ForwardOptions::trace_to_host): a step uploads
    // its batch and brings back its scalars (loss, gradient norm), nothing else. The host's weights and optimizer state are brought up to date when run()
    // returns, and every few seconds at the end of an epoch, so that a device lost under the run
    // (TrainResult::device_lost) leaves recent ones. Meanwhile the callbacks may run passes on the
    // model (they use the device's weights) but must not read model.params() on the host.
    TrainResult run(const std::function<void(const StepReport&)>& on_step = {},
                    const std::function<void(int epoch)>& on_epoch = {}, TrainControl* control = nullptr);

    Optimizer& optimizer() { return opt_; }
    const TrainOptions& options() const { return options_; }
    int steps_per_epoch() const;

private:
    Transformer& model_;
    std::vector<Example> data_;
    TrainOptions options_;
    Optimizer opt_;
    Trace trace_;
    ParamSet grads_;
};

}  // namespace stepformer
