// The training loss, nn.CrossEntropyLoss(ignore_index) over the softmax probabilities, as the
// model computes it: −log p of each target in float, summed in double over the counted rows.
// It lives here once so the backends and the GUI's loss view show the same numbers, bit for bit.
#pragma once

#include <vector>

namespace stepformer {

// −log p of one target. The clamp turns an underflowed probability into a large finite loss
// (87.3), not inf, so a badly wrong model still trains and displays.
float token_loss(float p);

struct CrossEntropy {
    std::vector<float> per_token;  // (N): −log p[target]; 0 where the target is ignored
    double sum = 0.0;              // of the counted rows' losses
    int counted = 0;               // rows whose target is not ignore_index
    // sum / counted, in double (0 when nothing is counted).
    double mean() const { return counted ? sum / counted : 0.0; }
    // The model's `loss` value: the mean rounded to float.
    float loss() const { return static_cast<float>(mean()); }
};

// probs (N, V) row-major, targets (N) in [0, V).
CrossEntropy cross_entropy(const float* probs, const int* targets, int N, int V, int ignore_index);

// The same into caller-owned `losses` (N), for the backends; returns the sum, writes the count.
double cross_entropy_into(float* losses, const float* probs, const int* targets, int N, int V, int ignore_index,
                          int* counted);

// log Σ exp(row[i]) in double, max-shifted: the softmax's denominator, which the loss view
// writes out to explain p = exp(z − log Σ e^z).
double log_sum_exp(const float* row, int n);

}  // namespace stepformer
