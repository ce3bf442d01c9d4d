// PyTorch's nn.Transformer layers in their own words: the module names a block goes by and the
// navigator's sub-layer titles (models/model_registry.h).
#include <QCoreApplication>

#include "models/model_words.h"

namespace models::torch {

using stepformer::BlockKind;
using stepformer::Stack;

QString blockWord(const stepformer::Block& b) {
    switch (b.kind) {
    case BlockKind::SelfAttention:
    case BlockKind::MaskedSelfAttention: return QStringLiteral("self_attn");
    case BlockKind::CrossAttention: return QStringLiteral("multihead_attn");
    default: return {};
    }
}

QString sublayerTitle(const stepformer::Block& b) {
    const auto t = [](const char* s) { return QCoreApplication::translate("StepModel", s); };
    switch (b.kind) {
    case BlockKind::SelfAttention: return t("Self-attention (self_attn)");
    case BlockKind::MaskedSelfAttention: return t("Masked self-attention (self_attn)");
    case BlockKind::CrossAttention: return t("Cross-attention (multihead_attn)");
    case BlockKind::FeedForward: return t("Feed-forward (linear1, linear2)");
    case BlockKind::FinalNorm:
        return b.stack == Stack::Decoder ? t("Final norm (decoder.norm)") : t("Final norm (encoder.norm)");
    case BlockKind::Projection: return t("Generator (generator)");
    default: return {};
    }
}

}  // namespace models::torch
