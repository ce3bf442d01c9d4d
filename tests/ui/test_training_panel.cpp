// "Train in the app": the TrainingPanel and its parts, offscreen, on the small model so runs take
// a moment. Start / pause / resume / stop change the state; the chart gets one point per step;
// invalid hyperparameters block Start with a message; the results table translates the two
// sentences correctly after training the small preset (Adam); a checkpoint saved from the panel
// reopens with identical weights and resumes; lr 100 diverges with a message and finite weights.
#include <cmath>
#include <memory>

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QToolTip>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "app/session.h"
#include "training/attention_replay.h"
#include "training/dataset_editor.h"
#include "widgets/heatmap_widget.h"
#include "training/hyperparameter_form.h"
#include "training/loss_chart.h"
#include "training/results_table.h"
#include "stepformer/checkpoint.h"
#include "stepformer/config.h"
#include "training/training_controller.h"
#include "training/training_panel.h"
#include "test_util.h"

using namespace stepformer;
using State = TrainingController::State;

namespace {

QPushButton* button(TrainingPanel& p, const char* name) { return p.findChild<QPushButton*>(QString::fromLatin1(name)); }

using testutil::smallRun;
using testutil::waitForState;

bool allFinite(const ParamSet& ps) {
    for (size_t i = 0; i < ps.size(); ++i)
        for (float v : ps[i].data)
            if (!std::isfinite(v)) return false;
    return true;
}

}  // namespace

class TestTrainingPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void defaultsAreTheTutorials();
    void formFollowsTheShownModelsPreset();
    void startPauseResumeStop();
    void chartGetsOnePointPerStep();
    void chartDecimatesAndToggles();
    void invalidHyperparametersBlockStart();
    void datasetEditorChecksAndTsv();
    void resultsAfterTrainingSmallPreset();
    void checkpointRoundTripAndResume();
    void divergenceKeepsFiniteWeights();
    void resetDuringRunIsImmediate();
#ifdef STEPFORMER_SCREENSHOTS
    void screenshots();  // a review tool, not a test: built as ui_shots_training_panel
#endif
    void replayNumbersHeadsFromZeroAndLabelsThumbnails();
};

void TestTrainingPanel::initTestCase() { QVERIFY(QGuiApplication::platformName() == QLatin1String("offscreen")); }

void TestTrainingPanel::defaultsAreTheTutorials() {
    TrainingPanel p;
    QCOMPARE(p.objectName(), QStringLiteral("trainingPanel"));
    for (const char* n : {"startButton", "pauseButton", "stopButton", "resetButton"}) QVERIFY2(button(p, n), n);
    QCOMPARE(p.state(), State::Idle);
    const Config c = p.hyperparameters()->config();
    QCOMPARE(c.d_model, 512);
    QCOMPARE(c.d_ff, 2048);
    QCOMPARE(c.d_k, 64);
    QCOMPARE(c.d_v, 64);
    QCOMPARE(c.n_heads, 8);
    QCOMPARE(c.n_layers, 6);
    QCOMPARE(c.dropout, 0.1);
    const TrainOptions o = p.hyperparameters()->trainOptions();
    QCOMPARE(o.optimizer.kind, OptimizerKind::SGD);
    QCOMPARE(o.optimizer.lr, 1e-3);
    QCOMPARE(o.optimizer.momentum, 0.99);
    QCOMPARE(o.epochs, 30);
    QCOMPARE(o.batch_size, 2);
    QCOMPARE(p.hyperparameters()->preset(), HyperparameterForm::Preset::Tutorial);
    QCOMPARE(p.datasetEditor()->examples().size(), size_t(2));
    QCOMPARE(p.datasetEditor()->examples()[0].enc_input, std::string("ich mochte ein bier P"));
    QVERIFY(button(p, "startButton")->isEnabled());
    QVERIFY(!button(p, "pauseButton")->isEnabled());
    QVERIFY(!button(p, "stopButton")->isEnabled());
    QVERIFY(!p.hasUnsavedWeights());

    p.hyperparameters()->applyPreset(HyperparameterForm::Preset::Small);
    const Config s = p.hyperparameters()->config();
    QCOMPARE(s.d_model, Config::small().d_model);
    QCOMPARE(s.n_layers, Config::small().n_layers);
    QCOMPARE(p.hyperparameters()->trainOptions().optimizer.kind, OptimizerKind::Adam);
    QCOMPARE(p.hyperparameters()->trainOptions().optimizer.lr, 5e-3);
    QCOMPARE(p.hyperparameters()->trainOptions().epochs, 60);
    // Editing a value leaves the preset.
    p.hyperparameters()->findChild<QSpinBox*>(QStringLiteral("epochsSpin"))->setValue(61);
    QCOMPARE(p.hyperparameters()->preset(), HyperparameterForm::Preset::Custom);
}

