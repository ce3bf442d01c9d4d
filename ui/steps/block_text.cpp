#include "steps/block_text.h"

#include <QCoreApplication>

#include "stepformer/trace_names.h"

using stepformer::BlockKind;
using stepformer::Stack;

namespace tensorviz {

QString blockTitle(BlockKind k) {
    switch (k) {
    case BlockKind::SelfAttention: return QStringLiteral("encoder self-attention");
    case BlockKind::MaskedSelfAttention: return QStringLiteral("decoder masked self-attention");
    case BlockKind::CrossAttention: return QStringLiteral("decoder\u2013encoder attention");
    case BlockKind::FeedForward: return QStringLiteral("feed-forward network");
    default: return blockWord(k);
    }
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

QString stackTitle(Stack s) {
    switch (s) {
    case Stack::Encoder: return QCoreApplication::translate("StepModel", "Encoder");
    case Stack::Decoder: return QCoreApplication::translate("StepModel", "Decoder");
    default: return {};
    }
}

QString blockWord(BlockKind k) { return QString::fromStdString(stepformer::names::block_word(k)); }

BlockKind blockKindOfWord(const QString& word) { return stepformer::names::block_kind_of_word(word.toStdString()); }

}  // namespace tensorviz
