// A weight too large to read entry by entry (512 × 512, 2048 × 512) shown whole: its entries are
// grouped into blocks of rows × columns and each block is drawn as one cell holding the block's
// entry of largest magnitude, with its sign. The largest rather than the mean: a weight's or a
// gradient's signs mostly cancel in a mean, which would paint the overview white; the extreme
// keeps "where are the big numbers, and which way do they point" visible.
// A NaN or ±inf wins its block (the first of the block): a bad entry is never hidden.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include <QString>
#include <QStringList>

struct ParamBlocks {
    int rows = 0, cols = 0;        // of the weight
    int rowStep = 1, colStep = 1;  // entries per block
    int blockRows() const { return rowStep > 0 ? (rows + rowStep - 1) / rowStep : 0; }
    int blockCols() const { return colStep > 0 ? (cols + colStep - 1) / colStep : 0; }
    bool pooled() const { return rowStep > 1 || colStep > 1; }
    // The entries block (r, c) covers: [first, last] rows and columns.
    int firstRow(int r) const { return r * rowStep; }
    int lastRow(int r) const { return std::min(rows, (r + 1) * rowStep) - 1; }
    int firstCol(int c) const { return c * colStep; }
    int lastCol(int c) const { return std::min(cols, (c + 1) * colStep) - 1; }
};

// The blocks for a rows × cols weight: an axis longer than its `max…` is grouped into blocks of
// ceil(n / max) entries (so at most max are shown); a shorter one is shown entry by entry.
ParamBlocks paramBlocks(int rows, int cols, int maxRows = 64, int maxCols = 64);

// The cells of the overview (blockRows × blockCols, row-major) and, for each, the index into
// `values` of the entry it shows.
struct PooledValues {
    std::shared_ptr<const std::vector<float>> values;
    std::shared_ptr<const std::vector<int64_t>> source;
};
PooledValues poolLargest(const std::vector<float>& values, const ParamBlocks& b);

// Labels of the blocks: "first–last" of the entries' labels ("0–7", "h0·0–h0·7"); unchanged
// when the axis is not grouped.
QStringList blockLabels(const QStringList& labels, int step);
