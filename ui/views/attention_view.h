// The attention view: for any layer and attention block (encoder self-attention, decoder masked
// self-attention, decoder-encoder attention) all heads' attention matrices as small multiples;
// a click enlarges one (with token labels, numbers and tooltips) and shows it as BertViz-style
// lines between the query and key tokens ("One layer" mode). In "All layers" mode it shows every
// layer x every head of the block at once instead (AttentionOverview); a click there enlarges that
// layer and head in "One layer" mode. The mode is remembered (QSettings "view/attentionMode":
// "one" | "all") when the student switches it.
//
// Controls (objectNames): "layerPicker", "blockPicker" (QComboBox, item data = the block's
// stepformer::BlockKind as an int), "batchPicker" (QComboBox), "headPicker"
// (QSpinBox), "allHeadsLinesToggle" (QCheckBox: every head's lines at once),
// "attentionModeSwitch" (QComboBox: "One layer" / "All layers"). Widgets: "headThumb<h>"
// (HeatmapWidget per head), "enlargedHeatmap", "attentionLines", "attentionOverview",
// "noDataLabel".
#pragma once

#include <optional>
#include <vector>

#include <QList>
#include <QString>

#include "views/attention_block_view.h"

class QCheckBox;
class QGridLayout;
class QLabel;
class QScrollArea;
class QComboBox;
class AttentionLinesWidget;
class AttentionOverview;
class HeatmapWidget;

class AttentionView : public AttentionBlockView {
    Q_OBJECT
public:
    enum class Mode { OneLayer, AllLayers };
    // The QSettings key that remembers the student's mode, and its values' words ("one", "all").
    static QString modeSettingsKey();
    static QString modeKey(Mode m);
    static std::optional<Mode> modeFromKey(const QString& key);

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

    Mode mode() const { return mode_; }
    // Shows the mode (the switch follows); only the student's switch is remembered.
    void setMode(Mode m);

    QList<HeatmapWidget*> headHeatmaps() const { return thumbs_; }
    HeatmapWidget* enlargedHeatmap() const { return enlarged_; }
    AttentionLinesWidget* linesWidget() const { return lines_; }
    AttentionOverview* overview() const { return overview_; }

signals:
    void headChanged(int h);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuild() override;
    void rebuildOverview();
    void updateSelection();
    // A cell of the overview clicked: that layer (and head; -1 keeps the head) in "One layer" mode.
    void enlarge(int layer, int head);
    // The mode's page and controls shown.
    void showMode();
    // The heads in as many columns as the thumbnails' width holds (never sideways scrolling).
    void placeThumbs();

    QString pendingStep_;  // a step given before the trace

    Mode mode_ = Mode::OneLayer;
    QComboBox* modeSwitch_ = nullptr;
    QCheckBox* allHeadsToggle_ = nullptr;
    QWidget* oneLayerPage_ = nullptr;
    AttentionOverview* overview_ = nullptr;
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
