#include "architecture/architecture_parts.h"

#include <algorithm>

#include <QCoreApplication>

#include "stepformer/trace_graph.h"

using stepformer::BlockKind;
using stepformer::Role;
using stepformer::Stack;
using stepformer::Trace;
using stepformer::TraceEntry;

namespace architecture {

namespace {

constexpr Part kParts[] = {
    {"encoder.embedding", Stack::Encoder, BlockKind::Input, Role::Embedding},
    {"encoder.pe", Stack::Encoder, BlockKind::Input, Role::PositionalTable},
    {"encoder.add_pe", Stack::Encoder, BlockKind::Input, Role::PositionalAdd},
    {"encoder.mha", Stack::Encoder, BlockKind::SelfAttention, Role::Q},
    {"encoder.mha_norm", Stack::Encoder, BlockKind::SelfAttention, Role::LayerNorm},
    {"encoder.ffn", Stack::Encoder, BlockKind::FeedForward, Role::FfnHidden},
    {"encoder.ffn_norm", Stack::Encoder, BlockKind::FeedForward, Role::LayerNorm},
    {"decoder.embedding", Stack::Decoder, BlockKind::Input, Role::Embedding},
    {"decoder.pe", Stack::Decoder, BlockKind::Input, Role::PositionalTable},
    {"decoder.add_pe", Stack::Decoder, BlockKind::Input, Role::PositionalAdd},
    {"decoder.masked_mha", Stack::Decoder, BlockKind::MaskedSelfAttention, Role::Q},
    {"decoder.masked_mha_norm", Stack::Decoder, BlockKind::MaskedSelfAttention, Role::LayerNorm},
    {"decoder.cross_mha", Stack::Decoder, BlockKind::CrossAttention, Role::Q},
    {"decoder.cross_mha_norm", Stack::Decoder, BlockKind::CrossAttention, Role::LayerNorm},
    {"decoder.ffn", Stack::Decoder, BlockKind::FeedForward, Role::FfnHidden},
    {"decoder.ffn_norm", Stack::Decoder, BlockKind::FeedForward, Role::LayerNorm},
    {"linear", Stack::None, BlockKind::Projection, Role::Logits},
    {"softmax", Stack::None, BlockKind::Projection, Role::Probs},
    // PyTorch's nn.Transformer only: the final norms, the pre-norm layers' ⊕.
    {"encoder.final_norm", Stack::Encoder, BlockKind::FinalNorm, Role::LayerNorm},
    {"decoder.final_norm", Stack::Decoder, BlockKind::FinalNorm, Role::LayerNorm},
    {"encoder.mha_add", Stack::Encoder, BlockKind::SelfAttention, Role::Residual},
    {"encoder.ffn_add", Stack::Encoder, BlockKind::FeedForward, Role::Residual},
    {"decoder.masked_mha_add", Stack::Decoder, BlockKind::MaskedSelfAttention, Role::Residual},
    {"decoder.cross_mha_add", Stack::Decoder, BlockKind::CrossAttention, Role::Residual},
    {"decoder.ffn_add", Stack::Decoder, BlockKind::FeedForward, Role::Residual},
    // attention-is-all-you-need-pytorch's only: the stack's LayerNorm after the positional encoding.
    {"encoder.input_norm", Stack::Encoder, BlockKind::Input, Role::LayerNorm},
    {"decoder.input_norm", Stack::Decoder, BlockKind::Input, Role::LayerNorm},
};

QString idOf(Stack s, BlockKind k, Role first) {
    for (const Part& p : kParts)
        if (p.stack == s && p.kind == k && p.first == first) return QLatin1String(p.id);
    return {};
}

// The kind of attention block that masks its scores with `mask` (directly or through a mask
// made from it).
BlockKind maskedKind(const Trace& tr, const std::string& mask) {
    const auto blocks = stepformer::graph::blocks_masked_by(tr, mask);
    return blocks.empty() ? BlockKind::None : blocks.front().kind;
}

}  // namespace

QString tr(const char* text) { return QCoreApplication::translate("architecture", text); }

const Part* part(const QString& id) {
    for (const Part& p : kParts)
        if (id == QLatin1String(p.id)) return &p;
    return nullptr;
}

QString blockOf(const Trace& tr, const TraceEntry& e, bool separateAdds) {
    const TraceEntry* f = stepformer::graph::forward_of(tr, e);
    if (!f) return {};
    const stepformer::Block& b = f->block;
    switch (b.kind) {
    case BlockKind::None: return {};
    case BlockKind::Input:
        if (f->is_mask) return idOf(b.stack, maskedKind(tr, f->name), Role::Q);
        return idOf(b.stack, b.kind, f->role);
    case BlockKind::Projection: return idOf(Stack::None, b.kind, f->role);
    case BlockKind::Loss: return idOf(Stack::None, BlockKind::Projection, Role::Probs);
    case BlockKind::FinalNorm: return idOf(b.stack, b.kind, Role::LayerNorm);
    default: {
        if (separateAdds && f->role == Role::Residual) return idOf(b.stack, b.kind, Role::Residual);
        const bool norm = f->role == Role::Residual || f->role == Role::LayerNorm;
        const Role first = norm ? Role::LayerNorm : b.is_attention() ? Role::Q : Role::FfnHidden;
        return idOf(b.stack, b.kind, first);
    }
    }
}

QString description(const QString& id, const stepformer::Config& c) {
    const Part* p = part(id);
    if (!p) return {};
    QString what;
    if (p->first == Role::Embedding && p->stack == Stack::Encoder)
        what = tr("<b>Input Embedding</b><br>Each source token id picks its row of the embedding table "
                  "[src_vocab_size %1 × d_model %2].").arg(c.src_vocab_size()).arg(c.d_model);
    else if (p->first == Role::Embedding)
        what = tr("<b>Output Embedding</b><br>Each decoder input token (the target shifted right, starting with '%1') "
                  "picks its row of the embedding table [tgt_vocab_size %2 × d_model %3].")
                   .arg(QString::fromStdString(c.bos).toHtmlEscaped()).arg(c.tgt_vocab_size()).arg(c.d_model);
    else if (p->first == Role::PositionalTable)
        what = tr("<b>Positional Encoding</b><br>A fixed table, no parameters: sin(pos / 10000<sup>2i/d_model</sup>) in "
                  "even dimensions, cos in odd ones. It tells the model where each token is.");
    else if (p->first == Role::PositionalAdd)
        what = tr("<b>Embedding + positional encoding</b><br>Added element-wise: the input of layer 0 "
                  "(dropout follows in training).");
    else if (p->first == Role::Q && p->kind == BlockKind::SelfAttention)
        what = tr("<b>Multi-Head Attention</b> (encoder self-attention)<br>Q, K, V = x·W<sub>Q</sub>, x·W<sub>K</sub>, "
                  "x·W<sub>V</sub> split into %1 heads of d_k %2; scores = QK<sup>T</sup>/√d_k; padding masked; "
                  "softmax; weighted sum of V; output projection.").arg(c.n_heads).arg(c.d_k);
    else if (p->first == Role::Q && p->kind == BlockKind::MaskedSelfAttention)
        what = tr("<b>Masked Multi-Head Attention</b> (decoder self-attention)<br>Like the encoder's, but the mask "
                  "also hides later positions (subsequent mask): a position can only attend to itself and earlier ones.");
    else if (p->first == Role::Q && p->kind == BlockKind::CrossAttention)
        what = tr("<b>Multi-Head Attention</b> (encoder-decoder attention)<br>Q comes from the decoder, K and V from the "
                  "encoder's output: each target position looks at the source sentence.");
    else if (p->first == Role::LayerNorm)
        what = c.learns_layer_norm()
                   ? tr("<b>Add & Norm</b><br>Residual connection (sub-layer output + its input), then LayerNorm over "
                        "d_model with a learned scale γ and shift β.")
                   : tr("<b>Add & Norm</b><br>Residual connection (sub-layer output + its input), then LayerNorm over "
                        "d_model with no learned scale (γ = 1, β = 0: the tutorial builds a fresh nn.LayerNorm in "
                        "every call, so it is never trained).");
    else if (p->first == Role::FfnHidden)
        what = tr("<b>Feed Forward</b><br>Position-wise: Linear d_model %1 → d_ff %2, ReLU, Linear d_ff → d_model, "
                  "the same for every position.").arg(c.d_model).arg(c.d_ff);
    else if (p->first == Role::Logits)
        what = tr("<b>Linear</b><br>Projection d_model %1 → tgt_vocab_size %2: one logit per target word.")
                   .arg(c.d_model).arg(c.tgt_vocab_size());
    else if (p->first == Role::Probs)
        what = tr("<b>Softmax</b><br>Turns the logits into probabilities over the target vocabulary.");
    return what;
}

}  // namespace architecture
