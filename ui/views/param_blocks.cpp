#include "views/param_blocks.h"

#include <algorithm>
#include <cmath>

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

PooledValues poolLargest(const std::vector<float>& values, const ParamBlocks& b) {
    const int R = b.blockRows(), C = b.blockCols();
    auto out = std::make_shared<std::vector<float>>(size_t(R) * size_t(C), 0.0f);
    auto src = std::make_shared<std::vector<int64_t>>(size_t(R) * size_t(C), -1);
    if (values.size() != size_t(b.rows) * size_t(b.cols)) return {out, src};
    std::vector<float> best(size_t(C), -1.0f);
    for (int r = 0; r < b.rows; ++r) {
        const int br = r / b.rowStep;
        if (r % b.rowStep == 0) std::fill(best.begin(), best.end(), -1.0f);
        const float* row = values.data() + size_t(r) * size_t(b.cols);
        for (int c = 0; c < b.cols; ++c) {
            const int bc = c / b.colStep;
            const float a = std::fabs(row[c]);
            if (a > best[size_t(bc)]) {
                best[size_t(bc)] = a;
                const size_t cell = size_t(br) * size_t(C) + size_t(bc);
                (*out)[cell] = row[c];
                (*src)[cell] = int64_t(r) * b.cols + c;
            }
        }
    }
    return {out, src};
}

QStringList blockLabels(const QStringList& labels, int step) {
    if (step <= 1) return labels;
    QStringList out;
    for (int i = 0; i < labels.size(); i += step) {
        const int last = std::min<int>(int(labels.size()), i + step) - 1;
        out << (last == i ? labels[i] : labels[i] + QStringLiteral("\u2013") + labels[last]);
    }
    return out;
}
