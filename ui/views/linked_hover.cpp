#include "views/linked_hover.h"

#include <optional>
#include <vector>

using stepformer::Axis;
using stepformer::AxisKind;
using stepformer::Op;
using stepformer::TraceEntry;

namespace linked_hover {

namespace {

// One axis of a 2-D slice: its kind and length.
struct SliceAxis {
    AxisKind kind = AxisKind::Feature;
    int64_t size = 0;
};

// The row and column axes of an entry's slice at one batch item and head, as tensor_slice's
// slice() cuts it (the first Batch and Head axes fixed; one axis left is a single row, none a
// single cell). Empty when more than two axes are left (flattened into rows: no single axis).
struct SliceAxes {
    std::optional<SliceAxis> row, col;  // row empty: one row
    bool headed = false;                // had a head axis
};

std::optional<SliceAxes> sliceAxes(const TraceEntry& e) {
    const int rank = e.value.rank();
    if (e.axes.size() != size_t(rank)) return std::nullopt;
    SliceAxes s;
    bool batchFixed = false;
    std::vector<SliceAxis> free;
    for (int d = 0; d < rank; ++d) {
        const AxisKind k = e.axes[size_t(d)].kind;
        if (k == AxisKind::Batch && !batchFixed) {
            batchFixed = true;
        } else if (k == AxisKind::Head && !s.headed) {
            s.headed = true;
        } else {
            free.push_back({k, e.value.dim(d)});
        }
    }
    if (free.size() > 2) return std::nullopt;
    if (!free.empty()) s.col = free.back();
    if (free.size() == 2) s.row = free.front();
    return s;
}

bool positional(AxisKind k) { return k == AxisKind::SrcToken || k == AxisKind::TgtToken || k == AxisKind::Position; }

// Whether two axes index the same thing: the same kind (or a token axis and the position
// table's) and the same length.
bool same(const std::optional<SliceAxis>& a, const std::optional<SliceAxis>& b) {
    if (!a || !b || a->size != b->size) return false;
    return a->kind == b->kind || (positional(a->kind) && positional(b->kind));
}

const std::optional<SliceAxis>& outAxis(const SliceAxes& out, From f) { return f == From::OutRow ? out.row : out.col; }

// `l` kept only when each linked axis of the input is the output axis it claims to follow.
Link checked(Link l, const SliceAxes& out, const SliceAxes& in) {
    if (l.row != From::None && !same(in.row, outAxis(out, l.row))) return {};
    if (l.col != From::None && !same(in.col, outAxis(out, l.col))) return {};
    return l;
}

constexpr Link kRow{From::OutRow, From::None};
constexpr Link kCell{From::OutRow, From::OutCol};

}  // namespace

Link transposed(Link l) { return Link{l.col, l.row}; }

Link inputLink(const TraceEntry& out, size_t i, const TraceEntry* in) {
    const auto o = sliceAxes(out);
    if (!o) return {};
    if (!in) {
        // A parameter. A linear layer's weight [out_features, in_features]: output column c
        // is made by its row c (an FFN hidden unit's weights). Split into heads, column c of
        // head h is row h*d_k + c, which this slice does not know: nothing.
        if (out.op == Op::Linear && i == 1 && !o->headed) return Link{From::OutCol, From::None};
        return {};
    }
    const auto x = sliceAxes(*in);
    if (!x) return {};
    switch (out.op) {
    case Op::Linear:  // Y = X W^T: row r of X (the weight is handled above)
        return i == 0 ? checked(kRow, *o, *x) : Link{};
    case Op::ScaledMatMul:  // scores = Q K^T / sqrt(d_k): Q's row r, K's row c (K^T's column c)
        if (i == 0) return checked(kRow, *o, *x);
        if (i == 1) return checked(Link{From::OutCol, From::None}, *o, *x);
        return {};
    case Op::MatMul:  // context = attn V: attn's row r, V's column c
        if (i == 0) return checked(kRow, *o, *x);
        if (i == 1) return checked(Link{From::None, From::OutCol}, *o, *x);
        return {};
    case Op::Softmax:
    case Op::LayerNorm:  // each row normalised on its own: the whole row r
        return i == 0 ? checked(kRow, *o, *x) : Link{};
    case Op::Add:
    case Op::PositionalAdd:
    case Op::MaskFill:
    case Op::MaskAdd:
    case Op::MaskOr:
    case Op::Relu:
    case Op::Gelu:
    case Op::Scale:
    case Op::Gradient:  // element-wise (a gradient: the number it is the gradient of)
        return checked(kCell, *o, *x);
    case Op::CrossEntropy:  // loss of position t (a row of one) from probs' row t
        return i == 0 ? checked(Link{From::OutCol, From::None}, *o, *x) : Link{};
    case Op::Embedding:        // the table's row is the token id, not an index of the output
    case Op::PositionalTable:  // no inputs
    case Op::TokenMask:        // from token ids
    case Op::Mean:             // every number at once
    case Op::Sum:
    case Op::Input:            // given, not computed
    case Op::AdditiveMask:     // made from the masks PyTorch's forward takes
        return {};
    }
    return {};
}

Link panelLink(const stepformer::Trace& tr, const TraceEntry& out, const TraceEntry& operand) {
    for (size_t i = 0; i < out.inputs.size(); ++i)
        if (out.inputs[i] == operand.name) return inputLink(out, i, tr.find(operand.name));
    return {};
}

namespace {

int pick(From f, Cell c) { return f == From::OutRow ? c.row : f == From::OutCol ? c.col : -1; }
int inRange(int i, int n) { return i >= 0 && i < n ? i : -1; }

}  // namespace

Cell operandCell(Link l, Cell out, int rows, int cols) {
    return Cell{inRange(pick(l.row, out), rows), inRange(pick(l.col, out), cols)};
}

Cell outputCell(Link l, Cell operand, int outRows, int outCols) {
    Cell o;
    const auto put = [&o](From f, int i) {
        if (f == From::OutRow) o.row = i;
        if (f == From::OutCol) o.col = i;
    };
    put(l.row, operand.row);
    put(l.col, operand.col);
    return Cell{inRange(o.row, outRows), inRange(o.col, outCols)};
}

}  // namespace linked_hover
