// attention-is-all-you-need-pytorch's model in its own words: its module names and the
// navigator's sub-layer titles (models/model_registry.h).
#include <QCoreApplication>

#include "models/model_words.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "steps/reference_trace.h"

namespace models::aiayn {

using stepformer::BlockKind;

QString blockWord(const stepformer::Block& b) {
    switch (b.kind) {
    case BlockKind::SelfAttention:
    case BlockKind::MaskedSelfAttention: return QStringLiteral("slf_attn");
    case BlockKind::CrossAttention: return QStringLiteral("enc_attn");
    case BlockKind::FeedForward: return QStringLiteral("pos_ffn");
    default: return {};
    }
}

QString sublayerTitle(const stepformer::Block& b) {
    const auto t = [](const char* s) { return QCoreApplication::translate("StepModel", s); };
    switch (b.kind) {
    case BlockKind::SelfAttention: return t("Self-attention (slf_attn)");
    case BlockKind::MaskedSelfAttention: return t("Masked self-attention (slf_attn)");
    case BlockKind::CrossAttention: return t("Encoder-decoder attention (enc_attn)");
    case BlockKind::FeedForward: return t("Feed-forward (pos_ffn: w_1, w_2)");
    case BlockKind::Projection: return t("Projection (trg_word_prj)");
    default: return {};
    }
}

}  // namespace models::aiayn

namespace models::aiayn {

// attention-is-all-you-need-pytorch's model at its small size.
std::unique_ptr<stepformer::Trace> reference(int layers) {
    return tensorviz::translationReference(stepformer::Config::aiayn_small(), layers);
}

}  // namespace models::aiayn
