// The cell tooltips of attention-is-all-you-need-pytorch's model ("architecture": "aiayn"): how one
// number of a step was computed in its terms — masks 1 = keep, q / temperature before q·kᵀ,
// masked_fill(mask == 0, −1e9), w_qs / fc without bias, dropout before the add, cal_loss's sum.
#include <cmath>

#include "steps/cell_tip_kit.h"

namespace tensorviz {

namespace {

// A [B, 1, S] pad mask is one row for every query: read row 0 then.
float maskAt(const Matrix& mk, int r, int c) {
    if (inside(mk, r, c)) return mk.at(r, c);
    if (mk.rows == 1 && inside(mk, 0, c)) return mk.at(0, c);
    return 1.0f;  // outside: kept
}

}  // namespace

QString CellScope::aiaynText(bool& handled) const {
    handled = true;
    const auto masked = [&]() {
        return maskEntry && maskAt(slice(tr, *maskEntry, x.b, 0, &x.cfg), r, c) == 0.0f;
    };
    const double temperature = std::sqrt(double(x.cfg.d_k));

    if (x.isMask && s.entry) {
        if (v == 0.0f)
            return CellTip::tr("<b>0 = masked</b> (this project's masks are 1 = keep): query %1 may not look at key %2 — %3.")
                .arg(quoted(qi), quoted(kj), esc(maskReason(tr, *s.entry, x.b, r, c)));
        return CellTip::tr("<b>1 = keep</b>: query %1 may look at key %2 (the tutorial would write 0 here).").arg(quoted(qi), quoted(kj));
    }
    switch (s.role) {
    case Role::Q:
    case Role::K:
    case Role::V: {
        const QString w = s.role == Role::Q ? QStringLiteral("w_qs") : s.role == Role::K ? QStringLiteral("w_ks") : QStringLiteral("w_vs");
        const int d = x.m.cols;
        return CellTip::tr("= input row %1 · %2.weight<sup>T</sup>, column %3 (no bias); head %4 owns columns %5…%6.")
            .arg(r).arg(w).arg(x.h * d + c).arg(x.h).arg(x.h * d).arg(x.h * d + d - 1);
    }
    case Role::ScaledQ: {
        const Matrix Q = operand(0);
        if (!inside(Q, r, c)) return {};
        return CellTip::tr("= q[%1, %2] / temperature = %3 / %4 = <b>%5</b><br>temperature = d_k ** 0.5 = √%6; the query is "
                           "scaled <i>before</i> q·kᵀ.")
            .arg(r).arg(c).arg(exact(Q.at(r, c)), exactOperand(temperature), exact(v)).arg(x.cfg.d_k);
    }
    case Role::Scores: {
        const Matrix Q = operand(0), K = operand(1);
        QString t;
        if (inside(Q, r, 0) && inside(K, c, 0) && Q.cols == K.cols) {
            double dot = 0.0;
            for (int d = 0; d < Q.cols; ++d) dot += double(Q.at(r, d)) * double(K.at(c, d));
            t = CellTip::tr("(q%1 / temperature) · k%2 = <b>%3</b><br>query %4's already scaled row times key %5's row "
                            "of k; no second scale (temperature = √d_k = %6)")
                    .arg(sub(QString::number(r)), sub(QString::number(c)), exact(dot), quoted(qi), quoted(kj), exact(temperature));
        }
        if (masked())
            t += CellTip::tr("<br><i>The mask is 0 here (%1): masked_fill puts −1e9 in this place next.</i>").arg(esc(reason()));
        return t;
    }
    case Role::MaskedScores: {
        const Matrix sc = operand(0);
        const float keep = maskAt(sliceOf(tr, &x.cfg, in(1), x.b, 0), r, c);
        const QString before = inside(sc, r, c) ? exact(sc.at(r, c)) : exact(v);
        if (keep == 0.0f)
            return CellTip::tr("mask = 0 (%1) → masked_fill(mask == 0, −1e9) puts <b>−1e9</b> here (the score was %2).")
                .arg(esc(reason()), before);
        return CellTip::tr("mask = 1 (keep) → unchanged: the score %1.").arg(before);
    }
    case Role::OutProjection:
        return CellTip::tr("= row %1 of the concatenated heads · fc.weight<sup>T</sup>, column %2 (no bias).").arg(r).arg(c);
    case Role::Residual: {
        const Matrix F = operand(0), X = operand(1);
        if (!inside(F, r, c) || !inside(X, r, c)) return {};
        return CellTip::tr("= dropout(sub-layer) + residual = %1 + %2 = <b>%3</b> (dropout is the identity outside training)"
                           "<br><span style='color:#666'>sub-layer: %4<br>residual: %5</span>")
            .arg(exact(F.at(r, c)), exactOperand(X.at(r, c)), exact(v), esc(in(0)), esc(in(1)));
    }
    case Role::FfnHidden:
        return CellTip::tr("= row %1 of the input · w_1.weight<sup>T</sup> + w_1.bias, unit %2 of d_inner.").arg(r).arg(c);
    case Role::FfnOut:
        return CellTip::tr("= row %1 of the ReLU · w_2.weight<sup>T</sup> + w_2.bias, column %2.").arg(r).arg(c);
    case Role::Logits:
        return CellTip::tr("score of the word %1 at position %2 = row %2 of the decoder output · trg_word_prj.weight"
                           "<sup>T</sup> (no bias)%3.")
            .arg(quoted(kj))
            .arg(r)
            .arg(x.cfg.trg_emb_prj_weight_sharing ? CellTip::tr(", the weight shared with trg_word_emb") : QString());
    case Role::Loss:
        return CellTip::tr("cal_loss: the <b>sum</b> of the label-smoothed per-token losses over the non-pad targets = <b>%1</b>.")
            .arg(exact(v));
    case Role::LossPerToken:
        return CellTip::tr("−Σ smoothed target · log_softmax(logits) at this position (0.9 on the correct word, "
                           "ε/(n_class − 1) on the others) = <b>%1</b>.").arg(exact(v));
    default:
        handled = false;
        return {};
    }
}

}  // namespace tensorviz
