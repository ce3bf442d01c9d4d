#include "views/param_blocks.h"

#include <algorithm>
#include <cmath>
#include <limits>

ParamBlocks paramBlocks(int rows, int cols, int maxRows, int maxCols) {
    ParamBlocks b;
    b.rows = std::max(0, rows);
    b.cols = std::max(0, cols);
    const auto step = [](int n, int most) {
        most = std::max(1, most);
        return n > most ? (n + most - 1) / most : 1;
    };
    b.rowStep = step(b.rows, maxRows);
    b.colStep = step(b.cols, maxCols);
    return b;
}

namespace {

// A block's best once it holds a NaN or ±inf: no finite magnitude beats it.
constexpr float kNonFinite = std::numeric_limits<float>::infinity();

// The largest |x| of a row segment, in eight independent lanes so that the compiler turns it into
// vector max instructions (a plain running max is a reduction it may not reorder). `finite` says
// whether every entry is finite: x·0 is NaN for NaN and ±inf and 0 for the rest, summed per lane.
float segmentMaxAbs(const float* x, int n, bool* finite) {
    float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0}, zero[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; ++k) {
            lane[k] = std::max(lane[k], std::fabs(x[i + k]));
            zero[k] += x[i + k] * 0.0f;
        }
    float m = 0.0f, z = 0.0f;
    for (int k = 0; k < 8; ++k) {
        m = std::max(m, lane[k]);
        z += zero[k];
    }
    for (; i < n; ++i) {
        m = std::max(m, std::fabs(x[i]));
        z += x[i] * 0.0f;
    }
    *finite = z == 0.0f;
    return m;
}

}  // namespace

PooledValues poolLargest(const std::vector<float>& values, const ParamBlocks& b) {
    const int R = b.blockRows(), C = b.blockCols();
    auto out = std::make_shared<std::vector<float>>(size_t(R) * size_t(C), 0.0f);
    auto src = std::make_shared<std::vector<int64_t>>(size_t(R) * size_t(C), -1);
    if (values.size() != size_t(b.rows) * size_t(b.cols)) return {out, src};
    // A million entries per weight and three weights per step: each row segment is scanned for its
    // largest magnitude first, and only a segment that beats its block's best so far is searched
    // for the entry (the first of equals, as a running comparison would pick it).
    std::vector<float> best(size_t(C), -1.0f);
    for (int r = 0; r < b.rows; ++r) {
        const int br = r / b.rowStep;
        if (r % b.rowStep == 0) std::fill(best.begin(), best.end(), -1.0f);
        const float* row = values.data() + size_t(r) * size_t(b.cols);
        for (int bc = 0; bc < C; ++bc) {
            const int c0 = b.firstCol(bc), n = b.lastCol(bc) - c0 + 1;
            bool finite = true;
            const float m = segmentMaxAbs(row + c0, n, &finite);
            const size_t cell = size_t(br) * size_t(C) + size_t(bc);
            if (!finite) {
                // A NaN or ±inf wins its block, so a bad entry is never hidden by a block's
                // largest finite one (the first such entry of the block is shown).
                if (best[size_t(bc)] == kNonFinite) continue;
                int c = c0;
                while (std::isfinite(row[c])) ++c;
                best[size_t(bc)] = kNonFinite;
                (*out)[cell] = row[c];
                (*src)[cell] = int64_t(r) * b.cols + c;
                continue;
            }
            if (!(m > best[size_t(bc)])) continue;
            int c = c0;
            while (std::fabs(row[c]) != m) ++c;  // a finite segment: one of its entries is m
            best[size_t(bc)] = m;
            (*out)[cell] = row[c];
            (*src)[cell] = int64_t(r) * b.cols + c;
        }
    }
    return {out, src};
}

QStringList blockLabels(const QStringList& labels, int step) {
    if (step <= 1) return labels;
    QStringList out;
    for (int i = 0; i < labels.size(); i += step) {
        const int last = std::min<int>(int(labels.size()), i + step) - 1;
        out << (last == i ? labels[i] : labels[i] + QStringLiteral("–") + labels[last]);
    }
    return out;
}
