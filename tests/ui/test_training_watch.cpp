// Watching a run (issue 14): the pace beside Start slows the optimizer steps (a short run takes
// at least its steps' paced time), Stop and a pace change act at once in the middle of a paced
// wait, live traces of the app's sentences arrive during a run with new values each time (and
// none when the toggle is off), the tutorial's preset defaults to Watch, and in the main window
// the views show the live trace (status "live: ...") and go back to the model's after the run,
// on Reset, in the backward direction (a run computes no backward pass) and when toggled off.
#include <memory>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "app/main_window.h"
#include "app/session.h"
#include "steps/step_navigator.h"
#include "stepformer/trace.h"
#include "test_util.h"
#include "training/hyperparameter_form.h"
#include "training/loss_chart.h"
#include "training/training_controller.h"
#include "training/training_panel.h"
#include "views/step_view.h"

using namespace stepformer;
using State = TrainingController::State;
using Pace = TrainingPanel::Pace;

namespace {

using testutil::smallRun;
using testutil::waitForState;

std::vector<float> logitsOf(const std::shared_ptr<const LiveTrace>& live) {
    const TraceEntry* e = live && live->trace ? live->trace->find("projection.logits") : nullptr;
    return e ? e->value.data : std::vector<float>{};
}

}  // namespace

class TestTrainingWatch : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void tutorialPresetDefaultsToWatch();
    void followingTheShownModelKeepsAChosenPace();
    void paceSlowsARun();
    void stopEndsAPacedWaitAtOnce();
    void paceChangeAppliesMidRun();
    void liveTracesArriveWithNewValues();
    void liveTracesOffSendsNone();
    void mainWindowShowsLiveTracesThenTheModel();

private:
    QTemporaryDir cache_;
};

void TestTrainingWatch::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(cache_.isValid());
    qputenv("STEPFORMER_CACHE_DIR", cache_.path().toUtf8());
}

// Every test starts from no remembered pace or live-views choice.
void TestTrainingWatch::init() {
    QSettings s;
    s.remove(QStringLiteral("training/pace"));
    s.remove(QStringLiteral("training/liveViews"));
}

void TestTrainingWatch::tutorialPresetDefaultsToWatch() {
    TrainingPanel p;
    auto* combo = p.findChild<QComboBox*>(QStringLiteral("paceCombo"));
    auto* live = p.findChild<QCheckBox*>(QStringLiteral("liveViewsToggle"));
    QVERIFY(combo && live);
    QVERIFY(!combo->toolTip().isEmpty() && !live->toolTip().isEmpty());
    QCOMPARE(p.hyperparameters()->preset(), HyperparameterForm::Preset::Tutorial);
    QCOMPARE(p.pace(), Pace::Watch);
    QVERIFY(combo->currentText().startsWith(QStringLiteral("Watch")));
    QCOMPARE(p.controller()->pace(), TrainingPanel::kWatchPaceMs);
    QVERIFY(live->isChecked());
    QVERIFY(p.controller()->liveTraces());
    // Another preset: full speed; the tutorial's again: Watch.
    p.hyperparameters()->applyPreset(HyperparameterForm::Preset::Small);
    QCOMPARE(p.pace(), Pace::FullSpeed);
    QCOMPARE(p.controller()->pace(), 0);
    p.hyperparameters()->applyPreset(HyperparameterForm::Preset::Tutorial);
    QCOMPARE(p.pace(), Pace::Watch);

    // A choice made in the combo (and the toggle) is remembered by the next panel.
    combo->setCurrentIndex(combo->findData(int(Pace::FullSpeed)));
    emit combo->activated(combo->currentIndex());
    QCOMPARE(p.controller()->pace(), 0);
    live->click();
    QVERIFY(!p.controller()->liveTraces());
    TrainingPanel again;
    QCOMPARE(again.pace(), Pace::FullSpeed);
    QVERIFY(!again.liveViews());
}

// The form following the shown model to its preset (test_training_panel) brings that preset's
// pace while the user has picked none, and leaves the one they picked.
void TestTrainingWatch::followingTheShownModelKeepsAChosenPace() {
    const QString name = QStringLiteral("the current model's");
    {
        TrainingPanel p;
        p.setReferenceConfig(Session::presetConfig(Session::Preset::Gpt), name);
        QCOMPARE(p.hyperparameters()->preset(), HyperparameterForm::Preset::Gpt);
        QCOMPARE(p.pace(), Pace::FullSpeed);
        p.setReferenceConfig(Session::presetConfig(Session::Preset::Tutorial), name);
        QCOMPARE(p.pace(), Pace::Watch);
    }
    TrainingPanel p;
    auto* combo = p.findChild<QComboBox*>(QStringLiteral("paceCombo"));
    QVERIFY(combo);
    combo->setCurrentIndex(combo->findData(int(Pace::Watch)));
    emit combo->activated(combo->currentIndex());
    p.setReferenceConfig(Session::presetConfig(Session::Preset::Gpt), name);
    QCOMPARE(p.hyperparameters()->preset(), HyperparameterForm::Preset::Gpt);
    QCOMPARE(p.pace(), Pace::Watch);
    QCOMPARE(p.controller()->pace(), TrainingPanel::kWatchPaceMs);
}

