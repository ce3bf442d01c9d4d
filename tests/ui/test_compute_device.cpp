// Which device computes in the app: Model › Compute On, the status bar's device button, a switch
// that keeps the step, training on the device, and the fall back to the CPU when the GPU is lost.
// The GPU is Mesa's lavapipe in CI; the lost device is the test backend "cpu-device" with a
// simulated driver reset (tests/core/copy_backend.h).
#include <QAbstractButton>
#include <QAction>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <cmath>
#include <vector>

#include "app/compute_devices.h"
#include "app/device_chooser.h"
#include "app/main_window.h"
#include "copy_backend.h"
#include "explain/device_agreement.h"
#include "explain/explain_panel.h"
#include "stepformer/backend.h"
#include "stepformer/trace.h"
#include "test_util.h"
#include "training/training_panel.h"

using namespace stepformer;
using State = TrainingController::State;

namespace {

// The largest |a - b| over the entries both traces have; -1 when an entry is missing or its size
// differs.
double maxDifference(const Trace& a, const Trace& b) {
    double worst = 0.0;
    for (const TraceEntry& e : a.entries()) {
        const TraceEntry* x = &e;
        const TraceEntry* y = b.find(e.name);
        if (!y || x->value.data.size() != y->value.data.size()) return -1.0;
        for (size_t i = 0; i < x->value.data.size(); ++i)
            worst = std::max(worst, double(std::fabs(x->value.data[i] - y->value.data[i])));
    }
    return worst;
}

// The app's GPU is a "cpu-device" test backend from now on (made when the app first asks);
// `device` is set to it then.
void useTestDevice(Backend*& device) {
    ComputeDevices::instance().setGpuFactoryForTesting([&device] {
        auto be = testing::make_device_backend(1);
        device = be.get();
        return be;
    });
}

bool identical(const Trace& a, const Trace& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a.entries()[i].name != b.entries()[i].name || a.entries()[i].value.data != b.entries()[i].value.data)
            return false;
    return true;
}

}  // namespace

class TestComputeDevice : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanup();
    void startsOnTheCpuAndSaysSo();
    void switchingToTheGpuKeepsTheStepAndAgrees();
    void aMissingGpuIsReportedAndTheCpuStays();
    void aLostGpuFallsBackToTheCpuWithTheSameWeights();
    void deviceMemoryGoesWithTheModelAndTheSwitch();
    void trainingRunsOnTheChosenDevice();
    void aGpuLostUnderTrainingKeepsTheWeights();
    void aDeviceSwitchBuildsOnAPendingPresetSwitch();
    void aGpuLostUnderTheSwitchToItLeavesTheCpu();

private:
    MainWindow::Options smallOptions() const;
    QTemporaryDir cache_;
};

void TestComputeDevice::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(cache_.isValid());
    qputenv("STEPFORMER_CACHE_DIR", cache_.path().toUtf8());
    qputenv("STEPFORMER_NO_CLOSE_PROMPT", "1");
    qunsetenv("STEPFORMER_BACKEND");
}

void TestComputeDevice::init() { QSettings().clear(); }

void TestComputeDevice::cleanup() { ComputeDevices::instance().setGpuFactoryForTesting({}); }

MainWindow::Options TestComputeDevice::smallOptions() const {
    MainWindow::Options o;
    o.restoreSettings = false;
    o.saveSettings = false;
    o.preset = Session::Preset::Small;
    o.provisioning = Session::Provisioning::Synchronous;
    o.cacheDir = cache_.path();
    return o;
}

void TestComputeDevice::startsOnTheCpuAndSaysSo() {
    MainWindow w(smallOptions());
    QCOMPARE(w.session()->computeDevice(), ComputeDevices::Kind::Cpu);
    QCOMPARE(QString::fromStdString(w.session()->backend().name()), QStringLiteral("cpu"));
    auto* button = w.findChild<QToolButton*>(QStringLiteral("deviceButton"));
    QVERIFY(button);
    QVERIFY2(button->text().startsWith(QStringLiteral("CPU — ")), qPrintable(button->text()));
    QVERIFY(button->text().contains(QStringLiteral("thread")));
    QVERIFY(button->menu() == w.deviceChooser()->menu());
    QVERIFY(w.findChild<QAction*>(QStringLiteral("actionComputeCpu"))->isChecked());
    auto* modelMenu = w.findChild<QMenu*>(QStringLiteral("menuModel"));
    QVERIFY(modelMenu);
    QVERIFY(modelMenu->actions().contains(w.deviceChooser()->menu()->menuAction()));
}