// While the form is on a preset it follows the shown model to that model's own (nanoGPT shown:
// Start trains a nanoGPT, not the tutorial's 44 M parameters). A model of no preset's
// architecture leaves it; values the user changed (Custom) stay.
void TestTrainingPanel::formFollowsTheShownModelsPreset() {
    using S = Session::Preset;
    using F = HyperparameterForm::Preset;
    TrainingPanel p;
    HyperparameterForm* form = p.hyperparameters();
    const QString name = QStringLiteral("the current model's");
    const std::pair<S, F> shownAndFollowed[] = {{S::Gpt, F::Gpt},     {S::Torch, F::Torch},       {S::Aiayn, F::Aiayn},
                                                {S::Small, F::Small}, {S::Untrained, F::Tutorial}, {S::Gpt, F::Gpt},
                                                {S::Tutorial, F::Tutorial}};
    for (const auto& [shown, followed] : shownAndFollowed) {
        p.setReferenceConfig(Session::presetConfig(shown), name);
        QCOMPARE(form->preset(), followed);
        QCOMPARE(form->config().architecture, Session::presetConfig(shown).architecture);
    }
    Config odd = Config::small();
    odd.d_model = 48;
    p.setReferenceConfig(odd, name);
    QCOMPARE(form->preset(), F::Tutorial);
    form->findChild<QSpinBox*>(QStringLiteral("epochsSpin"))->setValue(31);
    QCOMPARE(form->preset(), F::Custom);
    p.setReferenceConfig(Session::presetConfig(S::Gpt), name);
    QCOMPARE(form->preset(), F::Custom);
    QCOMPARE(form->config().d_model, 512);
    QCOMPARE(form->trainOptions().epochs, 31);
}

void TestTrainingPanel::startPauseResumeStop() {
    TrainingPanel p;
    p.resize(1200, 800);
    p.show();
    smallRun(p, 5000);  // long enough to be caught running
    QSignalSpy states(&p, &TrainingPanel::stateChanged);
    QTest::mouseClick(button(p, "startButton"), Qt::LeftButton);
    QCOMPARE(p.state(), State::Running);
    QVERIFY(!states.isEmpty());
    QCOMPARE(states.last().at(0).value<State>(), State::Running);
    QVERIFY(!button(p, "startButton")->isEnabled());
    QVERIFY(button(p, "pauseButton")->isEnabled());
    QVERIFY(!p.hyperparameters()->isEnabled());  // read-only while training

    // Some steps arrive.
    QTRY_VERIFY_WITH_TIMEOUT(p.lossChart()->pointCount() >= 5, 20000);

    QTest::mouseClick(button(p, "pauseButton"), Qt::LeftButton);
    QCOMPARE(p.state(), State::Paused);
    QCOMPARE(button(p, "pauseButton")->text(), QStringLiteral("Resume"));
    // Paused: at most the step in flight arrives, then nothing.
    QTest::qWait(150);
    const int atPause = p.lossChart()->pointCount();
    QTest::qWait(300);
    QCOMPARE(p.lossChart()->pointCount(), atPause);

    QTest::mouseClick(button(p, "pauseButton"), Qt::LeftButton);  // Resume
    QCOMPARE(p.state(), State::Running);
    QTRY_VERIFY_WITH_TIMEOUT(p.lossChart()->pointCount() > atPause, 20000);

    QSignalSpy trained(&p, &TrainingPanel::modelTrained);
    QTest::mouseClick(button(p, "stopButton"), Qt::LeftButton);
    QVERIFY(waitForState(p, State::Stopped));
    QCOMPARE(trained.count(), 1);
    QVERIFY(p.hasUnsavedWeights());
    const auto* out = p.controller()->outcome();
    QVERIFY(out);
    QVERIFY(out->stepsDone > 0);
    QCOMPARE(p.lossChart()->pointCount(), out->stepsDone);  // one point per step
    QVERIFY(p.message().contains(QStringLiteral("Stopped")));
    QVERIFY(button(p, "startButton")->isEnabled());
    QVERIFY(p.hyperparameters()->isEnabled());
    // The attention replay kept epoch 0 and one snapshot per finished epoch.
    QVERIFY(p.attentionReplay()->snapshotCount() >= 1);
    QCOMPARE(p.attentionReplay()->currentSnapshot()->blocks.size(), size_t(3 * Config::small().n_layers));

    // Stop while paused works too.
    QVERIFY(p.start());
    QTRY_VERIFY_WITH_TIMEOUT(p.lossChart()->pointCount() >= 2, 20000);
    p.pause();
    QCOMPARE(p.state(), State::Paused);
    p.stop();
    QVERIFY(waitForState(p, State::Stopped));
}

