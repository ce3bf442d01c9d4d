#include "views/gradient_numbers.h"

#include <cmath>

namespace gradient_numbers {

// In SIMD lanes (no threads): one running sum was a long dependency chain, ~1 ms per weight of
// a million numbers; the norms are shown to 4 digits, which the summation order does not move.
double l2(const std::vector<float>& v) {
    double s = 0.0;
    const float* p = v.data();
    const size_t n = v.size();
#pragma omp simd reduction(+ : s)
    for (size_t i = 0; i < n; ++i) s += double(p[i]) * double(p[i]);
    return std::sqrt(s);
}

}  // namespace gradient_numbers
