// TrainingPanel: a run (start, pause, resume, stop, reset), its progress and the state chip, and
// the banner with its outcome.
#include "training/training_panel.h"
#include "widgets/progress_value.h"
#include "training/lr_advice.h"

#include <cmath>
#include "app/core_text.h"
#include "widgets/text_util.h"

#include <algorithm>

#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStyle>
#include <QTabWidget>

#include <nlohmann/json.hpp>

#include "training/attention_replay.h"
#include "training/dataset_editor.h"
#include "training/hyperparameter_form.h"
#include "training/loss_chart.h"
#include "training/results_table.h"
#include "widgets/number_format.h"

using namespace stepformer;

namespace {

using ui_text::qs;

struct Chip {
    const char* bg;
    const char* fg;
};

Chip chipFor(TrainingController::State s) {
    switch (s) {
    case TrainingController::State::Running: return {"#dbe9fb", "#1f4f8f"};
    case TrainingController::State::Paused: return {"#fff1cc", "#7a5200"};
    case TrainingController::State::Finished: return {"#dcf4de", "#16782a"};
    case TrainingController::State::Diverged: return {"#fcdede", "#b00020"};
    case TrainingController::State::Stopped:
    case TrainingController::State::Idle: break;
    }
    return {"#ececec", "#444444"};
}

QString stateTitle(TrainingController::State s) {
    switch (s) {
    case TrainingController::State::Idle: return TrainingPanel::tr("Ready");
    case TrainingController::State::Running: return TrainingPanel::tr("Training");
    case TrainingController::State::Paused: return TrainingPanel::tr("Paused");
    case TrainingController::State::Finished: return TrainingPanel::tr("Finished");
    case TrainingController::State::Stopped: return TrainingPanel::tr("Stopped");
    case TrainingController::State::Diverged: return TrainingPanel::tr("Diverged");
    }
    return {};
}

}  // namespace

bool TrainingPanel::start() {
    if (controller_->isActive()) return false;
    const QString blocked = startBlockedReason();
    if (!blocked.isEmpty()) {
        showMessage(blocked, QStringLiteral("blocked"));
        return false;
    }
    Config cfg;
    TrainingController::StartPoint from;
    from.seed = form_->seed();
    TrainOptions options = form_->trainOptions();
    QString note;
    try {
        if (resume_) {
            Config arch = resume_->config;
            arch.dropout = form_->config().dropout;
            cfg = dataset_->trainingConfig(arch);
            from.params = resume_->params;
            if (resume_->optimizerJson) {
                std::string kind;
                try {
                    kind = nlohmann::json::parse(*resume_->optimizerJson).value("kind", "");
                } catch (const std::exception&) {
                }
                if (!kind.empty() && optimizer_from_name(kind) == options.optimizer.kind) {
                    from.optimizerJson = resume_->optimizerJson;
                    from.optimizerTensors = resume_->optimizerTensors;
                } else {
                    note = tr(" The checkpoint's optimizer state (%1) is not used: this run uses %2.")
                               .arg(qs(kind), qs(optimizer_name(options.optimizer.kind)));
                }
            }
        } else {
            cfg = dataset_->trainingConfig(form_->config());
        }
    } catch (const std::exception& e) {
        showMessage(tr("Cannot start — %1").arg(coreText(e)), QStringLiteral("error"));
        return false;
    }
    options.optimizer.d_model = cfg.d_model;

    chart_->clear();
    replay_->clear();
    results_->clear(tr("<span style='color:#777'>Training… the sentences are translated when the run ends.</span>"));
    runConfig_ = cfg;
    runData_ = dataset_->examples();
    secondsPerStep_ = 0.0;
    lastElapsed_ = 0.0;
    pausedSinceStep_ = false;
    QString error;
    if (!controller_->start(cfg, from, runData_, options, &error, epilogue_)) {
        showMessage(tr("Cannot start — %1").arg(error), QStringLiteral("error"));
        updateControls();
        return false;
    }
    QString msg = resume_ ? tr("Continuing from %1.").arg(QFileInfo(resume_->path).fileName()) : QString();
    if (!note.isEmpty()) msg += note;
    if (dataset_->usesBuiltVocabulary())
        msg += (msg.isEmpty() ? QString() : QStringLiteral(" ")) +
               tr("The dataset has words the model's vocabulary lacks: this model gets the vocabulary built from the "
                  "dataset (%1 source, %2 target tokens).")
                   .arg(cfg.src_vocab_size())
                   .arg(cfg.tgt_vocab_size());
    showMessage(msg.trimmed(), QStringLiteral("info"));
    if (QWidget* shown = tabs_->currentWidget(); shown == dataset_ || shown == results_ || shown == setup_)
        tabs_->setCurrentWidget(chart_);  // the curves of the run that starts
    return true;
}

