// A training run's worker (TrainingController::start hands it a Run): the Trainer on its own
// model, each step and epoch snapshot posted through the mailbox, live traces and the pace, and
// the outcome (or the failure) posted back to the GUI thread.
#include "training/training_run.h"

#include <chrono>
#include <limits>
#include <map>

#include <QCoreApplication>

#include "app/core_text.h"
#include "stepformer/backend.h"
#include "stepformer/compute_threads.h"
#include "stepformer/model.h"
#include "training/training_traces.h"
#include "widgets/background_pool.h"
#include "widgets/text_util.h"
#include "widgets/thread_handoff.h"

using namespace stepformer;

namespace {

// A call from the worker for the GUI thread, run by TrainingController::event (direct when the
// run is synchronous). Pending calls go with the controller (Qt drops a deleted receiver's events).
void postToGui(QObject* to, std::function<void()> f, Qt::ConnectionType delivery) {
    if (delivery == Qt::DirectConnection) {
        f();
        return;
    }
    auto* call = new GuiCall(std::move(f));
    handOff(guiEventQueue());
    QCoreApplication::postEvent(to, call);
}

using ui_text::qs;
using training_traces::liveForward;
using training_traces::replayBatch;
using training_traces::takeSnapshot;

}  // namespace

void TrainingController::runJob(Run& run) {
    const quint64 gen = run.gen;
    const std::shared_ptr<Shared> shared = run.shared;
    const Config& config = run.config;
    Backend* const backend = run.backend;
    std::shared_ptr<const void>& hold = run.hold;
    StartPoint& from = run.from;
    const std::vector<Example>& data = run.data;
    // The app keeps the second buffer: its runs hold one copy of the weights, not of the
    // optimizer state too, and a tutorial-size run then stays under the 1 GB the app keeps to
    // (stepformer_memory_bench train, 100-epoch runs, two each: 939-940 MB peak, 1106-1108 MB with the rollback).
    TrainOptions options = run.options;
    options.divergence_guard = TrainOptions::DivergenceGuard::SecondBuffer;
    const std::string &replaySrc = run.replaySrc, &replayTgt = run.replayTgt;
    const Qt::ConnectionType delivery = run.delivery;
    Epilogue& epilogue = run.epilogue;
    const bool synchronous = run.synchronous, snapshots = run.snapshots, keepOptimizer = run.keepOptimizer;

    if (!synchronous) lowerThreadPriority();  // (widgets/background_pool.h)
    const stepformer::UsingReservedCores usingCores;
    struct Unreserve {
        std::shared_ptr<const void>& hold;
        ~Unreserve() { hold.reset(); }  // however the job ends, not when its thread object goes
    } unreserve{hold};
    try {
        ParamSet params = from.params ? *from.params : init_params(config, from.seed);
        from.params.reset();  // copied: the run does not keep the starting weights alive
        // A unique_ptr: when the GPU is lost the weights move to a model on the CPU.
        auto model = std::make_unique<Transformer>(config, std::move(params), backend);
        auto trainer = std::make_unique<Trainer>(*model, data, options);
        if (from.optimizerJson && from.optimizerTensors) {
            std::map<std::string, const Tensor*> tensors;
            for (const auto& [name, t] : *from.optimizerTensors) tensors.emplace(name, &t);
            trainer->optimizer().load_state(*from.optimizerJson, tensors);
        }
        from.optimizerTensors.reset();
        const Batch replay = replayBatch(config, replaySrc, replayTgt, data);
        // Everything for the GUI goes through the mailbox; at most one delivery is queued at
        // a time, so a fast model cannot flood the event queue.
        auto post = [&](Shared::Item item) {
            bool notify = false;
            {
                std::lock_guard<std::mutex> lock(shared->mu);
                shared->pending.push_back(std::move(item));
                if (!shared->flushPosted) notify = shared->flushPosted = true;
            }
            if (notify) postToGui(this, [this, gen] { deliverPending(gen); }, delivery);
        };
        const int stride = snapshotStride(options.epochs);
        auto snapshot = [&](int epoch, double meanLoss) {
            if (!snapshots) return;
            Shared::Item item;
            item.snapshot = takeSnapshot(*model, replay, epoch, meanLoss);
            post(std::move(item));
        };
        snapshot(0, std::numeric_limits<double>::quiet_NaN());

        // Live traces: at most one a step and one every liveIntervalMs of wall time.
        using Clock = std::chrono::steady_clock;
        // The first step's may go at once: the views turn live as the run starts.
        Clock::time_point lastLive = Clock::now() - std::chrono::hours(1);
        auto maybeLive = [&](const TrainingStep& at) {
            std::string src, tgt;
            {
                std::lock_guard<std::mutex> lock(shared->mu);
                if (!shared->liveOn ||
                    Clock::now() - lastLive < std::chrono::milliseconds(shared->liveIntervalMs))
                    return;
                src = shared->liveSrc;
                tgt = shared->liveTgt;
            }
            lastLive = Clock::now();
            auto trace = liveForward(*model, src, tgt);
            if (!trace) return;
            auto live = std::make_shared<LiveTrace>();
            live->trace = std::move(trace);
            live->config = config;
            live->source = qs(src);
            live->target = qs(tgt);
            live->step = at;
            bool notify = false;
            {
                std::lock_guard<std::mutex> lock(shared->mu);
                // Dropped when the sentences or the switch changed meanwhile.
                if (!shared->liveOn || shared->liveSrc != src || shared->liveTgt != tgt) return;
                shared->liveTrace = std::move(live);
                if (!shared->flushPosted) notify = shared->flushPosted = true;
            }
            if (notify) postToGui(this, [this, gen] { deliverPending(gen); }, delivery);
        };
        // The pace: the step that just ended took at least paceMs since the last one did
        // (none after the last step). Stop and reset end the wait at once; a pace change
        // applies to it.
        Clock::time_point stepStart = Clock::now();
        auto pace = [&](const TrainingStep& at) {
            // A synchronous run blocks its caller until done: never paced.
            if (!synchronous && at.step < at.stepsTotal) {
                std::unique_lock<std::mutex> lock(shared->mu);
                while (shared->paceMs > 0 && !shared->control.stop_requested()) {
                    const auto until = stepStart + std::chrono::milliseconds(shared->paceMs);
                    if (Clock::now() >= until) break;
                    shared->cv.wait_until(lock, until);
                }
            }
            stepStart = Clock::now();
        };

        double epochLoss = 0.0;
        int epochSteps = 0;
        bool lostDevice = false;
        TrainResult r = trainer->run(
            [&](const StepReport& s) {
                epochLoss += s.loss;
                ++epochSteps;
                Shared::Item item;
                TrainingStep& t = item.step;
                t.epoch = s.epoch;
                t.step = s.step;
                t.stepsTotal = s.steps_total;
                t.stepInEpoch = s.step_in_epoch;
                t.stepsPerEpoch = s.steps_per_epoch;
                t.loss = s.loss;
                t.gradNorm = s.grad_norm;
                t.lr = s.lr;
                t.elapsedS = s.elapsed_s;
                const TrainingStep at = t;
                post(std::move(item));
                maybeLive(at);
                pace(at);
            },
            [&](int epoch) {
                // A forward pass of the replay sentence after the epoch (every stride-th
                // epoch of a very long run, and the last).
                if (epoch % stride == 0 || epoch == options.epochs)
                    snapshot(epoch, epochSteps ? epochLoss / epochSteps : std::numeric_limits<double>::quiet_NaN());
                epochLoss = 0.0;
                epochSteps = 0;
            },
            &shared->control);
        QString message = coreText(r.message_value);  // the core's message in the user's language
        if (r.device_lost) {
            // The Trainer kept the weights and optimizer state the host last had: the run stops
            // with them, on a model on the CPU, and the app goes on there.
            const QString why = message;
            message = tr("the GPU stopped working (%1); training goes on on the CPU when started again").arg(why);
            lostDevice = true;
            postToGui(this, [this, why] { emit deviceLost(why); }, delivery);
        }

        // The run's working memory goes before the epilogue (which may save the model): the
        // trainer's gradients and trace, and its optimizer state unless it is kept.
        std::shared_ptr<const Optimizer> optimizer;
        if (keepOptimizer) {
            // Kept for a checkpoint that may never be saved: in a temporary file until then.
            auto kept = std::make_shared<Optimizer>(std::move(trainer->optimizer()));
            kept->spill_state();
            optimizer = std::move(kept);
        }
        trainer.reset();  // it refers to the model
        if (lostDevice) {
            ParamSet kept = std::move(model->params());
            model = std::make_unique<Transformer>(config, std::move(kept), &default_backend());
        }
        if (epilogue) epilogue(*model, r.status);
        auto outcome = std::make_shared<TrainingOutcome>();
        outcome->status = int(r.status == TrainStatus::Finished  ? State::Finished
                              : r.status == TrainStatus::Stopped ? State::Stopped
                                                                 : State::Diverged);
        outcome->message = message;
        outcome->stepsDone = r.steps_done;
        outcome->lastLoss = r.last_loss;
        outcome->config = config;
        outcome->params = std::make_shared<ParamSet>(std::move(model->params()));
        outcome->optimizer = std::move(optimizer);
        hold.reset();  // before the outcome arrives: the GUI thread computes with every thread again
        postToGui(this, [this, gen, outcome] { deliverOutcome(gen, outcome); }, delivery);
    } catch (const std::exception& e) {
        const QString msg = coreText(e);
        hold.reset();
        postToGui(this, [this, gen, msg] { deliverFailure(gen, msg); }, delivery);
    }
}
