#include "training/training_panel.h"
#include "widgets/text_util.h"

#include <cmath>

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include "training/attention_replay.h"
#include "training/dataset_editor.h"
#include "training/hyperparameter_form.h"
#include "training/loss_chart.h"
#include "training/results_table.h"
#include "widgets/number_format.h"
#include "stepformer/checkpoint.h"
#include "stepformer/model.h"

using namespace stepformer;

namespace {

using ui_text::qs;
using ui_text::ss;

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

TrainingPanel::TrainingPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("trainingPanel"));
    refName_ = tr("the tutorial's");
    controller_ = new TrainingController(this);

    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(8, 8, 8, 8);
    outer->setSpacing(6);

    // --- the controls ---
    auto* bar = new QHBoxLayout;
    bar->setSpacing(6);
    auto mk = [&](QPushButton*& b, const QString& text, const char* name, QStyle::StandardPixmap icon, const QString& tip) {
        b = new QPushButton(style()->standardIcon(icon), text, this);
        b->setObjectName(QString::fromLatin1(name));
        b->setToolTip(tip);
        bar->addWidget(b);
    };
    mk(start_, tr("Start"), "startButton", QStyle::SP_MediaPlay,
       tr("Train a fresh model with these hyperparameters on the dataset (on a copy: the views keep their model "
          "until the run ends)."));
    mk(pause_, tr("Pause"), "pauseButton", QStyle::SP_MediaPause, tr("Pause after the current step; Resume continues."));
    mk(stop_, tr("Stop"), "stopButton", QStyle::SP_MediaStop, tr("End the run after the current step, keeping its weights."));
    mk(reset_, tr("Reset"), "resetButton", QStyle::SP_BrowserReload,
       tr("Abandon the run and clear the curves, snapshots and results."));
    start_->setDefault(true);
    QFont sf = start_->font();
    sf.setBold(true);
    start_->setFont(sf);
    bar->addSpacing(8);
    progress_ = new QProgressBar(this);
    progress_->setObjectName(QStringLiteral("trainingProgress"));
    progress_->setTextVisible(true);
    progress_->setMinimumWidth(260);
    bar->addWidget(progress_, 1);
    stateLabel_ = new QLabel(this);
    stateLabel_->setObjectName(QStringLiteral("trainingStateLabel"));
    stateLabel_->setAlignment(Qt::AlignCenter);
    stateLabel_->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("Finished")) + 28);
    bar->addWidget(stateLabel_);
    outer->addLayout(bar);

    message_ = new QLabel(this);
    message_->setObjectName(QStringLiteral("trainingMessage"));
    message_->setWordWrap(true);
    message_->setTextFormat(Qt::PlainText);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    message_->hide();
    outer->addWidget(message_);

    // --- left: the hyperparameters and checkpoints ---
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setChildrenCollapsible(false);
    auto* left = new QWidget(split);
    auto* ll = new QVBoxLayout(left);
    ll->setContentsMargins(0, 0, 0, 0);
    ll->setSpacing(4);
    form_ = new HyperparameterForm(left);
    auto* scroll = new QScrollArea(left);
    scroll->setWidget(form_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    ll->addWidget(scroll, 1);
    auto* ck = new QHBoxLayout;
    ck->setContentsMargins(6, 0, 6, 0);
    save_ = new QPushButton(style()->standardIcon(QStyle::SP_DialogSaveButton), tr("Save checkpoint…"), left);
    save_->setObjectName(QStringLiteral("saveCheckpointButton"));
    save_->setToolTip(tr("Save the trained weights with their config and optimizer state (.safetensors)."));
    load_ = new QPushButton(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("Resume from…"), left);
    load_->setObjectName(QStringLiteral("loadCheckpointButton"));
    load_->setToolTip(tr("Continue training from a saved checkpoint: its weights, architecture, vocabulary and "
                         "optimizer state."));
    ck->addWidget(save_);
    ck->addWidget(load_);
    ll->addLayout(ck);
    left->setMinimumWidth(form_->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width() + 4);

    // --- right: dataset, curves, attention, results ---
    tabs_ = new QTabWidget(split);
    tabs_->setObjectName(QStringLiteral("trainingTabs"));
    dataset_ = new DatasetEditor(tabs_);
    chart_ = new LossChart(tabs_);
    replay_ = new AttentionReplay(tabs_);
    results_ = new ResultsTable(tabs_);
    tabs_->addTab(dataset_, tr("Dataset"));
    tabs_->addTab(chart_, tr("Loss"));
    tabs_->addTab(replay_, tr("Attention replay"));
    tabs_->addTab(results_, tr("Results"));
    tabs_->setCurrentWidget(chart_);

    split->addWidget(left);
    split->addWidget(tabs_);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({360, 900});
    outer->addWidget(split, 1);

    // --- wiring ---
    connect(start_, &QPushButton::clicked, this, [this] { start(); });
    connect(pause_, &QPushButton::clicked, this, [this] {
        if (controller_->state() == State::Paused)
            resume();
        else
            pause();
    });
    connect(stop_, &QPushButton::clicked, this, &TrainingPanel::stop);
    connect(reset_, &QPushButton::clicked, this, &TrainingPanel::reset);
    connect(save_, &QPushButton::clicked, this, &TrainingPanel::saveCheckpointDialog);
    connect(load_, &QPushButton::clicked, this, &TrainingPanel::loadCheckpointDialog);
    connect(form_, &HyperparameterForm::changed, this, [this] {
        updateControls();
        updateIdleProgress();
    });
    connect(dataset_, &DatasetEditor::changed, this, [this] {
        updateControls();
        updateIdleProgress();
    });
    connect(dataset_, &DatasetEditor::errorOccurred, this, &TrainingPanel::errorOccurred);

    connect(controller_, &TrainingController::stateChanged, this, &TrainingPanel::onStateChanged);
    connect(controller_, &TrainingController::started, this, &TrainingPanel::onStarted);
    connect(controller_, &TrainingController::stepReported, this, &TrainingPanel::onStep);
    connect(controller_, &TrainingController::epochFinished, this,
            [this](int, std::shared_ptr<const AttentionSnapshot> s) { replay_->addSnapshot(std::move(s)); });
    connect(controller_, &TrainingController::finished, this, &TrainingPanel::onFinished);
    connect(controller_, &TrainingController::errorOccurred, this, [this](const QString& msg) {
        showMessage(msg, QStringLiteral("error"));
        emit errorOccurred(msg);
    });
    connect(results_, &ResultsTable::resultsReady, this, [this](int ok, int n) {
        if (messageKind_ == QLatin1String("error") || message_->text().isEmpty()) return;
        showMessage(message_->text() + tr("  %1 / %2 sentences translated correctly (see Results).").arg(ok).arg(n),
                    messageKind_);
    });

    onStateChanged(State::Idle);
    updateIdleProgress();
}

