#include "views/param_layout.h"

#include <algorithm>

#include "stepformer/trace_graph.h"

using namespace stepformer;

namespace {

QStringList indexLabels(int n) {
    QStringList l;
    for (int i = 0; i < n; ++i) l << QString::number(i);
    return l;
}

QStringList headLabels(int heads, int per) {
    QStringList l;
    for (int h = 0; h < heads; ++h)
        for (int i = 0; i < per; ++i) l << QStringLiteral("h%1·%2").arg(h).arg(i);
    return l;
}

QStringList vocabLabels(const std::vector<std::string>& v) {
    QStringList l;
    for (const auto& s : v) l << QString::fromStdString(s);
    return l;
}

}  // namespace

ParamLayout paramLayout(const Config& c, const Trace* tr, const QString& name, const Shape& shape) {
    ParamLayout p;
    if (shape.empty()) {
        p.rows = p.cols = 1;
    } else if (shape.size() == 1) {
        p.rows = 1;
        p.cols = int(shape[0]);
    } else {
        p.cols = int(shape.back());
        p.rows = int(numel(shape) / std::max<int64_t>(1, shape.back()));
    }
    p.rowLabels = indexLabels(p.rows);
    p.colLabels = indexLabels(p.cols);
    p.colTitle = QStringLiteral("in");
    p.rowTitle = QStringLiteral("out");
    const auto setCols = [&](const QStringList& l, const QString& t) {
        if (l.size() == p.cols) p.colLabels = l;
        p.colTitle = t;
    };
    const auto setRows = [&](const QStringList& l, const QString& t) {
        if (l.size() == p.rows) p.rowLabels = l;
        p.rowTitle = t;
    };
    // What the weight is for, from the step that reads it (and where in its arguments).
    const auto readers = tr ? graph::consumers(*tr, name.toStdString()) : std::vector<const TraceEntry*>{};
    const TraceEntry* use = readers.empty() ? nullptr : readers.front();
    const size_t arg = use ? size_t(std::find(use->inputs.begin(), use->inputs.end(), name.toStdString()) -
                                    use->inputs.begin())
                           : 0;
    const Role role = use ? use->role : Role::Gradient;
    if (role == Role::Embedding && !use->block.decoder()) {
        setRows(vocabLabels(c.src_vocab), QStringLiteral("src_vocab (token)"));
        setCols(indexLabels(p.cols), QStringLiteral("d_model"));
    } else if (role == Role::Embedding || role == Role::Logits) {
        setRows(vocabLabels(c.tgt_vocab), QStringLiteral("tgt_vocab (token)"));
        setCols(indexLabels(p.cols), QStringLiteral("d_model"));
    } else if (role == Role::Q || role == Role::K) {
        setRows(headLabels(c.n_heads, c.d_k), QStringLiteral("n_heads·d_k (out)"));
        setCols(indexLabels(p.cols), QStringLiteral("d_model (in)"));
    } else if (role == Role::V) {
        setRows(headLabels(c.n_heads, c.d_v), QStringLiteral("n_heads·d_v (out)"));
        setCols(indexLabels(p.cols), QStringLiteral("d_model (in)"));
    } else if (role == Role::OutProjection) {
        setRows(indexLabels(p.rows), QStringLiteral("d_model (out)"));
        setCols(headLabels(c.n_heads, c.d_v), QStringLiteral("n_heads·d_v (in)"));
    } else if (role == Role::FfnHidden) {
        p.rowTitle = QStringLiteral("d_ff (out)");
        p.colTitle = QStringLiteral("d_model (in)");
    } else if (role == Role::FfnOut) {
        p.rowTitle = QStringLiteral("d_model (out)");
        p.colTitle = QStringLiteral("d_ff (in)");
    } else if (role == Role::LayerNorm) {  // inputs: residual, gamma, beta
        p.rowTitle = QString();
        p.colTitle = QStringLiteral("d_model");
        p.rowLabels = {arg == 2 ? QStringLiteral("β") : QStringLiteral("γ")};
    }
    return p;
}
