#include "steps/step_tooltips.h"
#include "steps/cell_tip_kit.h"

#include "models/model_registry.h"

#include <algorithm>
#include <cmath>


namespace tensorviz {

namespace {

// "row 2: 'bier' (len_q · source token)"
QString axisLine(const QString& what, int i, const QStringList& labels, const QString& title) {
    QString s = QStringLiteral("%1 %2").arg(what).arg(i);
    const QString l = labelOf(labels, i);
    if (l != QString::number(i) && !l.isEmpty()) s += QStringLiteral(": <b>%1</b>").arg(quoted(l));
    if (!title.isEmpty()) s += QStringLiteral(" <span style='color:#666'>(%1)</span>").arg(esc(title));
    return s;
}


}  // namespace

// "a·b + c·d + … (n terms) = <b>total</b>": a row times a column, its first terms written out.
QString sumTerms(const std::vector<std::pair<double, double>>& terms, double total) {
    QStringList parts;
    const size_t shown = std::min<size_t>(terms.size(), 6);
    for (size_t i = 0; i < shown; ++i)
        parts << QStringLiteral("%1·%2").arg(numfmt::cell(terms[i].first), numfmt::cellOperand(terms[i].second));
    QString s = parts.join(QStringLiteral(" + "));
    if (terms.size() > shown) s += CellTip::tr(" + … (%n terms)", nullptr, int(terms.size()));
    return s + QStringLiteral(" = <b>%1</b>").arg(exact(total));
}

int columnOfProbability(const Matrix& probs, int row, double p) {
    int best = 0;
    for (int k = 1; k < probs.cols; ++k)
        if (std::fabs(probs.at(row, k) - p) < std::fabs(probs.at(row, best) - p)) best = k;
    return best;
}

CellScope::CellScope(const CellTipContext& x_, int r_, int c_)
    : x(x_), r(r_), c(c_), b(x_.b), h(x_.h), tr(*x_.tr), s(x_.s), e(x_.s.forward), v(x_.m.at(r_, c_)),
      qi(labelOf(x_.m.rowLabels, r_)), kj(labelOf(x_.m.colLabels, c_)),
      maskEntry(x_.s.isAttention() ? stepformer::graph::mask_of(*x_.tr, x_.s.block) : nullptr) {}

QString CellScope::in(size_t i) const { return e ? inputName(*e, i) : QString(); }
Matrix CellScope::operand(size_t i) const { return sliceOf(tr, &x.cfg, in(i), b, h); }
QString CellScope::reason() const { return maskEntry ? maskReason(tr, *maskEntry, b, r, c) : QString(); }

QString CellScope::sharedText() const {

    if (s.isGrad) {
        QString t = CellTip::tr("∂loss/∂%1 at this index. Nudging this number by a small ε changes the loss by about %2·ε.")
                        .arg(esc(s.base), exact(v));
        const Matrix base = sliceOf(tr, &x.cfg, s.base, b, h);
        if (inside(base, r, c)) t += CellTip::tr("<br>The number itself: %1 = %2").arg(esc(leafName(s.base)), exact(base.at(r, c)));
        return t;
    }
    if (const auto own = models::presentation(models::namingOf(tr)).cellTip) {  // the model's own words
        bool handled = false;
        QString t = own(*this, handled);
        if (handled) return t;
    }
    if (x.isMask) {
        if (v != 0.0f) {
            const QString why = s.entry ? maskReason(tr, *s.entry, b, r, c) : QString();
            return CellTip::tr("<b>1 = masked</b>: query %1 may not look at key %2%3.")
                .arg(quoted(qi), quoted(kj), why.isEmpty() ? QString() : QStringLiteral(" — ") + esc(why));
        }
        return CellTip::tr("<b>0 = visible</b>: query %1 may look at key %2.").arg(quoted(qi), quoted(kj));
    }
    switch (s.role) {
    case Role::Q:
    case Role::K:
    case Role::V: {
        const QString W = s.role == Role::Q ? QStringLiteral("W_Q") : s.role == Role::K ? QStringLiteral("W_K") : QStringLiteral("W_V");
        const int d = x.m.cols;
        return CellTip::tr("= (input · %1<sup>T</sup>)[%2, %3]: row %2 of the block input times column %3 of %1, "
                           "i.e. column %4 of the projection — head %5 owns columns %6…%7.")
            .arg(W).arg(r).arg(c).arg(h * d + c).arg(h).arg(h * d).arg(h * d + d - 1);
    }
    case Role::Scores: {
        const Matrix Q = operand(0), K = operand(1);
        QString t;
        if (inside(Q, r, 0) && inside(K, c, 0) && Q.cols == K.cols) {
            double dot = 0.0;
            for (int d = 0; d < Q.cols; ++d) dot += double(Q.at(r, d)) * double(K.at(c, d));
            const double sq = std::sqrt(double(Q.cols));
            t = CellTip::tr("q%1 · k%2 / √d_k = <b>%3 / %4 = %5</b><br>"
                            "(the dot product of query %6's row of Q with key %7's row of K, d_k = %8)")
                    .arg(sub(QString::number(r)), sub(QString::number(c)), exact(dot), exact(sq), exact(v), quoted(qi), quoted(kj))
                    .arg(Q.cols);
        }
        const Matrix mk = maskEntry ? slice(tr, *maskEntry, b, 0, &x.cfg) : Matrix{};
        if (inside(mk, r, c) && mk.at(r, c) != 0.0f) {
            const QString why = reason();
            t += CellTip::tr("<br><i>This key is masked (%1): the next step replaces this score by −1e9.</i>").arg(esc(why));
        }
        return t;
    }
    case Role::MaskedScores: {
        const Matrix sc = operand(0);
        const Matrix mk = sliceOf(tr, &x.cfg, in(1), b, 0);
        if (inside(mk, r, c) && mk.at(r, c) != 0.0f)
            return CellTip::tr("mask[%1, %2] = 1 (%3) → masked_fill_ puts <b>−1e9</b> here%4.")
                .arg(r).arg(c).arg(esc(reason()),
                                   inside(sc, r, c) ? CellTip::tr(" (the score was %1)").arg(exact(sc.at(r, c))) : QString());
        return CellTip::tr("mask[%1, %2] = 0 → unchanged: the score %3.").arg(r).arg(c).arg(inside(sc, r, c) ? exact(sc.at(r, c)) : exact(v));
    }
    case Role::Softmax: {
        const Matrix ms = operand(0);
        if (!inside(ms, r, c)) return {};
        double mx = -INFINITY;
        for (int k = 0; k < ms.cols; ++k) mx = std::max(mx, double(ms.at(r, k)));
        double sum = 0.0;
        for (int k = 0; k < ms.cols; ++k) sum += std::exp(double(ms.at(r, k)) - mx);
        const double sc = ms.at(r, c);
        if (sc <= -1e8) {
            return CellTip::tr("<b>Masked</b> (%1): its score is −1e9, and exp(−1e9 − %2) is exactly <b>0</b> in "
                               "floating point — query %3 pays no attention to key %4.")
                .arg(esc(reason()), exact(mx), quoted(qi), quoted(kj));
        }
        return CellTip::tr("softmax over row %1: exp(s − max) / Σ exp(s<sub>k</sub> − max)<br>= exp(%2 − %3) / %4 = "
                           "%5 / %4 = <b>%6</b><br>How much query %7 attends to key %8 (each row sums to 1).")
            .arg(r)
            .arg(exact(sc), exactOperand(mx), exact(sum), exact(std::exp(sc - mx)), exact(v), quoted(qi), quoted(kj));
    }
    case Role::Context: {
        const Matrix A = operand(0), V = operand(1);
        if (!inside(A, r, 0) || A.cols != V.rows || !inside(V, 0, c)) return {};
        std::vector<std::pair<double, double>> terms;
        double total = 0.0;
        for (int k = 0; k < A.cols; ++k) {
            terms.emplace_back(A.at(r, k), V.at(k, c));
            total += double(A.at(r, k)) * V.at(k, c);
        }
        return QStringLiteral("context[%1, %2] = Σ<sub>j</sub> attn[%1, j] · V[j, %2]<br>= %3")
            .arg(r).arg(c).arg(sumTerms(terms, total));
    }
    case Role::OutProjection:
        return CellTip::tr("= row %1 of the concatenated heads' context · fc.weight<sup>T</sup> (n_heads·d_v → d_model), column %2.")
            .arg(r).arg(c);
    case Role::Residual: {
        const QString inName = in(1);
        const Matrix F = operand(0), X = operand(1);
        if (!inside(F, r, c) || !inside(X, r, c)) return {};
        return CellTip::tr("= fc_out + input = %1 + %2 = <b>%3</b><br><span style='color:#666'>input: %4</span>")
            .arg(exact(F.at(r, c)), exactOperand(X.at(r, c)), exact(v), esc(inName));
    }
    case Role::LayerNorm: {
        const Matrix R = operand(0);
        if (!inside(R, r, c)) return {};
        const NormedCell n = normedCell(R, r, c, x.cfg.layer_norm_eps);
        return CellTip::tr("row %1 of the residual: mean μ = %2, variance σ² = %3<br>"
                           "(x − μ) / √(σ² + ε) = (%4 − %5) / %6 = %7<br>%8 = <b>%9</b>")
            .arg(r)
            .arg(exact(n.mean), exact(n.var), exact(R.at(r, c)), exactOperand(n.mean), exact(std::sqrt(n.var + x.cfg.layer_norm_eps)),
                 exact(n.z),
                 x.cfg.learns_layer_norm() ? CellTip::tr("then · γ + β")
                                           : CellTip::tr("no learned γ, β (fixed 1, 0)"),
                 exact(v));
    }
    case Role::FfnHidden:
        return CellTip::tr("= row %1 of the input · fc[0].weight<sup>T</sup> (d_model → d_ff), hidden unit %2.").arg(r).arg(c);
    case Role::Relu: {
        const Matrix H = operand(0);
        if (!inside(H, r, c)) return {};
        return CellTip::tr("= max(0, hidden) = max(0, %1) = <b>%2</b>").arg(exact(H.at(r, c)), exact(v));
    }
    case Role::FfnOut:
        return CellTip::tr("= row %1 of relu · fc[2].weight<sup>T</sup> (d_ff → d_model), column %2.").arg(r).arg(c);
    case Role::Embedding: {
        const auto& vocab = s.decoder() ? x.cfg.tgt_vocab : x.cfg.src_vocab;
        int id = -1;
        for (size_t i = 0; i < vocab.size(); ++i)
            if (QString::fromStdString(vocab[i]) == qi) id = int(i);
        return CellTip::tr("token %1 has id %2: this is row %2, column %3 of the embedding table (%4).")
            .arg(quoted(qi)).arg(id).arg(c).arg(s.decoder() ? QStringLiteral("tgt_emb") : QStringLiteral("src_emb"));
    }
    case Role::PositionalTable: {
        const int D = x.m.cols;
        const int i2 = c - c % 2;
        const double angle = double(r) / std::pow(10000.0, double(i2) / D);
        return QStringLiteral("PE(pos = %1, %2) = %3(%1 / 10000<sup>%4/%5</sup>) = %3(%6) = <b>%7</b>")
            .arg(r).arg(c).arg(c % 2 == 0 ? QStringLiteral("sin") : QStringLiteral("cos")).arg(i2).arg(D).arg(exact(angle), exact(v));
    }
    case Role::PositionalAdd: {
        const Matrix E = operand(0), PE = operand(1);
        if (!inside(E, r, c) || !inside(PE, r, c)) return {};
        return CellTip::tr("= embedding + PE[position %1] = %2 + %3 = <b>%4</b>").arg(r).arg(exact(E.at(r, c)), exactOperand(PE.at(r, c)), exact(v));
    }
    case Role::Logits:
        return CellTip::tr("score of the word %1 as the output at position %2 = row %2 of the decoder output · "
                           "projection.weight<sup>T</sup>.").arg(quoted(kj)).arg(r);
    case Role::Probs: {
        const Matrix L = operand(0);
        QString t = CellTip::tr("P(output at position %1 = %2) = <b>%3</b>").arg(r).arg(quoted(kj), exact(v));
        if (inside(L, r, c)) {
            double mx = -INFINITY, sum = 0.0;
            for (int k = 0; k < L.cols; ++k) mx = std::max(mx, double(L.at(r, k)));
            for (int k = 0; k < L.cols; ++k) sum += std::exp(double(L.at(r, k)) - mx);
            t += QStringLiteral("<br>= exp(logit − max) / Σ = exp(%1 − %2) / %3").arg(exact(L.at(r, c)), exactOperand(mx), exact(sum));
        }
        return t;
    }
    case Role::LossPerToken: {
        if (v == 0.0f) return CellTip::tr("The target here is padding: CrossEntropyLoss(ignore_index=0) skips it.");
        const Matrix Pm = operand(0);
        if (!inside(Pm, c, 0)) return CellTip::tr("= −log P(correct word)");
        const double p = std::exp(-double(v));
        const int best = columnOfProbability(Pm, c, p);
        return CellTip::tr("= −log P(correct word %1) = −log %2 = <b>%3</b>")
            .arg(quoted(labelOf(Pm.colLabels, best)), exact(Pm.at(c, best)), exact(v));
    }
    case Role::Loss:
        return CellTip::tr("the mean of loss.per_token over the positions whose target is not padding.");
    default:
        return {};
    }
}

QString cellTooltip(const CellTipContext& x, int r, int c) {
    if (!inside(x.m, r, c)) return {};
    const TraceEntry* e = findEntry(*x.tr, x.name);
    QString s = QStringLiteral("<b>%1</b>").arg(esc(x.name));
    if (e) s += esc(indexText(*e, x.b, x.h, r, c));
    s += QStringLiteral("<br>") + CellTip::tr("value = <b>%1</b>").arg(exact(x.m.at(r, c)));
    if (e && axisIndex(*e, AxisKind::Batch) >= 0)
        s += QStringLiteral("<br>") + (axisIndex(*e, AxisKind::Head) >= 0 ? CellTip::tr("sentence %1, head %2").arg(x.b).arg(x.h)
                                                                            : CellTip::tr("sentence %1").arg(x.b));
    if (x.m.rows > 1 || !x.m.rowTitle.isEmpty()) s += QStringLiteral("<br>") + axisLine(CellTip::tr("row"), r, x.m.rowLabels, x.m.rowTitle);
    s += QStringLiteral("<br>") + axisLine(CellTip::tr("column"), c, x.m.colLabels, x.m.colTitle);
    const QString extra = CellScope(x, r, c).sharedText();
    if (!extra.isEmpty()) s += QStringLiteral("<hr>") + extra;
    return s;
}

QString maskedExplanationFor(const StepInfo& s, bool isMask, MaskConvention convention, bool infiniteFill) {
    if (isMask) return {};
    if (convention == MaskConvention::Additive) {  // PyTorch adds −∞ where the tutorial fills −1e9
        if (s.role == Role::MaskedScores)
            return CellTip::tr("<i>Ignored: the additive mask is <b>−∞</b> here, so the score became −∞.</i>");
        if (s.role == Role::Softmax || s.role == Role::Context)
            return CellTip::tr("<i>Ignored: the score was −∞, so after the softmax this weight is exactly "
                               "<b>0</b> (NaN when every key of the row is −∞).</i>");
    }
    if (convention == MaskConvention::FillZeros && infiniteFill) {  // nanoGPT: masked_fill(bias == 0, −inf)
        if (s.role == Role::MaskedScores)
            return CellTip::tr("<i>Masked: the mask is 0 here (1 = keep), so <b>masked_fill(mask == 0, −inf)</b> replaced "
                               "the score by <b>−∞</b>.</i>");
        if (s.role == Role::Softmax || s.role == Role::Context)
            return CellTip::tr("<i>Masked: the score was −∞, so after the softmax this weight is exactly <b>0</b>.</i>");
    }
    if (convention == MaskConvention::FillZeros && s.role == Role::MaskedScores)
        return CellTip::tr("<i>Masked: the mask is 0 here (1 = keep), so <b>masked_fill(mask == 0, −1e9)</b> replaced "
                           "the score by <b>−1e9</b>.</i>");
    if (s.role == Role::MaskedScores)
        return CellTip::tr("<i>Masked: the mask is 1 here, so <b>masked_fill_</b> replaced the score by <b>−1e9</b>.</i>");
    if (s.role == Role::Softmax || s.role == Role::Context)
        return CellTip::tr("<i>Masked: the score was −1e9, so after the softmax this weight is exactly <b>0</b>.</i>");
    return {};
}

}  // namespace tensorviz
