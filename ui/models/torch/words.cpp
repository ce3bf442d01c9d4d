// PyTorch's nn.Transformer layers in their own words: the module names a block goes by and the
// navigator's sub-layer titles (models/model_registry.h).
#include <QCoreApplication>

#include "models/model_words.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "steps/reference_trace.h"

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