void TestTrainingPanel::chartGetsOnePointPerStep() {
    TrainingPanel p;
    p.resize(1200, 800);
    p.show();
    smallRun(p, 12, 1);  // 2 sentences, batch 1: 24 steps
    QSignalSpy steps(p.controller(), &TrainingController::stepReported);
    QSignalSpy epochs(p.controller(), &TrainingController::epochFinished);
    QVERIFY(p.start());
    QVERIFY(waitForState(p, State::Finished));
    QCOMPARE(steps.count(), 24);
    QCOMPARE(p.lossChart()->pointCount(), 24);
    p.lossChart()->flush();
    QCOMPARE(p.lossChart()->displayedPointCount(), 24);
    // Step numbers 1..24 in order, each with a finite loss.
    for (int i = 0; i < steps.count(); ++i) {
        const auto s = steps.at(i).at(0).value<TrainingStep>();
        QCOMPARE(s.step, i + 1);
        QCOMPARE(s.stepsTotal, 24);
        QVERIFY(std::isfinite(s.loss) && s.loss > 0.0);
        QVERIFY(s.lr > 0.0);
    }
    QCOMPARE(epochs.count(), 13);  // epoch 0 (initial weights) + 12
    QCOMPARE(p.attentionReplay()->snapshotCount(), 13);
    QCOMPARE(p.attentionReplay()->currentEpoch(), 12);
    QCOMPARE(p.findChild<QProgressBar*>(QStringLiteral("trainingProgress"))->value(), 24);
    const QString hover = p.lossChart()->hoverText(7.2);
    QVERIFY2(hover.contains(QStringLiteral("step 7")), qPrintable(hover));
    QVERIFY(hover.contains(QStringLiteral("loss")));
    // Hovering the plot shows that tooltip and a marker on the nearest point.
    QChartView* view = p.lossChart()->lossView();
    QVERIFY(view->isVisible());
    const QRectF plot = view->chart()->plotArea();
    const QPoint inView = view->mapFromScene(view->chart()->mapToScene(plot.center()));
    QTest::mouseMove(view->viewport(), inView);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().startsWith(QStringLiteral("step 12")) || QToolTip::text().startsWith(QStringLiteral("step 13")),
             qPrintable(QToolTip::text()));

    // The attention replay: slider over epochs, pickers, token labels.
    AttentionReplay* r = p.attentionReplay();
    r->setEpochIndex(0);
    QCOMPARE(r->currentEpoch(), 0);
    r->setBlock(QStringLiteral("enc_self_attn"), 1);
    r->setHead(2);
    HeatmapWidget* map = r->heatmap();
    QCOMPARE(map->rows(), 5);
    QCOMPARE(map->cols(), 5);
    QCOMPARE(map->rowLabels().first(), QStringLiteral("ich"));
    QVERIFY(map->isMasked(0, 4));  // the key "P" is padding
    float rowSum = 0.0f;
    for (int c = 0; c < 5; ++c) rowSum += map->value(0, c);
    QVERIFY(std::abs(rowSum - 1.0f) < 1e-4f);
    r->setBlock(QStringLiteral("dec_enc_attn"), 0);
    QCOMPARE(map->rows(), 6);
    QCOMPARE(map->rowLabels().first(), QStringLiteral("S"));
    QCOMPARE(map->colLabels().first(), QStringLiteral("ich"));
    QCOMPARE(r->thumbnails().size(), Config::small().n_heads);
}

void TestTrainingPanel::chartDecimatesAndToggles() {
    LossChart c;
    c.resize(800, 500);
    c.show();
    const int n = 12000;
    for (int i = 1; i <= n; ++i) c.addStep(i, 2.0 * std::exp(-i / 3000.0) + 0.01, 1.0, 1e-3);
    c.flush();
    QCOMPARE(c.pointCount(), n);
    QVERIFY2(c.displayedPointCount() <= LossChart::kDisplayCap, qPrintable(QString::number(c.displayedPointCount())));
    QVERIFY(c.displayedPointCount() >= LossChart::kDisplayCap / 4);
    // The smoothed line lags the raw one on a falling curve.
    QVERIFY(c.smoothedLoss() >= c.lastLoss());
    c.setLogScale(true);
    QVERIFY(c.logScale());
    c.setSmoothing(0.0);
    QVERIFY(std::abs(c.smoothedLoss() - c.lastLoss()) < 1e-12);
    c.setLogScale(false);
    c.clear();
    QCOMPARE(c.pointCount(), 0);
    QCOMPARE(c.displayedPointCount(), 0);
}

