// The explain panel's "agreement with the CPU" box: the comparison's arithmetic on hand-made
// tensors (equal, one number off, NaN and ∞, shapes that differ), and the widget on real passes —
// hidden for the CPU, the CPU pass computed only when asked and only once, figures that are the
// arithmetic's on the two traces, the difference heatmap, failures shown.
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include <QApplication>
#include <QCheckBox>
#include <QLayout>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

#include "app/session.h"
#include "explain/device_agreement.h"
#include "stepformer/agreement.h"
#include "explain/explain_header.h"
#include "explain/explain_panel.h"
#include "stepformer/backend.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "steps/tensor_slice.h"
#include "test_util.h"
#include "widgets/heatmap_widget.h"

using namespace stepformer;

namespace {

const QString kSource = QStringLiteral("ich mochte ein bier P");
const QString kTarget = QStringLiteral("S i want a beer .");
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// The small model's weights, shared by the CPU and GPU models of a test.
std::shared_ptr<const ParamSet> smallWeights(const Config& c) {
    return std::make_shared<const ParamSet>(init_params(c, 11));
}

std::shared_ptr<const Trace> cpuPass(const Config& c, const std::shared_ptr<const ParamSet>& w) {
    const Transformer model(c, w);
    return Session::computePass(model, c, kSource, kTarget).trace;
}

template <class T>
T* child(QWidget& w, const char* name) {
    return w.findChild<T*>(QString::fromLatin1(name));
}

// Every control of the box has a tooltip (what the student hovers to learn what it means).
[[nodiscard]] QString checkTooltips(DeviceAgreement& box) {
    for (const char* name : {"agreementLabel", "compareWithCpuButton", "showDifferenceToggle", "differenceHeatmap",
                             "differenceHeadPicker", "differenceSliceNote"}) {
        QWidget* w = child<QWidget>(box, name);
        if (!w) return QStringLiteral("no %1").arg(QLatin1String(name));
        if (w->toolTip().isEmpty()) return QStringLiteral("%1 has no tooltip").arg(QLatin1String(name));
    }
    if (!child<QWidget>(box, "agreementLabel")->toolTip().contains(QStringLiteral("max |\u0394| \u00f7")))
        return QStringLiteral("the label's tooltip does not define the relative difference");
    return {};
}

}  // namespace

class TestDeviceAgreement : public QObject {
    Q_OBJECT
private slots:
    void init() { QSettings().remove(DeviceAgreement::settingsKey()); }

    void mathEqualTensorsAreIdentical();
    void mathOneNumberOff();
    void mathRelativeIsAgainstTheLargestReference();
    void mathReferenceOfZeros();
    void mathNaNAndInfinityAreReportedNotHidden();
    void mathSignedZerosAreEqualButNotBitIdentical();
    void mathShapeMismatchIsAnError();

    void hiddenForAPassOnTheCpu();
    void gpuPassAgainstTheCpu();
    void aFailingReferenceIsShown();
    void aStepMissingFromTheCpuPassIsSaid();
    void aNaNOnOneSideIsSaid();
    void theToggleIsRemembered();
    void explainPanelHostsIt();
};

void TestDeviceAgreement::mathEqualTensorsAreIdentical() {
    const Tensor a({2, 3}, {1, -2, 3, 0.5f, 0, 7});
    const stepformer::agreement::TensorDiff d = stepformer::agreement::compare(a, a);
    QVERIFY(d.ok());
    QVERIFY(d.bitIdentical);
    QCOMPARE(d.count, int64_t(6));
    QCOMPARE(d.differing, int64_t(0));
    QCOMPARE(d.maxAbs, 0.0);
    QCOMPARE(d.maxRel, 0.0);
    QCOMPARE(d.maxAbsIndex, int64_t(-1));
    QCOMPARE(d.maxRef, 7.0);
    QCOMPARE(d.difference.shape, a.shape);
    for (float x : d.difference.data) QCOMPARE(x, 0.0f);
    QVERIFY(!d.hasNonFinite());
}

