// The gradients view's lower pane ("paramSection"): a weight matrix, its gradient and the update
// the optimizer's next step would apply (Optimizer::preview_update), with a picker of every
// weight ("parameterPicker") and their norms. Hidden while there are no weights and gradients.
//
// Widgets (objectNames): "paramWeightHeatmap", "paramGradientHeatmap", "paramUpdateHeatmap"
// (HeatmapWidget), "paramTitle", "paramStatsLabel".
#pragma once

#include <memory>

#include <QHash>
#include <QString>
#include <QWidget>

#include "stepformer/config.h"
#include "stepformer/optimizer.h"
#include "stepformer/params.h"
#include "stepformer/trace.h"

class QBoxLayout;
class QComboBox;
class QLabel;
class WrappedLabel;
class HeatmapWidget;

class ParameterPane : public QWidget {
    Q_OBJECT
public:
    explicit ParameterPane(QWidget* parent = nullptr);

    // Each setter redraws.
    // What the heatmaps' rows and columns are labelled with (the weight's reader in the trace).
    void setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config);
    // The weights, their gradients (same layout), the optimizer whose next update is previewed
    // (may be null) and the weight to show; the picker lists the weights.
    void setParameterGradients(std::shared_ptr<const stepformer::ParamSet> params,
                               std::shared_ptr<const stepformer::ParamSet> grads,
                               std::shared_ptr<const stepformer::Optimizer> optimizer, const QString& param);
    const stepformer::ParamSet* params() const { return params_.get(); }
    bool has(const QString& name) const;  // a weight of that name is given

    // The weight shown.
    void setParameter(const QString& name);
    QString parameter() const { return param_; }

    // The gradient of the weight shown ("grad.<name>"; nullptr / empty when there is none).
    const stepformer::Tensor* gradient() const;
    QString gradientName() const;
    // The optimizer's preview for the weight shown (empty when none).
    const stepformer::Tensor& previewedUpdate() const;

    HeatmapWidget* weightHeatmap() const { return weight_; }
    HeatmapWidget* weightGradientHeatmap() const { return weightGrad_; }
    HeatmapWidget* updateHeatmap() const { return update_; }

signals:
    void parameterPicked(const QString& name);

private:
    void fillPicker();
    void rebuild();

    std::shared_ptr<const stepformer::Trace> trace_;
    stepformer::Config config_;
    std::shared_ptr<const stepformer::ParamSet> params_, grads_;
    std::shared_ptr<const stepformer::Optimizer> optimizer_;
    QString param_;
    bool updating_ = false;
    std::shared_ptr<const stepformer::Tensor> preview_;  // null when none
    // The previews by parameter, for the current weights, gradients and optimizer: going back
    // to a weight does not run the optimizer's kernels (and wake its threads) again.
    QHash<QString, std::pair<std::shared_ptr<const stepformer::Tensor>, double>> previews_;  // with their norms
    double previewNorm_ = 0.0;
    QHash<const float*, double> norms_;  // of the weights and gradients shown, by their data

    QComboBox* picker_ = nullptr;
    QLabel* title_ = nullptr;
    WrappedLabel* stats_ = nullptr;
    QBoxLayout* layout_ = nullptr;
    HeatmapWidget* weight_ = nullptr;
    HeatmapWidget* weightGrad_ = nullptr;
    HeatmapWidget* update_ = nullptr;
};
