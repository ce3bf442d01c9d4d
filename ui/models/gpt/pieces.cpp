// The inputs → output panels of a step of nanoGPT's GPT ("architecture": "gpt"), in its words:
// tok_emb + pos_emb (a learned wpe, no √n_embd), the packed c_attn split into q, k, v, the
// product scaled after it ((q @ kᵀ) · 1/√hs), the buffer `bias` (1 = keep) filling −inf, pre-norm
// blocks (x + attn(ln_1(x))), the MLP c_fc → GELU → c_proj, lm_head tied to wte, F.cross_entropy.
#include <algorithm>
#include <cmath>

#include "steps/panel_text.h"
#include "steps/piece_builder.h"
#include "widgets/number_format.h"

using namespace stepformer;

namespace tensorviz {

using namespace panel;

namespace {

QString letter(Role r) { return r == Role::Q ? QStringLiteral("q") : r == Role::K ? QStringLiteral("k") : QStringLiteral("v"); }

// ", bias=False" where the configuration has no biases (nn.Linear's default is with).
QString biasArg(const Config& c) { return c.bias ? QString() : QStringLiteral(", bias=False"); }

}  // namespace

bool gptStepPieces(PieceBuilder& pb, const StepInfo& s, const QString& step, int H, int hh) {
    const Config& cfg = pb.cfg;
    const TraceEntry* e = s.entry;
    const auto in = [&](size_t i) { return e ? inputName(*e, i) : QString(); };
    const QString headTag = StepPanels::tr("  · head %1").arg(hh);
    const int C = cfg.d_model, hs = cfg.d_model / std::max(1, cfg.n_heads);
    const bool mlp = s.block.kind == BlockKind::FeedForward;
    const int pad = cfg.tgt_id(cfg.pad);
    QString& f = pb.out.formula;

    switch (s.role) {
    case Role::Embedding:
        pb.add(step, StepPanels::tr("tok_emb = wte(idx)"));
        f = StepPanels::tr("<b>tok_emb = self.transformer.wte(idx)</b>: each token id picks its row of wte.weight "
                           "[vocab_size %1 × n_embd %2], with no × √n_embd. The same matrix is lm_head.weight (weight "
                           "tying), so both uses train it.")
                .arg(cfg.tgt_vocab_size())
                .arg(C);
        return true;
    case Role::PositionalTable:
        pb.add(step, StepPanels::tr("pos_emb = wpe(pos)"));
        f = StepPanels::tr("<b>pos_emb = self.transformer.wpe(pos)</b>, pos = torch.arange(0, t): the first t rows of the "
                           "<i>learned</i> table wpe.weight [block_size %1 × n_embd %2] — a parameter trained like any "
                           "other, not a sinusoid. One row per position, shared by every sentence of the batch.")
                .arg(cfg.block_size)
                .arg(C);
        return true;
    case Role::PositionalAdd:
        pb.add(in(0), QStringLiteral("tok_emb"));
        pb.op(QStringLiteral("+"));
        pb.add(in(1), QStringLiteral("pos_emb"));
        pb.op(QStringLiteral("= → drop"));
        pb.add(step, StepPanels::tr("x (block 0's input)"));
        f = StepPanels::tr("<b>x = self.transformer.drop(tok_emb + pos_emb)</b>: pos_emb [t, n_embd] is broadcast over the "
                           "batch; dropout (p = %1) acts in training only. Block 0 reads this x.")
                .arg(numfmt::exact(cfg.dropout));
        return true;
    case Role::SubsequenceMask:
        pb.add(step, StepPanels::tr("bias[:, :, :T, :T] (1 = keep)"));
        f = StepPanels::tr("<b>self.bias</b> = torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, "
                           "block_size): a buffer of CausalSelfAttention (saved, never trained), ones on and below the "
                           "diagonal — <b>1 = may attend</b>, 0 = a later position. Each forward reads its top-left T × T "
                           "corner. There is no padding mask: pad words sit at the end, after every real word, so no "
                           "real query sees them.");
        return true;
    case Role::Q:
    case Role::K:
    case Role::V: {
        const int third = s.role == Role::Q ? 0 : s.role == Role::K ? 1 : 2;
        const QString l = letter(s.role), rows = QStringLiteral("%1:%2").arg(third * C).arg((third + 1) * C);
        pb.add(in(0), StepPanels::tr("input: %1").arg(leafName(in(0))));
        pb.op(cfg.bias ? StepPanels::tr("× c_attn.weight[%1]ᵀ\n+ c_attn.bias[%1]\n→ head %2").arg(rows).arg(hh)
                       : StepPanels::tr("× c_attn.weight[%1]ᵀ\n→ head %2").arg(rows).arg(hh));
        pb.add(step, l + headTag);
        f = StepPanels::tr("<b>q, k, v = self.c_attn(x).split(n_embd, dim=2)</b>: c_attn = nn.Linear(n_embd, 3·n_embd%1) "
                           "packs the three projections, its weight [%2, %3] rows q | k | v; %4 is rows %5. Then "
                           ".view(B, T, n_head, C // n_head).transpose(1, 2) cuts it into n_head = %n heads of hs = %6 "
                           "columns; shown: head %7.",
                           nullptr, H)
                .arg(biasArg(cfg))
                .arg(3 * C)
                .arg(C)
                .arg(l, rows)
                .arg(hs)
                .arg(hh);
        return true;
    }
    case Role::Scores: {
        const QString scale = numfmt::fourDigits(1.0 / std::sqrt(double(std::max(hs, 1))));
        pb.add(in(0), QStringLiteral("q") + headTag);
        pb.op(QStringLiteral("@"));
        pb.add(in(1), QString());
        pb.transposeLast(QStringLiteral("kᵀ") + headTag);
        pb.op(StepPanels::tr("× 1/√hs\n(%1)\n=").arg(scale));
        pb.add(step, StepPanels::tr("att (scores)") + headTag);
        f = StepPanels::tr("<b>att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))</b>: the product first, then "
                           "× 1/√hs = 1/√%1 = %2 — a multiplication after the product, not a division of q before it. "
                           "Each row is a query, each column a key.")
                .arg(hs)
                .arg(scale);
        return true;
    }
    case Role::MaskedScores:
        pb.add(in(0), StepPanels::tr("att (scores)") + headTag);
        pb.op(StepPanels::tr("masked_fill\n(bias == 0,\n−inf)"));
        pb.add(in(1), StepPanels::tr("bias (1 = keep)"));
        pb.op(QStringLiteral("="));
        pb.add(step, StepPanels::tr("masked att") + headTag);
        f = StepPanels::tr("<b>att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))</b>: where the buffer is "
                           "0 (a key after the query) the score becomes <b>−∞</b>, so the softmax gives it exactly 0. The "
                           "diagonal is always kept, so no row is −∞ everywhere.");
        return true;
    case Role::Softmax:
        pb.add(in(0), StepPanels::tr("masked att") + headTag);
        pb.op(StepPanels::tr("softmax\nover each\nrow →"));
        pb.add(step, StepPanels::tr("att (weights)") + headTag);
        f = StepPanels::tr("<b>att = F.softmax(att, dim=-1); att = self.attn_dropout(att)</b>: each row becomes weights that "
                           "sum to 1, and exp(−∞) = 0 gives every later word exactly 0. attn_dropout (p = %1) acts in "
                           "training only.")
                .arg(numfmt::exact(cfg.dropout));
        return true;
    case Role::Context:
        pb.add(in(0), StepPanels::tr("att (weights)") + headTag);
        pb.op(QStringLiteral("@"));
        pb.add(in(1), QStringLiteral("v") + headTag);
        pb.op(QStringLiteral("="));
        pb.add(step, QStringLiteral("y") + headTag);
        f = StepPanels::tr("<b>y = att @ v</b>: each query's row is the attention-weighted mix of the value rows of its own "
                           "and the earlier positions.");
        return true;
    case Role::OutProjection:
        pb.mergedHeads(in(0), StepPanels::tr("y, all heads side by side"));
        pb.op(cfg.bias ? QStringLiteral("× c_proj.weightᵀ\n+ c_proj.bias\n=") : QStringLiteral("× c_proj.weightᵀ\n="));
        pb.add(step, StepPanels::tr("attn.c_proj (the attention's output)"));
        f = StepPanels::tr("<b>y = y.transpose(1, 2).contiguous().view(B, T, C)</b>, then <b>self.resid_dropout(self.c_proj(y))"
                           "</b>: the heads side by side (n_head · hs = %1 columns) mixed by c_proj = nn.Linear(n_embd, "
                           "n_embd%2); resid_dropout acts in training only.")
                .arg(C)
                .arg(biasArg(cfg));
        return true;
    case Role::Residual:
        // nanoGPT adds the sub-layer's output to x itself: x + sublayer(ln(x)).
        pb.add(in(0), StepPanels::tr("x (residual): %1").arg(leafName(in(0))));
        pb.op(QStringLiteral("+"));
        pb.add(in(1), StepPanels::tr("sub-layer output: %1").arg(leafName(in(1))));
        pb.op(QStringLiteral("="));
        pb.add(step, leafName(step));
        f = mlp ? StepPanels::tr("<b>x = x + self.mlp(self.ln_2(x))</b>: the MLP read the normalised x; its output is added to "
                                 "x itself (pre-norm). The next block's ln_1, or ln_f after the last block, reads this sum.")
                : StepPanels::tr("<b>x = x + self.attn(self.ln_1(x))</b>: the attention read the normalised x; its output is "
                                 "added to x itself (pre-norm), nothing normalises the sum here. ln_2 reads it next.");
        return true;
    case Role::LayerNorm: {
        const bool final = s.block.kind == BlockKind::FinalNorm;
        pb.add(in(0), (final ? StepPanels::tr("last block's output: %1") : StepPanels::tr("input: %1")).arg(leafName(in(0))));
        pb.op(cfg.bias ? QStringLiteral("LayerNorm\n(ε 1e-5)\n· weight + bias") : QStringLiteral("LayerNorm\n(ε 1e-5)\n· weight"));
        pb.add(step, final ? QStringLiteral("ln_f") : leafName(step));  // ln_f's leaf is just "out"
        const QString what = cfg.bias ? StepPanels::tr("each row to mean 0 and variance 1 (ε = 1e-5), then · weight + bias "
                                                       "(learned)")
                                      : StepPanels::tr("each row to mean 0 and variance 1 (ε = 1e-5), then · weight "
                                                       "(learned; bias=False: no bias)");
        if (final)
            f = StepPanels::tr("<b>x = self.transformer.ln_f(x)</b>: one more LayerNorm after the last block, since a pre-norm "
                               "block ends on an un-normalised sum; %1. lm_head reads it.")
                    .arg(what);
        else
            f = StepPanels::tr("<b>self.%1(x)</b>, nanoGPT's LayerNorm(n_embd, bias=%2): %3. Pre-norm: the %4 reads this, "
                               "while the residual adds the %4's output to x itself.")
                    .arg(mlp ? QStringLiteral("ln_2") : QStringLiteral("ln_1"), cfg.bias ? QStringLiteral("True") : QStringLiteral("False"),
                         what, mlp ? QStringLiteral("mlp") : QStringLiteral("attn"));
        return true;
    }
    case Role::FfnHidden:
        pb.add(in(0), StepPanels::tr("input: %1").arg(leafName(in(0))));
        pb.op(cfg.bias ? QStringLiteral("× c_fc.weightᵀ\n+ c_fc.bias") : QStringLiteral("× c_fc.weightᵀ"));
        pb.add(step, QStringLiteral("c_fc (4·n_embd = %1)").arg(cfg.d_ff));
        f = StepPanels::tr("<b>x = self.c_fc(x)</b>, nn.Linear(n_embd, 4 * n_embd%1): every position widened from %2 to %3 "
                           "features.")
                .arg(biasArg(cfg))
                .arg(C)
                .arg(cfg.d_ff);
        return true;
    case Role::Gelu:
        pb.add(in(0), QStringLiteral("c_fc"));
        pb.op(QStringLiteral("GELU\nx·Φ(x)"));
        pb.add(step, QStringLiteral("gelu"));
        f = StepPanels::tr("<b>x = self.gelu(x)</b>, nn.GELU(): the exact x · Φ(x) = x/2 · (1 + erf(x/√2)), not the tanh "
                           "approximation. Large positive numbers pass, large negative ones go to 0, small negative ones "
                           "dip a little below 0.");
        return true;
    case Role::FfnOut:
        pb.add(in(0), QStringLiteral("gelu"));
        pb.op(cfg.bias ? QStringLiteral("× c_proj.weightᵀ\n+ c_proj.bias") : QStringLiteral("× c_proj.weightᵀ"));
        pb.add(step, QStringLiteral("mlp.c_proj"));
        f = StepPanels::tr("<b>x = self.dropout(self.c_proj(x))</b>, c_proj = nn.Linear(4 * n_embd, n_embd%1): back from %2 "
                           "to %3 features; dropout acts in training only.")
                .arg(biasArg(cfg))
                .arg(cfg.d_ff)
                .arg(C);
        return true;
    case Role::Logits:
        pb.add(in(0), StepPanels::tr("ln_f's output"));
        pb.op(StepPanels::tr("× wte.weightᵀ\n(no bias)"));
        pb.add(step, QStringLiteral("logits"));
        f = StepPanels::tr("<b>logits = self.lm_head(x)</b>, nn.Linear(n_embd, vocab_size, bias=False) whose weight <b>is</b> "
                           "transformer.wte.weight (self.transformer.wte.weight = self.lm_head.weight): each position's "
                           "vector is compared with every word's embedding row, one score for each of the %1 words.")
                .arg(cfg.tgt_vocab_size());
        return true;
    case Role::Probs:
        pb.add(in(0), QStringLiteral("logits"));
        pb.op(StepPanels::tr("softmax\nover each\nrow →"));
        pb.add(step, StepPanels::tr("probs"));
        f = StepPanels::tr("<b>probs = F.softmax(logits, dim=-1)</b>: for every position, the probability of each word being "
                           "the next one. Training reads the logits (F.cross_entropy); generate() takes this softmax at the "
                           "last position to pick the next word.");
        return true;
    case Role::LossPerToken:
        pb.add(in(0), StepPanels::tr("probs"));
        pb.op(StepPanels::tr("−log P(next word)\n→"));
        pb.add(step, StepPanels::tr("loss per position"));
        f = StepPanels::tr("<b>F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=%1)</b>, "
                           "position by position: −log of the probability given to the target, the next word of the "
                           "sentence (idx shifted by one); a pad target (id %1) counts 0.")
                .arg(pad);
        return true;
    case Role::Loss:
        pb.add(in(0), StepPanels::tr("loss per position"));
        pb.op(StepPanels::tr("mean\n→"));
        pb.add(step, StepPanels::tr("loss"));
        f = StepPanels::tr("<b>loss</b>: F.cross_entropy's mean over every non-pad target of the batch (ignore_index=%1).")
                .arg(pad);
        return true;
    default:
        return false;  // the gradients: as the tutorial's
    }
}

}  // namespace tensorviz
