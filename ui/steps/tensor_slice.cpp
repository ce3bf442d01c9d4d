#include "steps/tensor_slice.h"

#include <QCoreApplication>

#include "models/model_registry.h"

#include "stepformer/trace_graph.h"
#include "stepformer/trace_names.h"

#include <algorithm>

using stepformer::Axis;
using stepformer::AxisKind;
using stepformer::Trace;
using stepformer::TraceEntry;

namespace tensorviz {

namespace {

std::vector<Axis> axesOf(const TraceEntry& e) {
    if (e.axes.size() == size_t(e.value.rank())) return e.axes;
    return std::vector<Axis>(size_t(e.value.rank()), Axis{AxisKind::Feature, "dim"});
}

}  // namespace

int axisIndex(const TraceEntry& e, AxisKind kind) {
    const auto axes = axesOf(e);
    for (size_t i = 0; i < axes.size(); ++i)
        if (axes[i].kind == kind) return static_cast<int>(i);
    return -1;
}

int axisSize(const TraceEntry& e, AxisKind kind) {
    const int i = axisIndex(e, kind);
    return i < 0 ? 0 : static_cast<int>(e.value.dim(i));
}

int batchCount(const TraceEntry& e) { return std::max(1, axisSize(e, AxisKind::Batch)); }
int headCount(const TraceEntry& e) { return std::max(1, axisSize(e, AxisKind::Head)); }

QString tokenAt(const Trace& tr, AxisKind kind, int batch, int index) {
    const auto& toks = kind == AxisKind::SrcToken ? tr.src_tokens : tr.tgt_tokens;
    if (batch >= 0 && size_t(batch) < toks.size() && index >= 0 && size_t(index) < toks[size_t(batch)].size())
        return QString::fromStdString(toks[size_t(batch)][size_t(index)]);
    return {};
}

QStringList axisLabels(const Trace& tr, AxisKind kind, int n, int batch, const stepformer::Config* cfg) {
    QStringList out;
    out.reserve(n);
    for (int i = 0; i < n; ++i) {
        QString s;
        if (kind == AxisKind::SrcToken || kind == AxisKind::TgtToken) s = tokenAt(tr, kind, batch, i);
        if (kind == AxisKind::Vocab && cfg && i < cfg->tgt_vocab_size()) s = QString::fromStdString(cfg->tgt_vocab[size_t(i)]);
        if (kind == AxisKind::Head) s = QStringLiteral("head %1").arg(i);
        if (s.isEmpty()) s = QString::number(i);
        out << s;
    }
    return out;
}

QString axisTitle(const Axis& a) {
    const QString name = QString::fromStdString(a.name);
    switch (a.kind) {
    case AxisKind::SrcToken: return name + QCoreApplication::translate("TensorSlice", " · source token");
    case AxisKind::TgtToken: return name + QCoreApplication::translate("TensorSlice", " · target token");
    case AxisKind::Vocab: return name + QCoreApplication::translate("TensorSlice", " · target word");
    case AxisKind::Position:
        // A mask's broadcast axis ("1": one row that every query reads), or the positions it names.
        if (name == QLatin1String("1")) return QCoreApplication::translate("TensorSlice", "1 · every query");
        return name == QLatin1String("position") ? QCoreApplication::translate("TensorSlice", "position")
                                                 : name + QCoreApplication::translate("TensorSlice", " · position");
    default: return name;
    }
}

Matrix slice(const Trace& tr, const TraceEntry& e, int batch, int head, const stepformer::Config* cfg) {
    Matrix m;
    const auto& t = e.value;
    if (t.data.empty() || size_t(stepformer::numel(t.shape)) != t.data.size()) return m;
    const auto axes = axesOf(e);
    const int rank = t.rank();
    std::vector<int64_t> fixed(size_t(rank), -1);
    bool batchFixed = false, headFixed = false;
    int b = 0;
    for (int d = 0; d < rank; ++d) {
        const int64_t n = t.dim(d);
        if (axes[size_t(d)].kind == AxisKind::Batch && !batchFixed) {
            fixed[size_t(d)] = std::clamp<int64_t>(batch, 0, n - 1);
            b = static_cast<int>(fixed[size_t(d)]);
            batchFixed = true;
        } else if (axes[size_t(d)].kind == AxisKind::Head && !headFixed) {
            fixed[size_t(d)] = std::clamp<int64_t>(head, 0, n - 1);
            headFixed = true;
        }
    }
    if (!batchFixed) b = std::max(0, batch);
    std::vector<int> freeDims;
    for (int d = 0; d < rank; ++d)
        if (fixed[size_t(d)] < 0) freeDims.push_back(d);

    std::vector<int64_t> stride(size_t(rank), 1);
    for (int d = rank - 2; d >= 0; --d) stride[size_t(d)] = stride[size_t(d) + 1] * t.dim(d + 1);
    int64_t baseOff = 0;
    for (int d = 0; d < rank; ++d)
        if (fixed[size_t(d)] >= 0) baseOff += fixed[size_t(d)] * stride[size_t(d)];

    if (freeDims.empty()) {
        m.rows = m.cols = 1;
        m.values = {t.data[size_t(baseOff)]};
        m.rowLabels = {QStringLiteral("0")};
        m.colLabels = {QStringLiteral("0")};
        return m;
    }
    const int colDim = freeDims.back();
    m.cols = static_cast<int>(t.dim(colDim));
    m.colKind = axes[size_t(colDim)].kind;
    m.colTitle = axisTitle(axes[size_t(colDim)]);
    m.colLabels = axisLabels(tr, m.colKind, m.cols, b, cfg);
    std::vector<int> rowDims(freeDims.begin(), freeDims.end() - 1);
    int64_t rows = 1;
    for (int d : rowDims) rows *= t.dim(d);
    m.rows = static_cast<int>(rows);
    if (rowDims.size() == 1) {
        m.rowKind = axes[size_t(rowDims[0])].kind;
        m.rowTitle = axisTitle(axes[size_t(rowDims[0])]);
        m.rowLabels = axisLabels(tr, m.rowKind, m.rows, b, cfg);
    } else if (rowDims.empty()) {
        m.rowLabels = {QString()};
    } else {
        QStringList names;
        for (int d : rowDims) names << QString::fromStdString(axes[size_t(d)].name);
        m.rowTitle = names.join(QStringLiteral(" × "));
    }
    m.values.resize(size_t(m.rows) * m.cols);
    for (int64_t r = 0; r < rows; ++r) {
        int64_t off = baseOff, rem = r;
        for (int i = int(rowDims.size()) - 1; i >= 0; --i) {
            const int d = rowDims[size_t(i)];
            off += (rem % t.dim(d)) * stride[size_t(d)];
            rem /= t.dim(d);
        }
        for (int c = 0; c < m.cols; ++c)
            m.values[size_t(r) * m.cols + c] = t.data[size_t(off + c * stride[size_t(colDim)])];
    }
    return m;
}

Matrix sliceMergedHeads(const Trace& tr, const TraceEntry& e, int batch, const stepformer::Config* cfg) {
    const int hAxis = axisIndex(e, AxisKind::Head);
    if (hAxis < 0 || e.value.rank() != 4 || hAxis != 1) return slice(tr, e, batch, 0, cfg);
    const int H = static_cast<int>(e.value.dim(1));
    Matrix first = slice(tr, e, batch, 0, cfg);
    Matrix m = first;
    const int dv = first.cols;
    m.cols = H * dv;
    m.values.assign(size_t(m.rows) * m.cols, 0.0f);
    m.colLabels.clear();
    for (int h = 0; h < H; ++h) {
        const Matrix part = h == 0 ? first : slice(tr, e, batch, h, cfg);
        for (int r = 0; r < m.rows; ++r)
            for (int c = 0; c < dv; ++c) m.values[size_t(r) * m.cols + h * dv + c] = part.at(r, c);
        for (int c = 0; c < dv; ++c) m.colLabels << QString::number(h * dv + c);
    }
    m.colTitle = QCoreApplication::translate("TensorSlice", "n_heads × d_v (concatenated heads)");
    return m;
}

Matrix transposed(const Matrix& m) {
    Matrix t;
    t.rows = m.cols;
    t.cols = m.rows;
    t.rowLabels = m.colLabels;
    t.colLabels = m.rowLabels;
    t.rowTitle = m.colTitle;
    t.colTitle = m.rowTitle;
    t.rowKind = m.colKind;
    t.colKind = m.rowKind;
    t.values.resize(m.values.size());
    for (int r = 0; r < m.rows; ++r)
        for (int c = 0; c < m.cols; ++c) t.values[size_t(c) * t.cols + r] = m.at(r, c);
    return t;
}

QString shapeText(const stepformer::Shape& s) {
    QStringList parts;
    for (auto d : s) parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

StepInfo stepInfo(const Trace& tr, const QString& name) {
    StepInfo s;
    s.name = name;
    const std::string n = name.toStdString();
    s.isGrad = stepformer::names::is_grad(n);
    s.base = QString::fromStdString(stepformer::names::forward_name(n));
    s.entry = tr.find(n);
    s.forward = s.entry ? stepformer::graph::forward_of(tr, *s.entry) : tr.find(s.base.toStdString());
    if (s.forward) {
        s.block = s.forward->block;
        s.role = s.forward->role;
    }
    return s;
}

stepformer::Naming traceNaming(const Trace& tr) { return models::namingOf(tr); }

MaskConvention maskConvention(const Trace& tr) {
    for (const TraceEntry& e : tr.entries()) {
        if (e.op == stepformer::Op::MaskAdd) return MaskConvention::Additive;
        if (e.is_mask && e.attrs.keep_ones) return MaskConvention::FillZeros;
        if (e.op == stepformer::Op::MaskFill) return MaskConvention::FillOnes;
    }
    return MaskConvention::FillOnes;
}

const TraceEntry* roleEntry(const Trace& tr, const stepformer::Block& b, stepformer::Role role) {
    if (const TraceEntry* e = stepformer::graph::find(tr, b, role)) return e;
    // A block spelled without its model's naming (a picker's, a view's default) is the trace's.
    stepformer::Block placed = b;
    placed.naming = traceNaming(tr);
    return placed == b ? nullptr : stepformer::graph::find(tr, placed, role);
}

QString roleName(const Trace& tr, const stepformer::Block& b, stepformer::Role role) {
    const TraceEntry* e = roleEntry(tr, b, role);
    return e ? QString::fromStdString(e->name) : QString();
}

QString inputName(const TraceEntry& e, size_t i) {
    return i < e.inputs.size() ? QString::fromStdString(e.inputs[i]) : QString();
}

QString blockName(const stepformer::Block& b) { return QString::fromStdString(stepformer::names::block_prefix(b)); }

QString leafName(const QString& name) {
    const auto p = stepformer::names::parse(name.toStdString());
    return p.leaf.empty() ? QString::fromStdString(p.base) : QString::fromStdString(p.leaf);
}

QString sentenceText(const Trace& tr, int b, bool target) {
    const auto& toks = target ? tr.tgt_tokens : tr.src_tokens;
    if (b < 0 || size_t(b) >= toks.size()) return {};
    QStringList words;
    for (const auto& w : toks[size_t(b)]) words << QString::fromStdString(w);
    return words.join(QLatin1Char(' '));
}

}  // namespace tensorviz