void TestTrainingWatch::paceSlowsARun() {
    TrainingPanel p;
    smallRun(p, 2);  // 4 steps
    p.setPace(Pace::Watch);
    p.setLiveViews(false);
    QElapsedTimer t;
    t.start();
    QVERIFY(p.start());
    QVERIFY(waitForState(p, State::Finished));
    const qint64 ms = t.elapsed();
    QCOMPARE(p.lossChart()->pointCount(), 4);
    // Each step but the last waits until it has taken the pace: 3 x 500 ms at least (the small
    // model trains a step in a few ms at full speed).
    QVERIFY2(ms >= 3 * TrainingPanel::kWatchPaceMs, qPrintable(QStringLiteral("%1 ms").arg(ms)));
    QVERIFY(p.controller()->lastStep().elapsedS >= 3 * TrainingPanel::kWatchPaceMs / 1000.0 - 0.01);
}

void TestTrainingWatch::stopEndsAPacedWaitAtOnce() {
    TrainingPanel p;
    smallRun(p, 5);  // 10 steps of 20 s each: over 3 minutes paced
    p.controller()->setPace(20000);
    QSignalSpy steps(p.controller(), &TrainingController::stepReported);
    QVERIFY(p.start());
    QVERIFY(steps.wait(30000));  // the first step is done; its paced wait has begun
    QElapsedTimer t;
    t.start();
    p.stop();
    QVERIFY2(waitForState(p, State::Stopped, 2000), "Stop did not end the paced wait within 2 s");
    qInfo().noquote() << QStringLiteral("stopped %1 ms after Stop").arg(t.elapsed());
    QCOMPARE(p.controller()->outcome()->stepsDone, 1);

    // Reset during a paced wait abandons the run at once too: a new run can start.
    QVERIFY(p.start());
    QVERIFY(steps.wait(30000));
    p.reset();
    QCOMPARE(p.state(), State::Idle);
    p.controller()->setPace(0);
    QVERIFY(p.start());
    QVERIFY(waitForState(p, State::Finished, 60000));
}

void TestTrainingWatch::paceChangeAppliesMidRun() {
    TrainingPanel p;
    smallRun(p, 3);  // 6 steps
    p.controller()->setPace(60000);
    QSignalSpy steps(p.controller(), &TrainingController::stepReported);
    QVERIFY(p.start());
    QVERIFY(steps.wait(30000));
    p.setPace(Pace::FullSpeed);  // the minute-long wait ends now
    QVERIFY2(waitForState(p, State::Finished, 20000), "the pace change did not end the wait");
    QCOMPARE(p.lossChart()->pointCount(), 6);
}

void TestTrainingWatch::liveTracesArriveWithNewValues() {
    TrainingPanel p;
    smallRun(p, 3);  // 6 steps of at least 500 ms: each may post a trace (interval 400 ms)
    p.setPace(Pace::Watch);
    p.setLiveViews(true);
    p.setLiveInput(QStringLiteral("ich mochte ein cola P"), QStringLiteral("S i want a coke ."));
    QSignalSpy live(&p, &TrainingPanel::liveTraceReady);
    QVERIFY(p.start());
    QVERIFY(waitForState(p, State::Finished));
    QVERIFY2(live.count() >= 2, qPrintable(QStringLiteral("%1 live traces").arg(live.count())));
    const auto first = live.first().at(0).value<std::shared_ptr<const LiveTrace>>();
    const auto last = live.last().at(0).value<std::shared_ptr<const LiveTrace>>();
    QCOMPARE(first->source, QStringLiteral("ich mochte ein cola P"));
    QCOMPARE(first->target, QStringLiteral("S i want a coke ."));
    QVERIFY(first->step.step < last->step.step);
    QVERIFY(first->trace->find("projection.logits"));
    QVERIFY(first->trace->contains("loss"));
    QVERIFY(!first->trace->contains("grad.loss"));  // no backward pass in a run's live traces
    // The weights changed between them, so the numbers did.
    const auto a = logitsOf(first), b = logitsOf(last);
    QCOMPARE(a.size(), b.size());
    QVERIFY(!a.empty());
    QVERIFY(a != b);
}