void TestTrainingPanel::invalidHyperparametersBlockStart() {
    TrainingPanel p;
    p.resize(1200, 800);
    p.show();
    smallRun(p, 2);
    QPushButton* start = button(p, "startButton");
    QVERIFY(start->isEnabled());
    HyperparameterForm* f = p.hyperparameters();
    QSignalSpy validity(f, &HyperparameterForm::validityChanged);
    auto* lr = f->findChild<QLineEdit*>(QStringLiteral("learningRateEdit"));
    QVERIFY(lr);

    lr->setText(QStringLiteral("abc"));
    QVERIFY(!f->isValid());
    QCOMPARE(validity.count(), 1);
    QCOMPARE(validity.last().at(0).toBool(), false);
    QVERIFY(!start->isEnabled());
    QVERIFY2(p.startBlockedReason().contains(QStringLiteral("Learning rate")), qPrintable(p.startBlockedReason()));
    auto* err = f->findChild<QLabel*>(QStringLiteral("hyperparameterError"));
    QVERIFY(err && err->isVisible());
    QVERIFY(err->text().contains(QStringLiteral("not a number")));
    QVERIFY(p.message().contains(QStringLiteral("Cannot start")));  // said beside the buttons too
    QVERIFY(!p.start());
    QCOMPARE(p.state(), State::Idle);

    lr->setText(QStringLiteral("-1e-3"));
    QVERIFY(f->validationMessage().contains(QStringLiteral("greater than 0")));
    lr->setText(QStringLiteral("1e-3"));
    QVERIFY(f->isValid());
    QVERIFY(start->isEnabled());
    QVERIFY(p.message().isEmpty());

    // Momentum 1 with SGD; dropout 1.
    TrainOptions o = f->trainOptions();
    o.optimizer.kind = OptimizerKind::SGD;
    o.optimizer.momentum = 1.0;
    f->setTrainOptions(o);
    QVERIFY(!f->isValid());
    QVERIFY(f->validationMessage().contains(QStringLiteral("Momentum")));
    QVERIFY(!start->isEnabled());
    o.optimizer.momentum = 0.9;
    f->setTrainOptions(o);
    QVERIFY(f->isValid());
    Config c = f->config();
    c.dropout = 1.0;
    f->setArchitecture(c);
    QVERIFY(f->validationMessage().contains(QStringLiteral("Dropout")));
    QVERIFY(!start->isEnabled());
    c.dropout = 0.0;
    f->setArchitecture(c);
    QVERIFY(start->isEnabled());

    // Too big to train.
    c.d_model = 4096;
    c.d_ff = 16384;
    c.n_layers = 24;
    f->setArchitecture(c);
    QVERIFY(f->validationMessage().contains(QStringLiteral("memory")));
    QVERIFY(!start->isEnabled());
    f->applyPreset(HyperparameterForm::Preset::Small);
    QVERIFY(start->isEnabled());

    // An invalid dataset blocks Start as well.
    p.datasetEditor()->setExamples({{"ich mochte ein bier P", "i want a beer .", "i want a beer . E"}});
    QVERIFY(!start->isEnabled());
    QVERIFY2(p.startBlockedReason().contains(QStringLiteral("start token")), qPrintable(p.startBlockedReason()));
    p.datasetEditor()->restoreTutorial();
    QVERIFY(start->isEnabled());
}

