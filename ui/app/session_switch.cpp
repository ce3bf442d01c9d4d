// Session: switching the model (a preset, a file, trained weights, another device). The new
// model's pass of the sentences is computed first, on a worker under Provisioning::Background (a
// tutorial-size forward and backward pass on a GPU takes seconds the GUI thread would stall for),
// and the switch is made when it arrives: weights, model, device and trace together, so the views
// never see a model with another model's trace. A later switch builds on a pending one's target
// and supersedes its pass.
#include "app/session.h"
#include "app/core_text.h"
#include "widgets/background_pool.h"
#include "widgets/text_util.h"

#include <QFutureWatcher>
#include <QTimer>

#include "stepformer/dataset.h"
#include "stepformer/devices.h"
#include "stepformer/heap.h"
#include "stepformer/model.h"
#include "stepformer/optimizer.h"
#include "stepformer/recipes.h"

using namespace stepformer;
using ui_text::qs;

// The pass of the first sentence pair that fits the new model, or why none did.
struct Session::SwitchOutcome {
    quint64 id = 0;
    std::shared_ptr<const Transformer> model;
    std::shared_ptr<const SentencePass> pass;  // null: no pair fits
    bool fallback = false;                     // of a pair after the wanted one (which did not fit)
    std::exception_ptr error;                  // the last pair's failure
    bool deviceLost = false;                   // the device failed: error is the DeviceLost
};

namespace {

QString failureText(const std::exception_ptr& error) {
    try {
        if (error) std::rethrow_exception(error);
    } catch (const ConfigError& e) {
        return coreText(e);
    } catch (const std::exception& e) {
        return Session::tr("The forward pass failed: %1").arg(coreText(e));
    }
    return {};
}

}  // namespace

// Tries the pairs (source, target, source, target, ...) in order on the outcome's model.
void Session::firstFitting(SwitchOutcome& o, const QStringList& pairs) {
    for (int i = 0; i + 1 < pairs.size(); i += 2) {
        try {
            const Transformer& m = *o.model;
            o.pass = std::make_shared<const SentencePass>(computePass(m, m.config(), pairs[i], pairs[i + 1]));
            o.fallback = i > 0;
            o.error = nullptr;
            return;
        } catch (const DeviceLost&) {
            o.error = std::current_exception();
            o.deviceLost = true;
            return;
        } catch (...) {
            o.error = std::current_exception();
        }
    }
}

QString Session::deviceLostText(const QString& why) {
    return tr("The GPU stopped working (%1). Stepformer computes on the CPU now, with the same weights.").arg(why);
}

// The wanted sentences first; when the new vocabulary does not take them, the ones shown, the
// tutorial's example, the model's own examples, else the shortest valid pair.
QStringList Session::candidatePairs(const Config& c) const {
    QStringList pairs{wantedSource_, wantedTarget_};
    if (source_ != wantedSource_ || target_ != wantedTarget_) pairs << source_ << target_;
    pairs << defaultSource() << defaultTarget();
    for (const auto& e : builtin_examples(c)) pairs << qs(e.enc_input) << qs(e.dec_input);
    if (c.src_vocab.size() > 1) pairs << qs(c.src_vocab[1]) << qs(c.bos);
    if (!c.src_vocab.empty()) pairs << qs(c.src_vocab.front()) << qs(c.bos);  // (a decoder-only model has none)
    return pairs;
}

Session::Installed Session::latest() const {
    if (pending_) return *pending_;
    return Installed{config_, weights_, state_, description_, backend_};
}

void Session::install(Config config, std::shared_ptr<const ParamSet> weights, ModelState state, QString description) {
    Installed t = latest();
    t.config = std::move(config);
    t.weights = std::move(weights);
    t.state = state;
    t.description = std::move(description);
    switchTo(std::move(t));
}

