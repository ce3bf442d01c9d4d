// The diagram's tooltips in PyTorch's words: its module names, the biases, norm_first and the activation.
#include "models/model_words.h"

#include <algorithm>

#include <QCoreApplication>

#include "architecture/architecture_parts.h"

namespace models::torch {

namespace {
// The context lupdate gives tr() in this namespace.
QString tr(const char* text) { return QCoreApplication::translate("models::torch", text); }
}  // namespace

QString blockTip(const QString& id, const stepformer::Config& c) {
    const architecture::Part* p = architecture::part(id);
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

}  // namespace models::torch