void TestDeviceAgreement::mathOneNumberOff() {
    const Tensor b({2, 2, 2}, {1, 2, 3, 4, -5, 6, 7, 8});
    Tensor a = b;
    a.data[5] = std::nextafter(6.0f, 7.0f);  // one ulp: float rounding
    const stepformer::agreement::TensorDiff d = stepformer::agreement::compare(a, b);
    QVERIFY(d.ok());
    QVERIFY(!d.bitIdentical);
    QCOMPARE(d.differing, int64_t(1));
    QCOMPARE(d.maxAbsIndex, int64_t(5));
    QCOMPARE(d.maxAbs, double(a.data[5]) - 6.0);
    QCOMPARE(d.maxRel, d.maxAbs / 8.0);
    QCOMPARE(d.difference.shape, b.shape);
    QCOMPARE(d.difference.data[5], a.data[5] - 6.0f);
    QCOMPARE(d.difference.data[0], 0.0f);
}

void TestDeviceAgreement::mathRelativeIsAgainstTheLargestReference() {
    // A difference at a reference near 0 would make an element-wise ratio huge; measured against
    // the tensor's scale it is what it is.
    const Tensor b({3}, {1e-9f, 10.0f, -20.0f});
    const Tensor a({3}, {2e-9f, 10.5f, -20.0f});
    const stepformer::agreement::TensorDiff d = stepformer::agreement::compare(a, b);
    QCOMPARE(d.differing, int64_t(2));
    QCOMPARE(d.maxAbsIndex, int64_t(1));
    QCOMPARE(d.maxAbs, 0.5);
    QCOMPARE(d.maxRef, 20.0);
    QCOMPARE(d.maxRel, 0.5 / 20.0);
}

void TestDeviceAgreement::mathReferenceOfZeros() {
    const Tensor zeros({4}, 0.0f);
    QCOMPARE(stepformer::agreement::compare(zeros, zeros).maxRel, 0.0);
    const Tensor a({4}, {0, 0, 1e-30f, 0});
    const stepformer::agreement::TensorDiff d = stepformer::agreement::compare(a, zeros);
    QVERIFY(std::isinf(d.maxRel));  // no scale to measure against: said, not divided by zero silently
    QCOMPARE(d.differing, int64_t(1));
    // Empty tensors compare as equal.
    const stepformer::agreement::TensorDiff e = stepformer::agreement::compare(Tensor({0, 3}), Tensor({0, 3}));
    QVERIFY(e.ok());
    QVERIFY(e.bitIdentical);
    QCOMPARE(e.count, int64_t(0));
}

void TestDeviceAgreement::mathNaNAndInfinityAreReportedNotHidden() {
    const Tensor b({5}, {1, 2, 3, kNaN, kInf});
    const Tensor a({5}, {1, kNaN, 3.5f, kNaN, kInf});
    const stepformer::agreement::TensorDiff d = stepformer::agreement::compare(a, b);
    QVERIFY(d.ok());
    QVERIFY(d.hasNonFinite());
    QCOMPARE(d.nanA, int64_t(2));
    QCOMPARE(d.nanB, int64_t(1));
    QCOMPARE(d.infA, int64_t(1));
    QCOMPARE(d.infB, int64_t(1));
    // Element 1 (NaN on the GPU only) differs and is a mismatch; 3 (NaN on both) and 4 (+∞ on
    // both) agree; 2 differs by 0.5, the finite maximum.
    QCOMPARE(d.nonFiniteMismatch, int64_t(1));
    QCOMPARE(d.differing, int64_t(2));
    QCOMPARE(d.maxAbs, 0.5);
    QCOMPARE(d.maxAbsIndex, int64_t(2));
    QCOMPARE(d.maxRef, 3.0);
    QVERIFY(std::isnan(d.difference.data[1]));  // a − b as IEEE says: the heatmap marks it NaN

    // +∞ against −∞ is a mismatch too, as is ∞ against a number.
    const stepformer::agreement::TensorDiff s = stepformer::agreement::compare(Tensor({2}, {kInf, kInf}), Tensor({2}, {-kInf, 1}));
    QCOMPARE(s.nonFiniteMismatch, int64_t(2));
    QCOMPARE(s.differing, int64_t(2));
    QCOMPARE(s.maxAbs, 0.0);
}

void TestDeviceAgreement::mathSignedZerosAreEqualButNotBitIdentical() {
    const stepformer::agreement::TensorDiff d = stepformer::agreement::compare(Tensor({2}, {-0.0f, 1}), Tensor({2}, {0.0f, 1}));
    QVERIFY(!d.bitIdentical);
    QCOMPARE(d.differing, int64_t(0));
    QCOMPARE(d.maxAbs, 0.0);
}