void Session::switchTo(Installed t) {
    auto model = makeModel(t.config, t.weights, t.backend);  // throws when they do not fit: nothing changes
    const quint64 id = ++switchRequest_;
    auto o = std::make_shared<SwitchOutcome>();
    o->id = id;
    o->model = model;
    const bool async = provisioning_ == Provisioning::Background && model_;
    // A pass the caller has already (the training run's, on these weights): shown as it is when it
    // is of the wanted sentences, or in the background (the wanted ones follow, requestSentences).
    if (precomputed_ && (async || (precomputed_->source == wantedSource_ && precomputed_->target == wantedTarget_))) {
        o->pass = std::exchange(precomputed_, nullptr);
        pending_.reset();
        commitSwitch(std::move(t), *o);
        return;
    }
    const QStringList pairs = candidatePairs(t.config);
    if (!async) {
        pending_.reset();
        firstFitting(*o, pairs);
        commitSwitch(std::move(t), *o);
        return;
    }
    pending_ = std::move(t);
    if (!switchWatcher_) {
        switchWatcher_ = new QFutureWatcher<std::shared_ptr<SwitchOutcome>>(this);
        connect(switchWatcher_, &QFutureWatcherBase::finished, this, &Session::switchPassDone);
    }
    // (A pending switch's pass still computing is superseded: the watcher drops its result.)
    switchWatcher_->setFuture(runInBackground([o, pairs] {
        firstFitting(*o, pairs);
        return o;
    }));
}

void Session::switchPassDone() {
    const std::shared_ptr<SwitchOutcome> o = switchWatcher_->result();
    if (!o || o->id != switchRequest_ || !pending_) return;  // superseded
    Installed t = std::move(*pending_);
    pending_.reset();
    commitSwitch(std::move(t), *o);
}

void Session::commitSwitch(Installed t, SwitchOutcome& o) {
    QString lost;
    if (o.deviceLost) {  // the new model's device failed under its pass: the same switch on the CPU, here
        lost = failureText(o.error);
        Backend* const cpu = ComputeDevices::instance().backend(ComputeDevices::Kind::Cpu);
        if (&o.model->backend() != cpu) ComputeDevices::instance().setAside(&o.model->backend());  // the one that failed
        t.backend = cpu;
        o = SwitchOutcome{o.id, makeModel(t.config, t.weights, t.backend), nullptr, false, nullptr, false};
        firstFitting(o, candidatePairs(t.config));
    }
    Backend* const before = backend_;
    config_ = std::move(t.config);
    weights_ = std::move(t.weights);
    model_ = o.model;
    state_ = t.state;
    description_ = std::move(t.description);
    backend_ = t.backend;
    trainer_->setBackend(backend_);
    const OptimizerOptions opt = preset_recipe(TrainingPreset::Tutorial).front().optimizer;
    optimizer_ = std::make_shared<const Optimizer>(opt, model_->params());

    if (o.pass) {
        adopt(*o.pass);
        if (o.fallback) {  // the wanted sentences do not fit this model: the input bar shows the ones that did
            wantedSource_ = source_;
            wantedTarget_ = target_;
            presetPass_->want(source_, target_);
            ++sentenceRequest_;  // a pass of the sentences typed before is dropped
            queuedSentences_.reset();
            emit sentencesReset(source_, target_);
        } else if ((source_ != wantedSource_ || target_ != wantedTarget_) && !sentencesPending()) {
            requestSentences(wantedSource_, wantedTarget_);  // typed while the switch computed
        }
    } else {
        trace_ = std::make_shared<Trace>();  // nothing fits: an empty trace rather than a stale one
        liveTrace_.reset();
        grads_.reset();
        targetIds_.clear();
        emit errorOccurred(tr("No sentence fits this model's vocabulary: %1").arg(failureText(o.error)));
    }
    if (backend_ != before) emit computeDeviceChanged();
    if (!lost.isEmpty())
        emit deviceLost(deviceLostText(lost));
    emit modelChanged();
    emit traceChanged();
    // The views have let go of the old model's trace and gradients: the heap gives their memory
    // back, on a worker (malloc_trim walks the whole heap; a GPU's trim waits for its queue).
    runInBackground([] { release_free_memory(); });
    if (backend_ != before) {
        // The device left keeps the buffers it freed for reuse (a GPU's on lavapipe are the host's
        // memory: a few hundred MB). Once the views have let go of its model and trace, they go.
        QTimer::singleShot(1500, this, [this, before] {
            if (!before || before == backend_) return;
            runInBackground([before] {
                before->trim();  // (a backend the app made lives until it ends: ComputeDevices keeps it)
                release_free_memory();
            });
        });
    }
}
