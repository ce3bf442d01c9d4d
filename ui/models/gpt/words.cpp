// nanoGPT's GPT ("architecture": "gpt") in its own words: its module names (attn, mlp), the
// navigator's sub-layer titles and step labels, and the reference trace (models/model_registry.h).
#include <QCoreApplication>

#include "models/model_words.h"
#include "steps/reference_trace.h"
#include "steps/step_model.h"
#include "stepformer/trace_names.h"

namespace models::gpt {

QString blockWord(const stepformer::Block& b) {
    switch (b.kind) {
    case BlockKind::MaskedSelfAttention: return QStringLiteral("attn");
    case BlockKind::FeedForward: return QStringLiteral("mlp");
    default: return {};
    }
}

QString sublayerTitle(const stepformer::Block& b) {
    switch (b.kind) {
    case BlockKind::MaskedSelfAttention: return QCoreApplication::translate("StepModel", "Causal self-attention (attn)");
    case BlockKind::FeedForward: return QCoreApplication::translate("StepModel", "MLP (mlp: c_fc, GELU, c_proj)");
    case BlockKind::FinalNorm: return QCoreApplication::translate("StepModel", "Final norm (ln_f)");
    case BlockKind::Projection: return QCoreApplication::translate("StepModel", "Projection (lm_head, tied to wte)");
    default: return {};
    }
}

// nanoGPT's model at its small size: one stack, no source (translationReference feeds it the
// start word alone).
std::unique_ptr<stepformer::Trace> reference(int layers) {
    return tensorviz::translationReference(stepformer::Config::gpt_small(), layers);
}

namespace {

// Whether a Linear step reads a bias (its third input): bias=False configurations have none.
bool hasBias(const TraceEntry& e) { return e.inputs.size() > 2; }

}  // namespace

// The label of a step of nanoGPT's model: its module paths (wte, wpe, drop, ln_1, c_attn,
// c_proj, c_fc, ln_f, lm_head) and its order of operations ((q @ kᵀ) · 1/√hs, the buffer `bias`
// with 1 = keep, masked_fill with −inf, x + sublayer(ln(x))). "" where the shared label fits
// (probabilities, the loss).
QString label(Role op, const TraceEntry& e) {
    const Block& b = e.block;
    const bool bias = hasBias(e);
    const bool mlp = b.kind == BlockKind::FeedForward;
    switch (op) {
    case Role::Embedding: return StepModel::tr("wte (token embedding)");
    case Role::PositionalTable: return StepModel::tr("wpe (learned positions)");
    case Role::PositionalAdd: return StepModel::tr("drop(tok_emb + pos_emb)");
    case Role::SubsequenceMask: return StepModel::tr("bias (causal mask, 1 = keep)");
    case Role::Q: return bias ? StepModel::tr("q (c_attn: q third + bias)") : StepModel::tr("q (c_attn: q third)");
    case Role::K: return bias ? StepModel::tr("k (c_attn: k third + bias)") : StepModel::tr("k (c_attn: k third)");
    case Role::V: return bias ? StepModel::tr("v (c_attn: v third + bias)") : StepModel::tr("v (c_attn: v third)");
    case Role::Scores: return StepModel::tr("att = (q @ kᵀ) · 1/√hs");
    case Role::MaskedScores: return StepModel::tr("masked_fill(bias == 0, −inf)");
    case Role::Softmax: return StepModel::tr("att = softmax (attn_dropout)");
    case Role::Context: return StepModel::tr("y = att @ v");
    case Role::OutProjection: return bias ? StepModel::tr("c_proj (+ bias)") : StepModel::tr("c_proj (no bias)");
    case Role::Residual:
        return mlp ? StepModel::tr("resid2: x + mlp(ln_2(x))") : StepModel::tr("resid1: x + attn(ln_1(x))");
    case Role::LayerNorm:
        if (b.kind == BlockKind::FinalNorm) return StepModel::tr("ln_f (final LayerNorm)");
        return mlp ? StepModel::tr("ln_2 (LayerNorm before mlp)") : StepModel::tr("ln_1 (LayerNorm before attn)");
    case Role::FfnHidden: return bias ? StepModel::tr("mlp.c_fc (+ bias)") : StepModel::tr("mlp.c_fc (no bias)");
    case Role::Gelu: return StepModel::tr("mlp.gelu (exact GELU)");
    case Role::FfnOut: return bias ? StepModel::tr("mlp.c_proj (+ bias)") : StepModel::tr("mlp.c_proj (no bias)");
    case Role::Logits: return StepModel::tr("lm_head (logits, weight = wte)");
    default: return {};
    }
}

}  // namespace models::gpt
