#include "stepformer/train.h"

#include "stepformer/devices.h"
#include "train_rollback.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>

namespace stepformer {

void TrainOptions::validate() const {
    if (epochs < 1 || epochs > 1000000) throw InvalidArgument(Message(Msg::train_epochs, {epochs}));
    if (batch_size < 1 || batch_size > 65536) throw InvalidArgument(Message(Msg::train_batch_size, {batch_size}));
    optimizer.validate();
}

void TrainControl::request_stop() {
    stop_ = true;
    std::lock_guard<std::mutex> lock(mu_);
    cv_.notify_all();
}

void TrainControl::pause() { paused_ = true; }

void TrainControl::resume() {
    paused_ = false;
    std::lock_guard<std::mutex> lock(mu_);
    cv_.notify_all();
}

bool TrainControl::checkpoint() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !paused_.load() || stop_.load(); });
    return !stop_.load();
}

static OptimizerOptions with_model_size(OptimizerOptions o, const Config& c) {
    o.d_model = c.d_model;
    return o;
}

// The gradients the Trainer's backward pass stores. The linear weights' updates are fused into
// the kernels that compute their gradients without keeping them (keep_gradient false), so only
// the accumulated ones get storage: the embedding tables and LayerNorm gamma/beta, which
// Transformer::backward zeroes and sums into (the same rule it uses). The linear weights' entries
// keep their shapes but hold no data: a model-sized buffer (176 MB at the tutorial's size) that
// would only ever hold zeros.
static ParamSet accumulated_gradients(const Config& c) {
    std::vector<ParamSpec> specs = param_specs(c);
    std::vector<Shape> shapes;
    for (ParamSpec& sp : specs) {
        shapes.push_back(sp.shape);
        if (!sp.grad_accumulates) sp.shape = {0};
    }
    ParamSet grads(specs);
    for (size_t i = 0; i < grads.size(); ++i) grads[i].shape = shapes[i];
    return grads;
}

Trainer::Trainer(Transformer& model, std::vector<Example> data, TrainOptions opt)
    : model_(model), data_(std::move(data)), options_(opt),
      opt_(with_model_size(opt.optimizer, model.config()), model.params()),
      grads_(accumulated_gradients(model.config())) {
    options_.validate();
    // A NaN or ±inf weight would turn every loss and gradient into NaN: refused before any step,
    // naming the parameter (the app opens such weights to show them, the trainer does not).
    if (const auto bad = non_finite_parameters(std::as_const(model_).params()); !bad.empty())
        throw WeightsError(Message(Msg::train_weights_not_finite, {non_finite_message(bad.front())}));
    if (data_.empty()) throw DataError(Message(Msg::data_empty));
    // Validate every example up front so a bad token is reported before any step runs.
    for (size_t i = 0; i < data_.size(); ++i) {
        try {
            make_training_batch(model_.config(), data_, {i});
        } catch (const ConfigError& e) {
            throw DataError(Message(Msg::data_example, {i + 1, e.message()}));
        }
    }
}

int Trainer::steps_per_epoch() const {
    return static_cast<int>((data_.size() + size_t(options_.batch_size) - 1) / size_t(options_.batch_size));
}

namespace {
// Hands each parameter to the optimizer as soon as the backward pass is done with it (linear
// weights inside the kernel that computes their gradient), and sums the squared gradients for
// the norm on the way. With `out`, the updated weights go there and `params` stays as it was.
class OptimizerUpdater final : public ParamUpdater {
public:
    OptimizerUpdater(Optimizer& opt, ParamSet& params, ParamSet& grads, Backend& be, bool keep_grads, ParamSet* out,
                     const float* apply_if)
        : opt_(opt), params_(params), grads_(grads), be_(be), keep_grads_(keep_grads), out_(out), apply_if_(apply_if) {}
    const Fused* fused_update(size_t i) override {
        ++visited_;
        fused_.weight = params_[i].ptr();
        fused_.keep_gradient = keep_grads_;
        fused_.update = spec(i);
        fused_.grad_sum_squares = &sum_squares_;  // every gradient adds into one scalar, read after the sync
        return &fused_;
    }
    void ready(size_t i, Staging& st) override {
        ++visited_;
        const float* g = st.in(grads_[i]);  // computed in this pass: already where the backend computes
        be_.sum_squares(&sum_squares_, g, grads_[i].size());
        const StagedUpdate u = stage_update(st, params_[i].ptr(), params_[i].size(), spec(i));
        be_.apply_update(u.weight, g, params_[i].size(), u.update);
    }
    double grad_norm() const { return std::sqrt(sum_squares_); }  // after Backend::sync()
    size_t visited() const { return visited_; }

private:
    WeightUpdate spec(size_t i) {
        WeightUpdate u = opt_.weight_update(i);
        if (out_) u.out = (*out_)[i].ptr();
        u.apply_if = apply_if_;
        return u;
    }
    Optimizer& opt_;
    ParamSet& params_;
    ParamSet& grads_;
    Backend& be_;
    bool keep_grads_;
    ParamSet* out_;
    const float* apply_if_;
    Fused fused_;
    double sum_squares_ = 0.0;
    size_t visited_ = 0;
};

// Backward with the optimizer step fused in; returns the gradient norm. With apply_if (the host
// tensor of a flag in the trace), the updates are made only where the flag is non-zero.
double backward_and_update(Transformer& model, const Batch& batch, Trace& trace, ParamSet& grads, Optimizer& opt,
                           bool keep_grads, ParamSet* out = nullptr, const Tensor* apply_if = nullptr) {
    opt.begin_step();
    OptimizerUpdater updater(opt, model.params(), grads, model.backend(), keep_grads, out,
                             apply_if ? apply_if->ptr() : nullptr);
    model.backward(batch, trace, grads, false, &updater);  // synchronises once: the gradient norm is in
    // Every parameter must have been updated (written to `out`), or the swap would bring back stale ones.
    if (updater.visited() != model.params().size())
        throw std::logic_error("backward: " + std::to_string(updater.visited()) + " of " +
                               std::to_string(model.params().size()) + " parameters were updated");
    return updater.grad_norm();
}
}  // namespace

