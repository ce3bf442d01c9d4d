// The inputs → output panels of a step of PyTorch's layers ("architecture": "torch"): the same
// panels as the tutorial's steps, read from the trace graph, with PyTorch's words — the packed
// in_proj_weight, the biases, q scaled before q·kᵀ, the additive 0 / −∞ mask, linear1 / linear2,
// norm_first.
#include <algorithm>
#include <cmath>

#include "steps/panel_text.h"
#include "steps/piece_builder.h"
#include "widgets/number_format.h"
#include "stepformer/trace_graph.h"

using namespace stepformer;

namespace tensorviz {

using namespace panel;

namespace {

// Which rows of in_proj_weight (and entries of in_proj_bias) a projection takes: q | k | v.
QString packedRows(Role r, int D) {
    const int k = r == Role::Q ? 0 : r == Role::K ? 1 : 2;
    return QStringLiteral("%1:%2").arg(k * D).arg((k + 1) * D);
}

QString letter(Role r) { return r == Role::Q ? QStringLiteral("q") : r == Role::K ? QStringLiteral("k") : QStringLiteral("v"); }

}  // namespace

bool torchStepPieces(PieceBuilder& pb, const StepInfo& s, const QString& step, int H, int hh) {
    const Trace& tr = *pb.trp;
    const Config& cfg = pb.cfg;
    const TraceEntry* e = s.entry;
    const auto in = [&](size_t i) { return e ? inputName(*e, i) : QString(); };
    const QString headTag = StepPanels::tr("  · head %1").arg(hh);
    const int D = cfg.d_model, hd = std::max(1, cfg.d_model / std::max(1, cfg.n_heads));
    QString& f = pb.out.formula;
    const bool ffn = s.block.kind == BlockKind::FeedForward;

    switch (s.role) {
    case Role::Input:
        pb.add(step, StepPanels::tr("%1 (given)").arg(leafName(step)));
        f = StepPanels::tr("<b>%1</b>: the tensor handed to the layer's forward, shaped as PyTorch takes it "
                           "(%2); shown batch first, one row per position, d_model = %3 columns.")
                .arg(esc(step), cfg.batch_first ? StepPanels::tr("batch_first=True: [batch, seq, feature]")
                                                : StepPanels::tr("batch_first=False: [seq, batch, feature]"))
                .arg(D);
        return true;
    case Role::Q:
    case Role::K:
    case Role::V: {
        const QString l = letter(s.role), rows = packedRows(s.role, D);
        pb.add(in(0), StepPanels::tr("input: %1").arg(in(0)));
        pb.op(StepPanels::tr("× in_proj_weight[%1]ᵀ\n+ in_proj_bias[%1]\n→ head %2").arg(rows).arg(hh));
        pb.add(step, l.toUpper() + headTag);
        f = StepPanels::tr("<b>%1</b> = x · W<sub>%2</sub>ᵀ + b<sub>%2</sub>: nn.MultiheadAttention keeps W<sub>q</sub>, "
                           "W<sub>k</sub>, W<sub>v</sub> packed in one <tt>in_proj_weight</tt> [3·d_model, d_model]; "
                           "the %2 part is rows %3 (and <tt>in_proj_bias[%3]</tt>). The result is cut into nhead = %n heads "
                           "of head_dim = d_model / nhead = %4 columns; shown: head %5.", nullptr, H)
                .arg(l.toUpper(), l, rows)
                .arg(hd)
                .arg(hh);
        if (s.block.kind == BlockKind::CrossAttention)
            f += s.role == Role::Q ? StepPanels::tr(" In <tt>multihead_attn</tt> the query comes from the decoder.")
                                   : StepPanels::tr(" In <tt>multihead_attn</tt> keys and values come from the memory "
                                                    "(the encoder's output).");
        return true;
    }
    case Role::Scores:
        pb.add(in(0), QStringLiteral("q") + headTag);
        pb.op(QStringLiteral("/ √head_dim\n×"));
        pb.add(in(1), QString());
        pb.transposeLast(QStringLiteral("kᵀ") + headTag);
        pb.op(QStringLiteral("="));
        pb.add(step, StepPanels::tr("scores") + headTag);
        f = StepPanels::tr("<b>scores</b> = (q / √head_dim) @ kᵀ (head_dim = %1, √head_dim = %2): PyTorch scales "
                           "q first, then multiplies; each row is a query, each column a key.")
                .arg(hd)
                .arg(numfmt::fourDigits(std::sqrt(double(hd))));
        return true;
    case Role::AttnMask:
        pb.add(step, StepPanels::tr("mask (additive)") + headTag);
        f = StepPanels::tr("<b>The mask as added to the scores</b>, PyTorch's convention: <b>0</b> = may attend, "
                           "<b>−∞</b> = ignored (hatched). <tt>attn_mask</tt> (float, or bool turned into 0 / "
                           "−∞) and <tt>key_padding_mask</tt> (bool, <b>True = ignore</b> that key) are merged "
                           "into this one tensor per head.");
        if (s.block.kind == BlockKind::MaskedSelfAttention)
            f += StepPanels::tr(" Here: the causal tgt_mask (−∞ above the diagonal, as "
                                "<tt>generate_square_subsequent_mask</tt> makes it) and the target's padding.");
        else if (s.block.kind == BlockKind::CrossAttention)
            f += StepPanels::tr(" Here: memory_key_padding_mask, the source's padding.");
        else
            f += StepPanels::tr(" Here: src_key_padding_mask, the source's padding.");
        return true;
    case Role::MaskedScores:
        pb.add(in(0), StepPanels::tr("scores") + headTag);
        pb.op(QStringLiteral("+"));
        pb.add(in(1), StepPanels::tr("mask (0 / −∞)") + headTag);
        pb.op(QStringLiteral("="));
        pb.add(step, StepPanels::tr("scores + mask") + headTag);
        f = StepPanels::tr("<b>scores + attn_mask</b>: the additive mask is added, so an ignored key's score becomes "
                           "<b>−∞</b> (hatched) and the softmax gives it no weight.");
        return true;
    case Role::Softmax:
        pb.add(in(0), StepPanels::tr("scores + mask") + headTag);
        pb.op(StepPanels::tr("softmax\nover each\nrow →"));
        pb.add(step, StepPanels::tr("attn weights") + headTag);
        f = StepPanels::tr("<b>softmax(scores, dim=−1)</b>: each row becomes weights that sum to 1; exp(−∞) "
                           "= 0, so an ignored key gets exactly 0. A row whose every key is −∞ has nothing "
                           "to normalise: PyTorch 1.13 gives <b>NaN</b> there.");
        return true;
    case Role::Context:
        pb.add(in(0), StepPanels::tr("attn") + headTag);
        pb.op(QStringLiteral("×"));
        pb.add(in(1), QStringLiteral("v") + headTag);
        pb.op(QStringLiteral("="));
        pb.add(step, StepPanels::tr("attn @ v") + headTag);
        f = StepPanels::tr("<b>attn @ v</b>: each query's row is the attention-weighted mix of the value rows.");
        return true;
    case Role::OutProjection:
        pb.mergedHeads(in(0), StepPanels::tr("attn @ v, all heads concatenated"));
        pb.op(QStringLiteral("× out_proj.weightᵀ\n+ out_proj.bias\n="));
        pb.add(step, StepPanels::tr("out_proj (the attention's output)"));
        f = StepPanels::tr("<b>out_proj</b> = nn.Linear(d_model, d_model) with bias: the heads side by side "
                           "(nhead · head_dim = %1 columns) mixed back to d_model = %1.")
                .arg(D);
        return true;
    case Role::Residual: {
        // PyTorch adds the sub-layer's output to x: x + sublayer(x).
        pb.add(in(0), StepPanels::tr("x (residual): %1").arg(in(0)));
        pb.op(QStringLiteral("+"));
        pb.add(in(1), StepPanels::tr("sub-layer output: %1").arg(leafName(in(1))));
        pb.op(QStringLiteral("="));
        pb.add(step, leafName(step));
        const QString sub = ffn ? QStringLiteral("self._ff_block(...)")
                                : s.block.kind == BlockKind::CrossAttention ? QStringLiteral("self._mha_block(...)")
                                                                             : QStringLiteral("self._sa_block(...)");
        f = cfg.norm_first
                ? StepPanels::tr("<b>x = x + %1</b> (norm_first=True): the sub-layer read the normalised x, its output "
                                 "is added to x itself; no norm follows.").arg(sub)
                : StepPanels::tr("<b>x + %1</b> (norm_first=False): the sub-layer's output is added to its input; "
                                 "the LayerNorm comes next.").arg(sub);
        return true;
    }
    case Role::LayerNorm: {
        const bool final = s.block.kind == BlockKind::FinalNorm;
        pb.add(in(0), (final ? StepPanels::tr("last layer's output: %1") : StepPanels::tr("input: %1")).arg(leafName(in(0))));
        pb.op(StepPanels::tr("LayerNorm\n(each row)\n· γ + β"));
        pb.add(step, leafName(step));
        const QString what = StepPanels::tr("each row shifted to mean 0 and scaled to variance 1 (ε = %1), then "
                                            "· weight + bias (learned)")
                                 .arg(numfmt::exact(cfg.layer_norm_eps));
        if (final)
            f = StepPanels::tr("<b>%1.norm</b> = nn.LayerNorm(d_model): nn.Transformer's final norm after the last layer "
                               "of the stack; %2.")
                    .arg(s.decoder() ? QStringLiteral("decoder") : QStringLiteral("encoder"), what);
        else if (cfg.norm_first)
            f = StepPanels::tr("<b>%1(x)</b> (norm_first=True, pre-norm): the sub-layer reads the normalised x; %2. The "
                               "residual adds the sub-layer's output to x itself.").arg(esc(leafName(step)), what);
        else
            f = StepPanels::tr("<b>%1(x + sublayer(x))</b> (norm_first=False, post-norm): %2.").arg(esc(leafName(step)), what);
        return true;
    }
    case Role::FfnHidden:
        pb.add(in(0), StepPanels::tr("input: %1").arg(leafName(in(0))));
        pb.op(QStringLiteral("× linear1.weightᵀ\n+ linear1.bias"));
        pb.add(step, QStringLiteral("linear1 (dim_feedforward = %1)").arg(cfg.d_ff));
        f = StepPanels::tr("<b>linear1</b> = nn.Linear(d_model, dim_feedforward) with bias: every position widened from "
                           "%1 to %2 features.").arg(D).arg(cfg.d_ff);
        return true;
    case Role::Relu:
        pb.add(in(0), QStringLiteral("linear1"));
        pb.op(QStringLiteral("ReLU\nmax(0, ·)"));
        pb.add(step, StepPanels::tr("activation"));
        f = StepPanels::tr("<b>activation = F.relu</b>: negative numbers become 0, positive ones stay.");
        return true;
    case Role::Gelu:
        pb.add(in(0), QStringLiteral("linear1"));
        pb.op(QStringLiteral("GELU\nx·Φ(x)"));
        pb.add(step, StepPanels::tr("activation"));
        f = StepPanels::tr("<b>activation = F.gelu</b> (activation=\"gelu\"): x · Φ(x) = x/2 · (1 + erf(x/√2)); "
                           "large positive numbers pass, large negative ones go to 0, small negative ones dip a little below 0.");
        return true;
    case Role::FfnOut:
        pb.add(in(0), StepPanels::tr("activation"));
        pb.op(QStringLiteral("× linear2.weightᵀ\n+ linear2.bias"));
        pb.add(step, QStringLiteral("linear2"));
        f = StepPanels::tr("<b>linear2</b> = nn.Linear(dim_feedforward, d_model) with bias: back from %1 to %2 features "
                           "(dropout follows in training).").arg(cfg.d_ff).arg(D);
        return true;
    case Role::Embedding:
        pb.add(step, StepPanels::tr("embedding × √d_model"));
        f = StepPanels::tr("<b>%1</b>(tokens) = embedding(tokens) · √d_model (√%2 = %3): each token id picks "
                           "its row of <tt>%1.embedding.weight</tt>, scaled as the translation tutorial's TokenEmbedding does.")
                .arg(s.decoder() ? QStringLiteral("tgt_tok_emb") : QStringLiteral("src_tok_emb"))
                .arg(D)
                .arg(numfmt::fourDigits(std::sqrt(double(D))));
        return true;
    case Role::PositionalTable:
        pb.add(step, StepPanels::tr("pos_embedding (fixed)"));
        f = StepPanels::tr("<b>positional_encoding.pos_embedding</b>: sin in even columns, cos in odd ones, "
                           "pos / 10000<sup>2i/d_model</sup>; a buffer, recomputed, never trained.");
        return true;
    case Role::PositionalAdd:
        pb.add(in(0), StepPanels::tr("token embedding"));
        pb.op(QStringLiteral("+"));
        pb.add(in(1), QStringLiteral("pos_embedding"));
        pb.op(QStringLiteral("="));
        pb.add(step, StepPanels::tr("embedding + positions"));
        f = StepPanels::tr("<b>dropout(token_embedding + pos_embedding[:len])</b>: the positions are added (dropout in "
                           "training only); this is what the first layer reads.");
        return true;
    case Role::Logits:
        pb.add(in(0), StepPanels::tr("decoder output: %1").arg(leafName(in(0))));
        pb.op(QStringLiteral("× generator.weightᵀ\n+ generator.bias"));
        pb.add(step, QStringLiteral("logits"));
        f = StepPanels::tr("<b>generator</b> = nn.Linear(d_model, tgt_vocab_size) with bias: one score per target word "
                           "for every position.");
        return true;
    default:
        (void)tr;
        return false;  // softmax over the vocabulary, the loss: as the tutorial's
    }
}

}  // namespace tensorviz
