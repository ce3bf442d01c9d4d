#include "training/training_controller.h"
#include "widgets/background_pool.h"
#include "widgets/thread_handoff.h"
#include "app/core_text.h"
#include "training/training_traces.h"
#include "widgets/text_util.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <utility>

#include <QCoreApplication>
#include <QThread>

#include "stepformer/heap.h"


#include "stepformer/backend.h"
#include "stepformer/compute_threads.h"
#include "stepformer/dataset.h"
#include "stepformer/model.h"

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
using ui_text::ss;
using training_traces::liveForward;
using training_traces::replayBatch;
using training_traces::takeSnapshot;

}  // namespace

// The mailbox between the worker and the GUI thread, and the run's controls.
struct TrainingController::Shared {
    TrainControl control;
    std::mutex mu;
    // Steps and epoch snapshots in the order the worker produced them.
    struct Item {
        TrainingStep step;
        std::shared_ptr<const AttentionSnapshot> snapshot;  // set: a snapshot, not a step
    };
    std::vector<Item> pending;
    bool flushPosted = false;
    // The newest live trace not yet delivered (an older one is dropped: it is stale).
    std::shared_ptr<const LiveTrace> liveTrace;

    // Set by the GUI thread at any time (under mu); a change wakes a paced wait.
    std::condition_variable cv;
    int paceMs = 0;
    bool liveOn = false;
    int liveIntervalMs = kDefaultLiveIntervalMs;
    std::string liveSrc, liveTgt;

    template <typename F>
    void update(F&& change) {
        {
            std::lock_guard<std::mutex> lock(mu);
            change();
        }
        cv.notify_all();
    }
};

void TrainingController::setBackend(stepformer::Backend* backend) { backend_ = backend ? backend : &default_backend(); }

int TrainingController::snapshotStride(int epochs) { return std::max(1, (epochs + kMaxSnapshots - 1) / kMaxSnapshots); }

TrainingController::TrainingController(QObject* parent) : QObject(parent), backend_(&default_backend()) {
    qRegisterMetaType<TrainingStep>();
    qRegisterMetaType<std::shared_ptr<const AttentionSnapshot>>();
    qRegisterMetaType<std::shared_ptr<const LiveTrace>>();
    qRegisterMetaType<std::shared_ptr<stepformer::ParamSet>>();
    qRegisterMetaType<std::shared_ptr<const stepformer::ParamSet>>();
    qRegisterMetaType<std::shared_ptr<const stepformer::Optimizer>>();
    qRegisterMetaType<TrainingController::State>();
}

TrainingController::~TrainingController() {
    if (shared_) {
        shared_->control.request_stop();
        shared_->control.resume();
        shared_->update([] {});  // out of a paced wait
    }
    // The only place that waits for a worker: it finishes its current step and returns.
    for (const QPointer<QThread>& t : threads_) {
        if (!t) continue;
        t->wait();
        delete t.data();
    }
}

QString TrainingController::stateName(State s) {
    switch (s) {
    case State::Idle: return QStringLiteral("idle");
    case State::Running: return QStringLiteral("running");
    case State::Paused: return QStringLiteral("paused");
    case State::Finished: return QStringLiteral("finished");
    case State::Stopped: return QStringLiteral("stopped");
    case State::Diverged: return QStringLiteral("diverged");
    }
    return {};
}

void TrainingController::setReplaySentence(const QString& source, const QString& decoderInput) {
    replaySrc_ = source.simplified();
    replayTgt_ = decoderInput.simplified();
}

void TrainingController::setPace(int msPerStep) {
    paceMs_ = std::max(0, msPerStep);
    if (shared_) shared_->update([s = shared_.get(), ms = paceMs_] { s->paceMs = ms; });
}

void TrainingController::setLiveTraces(bool on) {
    live_ = on;
    if (shared_) shared_->update([s = shared_.get(), on] {
        s->liveOn = on;
        if (!on) s->liveTrace.reset();  // none arrives after this
    });
}

void TrainingController::setLiveInput(const QString& source, const QString& target) {
    liveSrc_ = source.simplified();
    liveTgt_ = target.simplified();
    if (shared_)
        shared_->update([s = shared_.get(), src = ss(liveSrc_), tgt = ss(liveTgt_)] {
            s->liveSrc = src;
            s->liveTgt = tgt;
            s->liveTrace.reset();  // of the old sentences
        });
}