double train_step(Transformer& model, const Batch& batch, Trace& trace, ParamSet& grads, Optimizer& opt,
                  double* grad_norm, bool keep_param_grads) {
    ForwardOptions fo;
    fo.finish = false;    // the backward pass synchronises for all three
    fo.keep_all = false;  // nothing reads the step's tensors but its backward
    model.forward(batch, trace, fo);
    model.queue_loss(batch, trace);
    const double norm = backward_and_update(model, batch, trace, grads, opt, keep_param_grads);
    const double loss = trace.at("loss").value.data[0];
    if (grad_norm) *grad_norm = norm;
    return loss;
}

namespace {
// A run's weights, second weight buffer, optimizer state and accumulated gradients, kept where
// the backend computes for the whole run (nothing on the CPU, which computes on them in place).
class Residency {
public:
    Residency(Transformer& model, ParamSet& previous, Optimizer& opt, ParamSet& grads, Trace& trace)
        : model_(model), opt_(opt), trace_(trace), settled_step_(opt.step_count()) {
        if (model.backend().host_memory()) return;
        kept_ = std::make_unique<Staging>(model.backend());
        for (ParamSet* set : {&model.params(), &previous, &grads})
            for (size_t i = 0; i < set->size(); ++i)
                if ((*set)[i].size() > 0) kept_->keep((*set)[i]);
        for (Tensor* t : opt.mutable_state()) kept_->keep(*t);
        model.set_resident(kept_.get());
    }
    ~Residency() { end(); }
    Residency(const Residency&) = delete;
    Residency& operator=(const Residency&) = delete;

    bool active() const { return bool(kept_); }
    // The host's weights and optimizer state up to date (one wait, the copies back); without
    // `keep` the residency ends there.
    void settle(bool keep = false) {
        if (!kept_) return;
        kept_->finish();
        settled_step_ = opt_.step_count();
        if (!keep) end();
    }
    // The device failed: its copies are dropped, and the optimizer goes back to the step whose
    // state the host has.
    void abandon() {
        if (!kept_) return;
        end();
        opt_.rewind(settled_step_);
    }

private:
    void end() {
        if (!kept_) return;
        model_.set_resident(nullptr);
        trace_.release_staging();  // its staging's parent goes now
        kept_.reset();
    }
    Transformer& model_;
    Optimizer& opt_;
    Trace& trace_;
    int64_t settled_step_;
    std::unique_ptr<Staging> kept_;
};
}  // namespace

