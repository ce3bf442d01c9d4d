// The attention view's "All layers" mode, like BertViz's model view: every layer x every head of
// one kind of attention block (encoder self-attention, decoder masked self-attention or
// decoder-encoder attention) for one sentence, as small multiples, so "what does *beer* attend
// to" is one glance down a column.
//
// A grid: one row per layer ("layer N" on the left), one column per head ("head h" on top) and a
// last column with the mean of the heads ("mean"). Each cell is a compact HeatmapWidget of that
// head's [len_q, len_k] weights on the shared 0..1 scale; the query tokens label the rows of the
// first column; the key tokens stand above each column of cells in the header, which stays in view
// while the layers scroll under it (the cells share those axes).
// Hovering a cell gives its exact weight (the heatmap's tooltip) and outlines that query's row in
// every cell; clicking one asks to enlarge it (cellActivated).
//
// The cells are sized to fill the width and, where the rows fit, the height (square token cells,
// never below what their labels need); more layers than fit scroll vertically, never sideways.
//
// ObjectNames: "attentionOverview", cells "overviewCell_<layer>_<head>" and "overviewMean_<layer>",
// headers "overviewLayerLabel_<layer>", "overviewHeadLabel_<head>", "overviewMeanLabel", the key
// tokens over each column "overviewKeys_<head>" (the mean's: "overviewKeys_mean"), the colour
// scale under the grid "overviewLegend".
#pragma once

#include <memory>
#include <vector>

#include <QList>
#include <QWidget>

#include "stepformer/config.h"
#include "stepformer/trace.h"

class QGridLayout;
class QHBoxLayout;
class QLabel;
class QSpacerItem;
class QScrollArea;
class HeatmapWidget;

class AttentionOverview : public QWidget {
    Q_OBJECT
public:
    explicit AttentionOverview(QWidget* parent = nullptr);
    ~AttentionOverview() override;

    // Every layer of `stack` that has an attention block of `kind` in the trace, sentence `batch`.
    // Returns the number of layers shown (0: nothing to show; the cells are then cleared).
    int setAttention(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config,
                     stepformer::Stack stack, stepformer::BlockKind kind, int batch);
    // Frames the cell of the view's chosen layer and head.
    void setSelected(int layer, int head);

    int layerCount() const { return int(rows_.size()); }
    int headCount() const { return heads_; }
    HeatmapWidget* cell(int layer, int head) const;  // nullptr outside the grid
    HeatmapWidget* meanCell(int layer) const;
    // The query row outlined in every cell (the hovered query; -1 = none).
    int highlightedRow() const { return hlRow_; }
    // The key tokens the header writes over every column of cells.
    QStringList keyLabels() const { return keyLabels_; }

signals:
    // A click on a cell: its layer and head, or head -1 for the mean of the heads.
    void cellActivated(int layer, int head);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    class LayerLabel;
    class Legend;
    class KeyStrip;
    struct Row {
        LayerLabel* label = nullptr;
        QList<HeatmapWidget*> cells;  // heads, then the mean
    };
    void ensureGrid(int layers, int heads);
    HeatmapWidget* makeCell(int layer, int head);
    void highlightRow(int r);
    void scrollToSelected();
    // Fixes every cell's size to the viewport's width and height (see the header comment).
    void placeCells();

    QScrollArea* scroll_ = nullptr;
    QWidget* host_ = nullptr;
    QGridLayout* grid_ = nullptr;
    QWidget* header_ = nullptr;  // the heads' names, outside the scrolling grid
    QHBoxLayout* headerBox_ = nullptr;
    QSpacerItem* cornerSpace_ = nullptr;
    QList<QLabel*> headLabels_;  // heads, then "mean"
    QList<KeyStrip*> keyStrips_;  // under them: the key tokens over each column's cells
    QStringList keyLabels_;
    Legend* legend_ = nullptr;
    std::vector<Row> rows_;
    int heads_ = 0;
    int queries_ = 0, keys_ = 0;
    int hlRow_ = -1;
    int selectedLayer_ = -1;
    bool scrollPending_ = false;
};
