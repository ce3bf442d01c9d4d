// attention-is-all-you-need-pytorch's model in its own words: its module names and the
// navigator's sub-layer titles (models/model_registry.h).
#include <QCoreApplication>

#include "models/model_words.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "steps/reference_trace.h"
#include "steps/step_model.h"
#include "stepformer/trace_names.h"

namespace models::aiayn {


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
    switch (b.kind) {
    case BlockKind::SelfAttention: return QCoreApplication::translate("StepModel", "Self-attention (slf_attn)");
    case BlockKind::MaskedSelfAttention: return QCoreApplication::translate("StepModel", "Masked self-attention (slf_attn)");
    case BlockKind::CrossAttention: return QCoreApplication::translate("StepModel", "Encoder-decoder attention (enc_attn)");
    case BlockKind::FeedForward: return QCoreApplication::translate("StepModel", "Feed-forward (pos_ffn: w_1, w_2)");
    case BlockKind::Projection: return QCoreApplication::translate("StepModel", "Projection (trg_word_prj)");
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

namespace models::aiayn {

// The label of a step of attention-is-all-you-need-pytorch's model (seed 003): its module names
// (src_word_emb, position_enc, slf_attn, pos_ffn's w_1 / w_2, trg_word_prj) and its own order of
// operations (q / temperature before q·kᵀ, masks 1 = keep, dropout before the add). "" where
// the tutorial's label fits (softmax, context).
QString label(Role op, const TraceEntry& e) {
    const Block& b = e.block;
    const bool dec = b.stack == Stack::Decoder;
    const bool ffn = b.kind == BlockKind::FeedForward;
    switch (op) {
    case Role::Embedding: return dec ? StepModel::tr("trg_word_emb") : StepModel::tr("src_word_emb");
    case Role::PositionalTable: return StepModel::tr("pos_table (float64)");
    case Role::PositionalAdd: return StepModel::tr("+ position_enc, dropout");
    case Role::PadMask: return StepModel::tr("src_mask (1 = keep)");
    case Role::CombinedMask: return StepModel::tr("trg_mask (1 = keep)");
    case Role::Q: return StepModel::tr("Q = w_qs(q) (no bias)");
    case Role::K: return StepModel::tr("K = w_ks(k) (no bias)");
    case Role::V: return StepModel::tr("V = w_vs(v) (no bias)");
    case Role::ScaledQ: return StepModel::tr("q / temperature (temperature = √d_k)");
    case Role::Scores: return StepModel::tr("scores = q_scaled·kᵀ (no second scale)");
    case Role::MaskedScores: return StepModel::tr("masked_fill(mask == 0, −1e9)");
    case Role::OutProjection: return StepModel::tr("fc (no bias)");
    case Role::Residual: return StepModel::tr("dropout(%1) + residual").arg(ffn ? QStringLiteral("w_2(·)") : QStringLiteral("fc(·)"));
    case Role::LayerNorm:
        if (b.kind == BlockKind::Input)
            return StepModel::tr("layer_norm (before layer 0)");  // short: the navigator's column is narrow on a laptop
        return StepModel::tr("layer_norm (post-norm, ε 1e-6)");
    case Role::FfnHidden: return StepModel::tr("w_1 (+ bias)");
    case Role::Relu: return StepModel::tr("ReLU");
    case Role::FfnOut: return StepModel::tr("w_2 (+ bias)");
    case Role::Logits: return StepModel::tr("trg_word_prj (logits, no bias)");
    default: return {};
    }
}

}  // namespace models::aiayn