void TestComputeDevice::switchingToTheGpuKeepsTheStepAndAgrees() {
    if (qEnvironmentVariableIntValue("STEPFORMER_SKIP_GPU_TESTS") == 1 &&
        ComputeDevices::instance().gpuName().isEmpty())
        QSKIP("no Vulkan device here, and STEPFORMER_SKIP_GPU_TESTS=1");
    MainWindow w(smallOptions());
    const auto onCpu = w.session()->trace();
    const QString step = QStringLiteral("encoder.layers.1.enc_self_attn.attn");
    QVERIFY(w.setCurrentStep(step));

    QSignalSpy changed(w.session(), &Session::computeDeviceChanged);
    QAction* gpu = w.findChild<QAction*>(QStringLiteral("actionComputeGpu"));
    w.deviceChooser()->menu()->aboutToShow();  // names the GPU, as opening the menu does
    QVERIFY2(gpu->isEnabled(), qPrintable(gpu->toolTip()));
    QVERIFY(gpu->text().contains(ComputeDevices::instance().gpuName()));
    gpu->trigger();
    QCOMPARE(changed.count(), 1);
    QCOMPARE(w.session()->computeDevice(), ComputeDevices::Kind::Gpu);
    QCOMPARE(QString::fromStdString(w.session()->backend().name()), QStringLiteral("gpu"));
    QVERIFY(gpu->isChecked());
    const QString label = w.findChild<QToolButton*>(QStringLiteral("deviceButton"))->text();
    QVERIFY2(label.startsWith(QStringLiteral("GPU — ")) && label.contains(ComputeDevices::instance().gpuName()),
             qPrintable(label));
    QCOMPARE(QSettings().value(QStringLiteral("compute/device")).toString(), QStringLiteral("gpu"));

    // The explanation offers the comparison with the CPU, and makes it on demand.
    DeviceAgreement* agreement = w.explainPanel()->agreement();
    QVERIFY(!agreement->isHidden());
    QCOMPARE(agreement->deviceLabel(), label);
    QVERIFY(!agreement->compared());
    agreement->compare();
    QVERIFY(agreement->compared() && agreement->referenceTrace());
    QCOMPARE(agreement->currentStep(), step);
    QVERIFY(agreement->difference());
    QVERIFY2(agreement->summary().contains(QStringLiteral("max")), qPrintable(agreement->summary()));
    QVERIFY(identical(*agreement->referenceTrace(), *onCpu));  // the CPU's pass, the same weights
    if (!qEnvironmentVariableIsEmpty("STEPFORMER_SCREENSHOT_DIR")) {  // for review: a laptop's screen
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        if (auto* toggle = agreement->findChild<QAbstractButton*>(QStringLiteral("showDifferenceToggle")))
            toggle->setChecked(true);
        QTest::qWait(200);
        testutil::saveShot(w, QStringLiteral("compute_device_gpu_1366.png"));
        if (auto* toggle = agreement->findChild<QAbstractButton*>(QStringLiteral("showDifferenceToggle")))
            toggle->setChecked(false);
    }

    // Same step, numbers of the GPU: a new trace that agrees with the CPU's to float rounding.
    QCOMPARE(w.currentStep(), step);
    const auto onGpu = w.session()->trace();
    QVERIFY(onGpu && onGpu != onCpu);
    const double diff = maxDifference(*onCpu, *onGpu);
    QVERIFY2(diff >= 0.0 && diff < 1e-4, qPrintable(QString::number(diff)));

    // And back: the CPU's numbers again, bit for bit.
    w.findChild<QAction*>(QStringLiteral("actionComputeCpu"))->trigger();
    QCOMPARE(w.session()->computeDevice(), ComputeDevices::Kind::Cpu);
    QCOMPARE(w.currentStep(), step);
    QVERIFY(identical(*onCpu, *w.session()->trace()));
    QCOMPARE(QSettings().value(QStringLiteral("compute/device")).toString(), QStringLiteral("cpu"));
    QVERIFY(agreement->isHidden());  // nothing to compare on the CPU
}