void TestTrainingPanel::datasetEditorChecksAndTsv() {
    DatasetEditor e;
    e.resize(900, 400);
    e.show();
    DatasetModel* m = e.model();
    QCOMPARE(m->rowCount(), 2);
    QCOMPARE(m->columnCount(), 3);
    QCOMPARE(m->headerData(0, Qt::Horizontal).toString(), QStringLiteral("enc_input"));
    QVERIFY(e.isValid());
    QVERIFY(!e.usesBuiltVocabulary());  // the tutorial's vocabulary covers the tutorial's sentences
    const Config tut = e.trainingConfig(Config::tutorial());
    QCOMPARE(tut.tgt_vocab, Config::tutorial().tgt_vocab);

    // A new word: flagged (not invalid); training gets the vocabulary built from the dataset.
    QVERIFY(m->insertRows(2, 1));
    QVERIFY(m->setData(m->index(2, 0), QStringLiteral("ich mochte ein wasser P")));
    QVERIFY(m->setData(m->index(2, 1), QStringLiteral("S i want a water .")));
    QCOMPARE(m->data(m->index(2, 2)).toString(), QStringLiteral("i want a water . E"));  // derived
    QCOMPARE(m->rowStatus(2), DatasetModel::RowStatus::Flagged);
    QVERIFY(m->rowProblem(2).contains(QStringLiteral("'wasser'")));
    QVERIFY(m->data(m->index(2, 0), Qt::ToolTipRole).toString().contains(QStringLiteral("wasser")));
    QVERIFY(e.isValid());
    QVERIFY(e.usesBuiltVocabulary());
    const Config built = e.trainingConfig(Config::small());
    QCOMPARE(built.d_model, Config::small().d_model);
    QVERIFY(built.src_id("wasser") > 0);
    QVERIFY(built.tgt_id("water") > 0);
    QCOMPARE(built.src_vocab, config_with_vocab_from(e.examples(), Config::small()).src_vocab);

    // Structural problems make the dataset invalid, with the row named.
    QVERIFY(m->setData(m->index(2, 2), QStringLiteral("i want a water E")));
    QCOMPARE(m->rowStatus(2), DatasetModel::RowStatus::Invalid);
    QVERIFY(!e.isValid());
    QVERIFY2(e.validationMessage().contains(QStringLiteral("row 3")), qPrintable(e.validationMessage()));
    QVERIFY(m->removeRows(2, 1));
    QVERIFY(e.isValid());

    // TSV round trip through the core's to_tsv / parse_tsv.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("data.tsv"));
    QString error;
    QVERIFY2(e.exportTsv(path, &error), qPrintable(error));
    e.setExamples({});
    QVERIFY(!e.isValid());
    QVERIFY2(e.importTsv(path, &error), qPrintable(error));
    QCOMPARE(e.examples().size(), size_t(2));
    QCOMPARE(e.examples()[1].dec_output, builtin_examples()[1].dec_output);
    // Two-column form gets bos/eos; new words are accepted (and flagged).
    QVERIFY2(e.importTsvText(QStringLiteral("# source\ttarget\nich mochte ein bier P\ti want a beer .\n"
                                            "du mochte ein cola P\tyou want a coke .\n"),
                             &error),
             qPrintable(error));
    QCOMPARE(e.examples().size(), size_t(2));
    QCOMPARE(e.examples()[1].dec_input, std::string("S you want a coke ."));
    QCOMPARE(m->rowStatus(1), DatasetModel::RowStatus::Flagged);
    // Errors name the line; the table stays as it was.
    QVERIFY(!e.importTsvText(QStringLiteral("ich mochte ein bier P\tS i want a beer .\ti want a beer . E\n"
                                            "\n"
                                            "only one column\n"),
                             &error, QStringLiteral("dataset 'bad.tsv'")));
    QVERIFY2(error.contains(QStringLiteral("line 3")), qPrintable(error));
    QVERIFY(error.contains(QStringLiteral("bad.tsv")));
    QCOMPARE(e.examples().size(), size_t(2));
    auto* msg = e.findChild<QLabel*>(QStringLiteral("datasetMessage"));
    QVERIFY(msg && msg->isVisible() && msg->text().contains(QStringLiteral("line 3")));
    QVERIFY(!e.importTsvText(QStringLiteral("a b\tS x\ty\n"), &error));
    QVERIFY2(error.contains(QStringLiteral("line 1")), qPrintable(error));

    // Fixed vocabulary (resuming a checkpoint): an unknown word is an error.
    e.setReferenceConfig(Config::tutorial(), QStringLiteral("the checkpoint's"), true);
    QCOMPARE(m->rowStatus(1), DatasetModel::RowStatus::Invalid);
    QVERIFY(!e.isValid());
}