void TrainingPanel::pause() { controller_->pause(); }

void TrainingPanel::resume() { controller_->resume(); }

void TrainingPanel::stop() {
    controller_->stop();
    updateControls();
}

void TrainingPanel::reset() {
    controller_->reset();
    chart_->clear();
    replay_->clear();
    results_->clear();
    if (resume_) {
        resume_.reset();
        form_->setArchitectureLocked(false);
        dataset_->setReferenceConfig(refConfig_, refName_, false);
    }
    showMessage({}, {});
    updateControls();
    updateIdleProgress();
}

void TrainingPanel::onStarted(int stepsTotal, int epochs, int stepsPerEpoch) {
    Q_UNUSED(stepsPerEpoch);
    stepsTotal_ = stepsTotal;
    epochs_ = epochs;
    chart_->setExpectedSteps(stepsTotal);
    firstLoss_ = std::nan("");
    progress_->setRange(0, std::max(1, stepsTotal));
    progress_->setValue(0);
    progress_->setFormat(tr("Epoch 1 / %1 · step 0 / %2 · starting…").arg(epochs).arg(stepsTotal));
}

void TrainingPanel::onStep(const TrainingStep& s) {
    chart_->addStep(s.step, s.loss, s.gradNorm, s.lr);
    if (std::isnan(firstLoss_)) firstLoss_ = s.loss;
    const double diff = s.elapsedS - lastElapsed_;
    if (!pausedSinceStep_ && diff > 0.0)
        secondsPerStep_ = secondsPerStep_ == 0.0 || s.step <= 2 ? diff : 0.8 * secondsPerStep_ + 0.2 * diff;
    lastElapsed_ = s.elapsedS;
    pausedSinceStep_ = controller_->state() == State::Paused;
    const int total = s.stepsTotal > 0 ? s.stepsTotal : stepsTotal_;
    progress_->setRange(0, std::max(1, total));
    setProgressValue(progress_, s.step);
    // A paced run takes at least the pace a step (the first step's time does not include it).
    const double left = std::max(secondsPerStep_, controller_->pace() / 1000.0) * double(total - s.step);
    progress_->setFormat(tr("Epoch %1 / %2 · step %3 / %4 · %5 left")
                             .arg(s.epoch)
                             .arg(epochs_ > 0 ? epochs_ : (s.stepsPerEpoch > 0 ? total / s.stepsPerEpoch : 0))
                             .arg(s.step)
                             .arg(total)
                             .arg(numfmt::duration(left)));
    emit progressChanged(s.step, total, s.loss);
}

void TrainingPanel::onFinished(State status, const QString& message, std::shared_ptr<ParamSet> params,
                               std::shared_ptr<const Optimizer> optimizer) {
    chart_->flush();
    const TrainingOutcome* out = controller_->outcome();
    const int steps = out ? out->stepsDone : 0;
    const TrainingStep& last = controller_->lastStep();
    QString text;
    QString kind = QStringLiteral("ok");
    if (status == State::Finished) {
        text = tr("Finished %1 steps in %2; last loss %3.")
                   .arg(steps)
                   .arg(numfmt::duration(last.elapsedS))
                   .arg(numfmt::chartReadout(out ? out->lastLoss : last.loss));
        // A run that learned nothing says so, with the likely reason (Adam at SGD's rate).
        const stepformer::TrainOptions o = form_->trainOptions();
        const QString hint = LearningRateAdvice::untrainedRun(firstLoss_, out ? out->lastLoss : last.loss, steps,
                                                              o.optimizer.kind, o.optimizer.lr, runConfig_.d_model,
                                                              o.optimizer.warmup_schedule);
        if (!hint.isEmpty()) {
            text += QLatin1Char(' ') + hint;
            kind = QStringLiteral("info");
        }
    } else if (status == State::Stopped) {
        text = steps > 0 ? tr("Stopped after %1 steps; the weights so far are kept.").arg(steps)
                         : tr("Stopped before the first step.");
        kind = QStringLiteral("info");
    } else {
        text = message;
        if (!text.isEmpty()) text[0] = text[0].toUpper();
        kind = QStringLiteral("error");
    }
    if (status == State::Finished || status == State::Stopped)
        progress_->setFormat(tr("%1 · step %2 / %3").arg(stateTitle(status)).arg(steps).arg(stepsTotal_));
    else
        progress_->setFormat(tr("Diverged at step %1 / %2").arg(steps + 1).arg(stepsTotal_));
    if (status == State::Diverged) {
        // The last good weights are kept but not handed to the views (they are not a trained
        // model); the results table shows what they translate to.
        showMessage(text, kind);
        if (params && steps > 0)
            results_->translateAsync(out ? out->config : runConfig_, std::shared_ptr<const ParamSet>(std::move(params)),
                                     runData_);
        else
            results_->clear();
    } else if (params && steps > 0) {
        trainedConfig_ = out ? out->config : runConfig_;
        trainedParams_ = std::move(params);
        trainedOptimizer_ = std::move(optimizer);
        unsaved_ = true;
        showMessage(text, kind);
        emit modelTrained(trainedConfig_, trainedParams_);
        results_->translateAsync(trainedConfig_, trainedParams_, runData_);
    } else {
        showMessage(text, kind);
        results_->clear();
    }
    updateControls();
}

