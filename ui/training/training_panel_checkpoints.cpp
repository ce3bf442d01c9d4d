// TrainingPanel's checkpoints: saving the last run's weights with its optimizer state, and loading
// one to resume training from (its architecture, vocabulary and optimizer hyperparameters).
#include "training/training_panel.h"
#include "app/core_text.h"
#include "widgets/text_util.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>

#include <nlohmann/json.hpp>

#include "training/attention_replay.h"
#include "training/dataset_editor.h"
#include "training/hyperparameter_form.h"
#include "training/loss_chart.h"
#include "training/results_table.h"
#include "stepformer/checkpoint.h"
#include "stepformer/model.h"

using namespace stepformer;
using ui_text::qs;
using ui_text::ss;

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
        return fail(tr("Could not save the checkpoint %1: %2").arg(QDir::toNativeSeparators(path), coreText(e)));
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
        return fail(tr("Could not load the checkpoint %1: %2").arg(QDir::toNativeSeparators(path), coreText(e)));
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
