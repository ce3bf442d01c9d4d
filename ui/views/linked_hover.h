// Linked hover: which row and column of an operation's operands a cell of its output came from
// (issue 14). Pointing at scores[r, c] outlines Q's row r and Kᵀ's column c; at attn[r, c] the
// row r of the masked scores the softmax normalised; at a residual sum's cell the same cell of
// both summands. Read from the output entry's op and the operand's axes in the trace (never
// from names); where the rule is not sure (shapes that do not line up, flattened axes, a mean
// over everything), it links nothing rather than something wrong. No widgets here: TensorView
// applies the links to its heatmaps (tests/ui/test_linked_hover.cpp tests both).
#pragma once

#include <cstddef>

#include "stepformer/trace.h"

namespace linked_hover {

// What one index of an operand panel is, in terms of the hovered output cell (r, c).
enum class From { None, OutRow, OutCol };

// How an operand panel's row and column follow the output cell: for Q of the scores
// {OutRow, None}, for K shown as Kᵀ {None, OutCol}, element-wise {OutRow, OutCol}.
struct Link {
    From row = From::None;
    From col = From::None;
    bool any() const { return row != From::None || col != From::None; }
    bool operator==(const Link&) const = default;
};

Link transposed(Link l);

// A cell of a panel; -1 = no row / no column.
struct Cell {
    int row = -1;
    int col = -1;
    bool operator==(const Cell&) const = default;
};

// How input `i` of `out` (its 2-D slice at one batch item and head) relates to out's slice.
// `in` is that input's trace entry, or null for a parameter (a weight: its rows are the output
// features of a linear layer; only linked when the output is not split into heads).
Link inputLink(const stepformer::TraceEntry& out, size_t i, const stepformer::TraceEntry* in);

// The link of an operand panel showing trace entry `operand` beside step `out` (a forward entry,
// or a grad.* entry shown beside its tensor: the same cell). None when `operand` is not one of
// out's inputs.
Link panelLink(const stepformer::Trace& tr, const stepformer::TraceEntry& out, const stepformer::TraceEntry& operand);

// The operand's cell for output cell (r, c) (either may be -1: only a row or column known),
// each index dropped when outside the operand's rows x cols.
Cell operandCell(Link l, Cell out, int rows, int cols);
// The reverse: the output cell (as far as it is known) for the operand's cell (pr, pc), each
// index dropped when outside the output's rows x cols.
Cell outputCell(Link l, Cell operand, int outRows, int outCols);

}  // namespace linked_hover
