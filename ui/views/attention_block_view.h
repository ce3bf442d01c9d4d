// A view of one attention block for one sentence and head (the attention and mask views): the
// choice and its pickers, the kind of block ("blockPicker", items carry the
// stepformer::BlockKind), the layer ("layerPicker"), the sentence ("batchPicker") and the head
// ("headPicker").
#pragma once

#include <QString>

#include "views/step_view.h"

class QComboBox;
class QSpinBox;

class AttentionBlockView : public StepView {
    Q_OBJECT
public:
    QString currentBlock() const;  // the block's name prefix (names::block_prefix)
    QString blockKind() const;     // the block's attribute word (names::block_word)
    int layerIndex() const { return block_.layer; }
    int batchIndex() const { return batch_; }
    int headIndex() const { return head_; }
    // The attention block of kind `blockWord` at `layer`, in the stack where the trace has that
    // kind; other kinds are ignored.
    void setBlock(const QString& blockWord, int layer);
    void setBatchIndex(int b);
    virtual void setHeadIndex(int h);

signals:
    void blockChanged(const QString& block);

protected:
    AttentionBlockView(const stepformer::Block& initial, QWidget* parent, const char* name);

    // The block and layer pickers (the view makes the sentence and head pickers, and lays them
    // all out), made where the view's tab order wants them.
    void makeBlockPickers(const QString& blockTip, const QString& layerTip);
    // The pickers set to the view's choice (the block's stack and layer follow the trace, the head
    // the heads there are); returns the number of heads of the block's `headsOf` entry.
    int syncPickers(stepformer::Role headsOf);
    // Draws the choice.
    virtual void rebuild() = 0;

    stepformer::Block block_;
    int batch_ = 0;
    int head_ = 0;
    QComboBox *blockPicker_ = nullptr, *layerPicker_ = nullptr, *batchPicker_ = nullptr;
    QSpinBox* headPicker_ = nullptr;
};
