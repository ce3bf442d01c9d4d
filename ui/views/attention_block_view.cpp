#include "views/attention_block_view.h"

#include "stepformer/trace_graph.h"
#include "views/view_parts.h"

#include <algorithm>

#include <QComboBox>
#include <QSpinBox>

#include "steps/block_text.h"
#include "steps/step_panels.h"
#include "steps/tensor_slice.h"

using namespace tensorviz;

AttentionBlockView::AttentionBlockView(const stepformer::Block& initial, QWidget* parent, const char* name)
    : StepView(parent, name), block_(initial) {}

QString AttentionBlockView::currentBlock() const { return blockName(block_); }

QString AttentionBlockView::blockKind() const { return blockWord(block_.kind); }

void AttentionBlockView::setBlock(const QString& word, int layer) {
    const stepformer::BlockKind kind = blockKindOfWord(word);
    if (kind != stepformer::BlockKind::SelfAttention && kind != stepformer::BlockKind::MaskedSelfAttention &&
        kind != stepformer::BlockKind::CrossAttention)
        return;
    if (kind == block_.kind && layer == block_.layer) return;
    block_ = trace_ ? attentionBlockOf(*trace_, kind, std::max(0, layer))
                    : stepformer::Block{block_.stack, kind, std::max(0, layer), block_.naming};
    rebuild();
    emit blockChanged(currentBlock());
    emit shownStepChanged(shownStep());
}

void AttentionBlockView::setBatchIndex(int b) {
    if (setIndex(batch_, b)) rebuild();
}

void AttentionBlockView::setHeadIndex(int h) {
    if (setIndex(head_, h)) rebuild();
}

void AttentionBlockView::makeBlockPickers(const QString& blockTip, const QString& layerTip) {
    blockPicker_ = view_parts::named(new QComboBox(this), "blockPicker");
    blockPicker_->setToolTip(blockTip);
    fillBlockPicker(blockPicker_);
    layerPicker_ = new QComboBox(this);
    layerPicker_->setMinimumContentsLength(7);  // "Layer 5" stays readable in a crowded bar
    layerPicker_->setObjectName(QStringLiteral("layerPicker"));
    layerPicker_->setToolTip(layerTip);
    onPicked(blockPicker_, [this](int i) {
        setBlock(blockWord(stepformer::BlockKind(blockPicker_->itemData(i).toInt())), block_.layer);
    });
    onPicked(layerPicker_, [this](int i) { setBlock(blockKind(), i); });
}

int AttentionBlockView::syncPickers(stepformer::Role headsOf) {
    // A block this trace does not have (the encoder's, in a decoder-only model): its first one.
    if (trace_ && !roleEntry(*trace_, block_, headsOf)) {
        const auto blocks = stepformer::graph::attention_blocks(*trace_);
        if (!blocks.empty()) block_ = blocks.front();
    }
    updating_ = true;
    syncBlockLayerPickers(blockPicker_, layerPicker_, trace_.get(), block_);
    syncBatchPicker(batchPicker_, trace_.get(), batch_);
    int H = 0;
    if (trace_)
        if (const auto* e = roleEntry(*trace_, block_, headsOf)) H = axisSize(*e, stepformer::AxisKind::Head);
    headPicker_->setRange(0, std::max(0, H - 1));
    head_ = std::clamp(head_, 0, std::max(0, H - 1));
    headPicker_->setValue(head_);
    headPicker_->setEnabled(H > 1);
    updating_ = false;
    return H;
}
