#include "views/gradient_numbers.h"

#include <cmath>

namespace gradient_numbers {

QString fmt(double v) {
    if (!std::isfinite(v)) return QStringLiteral("\u2014");
    QString s = (v != 0.0 && (std::fabs(v) < 1e-3 || std::fabs(v) >= 1e4)) ? QString::number(v, 'e', 2)
                                                                             : QString::number(v, 'g', 4);
    if (s.startsWith(QLatin1Char('-'))) s.replace(0, 1, QStringLiteral("\u2212"));
    return s;
}

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