void TrainingPanel::onStateChanged(State s) {
    if (s == State::Paused) pausedSinceStep_ = true;
    const Chip c = chipFor(s);
    stateLabel_->setText(stateTitle(s));
    stateLabel_->setStyleSheet(QStringLiteral("QLabel { background: %1; color: %2; border-radius: 9px; padding: 3px 10px;"
                                              " font-weight: 600; }")
                                   .arg(QLatin1String(c.bg), QLatin1String(c.fg)));
    if (s == State::Paused) {
        progress_->setFormat(progress_->format().section(QStringLiteral(" · "), 0, 1) + tr(" · paused"));
    }
    updateControls();
    if (s == State::Idle) updateIdleProgress();
    emit stateChanged(s);
}

void TrainingPanel::updateControls() {
    const State s = controller_->state();
    const bool active = controller_->isActive();
    const QString blocked = startBlockedReason();
    start_->setEnabled(!active && blocked.isEmpty());
    start_->setText(resume_ ? tr("Start from checkpoint") : tr("Start"));
    start_->setToolTip(blocked.isEmpty() ? tr("Train with these hyperparameters on the dataset (on a copy: the views keep "
                                              "their model until the run ends).")
                                         : blocked);
    pause_->setEnabled(active && !controller_->stopRequested());
    pause_->setText(s == State::Paused ? tr("Resume") : tr("Pause"));
    pause_->setIcon(style()->standardIcon(s == State::Paused ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));
    stop_->setEnabled(active && !controller_->stopRequested());
    reset_->setEnabled(s != State::Idle || resume_.has_value() || chart_->pointCount() > 0 || results_->rowCount() > 0);
    save_->setEnabled(bool(trainedParams_));
    load_->setEnabled(!active);
    form_->setEnabled(!active);
    runEpochs_->setEnabled(!active);
    dataset_->setEditingEnabled(!active);
    // Why Start is disabled, said where the buttons are.
    if (!active) {
        if (!blocked.isEmpty())
            showMessage(blocked, QStringLiteral("blocked"));
        else if (messageKind_ == QLatin1String("blocked"))
            showMessage({}, {});
    }
}

void TrainingPanel::updateIdleProgress() {
    if (controller_->state() != State::Idle) return;
    const TrainOptions o = form_->trainOptions();
    const int n = int(dataset_->examples().size());
    const int perEpoch = o.batch_size > 0 ? (n + o.batch_size - 1) / o.batch_size : 0;
    progress_->setRange(0, 1);
    progress_->setValue(0);
    const int batch = std::min(n, std::max(1, o.batch_size));
    const QString steps = perEpoch == 1 ? tr("1 step") : tr("%1 steps").arg(perEpoch);
    progress_->setFormat(n > 0 ? tr("%1 epochs × %2 of %3 sentences = %4 steps")
                                     .arg(o.epochs)
                                     .arg(steps)
                                     .arg(batch)
                                     .arg(o.epochs * perEpoch)
                               : tr("No data"));
}

void TrainingPanel::showMessage(const QString& text, const QString& kind) {
    messageKind_ = text.isEmpty() ? QString() : kind;
    message_->setText(text);
    message_->setVisible(!text.isEmpty());
    QString css;
    if (kind == QLatin1String("error") || kind == QLatin1String("blocked"))
        css = QStringLiteral("background: #fde7ea; color: #9b0020; border: 1px solid #f0a8b4;");
    else if (kind == QLatin1String("ok"))
        css = QStringLiteral("background: #e6f5e8; color: #145c24; border: 1px solid #a8d8b0;");
    else
        css = QStringLiteral("background: #eef3fa; color: #23406b; border: 1px solid #c2d3ea;");
    message_->setStyleSheet(QStringLiteral("QLabel { %1 border-radius: 4px; padding: 5px 8px; }").arg(css));
}
