// The gradients view's weight page ("paramSection"): one weight matrix, its gradient or the
// update the optimizer's next step would apply (Optimizer::preview_update) — one of the three at
// a time, as large as the page allows — with a picker of every weight ("parameterPicker") and
// the three norms. A weight longer than 64 rows or columns (512 × 512, 2048 × 512; 32 rows where
// the page is short) is shown whole as blocks (ParamBlocks: each cell the block's largest
// entry); "Every entry"
// ("paramEveryEntry") shows it entry by entry, to zoom and scroll.
//
// Widgets (objectNames): "paramWeightHeatmap", "paramGradientHeatmap", "paramUpdateHeatmap"
// (HeatmapWidget), "paramTitle" (the picker's label), "paramStatsLabel", "paramBlocksNote".
#pragma once

#include <memory>

#include <QHash>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "stepformer/config.h"
#include "stepformer/optimizer.h"
#include "stepformer/params.h"
#include "stepformer/trace.h"

class QCheckBox;
class QComboBox;
class QStackedWidget;
class WrappedLabel;
class HeatmapWidget;

class ParameterPane : public QWidget {
    Q_OBJECT
public:
    enum class Matrix { Weight, Gradient, Update };  // which one is shown

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
    bool hasWeights() const;              // weights and their gradients are given

    // The weight shown.
    void setParameter(const QString& name);
    QString parameter() const { return param_; }

    void setShownMatrix(Matrix m);
    Matrix shownMatrix() const { return shown_; }
    // Entry by entry (true) or, for a large weight, in blocks (false, the default).
    void setEveryEntry(bool on);
    bool everyEntry() const { return everyEntry_; }
    bool showsBlocks() const;  // the weight shown is drawn in blocks

    // The gradient of the weight shown ("grad.<name>"; nullptr / empty when there is none).
    const stepformer::Tensor* gradient() const;
    QString gradientName() const;
    // The optimizer's preview for the weight shown (empty when none).
    const stepformer::Tensor& previewedUpdate() const;

    // The weights holding NaN or ±inf (marked ⚠ in the picker, named in the stats), in order.
    QStringList notFiniteParameters() const { return notFiniteOrder_; }

    HeatmapWidget* weightHeatmap() const { return weight_; }
    HeatmapWidget* weightGradientHeatmap() const { return weightGrad_; }
    HeatmapWidget* updateHeatmap() const { return update_; }
    HeatmapWidget* shownHeatmap() const;

signals:
    void parameterPicked(const QString& name);

protected:
    void resizeEvent(QResizeEvent* e) override;
    void showEvent(QShowEvent* e) override;

private:
    // How many rows of blocks the page has room for (64, or 32 on a laptop's page: cells of at
    // least ~5 px either way); 64 until the page is shown.
    int blockRowsForHeight() const;
    void refitBlocks();
    void fillPicker();
    void rebuild();
    void showStats(const stepformer::Tensor& W, const stepformer::Tensor& G, bool haveUpdate);

    std::shared_ptr<const stepformer::Trace> trace_;
    stepformer::Config config_;
    std::shared_ptr<const stepformer::ParamSet> params_, grads_;
    std::shared_ptr<const stepformer::Optimizer> optimizer_;
    QString param_;
    bool updating_ = false;
    Matrix shown_ = Matrix::Gradient;
    bool everyEntry_ = false;
    bool blocks_ = false;
    int maxBlockRows_ = 64;  // blockRowsForHeight() when last drawn
    std::shared_ptr<const stepformer::Tensor> preview_;  // null when none
    // The previews by parameter, for the current weights, gradients and optimizer: going back
    // to a weight does not run the optimizer's kernels (and wake its threads) again.
    QHash<QString, std::pair<std::shared_ptr<const stepformer::Tensor>, double>> previews_;  // with their norms
    double previewNorm_ = 0.0;
    QHash<const float*, double> norms_;  // of the weights and gradients shown, by their data
    // The weights holding NaN or ±inf, scanned once per weight set (44 M numbers at the tutorial's size).
    std::weak_ptr<const stepformer::ParamSet> scanned_;
    QHash<QString, stepformer::NonFinite> notFinite_;
    QStringList notFiniteOrder_;

    QComboBox* picker_ = nullptr;
    WrappedLabel *title_ = nullptr, *stats_ = nullptr, *blocksNote_ = nullptr;
    QCheckBox* everyEntryBox_ = nullptr;
    QStackedWidget* stack_ = nullptr;
    HeatmapWidget *weight_ = nullptr, *weightGrad_ = nullptr, *update_ = nullptr;
};
