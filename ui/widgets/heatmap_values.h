// What the heatmap reads from its numbers (private to widgets/heatmap_*.cpp): which values are the
// -1e9 mask fill, and one scan of all of them for the colour range and the kind of numbers.
#pragma once

#include <cmath>
#include <memory>
#include <vector>

namespace heatmap {

constexpr float kFillThreshold = 1e8f;  // |v| at or beyond this is a mask fill (-1e9)

// −∞ is PyTorch's mask fill (an additive attn_mask, scores + mask): shown as masked too, never as
// a broken colour. NaN and +∞ stay what they are.
inline bool isFill(float v) { return (std::isfinite(v) && std::fabs(v) >= kFillThreshold) || v == -INFINITY; }

// What rebuildColors needs from the values (a weight has a million): the range of the
// unmasked cells, the range of all cells (for when every cell is masked), fills, whole numbers,
// 0/1. NaN, inf and the -1e9 fills count for neither range. In Eigen's passes: one hand-written
// loop doing all of it measured slower (the compiler kept it scalar, even with omp simd).
struct ValueScan {
    float lo, hi, allLo, allHi;  // lo > hi: none
    bool fill, fraction, notZeroOne;
    bool negInf = false;  // some fill is −∞ (PyTorch's additive mask) rather than −1e9
};

// The scan of shared numbers with their mask (empty = none), remembered while they live: the
// gradients view shows the same weights (a million numbers each) again as the student steps back
// and forth. A number set is the same while its owner is alive (shared numbers must not change
// while shown).
ValueScan scanShared(const std::shared_ptr<const std::vector<float>>& values, const std::vector<unsigned char>& mask);

}  // namespace heatmap
