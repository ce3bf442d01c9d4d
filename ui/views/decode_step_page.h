// What the decode view shows of one step of greedy decoding: the decoder input so far as token
// chips with the chosen next token ("decodeInputChips"), the probabilities over the target
// vocabulary as a bar chart with the chosen (argmax) bar highlighted ("decodeChart"), and a
// decoder layer's masked self-attention and encoder-decoder attention of one head
// ("decodeSelfAttnHeatmap", "decodeCrossAttnHeatmap").
#pragma once

#include <memory>
#include <vector>

#include <QColor>
#include <QStringList>
#include <QWidget>

#include "stepformer/config.h"
#include "stepformer/trace.h"

class QBarCategoryAxis;
class QBarSeries;
class QBarSet;
class QChart;
class QChartView;
class QHBoxLayout;
class QLabel;
class QValueAxis;
class HeatmapWidget;

// One forward pass of greedy decoding, as the decode view keeps it (stepformer::DecodeStep with
// its trace shared).
struct DecodingStep {
    std::vector<int> decInput;
    std::vector<float> probs;
    int chosen = 0;
    std::shared_ptr<const stepformer::Trace> trace;
};

class DecodeStepPage : public QWidget {
    Q_OBJECT
public:
    explicit DecodeStepPage(QWidget* parent = nullptr);

    // The chips and the chart of step `s` (number `index`, 0-based), its tokens read from
    // `config`'s target vocabulary; null clears them.
    void showStep(const DecodingStep* s, int index, const stepformer::Config& config);
    // The attention of `s`'s decoder layer `layer`, head `head`; null clears it.
    void showAttention(const DecodingStep* s, const stepformer::Config& config, int layer, int head);

    // The colour of the chosen token: its chip, its bar and its word in the translation.
    static QColor chosenColor();
    // Target token `id` ("want"; its number when out of the vocabulary).
    static QString token(const stepformer::Config& config, int id);

    QChart* chart() const { return chart_; }
    QStringList barCategories() const;
    std::vector<float> barValues() const;
    int highestBarIndex() const;
    int highlightedBarIndex() const;  // -1 when none
    HeatmapWidget* selfAttentionHeatmap() const { return selfAttn_; }
    HeatmapWidget* crossAttentionHeatmap() const { return crossAttn_; }

private:
    void showChips(const DecodingStep* s, const stepformer::Config& config);
    void showChart(const DecodingStep* s, int index, const stepformer::Config& config);
    void showBarTip(bool hovered, int index);
    void fitBarText();
    void fitChartHeight();

protected:
    void changeEvent(QEvent* e) override;

private:
    std::vector<float> shownProbs_;  // of the step charted, for the bars' tooltips
    int shownChosen_ = -1;           // -1: no step charted

    QWidget* chipsHost_ = nullptr;
    QHBoxLayout* chipsLayout_ = nullptr;
    QChart* chart_ = nullptr;
    QChartView* chartView_ = nullptr;
    QBarSeries* series_ = nullptr;
    QBarSet* bars_ = nullptr;
    QBarCategoryAxis* axisX_ = nullptr;
    QColor wordColor_;  // the words under the bars, when they fit
    QValueAxis* axisY_ = nullptr;
    HeatmapWidget *selfAttn_ = nullptr, *crossAttn_ = nullptr;
    QLabel *selfCaption_ = nullptr, *crossCaption_ = nullptr;
};