void TestTrainingPanel::resultsAfterTrainingSmallPreset() {
    TrainingPanel p;
    p.resize(1200, 800);
    p.show();
    p.hyperparameters()->applyPreset(HyperparameterForm::Preset::Small);
    QCOMPARE(p.hyperparameters()->trainOptions().optimizer.kind, OptimizerKind::Adam);
    QSignalSpy trained(&p, &TrainingPanel::modelTrained);
    QSignalSpy results(p.resultsTable(), &ResultsTable::resultsReady);
    QVERIFY(p.start());
    QVERIFY(waitForState(p, State::Finished));
    QCOMPARE(trained.count(), 1);
    const auto cfg = trained.at(0).at(0).value<Config>();
    QCOMPARE(cfg.d_model, Config::small().d_model);
    const auto params = trained.at(0).at(1).value<std::shared_ptr<const ParamSet>>();
    QVERIFY(params && params.get() == p.trainedParams().get());
    QVERIFY(results.count() > 0 || results.wait(30000));
    ResultsTable* t = p.resultsTable();
    QCOMPARE(t->rowCount(), 2);
    for (const auto& r : t->rows()) QVERIFY2(r.correct, qPrintable(r.source + " -> " + r.predicted + " (expected " + r.expected + ")"));
    QCOMPARE(t->correctCount(), 2);
    QCOMPARE(t->rows()[0].expected, QStringLiteral("i want a beer ."));
    QVERIFY(p.message().contains(QStringLiteral("2 / 2")));
}

void TestTrainingPanel::checkpointRoundTripAndResume() {
    TrainingPanel p;
    QString error;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("trained.safetensors"));
    QVERIFY(!p.saveCheckpoint(path, &error));  // nothing trained yet
    QVERIFY(error.contains(QStringLiteral("train first")));

    smallRun(p, 6);
    QVERIFY(p.start());
    QVERIFY(waitForState(p, State::Finished));
    QVERIFY(p.hasUnsavedWeights());
    QVERIFY2(p.saveCheckpoint(path, &error), qPrintable(error));
    QVERIFY(!p.hasUnsavedWeights());

    const Checkpoint ck = load_checkpoint(path.toStdString());
    QVERIFY(ck.config.same_architecture(p.trainedConfig()));
    const ParamSet& mine = *p.trainedParams();
    QCOMPARE(ck.params.size(), mine.size());
    for (size_t i = 0; i < mine.size(); ++i) {
        QCOMPARE(ck.params.name(i), mine.name(i));
        QVERIFY2(ck.params[i].shape == mine[i].shape, mine.name(i).c_str());
        QVERIFY2(ck.params[i].data == mine[i].data, mine.name(i).c_str());  // bit-identical
    }
    QVERIFY(ck.optimizer_json.has_value());
    QVERIFY(ck.optimizer_json->find("\"step\":12") != std::string::npos);  // 6 epochs x 2 steps

    // Resume: the architecture is locked to the checkpoint's and the run continues from it.
    TrainingPanel q;
    q.hyperparameters()->applyPreset(HyperparameterForm::Preset::Tutorial);  // a different size...
    QVERIFY2(q.loadCheckpointForResume(path, &error), qPrintable(error));
    QVERIFY(q.isResuming());
    QCOMPARE(q.hyperparameters()->config().d_model, Config::small().d_model);  // ...replaced by the checkpoint's
    QVERIFY(q.hyperparameters()->isArchitectureLocked());
    QCOMPARE(q.hyperparameters()->trainOptions().optimizer.kind, OptimizerKind::Adam);
    TrainOptions o = q.hyperparameters()->trainOptions();
    o.epochs = 1;
    q.hyperparameters()->setTrainOptions(o);
    QSignalSpy firstStep(q.controller(), &TrainingController::stepReported);
    QVERIFY(q.start());
    QVERIFY(waitForState(q, State::Finished));
    QVERIFY(firstStep.count() > 0);
    // Continuing from trained weights: the first loss is already low (a fresh model starts near ln 9).
    const double firstLoss = firstStep.at(0).at(0).value<TrainingStep>().loss;
    QVERIFY2(firstLoss < 1.5, qPrintable(QString::number(firstLoss)));
    QVERIFY(!q.loadCheckpointForResume(dir.filePath(QStringLiteral("missing.safetensors")), &error));
    QVERIFY(error.contains(QStringLiteral("missing.safetensors")));
    q.reset();
    QVERIFY(!q.isResuming());
    QVERIFY(!q.hyperparameters()->isArchitectureLocked());
}

