#include "training/preset_trainer.h"
#include "app/core_text.h"
#include "widgets/text_util.h"

#include <QDir>
#include <QFileInfo>
#include <QStringList>
#include <QtDebug>

#include "stepformer/checkpoint.h"
#include "stepformer/dataset.h"
#include "stepformer/decode.h"
#include "stepformer/model.h"
#include "training/training_controller.h"

using namespace stepformer;

namespace {

using ui_text::qs;

bool translatesTrainingSet(const Transformer& model, QString* detail) {
    std::vector<std::string> lines;
    const bool ok = reproduces_examples(model, builtin_examples(model.config()), &lines);
    QStringList shown;
    for (const std::string& l : lines) shown << qs(l);
    *detail = shown.join(QStringLiteral("; "));
    return ok;
}

int stageSteps(const TrainOptions& o, const Config& c) {
    const int examples = int(builtin_examples(c).size());
    return (examples + o.batch_size - 1) / o.batch_size * o.epochs;
}

}  // namespace

struct PresetTrainer::Run {
    Config config;
    std::vector<TrainOptions> stages;
    QString cachePath;
    TrainedHook onWorker;
    size_t stage = 0;
    int base = 0;   // steps of the stages before this one
    int total = 0;  // steps of the stages started so far
    // Written by the stage's epilogue on the worker, read when its finished() arrives.
    std::shared_ptr<Result> result;
};

PresetTrainer::PresetTrainer(QObject* parent) : QObject(parent), controller_(new TrainingController(this)) {
    controller_->setAttentionSnapshots(false);  // nobody replays this training
    controller_->setKeepOptimizerState(false);  // nor resumes it: its state is freed at once
    connect(controller_, &TrainingController::stepReported, this, [this](const TrainingStep& s) {
        if (run_) emit progress(run_->base + s.step, run_->total, s.loss);
    });
    connect(controller_, &TrainingController::finished, this,
            [this](TrainingController::State status, const QString& message, std::shared_ptr<ParamSet> params,
                   std::shared_ptr<const Optimizer>) { stageFinished(int(status), message, std::move(params)); });
    connect(controller_, &TrainingController::errorOccurred, this, [this](const QString& m) { fail(m); });
}

PresetTrainer::~PresetTrainer() = default;

void PresetTrainer::setBackend(stepformer::Backend* backend) { controller_->setBackend(backend); }

void PresetTrainer::start(const Config& config, std::shared_ptr<const ParamSet> from, std::vector<TrainOptions> stages,
                          const QString& cachePath, bool synchronous, TrainedHook onWorker) {
    cancel();
    if (stages.empty()) return;
    run_ = std::make_unique<Run>();
    run_->config = config;
    run_->stages = std::move(stages);
    run_->cachePath = cachePath;
    run_->onWorker = std::move(onWorker);
    run_->total = stageSteps(run_->stages.front(), run_->config);
    controller_->setSynchronous(synchronous);
    emit started(run_->total);
    runStage(std::move(from));
}

void PresetTrainer::cancel() {
    if (!run_) return;
    controller_->reset();
    run_.reset();
}

void PresetTrainer::runStage(std::shared_ptr<const ParamSet> from) {
    const bool last = run_->stage + 1 == run_->stages.size();
    auto result = run_->result = std::make_shared<Result>();
    const QString path = run_->cachePath;
    // On the worker: a greedy decode of both sentences and a checkpoint of the tutorial's size
    // take long enough to freeze the GUI.
    auto epilogue = [result, path, last, hook = run_->onWorker](const Transformer& model, TrainStatus status) {
        if (status == TrainStatus::Stopped) return;
        result->verified = status == TrainStatus::Finished && translatesTrainingSet(model, &result->detail);
        if (!result->verified && !last) return;  // the next stage goes on from these weights
        try {
            const QString dir = QFileInfo(path).absolutePath();
            if (!QDir().mkpath(dir)) throw std::runtime_error("cannot create the folder " + dir.toStdString());
            save_checkpoint(path.toStdString(), model);
        } catch (const std::exception& e) {
            result->saveError = coreText(e);
        }
        if (hook) hook(model);
    };
    TrainingController::StartPoint start;
    start.params = std::move(from);
    QString error;
    if (!controller_->start(run_->config, start, builtin_examples(run_->config), run_->stages[run_->stage], &error, epilogue))
        fail(error);
}

void PresetTrainer::stageFinished(int status, const QString& message, std::shared_ptr<ParamSet> params) {
    if (!run_) return;
    using State = TrainingController::State;
    if (State(status) == State::Stopped || !params) {
        fail(message.isEmpty() ? tr("the training stopped") : message);
        return;
    }
    Result& r = *run_->result;
    if (State(status) == State::Diverged) r.detail = message;
    if (!r.verified && run_->stage + 1 < run_->stages.size()) {
        // A diverged stage hands on its last good weights.
        run_->base = run_->total;
        run_->total += stageSteps(run_->stages[++run_->stage], run_->config);
        runStage(std::move(params));
        return;
    }
    if (!r.verified)
        qWarning().noquote() << "The trained model does not translate the training sentences exactly:" << r.detail;
    r.config = run_->config;
    r.params = std::move(params);
    const Result done = r;
    run_.reset();
    emit finished(done);
}

void PresetTrainer::fail(const QString& message) {
    if (!run_) return;
    run_.reset();
    controller_->reset();
    emit failed(message);
}