TrainingPanel::~TrainingPanel() = default;

TrainingPanel::State TrainingPanel::state() const { return controller_->state(); }
bool TrainingPanel::isTraining() const { return controller_->isActive(); }
QString TrainingPanel::message() const { return message_->isVisible() ? message_->text() : QString(); }

QString TrainingPanel::startBlockedReason() const {
    if (controller_->isActive()) return {};
    QStringList reasons;
    if (!form_->isValid()) reasons << form_->validationMessage().split(QLatin1Char('\n'));
    if (!dataset_->isValid()) reasons << dataset_->validationMessage();
    if (reasons.isEmpty()) return {};
    if (reasons.size() == 1) return tr("Cannot start — %1").arg(reasons.front());
    return tr("Cannot start:") + QStringLiteral("\n• ") + reasons.join(QStringLiteral("\n• "));
}

void TrainingPanel::setReplaySentence(const QString& source, const QString& decoderInput) {
    controller_->setReplaySentence(source, decoderInput);
}

void TrainingPanel::setReferenceConfig(const Config& config, const QString& name) {
    refConfig_ = config;
    refName_ = name;
    if (!resume_) dataset_->setReferenceConfig(config, name, false);
}

// ----- running ------------------------------------------------------------------------------

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
        showMessage(tr("Cannot start — %1").arg(qs(e.what())), QStringLiteral("error"));
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
    if (!controller_->start(cfg, from, runData_, options, &error)) {
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
    if (tabs_->currentWidget() == dataset_ || tabs_->currentWidget() == results_) tabs_->setCurrentWidget(chart_);
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
    progress_->setRange(0, std::max(1, stepsTotal));
    progress_->setValue(0);
    progress_->setFormat(tr("Epoch 1 / %1 · step 0 / %2 · starting…").arg(epochs).arg(stepsTotal));
}