void TestComputeDevice::aMissingGpuIsReportedAndTheCpuStays() {
    ComputeDevices::instance().setGpuFactoryForTesting(
        []() -> std::unique_ptr<Backend> { throw std::runtime_error("no Vulkan device (test)"); });
    MainWindow w(smallOptions());
    const auto before = w.session()->trace();
    QVERIFY(!w.deviceChooser()->choose(QStringLiteral("gpu")));
    QCOMPARE(w.session()->computeDevice(), ComputeDevices::Kind::Cpu);
    QCOMPARE(w.session()->trace(), before);  // nothing recomputed
    QVERIFY(w.findChild<QAction*>(QStringLiteral("actionComputeCpu"))->isChecked());
    QVERIFY(!QSettings().contains(QStringLiteral("compute/device")));
    // "auto" without a GPU computes on the CPU and says so in the status bar, once.
    QVERIFY(w.deviceChooser()->choose(QStringLiteral("auto")));
    QCOMPARE(w.session()->computeDevice(), ComputeDevices::Kind::Cpu);
    QVERIFY2(w.statusBar()->currentMessage().startsWith(QStringLiteral("Computing on the CPU")),
             qPrintable(w.statusBar()->currentMessage()));
    // Unknown words are refused too.
    QVERIFY(!w.deviceChooser()->choose(QStringLiteral("tpu")));
    QCOMPARE(w.session()->computeDevice(), ComputeDevices::Kind::Cpu);
}

void TestComputeDevice::aLostGpuFallsBackToTheCpuWithTheSameWeights() {
    Backend* device = nullptr;
    useTestDevice(device);
    MainWindow w(smallOptions());
    const auto onCpu = w.session()->trace();
    const auto weights = w.session()->params();
    const QString step = QStringLiteral("decoder.layers.0.dec_enc_attn.attn");
    QVERIFY(w.setCurrentStep(step));
    QVERIFY(w.deviceChooser()->choose(QStringLiteral("gpu")));
    QVERIFY(device);
    QCOMPARE(w.session()->computeDevice(), ComputeDevices::Kind::Gpu);
    QVERIFY(identical(*onCpu, *w.session()->trace()));  // cpu-device computes the CPU's numbers

    // The driver resets under the next pass: the app says so and recomputes on the CPU.
    testing::lose_device_after(*device, 1);
    QSignalSpy lost(w.session(), &Session::deviceLost);
    QVERIFY(w.session()->setSentences(QStringLiteral("ich mochte ein cola P"), QStringLiteral("S i want a coke .")));
    QCOMPARE(lost.count(), 1);
    QVERIFY(lost.first().at(0).toString().contains(QStringLiteral("simulated")));
    QCOMPARE(w.session()->computeDevice(), ComputeDevices::Kind::Cpu);
    QCOMPARE(w.session()->params(), weights);  // the same weights, not a copy
    QVERIFY(w.findChild<QToolButton*>(QStringLiteral("deviceButton"))->text().startsWith(QStringLiteral("CPU")));
    QVERIFY(w.findChild<QAction*>(QStringLiteral("actionComputeCpu"))->isChecked());
    QCOMPARE(w.currentStep(), step);
    QVERIFY(w.session()->trace() && w.session()->trace()->find(step.toStdString()));
    QCOMPARE(w.session()->source(), QStringLiteral("ich mochte ein cola P"));

    // The next request for the GPU makes a new backend: the lost one is set aside.
    Backend* lostOne = device;
    QVERIFY(w.deviceChooser()->choose(QStringLiteral("gpu")));
    QVERIFY(device != lostOne);
}

void TestComputeDevice::deviceMemoryGoesWithTheModelAndTheSwitch() {
    Backend* device = nullptr;
    useTestDevice(device);
    MainWindow w(smallOptions());
    QVERIFY(w.deviceChooser()->choose(QStringLiteral("gpu")));
    QTest::qWait(100);
    const size_t shown = testing::device_live_bytes(*device);
    // The model's weights, uploaded once; the trace on screen keeps nothing there.
    size_t weights = 0;
    for (size_t i = 0; i < w.session()->params()->size(); ++i) weights += (*w.session()->params())[i].data.size() * 4;
    QCOMPARE(shown, weights);
    // Models and sentences come and go: the device holds one model's and one pass's memory.
    for (int i = 0; i < 3; ++i) {
        QVERIFY(w.session()->setPreset(Session::Preset::Untrained));
        QVERIFY(w.session()->setPreset(Session::Preset::Small));
        QVERIFY(w.session()->setSentences(QStringLiteral("ich mochte ein cola P"), QStringLiteral("S i want a coke .")));
        QVERIFY(w.session()->setSentences(Session::defaultSource(), Session::defaultTarget()));
    }
    // (The Decode tab translates on a worker thread with the model it was given, which lets go of
    // it when done.)
    QTRY_COMPARE_WITH_TIMEOUT(testing::device_live_bytes(*device), shown, 20000);
    // Back on the CPU nothing of the app's is left on the device.
    QVERIFY(w.deviceChooser()->choose(QStringLiteral("cpu")));
    QTRY_COMPARE_WITH_TIMEOUT(testing::device_live_bytes(*device), size_t(0), 20000);
}