void TestDeviceAgreement::mathShapeMismatchIsAnError() {
    const stepformer::agreement::TensorDiff d = stepformer::agreement::compare(Tensor({2, 3}), Tensor({3, 2}));
    QVERIFY(!d.ok());
    QVERIFY(QString::fromStdString(d.error).contains(QStringLiteral("[2, 3]")));
    QVERIFY(QString::fromStdString(d.error).contains(QStringLiteral("[3, 2]")));
    QCOMPARE(d.count, int64_t(0));
    QVERIFY(d.difference.empty());
    QVERIFY(!stepformer::agreement::compare(Tensor({6}), Tensor({2, 3})).ok());
    // Numbers that do not fill the shape: an error, not a read past the end.
    Tensor bad({2, 3});
    bad.data.resize(4);
    QVERIFY(!stepformer::agreement::compare(bad, Tensor({2, 3})).ok());
    QVERIFY(!stepformer::agreement::compare(Tensor({2, 3}), bad).ok());
}

void TestDeviceAgreement::hiddenForAPassOnTheCpu() {
    const Config c = Config::small();
    const auto trace = cpuPass(c, smallWeights(c));
    int calls = 0;
    DeviceAgreement box;
    box.setTrace(trace, QString(), [&] {
        ++calls;
        return trace;
    });
    box.setStep(QString::fromStdString(trace->entries().front().name));
    QVERIFY(box.isHidden());
    // Shown for another device; hidden again for no trace at all.
    box.setTrace(trace, QStringLiteral("GPU \u2014 test"), {});
    QVERIFY(!box.isHidden());
    QVERIFY(box.summary().contains(QStringLiteral("Computed on GPU \u2014 test")));
    box.setTrace(nullptr, QStringLiteral("GPU \u2014 test"), {});
    QVERIFY(box.isHidden());
    QCOMPARE(calls, 0);
}