void TrainingController::setLiveInterval(int ms) {
    liveIntervalMs_ = std::max(1, ms);
    if (shared_) shared_->update([s = shared_.get(), ms = liveIntervalMs_] { s->liveIntervalMs = ms; });
}

void TrainingController::setState(State s) {
    if (state_ == s) return;
    state_ = s;
    emit stateChanged(s);
}

bool TrainingController::event(QEvent* e) {
    // (A worker made its GuiCall before posting it: taken over before the event is read, for
    // ThreadSanitizer, also where no DesktopHabits filter did so first, as in the Session's tests.)
    tookOver(guiEventQueue());
    if (e->type() != GuiCall::eventType()) return QObject::event(e);
    static_cast<GuiCall*>(e)->run();
    return true;
}

bool TrainingController::start(const Config& config, const StartPoint& from, std::vector<Example> data,
                               const TrainOptions& options, QString* error, Epilogue epilogue) {
    auto fail = [&](const QString& msg) {
        if (error) *error = msg;
        return false;
    };
    if (isActive()) return fail(tr("Training is already running."));
    // Cheap checks on the GUI thread, so a mistake is reported before any thread starts.
    try {
        config.validate();
    } catch (const std::exception& e) {
        return fail(tr("Invalid model configuration: %1").arg(coreText(e)));
    }
    try {
        options.validate();
    } catch (const std::exception& e) {
        return fail(tr("Invalid training options: %1").arg(coreText(e)));
    }
    if (data.empty()) return fail(tr("The dataset is empty: add at least one sentence pair."));
    for (size_t i = 0; i < data.size(); ++i) {
        try {
            make_training_batch(config, data, {i});
        } catch (const std::exception& e) {
            return fail(tr("Dataset row %1: %2").arg(QString::number(i + 1), coreText(e)));
        }
    }
    if (from.params) {
        const auto specs = param_specs(config);
        if (from.params->size() != specs.size())
            return fail(tr("The starting weights have %1 parameters, the model needs %2.")
                            .arg(from.params->size())
                            .arg(specs.size()));
        for (size_t i = 0; i < specs.size(); ++i)
            if (from.params->name(i) != specs[i].name || (*from.params)[i].shape != specs[i].shape)
                return fail(tr("The starting weights do not fit the model: %1 is %2, expected %3 %4.")
                                .arg(qs(from.params->name(i)), qs(shape_to_string((*from.params)[i].shape)),
                                     qs(specs[i].name), qs(shape_to_string(specs[i].shape))));
    }

    ++generation_;
    const quint64 gen = generation_;
    shared_ = std::make_shared<Shared>();
    shared_->paceMs = paceMs_;
    shared_->liveOn = live_;
    shared_->liveIntervalMs = liveIntervalMs_;
    shared_->liveSrc = ss(liveSrc_);
    shared_->liveTgt = ss(liveTgt_);
    auto shared = shared_;
    stopping_ = false;
    outcome_.reset();
    last_ = {};
    message_.clear();

    const int perEpoch = int((data.size() + size_t(options.batch_size) - 1) / size_t(options.batch_size));
    const std::string replaySrc = ss(replaySrc_), replayTgt = ss(replayTgt_);

    // The worker. It owns its model; it talks to the GUI thread only through queued calls on
    // `this` (the destructor joins every worker before this object goes away). Synchronous, the
    // same calls are direct: the job runs on the GUI thread, which must keep its priority.
    const bool synchronous = synchronous_, snapshots = snapshots_;
    const Qt::ConnectionType delivery = synchronous ? Qt::DirectConnection : Qt::QueuedConnection;
    stepformer::Backend* const backend = backend_;
    // The run has the cores (stepformer/compute_threads.h): from now until the job ends, the
    // other threads' kernels (this one's too) run on one thread, so that no idle team makes the
    // run's threads sleep between kernels.
    auto cores = stepformer::reserve_cores();
    auto job = [this, gen, shared, config, backend, cores, from = StartPoint(from), data = std::move(data), options, replaySrc, replayTgt, delivery,
                epilogue = std::move(epilogue), synchronous, snapshots, keepOptimizer = keepOptimizer_]() mutable {
        if (!synchronous) lowerThreadPriority();  // (widgets/background_pool.h)
        const stepformer::UsingReservedCores usingCores;
        struct Unreserve {
            std::shared_ptr<const void>& cores;
            ~Unreserve() { cores.reset(); }  // however the job ends, not when its thread object goes
        } unreserve{cores};
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
            cores.reset();  // before the outcome arrives: the GUI thread computes with every thread again
            postToGui(this, [this, gen, outcome] { deliverOutcome(gen, outcome); }, delivery);
        } catch (const std::exception& e) {
            const QString msg = coreText(e);
            cores.reset();
            postToGui(this, [this, gen, msg] { deliverFailure(gen, msg); }, delivery);
        }
    };

    if (synchronous) {
        setState(State::Running);
        emit started(perEpoch * options.epochs, options.epochs, perEpoch);
        job();
        return true;
    }

    QThread* thread = QThread::create(std::move(job));
    thread->setObjectName(QStringLiteral("stepformer-training"));
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    threads_.removeAll(QPointer<QThread>());
    threads_.append(thread);
    setState(State::Running);
    emit started(perEpoch * options.epochs, options.epochs, perEpoch);
    thread->start();
    stepformer::release_thread_team();  // this thread's idle team, from the passes it computed
    return true;
}