void TestComputeDevice::trainingRunsOnTheChosenDevice() {
    Backend* device = nullptr;
    useTestDevice(device);
    MainWindow w(smallOptions());
    QVERIFY(w.deviceChooser()->choose(QStringLiteral("gpu")));
    TrainingPanel& p = *w.trainingPanel();
    QCOMPARE(p.controller()->backend(), device);
    testutil::smallRun(p, 2, 1);
    testing::reset_device_sync_waits(*device);
    QVERIFY(p.start());
    QVERIFY(testutil::waitForState(p, State::Finished));
    // The run waited for the device: it computed there (one wait a step at least).
    QVERIFY2(testing::device_sync_waits(*device) >= 4, qPrintable(QString::number(testing::device_sync_waits(*device))));
    // Back on the CPU, later runs compute there.
    QVERIFY(w.deviceChooser()->choose(QStringLiteral("cpu")));
    QCOMPARE(p.controller()->backend(), &default_backend());
}

void TestComputeDevice::aGpuLostUnderTrainingKeepsTheWeights() {
    Backend* device = nullptr;
    useTestDevice(device);
    MainWindow w(smallOptions());
    QVERIFY(w.deviceChooser()->choose(QStringLiteral("gpu")));
    TrainingPanel& p = *w.trainingPanel();
    testutil::smallRun(p, 20, 1);  // 40 steps
    QSignalSpy finished(p.controller(), &TrainingController::finished);
    QSignalSpy lost(w.session(), &Session::deviceLost);
    testing::lose_device_after(*device, 12);  // a few steps in
    QVERIFY(p.start());
    QVERIFY(testutil::waitForState(p, State::Stopped));
    QVERIFY(finished.count() == 1 || finished.wait(10000));
    const auto params = finished.first().at(2).value<std::shared_ptr<ParamSet>>();
    QVERIFY2(params, "the run's weights were lost with the device");
    for (size_t i = 0; i < params->size(); ++i)
        for (float v : (*params)[i].data) QVERIFY(std::isfinite(v));
    QVERIFY(finished.first().at(1).toString().contains(QStringLiteral("GPU stopped working")));
    QVERIFY(lost.count() == 1 || lost.wait(10000));
    QCOMPARE(w.session()->computeDevice(), ComputeDevices::Kind::Cpu);
    QCOMPARE(p.controller()->backend(), &default_backend());
}

QTEST_MAIN(TestComputeDevice)
#include "test_compute_device.moc"

