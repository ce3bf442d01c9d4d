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

#include <memory>
#include <vector>

#include <QList>
#include <QString>
#include <QWidget>

#include "stepformer/config.h"
#include "stepformer/trace.h"

class QCheckBox;
class QComboBox;
class QGridLayout;
class QLabel;
class QSpinBox;
class QStackedWidget;
class AttentionLinesWidget;
class HeatmapWidget;

class AttentionView : public QWidget {
    Q_OBJECT
public:
    explicit AttentionView(QWidget* parent = nullptr);
    ~AttentionView() override;

    void setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config);
    // A step inside an attention block (its entry's block says so) selects that layer and
    // block; other steps keep the current choice.
    void setStep(const QString& traceName);

    // The attention weights shown: "<block>.attn" (nullptr tensor when absent).
    QString currentTensorName() const;
    const stepformer::Tensor* currentTensor() const;
    QString currentBlock() const;  // the block's name prefix (names::block_prefix)
    QString blockKind() const;     // the block's attribute word (names::block_word)
    int layerIndex() const { return block_.layer; }
    int batchIndex() const { return batch_; }
    int headIndex() const { return head_; }
    void setBlock(const QString& blockWord, int layer);
    void setBatchIndex(int b);
    void setHeadIndex(int h);

    QList<HeatmapWidget*> headHeatmaps() const { return thumbs_; }
    HeatmapWidget* enlargedHeatmap() const { return enlarged_; }
    AttentionLinesWidget* linesWidget() const { return lines_; }
    bool hasData() const;
    QString message() const;

signals:
    void headChanged(int h);
    void blockChanged(const QString& block);

private:
    void rebuild();
    void syncPickers();
    void updateSelection();

    std::shared_ptr<const stepformer::Trace> trace_;
    stepformer::Config config_;
    QString pendingStep_;  // a step given before the trace
    stepformer::Block block_{stepformer::Stack::Encoder, stepformer::BlockKind::SelfAttention, 0};
    int batch_ = 0;
    int head_ = 0;
    bool updating_ = false;

    QComboBox* layerPicker_ = nullptr;
    QComboBox* blockPicker_ = nullptr;
    QComboBox* batchPicker_ = nullptr;
    QSpinBox* headPicker_ = nullptr;
    QCheckBox* allHeadsToggle_ = nullptr;
    QLabel* titleLabel_ = nullptr;
    QLabel* messageLabel_ = nullptr;
    QStackedWidget* stack_ = nullptr;
    QWidget* thumbsHost_ = nullptr;
    QGridLayout* thumbsGrid_ = nullptr;
    QList<HeatmapWidget*> thumbs_;
    std::vector<std::vector<float>> headValues_;  // every head's weights, for the line view
    HeatmapWidget* enlarged_ = nullptr;
    AttentionLinesWidget* lines_ = nullptr;
};