void TestDeviceAgreement::gpuPassAgainstTheCpu() {
    // The backend outlives every model, trace and widget below (declared first, destroyed last).
    std::unique_ptr<Backend> gpu;
    try {
        gpu = make_backend("gpu");
    } catch (const std::exception& e) {
        if (qgetenv("STEPFORMER_SKIP_GPU_TESTS") == "1")
            QSKIP(qPrintable(QStringLiteral("no Vulkan device: %1").arg(QString::fromLocal8Bit(e.what()))));
        QFAIL(qPrintable(QStringLiteral("make_backend(\"gpu\") failed (set STEPFORMER_SKIP_GPU_TESTS=1 on a machine "
                                        "without Vulkan): %1")
                             .arg(QString::fromLocal8Bit(e.what()))));
    }
    QCOMPARE(QString::fromStdString(gpu->name()), QStringLiteral("gpu"));
    const Config c = Config::small();
    const auto weights = smallWeights(c);
    const Transformer onGpu(c, weights, gpu.get());
    const auto gpuTrace = Session::computePass(onGpu, c, kSource, kTarget).trace;
    // As the main window names it: "GPU — llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan)".
    QString described = QString::fromStdString(gpu->describe());
    if (described.startsWith(QStringLiteral("gpu, "))) described.remove(0, 5);
    const QString device = QStringLiteral("GPU \u2014 ") + described;
    int calls = 0;
    std::shared_ptr<const Trace> cpuTrace;
    const auto reference = [&] {
        ++calls;
        cpuTrace = cpuPass(c, weights);
        return cpuTrace;
    };

    DeviceAgreement box;
    box.resize(320, 600);
    box.setTrace(gpuTrace, device, reference);
    box.show();
    QVERIFY(QTest::qWaitForWindowExposed(&box));
    VERIFY_HELPER(checkTooltips(box));
    auto* button = child<QPushButton>(box, "compareWithCpuButton");
    auto* toggle = child<QCheckBox>(box, "showDifferenceToggle");
    auto* heatmap = child<HeatmapWidget>(box, "differenceHeatmap");
    QVERIFY(button && toggle && heatmap);

    // Nothing is computed on the CPU until the student asks.
    const auto& entries = gpuTrace->entries();
    for (size_t i = 0; i < entries.size(); i += 5) box.setStep(QString::fromStdString(entries[i].name));
    QCOMPARE(calls, 0);
    QVERIFY(button->isVisible());
    QVERIFY(!toggle->isEnabled());
    QVERIFY(box.summary().contains(device));

    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(calls, 1);
    QVERIFY(box.compared());
    QVERIFY(!button->isVisible());
    QVERIFY(cpuTrace);

    // Every step: the figures are the arithmetic's on the two traces, small, and in the label.
    bool anyDiffer = false, anyGradient = false;
    for (const TraceEntry& e : entries) {
        const QString name = QString::fromStdString(e.name);
        box.setStep(name);
        const stepformer::agreement::TensorDiff* d = box.difference();
        QVERIFY2(d && d->ok(), qPrintable(name));
        const stepformer::agreement::TensorDiff want = stepformer::agreement::compare(e.value, cpuTrace->at(e.name).value);
        QCOMPARE(d->maxAbs, want.maxAbs);
        QCOMPARE(d->maxRel, want.maxRel);
        QCOMPARE(d->differing, want.differing);
        QCOMPARE(d->difference.data.size(), want.difference.data.size());
        QVERIFY2(!d->hasNonFinite(), qPrintable(name));
        QVERIFY2(d->maxAbs < 1e-4, qPrintable(QStringLiteral("%1: max |d| %2").arg(name).arg(d->maxAbs)));
        const QString text = box.summary();
        if (d->differing > 0) {
            anyDiffer = true;
            QVERIFY2(text.contains(QStringLiteral("max |\u0394| ")) && text.contains(QStringLiteral("max relative ")),
                     qPrintable(text));
            QVERIFY2(text.contains(QStringLiteral(" numbers differ")), qPrintable(text));
        } else {
            QVERIFY2(text.contains(QStringLiteral("the CPU")), qPrintable(text));
        }
        anyGradient |= e.role == Role::Gradient;
    }
    QVERIFY(anyGradient);
    // The devices round differently somewhere (a GPU that matched the CPU bit for bit everywhere
    // would be suspicious: the comparison would not have compared two computations).
    QVERIFY(anyDiffer);
    QCOMPARE(calls, 1);
    box.compare();  // again: the kept pass
    QCOMPARE(calls, 1);

    // The difference heatmap of a (B, H, Lq, Lk) step: sentence 0, the chosen head.
    const TraceEntry* scores = nullptr;
    for (const TraceEntry& e : entries)
        if (e.role == Role::Scores) {
            scores = &e;
            break;
        }
    QVERIFY(scores && scores->value.rank() == 4);
    box.setStep(QString::fromStdString(scores->name));
    QVERIFY(!heatmap->isVisible());
    QTest::mouseClick(toggle, Qt::LeftButton);
    QVERIFY(toggle->isChecked());
    QCOMPARE(QSettings().value(DeviceAgreement::settingsKey()).toBool(), true);
    QVERIFY(heatmap->isVisible());
    const auto* head = child<QSpinBox>(box, "differenceHeadPicker");
    QVERIFY(head->isVisible());
    QCOMPARE(head->maximum(), c.n_heads - 1);
    for (int h : {0, 2}) {
        box.setDifferenceHead(h);
        const int64_t L = scores->value.dim(2), Lk = scores->value.dim(3);
        QCOMPARE(heatmap->rows(), int(L));
        QCOMPARE(heatmap->cols(), int(Lk));
        const Tensor& diff = box.difference()->difference;
        for (int r = 0; r < L; ++r)
            for (int k = 0; k < Lk; ++k) QCOMPARE(heatmap->value(r, k), diff.at({0, h, r, k}));
        QVERIFY(child<QWidget>(box, "differenceSliceNote")->property("text").toString().contains(QStringLiteral("n_heads = %1").arg(h)));
    }
    QCOMPARE(heatmap->colorMode(), HeatmapWidget::ColorMode::Diverging);
    QVERIFY(heatmap->tooltipText(0, 0).contains(QStringLiteral("CPU")));

    // A 3-D step: sentence 0, no head picker.
    box.setStep(QString::fromStdString(entries.back().name));
    const TraceEntry& last = entries.back();
    if (last.value.rank() == 3) {
        QVERIFY(!head->isVisible());
        QCOMPARE(heatmap->rows(), int(last.value.dim(1)));
    }

    // Unchecked: gone, and remembered.
    QTest::mouseClick(toggle, Qt::LeftButton);
    QVERIFY(!heatmap->isVisible());
    QCOMPARE(QSettings().value(DeviceAgreement::settingsKey()).toBool(), false);

    // A new pass forgets the comparison; its CPU pass is computed on demand again.
    box.setTrace(gpuTrace, device, reference);
    QVERIFY(!box.compared());
    QVERIFY(!box.difference());
    QVERIFY(button->isVisible());
    QCOMPARE(calls, 1);
    button->click();
    QCOMPARE(calls, 2);

    // The explain panel as a student sees it in a narrow dock, for the reviewer's eyes
    // (STEPFORMER_SCREENSHOT_DIR): compared, the difference shown, a scores step.
    if (!qEnvironmentVariableIsEmpty("STEPFORMER_SCREENSHOT_DIR")) {
        QSettings().setValue(DeviceAgreement::settingsKey(), true);
        ExplainPanel panel;
        panel.resize(320, 700);
        panel.setTrace(gpuTrace, c);
        panel.agreement()->setTrace(gpuTrace, device, reference);
        panel.setStep(QString::fromStdString(scores->name));
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        testutil::saveShot(panel, QStringLiteral("agree_before.png"));
        panel.agreement()->compare();
        QVERIFY(panel.agreement()->findChild<HeatmapWidget*>(QStringLiteral("differenceHeatmap"))->isVisible());
        QTest::qWait(50);
        testutil::saveShot(panel, QStringLiteral("agree_scores.png"));
        panel.setStep(QString::fromStdString(entries.back().name));
        QTest::qWait(50);
        testutil::saveShot(panel, QStringLiteral("agree_grad.png"));
        panel.resize(320, 520);
        QTest::qWait(50);
        testutil::saveShot(panel, QStringLiteral("agree_short.png"));
        panel.resize(1000, 700);
        QTest::qWait(50);
        testutil::saveShot(panel, QStringLiteral("agree_wide.png"));
    }
}

