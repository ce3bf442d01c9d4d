// The explain panel: for the current step, the tensor's shape with the tutorial's axis names and
// sizes, where the step sits in the model (ExplainHeader), then the step kind's explanation from
// :/explain/<op_kind>.md (formula, a few sentences, the tutorial's PyTorch lines). For the
// output probabilities it also lists the predicted token at every position.
//
// Between the header and the explanation: the device agreement box (DeviceAgreement), shown
// when the pass was computed on the GPU. Its trace, device and CPU reference come from the main
// window through agreement()->setTrace(); the panel forwards the step, and a setTrace() with
// another trace than the box's hides the box (it never shows figures of another pass).
//
// The explanation is the same for every step of a kind: each one lives in its own text browser,
// made once, so a step switch shows a ready one instead of parsing and laying out markdown
// (measured ~2.4 ms a step; a ready browser ~0.3 ms).
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

class DeviceAgreement;
class ExplainHeader;
class QStackedWidget;
class QTextBrowser;

class ExplainPanel : public QWidget {
    Q_OBJECT
public:
    explicit ExplainPanel(QWidget* parent = nullptr);

    void setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config);
    void setStep(const QString& traceName);

    QString currentStep() const { return step_; }
    // "[batch_size=1, n_heads=8, len_q=5, len_k=5]" for the current step; empty when none.
    QString shapeLine() const { return shape_; }
    // The markdown of what is shown (header + explanation), for tests and export.
    QString markdown() const { return markdown_; }
    // What is shown as plain text: the header's lines, then the explanation.
    QString plainText() const;
    // The browser showing the current explanation (an empty one with a placeholder when no step).
    QTextBrowser* browser() const;
    ExplainHeader* header() const { return header_; }
    // The "agreement with the CPU" box under the header (hidden for a pass computed on the CPU).
    DeviceAgreement* agreement() const { return agreement_; }

    // The explanation text of a step kind, with placeholders filled in; empty when missing.
    static QString explanationFor(const QString& opKindName, const stepformer::Config& config);

protected:
    void changeEvent(QEvent* e) override;

private:
    void refresh();
    void showBody(const QString& markdown);
    void clearBodies();
    QTextBrowser* newBrowser();

    ExplainHeader* header_ = nullptr;
    DeviceAgreement* agreement_ = nullptr;
    QStackedWidget* bodies_ = nullptr;
    QTextBrowser* blank_ = nullptr;  // no step: the placeholder text
    std::shared_ptr<const stepformer::Trace> trace_;
    stepformer::Config config_;
    QString step_, shape_, markdown_;
    // Explanation browsers by their markdown (which says everything they show: the config's
    // numbers are filled in). The predicted-token tables make a few per trace, hence a limit.
    static constexpr int kMaxBodies = 48;
    QHash<QString, QTextBrowser*> bodyFor_;
};
