// Helpers shared by TensorView, AttentionView and MaskView: cutting a 2-D matrix (with its
// token / index labels) out of a traced tensor for one batch item and one head, finding the
// tensors an operation read from. (Numbers are formatted by widgets/number_format.h.)
#pragma once

#include <cmath>

#include <vector>

#include <QString>
#include <QStringList>

#include "stepformer/config.h"
#include "stepformer/trace.h"

namespace tensorviz {

struct Matrix {
    int rows = 0, cols = 0;
    std::vector<float> values;  // row-major
    QStringList rowLabels, colLabels;
    QString rowTitle, colTitle;  // "len_q · query token", "d_model"
    stepformer::AxisKind rowKind = stepformer::AxisKind::Feature;
    stepformer::AxisKind colKind = stepformer::AxisKind::Feature;

    bool empty() const { return rows == 0 || cols == 0; }
    float at(int r, int c) const { return values[size_t(r) * cols + c]; }
};

// A row's mean and (biased) variance, as LayerNorm takes them over the last axis.
struct RowStats {
    double mean = 0.0, var = 0.0;
};
inline RowStats rowStats(const Matrix& m, int r) {
    RowStats s;
    for (int k = 0; k < m.cols; ++k) s.mean += m.at(r, k);
    s.mean /= m.cols;
    for (int k = 0; k < m.cols; ++k) s.var += (m.at(r, k) - s.mean) * (m.at(r, k) - s.mean);
    s.var /= m.cols;
    return s;
}

// What LayerNorm computes for cell (r, c) of `m` before its scale and shift: the row's mean and
// variance and the normalised value z = (x − mean) / √(var + eps).
struct NormedCell : RowStats {
    double z = 0.0;
};
inline NormedCell normedCell(const Matrix& m, int r, int c, double eps) {
    NormedCell n;
    static_cast<RowStats&>(n) = rowStats(m, r);
    n.z = (m.at(r, c) - n.mean) / std::sqrt(n.var + eps);
    return n;
}

// First axis of `kind` in the entry, or -1.
int axisIndex(const stepformer::TraceEntry& e, stepformer::AxisKind kind);
// Size of the first axis of `kind`, or 0 when the entry has none.
int axisSize(const stepformer::TraceEntry& e, stepformer::AxisKind kind);

// The 2-D matrix of an entry with its Batch axis fixed at `batch` and its Head axis at `head`
// (both clamped). Rank 0 -> 1x1, rank 1 -> 1xN, more than two remaining axes -> the leading
// ones flattened into rows. `cfg` (may be null) names Vocab entries.
Matrix slice(const stepformer::Trace& tr, const stepformer::TraceEntry& e, int batch, int head,
             const stepformer::Config* cfg);
// Same, the head axis concatenated (context merged: [len_q, n_heads*d_v], labels "h0·0"...).
Matrix sliceMergedHeads(const stepformer::Trace& tr, const stepformer::TraceEntry& e, int batch,
                        const stepformer::Config* cfg);
Matrix transposed(const Matrix& m);

// Labels for `n` positions of an axis: tokens for token axes, vocabulary for Vocab, indices
// otherwise.
QStringList axisLabels(const stepformer::Trace& tr, stepformer::AxisKind kind, int n, int batch,
                       const stepformer::Config* cfg);
QString axisTitle(const stepformer::Axis& a);
QString tokenAt(const stepformer::Trace& tr, stepformer::AxisKind kind, int batch, int index);

QString shapeText(const stepformer::Shape& s);  // "[2, 4, 5, 5]"

// Where a step sits in the model, read from its trace entry's graph fields (never from its name).
struct StepInfo {
    QString name;  // as given
    QString base;  // the forward entry's name (without "grad.")
    bool isGrad = false;
    const stepformer::TraceEntry* entry = nullptr;    // the entry named; null when not in the trace
    const stepformer::TraceEntry* forward = nullptr;  // the forward entry (entry itself unless a gradient)
    stepformer::Block block;                          // the forward entry's block
    stepformer::Role role = stepformer::Role::Gradient;  // the forward entry's role
    bool decoder() const { return block.decoder(); }
    int layer() const { return block.layer; }
    bool isAttention() const { return block.is_attention(); }
};
StepInfo stepInfo(const stepformer::Trace& tr, const QString& name);

// Which model's names the trace's blocks take (the first block's; Tutorial for an empty trace).
stepformer::Naming traceNaming(const stepformer::Trace& tr);

// How a model's attention masks act, read from its graph (never from which model it is):
// 0/1 masks whose 1s are filled with −1e9 (masked_fill), 0/1 masks that keep their 1s and fill
// the 0s (Attrs::keep_ones), or additive 0/−∞ masks added to the scores (Op::MaskAdd).
enum class MaskConvention { FillOnes, FillZeros, Additive };
MaskConvention maskConvention(const stepformer::Trace& tr);
// The entry with `role` in block b and its name ("" when there is none). A block whose naming is
// not the trace's is looked up with the trace's.
const stepformer::TraceEntry* roleEntry(const stepformer::Trace& tr, const stepformer::Block& b, stepformer::Role role);
QString roleName(const stepformer::Trace& tr, const stepformer::Block& b, stepformer::Role role);
// Input i of an entry, by name ("" when it has none).
QString inputName(const stepformer::TraceEntry& e, size_t i);
// A block's prefix, as in its entries' names (names::block_prefix).
QString blockName(const stepformer::Block& b);
// The short name of an entry inside its block ("scores", "Q", "pos_emb.out", ...).
QString leafName(const QString& name);

// Number of batch items / heads an entry has (1 when it has no such axis).
int batchCount(const stepformer::TraceEntry& e);
int headCount(const stepformer::TraceEntry& e);
// Sentence of batch item b for pickers: "ich mochte ein bier P".
QString sentenceText(const stepformer::Trace& tr, int b, bool target);

}  // namespace tensorviz