void TestDeviceAgreement::aFailingReferenceIsShown() {
    const Config c = Config::small();
    const auto trace = cpuPass(c, smallWeights(c));
    int calls = 0;
    DeviceAgreement box;
    box.setTrace(trace, QStringLiteral("GPU \u2014 test"), [&]() -> std::shared_ptr<const Trace> {
        ++calls;
        throw std::runtime_error("out of device memory");
    });
    box.setStep(QString::fromStdString(trace->entries().front().name));
    QSignalSpy finished(&box, &DeviceAgreement::compareFinished);
    child<QPushButton>(box, "compareWithCpuButton")->click();
    QCOMPARE(calls, 1);
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished.front().front().toBool(), false);
    QVERIFY2(box.summary().contains(QStringLiteral("out of device memory")), qPrintable(box.summary()));
    QVERIFY(!box.difference());
    QVERIFY(QApplication::overrideCursor() == nullptr);  // the wait cursor is gone again
    box.setStep(QString::fromStdString(trace->entries().back().name));
    box.compare();
    QCOMPARE(calls, 1);
    QVERIFY(box.summary().contains(QStringLiteral("out of device memory")));
}

void TestDeviceAgreement::aStepMissingFromTheCpuPassIsSaid() {
    const Config c = Config::small();
    const auto weights = smallWeights(c);
    const auto full = cpuPass(c, weights);
    // The reference without the backward pass: no grad.* entries.
    const auto forwardOnly = [&] {
        const Transformer model(c, weights);
        auto t = std::make_shared<Trace>();
        model.forward(make_batch(c, {kSource.toStdString()}, {kTarget.toStdString()}), *t);
        return std::shared_ptr<const Trace>(t);
    };
    DeviceAgreement box;
    box.setTrace(full, QStringLiteral("GPU \u2014 test"), forwardOnly);
    box.compare();
    QString grad;
    for (const TraceEntry& e : full->entries())
        if (e.role == Role::Gradient) grad = QString::fromStdString(e.name);
    QVERIFY(!grad.isEmpty());
    box.setStep(grad);
    QVERIFY(!box.difference());
    QVERIFY2(box.summary().contains(QStringLiteral("not in the CPU\u2019s pass")), qPrintable(box.summary()));
    box.setStep(QStringLiteral("no.such.step"));
    QVERIFY2(box.summary().contains(QStringLiteral("not in this pass")), qPrintable(box.summary()));
    // A step in both: identical, since both passes ran on the CPU.
    box.setStep(QString::fromStdString(full->entries().front().name));
    QVERIFY2(box.summary().contains(QStringLiteral("identical to the CPU (bit for bit)")), qPrintable(box.summary()));
}