void TestTrainingPanel::divergenceKeepsFiniteWeights() {
    TrainingPanel p;
    p.resize(1200, 800);
    p.show();
    smallRun(p, 200);
    // Learned LayerNorm: its gamma can grow without bound, where the tutorial's fixed LayerNorm
    // keeps every output bounded and no learning rate up to 100 overflows.
    auto* learn = p.findChild<QCheckBox*>(QStringLiteral("learnLayerNormCheck"));
    QVERIFY(learn && !learn->isChecked());
    learn->setChecked(true);
    QVERIFY(p.hyperparameters()->config().learn_layer_norm);
    TrainOptions o = p.hyperparameters()->trainOptions();
    o.optimizer.kind = OptimizerKind::SGD;
    o.optimizer.momentum = 0.99;
    o.optimizer.lr = 100.0;
    p.hyperparameters()->setTrainOptions(o);
    QVERIFY(p.hyperparameters()->isValid());
    QSignalSpy finished(p.controller(), &TrainingController::finished);
    QSignalSpy trained(&p, &TrainingPanel::modelTrained);
    QVERIFY(p.start());
    QVERIFY(waitForState(p, State::Diverged));
    QCOMPARE(finished.count(), 1);
    const QString msg = finished.at(0).at(1).toString();
    QVERIFY2(msg.contains(QStringLiteral("NaN")) || msg.contains(QStringLiteral("infinite")), qPrintable(msg));
    QVERIFY(p.message().contains(QStringLiteral("last good weights")));
    auto* state = p.findChild<QLabel*>(QStringLiteral("trainingStateLabel"));
    QCOMPARE(state->text(), QStringLiteral("Diverged"));
    const auto params = finished.at(0).at(2).value<std::shared_ptr<ParamSet>>();
    QVERIFY(params);
    QVERIFY(allFinite(*params));
    // Not handed to the views as a trained model; Start is available again.
    QCOMPARE(trained.count(), 0);
    QVERIFY(!p.hasUnsavedWeights());
    QVERIFY(button(p, "startButton")->isEnabled());
    QCOMPARE(p.lossChart()->pointCount(), p.controller()->outcome()->stepsDone);
}

void TestTrainingPanel::resetDuringRunIsImmediate() {
    TrainingPanel p;
    smallRun(p, 5000);
    QVERIFY(p.start());
    QTRY_VERIFY_WITH_TIMEOUT(p.lossChart()->pointCount() >= 3, 20000);
    QElapsedTimer t;
    t.start();
    p.reset();
    QVERIFY(t.elapsed() < 50);  // no waiting for the worker
    QCOMPARE(p.state(), State::Idle);
    QCOMPARE(p.lossChart()->pointCount(), 0);
    // Whatever the abandoned worker still posts is dropped.
    QTest::qWait(200);
    QCOMPARE(p.lossChart()->pointCount(), 0);
    QCOMPARE(p.state(), State::Idle);
    // A new run starts at once.
    smallRun(p, 2);
    QVERIFY(p.start());
    QVERIFY(waitForState(p, State::Finished));
    QCOMPARE(p.lossChart()->pointCount(), 4);
}

