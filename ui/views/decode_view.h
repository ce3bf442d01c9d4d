// The tutorial's greedy_decoder, animated: one forward pass per generated token. Each step shows
// the decoder input so far (token chips "S", "S i", "S i want", ...), the probabilities over
// the target vocabulary as a bar chart with the chosen (argmax) token highlighted, and the last
// decoder layer's masked self-attention and encoder-decoder attention of the chosen head, which
// grow by one query row per step. Step / play / reset walk through the steps; the translation
// appears next to the source as the tokens are chosen.
//
// Decoding runs on a worker thread (QtConcurrent) when the model is large (the tutorial's size);
// small models decode synchronously inside setSource()/setModel(). decodeFinished() is emitted
// either way; isDecoding() tells whether a result is pending.
//
// Controls (objectNames): "decodeStepButton", "decodePlayButton" (checkable), "decodeResetButton",
// "decodeHeadPicker" (QSpinBox), "decodeLayerPicker" (QSpinBox), "decodeChart" (QChartView),
// "decodeSelfAttnHeatmap", "decodeCrossAttnHeatmap" (HeatmapWidget), "decodeInputChips",
// "decodeSourceLabel", "decodeTranslationLabel", "decodeStatusLabel", "decodeMessageLabel".
#pragma once

#include <memory>
#include <vector>

#include <QFutureWatcher>
#include <QString>
#include <QStringList>

#include "stepformer/decode.h"
#include "stepformer/params.h"
#include "views/decode_step_page.h"
#include "views/step_view.h"

class QChart;
class QLabel;
class QSpinBox;
class QTimer;
class QToolButton;
class HeatmapWidget;

namespace stepformer {
class Transformer;
}

class DecodeView : public StepView {
    Q_OBJECT
public:
    explicit DecodeView(QWidget* parent = nullptr);
    ~DecodeView() override;

    // The model to decode with; re-decodes the current source.
    void setModel(std::shared_ptr<const stepformer::Transformer> model);
    void setModel(const stepformer::Config& config, const stepformer::ParamSet& params);
    // The source sentence ("ich mochte ein bier P"); decodes when a model is set. An invalid
    // sentence shows the reason instead (stepCount() = 0).
    void setSource(const QString& source);
    QString source() const { return source_; }

    bool isDecoding() const;
    // Blocks (processing events) until a pending decode finished; false on timeout.
    bool waitForDecode(int timeoutMs = 30000);

    // The decode result.
    int stepCount() const { return static_cast<int>(steps_.size()); }
    int currentStep() const { return current_; }  // 0-based; -1 when there is nothing to show
    bool reachedEos() const { return reachedEos_; }
    QString translation() const { return translation_; }  // the core's text (no S/E/P)
    QString errorMessage() const { return error_; }
    // The tokens chosen up to and including the current step ("i", "want", ...; the last one is
    // "E" once the end token is reached).
    QStringList tokensSoFar() const;
    // The decoder input of the current step ("S", "i", "want").
    QStringList decoderInput() const;
    // Bar chart state: the bar with the largest value, and the bar drawn in the highlight colour
    // (-1 when none).
    int highestBarIndex() const;
    int highlightedBarIndex() const;
    QStringList barCategories() const;
    std::vector<float> barValues() const;

    int headIndex() const { return head_; }
    int layerIndex() const { return layer_; }  // defaults to the last decoder layer
    void setHeadIndex(int h);
    void setLayerIndex(int l);
    bool isPlaying() const;

    QChart* chart() const;
    HeatmapWidget* selfAttentionHeatmap() const;
    HeatmapWidget* crossAttentionHeatmap() const;

    // Export: the whole view; the current step's probabilities (tgt_vocab) as the tensor.
    QWidget* exportWidget() { return this; }
    const stepformer::Tensor* currentTensor() const override;
    QString currentTensorName() const override;

    // Decoding makes its own traces, with the model (setModel), of the source (setSource): the
    // session's trace and step leave the view as it is.
    void setTrace(std::shared_ptr<const stepformer::Trace>, const stepformer::Config&) override {}
    QString stepFor(const QString&) const override { return {}; }

public slots:
    void stepForward();
    void stepBackward();
    void reset();
    void setCurrentStep(int step);
    void setPlaying(bool playing);
    void setPlayInterval(int ms);

signals:
    void decodeFinished();
    void currentStepChanged(int step);
    void playingChanged(bool playing);

private:
    struct Outcome;
    void startDecode();
    void applyOutcome(const std::shared_ptr<Outcome>& outcome);
    void updateStep();
    void updateHeatmaps();
    void updateHeader();
    void updateButtons();
    QString tgtToken(int id) const;
    QString srcText() const;

    std::shared_ptr<const stepformer::Transformer> model_;
    QString source_ = QStringLiteral("ich mochte ein bier P");
    QStringList srcTokens_;

    std::vector<DecodingStep> steps_;
    bool reachedEos_ = false;
    QString translation_;
    QString error_;
    int current_ = -1;
    int head_ = 0;
    int layer_ = -1;  // -1 = last
    quint64 generation_ = 0;
    bool decoding_ = false;
    mutable stepformer::Tensor currentProbs_;

    QFutureWatcher<std::shared_ptr<Outcome>>* watcher_ = nullptr;
    QTimer* playTimer_ = nullptr;

    QLabel *sourceLabel_ = nullptr, *translationLabel_ = nullptr, *statusLabel_ = nullptr;
    QToolButton *stepButton_ = nullptr, *backButton_ = nullptr, *playButton_ = nullptr, *resetButton_ = nullptr;
    QSpinBox *headPicker_ = nullptr, *layerPicker_ = nullptr;
    DecodeStepPage* page_ = nullptr;
};