void TestTrainingWatch::liveTracesOffSendsNone() {
    TrainingPanel p;
    smallRun(p, 2);
    p.setPace(Pace::Watch);
    p.setLiveViews(false);
    QSignalSpy live(&p, &TrainingPanel::liveTraceReady);
    QVERIFY(p.start());
    QVERIFY(waitForState(p, State::Finished));
    QCOMPARE(live.count(), 0);
}

void TestTrainingWatch::mainWindowShowsLiveTracesThenTheModel() {
    MainWindow::Options o;
    o.restoreSettings = false;
    o.saveSettings = false;
    o.preset = Session::Preset::Small;
    o.provisioning = Session::Provisioning::Never;  // the untrained small model: the run changes it
    o.cacheDir = cache_.path();
    MainWindow w(o);
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.trainingDock()->show();
    Session* session = w.session();
    QVERIFY(w.setCurrentStep(QStringLiteral("projection.logits")));
    const auto own = session->trace();
    TrainingPanel* p = w.trainingPanel();
    smallRun(*p, 3);
    p->setPace(Pace::Watch);
    p->setLiveViews(true);

    QSignalSpy liveChanged(session, &Session::liveTraceChanged);
    QVERIFY(p->start());
    QVERIFY(liveChanged.wait(20000));
    QVERIFY(session->isLive());
    QVERIFY(session->trace() != own);
    QCOMPARE(w.currentStep(), QStringLiteral("projection.logits"));  // the step stays
    auto* view = qobject_cast<StepView*>(w.currentViewWidget());
    QVERIFY(view);
    auto* liveLabel = w.findChild<QLabel*>(QStringLiteral("liveLabel"));
    QVERIFY(liveLabel && !liveLabel->isHidden());
    QVERIFY2(liveLabel->text().startsWith(QStringLiteral("live: epoch ")), qPrintable(liveLabel->text()));
    QVERIFY(liveLabel->text().contains(QStringLiteral("/6")));
    QTest::qWait(50);
    testutil::saveShot(w, QStringLiteral("watch_live_1366.png"));

    // The run ends: the session adopts its weights, the views its trace.
    QVERIFY(waitForState(*p, State::Finished));
    QVERIFY(!session->isLive());
    QCOMPARE(session->modelState(), Session::ModelState::TrainedInApp);
    QVERIFY(liveLabel->isHidden());
    const auto trained = session->trace();

    // A run abandoned by Reset: back to the model's own trace. Meanwhile another view and step,
    // picked while live, stay through the next live trace.
    QVERIFY(p->start());
    QVERIFY(liveChanged.wait(20000));
    QVERIFY(session->isLive());
    const QString attn = QStringLiteral("decoder.layers.1.dec_enc_attn.attn");
    QVERIFY(w.setCurrentView(QStringLiteral("attention")));
    QVERIFY(w.setCurrentStep(attn));
    QVERIFY(liveChanged.wait(20000));
    QCOMPARE(w.currentStep(), attn);
    QCOMPARE(w.currentViewName(), QStringLiteral("attention"));
    QTest::qWait(50);
    testutil::saveShot(w, QStringLiteral("watch_live_attention_1366.png"));
    p->reset();
    QVERIFY(!session->isLive());
    QCOMPARE(session->trace(), trained);
    QVERIFY(liveLabel->isHidden());

    // The backward pass, which a run does not compute: the views go back to the model's trace
    // and say why while the run goes on; forward again, they are live again.
    p->setPace(Pace::Watch);
    QVERIFY(p->start());
    QVERIFY(liveChanged.wait(20000));
    QSignalSpy posted(p, &TrainingPanel::liveTraceReady);
    w.directionAction()->trigger();
    QVERIFY(w.navigator()->isBackward());
    QVERIFY(!session->isLive());
    QVERIFY(posted.wait(20000));
    QVERIFY(!session->isLive());
    QCOMPARE(liveLabel->text(), QStringLiteral("training: views not live"));
    w.directionAction()->trigger();
    QVERIFY(!w.navigator()->isBackward());
    QVERIFY(liveChanged.wait(20000));
    QVERIFY(session->isLive());

    // Toggled off during a run: the views go back at once and stay.
    w.findChild<QCheckBox*>(QStringLiteral("liveViewsToggle"))->click();
    QVERIFY(!session->isLive());
    const int before = liveChanged.count();
    p->setPace(Pace::FullSpeed);
    QVERIFY(waitForState(*p, State::Finished));
    QCOMPARE(liveChanged.count(), before);
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestTrainingWatch t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_training_watch.moc"
