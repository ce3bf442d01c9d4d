#include "widgets/heatmap_values.h"

#include <algorithm>
#include <limits>

#include <Eigen/Core>

namespace heatmap {

namespace {

ValueScan scanValues(const std::vector<float>& values, const std::vector<unsigned char>& mask) {
    constexpr float inf = std::numeric_limits<float>::infinity();
    if (values.empty()) return {inf, -inf, inf, -inf, false, false, false};
    const Eigen::Map<const Eigen::ArrayXf> x(values.data(), Eigen::Index(values.size()));
    // The common case (a weight or an activation: no mask, no fills, no NaN) in three cheap
    // passes; the flags stop at the first cell that decides them. ~5x faster on a million cells.
    if (mask.empty()) {
        const float lo = x.minCoeff(), hi = x.maxCoeff();
        if (lo > -kFillThreshold && hi < kFillThreshold && !x.isNaN().any())
            return {lo, hi, lo, hi, false, (x != x.floor() || x.abs() > 1e6f).any(), (x != 0.0f && x != 1.0f).any()};
    }
    const auto a = x.abs();
    const auto plain = a < kFillThreshold;  // false for NaN, inf and the fills
    ValueScan s;
    s.allLo = plain.select(x, inf).minCoeff();
    s.allHi = plain.select(x, -inf).maxCoeff();
    s.negInf = (x == -inf).any();
    s.fill = (a >= kFillThreshold && a <= std::numeric_limits<float>::max()).any() || s.negInf;
    s.fraction = (plain && (x != x.floor() || a > 1e6f)).any();
    s.notZeroOne = (plain && x != 0.0f && x != 1.0f).any();
    if (mask.empty()) {
        s.lo = s.allLo;
        s.hi = s.allHi;
    } else {
        const Eigen::Map<const Eigen::Array<unsigned char, Eigen::Dynamic, 1>> m(mask.data(), Eigen::Index(mask.size()));
        const auto counted = plain && m == 0;
        s.lo = counted.select(x, inf).minCoeff();
        s.hi = counted.select(x, -inf).maxCoeff();
    }
    return s;
}

}  // namespace

ValueScan scanShared(const std::shared_ptr<const std::vector<float>>& values, const std::vector<unsigned char>& mask) {
    if (!mask.empty() || values->size() < 4096) return scanValues(*values, mask);
    struct Seen {
        std::weak_ptr<const std::vector<float>> owner;
        const std::vector<float>* data;
        ValueScan scan;
    };
    static std::vector<Seen> seen;
    std::erase_if(seen, [](const Seen& s) { return s.owner.expired(); });
    for (const Seen& s : seen)
        if (s.data == values.get()) return s.scan;
    if (seen.size() >= 64) seen.erase(seen.begin());
    seen.push_back({values, values.get(), scanValues(*values, mask)});
    return seen.back().scan;
}

}  // namespace heatmap
