// The loss, position by position: for every target position t of the chosen sentence, the
// logits over the target vocabulary, their softmax, the probability of the correct token and
// its −log p; positions whose target is the pad token are greyed out and marked as ignored
// (CrossEntropyLoss(ignore_index=0)); below, the mean that makes the loss written out with the
// numbers: (sum of −log p over every counted position of the batch) / count = loss.
//
// Whichever loss the trace's graph holds (Graph::loss): the mean cross-entropy, or a
// label-smoothed sum (attention-is-all-you-need-pytorch's cal_loss), whose target distribution q
// is a third heatmap ("lossTargetHeatmap") and whose per-position term is −Σ q log p.
//
// The numbers are the core's: p is the trace's output probabilities, −log p and the mean come
// from stepformer::cross_entropy (a smoothed loss: the backend's smoothed_cross_entropy_forward),
// the functions the model's `loss` is made with, so they equal `loss.per_token` and `loss`
// exactly (log Σ e^z is shown only to explain the softmax).
//
// Controls (objectNames): "batchPicker" (QComboBox), "lossLogitsHeatmap", "lossProbsHeatmap"
// (HeatmapWidget, the target cells outlined), "lossTable" (QTableWidget), "lossFormulaLabel",
// "lossTitleLabel", "lossMessageLabel".
#pragma once

#include <limits>
#include <memory>
#include <vector>

#include <QString>
#include <QStringList>

#include "stepformer/graph.h"
#include "views/step_view.h"

class QComboBox;
class QLabel;
class QTableWidget;
class HeatmapWidget;

class LossView : public StepView {
    Q_OBJECT
public:
    explicit LossView(QWidget* parent = nullptr);
    ~LossView() override;

    // `targets`: the decoder's expected output ids (dec_output), row-major (B, T) like the trace's
    // projection.logits. Empty or mismatched targets show a message instead of numbers.
    void setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config,
                  std::vector<int> targets);
    // A new trace with the targets last given.
    void setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config) override;
    // New targets for the current trace (nothing to redo when they are the same).
    void setTargets(std::vector<int> targets);
    // The loss view shows the whole loss, whatever the step.
    QString stepFor(const QString&) const override { return {}; }
    // Expected outputs as sentences ("i want a beer . E"), each padded to the trace's T (or the
    // config's tgt_len when T <= 0). Throws stepformer::ConfigError for unknown tokens.
    static std::vector<int> encodeTargets(const stepformer::Config& config, const QStringList& outputs, int T = 0);

    int batchIndex() const { return batch_; }
    void setBatchIndex(int b);
    int batchCount() const { return B_; }
    int positionCount() const { return T_; }

    bool hasData() const override;

    // The mean shown in the formula: sum of −log p(target) over the counted positions of the
    // whole batch / their count, stepformer::CrossEntropy::mean() (NaN when there is nothing to
    // show); as float it is the trace's `loss`.
    double displayedMean() const { return mean_; }
    // The loss as the model defines it: the mean, or for a summed loss the sum (as float).
    double displayedLoss() const { return loss_; }
    bool smoothed() const { return spec_.label_smoothing > 0.0f; }
    double displayedSum() const { return sum_; }
    int countedPositions() const { return count_; }
    // The trace's `loss` (NaN when the trace has none).
    double traceLoss() const { return traceLoss_; }
    // Per position (b, t) of the batch.
    bool isIgnored(int b, int t) const;
    double probabilityOfTarget(int b, int t) const;  // NaN for ignored positions
    double negLogProb(int b, int t) const;           // NaN for ignored positions
    // The row of the table for position t of the current sentence says "ignored".
    bool tableMarksIgnored(int t) const;
    int ignoreIndex() const { return ignoreIndex_; }

    HeatmapWidget* logitsHeatmap() const { return logits_; }
    HeatmapWidget* probsHeatmap() const { return probs_; }
    HeatmapWidget* targetHeatmap() const { return target_; }
    QTableWidget* table() const { return table_; }
    QString formulaText() const;

    // Export: the whole view; the per-token losses (B, T) as the tensor.
    QWidget* exportWidget() { return this; }
    const stepformer::Tensor* currentTensor() const override;
    QString currentTensorName() const override { return QStringLiteral("loss.per_token"); }

signals:
    void batchChanged(int b);

protected:
    void changeEvent(QEvent* e) override;

private:
    void recompute();
    void rebuild();
    void fitMapHeights();

    std::vector<int> targets_;
    stepformer::LossSpec spec_;
    std::string logitsName_;
    double loss_ = std::numeric_limits<double>::quiet_NaN();
    int B_ = 0, T_ = 0, V_ = 0;
    int batch_ = 0;
    int ignoreIndex_ = 0;
    bool valid_ = false;
    // Per (b, t): log-sum-exp of the logits, the target's logit, p and -log p.
    std::vector<double> lse_, zTarget_, p_, nll_;
    const float* probValues_ = nullptr;  // the trace's projection.probs, else ownProbs_
    stepformer::Tensor ownProbs_;
    std::vector<double> sentenceSum_;
    std::vector<int> sentenceCount_;
    double sum_ = 0.0;
    double mean_ = std::numeric_limits<double>::quiet_NaN();
    double traceLoss_ = std::numeric_limits<double>::quiet_NaN();
    int count_ = 0;
    stepformer::Tensor perToken_;

    QComboBox* batchPicker_ = nullptr;
    QLabel* titleLabel_ = nullptr;
    HeatmapWidget *logits_ = nullptr, *probs_ = nullptr, *target_ = nullptr;
    QLabel* softmaxOp_ = nullptr;
    QTableWidget* table_ = nullptr;
    QLabel* formulaLabel_ = nullptr;
};