void TestDeviceAgreement::aNaNOnOneSideIsSaid() {
    const Config c = Config::small();
    const auto reference = cpuPass(c, smallWeights(c));
    // The "GPU" pass: the CPU's with one number gone bad.
    auto broken = std::make_shared<Trace>(*reference);
    const TraceEntry* scores = nullptr;
    for (const TraceEntry& e : broken->entries())
        if (e.role == Role::Scores) {
            scores = &e;
            break;
        }
    QVERIFY(scores);
    const_cast<TraceEntry*>(scores)->value.data[7] = kNaN;
    DeviceAgreement box;
    box.resize(300, 400);
    box.setTrace(broken, QStringLiteral("GPU \u2014 test"), [reference] { return reference; });
    box.setStep(QString::fromStdString(scores->name));
    box.compare();
    const stepformer::agreement::TensorDiff* d = box.difference();
    QVERIFY(d && d->ok());
    QCOMPARE(d->nanA, int64_t(1));
    QCOMPARE(d->nonFiniteMismatch, int64_t(1));
    QCOMPARE(d->maxAbs, 0.0);  // the finite rest agrees exactly...
    const QString text = box.summary();
    // ...and the label says so without hiding the NaN behind "identical".
    QVERIFY2(!text.contains(QStringLiteral("identical")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("1 number is NaN or \u221e on one side only (GPU: 1 NaN")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("1 of 100 numbers differ")), qPrintable(text));
    child<QCheckBox>(box, "showDifferenceToggle")->setChecked(true);
    box.show();
    QVERIFY(QTest::qWaitForWindowExposed(&box));
    testutil::saveShot(box, QStringLiteral("agree_nan.png"));
}

void TestDeviceAgreement::theToggleIsRemembered() {
    {
        DeviceAgreement box;
        QVERIFY(!child<QCheckBox>(box, "showDifferenceToggle")->isChecked());
        child<QCheckBox>(box, "showDifferenceToggle")->setChecked(true);
    }
    DeviceAgreement again;
    QVERIFY(child<QCheckBox>(again, "showDifferenceToggle")->isChecked());
}

void TestDeviceAgreement::explainPanelHostsIt() {
    const Config c = Config::small();
    const auto weights = smallWeights(c);
    const auto trace = cpuPass(c, weights);
    ExplainPanel panel;
    panel.setMinimumWidth(280);  // as the main window has it
    panel.resize(300, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(panel.agreement());
    QCOMPARE(panel.agreement()->objectName(), QStringLiteral("deviceAgreement"));
    QVERIFY(panel.agreement()->isHidden());  // nothing says a GPU computed anything
    panel.setTrace(trace, c);
    const QString step = QString::fromStdString(trace->entries().back().name);
    panel.setStep(step);
    panel.layout()->activate();
    const int bare = panel.minimumSizeHint().height();
    panel.agreement()->setTrace(trace, QStringLiteral("GPU \u2014 test"), [trace] { return trace; });
    QCOMPARE(panel.agreement()->currentStep(), step);
    QVERIFY(panel.agreement()->isVisible());
    // Under the header, above the explanation.
    QVERIFY(panel.agreement()->geometry().top() >= panel.header()->geometry().bottom());
    // Within the narrow panel: nothing wider than it.
    QVERIFY2(panel.agreement()->width() <= panel.width(), qPrintable(QString::number(panel.agreement()->width())));
    // Compared and the difference shown, the panel still fits a short dock: the box adds less than
    // 170 px to its minimum height (a 1366x768 laptop leaves the explain dock some 600 px), and
    // nothing is wider than the dock.
    panel.agreement()->compare();
    child<QCheckBox>(*panel.agreement(), "showDifferenceToggle")->setChecked(true);
    auto* heatmap = child<HeatmapWidget>(*panel.agreement(), "differenceHeatmap");
    QVERIFY(heatmap->isVisible());
    panel.layout()->activate();
    const int withBox = panel.minimumSizeHint().height();
    QVERIFY2(withBox <= bare + 170, qPrintable(QStringLiteral("%1 px high at least, %2 without the box").arg(withBox).arg(bare)));
    QVERIFY(panel.agreement()->minimumSizeHint().width() <= 300);
    QCOMPARE(panel.height(), 600);
    QVERIFY(heatmap->mapTo(&panel, QPoint(heatmap->width(), 0)).x() <= panel.width());
    // The same trace again keeps the box; another pass hides it (its figures would be stale).
    panel.setTrace(trace, c);
    QVERIFY(panel.agreement()->isVisible());
    panel.setTrace(cpuPass(c, weights), c);
    QVERIFY(panel.agreement()->isHidden());
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestDeviceAgreement t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_device_agreement.moc"
