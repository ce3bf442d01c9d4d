// Optimizers exactly as torch.optim does them: SGD with momentum and Adam (with the paper's
// warm-up schedule as an option). State travels in checkpoints so training resumes exactly.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "stepformer/backend.h"
#include "stepformer/params.h"

namespace stepformer {

class Staging;

enum class OptimizerKind { SGD, Adam };

struct OptimizerOptions {
    OptimizerKind kind = OptimizerKind::SGD;
    double lr = 1e-3;         // the tutorial's
    double momentum = 0.99;   // SGD; the tutorial's
    double beta1 = 0.9, beta2 = 0.98, eps = 1e-9;  // Adam, the paper's
    bool warmup_schedule = false;  // Adam: lr = lr * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5)
    int warmup_steps = 4000;
    int d_model = 512;             // for the schedule

    void validate() const;  // throws std::invalid_argument naming the bad value
};

std::string optimizer_name(OptimizerKind k);
OptimizerKind optimizer_from_name(const std::string& name);  // "sgd" | "adam", throws otherwise

class Optimizer {
public:
    Optimizer(OptimizerOptions opt, const ParamSet& params);
    const OptimizerOptions& options() const { return opt_; }
    int64_t step_count() const { return step_; }
    // The learning rate the next step will use.
    double current_lr() const;
    // One update of every parameter from its gradient.
    void step(ParamSet& params, const ParamSet& grads, Backend& be);

    // The same step in pieces: begin_step() once, then update() each parameter (or apply its
    // weight_update() inside a kernel, as Transformer::backward's ParamUpdater does).
    void begin_step();
    void update(size_t index, Tensor& param, const Tensor& grad, Backend& be);
    // The same inside a pass: addresses from `st`, copied back at its finish().
    void update(size_t index, Tensor& param, const Tensor& grad, Backend& be, Staging& st);
    // This step's update of parameter `index` as a kernel argument (Backend::linear_backward_update
    // applies it while computing the gradient); valid after begin_step().
    WeightUpdate weight_update(size_t index);

    // What the next step would add to parameter `index` (new value - old value) for this
    // gradient, without changing any state: the GUI shows it beside the gradient. The same kernel
    // as the step itself, on `be`.
    Tensor preview_update(size_t index, const Tensor& param, const Tensor& grad, Backend& be = default_backend()) const;

    // State as tensors named optim.<param>.momentum_buffer / .exp_avg / .exp_avg_sq, and a
    // JSON description (kind, hyperparameters, step) for the checkpoint metadata.
    std::vector<std::pair<std::string, const Tensor*>> state_tensors() const;
    std::string state_json() const;
    // Moves the state to an anonymous temporary file (std::tmpfile, gone with the last copy of
    // this optimizer) and frees its memory, the size of the model or twice that: for an
    // optimizer kept only in case its state is saved. The next use reads it back exactly. A
    // state that cannot be written stays in memory.
    void spill_state();
    // The state tensors (momentum; Adam's first and second moments), allocated: what a training
    // run keeps on the device. Valid until the state is spilled or the optimizer replaced.
    std::vector<Tensor*> mutable_state();
    // Back to step `step` (<= step_count()), whose state the tensors hold again: a training run
    // whose device was lost keeps the state it last copied back.
    void rewind(int64_t step);
    bool state_spilled() const { return bool(spill_); }
    // Restores from a checkpoint's tensors/metadata; throws std::runtime_error on mismatch.
    void load_state(const std::string& json, const std::map<std::string, const Tensor*>& tensors);

private:
    WeightUpdate update_spec(float lr, int64_t step, float* buf1, float* buf2) const;
    void allocate_state() const;  // the zero (or spilled) state, on first use
    struct Spill;

    OptimizerOptions opt_;
    int64_t step_ = 0;
    float step_lr_ = 0.0f;
    std::vector<std::string> names_;
    std::vector<Shape> shapes_;
    // momentum | exp_avg, exp_avg_sq; empty until first needed (a fresh optimizer's are zero).
    mutable std::vector<Tensor> buf1_, buf2_;
    mutable std::shared_ptr<Spill> spill_;  // set: the state is in this file, not in buf1_/buf2_
};

}  // namespace stepformer
