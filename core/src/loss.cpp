#include "stepformer/loss.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace stepformer {

float token_loss(float p) { return -std::log(std::max(p, 1e-38f)); }

double cross_entropy_into(float* losses, const float* probs, const int* targets, int N, int V, int ignore_index,
                          int* counted) {
    double sum = 0.0;
    int count = 0;
    for (int n = 0; n < N; ++n) {
        if (targets[n] == ignore_index) {
            losses[n] = 0.0f;
            continue;
        }
        losses[n] = token_loss(probs[int64_t(n) * V + targets[n]]);
        sum += losses[n];
        ++count;
    }
    *counted = count;
    return sum;
}

CrossEntropy cross_entropy(const float* probs, const int* targets, int N, int V, int ignore_index) {
    CrossEntropy ce;
    ce.per_token.assign(size_t(std::max(N, 0)), 0.0f);
    ce.sum = cross_entropy_into(ce.per_token.data(), probs, targets, N, V, ignore_index, &ce.counted);
    return ce;
}

double log_sum_exp(const float* row, int n) {
    if (n <= 0) return -std::numeric_limits<double>::infinity();
    const double m = *std::max_element(row, row + n);
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += std::exp(double(row[i]) - m);
    return m + std::log(s);
}

}  // namespace stepformer
