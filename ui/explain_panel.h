// The explain panel: for the current step, the tensor's shape with the tutorial's axis names and
// sizes, where the step sits in the model, then the step kind's explanation from
// :/explain/<op_kind>.md (formula, a few sentences, the tutorial's PyTorch lines). For the
// output probabilities it also lists the predicted token at every position.
//
// Placeholders in the markdown ({d_model}, {d_k}, {sqrt_d_k}, {n_heads}, {d_ff}, {n_layers},
// {src_len}, {tgt_len}, {src_vocab_size}, {tgt_vocab_size}) are replaced with the current config.
#pragma once

#include <memory>

#include <QHash>
#include <QString>
#include <QWidget>

#include "stepformer/config.h"
#include "stepformer/trace.h"

class QLabel;
class QTextBrowser;
class QTextDocument;

class ExplainPanel : public QWidget {
    Q_OBJECT
public:
    explicit ExplainPanel(QWidget* parent = nullptr);

    void setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config);
    void setStep(const QString& traceName);

    QString currentStep() const { return step_; }
    // "[batch_size=1, n_heads=8, len_q=5, len_k=5]" for the current step; empty when none.
    QString shapeLine() const { return shape_; }
    // The markdown shown (header + explanation), for tests and export.
    QString markdown() const { return markdown_; }
    QTextBrowser* browser() const { return browser_; }

    // The explanation text of a step kind, with placeholders filled in; empty when missing.
    static QString explanationFor(const QString& opKindName, const stepformer::Config& config);

protected:
    void changeEvent(QEvent* e) override;

private:
    void refresh();
    void showDocument(const QString& markdown);
    void clearDocuments();

    QTextBrowser* browser_ = nullptr;
    std::shared_ptr<const stepformer::Trace> trace_;
    stepformer::Config config_;
    QString step_, shape_, markdown_;
    // Rendered documents by their markdown (which says everything they show): going back to a
    // step shows its document again instead of parsing and laying out the markdown anew, which
    // was the panel's whole cost of a step switch (~2-3 ms).
    static constexpr int kMaxDocuments = 64;
    QHash<QString, QTextDocument*> documents_;
    QTextDocument* blank_ = nullptr;  // empty, with the browser's settings: what new documents copy
};
