// The inputs → output panels of a step of attention-is-all-you-need-pytorch's model ("architecture":
// "aiayn", seed 003), in its words: q divided by the temperature before q·kᵀ, masks 1 = keep filled
// with −1e9, w_qs / w_ks / w_vs / fc without bias, dropout before each add, the LayerNorm after the
// positional encoding, trg_word_prj sharing trg_word_emb, cal_loss.
#include <algorithm>
#include <cmath>

#include "steps/panel_text.h"
#include "steps/piece_builder.h"
#include "widgets/number_format.h"

using namespace stepformer;

namespace tensorviz {

using namespace panel;

namespace {

bool scaleEmb(const Config& c) { return c.trg_emb_prj_weight_sharing && c.scale_emb_or_prj == "emb"; }
bool scalePrj(const Config& c) { return c.trg_emb_prj_weight_sharing && c.scale_emb_or_prj == "prj"; }

}  // namespace

bool aiaynStepPieces(PieceBuilder& pb, const StepInfo& s, const QString& step, int H, int hh) {
    const Config& cfg = pb.cfg;
    const TraceEntry* e = s.entry;
    const auto in = [&](size_t i) { return e ? inputName(*e, i) : QString(); };
    const QString headTag = StepPanels::tr("  · head %1").arg(hh);
    const int D = cfg.d_model;
    const QString temperature = numfmt::fourDigits(std::sqrt(double(cfg.d_k)));
    const bool ffn = s.block.kind == BlockKind::FeedForward;
    QString& f = pb.out.formula;

    switch (s.role) {
    case Role::PadMask:
        pb.add(step, StepPanels::tr("src_mask (1 = keep)"));
        f = StepPanels::tr("<b>get_pad_mask(src_seq, pad_idx)</b> = (seq != pad_idx).unsqueeze(-2): <b>1 = keep</b> (a real "
                           "word), <b>0 = masked</b> (padding) — this project's convention, the opposite of the "
                           "tutorial's 1 = masked. One row, broadcast over every query; slf_attn and enc_attn both read it.");
        return true;
    case Role::CombinedMask:
        pb.add(step, StepPanels::tr("trg_mask (1 = keep)"));
        f = StepPanels::tr("<b>get_pad_mask(trg_seq, pad_idx) &amp; get_subsequent_mask(trg_seq)</b>: 1 - triu(ones, 1) keeps "
                           "the positions up to the query's own; <b>1 = keep</b>, <b>0 = masked</b> (padding or a later word), "
                           "the opposite of the tutorial's 1 = masked.");
        return true;
    case Role::Q:
    case Role::K:
    case Role::V: {
        const QString l = s.role == Role::Q ? QStringLiteral("q") : s.role == Role::K ? QStringLiteral("k") : QStringLiteral("v");
        pb.add(in(0), StepPanels::tr("input: %1").arg(leafName(in(0))));
        pb.op(StepPanels::tr("× w_%1sᵀ\n(no bias)\n→ head %2").arg(l).arg(hh));
        pb.add(step, l.toUpper() + headTag);
        f = StepPanels::tr("<b>%1</b> = w_%2s(%2).view(sz_b, len, n_head, d_%3).transpose(1, 2): nn.Linear(d_model, n_head·d_%3, "
                           "bias=False), cut into n_head = %n heads of d_%3 = %4 columns; shown: head %5.", nullptr, H)
                .arg(l.toUpper(), l, s.role == Role::V ? QStringLiteral("v") : QStringLiteral("k"))
                .arg(s.role == Role::V ? cfg.d_v : cfg.d_k)
                .arg(hh);
        if (s.block.kind == BlockKind::CrossAttention)
            f += s.role == Role::Q ? StepPanels::tr(" In <tt>enc_attn</tt> the query comes from the decoder.")
                                   : StepPanels::tr(" In <tt>enc_attn</tt> keys and values are the encoder's output.");
        return true;
    }
    case Role::ScaledQ:
        pb.add(in(0), QStringLiteral("q") + headTag);
        pb.op(StepPanels::tr("/ temperature\n(√d_k = %1)").arg(temperature));
        pb.add(step, StepPanels::tr("q / temperature") + headTag);
        f = StepPanels::tr("<b>q / self.temperature</b>, temperature = d_k ** 0.5 = √%1 = %2: ScaledDotProductAttention "
                           "scales the <i>query</i> before the product, not the scores after it. The same maths as "
                           "(q·kᵀ)/√d_k, rounded differently in the last bits.")
                .arg(cfg.d_k)
                .arg(temperature);
        return true;
    case Role::Scores:
        pb.add(in(0), StepPanels::tr("q / temperature") + headTag);
        pb.op(QStringLiteral("×"));
        pb.add(in(1), QString());
        pb.transposeLast(QStringLiteral("kᵀ") + headTag);
        pb.op(QStringLiteral("="));
        pb.add(step, StepPanels::tr("scores") + headTag);
        f = StepPanels::tr("<b>attn = torch.matmul(q / self.temperature, k.transpose(2, 3))</b>: the query was already "
                           "divided by √d_k = %1, so no second scale follows; each row is a query, each column a key.")
                .arg(temperature);
        return true;
    case Role::MaskedScores:
        pb.add(in(0), StepPanels::tr("scores") + headTag);
        pb.op(StepPanels::tr("masked_fill\n(mask == 0,\n−1e9)"));
        pb.add(in(1), StepPanels::tr("mask (1 = keep)"));
        pb.op(QStringLiteral("="));
        pb.add(step, StepPanels::tr("masked scores") + headTag);
        f = StepPanels::tr("<b>attn.masked_fill(mask == 0, -1e9)</b>: where the mask is <b>0</b> (this project's masks are "
                           "1 = keep) the score becomes −1e9, so the softmax gives that key (almost exactly) no weight.");
        return true;
    case Role::OutProjection:
        pb.mergedHeads(in(0), StepPanels::tr("context, all heads concatenated"));
        pb.op(StepPanels::tr("× fc.weightᵀ\n(no bias)\n="));
        pb.add(step, StepPanels::tr("fc (the attention's output)"));
        f = StepPanels::tr("<b>fc</b> = nn.Linear(n_head·d_v = %1, d_model = %2, bias=False): the heads side by side mixed "
                           "back to d_model; dropout follows (in training).")
                .arg(cfg.n_heads * cfg.d_v)
                .arg(D);
        return true;
    case Role::Residual:
        pb.add(in(0), StepPanels::tr("sub-layer output: %1").arg(leafName(in(0))));
        pb.op(QStringLiteral("dropout\n+"));
        pb.add(in(1), StepPanels::tr("residual: %1").arg(leafName(in(1))));
        pb.op(QStringLiteral("="));
        pb.add(step, leafName(step));
        f = StepPanels::tr("<b>x = dropout(%1(x)); x += residual</b>: dropout comes <i>before</i> the add (a no-op outside "
                           "training); the LayerNorm follows (post-norm).")
                .arg(ffn ? QStringLiteral("w_2") : QStringLiteral("fc"));
        return true;
    case Role::LayerNorm: {
        const bool before = s.block.kind == BlockKind::Input;
        pb.add(in(0), StepPanels::tr("input: %1").arg(leafName(in(0))));
        pb.op(QStringLiteral("LayerNorm\n(ε 1e-6)\n· γ + β"));
        pb.add(step, leafName(step));
        f = before ? StepPanels::tr("<b>%1.layer_norm</b> = nn.LayerNorm(d_model, eps=1e-6): applied once to the embeddings "
                                    "plus positions, <i>before</i> the first layer (nn.Transformer and the tutorial have none "
                                    "here); each row to mean 0, variance 1, then · γ + β (learned).")
                             .arg(s.decoder() ? QStringLiteral("decoder") : QStringLiteral("encoder"))
                   : StepPanels::tr("<b>self.layer_norm(x)</b>, nn.LayerNorm(d_model, eps=1e-6), after the residual add (post-norm): "
                                    "each row to mean 0, variance 1, then · γ + β (learned).");
        return true;
    }
    case Role::FfnHidden:
        pb.add(in(0), StepPanels::tr("input: %1").arg(leafName(in(0))));
        pb.op(QStringLiteral("× w_1.weightᵀ\n+ w_1.bias"));
        pb.add(step, QStringLiteral("w_1 (d_inner = %1)").arg(cfg.d_ff));
        f = StepPanels::tr("<b>w_1</b> = nn.Linear(d_model, d_inner) with bias: every position widened from %1 to %2.").arg(D).arg(cfg.d_ff);
        return true;
    case Role::FfnOut:
        pb.add(in(0), QStringLiteral("relu"));
        pb.op(QStringLiteral("× w_2.weightᵀ\n+ w_2.bias"));
        pb.add(step, QStringLiteral("w_2"));
        f = StepPanels::tr("<b>w_2</b> = nn.Linear(d_inner, d_model) with bias: back from %1 to %2 (dropout follows).").arg(cfg.d_ff).arg(D);
        return true;
    case Role::Embedding: {
        const QString mod = s.decoder() ? QStringLiteral("trg_word_emb") : QStringLiteral("src_word_emb");
        pb.add(step, scaleEmb(cfg) ? mod + QStringLiteral(" × √d_model") : mod);
        f = StepPanels::tr("<b>%1</b>(seq): each token id picks its row of nn.Embedding(n_vocab, d_model, padding_idx=0) "
                           "— the pad row gets no gradient. ")
                .arg(mod);
        f += scaleEmb(cfg) ? StepPanels::tr("scale_emb_or_prj = 'emb': then × d_model ** 0.5 = %1.").arg(numfmt::fourDigits(std::sqrt(double(D))))
                           : StepPanels::tr("No × √d_model here (scale_emb_or_prj is not 'emb' with the weights shared).");
        return true;
    }
    case Role::PositionalTable:
        pb.add(step, StepPanels::tr("pos_table (float64-made)"));
        f = StepPanels::tr("<b>position_enc.pos_table</b>: position / 10000<sup>2(j//2)/d</sup>, sin on even and cos on odd "
                           "columns, computed by NumPy in float64 and stored as float32 (n_position = %1 rows); a buffer, "
                           "never trained.")
                .arg(cfg.n_position);
        return true;
    case Role::PositionalAdd:
        pb.add(in(0), StepPanels::tr("word embedding"));
        pb.op(QStringLiteral("+"));
        pb.add(in(1), QStringLiteral("pos_table"));
        pb.op(QStringLiteral("= → dropout"));
        pb.add(step, StepPanels::tr("embedding + positions"));
        f = StepPanels::tr("<b>dropout(position_enc(emb))</b>: pos_table[:, :len] is added, then dropout (training only); "
                           "a LayerNorm follows before the first layer.");
        return true;
    case Role::Logits:
        pb.add(in(0), StepPanels::tr("decoder output: %1").arg(leafName(in(0))));
        pb.op(scalePrj(cfg) ? QStringLiteral("× trg_word_prj.weightᵀ\n× d_model^−0.5")
                            : StepPanels::tr("× trg_word_prj.weightᵀ\n(no bias)"));
        pb.add(step, QStringLiteral("logits"));
        // Whole sentences (scale_emb_or_prj = 'prj' only applies with the weights shared).
        if (scalePrj(cfg))
            f = StepPanels::tr("<b>trg_word_prj</b> = nn.Linear(d_model, n_trg_vocab, bias=False), its weight <b>shared</b> "
                               "with decoder.trg_word_emb (one parameter); scale_emb_or_prj = 'prj': logits × d_model ** "
                               "−0.5 = %1.")
                    .arg(numfmt::fourDigits(1.0 / std::sqrt(double(D))));
        else if (cfg.trg_emb_prj_weight_sharing)
            f = StepPanels::tr("<b>trg_word_prj</b> = nn.Linear(d_model, n_trg_vocab, bias=False), its weight <b>shared</b> "
                               "with decoder.trg_word_emb (one parameter).");
        else
            f = StepPanels::tr("<b>trg_word_prj</b> = nn.Linear(d_model, n_trg_vocab, bias=False), its own weight "
                               "(trg_emb_prj_weight_sharing off).");
        return true;
    case Role::LossPerToken:
        pb.add(in(0), QStringLiteral("logits"));
        pb.op(StepPanels::tr("label-smoothed\ncross-entropy\n→"));
        pb.add(step, StepPanels::tr("loss per position"));
        f = StepPanels::tr("<b>cal_loss</b>, smoothing on: the one-hot target becomes 1 − ε = 0.9 on the correct word "
                           "and ε/(n_class − 1) on each other; loss = −Σ target · log_softmax(logits). "
                           "Pad targets count 0.");
        return true;
    case Role::Loss:
        pb.add(in(0), StepPanels::tr("loss per position"));
        pb.op(StepPanels::tr("sum\n→"));
        pb.add(step, StepPanels::tr("loss"));
        f = StepPanels::tr("<b>loss = loss.masked_select(non_pad_mask).sum()</b>: cal_loss <i>sums</i> over the non-pad "
                           "targets (the tutorial's CrossEntropyLoss takes the mean).");
        return true;
    default:
        return false;  // softmax, context, ReLU, probs: as the tutorial's
    }
}

}  // namespace tensorviz