TrainResult Trainer::run(const std::function<void(const StepReport&)>& on_step,
                         const std::function<void(int)>& on_epoch, TrainControl* control) {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    const int per_epoch = steps_per_epoch();
    train_detail::BatchCursor at;  // the next step's batch
    at.start(data_.size(), options_.seed, options_.shuffle);
    TrainResult result;
    // The weights from before a step that diverges: on the host's memory, unless the caller asks
    // for the second buffer, the updates are made in place and a Rollback keeps a copy now and
    // then to replay from (train_rollback.h); otherwise, and always on a device, where a copy or
    // a replay would cross to the host, each step writes its updated weights into `previous` and
    // then swaps (no per-step copy).
    const bool in_place = model_.backend().host_memory() &&
                          options_.divergence_guard == TrainOptions::DivergenceGuard::Rollback;
    ParamSet previous = in_place ? ParamSet() : model_.params();
    train_detail::Rollback rollback(options_.rollback_every_steps);
    Residency resident(model_, previous, opt_, grads_, trace_);

    auto batch_at = [&](const train_detail::BatchCursor& c) {
        const size_t lo = size_t(c.batch) * size_t(options_.batch_size);
        const size_t hi = std::min(c.order.size(), lo + size_t(options_.batch_size));
        return make_training_batch(model_.config(), data_,
                                   std::vector<size_t>(c.order.begin() + long(lo), c.order.begin() + long(hi)));
    };
    auto forward = [&](const Batch& batch, int index) {
        ForwardOptions fo;
        fo.train = true;
        fo.seed = options_.seed;
        fo.step = uint64_t(index);  // this step's dropout masks: (seed, step) alone decide them
        fo.finish = false;          // the step's one synchronisation is the backward pass's
        fo.trace_to_host = false;   // it reads its loss and gradient norm, scalars, and nothing else
        fo.keep_all = false;        // and its tensors go as soon as the backward pass is done with them
        model_.forward(batch, trace_, fo);
        model_.queue_loss(batch, trace_);
    };
    // The updates are made only when the loss is finite (the flag stays on the device, nothing waits for it).
    auto backward = [&](const Batch& batch) {
        return backward_and_update(model_, batch, trace_, grads_, opt_, false, in_place ? nullptr : &previous,
                                   &trace_.at("loss").saved.finite);
    };
    auto loss_now = [&] { return double(trace_.at("loss").value.data[0]); };
    auto replay = [&](const train_detail::BatchCursor& c, int index) {
        const Batch batch = batch_at(c);
        forward(batch, index);
        backward(batch);
        return loss_now();
    };

    int step = 0;
    int host_step = 0;  // the step whose weights the host has (brought back by resident.settle())
    auto last_settle = clock::now();
    try {
    // The residency's uploads done before the first step, not queued into it: every step then
    // queues the same commands (a GPU submits the command buffer the first one recorded again).
    if (resident.active()) model_.backend().sync();
    if (in_place) rollback.keep(model_.params(), opt_, at, 0);  // what a bad first loss goes back to
    while (at.epoch <= options_.epochs) {
        const int epoch = at.epoch;
        if (control && !control->checkpoint()) {
            resident.settle();
            result.status = TrainStatus::Stopped;
            result.steps_done = step;
            result.message_value = Message(Msg::train_stopped, {step});
            result.message = result.message_value.text();
            return result;
        }
        const Batch batch = batch_at(at);
        const auto step_start = clock::now();
        forward(batch, step);
        ++step;
        if (in_place) {
            model_.backend().sync();  // the loss, a scalar (backend.h)
            if (std::isfinite(loss_now()) && rollback.due()) rollback.keep(model_.params(), opt_, at, step - 1);
        }
        const double lr = opt_.current_lr();
        const double gnorm = backward(batch);
        const double loss = loss_now();
        if (!std::isfinite(loss) || !std::isfinite(gnorm)) {
            resident.settle();  // the host's buffers up to date before they are swapped and reset
            // A bad loss: the last step's weights produced it, so go back one more (as before);
            // a bad gradient: back to the weights from before this step (on a device its update
            // went to `previous` only, and the current weights are those).
            const int want = std::isfinite(loss) ? step - 1 : std::max(step - 2, 0);
            int kept = want;
            if (in_place)
                kept = rollback.restore(model_.params(), opt_, want, per_epoch, options_.shuffle, replay);
            else if (!std::isfinite(loss))
                std::swap(model_.params(), previous);
            opt_ = Optimizer(opt_.options(), model_.params());  // its moments saw the bad gradient too
            result.status = TrainStatus::Diverged;
            result.steps_done = kept < want ? kept : step - 1;
            result.message_value =
                Message(Msg::train_diverged,
                        {Message(std::isfinite(loss) ? Msg::train_the_gradient : Msg::train_the_loss),
                         std::isnan(std::isfinite(loss) ? gnorm : loss) ? MessageArg("NaN") : Message(Msg::train_infinite),
                         step, epoch});
            result.message = result.message_value.text();
            return result;
        }
        if (in_place)
            rollback.stepped(loss, std::chrono::duration<double>(clock::now() - step_start).count());
        else
            std::swap(model_.params(), previous);
        result.last_loss = loss;
        result.steps_done = step;
        if (on_step) {
            StepReport r;
            r.epoch = epoch;
            r.step = step;
            r.steps_total = per_epoch * options_.epochs;
            r.step_in_epoch = at.batch + 1;
            r.steps_per_epoch = per_epoch;
            r.loss = loss;
            r.grad_norm = gnorm;
            r.lr = lr;
            r.elapsed_s = std::chrono::duration<double>(clock::now() - t0).count();
            on_step(r);
        }
        at.next(per_epoch, options_.shuffle);
        if (at.epoch == epoch) continue;
        // Every few seconds the host's copies catch up, so that a lost device leaves recent ones.
        if (resident.active() && clock::now() - last_settle > std::chrono::seconds(5)) {
            resident.settle(/*keep=*/true);
            host_step = step;
            last_settle = clock::now();
        }
        if (on_epoch) on_epoch(epoch);
    }
    resident.settle();
    } catch (const DeviceLost& e) {
        // What the device computed since the last settle is gone; the host has step host_step's
        // weights and optimizer state (settle() copies both together).
        resident.abandon();
        result.status = TrainStatus::Stopped;
        result.device_lost = true;
        result.steps_done = host_step;
        // (lost before the first step: while its weights were being uploaded for it)
        result.message_value = Message(Msg::train_device_lost, {std::max(step, 1), as_message(e), host_step});
        result.message = result.message_value.text();
        return result;
    }
    result.status = TrainStatus::Finished;
    result.message_value = Message(Msg::train_finished, {step});
    result.message = result.message_value.text();
    return result;
}

}  // namespace stepformer