// In the app (Background), a switch is made when its pass arrives from a worker. A device chosen
// while a preset switch is still computing builds on it: both are made, once, together.
void TestComputeDevice::aDeviceSwitchBuildsOnAPendingPresetSwitch() {
    Backend* device = nullptr;
    useTestDevice(device);
    MainWindow::Options o = smallOptions();
    o.provisioning = Session::Provisioning::Never;  // the presets at their initial weights, no training
    MainWindow w(o);
    Session* s = w.session();
    s->setProvisioning(Session::Provisioning::Background);
    QSignalSpy models(s, &Session::modelChanged), devices(s, &Session::computeDeviceChanged);
    // What each model change showed. The preset's training, on a worker under Background, may
    // finish and install its trained weights any time after: a change of its own, later.
    struct Seen {
        bool gpt, gpu;
        Session::ModelState state;
    };
    std::vector<Seen> seen;
    connect(s, &Session::modelChanged, this, [&] {
        seen.push_back({!s->config().reads_source(), s->computeDevice() == ComputeDevices::Kind::Gpu, s->modelState()});
    });
    const auto before = s->model();
    QVERIFY(s->setPreset(Session::Preset::Gpt));
    QVERIFY(s->setComputeDevice(ComputeDevices::Kind::Gpu));
    QCOMPARE(s->model().get(), before.get());  // neither made yet
    QCOMPARE(s->computeDevice(), ComputeDevices::Kind::Cpu);
    QVERIFY(models.wait(60000));
    QTest::qWait(100);
    QVERIFY(!seen.empty());
    QVERIFY2(seen.front().gpt && seen.front().gpu, "the preset and the device were not made together");
    QCOMPARE(seen.front().state, Session::ModelState::Training);  // the switch: the untrained model, its training under way
    for (size_t i = 1; i < seen.size(); ++i) {  // only the training's install after it
        QVERIFY(seen[i].gpt && seen[i].gpu);
        QCOMPARE(seen[i].state, Session::ModelState::Trained);
    }
    QVERIFY(seen.size() <= 2);
    QCOMPARE(devices.count(), 1);
    QCOMPARE(s->computeDevice(), ComputeDevices::Kind::Gpu);
    QVERIFY(device && &s->model()->backend() == device);
    QVERIFY(!s->config().reads_source());  // the decoder-only preset
    QVERIFY(s->trace() && s->trace()->contains("loss"));
    // The trace is the new model's, on the device: the same as a pass computed here.
    const auto here = Session::computePass(*s->model(), s->config(), s->source(), s->target());
    QCOMPARE(s->trace()->at("loss").value.data, here.trace->at("loss").value.data);
}

// In the app (Background), the GPU fails under the pass of the switch to it (on the worker): the
// switch is not made, the CPU keeps computing with the same weights and says why, and the device
// that failed is set aside (the next request for the GPU makes a new one).
void TestComputeDevice::aGpuLostUnderTheSwitchToItLeavesTheCpu() {
    Backend* device = nullptr;
    ComputeDevices::instance().setGpuFactoryForTesting([&device] {
        auto be = testing::make_device_backend(1);
        testing::lose_device_after(*be, 1);  // the first wait for it: the switch's pass
        device = be.get();
        return be;
    });
    MainWindow::Options o = smallOptions();
    MainWindow w(o);
    Session* s = w.session();
    s->setProvisioning(Session::Provisioning::Background);
    const auto weights = s->params();
    const auto cpuModel = s->model();
    QSignalSpy models(s, &Session::modelChanged), devices(s, &Session::computeDeviceChanged),
        lost(s, &Session::deviceLost), errors(s, &Session::errorOccurred);
    QVERIFY(s->setComputeDevice(ComputeDevices::Kind::Gpu));
    QVERIFY(device);
    QCOMPARE(s->computeDevice(), ComputeDevices::Kind::Cpu);  // not made yet
    QVERIFY(lost.wait(60000));
    QTest::qWait(100);
    QCOMPARE(lost.count(), 1);
    QVERIFY2(lost.first().at(0).toString().contains(QStringLiteral("simulated")), qPrintable(lost.first().at(0).toString()));
    QCOMPARE(errors.count(), 0);
    QCOMPARE(s->computeDevice(), ComputeDevices::Kind::Cpu);
    QCOMPARE(devices.count(), 0);  // it never left the CPU
    QCOMPARE(&s->model()->backend(), &default_backend());
    QCOMPARE(s->params(), weights);  // the same weights, not a copy
    QVERIFY(w.findChild<QToolButton*>(QStringLiteral("deviceButton"))->text().startsWith(QStringLiteral("CPU")));
    QVERIFY(w.findChild<QAction*>(QStringLiteral("actionComputeCpu"))->isChecked());
    const auto here = Session::computePass(*cpuModel, s->config(), s->source(), s->target());
    QCOMPARE(s->trace()->at("projection.logits").value.data, here.trace->at("projection.logits").value.data);

    // The failed device is set aside: the next request for the GPU makes a new one, which works.
    ComputeDevices::instance().setGpuFactoryForTesting([&device] {
        auto be = testing::make_device_backend(1);
        device = be.get();
        return be;
    });
    Backend* const lostOne = device;
    QVERIFY(s->setComputeDevice(ComputeDevices::Kind::Gpu));
    QVERIFY(device != lostOne);
    QVERIFY(devices.wait(60000));
    QCOMPARE(s->computeDevice(), ComputeDevices::Kind::Gpu);
    QCOMPARE(&s->model()->backend(), device);
    QCOMPARE(s->params(), weights);
}
