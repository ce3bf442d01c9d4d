#include "step_panels.h"

#include <algorithm>
#include <cmath>

#include <QComboBox>
#include <QCoreApplication>
#include <QSignalBlocker>

using namespace stepformer;

namespace tensorviz {

namespace {

const QString kMinus = QStringLiteral("\u2212");

QString esc(const QString& s) { return s.toHtmlEscaped(); }
QString quoted(const QString& tok) { return QStringLiteral("'") + esc(tok) + QStringLiteral("'"); }
QString num(double v) { return exactText(static_cast<float>(v)); }
QString numP(double v) { return v < 0 ? QStringLiteral("(") + num(v) + QStringLiteral(")") : num(v); }
QString sub(const QString& s) { return QStringLiteral("<sub>") + s + QStringLiteral("</sub>"); }
// The tutorial's LayerNorm has no learned scale; say so where the formula would show one.
QString layerNormAffineText(const stepformer::Config& c) {
    return c.learn_layer_norm ? QStringLiteral(", then \u00b7 \u03b3 + \u03b2 (learned)")
                              : QStringLiteral(" (no learned \u03b3/\u03b2: a fresh nn.LayerNorm each call is never trained)");
}

const TraceEntry* findEntry(const Trace& tr, const QString& name) { return tr.find(name.toStdString()); }

Matrix sliceOf(const Trace& tr, const Config* cfg, const QString& name, int b, int h) {
    const TraceEntry* e = findEntry(tr, name);
    return e ? slice(tr, *e, b, h, cfg) : Matrix{};
}

bool inside(const Matrix& m, int r, int c) { return r >= 0 && c >= 0 && r < m.rows && c < m.cols; }

QString labelOf(const QStringList& l, int i) { return i >= 0 && i < l.size() ? l[i] : QString::number(i); }

// "row 2: 'bier' (len_q · source token)"
QString axisLine(const QString& what, int i, const QStringList& labels, const QString& title) {
    QString s = QStringLiteral("%1 %2").arg(what).arg(i);
    const QString l = labelOf(labels, i);
    if (l != QString::number(i) && !l.isEmpty()) s += QStringLiteral(": <b>%1</b>").arg(quoted(l));
    if (!title.isEmpty()) s += QStringLiteral(" <span style='color:#666'>(%1)</span>").arg(esc(title));
    return s;
}

QString shortLeafTitle(const QString& name) {
    const StepInfo s = parseStep(name);
    QString t = s.leaf.isEmpty() ? s.base : s.leaf;
    if (s.layer >= 0) t += QStringLiteral("  (layer %1 %2)").arg(s.layer).arg(blockTitle(s.blockKind));
    return (s.isGrad ? QStringLiteral("grad.") : QString()) + t;
}

// Mask kinds of the mask entries themselves.
QString maskKindOf(const QString& name) {
    if (name == QLatin1String("encoder.self_attn_mask")) return QStringLiteral("enc_self_attn");
    if (name == QLatin1String("decoder.self_attn_pad_mask")) return QStringLiteral("dec_pad");
    if (name == QLatin1String("decoder.self_attn_subsequence_mask")) return QStringLiteral("dec_sub");
    if (name == QLatin1String("decoder.self_attn_mask")) return QStringLiteral("dec_self_attn");
    if (name == QLatin1String("decoder.enc_attn_mask")) return QStringLiteral("dec_enc_attn");
    return {};
}

struct TipCtx {
    TracePtr tr;
    Config cfg;
    QString name;
    StepInfo s;
    Role op = Role::Gradient;
    bool isMask = false;
    int b = 0, h = 0;
    Matrix m;
    std::vector<float> mask;
};

QString extraFor(const TipCtx& x, int r, int c);

QString tooltipFor(const TipCtx& x, int r, int c) {
    if (!inside(x.m, r, c)) return {};
    const TraceEntry* e = findEntry(*x.tr, x.name);
    QString s = QStringLiteral("<b>%1</b>").arg(esc(x.name));
    if (e) s += esc(indexText(*e, x.b, x.h, r, c));
    s += QStringLiteral("<br>value = <b>%1</b>").arg(exactText(x.m.at(r, c)));
    if (e && axisIndex(*e, AxisKind::Batch) >= 0) {
        s += QStringLiteral("<br>sentence %1").arg(x.b);
        if (axisIndex(*e, AxisKind::Head) >= 0) s += QStringLiteral(", head %1").arg(x.h);
    }
    if (x.m.rows > 1 || !x.m.rowTitle.isEmpty()) s += QStringLiteral("<br>") + axisLine(QStringLiteral("row"), r, x.m.rowLabels, x.m.rowTitle);
    s += QStringLiteral("<br>") + axisLine(QStringLiteral("column"), c, x.m.colLabels, x.m.colTitle);
    const QString extra = extraFor(x, r, c);
    if (!extra.isEmpty()) s += QStringLiteral("<hr>") + extra;
    return s;
}

QString sumTerms(const std::vector<std::pair<double, double>>& terms, double total) {
    QStringList parts;
    const size_t shown = std::min<size_t>(terms.size(), 6);
    for (size_t i = 0; i < shown; ++i)
        parts << QStringLiteral("%1\u00b7%2").arg(shortText(float(terms[i].first)),
                                                 terms[i].second < 0 ? QStringLiteral("(") + shortText(float(terms[i].second)) + QStringLiteral(")")
                                                                     : shortText(float(terms[i].second)));
    QString s = parts.join(QStringLiteral(" + "));
    if (terms.size() > shown) s += QStringLiteral(" + \u2026 (%1 terms)").arg(terms.size());
    return s + QStringLiteral(" = <b>%1</b>").arg(num(total));
}

QString extraFor(const TipCtx& x, int r, int c) {
    const Trace& tr = *x.tr;
    const StepInfo& s = x.s;
    const int b = x.b, h = x.h;
    const float v = x.m.at(r, c);
    const QString qi = labelOf(x.m.rowLabels, r), kj = labelOf(x.m.colLabels, c);
    const QString P = s.block;

    if (s.isGrad) {
        QString t = QStringLiteral("\u2202loss/\u2202%1 at this index. Nudging this number by a small \u03b5 changes the loss by about %2\u00b7\u03b5.")
                        .arg(esc(s.base), num(v));
        const Matrix base = sliceOf(tr, &x.cfg, s.base, b, h);
        if (inside(base, r, c)) t += QStringLiteral("<br>The number itself: %1 = %2").arg(esc(s.leaf), num(base.at(r, c)));
        return t;
    }
    if (x.isMask) {
        const QString kind = maskKindOf(x.name);
        if (v != 0.0f) {
            const QString why = maskReason(tr, kind, b, r, c);
            return QStringLiteral("<b>1 = masked</b>: query %1 may not look at key %2%3.")
                .arg(quoted(qi), quoted(kj), why.isEmpty() ? QString() : QStringLiteral(" \u2014 ") + esc(why));
        }
        return QStringLiteral("<b>0 = visible</b>: query %1 may look at key %2.").arg(quoted(qi), quoted(kj));
    }
    switch (x.op) {
    case Role::Q:
    case Role::K:
    case Role::V: {
        const QString W = x.op == Role::Q ? QStringLiteral("W_Q") : x.op == Role::K ? QStringLiteral("W_K") : QStringLiteral("W_V");
        const int d = x.m.cols;
        return QStringLiteral("= (input \u00b7 %1<sup>T</sup>)[%2, %3]: row %2 of the block input times column %3 of %1, "
                              "i.e. column %4 of the projection \u2014 head %5 owns columns %6\u2026%7.")
            .arg(W).arg(r).arg(c).arg(h * d + c).arg(h).arg(h * d).arg(h * d + d - 1);
    }
    case Role::Scores: {
        const Matrix Q = sliceOf(tr, &x.cfg, P + QStringLiteral(".Q"), b, h);
        const Matrix K = sliceOf(tr, &x.cfg, P + QStringLiteral(".K"), b, h);
        QString t;
        if (inside(Q, r, 0) && inside(K, c, 0) && Q.cols == K.cols) {
            double dot = 0.0;
            for (int d = 0; d < Q.cols; ++d) dot += double(Q.at(r, d)) * double(K.at(c, d));
            const double sq = std::sqrt(double(Q.cols));
            t = QStringLiteral("q%1 \u00b7 k%2 / \u221ad_k = <b>%3 / %4 = %5</b><br>"
                               "(the dot product of query %6's row of Q with key %7's row of K, d_k = %8)")
                    .arg(sub(QString::number(r)), sub(QString::number(c)), num(dot), num(sq), num(v), quoted(qi), quoted(kj))
                    .arg(Q.cols);
        }
        const Matrix mk = sliceOf(tr, &x.cfg, maskNameFor(s.blockKind), b, 0);
        if (inside(mk, r, c) && mk.at(r, c) != 0.0f) {
            const QString why = maskReason(tr, s.blockKind, b, r, c);
            t += QStringLiteral("<br><i>This key is masked (%1): the next step replaces this score by \u22121e9.</i>").arg(esc(why));
        }
        return t;
    }
    case Role::MaskedScores: {
        const Matrix mk = sliceOf(tr, &x.cfg, maskNameFor(s.blockKind), b, 0);
        const Matrix sc = sliceOf(tr, &x.cfg, P + QStringLiteral(".scores"), b, h);
        if (inside(mk, r, c) && mk.at(r, c) != 0.0f)
            return QStringLiteral("mask[%1, %2] = 1 (%3) \u2192 masked_fill_ puts <b>\u22121e9</b> here%4.")
                .arg(r).arg(c).arg(esc(maskReason(tr, s.blockKind, b, r, c)),
                                   inside(sc, r, c) ? QStringLiteral(" (the score was %1)").arg(num(sc.at(r, c))) : QString());
        return QStringLiteral("mask[%1, %2] = 0 \u2192 unchanged: the score %3.").arg(r).arg(c).arg(inside(sc, r, c) ? num(sc.at(r, c)) : num(v));
    }
    case Role::Softmax: {
        const Matrix ms = sliceOf(tr, &x.cfg, P + QStringLiteral(".masked_scores"), b, h);
        if (!inside(ms, r, c)) return {};
        double mx = -INFINITY;
        for (int k = 0; k < ms.cols; ++k) mx = std::max(mx, double(ms.at(r, k)));
        double sum = 0.0;
        for (int k = 0; k < ms.cols; ++k) sum += std::exp(double(ms.at(r, k)) - mx);
        const double sc = ms.at(r, c);
        if (sc <= -1e8) {
            return QStringLiteral("<b>Masked</b> (%1): its score is \u22121e9, and exp(\u22121e9 \u2212 %2) is exactly <b>0</b> in "
                                  "floating point \u2014 query %3 pays no attention to key %4.")
                .arg(esc(maskReason(tr, s.blockKind, b, r, c)), num(mx), quoted(qi), quoted(kj));
        }
        return QStringLiteral("softmax over row %1: exp(s \u2212 max) / \u03a3 exp(s<sub>k</sub> \u2212 max)<br>= exp(%2 \u2212 %3) / %4 = "
                              "%5 / %4 = <b>%6</b><br>How much query %7 attends to key %8 (each row sums to 1).")
            .arg(r)
            .arg(num(sc), numP(mx), num(sum), num(std::exp(sc - mx)), num(v), quoted(qi), quoted(kj));
    }
    case Role::Context: {
        const Matrix A = sliceOf(tr, &x.cfg, P + QStringLiteral(".attn"), b, h);
        const Matrix V = sliceOf(tr, &x.cfg, P + QStringLiteral(".V"), b, h);
        if (!inside(A, r, 0) || A.cols != V.rows || !inside(V, 0, c)) return {};
        std::vector<std::pair<double, double>> terms;
        double total = 0.0;
        for (int k = 0; k < A.cols; ++k) {
            terms.emplace_back(A.at(r, k), V.at(k, c));
            total += double(A.at(r, k)) * V.at(k, c);
        }
        return QStringLiteral("context[%1, %2] = \u03a3<sub>j</sub> attn[%1, j] \u00b7 V[j, %2]<br>= %3")
            .arg(r).arg(c).arg(sumTerms(terms, total));
    }
    case Role::OutProjection:
        return QStringLiteral("= row %1 of the concatenated heads' context \u00b7 fc.weight<sup>T</sup> (n_heads\u00b7d_v \u2192 d_model), column %2.")
            .arg(r).arg(c);
    case Role::Residual: {
        const QString inName = s.blockKind == QLatin1String("pos_ffn") ? ffnInput(s) : attentionQueryInput(tr, s);
        const Matrix F = sliceOf(tr, &x.cfg, P + QStringLiteral(".fc_out"), b, h);
        const Matrix X = sliceOf(tr, &x.cfg, inName, b, h);
        if (!inside(F, r, c) || !inside(X, r, c)) return {};
        return QStringLiteral("= fc_out + input = %1 + %2 = <b>%3</b><br><span style='color:#666'>input: %4</span>")
            .arg(num(F.at(r, c)), numP(X.at(r, c)), num(v), esc(inName));
    }
    case Role::LayerNorm: {
        const Matrix R = sliceOf(tr, &x.cfg, P + QStringLiteral(".residual"), b, h);
        if (!inside(R, r, c)) return {};
        double mean = 0.0, var = 0.0;
        for (int k = 0; k < R.cols; ++k) mean += R.at(r, k);
        mean /= R.cols;
        for (int k = 0; k < R.cols; ++k) var += (R.at(r, k) - mean) * (R.at(r, k) - mean);
        var /= R.cols;
        const double z = (R.at(r, c) - mean) / std::sqrt(var + x.cfg.layer_norm_eps);
        return QStringLiteral("row %1 of the residual: mean \u03bc = %2, variance \u03c3\u00b2 = %3<br>"
                              "(x \u2212 \u03bc) / \u221a(\u03c3\u00b2 + \u03b5) = (%4 \u2212 %5) / %6 = %7<br>%8 = <b>%9</b>")
            .arg(r)
            .arg(num(mean), num(var), num(R.at(r, c)), numP(mean), num(std::sqrt(var + x.cfg.layer_norm_eps)), num(z),
                 x.cfg.learn_layer_norm ? QStringLiteral("then \u00b7 \u03b3 + \u03b2")
                                        : QStringLiteral("no learned \u03b3, \u03b2 (fixed 1, 0)"),
                 num(v));
    }
    case Role::FfnHidden:
        return QStringLiteral("= row %1 of the input \u00b7 fc[0].weight<sup>T</sup> (d_model \u2192 d_ff), hidden unit %2.").arg(r).arg(c);
    case Role::Relu: {
        const Matrix H = sliceOf(tr, &x.cfg, P + QStringLiteral(".hidden"), b, h);
        if (!inside(H, r, c)) return {};
        return QStringLiteral("= max(0, hidden) = max(0, %1) = <b>%2</b>").arg(num(H.at(r, c)), num(v));
    }
    case Role::FfnOut:
        return QStringLiteral("= row %1 of relu \u00b7 fc[2].weight<sup>T</sup> (d_ff \u2192 d_model), column %2.").arg(r).arg(c);
    case Role::Embedding: {
        const auto& vocab = s.decoder ? x.cfg.tgt_vocab : x.cfg.src_vocab;
        int id = -1;
        for (size_t i = 0; i < vocab.size(); ++i)
            if (QString::fromStdString(vocab[i]) == qi) id = int(i);
        return QStringLiteral("token %1 has id %2: this is row %2, column %3 of the embedding table (%4).")
            .arg(quoted(qi)).arg(id).arg(c).arg(s.decoder ? QStringLiteral("tgt_emb") : QStringLiteral("src_emb"));
    }
    case Role::PositionalTable: {
        const int D = x.m.cols;
        const int i2 = c - c % 2;
        const double angle = double(r) / std::pow(10000.0, double(i2) / D);
        return QStringLiteral("PE(pos = %1, %2) = %3(%1 / 10000<sup>%4/%5</sup>) = %3(%6) = <b>%7</b>")
            .arg(r).arg(c).arg(c % 2 == 0 ? QStringLiteral("sin") : QStringLiteral("cos")).arg(i2).arg(D).arg(num(angle), num(v));
    }
    case Role::PositionalAdd: {
        const QString side = s.decoder ? QStringLiteral("decoder") : QStringLiteral("encoder");
        const Matrix E = sliceOf(tr, &x.cfg, side + (s.decoder ? QStringLiteral(".tgt_emb.out") : QStringLiteral(".src_emb.out")), b, h);
        const Matrix PE = sliceOf(tr, &x.cfg, side + QStringLiteral(".pos_emb.pe"), b, h);
        if (!inside(E, r, c) || !inside(PE, r, c)) return {};
        return QStringLiteral("= embedding + PE[position %1] = %2 + %3 = <b>%4</b>").arg(r).arg(num(E.at(r, c)), numP(PE.at(r, c)), num(v));
    }
    case Role::Logits:
        return QStringLiteral("score of the word %1 as the output at position %2 = row %2 of the decoder output \u00b7 "
                              "projection.weight<sup>T</sup>.").arg(quoted(kj)).arg(r);
    case Role::Probs: {
        const Matrix L = sliceOf(tr, &x.cfg, QStringLiteral("projection.logits"), b, h);
        QString t = QStringLiteral("P(output at position %1 = %2) = <b>%3</b>").arg(r).arg(quoted(kj), num(v));
        if (inside(L, r, c)) {
            double mx = -INFINITY, sum = 0.0;
            for (int k = 0; k < L.cols; ++k) mx = std::max(mx, double(L.at(r, k)));
            for (int k = 0; k < L.cols; ++k) sum += std::exp(double(L.at(r, k)) - mx);
            t += QStringLiteral("<br>= exp(logit \u2212 max) / \u03a3 = exp(%1 \u2212 %2) / %3").arg(num(L.at(r, c)), numP(mx), num(sum));
        }
        return t;
    }
    case Role::LossPerToken: {
        if (v == 0.0f) return QStringLiteral("The target here is padding: CrossEntropyLoss(ignore_index=0) skips it.");
        const Matrix Pm = sliceOf(tr, &x.cfg, QStringLiteral("projection.probs"), b, h);
        if (!inside(Pm, c, 0)) return QStringLiteral("= \u2212log P(correct word)");
        const double p = std::exp(-double(v));
        int best = 0;
        for (int k = 1; k < Pm.cols; ++k)
            if (std::fabs(Pm.at(c, k) - p) < std::fabs(Pm.at(c, best) - p)) best = k;
        return QStringLiteral("= \u2212log P(correct word %1) = \u2212log %2 = <b>%3</b>")
            .arg(quoted(labelOf(Pm.colLabels, best)), num(Pm.at(c, best)), num(v));
    }
    case Role::Loss:
        return QStringLiteral("the mean of loss.per_token over the positions whose target is not padding.");
    default:
        return {};
    }
}

QString maskedExplanationFor(const QString& name, const StepInfo& s, bool isMask) {
    if (isMask) return {};
    if (s.leaf == QLatin1String("masked_scores"))
        return QStringLiteral("<i>Masked: the mask is 1 here, so <b>masked_fill_</b> replaced the score by <b>\u22121e9</b>.</i>");
    if (s.leaf == QLatin1String("attn") || s.leaf == QLatin1String("context"))
        return QStringLiteral("<i>Masked: the score was \u22121e9, so after the softmax this weight is exactly <b>0</b>.</i>");
    Q_UNUSED(name);
    return {};
}

}  // namespace

QString indexText(const TraceEntry& e, int b, int h, int r, int c) {
    const int rank = e.value.rank();
    if (rank == 0) return QStringLiteral("[]");
    std::vector<int64_t> idx(size_t(rank), -1);
    const bool axesOk = e.axes.size() == size_t(rank);
    bool bf = false, hf = false;
    std::vector<int> freeDims;
    for (int d = 0; d < rank; ++d) {
        const AxisKind k = axesOk ? e.axes[size_t(d)].kind : AxisKind::Feature;
        if (k == AxisKind::Batch && !bf) {
            idx[size_t(d)] = std::clamp<int64_t>(b, 0, e.value.dim(d) - 1);
            bf = true;
        } else if (k == AxisKind::Head && !hf) {
            idx[size_t(d)] = std::clamp<int64_t>(h, 0, e.value.dim(d) - 1);
            hf = true;
        } else {
            freeDims.push_back(d);
        }
    }
    if (!freeDims.empty()) {
        idx[size_t(freeDims.back())] = c;
        int64_t rem = r;
        for (int i = int(freeDims.size()) - 2; i >= 0; --i) {
            const int d = freeDims[size_t(i)];
            idx[size_t(d)] = rem % e.value.dim(d);
            rem /= e.value.dim(d);
        }
    }
    QStringList parts;
    for (auto i : idx) parts << QString::number(i);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

int fillBatchPicker(QComboBox* box, const Trace* tr) {
    int B = 0;
    if (tr) {
        B = static_cast<int>(std::max(tr->src_tokens.size(), tr->tgt_tokens.size()));
        if (!tr->entries().empty()) B = std::max(B, axisSize(tr->entries().front(), AxisKind::Batch));
    }
    B = std::max(B, 1);
    QStringList items;
    for (int b = 0; b < B; ++b) {
        QString text = QString::number(b);
        if (tr) {
            const QString src = sentenceText(*tr, b, false), tgt = sentenceText(*tr, b, true);
            if (!src.isEmpty() || !tgt.isEmpty()) text += QStringLiteral(":  ") + src + QStringLiteral("  \u2192  ") + tgt;
        }
        items << text;
    }
    const QSignalBlocker block(box);
    const int current = box->currentIndex();
    if (box->count() != B) {
        box->clear();
        box->addItems(items);
    } else {
        for (int b = 0; b < B; ++b) box->setItemText(b, items[b]);
    }
    box->setCurrentIndex(std::clamp(current, 0, B - 1));
    return B;
}

QComboBox* makeBatchPicker(QWidget* parent, const QString& toolTip) {
    auto* box = new QComboBox(parent);
    box->setObjectName(QStringLiteral("batchPicker"));
    box->setToolTip(toolTip);
    box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    box->setMinimumContentsLength(8);
    return box;
}

int syncBatchPicker(QComboBox* box, const Trace* tr, int& batch) {
    const int B = fillBatchPicker(box, tr);
    batch = std::clamp(batch, 0, B - 1);
    box->setCurrentIndex(batch);
    box->setEnabled(B > 1);
    return B;
}

void syncBlockLayerPickers(QComboBox* blockBox, QComboBox* layerBox, const Trace* tr, const QString& kind,
                           int& layer) {
    for (int i = 0; i < blockBox->count(); ++i)
        if (blockBox->itemData(i).toString() == kind) blockBox->setCurrentIndex(i);
    int layers = 0;
    if (tr) layers = kind == QLatin1String("enc_self_attn") ? encoderLayers(*tr) : decoderLayers(*tr);
    if (layerBox->count() != std::max(layers, 1)) {
        layerBox->clear();
        for (int i = 0; i < layers; ++i) layerBox->addItem(QCoreApplication::translate("StepPanels", "Layer %1").arg(i));
        if (layers == 0) layerBox->addItem(QStringLiteral("\u2014"));
    }
    layer = std::clamp(layer, 0, std::max(0, layers - 1));
    layerBox->setCurrentIndex(layer);
    layerBox->setEnabled(layers > 1);
}

QString maskReason(const Trace& tr, const QString& kind, int b, int i, int j) {
    auto val = [&](const char* name) -> float {
        const TraceEntry* e = tr.find(name);
        if (!e) return -1.0f;
        const Matrix m = slice(tr, *e, b, 0, nullptr);
        return inside(m, i, j) ? m.at(i, j) : -1.0f;
    };
    QStringList why;
    if (kind == QLatin1String("enc_self_attn") || kind == QLatin1String("dec_enc_attn")) {
        const QString tok = tokenAt(tr, AxisKind::SrcToken, b, j);
        why << QStringLiteral("the source key '%1' at position %2 is padding").arg(tok.isEmpty() ? QStringLiteral("P") : tok).arg(j);
    } else if (kind == QLatin1String("dec_pad")) {
        why << QStringLiteral("the key '%1' at position %2 is padding").arg(tokenAt(tr, AxisKind::TgtToken, b, j)).arg(j);
    } else if (kind == QLatin1String("dec_sub")) {
        why << QStringLiteral("key position %1 comes after query position %2: a future word").arg(j).arg(i);
    } else if (kind == QLatin1String("dec_self_attn")) {
        if (val("decoder.self_attn_pad_mask") > 0.0f)
            why << QStringLiteral("the key '%1' at position %2 is padding").arg(tokenAt(tr, AxisKind::TgtToken, b, j)).arg(j);
        if (val("decoder.self_attn_subsequence_mask") > 0.0f || (why.isEmpty() && j > i))
            why << QStringLiteral("key position %1 comes after query position %2: a future word").arg(j).arg(i);
    }
    return why.join(QStringLiteral("; "));
}

PanelSpec panelFor(const TracePtr& trp, const Config& cfg, const QString& name, int b, int h, const QString& title) {
    PanelSpec p;
    p.traceName = name;
    p.title = title.isEmpty() ? shortLeafTitle(name) : title;
    if (!trp) {
        p.emptyMessage = QStringLiteral("No trace yet.");
        return p;
    }
    const Trace& tr = *trp;
    const TraceEntry* e = findEntry(tr, name);
    if (!e) {
        p.emptyMessage = QStringLiteral("'%1' is not in this trace.").arg(name);
        return p;
    }
    p.present = true;
    p.hasHead = axisIndex(*e, AxisKind::Head) >= 0;
    const int hh = p.hasHead ? std::clamp(h, 0, headCount(*e) - 1) : 0;
    const int bb = std::clamp(b, 0, batchCount(*e) - 1);
    p.m = slice(tr, *e, bb, hh, &cfg);
    if (p.m.empty()) p.emptyMessage = QStringLiteral("'%1' is empty.").arg(name);
    if (title.isEmpty() && p.hasHead) p.title += QStringLiteral("  \u00b7 head %1").arg(hh);

    const StepInfo s = parseStep(name);
    if (e->is_mask) {
        p.mode = HeatmapWidget::ColorMode::Sequential;
        p.fixedRange = true;
        p.lo = 0.0f;
        p.hi = 1.0f;
        p.legendCaption = QStringLiteral("1 = masked");
        p.mask = p.m.values;
    } else if (e->role == Role::Softmax || e->role == Role::Probs) {
        p.mode = HeatmapWidget::ColorMode::Sequential;
        p.fixedRange = true;
        p.lo = 0.0f;
        p.hi = 1.0f;
        p.legendCaption = QStringLiteral("probability");
    } else if (e->role == Role::LossPerToken || e->role == Role::Loss) {
        p.mode = HeatmapWidget::ColorMode::Sequential;
        p.legendCaption = QStringLiteral("loss");
    } else {
        p.mode = HeatmapWidget::ColorMode::Diverging;
        p.legendCaption = s.isGrad ? QStringLiteral("gradient") : QStringLiteral("value");
    }
    if (!s.isGrad && s.isAttention() && (s.leaf == QLatin1String("masked_scores") || s.leaf == QLatin1String("attn"))) {
        const Matrix mk = sliceOf(tr, &cfg, maskNameFor(s.blockKind), bb, 0);
        if (mk.rows == p.m.rows && mk.cols == p.m.cols) p.mask = mk.values;
    }
    if (!p.mask.empty()) p.maskedExplanation = maskedExplanationFor(name, s, e->is_mask);

    auto ctx = std::make_shared<TipCtx>();
    ctx->tr = trp;
    ctx->cfg = cfg;
    ctx->name = name;
    ctx->s = s;
    ctx->op = e->role;
    ctx->isMask = e->is_mask;
    ctx->b = bb;
    ctx->h = hh;
    ctx->m = p.m;
    ctx->mask = p.mask;
    const QString expl = p.maskedExplanation;
    p.tooltip = [ctx, expl](int r, int c) {
        QString t = tooltipFor(*ctx, r, c);
        if (!expl.isEmpty() && size_t(r) * ctx->m.cols + c < ctx->mask.size() && ctx->mask[size_t(r) * ctx->m.cols + c] != 0.0f &&
            !ctx->isMask)
            t += QStringLiteral("<br>") + expl;
        return t;
    };
    return p;
}

void applyPanel(HeatmapWidget* w, const PanelSpec& p) {
    const HeatmapWidget::Batch batch(w);  // one recolour and relayout for the whole panel
    w->setMatrix(p.m.rows, p.m.cols, p.m.values);
    w->setMask(p.mask);
    w->setRowLabels(p.m.rowLabels);
    w->setColLabels(p.m.colLabels);
    w->setRowAxisTitle(p.m.rowTitle);
    w->setColAxisTitle(p.m.colTitle);
    w->setTitle(p.title);
    w->setColorMode(p.mode);
    if (p.fixedRange)
        w->setValueRange(p.lo, p.hi);
    else
        w->clearValueRange();
    w->setLegendCaption(p.legendCaption);
    w->setMaskedExplanation(p.maskedExplanation);
    w->setTooltipFunction(p.tooltip);
    if (!p.emptyMessage.isEmpty()) w->setEmptyMessage(p.emptyMessage);
}

// ------------------------------------------------------------------ the steps

StepPieces stepPieces(const TracePtr& trp, const Config& cfg, const QString& step, int b, int h) {
    StepPieces out;
    if (!trp) return out;
    const Trace& tr = *trp;
    const StepInfo s = parseStep(step);
    const TraceEntry* e = findEntry(tr, step);
    int H = 1;
    for (const char* probe : {".Q", ".attn"}) {
        if (const TraceEntry* q = findEntry(tr, s.block + QLatin1String(probe))) H = std::max(H, headCount(*q));
    }
    if (e) H = std::max(H, headCount(*e));
    const int hh = std::clamp(h, 0, H - 1);
    const QString headTag = QStringLiteral("  \u00b7 head %1").arg(hh);

    auto add = [&](const QString& name, const QString& title) {
        Piece pc;
        pc.panel = panelFor(trp, cfg, name, b, h, title);
        out.anyHead = out.anyHead || pc.panel.hasHead;
        out.pieces.push_back(std::move(pc));
        return &out.pieces.back().panel;
    };
    auto op = [&](const QString& text) {
        Piece pc;
        pc.isOp = true;
        pc.op = text;
        out.pieces.push_back(std::move(pc));
    };
    auto transposeLast = [&](const QString& title) {
        PanelSpec& p = out.pieces.back().panel;
        p.m = transposed(p.m);
        p.title = title;
        auto inner = p.tooltip;
        if (inner) p.tooltip = [inner](int r, int c) { return inner(c, r); };
    };

    if (s.isGrad) {
        const QString leaf = s.leaf.isEmpty() ? s.base : s.leaf;
        if (findEntry(tr, s.base)) {
            add(s.base, QStringLiteral("the tensor: ") + shortLeafTitle(s.base));
            op(QStringLiteral("backward\n\u2192"));
        }
        add(step, QStringLiteral("its gradient: \u2202loss/\u2202") + leaf);
        out.formula = QStringLiteral("<b>\u2202loss/\u2202%1</b>: for every number of <tt>%2</tt>, how fast the loss changes when "
                                     "that number changes (computed by the backward pass). Red: increasing it raises the loss; "
                                     "blue: increasing it lowers the loss.")
                          .arg(esc(leaf), esc(s.base));
        return out;
    }

    const QString P = s.block;
    const QString L = s.leaf;
    if (s.isAttention()) {
        const QString qin = attentionQueryInput(tr, s), kin = attentionKeyInput(tr, s);
        const int dk = cfg.d_k;
        if (L == QLatin1String("Q") || L == QLatin1String("K") || L == QLatin1String("V")) {
            const QString in = L == QLatin1String("Q") ? qin : kin;
            add(in, QStringLiteral("input: ") + in);
            op(QStringLiteral("\u00d7 W_%1\u1d40\n\u2192 head %2").arg(L).arg(hh));
            add(P + QLatin1Char('.') + L, L + headTag);
            out.formula = QStringLiteral("<b>%1</b> = W_%1(input).view(batch, \u22121, n_heads, d_%2).transpose(1, 2): the input "
                                         "times W_%1\u1d40, cut into %3 heads of %4 columns; shown: head %5.")
                              .arg(L, L == QLatin1String("V") ? QStringLiteral("v") : QStringLiteral("k"))
                              .arg(H)
                              .arg(L == QLatin1String("V") ? cfg.d_v : dk)
                              .arg(hh);
            if (s.blockKind == QLatin1String("dec_enc_attn"))
                out.formula += L == QLatin1String("Q") ? QStringLiteral(" The queries come from the decoder.")
                                                       : QStringLiteral(" Keys and values come from the encoder's output.");
        } else if (L == QLatin1String("scores")) {
            add(P + QStringLiteral(".Q"), QStringLiteral("Q") + headTag);
            op(QStringLiteral("\u00d7"));
            add(P + QStringLiteral(".K"), QString());
            transposeLast(QStringLiteral("K\u1d40") + headTag);
            op(QStringLiteral("/ \u221ad_k\n="));
            add(step, QStringLiteral("scores = QK\u1d40/\u221ad_k") + headTag);
            out.formula = QStringLiteral("<b>scores</b> = torch.matmul(Q, K.transpose(\u22121, \u22122)) / np.sqrt(d_k) "
                                         "(d_k = %1, \u221ad_k = %2): how well each query (row) matches each key (column).")
                              .arg(dk)
                              .arg(QString::number(std::sqrt(double(std::max(dk, 1))), 'g', 4));
        } else if (L == QLatin1String("masked_scores")) {
            add(P + QStringLiteral(".scores"), QStringLiteral("scores") + headTag);
            op(QStringLiteral("masked_fill_\nusing"));
            add(maskNameFor(s.blockKind), QStringLiteral("mask: ") + maskNameFor(s.blockKind));
            op(QStringLiteral("1 \u2192 \u22121e9\n="));
            add(step, QStringLiteral("masked scores") + headTag);
            out.formula = QStringLiteral("<b>scores.masked_fill_(attn_mask, \u22121e9)</b>: wherever the mask is 1 the score "
                                         "becomes \u22121e9 (hatched), so the softmax will give it no weight.");
        } else if (L == QLatin1String("attn")) {
            add(P + QStringLiteral(".masked_scores"), QStringLiteral("masked scores") + headTag);
            op(QStringLiteral("softmax\nover each\nrow \u2192"));
            add(step, QStringLiteral("attn") + headTag);
            out.formula = QStringLiteral("<b>attn</b> = nn.Softmax(dim=\u22121)(scores): each row becomes weights that sum to 1; "
                                         "the \u22121e9 cells become exactly 0.");
        } else if (L == QLatin1String("context")) {
            add(P + QStringLiteral(".attn"), QStringLiteral("attn") + headTag);
            op(QStringLiteral("\u00d7"));
            add(P + QStringLiteral(".V"), QStringLiteral("V") + headTag);
            op(QStringLiteral("="));
            add(step, QStringLiteral("context") + headTag);
            out.formula = QStringLiteral("<b>context</b> = torch.matmul(attn, V): each query's row is the attention-weighted "
                                         "mix of the value rows.");
        } else if (L == QLatin1String("fc_out")) {
            Piece pc;
            pc.panel = panelFor(trp, cfg, P + QStringLiteral(".context"), b, 0, QStringLiteral("context, all heads concatenated"));
            if (pc.panel.present) {
                if (const TraceEntry* ce = findEntry(tr, P + QStringLiteral(".context"))) pc.panel.m = sliceMergedHeads(tr, *ce, b, &cfg);
                pc.panel.hasHead = false;
                pc.panel.tooltip = nullptr;
            }
            out.pieces.push_back(std::move(pc));
            op(QStringLiteral("\u00d7 fc\u1d40\n="));
            add(step, QStringLiteral("fc_out (the block's output before the residual)"));
            out.formula = QStringLiteral("<b>output</b> = self.fc(context.transpose(1, 2).reshape(batch, \u22121, n_heads\u00b7d_v)): "
                                         "the heads side by side, mixed back to d_model = %1 columns.")
                              .arg(cfg.d_model);
        } else if (L == QLatin1String("residual")) {
            add(P + QStringLiteral(".fc_out"), QStringLiteral("fc_out"));
            op(QStringLiteral("+"));
            add(qin, QStringLiteral("input (residual): ") + qin);
            op(QStringLiteral("="));
            add(step, QStringLiteral("output + residual"));
            out.formula = QStringLiteral("<b>output + residual</b>: the block's input is added back to its output (residual "
                                         "connection), feature by feature.");
        } else if (L == QLatin1String("out")) {
            add(P + QStringLiteral(".residual"), QStringLiteral("output + residual"));
            op(QStringLiteral("LayerNorm\n(each row)"));
            add(step, QStringLiteral("out = LayerNorm(output + residual)"));
            out.formula = QStringLiteral("<b>nn.LayerNorm(d_model)(output + residual)</b>: each row is shifted to mean 0 and "
                                         "scaled to variance 1") + layerNormAffineText(cfg) + QLatin1Char('.');
        }
    } else if (s.blockKind == QLatin1String("pos_ffn")) {
        const QString in = ffnInput(s);
        if (L == QLatin1String("hidden")) {
            add(in, QStringLiteral("input: ") + in);
            op(QStringLiteral("\u00d7 fc[0]\u1d40\n="));
            add(step, QStringLiteral("hidden (d_ff = %1)").arg(cfg.d_ff));
            out.formula = QStringLiteral("<b>fc[0]</b> = nn.Linear(d_model, d_ff, bias=False): every position is widened from "
                                         "%1 to %2 features.").arg(cfg.d_model).arg(cfg.d_ff);
        } else if (L == QLatin1String("relu")) {
            add(P + QStringLiteral(".hidden"), QStringLiteral("hidden"));
            op(QStringLiteral("ReLU\nmax(0, \u00b7)"));
            add(step, QStringLiteral("relu"));
            out.formula = QStringLiteral("<b>nn.ReLU()</b>: negative numbers become 0, positive ones stay.");
        } else if (L == QLatin1String("fc_out")) {
            add(P + QStringLiteral(".relu"), QStringLiteral("relu"));
            op(QStringLiteral("\u00d7 fc[2]\u1d40\n="));
            add(step, QStringLiteral("fc_out"));
            out.formula = QStringLiteral("<b>fc[2]</b> = nn.Linear(d_ff, d_model, bias=False): back from %1 to %2 features.")
                              .arg(cfg.d_ff).arg(cfg.d_model);
        } else if (L == QLatin1String("residual")) {
            add(P + QStringLiteral(".fc_out"), QStringLiteral("fc_out"));
            op(QStringLiteral("+"));
            add(in, QStringLiteral("input (residual): ") + in);
            op(QStringLiteral("="));
            add(step, QStringLiteral("output + residual"));
            out.formula = QStringLiteral("<b>output + residual</b>: the feed-forward input is added back to its output.");
        } else if (L == QLatin1String("out")) {
            add(P + QStringLiteral(".residual"), QStringLiteral("output + residual"));
            op(QStringLiteral("LayerNorm\n(each row)"));
            add(step, QStringLiteral("out = LayerNorm(output + residual)"));
            out.formula = QStringLiteral("<b>nn.LayerNorm(d_model)(output + residual)</b>: each row to mean 0, variance 1") +
                          layerNormAffineText(cfg) + QStringLiteral(". This is the layer's output.");
        }
    } else if (step == QLatin1String("encoder.src_emb.out") || step == QLatin1String("decoder.tgt_emb.out")) {
        add(step, QStringLiteral("embedding of each token"));
        out.formula = QStringLiteral("<b>%1</b>(%2): each token id picks its row of the embedding table (vocabulary \u00d7 d_model = %3).")
                          .arg(s.decoder ? QStringLiteral("tgt_emb") : QStringLiteral("src_emb"),
                               s.decoder ? QStringLiteral("dec_inputs") : QStringLiteral("enc_inputs"))
                          .arg(cfg.d_model);
    } else if (L == QLatin1String("pos_emb.pe")) {
        add(step, QStringLiteral("positional encoding table PE"));
        out.formula = QStringLiteral("PE(pos, 2i) = sin(pos / 10000<sup>2i/d_model</sup>),  PE(pos, 2i+1) = cos(pos / "
                                     "10000<sup>2i/d_model</sup>): one row per position.");
    } else if (L == QLatin1String("pos_emb.out")) {
        const QString emb = s.decoder ? QStringLiteral("decoder.tgt_emb.out") : QStringLiteral("encoder.src_emb.out");
        add(emb, QStringLiteral("embedding"));
        op(QStringLiteral("+"));
        add(P + QStringLiteral(".pos_emb.pe"), QStringLiteral("PE (positions)"));
        op(QStringLiteral("="));
        add(step, QStringLiteral("embedding + PE"));
        out.formula = QStringLiteral("<b>x + self.pe[:x.size(0), :]</b>: the position table is added to the embeddings "
                                     "(then dropout, in training only).");
    } else if (step == QLatin1String("decoder.self_attn_mask")) {
        add(QStringLiteral("decoder.self_attn_pad_mask"), QStringLiteral("pad mask"));
        op(QStringLiteral("OR"));
        add(QStringLiteral("decoder.self_attn_subsequence_mask"), QStringLiteral("subsequence mask"));
        op(QStringLiteral("="));
        add(step, QStringLiteral("decoder self-attention mask"));
        out.formula = QStringLiteral("<b>torch.gt(pad_mask + subsequence_mask, 0)</b>: a key is hidden from a query if it is "
                                     "padding <i>or</i> a later word.");
    } else if (e && e->is_mask) {
        add(step, step);
        if (step == QLatin1String("decoder.self_attn_subsequence_mask"))
            out.formula = QStringLiteral("<b>get_attn_subsequence_mask</b>: np.triu(ones, k=1) \u2014 1 above the diagonal: "
                                         "while predicting, a word may not look at the words after it.");
        else if (step == QLatin1String("decoder.enc_attn_mask"))
            out.formula = QStringLiteral("<b>get_attn_pad_mask(dec_inputs, enc_inputs)</b>: queries from the decoder, keys from "
                                         "the source; 1 where the source word is the padding 'P'.");
        else
            out.formula = QStringLiteral("<b>get_attn_pad_mask</b>: seq_k.eq(0) \u2014 1 where the key is the padding 'P' "
                                         "(expanded over every query row).");
    } else if (step == QLatin1String("projection.logits")) {
        const QString in = decoderOutput(tr);
        add(in, QStringLiteral("decoder output: ") + in);
        op(QStringLiteral("\u00d7 W\u1d40\n="));
        add(step, QStringLiteral("logits"));
        out.formula = QStringLiteral("<b>self.projection</b> = nn.Linear(d_model, tgt_vocab_size, bias=False): one score per "
                                     "target word for every position.");
    } else if (step == QLatin1String("projection.probs")) {
        add(QStringLiteral("projection.logits"), QStringLiteral("logits"));
        op(QStringLiteral("softmax\nover each\nrow \u2192"));
        add(step, QStringLiteral("probs"));
        out.formula = QStringLiteral("<b>softmax(logits)</b>: for every position, the probability of each target word being "
                                     "the next one.");
    } else if (step == QLatin1String("loss.per_token")) {
        add(QStringLiteral("projection.probs"), QStringLiteral("probs"));
        op(QStringLiteral("\u2212log P(correct)\n\u2192"));
        add(step, QStringLiteral("loss per position"));
        out.formula = QStringLiteral("<b>nn.CrossEntropyLoss(ignore_index=0)</b>, position by position: \u2212log of the "
                                     "probability given to the correct word (padding targets count 0).");
    } else if (step == QLatin1String("loss")) {
        add(QStringLiteral("loss.per_token"), QStringLiteral("loss per position"));
        op(QStringLiteral("mean\n\u2192"));
        add(step, QStringLiteral("loss"));
        out.formula = QStringLiteral("<b>loss</b>: the mean of the per-position losses over the non-padding targets.");
    }

    if (out.pieces.empty()) add(step, shortLeafTitle(step));
    return out;
}

}  // namespace tensorviz
