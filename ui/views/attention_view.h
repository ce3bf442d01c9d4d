// The attention view: for any layer and attention block (encoder self-attention, decoder masked
// self-attention, decoder-encoder attention) all heads' attention matrices as small multiples;
// a click enlarges one (with token labels, numbers and tooltips) and shows it as BertViz-style
// lines between the query and key tokens.
//
// Controls (objectNames): "layerPicker", "blockPicker" (QComboBox, item data = the block's
// stepformer::BlockKind as an int), "batchPicker" (QComboBox), "headPicker"
// (QSpinBox), "allHeadsLinesToggle" (QCheckBox: every head's lines at once). Widgets:
// "headThumb<h>" (HeatmapWidget per head), "enlargedHeatmap", "attentionLines", "noDataLabel".
#pragma once

#include <vector>

#include <QList>
#include <QString>

#include "views/attention_block_view.h"

class QCheckBox;
class QGridLayout;
class QLabel;
class QScrollArea;
class AttentionLinesWidget;
class HeatmapWidget;

class AttentionView : public AttentionBlockView {
    Q_OBJECT
public:
    explicit AttentionView(QWidget* parent = nullptr);
    ~AttentionView() override;

    void setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config) override;
    // A step inside an attention block (its entry's block says so) selects that layer and
    // block; other steps keep the current choice.
    void setStep(const QString& traceName) override;

    // The attention weights shown: "<block>.attn" (nullptr tensor when absent).
    QString currentTensorName() const override;
    // The attention weights shown (the view keeps its block on a step outside attention).
    QString shownStep() const override { return currentTensorName(); }
    // The enlarged head (one of the small multiples).
    void setHeadIndex(int h) override;

    QList<HeatmapWidget*> headHeatmaps() const { return thumbs_; }
    HeatmapWidget* enlargedHeatmap() const { return enlarged_; }
    AttentionLinesWidget* linesWidget() const { return lines_; }

signals:
    void headChanged(int h);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuild() override;
    void updateSelection();
    // The heads in as many columns as the thumbnails' width holds (never sideways scrolling).
    void placeThumbs();

    QString pendingStep_;  // a step given before the trace

    QCheckBox* allHeadsToggle_ = nullptr;
    QLabel* titleLabel_ = nullptr;
    QScrollArea* thumbsScroll_ = nullptr;
    QWidget* thumbsHost_ = nullptr;
    int thumbColumns_ = 0;
    QGridLayout* thumbsGrid_ = nullptr;
    QList<HeatmapWidget*> thumbs_;
    std::vector<std::vector<float>> headValues_;  // every head's weights, for the line view
    HeatmapWidget* enlarged_ = nullptr;
    AttentionLinesWidget* lines_ = nullptr;
};
