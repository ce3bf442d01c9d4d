// The inputs → output panels of a step (TensorView's "how it was computed" row): which panels
// come from the step's role and its inputs in the trace graph; the words from the tutorial.
#include <algorithm>
#include <cmath>

#include "steps/panel_text.h"
#include "steps/piece_builder.h"
#include "steps/step_panels.h"

#include "models/model_registry.h"
#include "widgets/number_format.h"
#include "stepformer/trace_graph.h"

using namespace stepformer;

namespace tensorviz {

using namespace panel;

PanelSpec* PieceBuilder::add(const QString& name, const QString& title) {
    Piece pc;
    pc.panel = panelFor(trp, cfg, name, b, h, title);
    out.anyHead = out.anyHead || pc.panel.hasHead;
    out.pieces.push_back(std::move(pc));
    return &out.pieces.back().panel;
}

void PieceBuilder::op(const QString& text) {
    Piece pc;
    pc.isOp = true;
    pc.op = text;
    out.pieces.push_back(std::move(pc));
}

void PieceBuilder::transposeLast(const QString& title) {
    PanelSpec& p = out.pieces.back().panel;
    p.m = transposed(p.m);
    p.transposed = !p.transposed;
    p.title = title;
    auto inner = p.tooltip;
    if (inner) p.tooltip = [inner](int r, int c) { return inner(c, r); };
}

void PieceBuilder::mergedHeads(const QString& name, const QString& title) {
    Piece pc;
    pc.panel = panelFor(trp, cfg, name, b, 0, title);
    if (pc.panel.present) {
        if (const TraceEntry* ce = trp->find(name.toStdString())) pc.panel.m = sliceMergedHeads(*trp, *ce, b, &cfg);
        pc.panel.hasHead = false;
        pc.panel.tooltip = nullptr;
    }
    out.pieces.push_back(std::move(pc));
}

namespace {

QString letterOf(Role r) { return r == Role::Q ? QStringLiteral("Q") : r == Role::K ? QStringLiteral("K") : QStringLiteral("V"); }

// Whether a mask entry is the one the decoder–encoder attention reads (queries from the target,
// keys from the source).
bool masksCrossAttention(const Trace& tr, const TraceEntry& mask) {
    for (const Block& b : graph::blocks_masked_by(tr, mask.name))
        if (b.kind == BlockKind::CrossAttention) return true;
    return false;
}

}  // namespace

StepPieces stepPieces(const TracePtr& trp, const Config& cfg, const QString& step, int b, int h) {
    StepPieces out;
    if (!trp) return out;
    const Trace& tr = *trp;
    const StepInfo s = stepInfo(tr, step);
    const TraceEntry* e = s.entry;
    int H = 1;
    for (Role probe : {Role::Q, Role::Softmax})
        if (const TraceEntry* q = s.isAttention() ? roleEntry(tr, s.block, probe) : nullptr) H = std::max(H, headCount(*q));
    if (e) H = std::max(H, headCount(*e));
    const int hh = std::clamp(h, 0, H - 1);
    const QString headTag = StepPanels::tr("  · head %1").arg(hh);
    const auto in = [&](size_t i) { return e ? inputName(*e, i) : QString(); };

    PieceBuilder pb{trp, cfg, b, h, out};
    const auto add = [&](const QString& name, const QString& title) { return pb.add(name, title); };
    const auto op = [&](const QString& text) { pb.op(text); };
    const auto transposeLast = [&](const QString& title) { pb.transposeLast(title); };

    if (s.isGrad) {
        const QString leaf = leafName(s.base);
        if (s.forward) {
            add(s.base, StepPanels::tr("the tensor: %1").arg(shortLeafTitle(tr, s.base)));
            op(StepPanels::tr("backward\n→"));
        }
        add(step, StepPanels::tr("its gradient: ∂loss/∂%1").arg(leaf));
        out.formula = StepPanels::tr("<b>∂loss/∂%1</b>: for every number of <tt>%2</tt>, how fast the loss changes when "
                                     "that number changes (computed by the backward pass). Red: increasing it raises the loss; "
                                     "blue: increasing it lowers the loss.")
                          .arg(esc(leaf), esc(s.base));
        return out;
    }
    if (!e) {
        add(step, shortLeafTitle(tr, step));
        return out;
    }

    // The model's own lines where it has them (models/model_registry.h); the trace says which
    // model it is (the loss block carries no model's names).
    if (const auto own = models::presentation(models::namingOf(tr)).stepPieces; own && own(pb, s, step, H, hh)) {
        if (out.pieces.empty()) add(step, shortLeafTitle(tr, step));
        return out;
    }

    const bool ffn = s.block.kind == BlockKind::FeedForward;
    switch (s.role) {
    case Role::Q:
    case Role::K:
    case Role::V: {
        const QString L = letterOf(s.role), x = in(0);
        add(x, StepPanels::tr("input: %1").arg(x));
        op(StepPanels::tr("× W_%1ᵀ\n→ head %2").arg(L).arg(hh));
        add(step, L + headTag);
        out.formula = StepPanels::tr("<b>%1</b> = W_%1(input).view(batch, −1, n_heads, d_%2).transpose(1, 2): the input "
                                     "times W_%1ᵀ, cut into %n heads of %3 columns; shown: head %4.", nullptr, H)
                          .arg(L, s.role == Role::V ? QStringLiteral("v") : QStringLiteral("k"))
                          .arg(s.role == Role::V ? cfg.d_v : cfg.d_k)
                          .arg(hh);
        if (s.block.kind == BlockKind::CrossAttention)
            out.formula += s.role == Role::Q ? StepPanels::tr(" The queries come from the decoder.")
                                             : StepPanels::tr(" Keys and values come from the encoder's output.");
        break;
    }
    case Role::Scores: {
        const int dk = cfg.d_k;
        add(in(0), QStringLiteral("Q") + headTag);
        op(QStringLiteral("×"));
        add(in(1), QString());
        transposeLast(QStringLiteral("Kᵀ") + headTag);
        op(QStringLiteral("/ √d_k\n="));
        add(step, StepPanels::tr("scores = QKᵀ/√d_k") + headTag);
        out.formula = StepPanels::tr("<b>scores</b> = torch.matmul(Q, K.transpose(−1, −2)) / np.sqrt(d_k) "
                                     "(d_k = %1, √d_k = %2): how well each query (row) matches each key (column).")
                          .arg(dk)
                          .arg(numfmt::fourDigits(std::sqrt(double(std::max(dk, 1)))));
        break;
    }
    case Role::MaskedScores:
        add(in(0), StepPanels::tr("scores") + headTag);
        op(StepPanels::tr("masked_fill_\nusing"));
        add(in(1), StepPanels::tr("mask: %1").arg(in(1)));
        op(QStringLiteral("1 → −1e9\n="));
        add(step, StepPanels::tr("masked scores") + headTag);
        out.formula = StepPanels::tr("<b>scores.masked_fill_(attn_mask, −1e9)</b>: wherever the mask is 1 the score "
                                     "becomes −1e9 (hatched), so the softmax will give it no weight.");
        break;
    case Role::Softmax:
        add(in(0), StepPanels::tr("masked scores") + headTag);
        op(StepPanels::tr("softmax\nover each\nrow →"));
        add(step, StepPanels::tr("attn") + headTag);
        out.formula = StepPanels::tr("<b>attn</b> = nn.Softmax(dim=−1)(scores): each row becomes weights that sum to 1; "
                                     "the −1e9 cells become exactly 0.");
        break;
    case Role::Context:
        add(in(0), StepPanels::tr("attn") + headTag);
        op(QStringLiteral("×"));
        add(in(1), QStringLiteral("V") + headTag);
        op(QStringLiteral("="));
        add(step, StepPanels::tr("context") + headTag);
        out.formula = StepPanels::tr("<b>context</b> = torch.matmul(attn, V): each query's row is the attention-weighted "
                                     "mix of the value rows.");
        break;
    case Role::OutProjection: {
        pb.mergedHeads(in(0), StepPanels::tr("context, all heads concatenated"));
        op(QStringLiteral("× fcᵀ\n="));
        add(step, StepPanels::tr("fc_out (the block's output before the residual)"));
        out.formula = StepPanels::tr("<b>output</b> = self.fc(context.transpose(1, 2).reshape(batch, −1, n_heads·d_v)): "
                                     "the heads side by side, mixed back to d_model = %1 columns.")
                          .arg(cfg.d_model);
        break;
    }
    case Role::Residual:
        add(in(0), QStringLiteral("fc_out"));
        op(QStringLiteral("+"));
        add(in(1), StepPanels::tr("input (residual): %1").arg(in(1)));
        op(QStringLiteral("="));
        add(step, StepPanels::tr("output + residual"));
        out.formula = ffn ? StepPanels::tr("<b>output + residual</b>: the feed-forward input is added back to its output.")
                          : StepPanels::tr("<b>output + residual</b>: the block's input is added back to its output (residual "
                                           "connection), feature by feature.");
        break;
    case Role::LayerNorm:
        add(in(0), StepPanels::tr("output + residual"));
        op(StepPanels::tr("LayerNorm\n(each row)"));
        add(step, StepPanels::tr("out = LayerNorm(output + residual)"));
        out.formula = (ffn ? StepPanels::tr("<b>nn.LayerNorm(d_model)(output + residual)</b>: each row to mean 0, variance 1%1. "
                                            "This is the layer's output.")
                           : StepPanels::tr("<b>nn.LayerNorm(d_model)(output + residual)</b>: each row is shifted to mean 0 "
                                            "and scaled to variance 1%1."))
                          .arg(layerNormAffineText(cfg));
        break;
    case Role::FfnHidden:
        add(in(0), StepPanels::tr("input: %1").arg(in(0)));
        op(QStringLiteral("× fc[0]ᵀ\n="));
        add(step, StepPanels::tr("hidden (d_ff = %1)").arg(cfg.d_ff));
        out.formula = StepPanels::tr("<b>fc[0]</b> = nn.Linear(d_model, d_ff, bias=False): every position is widened from "
                                     "%1 to %2 features.").arg(cfg.d_model).arg(cfg.d_ff);
        break;
    case Role::Relu:
        add(in(0), StepPanels::tr("hidden"));
        op(QStringLiteral("ReLU\nmax(0, ·)"));
        add(step, QStringLiteral("relu"));
        out.formula = StepPanels::tr("<b>nn.ReLU()</b>: negative numbers become 0, positive ones stay.");
        break;
    case Role::FfnOut:
        add(in(0), QStringLiteral("relu"));
        op(QStringLiteral("× fc[2]ᵀ\n="));
        add(step, QStringLiteral("fc_out"));
        out.formula = StepPanels::tr("<b>fc[2]</b> = nn.Linear(d_ff, d_model, bias=False): back from %1 to %2 features.")
                          .arg(cfg.d_ff).arg(cfg.d_model);
        break;
    case Role::Embedding:
        add(step, StepPanels::tr("embedding of each token"));
        out.formula = StepPanels::tr("<b>%1</b>(%2): each token id picks its row of the embedding table (vocabulary × d_model = %3).")
                          .arg(s.decoder() ? QStringLiteral("tgt_emb") : QStringLiteral("src_emb"),
                               s.decoder() ? QStringLiteral("dec_inputs") : QStringLiteral("enc_inputs"))
                          .arg(cfg.d_model);
        break;
    case Role::PositionalTable:
        add(step, StepPanels::tr("positional encoding table PE"));
        out.formula = StepPanels::tr("PE(pos, 2i) = sin(pos / 10000<sup>2i/d_model</sup>),  PE(pos, 2i+1) = cos(pos / "
                                     "10000<sup>2i/d_model</sup>): one row per position.");
        break;
    case Role::PositionalAdd:
        add(in(0), StepPanels::tr("embedding"));
        op(QStringLiteral("+"));
        add(in(1), StepPanels::tr("PE (positions)"));
        op(QStringLiteral("="));
        add(step, StepPanels::tr("embedding + PE"));
        out.formula = StepPanels::tr("<b>x + self.pe[:x.size(0), :]</b>: the position table is added to the embeddings "
                                     "(then dropout, in training only).");
        break;
    case Role::CombinedMask:
        add(in(0), StepPanels::tr("pad mask"));
        op(StepPanels::tr("OR"));
        add(in(1), StepPanels::tr("subsequence mask"));
        op(QStringLiteral("="));
        add(step, StepPanels::tr("decoder self-attention mask"));
        out.formula = StepPanels::tr("<b>torch.gt(pad_mask + subsequence_mask, 0)</b>: a key is hidden from a query if it is "
                                     "padding <i>or</i> a later word.");
        break;
    case Role::SubsequenceMask:
    case Role::PadMask:
        add(step, step);
        if (s.role == Role::SubsequenceMask)
            out.formula = StepPanels::tr("<b>get_attn_subsequence_mask</b>: np.triu(ones, k=1) — 1 above the diagonal: "
                                         "while predicting, a word may not look at the words after it.");
        else if (masksCrossAttention(tr, *e))
            out.formula = StepPanels::tr("<b>get_attn_pad_mask(dec_inputs, enc_inputs)</b>: queries from the decoder, keys from "
                                         "the source; 1 where the source word is the padding 'P'.");
        else
            out.formula = StepPanels::tr("<b>get_attn_pad_mask</b>: seq_k.eq(0) — 1 where the key is the padding 'P' "
                                         "(expanded over every query row).");
        break;
    case Role::Logits:
        add(in(0), StepPanels::tr("decoder output: %1").arg(in(0)));
        op(QStringLiteral("× Wᵀ\n="));
        add(step, QStringLiteral("logits"));
        out.formula = StepPanels::tr("<b>self.projection</b> = nn.Linear(d_model, tgt_vocab_size, bias=False): one score per "
                                     "target word for every position.");
        break;
    case Role::Probs:
        add(in(0), QStringLiteral("logits"));
        op(StepPanels::tr("softmax\nover each\nrow →"));
        add(step, StepPanels::tr("probs"));
        out.formula = StepPanels::tr("<b>softmax(logits)</b>: for every position, the probability of each target word being "
                                     "the next one.");
        break;
    case Role::LossPerToken:
        add(in(0), StepPanels::tr("probs"));
        op(StepPanels::tr("−log P(correct)\n→"));
        add(step, StepPanels::tr("loss per position"));
        out.formula = StepPanels::tr("<b>nn.CrossEntropyLoss(ignore_index=0)</b>, position by position: −log of the "
                                     "probability given to the correct word (padding targets count 0).");
        break;
    case Role::Loss:
        add(in(0), StepPanels::tr("loss per position"));
        op(StepPanels::tr("mean\n→"));
        add(step, StepPanels::tr("loss"));
        out.formula = StepPanels::tr("<b>loss</b>: the mean of the per-position losses over the non-padding targets.");
        break;
    case Role::Gradient:
    case Role::Input:
    case Role::AttnMask:
    case Role::Gelu:
    case Role::ScaledQ: break;  // the other models' roles (models/torch/pieces.cpp for PyTorch's)
    }

    if (out.pieces.empty()) add(step, shortLeafTitle(tr, step));
    return out;
}

}  // namespace tensorviz
