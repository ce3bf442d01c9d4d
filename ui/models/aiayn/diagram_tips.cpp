// The diagram's tooltips in attention-is-all-you-need-pytorch's words: no biases on the attention, the
// LayerNorm before the layers, the shared weights.
#include "models/model_words.h"

#include <algorithm>

#include <QCoreApplication>

#include "architecture/architecture_parts.h"

namespace models::aiayn {

namespace {
// The context lupdate gives tr() in this namespace.
QString tr(const char* text) { return QCoreApplication::translate("models::aiayn", text); }
}  // namespace

QString blockTip(const QString& id, const stepformer::Config& c) {
    const architecture::Part* p = architecture::part(id);
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
            .arg(scalePrj ? tr("; logits × d_model<sup>−0.5</sup>.") : tr("."));  // "." : the sentence's full stop
    case Role::Probs: return tr("<b>Softmax</b><br>Probabilities over the target vocabulary (cal_loss reads the logits).");
    default: return {};
    }
}

}  // namespace models::aiayn
