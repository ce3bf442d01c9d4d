// The explain panel's "agreement with the CPU" box. When the pass on screen was computed on
// another device (the GPU), it says so and, once the student asks, how far the current step's
// tensor is from the same step computed by the CPU backend (max |Δ|, max relative difference,
// how many numbers differ; definitions in stepformer/agreement.h), and it can show
// GPU − CPU as a heatmap: the two devices agree, and this is by how much and where float
// rounding differs. For a pass computed on the CPU (an empty device label) it hides itself.
//
// The CPU pass costs as much as the pass itself (seconds at the tutorial's size), so it is made
// only when the student presses "Compare with the CPU", at most once per setTrace(); every step
// shown after that is compared against the kept CPU trace, which is one sweep over the step's
// numbers.
//
// Objects: "deviceAgreement" (this), "agreementLabel", "compareWithCpuButton",
// "showDifferenceToggle" (its state is remembered in QSettings "explain/showDeviceDifference"),
// "differencePane" (what the toggle shows: "differenceSliceNote", "differenceHeadPicker",
// "differenceHeatmap").
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include <QFrame>
#include <QString>

#include "stepformer/agreement.h"
#include "stepformer/trace.h"

class HeatmapWidget;
class QCheckBox;
class QPushButton;
class QSpinBox;
class QWidget;
class WrappedLabel;

class DeviceAgreement : public QFrame {
    Q_OBJECT
public:
    // Computes the shown pass again on the CPU backend; may throw (the message is shown).
    using ReferenceFn = std::function<std::shared_ptr<const stepformer::Trace>()>;

    explicit DeviceAgreement(QWidget* parent = nullptr);

    // The pass on screen, the device that computed it ("GPU — llvmpipe (LLVM 15.0.6, 256 bits)";
    // empty: the CPU, and the box hides) and how to compute it on the CPU (called from compare()
    // only). Forgets the last comparison.
    void setTrace(std::shared_ptr<const stepformer::Trace> shown, const QString& deviceLabel, ReferenceFn reference);
    // The step on screen, by trace name; after a comparison its figures follow it.
    void setStep(const QString& traceName);

    std::shared_ptr<const stepformer::Trace> shownTrace() const { return shown_; }
    QString deviceLabel() const { return device_; }
    QString currentStep() const { return step_; }
    // Whether the CPU pass was asked for since the last setTrace() (even when it failed).
    bool compared() const { return asked_; }
    std::shared_ptr<const stepformer::Trace> referenceTrace() const { return reference_; }
    // The current step's comparison; null before a comparison or when the step is missing from
    // either pass (diff->ok() is false when their shapes differ).
    const stepformer::agreement::TensorDiff* difference() const { return diff_ ? &*diff_ : nullptr; }
    // What the label says, as plain text.
    QString summary() const;
    // The head of the difference heatmap (tensors with a head axis).
    int differenceHead() const { return head_; }
    void setDifferenceHead(int head);

    static QString settingsKey();  // "explain/showDeviceDifference"

public slots:
    // Computes the CPU pass (once per setTrace; a wait cursor meanwhile) and compares the step.
    void compare();

signals:
    void compareFinished(bool ok);

private:
    void refresh();  // the figures and the controls for the current state
    void refreshDifference();
    QString figuresText() const;  // rich text after the device line

    std::shared_ptr<const stepformer::Trace> shown_;
    QString device_;
    ReferenceFn referenceFn_;
    bool asked_ = false;
    std::shared_ptr<const stepformer::Trace> reference_;
    QString referenceError_;
    QString step_;
    std::optional<stepformer::agreement::TensorDiff> diff_;
    QString missing_;  // why the step cannot be compared (missing from a pass)
    int head_ = 0;

    WrappedLabel* label_ = nullptr;
    QPushButton* compareButton_ = nullptr;
    QCheckBox* toggle_ = nullptr;
    QWidget* pane_ = nullptr;
    WrappedLabel* sliceNote_ = nullptr;
    QWidget* headRow_ = nullptr;
    QSpinBox* headPicker_ = nullptr;
    HeatmapWidget* heatmap_ = nullptr;
};
