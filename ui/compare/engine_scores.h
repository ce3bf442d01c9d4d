// The scores as Stepformer's CPU engine computes them, computed by the engine itself (a CPU
// backend's attn_scores_forward and scale, in the kernel set this CPU runs): what the trace's
// P.scores is compared with bit for bit. Its summation order is the kernel set's GEMM's (packets,
// fused multiply-adds), not the plain loop's of scaling_math.cpp.
#pragma once

#include <vector>

namespace scaling {

// (q·kᵀ) × fl(1/√d_k): the tutorial's engine code (core/src/engine/forward.cpp: the scale in the product).
std::vector<float> engineProductScaled(const float* q, const float* k, int lq, int lk, int dk);
// (q × fl(1/√d_k))·kᵀ: the aiayn and torch models' (q_scaled, or the query scaled first, then the product × 1).
std::vector<float> engineQueryScaled(const float* q, const float* k, int lq, int lk, int dk);

}  // namespace scaling
