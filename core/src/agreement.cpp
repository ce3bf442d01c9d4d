#include "stepformer/agreement.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace stepformer::agreement {

namespace {

bool wellFormed(const stepformer::Tensor& t) {
    for (int64_t d : t.shape)
        if (d < 0) return false;
    return stepformer::numel(t.shape) == t.size();
}

}  // namespace

TensorDiff compare(const stepformer::Tensor& a, const stepformer::Tensor& b) {
    TensorDiff r;
    if (!wellFormed(a) || !wellFormed(b)) {
        r.error = "a tensor's numbers do not fill its shape (" + stepformer::shape_to_string(a.shape) + " with " +
                  std::to_string(a.size()) + " numbers, " + stepformer::shape_to_string(b.shape) + " with " +
                  std::to_string(b.size()) + ")";
        return r;
    }
    if (a.shape != b.shape) {
        r.error = "the shapes differ: " + stepformer::shape_to_string(a.shape) + " and " +
                  stepformer::shape_to_string(b.shape);
        return r;
    }
    r.count = a.size();
    r.difference = stepformer::Tensor(a.shape);
    // memcmp, not ==: "bit for bit" promises the same floats, and == calls −0 and +0 equal.
    r.bitIdentical = r.count == 0 || std::memcmp(a.ptr(), b.ptr(), sizeof(float) * size_t(r.count)) == 0;
    for (int64_t i = 0; i < r.count; ++i) {
        const float x = a.data[size_t(i)], y = b.data[size_t(i)];
        r.difference.data[size_t(i)] = x - y;
        const bool fx = std::isfinite(x), fy = std::isfinite(y);
        r.nanA += std::isnan(x);
        r.nanB += std::isnan(y);
        r.infA += std::isinf(x);
        r.infB += std::isinf(y);
        if (fy) r.maxRef = std::max(r.maxRef, std::fabs(double(y)));
        if (fx && fy) {
            if (x != y) ++r.differing;
            // In double: two large floats of opposite sign differ by more than a float holds.
            const double d = std::fabs(double(x) - double(y));
            if (d > r.maxAbs) {
                r.maxAbs = d;
                r.maxAbsIndex = i;
            }
            continue;
        }
        const bool same = (std::isnan(x) && std::isnan(y)) || x == y;  // both NaN, or the same infinity
        if (!same) {
            ++r.differing;
            ++r.nonFiniteMismatch;
        }
    }
    if (r.maxAbs > 0.0) r.maxRel = r.maxRef > 0.0 ? r.maxAbs / r.maxRef : HUGE_VAL;
    return r;
}

}  // namespace stepformer::agreement
