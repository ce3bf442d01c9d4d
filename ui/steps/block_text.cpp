#include "steps/block_text.h"

#include <QCoreApplication>

#include "models/model_registry.h"
#include "stepformer/trace_names.h"

using stepformer::BlockKind;
using stepformer::Stack;

namespace tensorviz {

QString blockTitle(BlockKind k) {
    switch (k) {
    case BlockKind::SelfAttention: return QCoreApplication::translate("StepModel", "encoder self-attention");
    case BlockKind::MaskedSelfAttention: return QCoreApplication::translate("StepModel", "decoder masked self-attention");
    case BlockKind::CrossAttention: return QCoreApplication::translate("StepModel", "decoder–encoder attention");
    case BlockKind::FeedForward: return QCoreApplication::translate("StepModel", "feed-forward network");
    default: return blockWord(k);
    }
}

QString blockTitle(const stepformer::Block& b) {
    // A model with module names of its own adds the block's: "decoder–encoder attention (multihead_attn)".
    const QString word = models::presentation(b.naming).blockWord ? blockWord(b) : QString();
    return !word.isEmpty() ? QCoreApplication::translate("StepModel", "%1 (%2)", "a block and its module name").arg(blockTitle(b.kind), word)
                            : blockTitle(b.kind);
}

QString blockPickerTitle(BlockKind k) {
    QString t = blockTitle(k);
    if (!t.isEmpty()) t[0] = t[0].toUpper();
    return t;
}

QString sublayerTitle(BlockKind k) {
    switch (k) {
    case BlockKind::SelfAttention: return QCoreApplication::translate("StepModel", "Self-attention");
    case BlockKind::MaskedSelfAttention: return QCoreApplication::translate("StepModel", "Masked self-attention");
    case BlockKind::CrossAttention: return QCoreApplication::translate("StepModel", "Encoder-decoder attention");
    case BlockKind::FeedForward: return QCoreApplication::translate("StepModel", "Feed-forward");
    default: return blockWord(k);
    }
}

QString sublayerTitle(const stepformer::Block& b) {
    if (const auto own = models::presentation(b.naming).sublayerTitle)
        if (QString t = own(b); !t.isEmpty()) return t;
    return sublayerTitle(b.kind);
}

QString stackTitle(Stack s) {
    switch (s) {
    case Stack::Encoder: return QCoreApplication::translate("StepModel", "Encoder");
    case Stack::Decoder: return QCoreApplication::translate("StepModel", "Decoder");
    default: return {};
    }
}

QString blockWord(BlockKind k) { return QString::fromStdString(stepformer::names::block_word(k)); }

QString blockWord(const stepformer::Block& b) {
    if (const auto own = models::presentation(b.naming).blockWord)
        if (QString w = own(b); !w.isEmpty()) return w;
    return blockWord(b.kind);
}

BlockKind blockKindOfWord(const QString& word) { return stepformer::names::block_kind_of_word(word.toStdString()); }

}  // namespace tensorviz
