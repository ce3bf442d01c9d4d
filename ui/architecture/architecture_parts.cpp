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

QString tr(const char* text) { return QCoreApplication::translate("ArchitectureDiagram", text); }

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

QString torchDescription(const QString& id, const stepformer::Config& c) {
    const Part* p = part(id);
    if (!p) return {};
    const int hd = c.d_model / std::max(1, c.n_heads);
    const QString act = c.activation == "gelu" ? QStringLiteral("GELU") : QStringLiteral("ReLU");
    const bool enc = p->stack == Stack::Encoder;
    const QString k = QString::number(p->kind == BlockKind::CrossAttention ? 2 : p->kind == BlockKind::FeedForward ? (enc ? 2 : 3) : 1);
    switch (p->first) {
    case Role::Embedding:
        return tr("<b>%1</b><br>Each token id picks its row of <tt>%1.embedding.weight</tt> [vocabulary × d_model %2], "
                  "times √d_model.").arg(enc ? QStringLiteral("src_tok_emb") : QStringLiteral("tgt_tok_emb")).arg(c.d_model);
    case Role::PositionalTable:
        return tr("<b>positional_encoding</b><br>The fixed sinusoid table <tt>pos_embedding</tt> (a buffer, not trained).");
    case Role::PositionalAdd:
        return tr("<b>Embedding + pos_embedding</b><br>Added element-wise, then dropout: what the first layer reads.");
    case Role::Q:
        return tr("<b>%1</b> (nn.MultiheadAttention, %2 heads of head_dim %3)<br>q, k, v from the packed "
                  "<tt>in_proj_weight</tt> [3·d_model, d_model] with <tt>in_proj_bias</tt>; q / √head_dim · kᵀ; the additive "
                  "mask (0 / −∞: %4); softmax; attn · v; <tt>out_proj</tt> with its bias.")
            .arg(p->kind == BlockKind::CrossAttention ? QStringLiteral("multihead_attn") : QStringLiteral("self_attn"))
            .arg(c.n_heads)
            .arg(hd)
            .arg(p->kind == BlockKind::MaskedSelfAttention ? tr("tgt_mask, causal, and the target's padding")
                 : p->kind == BlockKind::CrossAttention   ? tr("memory_key_padding_mask; k and v from the memory")
                                                          : tr("src_key_padding_mask"));
    case Role::Residual:
        return tr("<b>add%1</b><br>x + the sub-layer's output (norm_first=True: the sub-layer read norm%1(x), the sum is "
                  "not normalised).").arg(k);
    case Role::LayerNorm:
        if (p->kind == BlockKind::FinalNorm)
            return tr("<b>%1.norm</b><br>nn.Transformer's final nn.LayerNorm(d_model) after the stack's last layer, with "
                      "learned weight and bias (ε %2).").arg(enc ? QStringLiteral("encoder") : QStringLiteral("decoder"))
                .arg(c.layer_norm_eps);
        return c.norm_first ? tr("<b>norm%1</b> (pre-norm, norm_first=True)<br>nn.LayerNorm(d_model) with learned weight and "
                                 "bias, applied to x <i>before</i> the sub-layer; the residual goes around both.").arg(k)
                            : tr("<b>Add & Norm: add%1, norm%1</b> (post-norm, norm_first=False)<br>x + the sub-layer's "
                                 "output, then nn.LayerNorm(d_model) with learned weight and bias.").arg(k);
    case Role::FfnHidden:
        return tr("<b>Feed-forward</b><br>linear1 (d_model %1 → dim_feedforward %2, with bias), %3, dropout, linear2 "
                  "(back to d_model, with bias).").arg(c.d_model).arg(c.d_ff).arg(act);
    case Role::Logits:
        return tr("<b>generator</b><br>nn.Linear(d_model %1, tgt_vocab_size %2) with bias: one logit per target word.")
            .arg(c.d_model).arg(c.tgt_vocab_size());
    case Role::Probs: return tr("<b>Softmax</b><br>Turns the logits into probabilities over the target vocabulary.");
    default: return {};
    }
}

