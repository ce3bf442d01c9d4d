// Backward stepping, seen: a traced tensor beside its gradient ∂loss/∂tensor (same heatmaps, token
// labels and tooltips as the tensor view, each tooltip also giving the other side's number), and
// — when the parameter gradients and the optimizer are given — a weight matrix, its gradient
// and the update the optimizer's next step would apply (Optimizer::preview_update).
//
// setStep() accepts "grad.<name>" or "<name>". The weight section follows the step to the weight
// that produced it (Q -> W_Q.weight, logits -> projection.weight, ...) unless showParameter()
// picked one; either way its picker chooses any parameter.
//
// One page at a time, as large as the view allows (a laptop's view is ~700 × 560 px): a switch
// ("gradShowTensor", "gradShowWeight", "gradShowWeightGradient", "gradShowUpdate") picks the
// tensor beside its gradient, or the weight, its gradient or its update (ParameterPane). A step
// shows its tensor's page; picking a weight shows the weight's gradient.
//
// The header numbers the step as the navigator does: "backward step k of N" for a grad.* step,
// "forward step k of N" (with its gradient's backward position) when given a forward step.
//
// Controls (objectNames): "batchPicker" (QComboBox), "headPicker" (QSpinBox), "parameterPicker"
// (QComboBox), "gradValueHeatmap", "gradGradientHeatmap", "paramWeightHeatmap",
// "paramGradientHeatmap", "paramUpdateHeatmap" (HeatmapWidget), "gradStepTitle",
// "gradStatsLabel", "paramTitle", "paramStatsLabel", "gradMessageLabel", "paramSection",
// "gradPages" (QStackedWidget).
#pragma once

#include <memory>

#include <QString>
#include <QStringList>

#include "stepformer/optimizer.h"
#include "stepformer/params.h"
#include "views/step_view.h"

class QBoxLayout;
class QButtonGroup;
class QComboBox;
class QLabel;
class QSpinBox;
class QStackedWidget;
class WrappedLabel;
class HeatmapWidget;
class ParameterPane;

class GradientView : public StepView {
    Q_OBJECT
public:
    enum class Focus { Tensor, Parameter };  // what the export and currentTensor() refer to

    explicit GradientView(QWidget* parent = nullptr);
    ~GradientView() override;

    void setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config) override;
    // "grad.<name>" (the navigator walks backward) or "<name>" (it walks forward). Focus -> Tensor.
    void setStep(const QString& step) override;
    QString currentStep() const { return step_; }  // always "grad.<name>" (empty when none)
    // The navigator's step unchanged when the trace has its gradient (so the header can number
    // it as the navigator does), else empty (the view keeps the gradient it shows).
    QString stepFor(const QString& step) const override;

    // The weights, their gradients (same layout) and the optimizer whose next update is
    // previewed. Any may be null: without params/grads the weight section is hidden; without an
    // optimizer the update panel says so.
    void setParameterGradients(std::shared_ptr<const stepformer::ParamSet> params,
                               std::shared_ptr<const stepformer::ParamSet> grads,
                               std::shared_ptr<const stepformer::Optimizer> optimizer);
    // Shows a weight (e.g. "projection.weight"); false when it is not a parameter. Focus -> Parameter.
    bool showParameter(const QString& name);
    QString currentParameter() const;
    // The weight that produced a traced tensor (a Q step -> its block's W_Q), read from the trace
    // graph; empty when none does. A LayerNorm output maps to its gamma when LayerNorm is
    // learned, else (the tutorial) to the sub-layer's last linear.
    static QString relatedParameter(const stepformer::Trace& tr, const QString& step, bool learnedLayerNorm);

    Focus focus() const { return focus_; }
    int batchIndex() const { return batch_; }
    int headIndex() const { return head_; }
    void setBatchIndex(int b);
    void setHeadIndex(int h);

    // hasData(): the tensor/gradient pair is shown; message(): the text shown instead of it.
    // The weight pages can be shown (weights and their gradients are given).
    bool parameterSectionVisible() const;
    // The page shown: the tensor and its gradient, or one of the weight's matrices.
    enum class Page { Tensor, Weight, WeightGradient, Update };
    Page page() const { return page_; }
    void showPage(Page p);
    // The header's text (plain), e.g. "∂loss/∂ Q … (backward step 3 of 245)".
    QString headerText() const;

    HeatmapWidget* valueHeatmap() const { return value_; }
    HeatmapWidget* gradientHeatmap() const { return grad_; }
    HeatmapWidget* weightHeatmap() const;
    HeatmapWidget* weightGradientHeatmap() const;
    HeatmapWidget* updateHeatmap() const;
    // The optimizer's preview for the current parameter (empty when none).
    const stepformer::Tensor& previewedUpdate() const;

    // Export: the whole view; the gradient in focus (grad.<name> or grad.<parameter>).
    QWidget* exportWidget() { return this; }
    const stepformer::Tensor* currentTensor() const override;
    QString currentTensorName() const override;

signals:
    void stepChanged(const QString& gradName);
    void parameterChanged(const QString& name);

private:
    QString canonical(const QString& param) const;
    void rebuildTensor();
    void showTitle(const QString& base, const stepformer::TraceEntry* forward);
    void syncPickers();
    void syncSwitch();
    void showTensorMessage(const QString& text);

    bool paramPinned_ = false;  // chosen by showParameter()/the picker rather than following the step
    Focus focus_ = Focus::Tensor;
    Page page_ = Page::Tensor;
    bool fromForward_ = false;  // setStep() was given the forward name (the navigator walks forward)
    int batch_ = 0, head_ = 0;
    QStringList backwardOrder_, forwardOrder_;  // of trace_, as the navigator lists them

    QComboBox* batchPicker_ = nullptr;
    QSpinBox* headPicker_ = nullptr;
    QStackedWidget* pages_ = nullptr;
    QButtonGroup* switch_ = nullptr;
    WrappedLabel *stepTitle_ = nullptr, *stepStats_ = nullptr;
    QBoxLayout* pairLayout_ = nullptr;
    QLabel* pairOp_ = nullptr;
    HeatmapWidget *value_ = nullptr, *grad_ = nullptr;
    ParameterPane* paramPane_ = nullptr;
};
