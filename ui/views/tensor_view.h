// The tensor view for the current step: the operation's inputs and its output side by side as
// heatmaps (e.g. for `scores`: Q and Kᵀ of the chosen head and the resulting QKᵀ/√d_k),
// with token labels, a legend, masked cells marked and explanatory tooltips ("q_2·k_3/√d_k =
// ..."). Wide tensors (512 features) are stacked vertically with their scrolling and zoom in
// sync, so one column is one feature in every panel. For grad.<name> steps the tensor itself
// is shown beside its gradient.
//
// Controls (objectNames): "batchPicker" (QComboBox, the sentence), "headPicker" (QSpinBox),
// "headGridToggle" (QCheckBox: all heads of the step tensor as a grid), "zoomInButton",
// "zoomOutButton", "zoomFitButton". Labels: "stepTitle", "formulaLabel", "noDataLabel".
// A step that is not in the trace (or no trace at all) shows a friendly message instead.
//
// Linked hover (views/linked_hover.h): pointing at a cell of the output outlines the rows and
// columns of the operands it came from (Q's row and Kᵀ's column for a score, the softmax's
// input row, the same cell of both summands); pointing at an operand outlines the output's row
// or column it feeds. In the head grid a cell outlines the same cell in every head. Leaving
// the cells clears every outline.
#pragma once

#include <memory>
#include <vector>

#include <QList>
#include <QPointer>
#include <QString>

#include "views/linked_hover.h"
#include "views/step_view.h"

class QBoxLayout;
class QCheckBox;
class QComboBox;
class QLabel;
class WrappedLabel;
class QScrollArea;
class QSpinBox;
class QToolButton;
class HeatmapWidget;
namespace tensorviz {
struct PanelSpec;
}

class TensorView : public StepView {
    Q_OBJECT
public:
    explicit TensorView(QWidget* parent = nullptr);
    ~TensorView() override;

    void setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config) override;
    void setStep(const QString& traceName) override;

    int batchIndex() const { return batch_; }
    int headIndex() const { return head_; }
    void setBatchIndex(int b);
    void setHeadIndex(int h);
    bool headGridShown() const { return headGrid_; }
    void setHeadGridShown(bool on);

    // What is shown (for tests and the main window): the heatmaps, inputs first, output last.
    QList<HeatmapWidget*> heatmaps() const { return heatmaps_; }
    HeatmapWidget* outputHeatmap() const { return output_; }
    bool hasData() const override;

signals:
    void batchChanged(int b);
    void headChanged(int h);

public slots:
    void zoomIn();
    void zoomOut();
    void resetZoom();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuild();
    // Panels side by side when they fit the width, else one under the other (never sideways).
    void fitPanels();
    void syncPickers();
    void showMessage(const QString& text);
    void setContent(QWidget* w);
    std::vector<tensorviz::PanelSpec> gridPanels(const QString& name, int heads, QString* legendText) const;
    QWidget* buildHeadGrid(const std::vector<tensorviz::PanelSpec>& panels, const QString& legendText);
    void linkHeatmaps(bool scrollTogether);
    void alignStackedColumns();
    // Linked hover: the operand panels' links to the output (the last heatmap), recomputed
    // whenever the panels are filled, and the outlines for a hovered cell of heatmap `hm`.
    void updateHoverLinks(const std::vector<const tensorviz::PanelSpec*>& panels, bool grid);
    void onPanelHovered(HeatmapWidget* hm, int r, int c);
    void watchHover(HeatmapWidget* hm);

    int batch_ = 0;
    int head_ = 0;
    bool headGrid_ = false;

    QComboBox* batchPicker_ = nullptr;
    QSpinBox* headPicker_ = nullptr;
    QCheckBox* headGridToggle_ = nullptr;
    QToolButton *zoomInButton_ = nullptr, *zoomOutButton_ = nullptr, *zoomFitButton_ = nullptr;
    QLabel* titleLabel_ = nullptr;
    WrappedLabel* formulaLabel_ = nullptr;
    QScrollArea* scroll_ = nullptr;
    QWidget* content_ = nullptr;
    QList<HeatmapWidget*> heatmaps_;
    HeatmapWidget* output_ = nullptr;
    QLabel* gridLegend_ = nullptr;
    QPointer<QBoxLayout> panelsLayout_;  // the panels' row (or column)
    bool panelsWide_ = false;            // wide tensors: always one under the other
    QString structureKey_;  // the current panels' structure; equal -> refill them in place
    QString panelsStep_;    // the step they were last filled for
    std::vector<linked_hover::Link> hoverLinks_;  // per heatmap (the output's: unused)
    bool hoverGrid_ = false;                      // the head grid: the same cell in every head
};
