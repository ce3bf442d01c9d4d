// PresetTrainer: the first start's training runs on the Train dock's pipeline (a
// TrainingController), stage by stage until the model translates the training sentences, and
// writes the cache file; the Session trains through it.
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

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestPresetTrainer t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_preset_trainer.moc"
