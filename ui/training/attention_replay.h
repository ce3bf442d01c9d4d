// Attention replay: how attention sharpens during training. The training keeps, after every
// epoch, all heads' attention weights of every layer and block for one replay sentence
// (AttentionSnapshot); a slider runs over the epochs (0 = the initial weights), pickers choose
// the layer, the block and the head (numbered from 0, as in every view), and the map is a HeatmapWidget labelled with the tokens
// (masked positions hatched). A strip of small maps shows every head of the block at once; a
// click enlarges one. Play animates the epochs.
//
// objectNames: epochSlider, playButton, epochLabel, replayLayerPicker, replayBlockPicker,
// replayHeadPicker, replayHeatmap, replayThumb<h>, replaySentenceLabel.
#pragma once

#include <memory>
#include <vector>

#include <QList>
#include <QString>
#include <QWidget>

#include "training/training_controller.h"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QScrollArea;
class QSlider;
class QTimer;
class QToolButton;
class HeatmapWidget;

class AttentionReplay : public QWidget {
    Q_OBJECT
public:
    explicit AttentionReplay(QWidget* parent = nullptr);

    void clear();
    // Snapshots come in epoch order; the slider follows the newest while it is at the end.
    void addSnapshot(std::shared_ptr<const AttentionSnapshot> snapshot);
    int snapshotCount() const { return int(snaps_.size()); }
    const AttentionSnapshot* currentSnapshot() const;
    int currentEpoch() const;  // -1 when empty
    void setEpochIndex(int index);

    // The block by its attribute word (blockWord: the self-attention of the encoder, ...).
    QString blockKind() const;
    int layer() const { return layer_; }
    int head() const { return head_; }
    void setBlock(const QString& kind, int layer);
    void setHead(int head);

    HeatmapWidget* heatmap() const { return map_; }
    QList<HeatmapWidget*> thumbnails() const { return thumbs_; }
    bool isPlaying() const;

signals:
    void epochChanged(int epoch);

protected:
    void showEvent(QShowEvent* e) override;
    // Short (the Train dock under the views of a laptop), the heads' thumbnails make way for the
    // enlarged head: the Head picker still chooses it.
    void resizeEvent(QResizeEvent* e) override;

public:
    QSize minimumSizeHint() const override;  // without the thumbnails (they hide when short)

private:
    void scheduleRefresh();  // pickers + map, batched (snapshots can come fast) and only when shown
    void syncPickers();
    void rebuildThumbs(int heads);
    void render();
    void fillMap(HeatmapWidget* w, const AttentionSnapshot& s, const AttentionBlockMap& m, int head);
    void togglePlay();

    std::vector<std::shared_ptr<const AttentionSnapshot>> snaps_;
    int index_ = -1;
    stepformer::BlockKind kind_ = stepformer::BlockKind::CrossAttention;
    int layer_ = 0;
    int head_ = 0;
    bool updating_ = false;

    QLabel* sentence_ = nullptr;
    QComboBox *layerPicker_ = nullptr, *blockPicker_ = nullptr, *headPicker_ = nullptr;
    QWidget* thumbBox_ = nullptr;
    QScrollArea* thumbScroll_ = nullptr;
    QHBoxLayout* thumbLayout_ = nullptr;
    QList<HeatmapWidget*> thumbs_;
    HeatmapWidget* map_ = nullptr;
    QSlider* slider_ = nullptr;
    QToolButton* play_ = nullptr;
    QLabel* epochLabel_ = nullptr;
    QTimer *playTimer_ = nullptr, *refreshTimer_ = nullptr;
    bool dirty_ = false;
};
