#include "compare/engine_scores.h"

#include <cmath>

#include "stepformer/backend.h"

namespace scaling {

namespace {

// The engine itself: CpuBackend::attn_scores_forward for one (sentence, head), on one thread. Its
// products run in the kernel set this CPU uses (stepformer/cpu_kernels.h), so the replay rounds
// exactly as the trace was rounded on any CPU.
stepformer::Backend& engine() {
    static const std::unique_ptr<stepformer::Backend> cpu = stepformer::make_cpu_backend(1);
    return *cpu;
}

std::vector<float> scores(const float* q, const float* k, int lq, int lk, int dk, float scale) {
    std::vector<float> out(size_t(lq) * lk);
    engine().attn_scores_forward(out.data(), q, k, 1, lq, lk, dk, scale);
    return out;
}

}  // namespace

std::vector<float> engineProductScaled(const float* q, const float* k, int lq, int lk, int dk) {
    return scores(q, k, lq, lk, dk, 1.0f / std::sqrt(static_cast<float>(dk)));
}

std::vector<float> engineQueryScaled(const float* q, const float* k, int lq, int lk, int dk) {
    const float scale = static_cast<float>(1.0 / std::sqrt(double(dk)));
    std::vector<float> qs(size_t(lq) * dk);
    engine().scale(qs.data(), q, int64_t(qs.size()), scale);  // CpuBackend::scale, as the model scales q
    return scores(qs.data(), k, lq, lk, dk, 1.0f);
}

}  // namespace scaling
