// The diagram's tooltips in nanoGPT's words (resources/diagrams/gpt.json): one stack of pre-norm
// blocks, the learned wpe, the causal buffer, lm_head tied to wte, biases as the config says.
#include "models/model_words.h"

#include <algorithm>

#include <QCoreApplication>

#include "architecture/architecture_parts.h"

namespace models::gpt {

namespace {
// The context lupdate gives tr() in this namespace.
QString tr(const char* text) { return QCoreApplication::translate("models::gpt", text); }
}  // namespace

QString blockTip(const QString& id, const stepformer::Config& c) {
    const architecture::Part* p = architecture::part(id);
    if (!p) return {};
    const int hs = c.d_model / std::max(1, c.n_heads);
    const bool mlp = p->kind == BlockKind::FeedForward;
    const QString bias = c.bias ? QStringLiteral("bias=True") : QStringLiteral("bias=False");  // GPTConfig's own words
    switch (p->first) {
    case Role::Embedding:
        return tr("<b>transformer.wte</b><br>nn.Embedding(vocab_size %1, n_embd %2): each token id of idx picks its row "
                  "(no × √n_embd).<br><b>Tied</b>: lm_head.weight is this same matrix.")
            .arg(c.tgt_vocab_size())
            .arg(c.d_model);
    case Role::PositionalTable:
        return tr("<b>transformer.wpe</b><br>nn.Embedding(block_size %1, n_embd %2): a <i>learned</i> position table, "
                  "trained like any weight (not a sinusoid); rows 0 … T−1 are read.")
            .arg(c.block_size)
            .arg(c.d_model);
    case Role::PositionalAdd:
        return tr("<b>transformer.drop</b><br>x = drop(tok_emb + pos_emb): the positions added, then dropout (p = %1, "
                  "training only).")
            .arg(c.dropout);
    case Role::LayerNorm:
        if (p->kind == BlockKind::FinalNorm)
            return tr("<b>transformer.ln_f</b><br>LayerNorm(n_embd, %1, ε 1e-5) after the last block: a pre-norm block "
                      "ends on an un-normalised sum.")
                .arg(bias);
        return tr("<b>%1</b> (pre-norm)<br>LayerNorm(n_embd, %2, ε 1e-5) applied to x <i>before</i> the %3; the residual "
                  "goes around both.")
            .arg(mlp ? QStringLiteral("ln_2") : QStringLiteral("ln_1"), bias, mlp ? QStringLiteral("mlp") : QStringLiteral("attn"));
    case Role::Q:
        return tr("<b>attn</b> (CausalSelfAttention, %1 heads of hs %2)<br>q, k, v = c_attn(x).split(n_embd), c_attn "
                  "[3·n_embd, n_embd] (%3); (q @ kᵀ) · 1/√hs; masked_fill(bias == 0, −inf) with the causal buffer "
                  "bias (1 = keep); softmax; attn_dropout; @ v; c_proj (%3); resid_dropout.")
            .arg(c.n_heads)
            .arg(hs)
            .arg(bias);
    case Role::Residual:
        return mlp ? tr("<b>resid2</b><br>x = x + mlp(ln_2(x)): the block's output.")
                   : tr("<b>resid1</b><br>x = x + attn(ln_1(x)): the sum is not normalised (pre-norm).");
    case Role::FfnHidden:
        return tr("<b>mlp</b><br>c_fc (n_embd %1 → 4·n_embd %2), GELU (exact), c_proj (back to n_embd), dropout; Linear layers with %3.")
            .arg(c.d_model)
            .arg(c.d_ff)
            .arg(bias);
    case Role::Logits:
        return tr("<b>lm_head</b><br>nn.Linear(n_embd %1, vocab_size %2, bias=False) whose weight <b>is</b> "
                  "transformer.wte.weight (weight tying: one parameter, its gradient the sum of both uses).")
            .arg(c.d_model)
            .arg(c.tgt_vocab_size());
    case Role::Probs:
        return tr("<b>Softmax</b><br>Probabilities of the next word at every position (F.cross_entropy reads the logits).");
    default: return {};
    }
}

}  // namespace models::gpt
