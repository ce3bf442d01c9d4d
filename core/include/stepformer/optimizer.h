// Optimizers exactly as torch.optim does them: SGD with momentum, Adam (with the paper's
// warm-up schedule as an option) and AdamW (torch 1.13's, with nanoGPT's decay groups). State
// travels in checkpoints so training resumes exactly.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stepformer/backend.h"
#include "stepformer/params.h"

namespace stepformer {

class Staging;

enum class OptimizerKind { SGD, Adam, AdamW };

struct OptimizerOptions {
    OptimizerKind kind = OptimizerKind::SGD;
    double lr = 1e-3;         // the tutorial's
    double momentum = 0.99;   // SGD; the tutorial's
    double beta1 = 0.9, beta2 = 0.98, eps = 1e-9;  // Adam, the paper's (AdamW's: optimizer_defaults)
    // AdamW: decoupled weight decay, param *= 1 - lr * weight_decay each step, on the parameters
    // of 2 or more dimensions only (nanoGPT's configure_optimizers: weight matrices and
    // embeddings decay; biases and LayerNorm weights do not). nanoGPT's 0.1. SGD and Adam ignore it.
    double weight_decay = 0.1;
    bool warmup_schedule = false;  // Adam, AdamW: lr = lr * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5)
    int warmup_steps = 4000;
    int d_model = 512;             // for the schedule

    void validate() const;  // throws std::invalid_argument naming the bad value
};

// The defaults of kind `k`: the struct's, and for AdamW nanoGPT's betas (0.9, 0.95) and
// torch.optim.AdamW's eps 1e-8 (Adam keeps the paper's 0.9, 0.98, 1e-9).
OptimizerOptions optimizer_defaults(OptimizerKind k);

std::string optimizer_name(OptimizerKind k);
OptimizerKind optimizer_from_name(const std::string& name);  // "sgd" | "adam" | "adamw", throws otherwise

// The weight decay a checkpoint's optimizer state (state_json()) records; none when it has no
// "weight_decay" key (a checkpoint from before AdamW, or an SGD/Adam one). Throws
// std::runtime_error (stepformer::Error) when the JSON or the value is bad.
std::optional<double> saved_weight_decay(const std::string& state_json);

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
    // JSON description (kind, hyperparameters, step; AdamW's weight_decay) for the checkpoint
    // metadata.
    std::vector<std::pair<std::string, const Tensor*>> state_tensors() const;
    std::string state_json() const;
    // Moves the state to an anonymous temporary file (std::tmpfile, gone with the last copy of
    // this optimizer) and frees its memory, the size of the model or twice that: for an
    // optimizer kept only in case its state is saved. The next use reads it back exactly. A
    // state that cannot be written stays in memory.
    void spill_state();
    // The state tensors (momentum; Adam's or AdamW's first and second moments), allocated: what
    // a training run keeps on the device. Valid until the state is spilled or the optimizer replaced.
    std::vector<Tensor*> mutable_state();
    // Back to step `step` (<= step_count()), whose state the tensors hold again: a training run
    // whose device was lost keeps the state it last copied back.
    void rewind(int64_t step);
    bool state_spilled() const { return bool(spill_); }
    // Restores from a checkpoint's tensors/metadata; throws std::runtime_error on mismatch. The
    // hyperparameters stay this optimizer's (a resumed run may change them; see
    // saved_weight_decay), but a bad recorded weight_decay is an error.
    void load_state(const std::string& json, const std::map<std::string, const Tensor*>& tensors);

private:
    WeightUpdate update_spec(size_t index, double lr, int64_t step, float* buf1, float* buf2) const;
    bool two_moments() const { return opt_.kind != OptimizerKind::SGD; }  // Adam and AdamW keep buf2_
    void allocate_state() const;  // the zero (or spilled) state, on first use
    struct Spill;

    OptimizerOptions opt_;
    int64_t step_ = 0;
    double step_lr_ = 0.0;
    std::vector<std::string> names_;
    std::vector<Shape> shapes_;
    // momentum | exp_avg, exp_avg_sq; empty until first needed (a fresh optimizer's are zero).
    mutable std::vector<Tensor> buf1_, buf2_;
    mutable std::shared_ptr<Spill> spill_;  // set: the state is in this file, not in buf1_/buf2_
};

}  // namespace stepformer
