// PyTorch's nn.Transformer layers in their own words: the module names a block goes by and the
// navigator's sub-layer titles (models/model_registry.h).
#include <QCoreApplication>

#include "models/model_words.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "steps/reference_trace.h"
#include "steps/step_model.h"
#include "stepformer/trace_names.h"

namespace models::torch {


QString blockWord(const stepformer::Block& b) {
    switch (b.kind) {
    case BlockKind::SelfAttention:
    case BlockKind::MaskedSelfAttention: return QStringLiteral("self_attn");
    case BlockKind::CrossAttention: return QStringLiteral("multihead_attn");
    default: return {};
    }
}

QString sublayerTitle(const stepformer::Block& b) {
    switch (b.kind) {
    case BlockKind::SelfAttention: return QCoreApplication::translate("StepModel", "Self-attention (self_attn)");
    case BlockKind::MaskedSelfAttention: return QCoreApplication::translate("StepModel", "Masked self-attention (self_attn)");
    case BlockKind::CrossAttention: return QCoreApplication::translate("StepModel", "Cross-attention (multihead_attn)");
    case BlockKind::FeedForward: return QCoreApplication::translate("StepModel", "Feed-forward (linear1, linear2)");
    case BlockKind::FinalNorm:
        return b.stack == Stack::Decoder ? QCoreApplication::translate("StepModel", "Final norm (decoder.norm)")
                                         : QCoreApplication::translate("StepModel", "Final norm (encoder.norm)");
    case BlockKind::Projection: return QCoreApplication::translate("StepModel", "Generator (generator)");
    default: return {};
    }
}

}  // namespace models::torch

namespace models::torch {

// PyTorch's translation model around nn.Transformer, at its small size.
std::unique_ptr<stepformer::Trace> reference(int layers) {
    return tensorviz::translationReference(stepformer::Config::torch_small(), layers);
}

// Seed 004's layer lab with its decoder layer (its names have no layer number).
std::unique_ptr<stepformer::Trace> layerLabReference(int) {
    stepformer::Config c = stepformer::Config::seed004();
    c.decoder_layer = true;
    const stepformer::Transformer model(c, stepformer::init_params(c, 1));
    stepformer::Tensor src({1, 1, c.d_model}), tgt({1, 1, c.d_model});
    auto tr = std::make_unique<stepformer::Trace>();
    model.forward(stepformer::make_layer_batch(c, src, tgt), *tr);
    return tr;
}

}  // namespace models::torch

namespace models::torch {

// The label of a step of PyTorch's layers: the name PyTorch gives its module or the layer's own
// step (add1, norm2, linear1, activation), and what it computes. "" where the tutorial's label
// fits as it is (softmax, context, the loss).
QString label(Role op, const TraceEntry& e) {
    const Block& b = e.block;
    const QString leaf = QString::fromStdString(stepformer::names::parse(e.name).leaf);
    const bool dec = b.stack == Stack::Decoder;
    switch (op) {
    case Role::Input: return dec ? StepModel::tr("tgt (the given input)") : StepModel::tr("src (the given input)");
    case Role::Embedding: return dec ? StepModel::tr("tgt_tok_emb (× √d_model)") : StepModel::tr("src_tok_emb (× √d_model)");
    case Role::PositionalTable: return StepModel::tr("positional_encoding table");
    case Role::PositionalAdd: return StepModel::tr("+ positional_encoding");
    case Role::Q: return StepModel::tr("Q (in_proj: q rows + bias)");
    case Role::K: return StepModel::tr("K (in_proj: k rows + bias)");
    case Role::V: return StepModel::tr("V (in_proj: v rows + bias)");
    case Role::Scores: return StepModel::tr("scores = q·kᵀ/√head_dim");
    case Role::AttnMask: return StepModel::tr("mask (additive: 0 / −∞)");
    case Role::MaskedScores: return StepModel::tr("scores + mask");
    case Role::Softmax: return StepModel::tr("softmax (attn weights)");
    case Role::OutProjection: return StepModel::tr("out_proj (+ bias)");
    case Role::Residual: return StepModel::tr("%1 (+ residual)").arg(leaf.isEmpty() ? QStringLiteral("add") : leaf);
    case Role::LayerNorm:
        if (b.kind == BlockKind::FinalNorm)
            return dec ? StepModel::tr("decoder.norm (LayerNorm)") : StepModel::tr("encoder.norm (LayerNorm)");
        return StepModel::tr("%1 (LayerNorm)").arg(leaf.isEmpty() ? QStringLiteral("norm") : leaf);
    case Role::FfnHidden: return StepModel::tr("linear1 (+ bias)");
    case Role::Relu: return StepModel::tr("activation (ReLU)");
    case Role::Gelu: return StepModel::tr("activation (GELU)");
    case Role::FfnOut: return StepModel::tr("linear2 (+ bias)");
    case Role::Logits: return StepModel::tr("generator (logits)");
    default: return {};
    }
}

}  // namespace models::torch