void TrainingPanel::onStep(const TrainingStep& s) {
    chart_->addStep(s.step, s.loss, s.gradNorm, s.lr);
    const double diff = s.elapsedS - lastElapsed_;
    if (!pausedSinceStep_ && diff > 0.0)
        secondsPerStep_ = secondsPerStep_ == 0.0 || s.step <= 2 ? diff : 0.8 * secondsPerStep_ + 0.2 * diff;
    lastElapsed_ = s.elapsedS;
    pausedSinceStep_ = controller_->state() == State::Paused;
    const int total = s.stepsTotal > 0 ? s.stepsTotal : stepsTotal_;
    progress_->setRange(0, std::max(1, total));
    progress_->setValue(s.step);
    const double left = secondsPerStep_ * double(total - s.step);
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
                   .arg(numfmt::fourDigits(out ? out->lastLoss : last.loss));
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
    progress_->setFormat(n > 0 ? tr("%1 epochs × %2 steps of %3 sentences = %4 steps")
                                     .arg(o.epochs)
                                     .arg(perEpoch)
                                     .arg(std::min(n, std::max(1, o.batch_size)))
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

// ----- checkpoints --------------------------------------------------------------------------

bool TrainingPanel::saveCheckpoint(const QString& path, QString* error) {
    auto fail = [&](const QString& msg) {
        if (error) *error = msg;
        emit errorOccurred(msg);
        return false;
    };
    if (!trainedParams_) return fail(tr("There are no trained weights to save yet: train first."));
    try {
        const Transformer model(trainedConfig_, *trainedParams_);
        save_checkpoint(ss(path), model, trainedOptimizer_.get());
    } catch (const std::exception& e) {
        return fail(tr("Could not save the checkpoint %1: %2").arg(QDir::toNativeSeparators(path), qs(e.what())));
    }
    unsaved_ = false;
    emit checkpointSaved(path);
    return true;
}

bool TrainingPanel::loadCheckpointForResume(const QString& path, QString* error) {
    auto fail = [&](const QString& msg) {
        if (error) *error = msg;
        showMessage(msg, QStringLiteral("error"));
        emit errorOccurred(msg);
        return false;
    };
    if (controller_->isActive()) return fail(tr("Stop the training before loading a checkpoint."));
    Checkpoint ck;
    try {
        ck = load_checkpoint(ss(path));
    } catch (const std::exception& e) {
        return fail(tr("Could not load the checkpoint %1: %2").arg(QDir::toNativeSeparators(path), qs(e.what())));
    }
    Resume r;
    r.path = path;
    r.config = ck.config;
    r.params = std::make_shared<const ParamSet>(std::move(ck.params));
    r.optimizerJson = ck.optimizer_json;
    r.optimizerTensors = std::make_shared<const std::map<std::string, Tensor>>(std::move(ck.optimizer_tensors));

    controller_->reset();
    chart_->clear();
    replay_->clear();
    results_->clear();
    resume_ = std::move(r);
    const QString name = QFileInfo(path).fileName();
    form_->setArchitectureLocked(false);
    form_->setArchitecture(resume_->config);
    form_->setArchitectureLocked(true, tr("Architecture and vocabulary fixed by the checkpoint %1. Reset to train a "
                                          "new model.")
                                           .arg(name));
    if (resume_->optimizerJson) {
        // The optimizer's hyperparameters too, so that its state can be continued.
        try {
            const auto j = nlohmann::json::parse(*resume_->optimizerJson);
            TrainOptions o = form_->trainOptions();
            o.optimizer.kind = optimizer_from_name(j.value("kind", optimizer_name(o.optimizer.kind)));
            o.optimizer.lr = j.value("lr", o.optimizer.lr);
            o.optimizer.momentum = j.value("momentum", o.optimizer.momentum);
            o.optimizer.warmup_schedule = j.value("warmup_schedule", o.optimizer.warmup_schedule);
            o.optimizer.warmup_steps = j.value("warmup_steps", o.optimizer.warmup_steps);
            form_->setTrainOptions(o);
        } catch (const std::exception&) {
            // The state is checked again when the run starts.
        }
    }
    dataset_->setReferenceConfig(resume_->config, tr("the checkpoint's"), true);
    const int64_t steps = [&]() -> int64_t {
        try {
            return resume_->optimizerJson ? nlohmann::json::parse(*resume_->optimizerJson).value("step", int64_t(0)) : 0;
        } catch (const std::exception&) {
            return 0;
        }
    }();
    showMessage(resume_->optimizerJson
                    ? tr("Loaded %1 (%2 optimizer steps done). Start continues from its weights and optimizer state.")
                          .arg(name)
                          .arg(steps)
                    : tr("Loaded %1 (no optimizer state: the optimizer starts fresh). Start continues from its weights.")
                          .arg(name),
                QStringLiteral("info"));
    updateControls();
    updateIdleProgress();
    emit checkpointLoaded(path, resume_->config);
    return true;
}

void TrainingPanel::saveCheckpointDialog() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save checkpoint"), QStringLiteral("trained.safetensors"),
                                                      tr("Checkpoints (*.safetensors)"));
    if (path.isEmpty()) return;
    QString error;
    if (saveCheckpoint(path, &error))
        showMessage(tr("Saved %1.").arg(QDir::toNativeSeparators(path)), QStringLiteral("ok"));
    else
        showMessage(error, QStringLiteral("error"));
}

void TrainingPanel::loadCheckpointDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Resume training from a checkpoint"), QString(),
                                                      tr("Checkpoints (*.safetensors)"));
    if (!path.isEmpty()) loadCheckpointForResume(path);
}
