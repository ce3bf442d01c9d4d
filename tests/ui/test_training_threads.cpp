// The app's threads together, for ThreadSanitizer (scripts/sanitize.sh thread builds this test
// with it) and as an ordinary test: a run trains on its worker thread and streams step reports
// and live traces of the shown sentences to the UI while the user steps through the views,
// switches views and switches the compute device (a test backend stands in for the GPU) back and
// forth, pausing and resuming it once; then the user stops it. Nothing may crash, warn or hang.
#include <QCheckBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app/compute_devices.h"
#include "app/device_chooser.h"
#include "app/main_window.h"
#include "app/session.h"
#include "copy_backend.h"
#include "steps/step_model.h"
#include "steps/step_navigator.h"
#include "test_util.h"
#include "training/training_controller.h"
#include "training/training_panel.h"

class TestTrainingThreads : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        testutil::recordQtWarnings(true);
        ComputeDevices::instance().setGpuFactoryForTesting([] { return stepformer::testing::make_device_backend(1); });
    }
    void cleanupTestCase() {
        testutil::recordQtWarnings(false);
        ComputeDevices::instance().setGpuFactoryForTesting({});
    }
    void trainsWhileTheUserStepsAndSwitchesDevices();
};

void TestTrainingThreads::trainsWhileTheUserStepsAndSwitchesDevices() {
    QTemporaryDir cache;
    MainWindow::Options o = testutil::smallWindow(cache.path());
    o.provisioning = Session::Provisioning::Never;  // the untrained small model: the run replaces it
    MainWindow w(o);
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.trainingDock()->show();
    TrainingPanel* p = w.trainingPanel();
    testutil::smallRun(*p, 100000);  // longer than the test: it is stopped
    p->setPace(TrainingPanel::Pace::FullSpeed);
    p->setLiveViews(true);
    testutil::qtWarnings().clear();

    QSignalSpy reports(p->controller(), &TrainingController::stepReported);
    QSignalSpy live(w.session(), &Session::liveTraceChanged);
    QVERIFY(p->start());
    const QStringList steps = w.navigator()->model()->stepOrder();
    const QStringList views = MainWindow::viewNames();
    QRandomGenerator rng(20261129);
    QElapsedTimer t;
    t.start();
    const int kActions = 150;
    int switches = 0;
    for (int i = 0; i < kActions; ++i) {
        QVERIFY2(p->controller()->isActive(), qPrintable(QStringLiteral("the run ended after %1 actions").arg(i)));
        if (i == kActions / 2) p->pause();
        if (i == kActions / 2 + 5) p->resume();
        switch (rng.bounded(8u)) {
        case 0:
            w.deviceChooser()->choose(switches++ % 2 ? QStringLiteral("cpu") : QStringLiteral("gpu"), false);
            break;
        case 1: w.setCurrentView(views.at(int(rng.bounded(quint32(views.size()))))); break;
        default: w.setCurrentStep(steps.at(int(rng.bounded(quint32(steps.size()))))); break;
        }
        QTest::qWait(int(rng.bounded(5u, 40u)));
    }
    p->stop();
    QVERIFY2(testutil::waitForState(*p, TrainingController::State::Stopped, 120000),
             qPrintable(QStringLiteral("state %1 after %2 ms").arg(int(p->state())).arg(t.elapsed())));
    QVERIFY(switches > 0);
    QVERIFY(live.count() > 0);  // live traces reached the views
    QVERIFY(reports.count() > 0);
    QCOMPARE(p->controller()->lastStep().step, reports.count());
    w.deviceChooser()->choose(QStringLiteral("cpu"), false);
    QTest::qWait(50);
    QVERIFY2(testutil::qtWarnings().isEmpty(), qPrintable(testutil::qtWarnings().join(QLatin1Char('\n'))));
    qInfo("%d user actions (%d device switches) during %d reported steps, %d live traces, %lld ms", kActions, switches,
          int(reports.count()), int(live.count()), static_cast<long long>(t.elapsed()));
}

QTEST_MAIN(TestTrainingThreads)
#include "test_training_threads.moc"
