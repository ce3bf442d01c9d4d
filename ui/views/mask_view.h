// PyTorch's layers ("architecture": "torch") have one additive mask per attention block (0 / −∞,
// attn_mask and key_padding_mask merged): the row shows the picked layer's encoder self_attn,
// decoder self_attn and multihead_attn masks (the decoder pad / subsequence slots are hidden), and
// the flow is scores → scores + mask → softmax.
//
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

#include <QList>
#include <QString>
#include <QStringList>

#include "views/attention_block_view.h"

class QLabel;
class HeatmapWidget;

class MaskView : public AttentionBlockView {
    Q_OBJECT
public:
    explicit MaskView(QWidget* parent = nullptr);
    ~MaskView() override;

    void setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config) override;
    // A mask step highlights that mask (and picks the block it is used in); a step inside an
    // attention block picks that block and layer.
    void setStep(const QString& traceName) override;

    // The highlighted mask when the step is one, otherwise "<block>.masked_scores".
    QString currentTensorName() const override;
    // The highlighted mask, or the masked scores of the block the pickers chose.
    QString shownStep() const override { return currentTensorName(); }

    // Whether the step is one of the masks (not a step inside an attention block).
    bool showsMaskStep() const;
    QString flowTitle() const;  // the title of the scores -> masked -> softmax row, as plain text
    bool fillsInfinity() const;
    QString headSizeName() const;
    QList<HeatmapWidget*> maskHeatmaps() const { return masks_; }
    HeatmapWidget* scoresHeatmap() const { return scores_; }
    HeatmapWidget* maskedScoresHeatmap() const { return masked_; }
    HeatmapWidget* attnHeatmap() const { return attn_; }

private:
    void rebuild() override;
    void assignMasks();

    bool stepBeforeTrace_ = false;  // step_ came before a trace: its block is picked on setTrace

    QLabel *flowTitle_ = nullptr, *masksTitle_ = nullptr;
    QLabel* fillOp_ = nullptr;            // "masked_fill (mask, −1e9)" / PyTorch's "+ mask"
    QList<QWidget*> tutorialOnly_;        // the pad OR subsequence = combined part: PyTorch merges in each block
    bool perBlock_ = false;               // one mask per attention block, no traced subsequence mask
    bool additive_ = false;               // 0 / −∞ masks added to the scores (PyTorch's layers)
    bool keepOnes_ = false;               // 1 = keep, masked_fill(mask == 0, −1e9)
    QList<HeatmapWidget*> masks_;
    QStringList maskNames_;
    HeatmapWidget *scores_ = nullptr, *masked_ = nullptr, *attn_ = nullptr;
};
