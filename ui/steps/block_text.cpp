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

QString blockTitle(const stepformer::Block& b) {
    const QString word = blockWord(b);
    return (b.torch() || b.naming == stepformer::Naming::Aiayn) && !word.isEmpty() ? QStringLiteral("%1 (%2)").arg(blockTitle(b.kind), word) : blockTitle(b.kind);
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
    const auto t = [](const char* s) { return QCoreApplication::translate("StepModel", s); };
    if (b.naming == stepformer::Naming::Aiayn) {  // attention-is-all-you-need-pytorch's module names
        switch (b.kind) {
        case BlockKind::SelfAttention: return t("Self-attention (slf_attn)");
        case BlockKind::MaskedSelfAttention: return t("Masked self-attention (slf_attn)");
        case BlockKind::CrossAttention: return t("Encoder-decoder attention (enc_attn)");
        case BlockKind::FeedForward: return t("Feed-forward (pos_ffn: w_1, w_2)");
        case BlockKind::Projection: return t("Projection (trg_word_prj)");
        default: return sublayerTitle(b.kind);
        }
    }
    if (!b.torch()) return sublayerTitle(b.kind);
    switch (b.kind) {
    case BlockKind::SelfAttention: return t("Self-attention (self_attn)");
    case BlockKind::MaskedSelfAttention: return t("Masked self-attention (self_attn)");
    case BlockKind::CrossAttention: return t("Cross-attention (multihead_attn)");
    case BlockKind::FeedForward: return t("Feed-forward (linear1, linear2)");
    case BlockKind::FinalNorm:
        return b.stack == Stack::Decoder ? t("Final norm (decoder.norm)") : t("Final norm (encoder.norm)");
    case BlockKind::Projection: return t("Generator (generator)");
    default: return sublayerTitle(b.kind);
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

QString blockWord(const stepformer::Block& b) {
    if (b.naming == stepformer::Naming::Aiayn) {
        switch (b.kind) {
        case BlockKind::SelfAttention:
        case BlockKind::MaskedSelfAttention: return QStringLiteral("slf_attn");
        case BlockKind::CrossAttention: return QStringLiteral("enc_attn");
        case BlockKind::FeedForward: return QStringLiteral("pos_ffn");
        default: return blockWord(b.kind);
        }
    }
    if (!b.torch()) return blockWord(b.kind);
    switch (b.kind) {
    case BlockKind::SelfAttention:
    case BlockKind::MaskedSelfAttention: return QStringLiteral("self_attn");
    case BlockKind::CrossAttention: return QStringLiteral("multihead_attn");
    default: return blockWord(b.kind);
    }
}

BlockKind blockKindOfWord(const QString& word) { return stepformer::names::block_kind_of_word(word.toStdString()); }

}  // namespace tensorviz
