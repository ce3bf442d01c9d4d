// PresetTrainer: the first start's training runs on the Train dock's pipeline (a
// TrainingController), stage by stage until the model translates the training sentences, and
// writes the cache file; the Session trains through it. What a run leaves behind in memory: the
// weights go to their new owner, the optimizer state to a temporary file or nowhere.
#include <QtTest>

#include <QApplication>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>

#include "training/preset_trainer.h"
#include "app/session.h"
#include "stepformer/model.h"
#include "stepformer/recipes.h"
#include "training/training_controller.h"

using namespace stepformer;

namespace {

std::vector<TrainOptions> smallStages(int firstEpochs) {
    auto stages = preset_recipe(TrainingPreset::Small);
    stages.front().epochs = firstEpochs;
    return stages;
}

}  // namespace

class TestPresetTrainer : public QObject {
    Q_OBJECT
private slots:
    void aStageThatTranslatesEndsTheRecipe();
    void aLaterStageRunsWhenTheFirstFallsShort();
    void backgroundRunsOnTheController();
    void theSessionTrainsThroughTheController();
    void aRunHandsItsMemoryOverInsteadOfKeepingIt();
    void trainedWeightsAreSharedWithTheSessionNotCopied();
};

void TestPresetTrainer::aStageThatTranslatesEndsTheRecipe() {
    QTemporaryDir dir;
    const Config c = Config::small();
    PresetTrainer t;
    QSignalSpy started(&t, &PresetTrainer::started), progress(&t, &PresetTrainer::progress);
    QSignalSpy controllerStarts(t.controller(), &TrainingController::started);
    PresetTrainer::Result result;
    connect(&t, &PresetTrainer::finished, this, [&](const PresetTrainer::Result& r) { result = r; });
    const QString path = dir.filePath(QStringLiteral("sub/small.safetensors"));
    t.start(c, std::make_shared<const ParamSet>(init_params(c, 7)), smallStages(60), path, true);
    // Synchronous: everything has happened.
    QVERIFY(!t.isRunning());
    QCOMPARE(started.count(), 1);
    QCOMPARE(started.first().at(0).toInt(), 60);
    QCOMPARE(controllerStarts.count(), 1);  // the fallback stage was not needed
    QCOMPARE(progress.count(), 60);
    QCOMPARE(progress.last().at(0).toInt(), 60);
    QCOMPARE(progress.last().at(1).toInt(), 60);
    QVERIFY2(result.verified, qPrintable(result.detail));
    QVERIFY(result.params);
    QVERIFY(result.saveError.isEmpty());
    QVERIFY(QFileInfo::exists(path));
}

void TestPresetTrainer::aLaterStageRunsWhenTheFirstFallsShort() {
    QTemporaryDir dir;
    const Config c = Config::small();
    PresetTrainer t;
    QSignalSpy progress(&t, &PresetTrainer::progress);
    QSignalSpy controllerStarts(t.controller(), &TrainingController::started);
    PresetTrainer::Result result;
    connect(&t, &PresetTrainer::finished, this, [&](const PresetTrainer::Result& r) { result = r; });
    const QString path = dir.filePath(QStringLiteral("small.safetensors"));
    const auto stages = smallStages(1);  // one epoch does not translate anything yet
    t.start(c, std::make_shared<const ParamSet>(init_params(c, 7)), stages, path, true);
    QCOMPARE(controllerStarts.count(), 2);
    const int total = 1 + stages[1].epochs;
    QCOMPARE(progress.count(), total);
    QCOMPARE(progress.last().at(0).toInt(), total);
    QCOMPARE(progress.last().at(1).toInt(), total);
    QVERIFY(result.params);
    QVERIFY(QFileInfo::exists(path));
}

void TestPresetTrainer::backgroundRunsOnTheController() {
    QTemporaryDir dir;
    const Config c = Config::small();
    PresetTrainer t;
    QSignalSpy finished(&t, &PresetTrainer::finished);
    t.start(c, std::make_shared<const ParamSet>(init_params(c, 7)), smallStages(60),
            dir.filePath(QStringLiteral("small.safetensors")), false);
    QVERIFY(t.isRunning());
    QVERIFY(t.controller()->isActive());
    QVERIFY(finished.wait(120000));
    QVERIFY(!t.isRunning());
    // Cancelling drops a run: nothing of it arrives.
    QSignalSpy again(&t, &PresetTrainer::finished);
    t.start(c, std::make_shared<const ParamSet>(init_params(c, 7)), smallStages(60),
            dir.filePath(QStringLiteral("other.safetensors")), false);
    t.cancel();
    QVERIFY(!t.isRunning());
    QTest::qWait(300);
    QCOMPARE(again.count(), 0);
}

