// The cell tooltips of nanoGPT's GPT ("architecture": "gpt"): how one number of a step was
// computed in its terms — the packed c_attn, (q @ kᵀ) × 1/√hs, the buffer `bias` (1 = keep) and
// masked_fill with −inf, x + sublayer(ln(x)), c_fc / c_proj, lm_head's weight being wte's.
#include <algorithm>
#include <cmath>

#include "steps/cell_tip_kit.h"

namespace tensorviz {

QString CellScope::gptText(bool& handled) const {
    handled = true;
    const bool bias = x.cfg.bias;
    // The buffer `bias` at this query (row) and key (column): 0 where the key comes later.
    const auto later = [&]() {
        const Matrix mk = maskEntry ? slice(tr, *maskEntry, x.b, 0, &x.cfg) : Matrix{};
        return inside(mk, r, c) ? mk.at(r, c) == 0.0f : c > r;
    };

    if (x.isMask) {
        if (v == 0.0f)
            return CellTip::tr("<b>0 = masked</b>: key %1 (position %2) comes after query %3 (position %4); the buffer "
                               "tril(ones) is 0 above the diagonal, so masked_fill puts −∞ here.")
                .arg(quoted(kj))
                .arg(c)
                .arg(quoted(qi))
                .arg(r);
        return CellTip::tr("<b>1 = may attend</b>: key %1 is at or before query %2 (the buffer's lower triangle).")
            .arg(quoted(kj), quoted(qi));
    }
    switch (s.role) {
    case Role::Q:
    case Role::K:
    case Role::V: {
        const int third = s.role == Role::Q ? 0 : s.role == Role::K ? 1 : 2;
        const int C = x.cfg.d_model, d = x.m.cols, col = x.h * d + c;
        const QString l = s.role == Role::Q ? QStringLiteral("q") : s.role == Role::K ? QStringLiteral("k") : QStringLiteral("v");
        return (bias ? CellTip::tr("= ln_1 row %1 · c_attn.weight[%2]ᵀ + c_attn.bias[%2]: row %2 of the packed weight (the %3 "
                                   "part is rows %4…%5); head %6 owns columns %7…%8 of %3.")
                     : CellTip::tr("= ln_1 row %1 · c_attn.weight[%2]ᵀ (no bias): row %2 of the packed weight (the %3 part is "
                                   "rows %4…%5); head %6 owns columns %7…%8 of %3."))
            .arg(r)
            .arg(third * C + col)
            .arg(l)
            .arg(third * C)
            .arg((third + 1) * C - 1)
            .arg(x.h)
            .arg(x.h * d)
            .arg(x.h * d + d - 1);
    }
    case Role::Scores: {
        const Matrix Q = operand(0), K = operand(1);
        QString t;
        if (inside(Q, r, 0) && inside(K, c, 0) && Q.cols == K.cols) {
            double dot = 0.0;
            for (int d = 0; d < Q.cols; ++d) dot += double(Q.at(r, d)) * double(K.at(c, d));
            const double scale = e ? double(e->attrs.scale) : 1.0 / std::sqrt(double(Q.cols));
            t = CellTip::tr("(q%1 · k%2) × 1/√hs = %3 × %4 = <b>%5</b><br>the row of query %6 in q times the row of key %7 "
                            "in k, then multiplied by 1/√%8 (the product first, as nanoGPT does)")
                    .arg(sub(QString::number(r)), sub(QString::number(c)), exact(dot), exactOperand(scale), exact(v), quoted(qi),
                         quoted(kj))
                    .arg(Q.cols);
        }
        if (later()) t += CellTip::tr("<br><i>Key %1 comes after query %2: masked_fill puts −∞ here next.</i>").arg(quoted(kj), quoted(qi));
        return t;
    }
    case Role::MaskedScores: {
        const Matrix sc = operand(0);
        const QString before = inside(sc, r, c) ? exact(sc.at(r, c)) : exact(v);
        if (later())
            return CellTip::tr("bias = 0 (key %1 comes after query %2) → masked_fill(bias == 0, −inf) puts <b>−∞</b> here "
                               "(the score was %3).")
                .arg(quoted(kj), quoted(qi), before);
        return CellTip::tr("bias = 1 (may attend) → unchanged: the score %1.").arg(before);
    }
    case Role::Softmax: {
        const Matrix ms = operand(0);
        if (!inside(ms, r, c)) return {};
        double mx = -INFINITY;
        for (int k = 0; k < ms.cols; ++k) mx = std::max(mx, double(ms.at(r, k)));
        const double sc = ms.at(r, c);
        if (std::isinf(sc))
            return CellTip::tr("<b>Masked</b>: key %1 comes after query %2, its score is −∞ and exp(−∞) = <b>0</b> — "
                               "the query pays it no attention.")
                .arg(quoted(kj), quoted(qi));
        double sum = 0.0;
        for (int k = 0; k < ms.cols; ++k) sum += std::exp(double(ms.at(r, k)) - mx);
        return CellTip::tr("softmax over row %1: exp(s − max) / Σ exp(s<sub>k</sub> − max)<br>= exp(%2 − %3) / %4 = "
                           "<b>%5</b><br>How much query %6 attends to key %7 (each row sums to 1; the later keys get 0).")
            .arg(r)
            .arg(exact(sc), exactOperand(mx), exact(sum), exact(v), quoted(qi), quoted(kj));
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
        return QStringLiteral("y[%1, %2] = Σ<sub>j</sub> att[%1, j] · v[j, %2]<br>= %3").arg(r).arg(c).arg(sumTerms(terms, total));
    }
    case Role::OutProjection:
        return (bias ? CellTip::tr("= row %1 of y (the heads side by side) · c_proj.weight<sup>T</sup> + c_proj.bias, column %2.")
                     : CellTip::tr("= row %1 of y (the heads side by side) · c_proj.weight<sup>T</sup> (no bias), column %2."))
            .arg(r)
            .arg(c);
    case Role::Residual: {
        const Matrix X = operand(0), F = operand(1);
        if (!inside(F, r, c) || !inside(X, r, c)) return {};
        return CellTip::tr("= x + sub-layer output = %1 + %2 = <b>%3</b> (resid_dropout / dropout: the identity outside "
                           "training)<br><span style='color:#666'>x: %4<br>sub-layer: %5</span>")
            .arg(exact(X.at(r, c)), exactOperand(F.at(r, c)), exact(v), esc(in(0)), esc(in(1)));
    }
    case Role::LayerNorm: {
        const Matrix R = operand(0);
        if (!inside(R, r, c)) return {};
        const NormedCell n = normedCell(R, r, c, x.cfg.layer_norm_eps);
        return (bias ? CellTip::tr("row %1 of %2: mean μ = %3, variance σ² = %4<br>(x − μ) / √(σ² + 1e-5) = %5, then "
                                   "· weight[%6] + bias[%6] = <b>%7</b>")
                     : CellTip::tr("row %1 of %2: mean μ = %3, variance σ² = %4<br>(x − μ) / √(σ² + 1e-5) = %5, then "
                                   "· weight[%6] (bias=False) = <b>%7</b>"))
            .arg(r)
            .arg(esc(leafName(in(0))), exact(n.mean), exact(n.var), exact(n.z))
            .arg(c)
            .arg(exact(v));
    }
    case Role::FfnHidden:
        return (bias ? CellTip::tr("= row %1 of ln_2's output · c_fc.weight<sup>T</sup> + c_fc.bias (n_embd → 4·n_embd), "
                                   "unit %2.")
                     : CellTip::tr("= row %1 of ln_2's output · c_fc.weight<sup>T</sup> (n_embd → 4·n_embd, no bias), unit %2."))
            .arg(r)
            .arg(c);
    case Role::Gelu: {
        const Matrix Hm = operand(0);
        if (!inside(Hm, r, c)) return {};
        return QStringLiteral("= GELU(%1) = %1/2 · (1 + erf(%1/√2)) = <b>%2</b>").arg(exact(Hm.at(r, c)), exact(v));
    }
    case Role::FfnOut:
        return (bias ? CellTip::tr("= row %1 of the GELU · mlp.c_proj.weight<sup>T</sup> + mlp.c_proj.bias (4·n_embd → "
                                   "n_embd), column %2.")
                     : CellTip::tr("= row %1 of the GELU · mlp.c_proj.weight<sup>T</sup> (4·n_embd → n_embd, no bias), "
                                   "column %2."))
            .arg(r)
            .arg(c);
    case Role::Embedding: {
        const int id = x.cfg.tgt_id(qi.toStdString());
        return CellTip::tr("token %1 has id %2: row %2, column %3 of transformer.wte.weight — the same row lm_head scores "
                           "the word %1 with (tied weights).")
            .arg(quoted(qi))
            .arg(id)
            .arg(c);
    }
    case Role::PositionalTable:
        return CellTip::tr("position %1: row %1, column %2 of transformer.wpe.weight — a learned number (a parameter), not "
                           "a sine or cosine.")
            .arg(r)
            .arg(c);
    case Role::PositionalAdd: {
        const Matrix E = operand(0), P = operand(1);
        if (!inside(E, r, c) || !inside(P, r, c)) return {};
        return CellTip::tr("= tok_emb + pos_emb[position %1] = %2 + %3 = <b>%4</b> (drop: the identity outside training)")
            .arg(r)
            .arg(exact(E.at(r, c)), exactOperand(P.at(r, c)), exact(v));
    }
    case Role::Logits:
        return CellTip::tr("score of the word %1 as the next word at position %2 = row %2 of ln_f's output · row %3 of "
                           "wte.weight (lm_head.weight is wte.weight; no bias).")
            .arg(quoted(kj))
            .arg(r)
            .arg(c);
    case Role::LossPerToken: {
        if (v == 0.0f)
            return CellTip::tr("The target here is the pad word: F.cross_entropy(ignore_index=%1) skips it.")
                .arg(x.cfg.tgt_id(x.cfg.pad));
        const Matrix Pm = operand(0);
        if (!inside(Pm, c, 0)) return CellTip::tr("= −log P(next word)");
        // The target's probability is exp(−loss): find the word whose probability that is.
        const double p = std::exp(-double(v));
        const int best = columnOfProbability(Pm, c, p);
        return CellTip::tr("= −log P(next word %1) = −log %2 = <b>%3</b>")
            .arg(quoted(labelOf(Pm.colLabels, best)), exact(Pm.at(c, best)), exact(v));
    }
    case Role::Loss:
        return CellTip::tr("F.cross_entropy's mean of loss.per_token over the targets that are not the pad word (ignore_index=%1).")
            .arg(x.cfg.tgt_id(x.cfg.pad));
    default:
        handled = false;  // the probabilities: as the tutorial's
        return {};
    }
}

}  // namespace tensorviz
