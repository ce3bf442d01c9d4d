// The mask view: the encoder pad mask, the decoder's pad mask OR subsequence mask = combined
// mask, and the decoder-encoder pad mask, each with its tokens; and, for a chosen layer, block
// and head, the scores before masking -> after masked_fill(mask, -1e9) -> after the softmax,
// side by side, so the student sees the masked positions become exactly 0.
//
// Controls (objectNames): "batchPicker", "layerPicker", "blockPicker" (item data = block kind),
// "headPicker". Widgets: "encoderPadMask", "decoderPadMask", "subsequenceMask",
// "decoderSelfMask", "encDecPadMask" (HeatmapWidgets of the masks), "scoresHeatmap",
// "maskedScoresHeatmap", "attnHeatmap", "noDataLabel".
#pragma once

#include <memory>

#include <QList>
#include <QString>
#include <QWidget>

#include "stepformer/config.h"
#include "stepformer/trace.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QStackedWidget;
class HeatmapWidget;

class MaskView : public QWidget {
    Q_OBJECT
public:
    explicit MaskView(QWidget* parent = nullptr);
    ~MaskView() override;

    void setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config);
    // A mask step highlights that mask (and picks the block it is used in); a step inside an
    // attention block picks that block and layer.
    void setStep(const QString& traceName);

    // The highlighted mask when the step is one, otherwise "<block>.masked_scores".
    QString currentTensorName() const;
    const stepformer::Tensor* currentTensor() const;
    QString currentBlock() const;
    QString blockKind() const;  // the block's attribute word (names::block_word)
    int layerIndex() const { return block_.layer; }
    int batchIndex() const { return batch_; }
    int headIndex() const { return head_; }
    void setBlock(const QString& blockWord, int layer);
    void setBatchIndex(int b);
    void setHeadIndex(int h);

    QList<HeatmapWidget*> maskHeatmaps() const { return masks_; }
    HeatmapWidget* scoresHeatmap() const { return scores_; }
    HeatmapWidget* maskedScoresHeatmap() const { return masked_; }
    HeatmapWidget* attnHeatmap() const { return attn_; }
    bool hasData() const;
    QString message() const;

private:
    void rebuild();
    void syncPickers();
    void assignMasks();

    std::shared_ptr<const stepformer::Trace> trace_;
    stepformer::Config config_;
    QString step_;
    bool stepBeforeTrace_ = false;  // step_ came before a trace: its block is picked on setTrace
    stepformer::Block block_{stepformer::Stack::Decoder, stepformer::BlockKind::MaskedSelfAttention, 0};
    int batch_ = 0;
    int head_ = 0;
    bool updating_ = false;

    QComboBox* batchPicker_ = nullptr;
    QComboBox* layerPicker_ = nullptr;
    QComboBox* blockPicker_ = nullptr;
    QSpinBox* headPicker_ = nullptr;
    QLabel* flowTitle_ = nullptr;
    QLabel* messageLabel_ = nullptr;
    QStackedWidget* stack_ = nullptr;
    QList<HeatmapWidget*> masks_;
    QStringList maskNames_;
    HeatmapWidget* scores_ = nullptr;
    HeatmapWidget* masked_ = nullptr;
    HeatmapWidget* attn_ = nullptr;
};