void TestPresetTrainer::theSessionTrainsThroughTheController() {
    QTemporaryDir dir;
    Session s;
    s.setCacheDir(dir.path());
    auto* controller = s.findChild<TrainingController*>();
    QVERIFY(controller);
    QSignalSpy steps(controller, &TrainingController::stepReported);
    QSignalSpy finished(&s, &Session::trainingFinished);
    s.setPreset(Session::Preset::Small);
    QVERIFY(s.isTraining());
    QVERIFY(controller->isActive());
    QVERIFY(finished.wait(120000));
    QVERIFY(steps.count() >= 60);
    QCOMPARE(s.modelState(), Session::ModelState::Trained);
}

void TestPresetTrainer::aRunHandsItsMemoryOverInsteadOfKeepingIt() {
    // The preset's training: nobody resumes it, so its optimizer state is not kept at all.
    QTemporaryDir dir;
    const Config c = Config::small();
    PresetTrainer t;
    std::vector<std::shared_ptr<const Optimizer>> presetOptimizers;
    connect(t.controller(), &TrainingController::finished, this,
            [&](TrainingController::State, const QString&, std::shared_ptr<ParamSet> params,
                std::shared_ptr<const Optimizer> optimizer) {
                QVERIFY(params);
                presetOptimizers.push_back(std::move(optimizer));
            });
    t.start(c, std::make_shared<const ParamSet>(init_params(c, 7)), smallStages(60),
            dir.filePath(QStringLiteral("small.safetensors")), true);
    QCOMPARE(presetOptimizers.size(), size_t(1));
    QVERIFY(!presetOptimizers.front());
    // The controller keeps the summary, not the weights it handed over.
    QVERIFY(t.controller()->outcome());
    QCOMPARE(t.controller()->outcome()->stepsDone, 60);
    QVERIFY(!t.controller()->outcome()->params);
    QVERIFY(!t.controller()->outcome()->optimizer);

    // A Train dock run keeps its optimizer state for a checkpoint, in a temporary file until asked.
    TrainingController controller;
    controller.setSynchronous(true);
    controller.setAttentionSnapshots(false);
    std::shared_ptr<const Optimizer> kept;
    connect(&controller, &TrainingController::finished, this,
            [&](TrainingController::State, const QString&, std::shared_ptr<ParamSet>,
                std::shared_ptr<const Optimizer> optimizer) { kept = std::move(optimizer); });
    TrainOptions o = preset_recipe(TrainingPreset::Small).front();
    o.epochs = 3;
    TrainingController::StartPoint from;
    from.seed = 3;
    QVERIFY(controller.start(c, from, builtin_examples(), o));
    QCOMPARE(controller.state(), TrainingController::State::Finished);
    QVERIFY(kept);
    QCOMPARE(kept->step_count(), 3);
    QVERIFY(kept->state_spilled());
    QVERIFY(!controller.outcome()->optimizer);
    // Read back when a checkpoint needs it: Adam's moments after three steps are not all zero.
    bool nonZero = false;
    for (const auto& [name, tensor] : kept->state_tensors())
        for (float v : tensor->data) nonZero = nonZero || v != 0.0f;
    QVERIFY(nonZero);
    QVERIFY(!kept->state_spilled());
}

void TestPresetTrainer::trainedWeightsAreSharedWithTheSessionNotCopied() {
    Session s;
    s.setProvisioning(Session::Provisioning::Never);
    const Config c = Config::small();
    auto trained = std::make_shared<const ParamSet>(init_params(c, 11));
    QVERIFY(s.installTrainedModel(c, trained));
    QCOMPARE(s.params().get(), trained.get());  // the same weights, not a copy
    QVERIFY(s.gradients());                     // and the views' trace is computed from them
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestPresetTrainer t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_preset_trainer.moc"
