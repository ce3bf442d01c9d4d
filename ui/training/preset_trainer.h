// The first start's training of a preset: the preset's recipe (stepformer::preset_recipe) run
// stage by stage on a TrainingController, the pipeline the Train dock uses, until the model
// translates the tutorial's two sentences. The worker checks the translations and writes the
// cache file after each stage, so the GUI thread only installs the result.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <QObject>
#include <QString>

#include "stepformer/config.h"
#include "stepformer/params.h"
#include "stepformer/train.h"

class TrainingController;

class PresetTrainer : public QObject {
    Q_OBJECT
public:
    struct Result {
        stepformer::Config config;
        std::shared_ptr<stepformer::ParamSet> params;
        bool verified = false;  // greedy decoding gives both training sentences' translations
        QString detail;         // the translations, "src → output; ..."
        QString saveError;      // the cache file could not be written (the model is still good)
    };

    explicit PresetTrainer(QObject* parent = nullptr);
    ~PresetTrainer() override;

    // Trains `from` (the model shown meanwhile) on the tutorial's sentences and saves it to
    // cachePath. Synchronous: everything, signals included, happens before start() returns.
    // `onWorker` runs on the worker with the trained model after it is saved, before finished()
    // (work that would otherwise stall the GUI thread when the result arrives).
    using TrainedHook = std::function<void(const stepformer::Transformer&)>;
    void start(const stepformer::Config& config, std::shared_ptr<const stepformer::ParamSet> from,
               std::vector<stepformer::TrainOptions> stages, const QString& cachePath, bool synchronous,
               TrainedHook onWorker = {});
    // Drops the run: its worker ends after its current step, and nothing of it is reported.
    void cancel();
    bool isRunning() const { return run_ != nullptr; }
    TrainingController* controller() const { return controller_; }
    // Where later runs compute (TrainingController::setBackend).
    void setBackend(stepformer::Backend* backend);

signals:
    void started(int totalSteps);
    void progress(int step, int total, double loss);  // step over all stages run so far
    void finished(const PresetTrainer::Result& result);
    void failed(const QString& message);

private:
    struct Run;
    void runStage(std::shared_ptr<const stepformer::ParamSet> from);
    void stageFinished(int status, const QString& message, std::shared_ptr<stepformer::ParamSet> params);
    void fail(const QString& message);

    TrainingController* controller_ = nullptr;
    std::unique_ptr<Run> run_;
};
