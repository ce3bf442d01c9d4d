#include "widgets/downsample.h"

#include <algorithm>
#include <cmath>

namespace downsample {

std::vector<std::vector<std::pair<int, double>>> weights(int cells, int pixels, double cellsPerPixel, double first) {
    std::vector<std::vector<std::pair<int, double>>> out(size_t(std::max(pixels, 0)));
    // The window: a pixel's width in cells, rounded up to an even number of cells (at least 2),
    // so a pattern alternating every cell averages out exactly.
    const double window = std::max(2.0, 2.0 * std::ceil(cellsPerPixel / 2.0 - 1e-9));
    for (int p = 0; p < pixels; ++p) {
        const double centre = first + (p + 0.5) * cellsPerPixel;
        double a = centre - window / 2, b = centre + window / 2;
        // At the edges the window slides inwards (the first and last cells keep their weight).
        if (a < 0) b = std::min(double(cells), b - a), a = 0;
        if (b > cells) a = std::max(0.0, a - (b - cells)), b = cells;
        double total = 0;
        auto& w = out[size_t(p)];
        for (int c = std::max(0, int(a)); c < cells && c < b; ++c) {
            const double overlap = std::min(b, c + 1.0) - std::max(a, double(c));
            if (overlap <= 1e-12) continue;
            w.push_back({c, overlap});
            total += overlap;
        }
        for (auto& [c, wt] : w) wt /= total > 0 ? total : 1.0;
    }
    return out;
}

}  // namespace downsample
