// The cell tooltips of PyTorch's layers ("architecture": "torch"): how one number of a step was
// computed, in PyTorch's terms (the packed in_proj_weight, the biases, the additive 0 / −∞ mask,
// x + sublayer, linear1 / linear2, the generator).
#include <algorithm>
#include <cmath>

#include "steps/cell_tip_kit.h"

namespace tensorviz {

QString CellScope::torchText(bool& handled) const {
    handled = true;
    const auto masked = [&]() {
        const Matrix mk = maskEntry ? slice(tr, *maskEntry, x.b, x.h, &x.cfg) : Matrix{};
        return inside(mk, r, c) && mk.at(r, c) != 0.0f;
    };
    const int D = x.cfg.d_model;

    switch (s.role) {
    case Role::AttnMask:
        if (v != 0.0f)
            return CellTip::tr("<b>−∞ = ignored</b>: query %1 may not attend to key %2 — %3.")
                .arg(quoted(qi), quoted(kj), esc(reason()));
        return CellTip::tr("<b>0 = may attend</b>: query %1 may look at key %2 (adding 0 leaves the score as it is).")
            .arg(quoted(qi), quoted(kj));
    case Role::Q:
    case Role::K:
    case Role::V: {
        const int k = s.role == Role::Q ? 0 : s.role == Role::K ? 1 : 2;
        const int d = x.m.cols, col = x.h * d + c;
        return CellTip::tr("= input row %1 · in_proj_weight[%2]ᵀ + in_proj_bias[%2]: row %2 of the packed weight "
                           "(the %3 part is rows %4…%5); head %6 owns columns %7…%8 of the projection.")
            .arg(r)
            .arg(k * D + col)
            .arg(k == 0 ? QStringLiteral("q") : k == 1 ? QStringLiteral("k") : QStringLiteral("v"))
            .arg(k * D)
            .arg((k + 1) * D - 1)
            .arg(x.h)
            .arg(x.h * d)
            .arg(x.h * d + d - 1);
    }
    case Role::Scores: {
        const Matrix Q = operand(0), K = operand(1);
        QString t;
        if (inside(Q, r, 0) && inside(K, c, 0) && Q.cols == K.cols) {
            const double sq = std::sqrt(double(Q.cols));
            double dot = 0.0;
            for (int d = 0; d < Q.cols; ++d) dot += double(Q.at(r, d)) / sq * double(K.at(c, d));
            t = CellTip::tr("(q%1 / √head_dim) · k%2 = <b>%3</b> (head_dim = %4, √head_dim = %5)<br>"
                            "query %6's row of q, scaled first as PyTorch does, times key %7's row of k")
                    .arg(sub(QString::number(r)), sub(QString::number(c)), exact(dot))
                    .arg(Q.cols)
                    .arg(exact(sq), quoted(qi), quoted(kj));
        }
        if (masked())
            t += CellTip::tr("<br><i>This key is ignored (%1): the mask adds −∞ to this score next.</i>").arg(esc(reason()));
        return t;
    }
    case Role::MaskedScores: {
        const Matrix sc = operand(0), mk = operand(1);
        const QString before = inside(sc, r, c) ? exact(sc.at(r, c)) : QStringLiteral("?");
        if (inside(mk, r, c) && mk.at(r, c) != 0.0f)
            return CellTip::tr("score + mask = %1 + (−∞) = <b>−∞</b>: %2.").arg(before, esc(reason()));
        return CellTip::tr("score + mask = %1 + 0 = <b>%2</b>: the key is visible, the score unchanged.").arg(before, exact(v));
    }
    case Role::Softmax: {
        const Matrix ms = operand(0);
        if (!inside(ms, r, c)) return {};
        double mx = -INFINITY;
        for (int k = 0; k < ms.cols; ++k) mx = std::max(mx, double(ms.at(r, k)));
        if (std::isinf(mx))
            return CellTip::tr("<b>Every key of this row is −∞</b>: the softmax divides 0 by 0, and PyTorch 1.13 "
                               "gives <b>NaN</b> for the whole row (query %1 has nothing it may attend to).")
                .arg(quoted(qi));
        double sum = 0.0;
        for (int k = 0; k < ms.cols; ++k) sum += std::exp(double(ms.at(r, k)) - mx);
        const double sc = ms.at(r, c);
        if (std::isinf(sc))
            return CellTip::tr("<b>Ignored</b> (%1): its score is −∞ and exp(−∞) = <b>0</b> — query %2 "
                               "pays no attention to key %3.")
                .arg(esc(reason()), quoted(qi), quoted(kj));
        return CellTip::tr("softmax over row %1: exp(s − max) / Σ exp(s<sub>k</sub> − max)<br>= exp(%2 − %3) / %4 = "
                           "<b>%5</b><br>How much query %6 attends to key %7 (each row sums to 1).")
            .arg(r)
            .arg(exact(sc), exactOperand(mx), exact(sum), exact(v), quoted(qi), quoted(kj));
    }
    case Role::OutProjection:
        return CellTip::tr("= row %1 of the concatenated heads · out_proj.weight<sup>T</sup> + out_proj.bias, column %2.")
            .arg(r).arg(c);
    case Role::Residual: {
        const Matrix X = operand(0), F = operand(1);
        if (!inside(F, r, c) || !inside(X, r, c)) return {};
        return CellTip::tr("= x + sub-layer output = %1 + %2 = <b>%3</b><br><span style='color:#666'>x: %4<br>sub-layer: %5</span>")
            .arg(exact(X.at(r, c)), exactOperand(F.at(r, c)), exact(v), esc(in(0)), esc(in(1)));
    }
    case Role::LayerNorm: {
        const Matrix R = operand(0);
        if (!inside(R, r, c)) return {};
        const NormedCell n = normedCell(R, r, c, x.cfg.layer_norm_eps);
        return CellTip::tr("row %1 of %2: mean μ = %3, variance σ² = %4<br>"
                           "(x − μ) / √(σ² + ε) = %5, then · weight[%6] + bias[%6] = <b>%7</b>")
            .arg(r)
            .arg(esc(leafName(in(0))), exact(n.mean), exact(n.var), exact(n.z))
            .arg(c)
            .arg(exact(v));
    }
    case Role::FfnHidden:
        return CellTip::tr("= row %1 of the input · linear1.weight<sup>T</sup> + linear1.bias (d_model → "
                           "dim_feedforward), unit %2.").arg(r).arg(c);
    case Role::Relu:
    case Role::Gelu: {
        const Matrix H = operand(0);
        if (!inside(H, r, c)) return {};
        if (s.role == Role::Relu) return QStringLiteral("= max(0, linear1) = max(0, %1) = <b>%2</b>").arg(exact(H.at(r, c)), exact(v));
        return QStringLiteral("= GELU(%1) = %1/2 · (1 + erf(%1/√2)) = <b>%2</b>").arg(exact(H.at(r, c)), exact(v));
    }
    case Role::FfnOut:
        return CellTip::tr("= row %1 of the activation · linear2.weight<sup>T</sup> + linear2.bias (dim_feedforward "
                           "→ d_model), column %2.").arg(r).arg(c);
    case Role::Embedding:
        return CellTip::tr("token %1: its row of %2.embedding.weight, column %3, times √d_model = %4.")
            .arg(quoted(qi), s.decoder() ? QStringLiteral("tgt_tok_emb") : QStringLiteral("src_tok_emb"))
            .arg(c)
            .arg(numfmt::fourDigits(std::sqrt(double(D))));
    case Role::Input:
        return CellTip::tr("a number given to the layer: position %1, feature %2.").arg(r).arg(c);
    case Role::Logits:
        return CellTip::tr("score of the word %1 at position %2 = row %2 of the decoder output · "
                           "generator.weight<sup>T</sup> + generator.bias.").arg(quoted(kj)).arg(r);
    default:
        handled = false;
        return {};
    }
}

}  // namespace tensorviz
