#include "training/training_controller.h"
#include "training/training_run.h"
#include "widgets/background_pool.h"
#include "widgets/thread_handoff.h"
#include "app/core_text.h"
#include "widgets/text_util.h"

#include <algorithm>
#include <cmath>
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
using ui_text::qs;
using ui_text::ss;

// What a run holds until its job ends: the cores (stepformer/compute_threads.h: the other threads'
// kernels, this one's too, run on one thread meanwhile, so that no idle OpenMP team makes the
// run's threads sleep between kernels) and the heap's speed policy (stepformer/heap.h: under the
// app's memory policy every step page-faulted its freed heap top back in; the dock's step took
// 48-51 ms against 39-40 ms).
std::shared_ptr<const void> holdForRun() {
    return std::make_shared<std::pair<std::shared_ptr<const void>, std::shared_ptr<const void>>>(
        stepformer::reserve_cores(), stepformer::hold_speed_heap());
}
}  // namespace


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

    // The worker (runJob, training_run.cpp). It owns its model; it talks to the GUI thread only
    // through queued calls on `this` (the destructor joins every worker before this object goes
    // away). Synchronous, the same calls are direct: the job runs on the GUI thread, which must
    // keep its priority. The run holds the cores and the heap's speed policy from here
    // (holdForRun) until its job ends.
    const bool synchronous = synchronous_;
    Run run{gen,
            shared,
            config,
            backend_,
            holdForRun(),
            StartPoint(from),
            std::move(data),
            options,
            ss(replaySrc_),
            ss(replayTgt_),
            synchronous ? Qt::DirectConnection : Qt::QueuedConnection,
            std::move(epilogue),
            synchronous,
            snapshots_,
            keepOptimizer_};
    auto job = [this, run = std::move(run)]() mutable { runJob(run); };

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