void TrainingController::pause() {
    if (state_ != State::Running || !shared_ || stopping_) return;
    shared_->control.pause();
    setState(State::Paused);
}

void TrainingController::resume() {
    if (state_ != State::Paused || !shared_) return;
    shared_->control.resume();
    setState(State::Running);
}

void TrainingController::stop() {
    if (!isActive() || !shared_) return;
    stopping_ = true;
    shared_->control.request_stop();
    shared_->update([] {});  // out of a paced wait at once
}

void TrainingController::reset() {
    if (shared_) {
        shared_->control.request_stop();  // the abandoned worker ends after its step
        shared_->update([] {});
    }
    shared_.reset();
    ++generation_;  // and whatever it still posts is dropped
    stopping_ = false;
    outcome_.reset();
    last_ = {};
    message_.clear();
    setState(State::Idle);
}

void TrainingController::deliverPending(quint64 gen) {
    if (gen != generation_ || !shared_) return;
    std::vector<Shared::Item> items;
    std::shared_ptr<const LiveTrace> live;
    {
        std::lock_guard<std::mutex> lock(shared_->mu);
        items.swap(shared_->pending);
        live.swap(shared_->liveTrace);
        shared_->flushPosted = false;
    }
    for (Shared::Item& it : items) {
        if (it.snapshot) {
            const int epoch = it.snapshot->epoch;
            emit epochFinished(epoch, std::move(it.snapshot));
        } else {
            last_ = it.step;
            emit stepReported(it.step);
        }
        if (gen != generation_) return;  // a slot reset the controller
    }
    // After the steps it followed; not once the run was asked to stop (its outcome comes next).
    if (live && live_ && !stopping_) emit liveTraceReady(std::move(live));
}

void TrainingController::deliverOutcome(quint64 gen, std::shared_ptr<TrainingOutcome> outcome) {
    if (gen != generation_) return;
    deliverPending(gen);
    if (gen != generation_) return;
    stopping_ = false;
    message_ = outcome->message;
    outcome_ = *outcome;
    // The state is already the final one while finished() is handled, and stateChanged() comes
    // after it: whoever waits for the state sees the weights handled.
    const State s = State(outcome->status);
    const bool changed = state_ != s;
    state_ = s;
    // The weights and optimizer state belong to finished()'s handlers from here on: the
    // controller keeps the summary only (a handler that drops them frees them).
    outcome_->params.reset();
    outcome_->optimizer.reset();
    auto params = std::move(outcome->params);
    auto optimizer = std::move(outcome->optimizer);
    emit finished(s, outcome->message, std::move(params), std::move(optimizer));
    runInBackground([] { stepformer::release_free_memory(); });  // (malloc_trim walks the whole heap)
    if (gen != generation_) return;
    if (changed) emit stateChanged(s);
}

void TrainingController::deliverFailure(quint64 gen, const QString& message) {
    if (gen != generation_) return;
    deliverPending(gen);
    if (gen != generation_) return;
    stopping_ = false;
    message_ = tr("Training could not run: %1").arg(message);
    shared_.reset();
    setState(State::Idle);
    emit errorOccurred(message_);
}
