// The base of the main window's central views (view_table.h lists them): what every view keeps
// (the trace, the config of the model that made it, the step it shows) and the scaffolding they
// share: a white page, the message shown instead of the content when there is nothing to show,
// and pickers whose signals are the student's only (not the view's own updates).
//
// The main window drives the views through this interface: setTrace() for every view on a new
// trace, setStep(stepFor(step)) for the visible one when the navigator moves; the explanation
// describes the visible view's shownStep() (shownStepChanged() when a picker changes it).
#pragma once

#include <functional>
#include <memory>

#include <QString>
#include <QWidget>

#include "stepformer/config.h"
#include "stepformer/tensor.h"
#include "stepformer/trace.h"

class QComboBox;
class QHBoxLayout;
class QSpinBox;
class QVBoxLayout;
class MessageStack;

class StepView : public QWidget {
    Q_OBJECT
public:
    // `name`: the view's objectName (what the window's settings and the tests find it by).
    explicit StepView(QWidget* parent = nullptr, const char* name = nullptr);
    ~StepView() override;

    virtual void setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config);
    virtual void setStep(const QString& traceName);
    // The step this view shows while the navigator is at `navigatorStep`: the step itself, or
    // empty when the view keeps what it shows.
    virtual QString stepFor(const QString& navigatorStep) const { return navigatorStep; }

    // The tensor in focus (nullptr when there is none) and its name: by default the trace's entry
    // of the current step.
    virtual const stepformer::Tensor* currentTensor() const;
    virtual QString currentTensorName() const { return step_; }
    // The trace entry the view shows, for the explanation and the diagram: the step it was given
    // (empty when none); a view whose pickers choose another entry says which.
    virtual QString shownStep() const { return step_; }
    // Whether the content is shown, and the message shown instead of it (empty when none).
    virtual bool hasData() const;
    virtual QString message() const;

signals:
    // The student's picker made the view show another entry (shownStep()) than before.
    void shownStepChanged(const QString& traceName);

protected:
    // The view on white (like its heatmaps), and its root layout.
    QVBoxLayout* makeWhitePage(int sideMargin, int spacing);
    // The sentence (batch item) and attention head pickers, worded alike in every view.
    QComboBox* makeSentencePicker();
    QSpinBox* makeHeadPicker();
    // A row of those two, labelled "Sentence:" and "Head:", for the top of a view (more may follow).
    QHBoxLayout* makeSentenceHeadBar(QComboBox*& sentence, QSpinBox*& head);
    // Calls `pick` with the index the student picks in `box` (never while updating_).
    void onPicked(QComboBox* box, std::function<void(int)> pick);
    void onPicked(QSpinBox* box, std::function<void(int)> pick);
    // A picker's index: `index` = max(0, value); true when that changed it.
    static bool setIndex(int& index, int value);

    std::shared_ptr<const stepformer::Trace> trace_;
    stepformer::Config config_;
    QString step_;
    MessageStack* messages_ = nullptr;  // the view's content or its message; set by the view
    bool updating_ = false;             // the view is setting its own pickers
};
