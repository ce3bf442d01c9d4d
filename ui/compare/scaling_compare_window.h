// Issue 18's side-by-side step: an attention block's scores rounded as two architectures round
// them, (q/√d_k)·kᵀ (attention-is-all-you-need-pytorch, PyTorch's layers) next to (q·kᵀ)/√d_k
// (the tutorial), their difference in ulps, what the softmax after them makes of it, and which of
// the two the trace's own P.scores is. A window of its own (View ▸ Compare Score Scaling…),
// computed by compare/scaling_math.h from the trace's P.Q and P.K.
#pragma once

#include <memory>

#include <QWidget>

#include "compare/scaling_math.h"

class HeatmapWidget;
class QComboBox;
class QLabel;
class QSpinBox;
class Session;

class ScalingCompareWindow : public QWidget {
    Q_OBJECT
public:
    explicit ScalingCompareWindow(QWidget* parent = nullptr);

    // The trace compared; `currentStep`: a trace entry name whose attention block is shown (the
    // first attention block when it is none's).
    void setTrace(std::shared_ptr<const stepformer::Trace> trace, const QString& currentStep = {});
    // Follows a Session: its trace now and whenever it changes.
    void followSession(Session* session, const QString& currentStep = {});

    bool setBlock(const QString& prefix);
    void setHead(int head);
    void setSentence(int sentence);

    const scaling::Comparison& comparison() const { return cmp_; }
    QString summaryText() const;
    QString traceVerdictText() const;
    QString explanationText() const;

    // The window of `owner` (made on first use) with the owner's MainWindow session, shown.
    static ScalingCompareWindow* showFor(QWidget* owner, Session* session, const QString& currentStep);

protected:
    void keyPressEvent(QKeyEvent* e) override;

private:
    void refill();
    void recompute();

    std::shared_ptr<const stepformer::Trace> trace_;
    scaling::Comparison cmp_;
    QComboBox* block_ = nullptr;
    QSpinBox *head_ = nullptr, *sentence_ = nullptr;
    HeatmapWidget *a_ = nullptr, *b_ = nullptr, *diff_ = nullptr, *traced_ = nullptr;
    QLabel *summary_ = nullptr, *verdict_ = nullptr, *explanation_ = nullptr;
};