#ifdef STEPFORMER_SCREENSHOTS
// Screenshots for review: STEPFORMER_SCREENSHOT_DIR=/tmp build/bin/ui_shots_training_panel screenshots
void TestTrainingPanel::screenshots() {
    const QString dir = qEnvironmentVariable("STEPFORMER_SCREENSHOT_DIR");
    if (dir.isEmpty()) QFAIL("set STEPFORMER_SCREENSHOT_DIR to the folder for the screenshots");
    auto tabs = [](TrainingPanel& p) { return p.findChild<QTabWidget*>(QStringLiteral("trainingTabs")); };
    {
        TrainingPanel p;
        p.resize(1400, 860);
        p.show();
        p.hyperparameters()->applyPreset(HyperparameterForm::Preset::Small);
        TrainOptions o = p.hyperparameters()->trainOptions();
        o.epochs = 400;
        p.hyperparameters()->setTrainOptions(o);
        QVERIFY(p.start());
        QTRY_VERIFY_WITH_TIMEOUT(p.lossChart()->pointCount() >= 150, 60000);
        p.pause();
        QTest::qWait(200);
        p.lossChart()->flush();
        QTest::qWait(50);
        p.grab().save(dir + QStringLiteral("/training_mid.png"));
        p.resume();
        QVERIFY(waitForState(p, State::Finished));
        QSignalSpy results(p.resultsTable(), &ResultsTable::resultsReady);
        if (p.resultsTable()->rowCount() == 0) results.wait(30000);
        QTest::qWait(100);
        p.grab().save(dir + QStringLiteral("/training_done_loss.png"));
        p.lossChart()->setLogScale(true);
        QTest::qWait(50);
        p.grab().save(dir + QStringLiteral("/training_done_loss_log.png"));
        tabs(p)->setCurrentWidget(p.attentionReplay());
        QTest::qWait(50);
        p.grab().save(dir + QStringLiteral("/training_done_attention.png"));
        p.attentionReplay()->setEpochIndex(0);
        QTest::qWait(50);
        p.grab().save(dir + QStringLiteral("/training_attention_epoch0.png"));
        tabs(p)->setCurrentWidget(p.resultsTable());
        QTest::qWait(50);
        p.grab().save(dir + QStringLiteral("/training_done_results.png"));
        tabs(p)->setCurrentWidget(p.datasetEditor());
        p.datasetEditor()->model()->insertRows(2, 1);
        auto* m = p.datasetEditor()->model();
        m->setData(m->index(2, 0), QStringLiteral("ich mochte ein wasser P"));
        m->setData(m->index(2, 1), QStringLiteral("S i want a water ."));
        p.datasetEditor()->model()->insertRows(3, 1);
        m->setData(m->index(3, 0), QStringLiteral("ich mochte ein bier P"));
        m->setData(m->index(3, 1), QStringLiteral("i want a beer ."));
        p.hyperparameters()->findChild<QLineEdit*>(QStringLiteral("learningRateEdit"))->setText(QStringLiteral("0"));
        QTest::qWait(50);
        p.grab().save(dir + QStringLiteral("/training_dataset_invalid.png"));
    }
    {
        TrainingPanel p;
        p.resize(1400, 860);
        p.show();
        smallRun(p, 200);
        // Only with learned LayerNorm does lr 100 overflow (see the divergence test).
        p.findChild<QCheckBox*>(QStringLiteral("learnLayerNormCheck"))->setChecked(true);
        TrainOptions o = p.hyperparameters()->trainOptions();
        o.optimizer.kind = OptimizerKind::SGD;
        o.optimizer.momentum = 0.99;
        o.optimizer.lr = 100.0;
        p.hyperparameters()->setTrainOptions(o);
        QVERIFY(p.start());
        QVERIFY(waitForState(p, State::Diverged));
        QTest::qWait(100);
        p.grab().save(dir + QStringLiteral("/training_diverged.png"));
    }
    {
        // The tutorial's size, mid-run.
        TrainingPanel p;
        p.resize(1400, 860);
        p.show();
        QVERIFY(p.start());
        QTRY_VERIFY_WITH_TIMEOUT(p.lossChart()->pointCount() >= 8, 120000);
        p.lossChart()->flush();
        QTest::qWait(50);
        p.grab().save(dir + QStringLiteral("/training_tutorial_mid.png"));
        p.stop();
        QVERIFY(waitForState(p, State::Stopped));
    }
}
#endif  // STEPFORMER_SCREENSHOTS

// The replay numbers heads 0..H-1 like every other view, and its thumbnails carry the tokens.
void TestTrainingPanel::replayNumbersHeadsFromZeroAndLabelsThumbnails() {
    auto snap = std::make_shared<AttentionSnapshot>();
    snap->srcTokens = {QStringLiteral("ich"), QStringLiteral("mochte"), QStringLiteral("ein"), QStringLiteral("bier"),
                       QStringLiteral("P")};
    snap->tgtTokens = {QStringLiteral("S"), QStringLiteral("i"), QStringLiteral("want"), QStringLiteral("a"),
                       QStringLiteral("beer"), QStringLiteral(".")};
    snap->pad = QStringLiteral("P");
    AttentionBlockMap m;
    m.kind = stepformer::BlockKind::CrossAttention;
    m.heads = 2;
    m.rows = 6;
    m.cols = 5;
    m.values.assign(size_t(m.heads * m.rows * m.cols), 0.2f);
    snap->blocks.push_back(m);
    AttentionReplay r;
    r.resize(900, 600);
    r.show();
    r.addSnapshot(snap);
    r.setBlock(QStringLiteral("dec_enc_attn"), 0);
    auto* heads = r.findChild<QComboBox*>(QStringLiteral("replayHeadPicker"));
    QVERIFY(heads);
    QCOMPARE(heads->count(), 2);
    QCOMPARE(heads->itemText(0), QStringLiteral("0"));
    QCOMPARE(heads->itemText(1), QStringLiteral("1"));
    r.setHead(1);
    QVERIFY2(r.heatmap()->title().contains(QStringLiteral("head 1")), qPrintable(r.heatmap()->title()));
    auto* thumb = r.findChild<HeatmapWidget*>(QStringLiteral("replayThumb0"));
    QVERIFY(thumb);
    QCOMPARE(thumb->title(), QStringLiteral("head 0"));
    QVERIFY(thumb->toolTip().startsWith(QStringLiteral("Head 0")));
    QCOMPARE(thumb->rowLabels(), snap->tgtTokens);
    QCOMPARE(thumb->colLabels(), snap->srcTokens);
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestTrainingPanel t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_training_panel.moc"
