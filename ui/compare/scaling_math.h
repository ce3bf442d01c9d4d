// Issue 18: the same step of two architectures side by side. An attention block's scores
// computed from the trace's own P.Q and P.K in the two orders the seeds' models use:
//   A: the query scaled first, (q / √d_k)·kᵀ — attention-is-all-you-need-pytorch
//      (q / temperature, temperature = d_k ** 0.5, a Python float torch rounds to float32) and
//      PyTorch's nn.MultiheadAttention (1.13: q / math.sqrt(head_dim));
//   B: the product scaled, (q·kᵀ) / √d_k — the tutorial (seed 001: matmul(Q, Kᵀ) / np.sqrt(d_k)).
// Both in float32 on the host, in one plain loop with the same summation order (over d_k, from
// 0 up) and without fused multiply-adds (this file is compiled with -ffp-contract=off), so that
// the only difference between A and B is where the division by √d_k rounds. No Qt here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepformer/trace.h"

namespace scaling {

// Distance in units in the last place between two floats (0 when equal, also +0 / −0); the
// count of representable floats between them. Infinite or NaN: INT64_MAX unless equal.
int64_t ulpDistance(float a, float b);

// A row-wise softmax of a (rows, cols) matrix in float32, the max subtracted first.
std::vector<float> softmaxRows(const std::vector<float>& x, int rows, int cols);

// How close one matrix is to another.
struct Agreement {
    int differing = 0;     // cells not bit for bit equal
    int64_t maxUlp = 0;    // largest ulp distance
    double maxAbs = 0.0;   // largest |difference|
    bool equal() const { return differing == 0; }
};
Agreement agreement(const std::vector<float>& x, const std::vector<float>& y);

// The attention blocks of a trace: each block's prefix (P of P.Q, P.K, P.scores) in trace order.
std::vector<std::string> attentionBlocks(const stepformer::Trace& tr);
// The prefix of the attention block a trace entry belongs to, or "" when it is none's.
std::string blockOf(const stepformer::Trace& tr, const std::string& entryName);

struct Comparison {
    std::string block;            // P
    stepformer::Naming naming{};  // the tutorial's
    int sentence = 0, head = 0;
    int rows = 0, cols = 0, dk = 0;  // Lq, Lk, d_k
    float sqrtDk = 0.0f;          // √d_k rounded to float32, the divisor of both
    bool sqrtIsPowerOfTwo = false;  // d_k = 4ⁿ: dividing by √d_k is exact, so A and B are equal
    std::vector<float> a, b, traced;  // (rows, cols) each: A, B and the trace's P.scores
    std::vector<int64_t> ulps;     // |A − B| in ulps, per cell
    std::vector<float> diff;       // A − B, per cell (computed in double, stored as float)
    Agreement aVsB, traceVsA, traceVsB;
    // The engine's own two orders (engine_scores.h: Eigen's product, × fl(1/√d_k)), and how the
    // trace's P.scores compares with each: with one of them it is equal bit for bit when the
    // trace was computed on the CPU.
    std::vector<float> engineB, engineA;
    Agreement traceVsEngineA, traceVsEngineB;
    double softmaxMaxAbs = 0.0;   // max |softmax(A') − softmax(B')| with the block's mask applied
    std::vector<std::string> rowTokens, colTokens;
    std::string error;            // why nothing was computed
    bool ok() const { return error.empty(); }
};

// Compares the scores of `block` for one sentence and head of the trace. Masked cells (as the
// trace's P.masked_scores masks them) take the masked value in both softmaxes.
Comparison compare(const stepformer::Trace& tr, const std::string& block, int sentence, int head);

}  // namespace scaling