QString aiaynDescription(const QString& id, const stepformer::Config& c) {
    const Part* p = part(id);
    if (!p) return {};
    const bool enc = p->stack == Stack::Encoder;
    const bool scaleEmb = c.trg_emb_prj_weight_sharing && c.scale_emb_or_prj == "emb";
    const bool scalePrj = c.trg_emb_prj_weight_sharing && c.scale_emb_or_prj == "prj";
    switch (p->first) {
    case Role::Embedding: {
        QString t = tr("<b>%1</b><br>nn.Embedding(vocabulary, d_model %2, padding_idx=0): the pad row gets no gradient.%3")
                        .arg(enc ? QStringLiteral("encoder.src_word_emb") : QStringLiteral("decoder.trg_word_emb"))
                        .arg(c.d_model)
                        .arg(scaleEmb ? tr(" Then × √d_model (scale_emb_or_prj = 'emb').") : QString());
        if (!enc && c.trg_emb_prj_weight_sharing) t += tr("<br><b>Shared</b> with trg_word_prj.weight (one parameter).");
        if (c.emb_src_trg_weight_sharing) t += tr("<br><b>Shared</b> between src_word_emb and trg_word_emb.");
        return t;
    }
    case Role::PositionalTable:
        return tr("<b>position_enc</b><br>The sinusoid table pos_table (n_position %1 rows), computed in float64 and stored "
                  "as float32; a buffer, never trained.").arg(c.n_position);
    case Role::PositionalAdd:
        return tr("<b>+ position_enc</b><br>emb + pos_table[:, :len], then dropout.");
    case Role::LayerNorm:
        if (p->kind == BlockKind::Input)
            return tr("<b>%1.layer_norm</b><br>nn.LayerNorm(d_model, eps=1e-6) over the embeddings plus positions, "
                      "<i>before</i> the first layer.").arg(enc ? QStringLiteral("encoder") : QStringLiteral("decoder"));
        return tr("<b>dropout · + residual · layer_norm</b> (post-norm)<br>x = dropout(sub-layer output); x += residual; "
                  "nn.LayerNorm(d_model, eps=1e-6) with learned γ, β.");
    case Role::Q:
        return tr("<b>%1</b> (MultiHeadAttention, %2 heads, d_k %3, d_v %4)<br>w_qs, w_ks, w_vs without bias; "
                  "q / temperature (√d_k) · kᵀ; masked_fill(mask == 0, −1e9) (masks 1 = keep); softmax; dropout; · v; "
                  "fc without bias.")
            .arg(p->kind == BlockKind::CrossAttention ? QStringLiteral("enc_attn") : QStringLiteral("slf_attn"))
            .arg(c.n_heads)
            .arg(c.d_k)
            .arg(c.d_v);
    case Role::FfnHidden:
        return tr("<b>pos_ffn</b><br>w_1 (d_model %1 → d_inner %2, with bias), ReLU, w_2 (back, with bias), dropout.")
            .arg(c.d_model).arg(c.d_ff);
    case Role::Logits:
        return tr("<b>trg_word_prj</b><br>nn.Linear(d_model %1, n_trg_vocab %2, bias=False)%3%4")
            .arg(c.d_model)
            .arg(c.tgt_vocab_size())
            .arg(c.trg_emb_prj_weight_sharing ? tr("; its weight is <b>shared</b> with decoder.trg_word_emb") : tr("; its own weight"))
            .arg(scalePrj ? tr("; logits × d_model<sup>−0.5</sup>.") : QStringLiteral("."));
    case Role::Probs: return tr("<b>Softmax</b><br>Probabilities over the target vocabulary (cal_loss reads the logits).");
    default: return {};
    }
}

}  // namespace architecture
