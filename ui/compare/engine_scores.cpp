#include "compare/engine_scores.h"

#include <cmath>

#include <Eigen/Core>

namespace scaling {

namespace {

using MatR = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MapR = Eigen::Map<MatR>;
using CMapR = Eigen::Map<const MatR>;

// CpuBackend::attn_scores_forward for one (sentence, head), the same expression.
std::vector<float> scores(const float* q, const float* k, int lq, int lk, int dk, float scale) {
    std::vector<float> out(size_t(lq) * lk);
    CMapR qm(q, lq, dk);
    CMapR km(k, lk, dk);
    MapR s(out.data(), lq, lk);
    s.noalias() = (qm * km.transpose()) * scale;
    return out;
}

}  // namespace

std::vector<float> engineProductScaled(const float* q, const float* k, int lq, int lk, int dk) {
    return scores(q, k, lq, lk, dk, 1.0f / std::sqrt(static_cast<float>(dk)));
}

std::vector<float> engineQueryScaled(const float* q, const float* k, int lq, int lk, int dk) {
    const float scale = static_cast<float>(1.0 / std::sqrt(double(dk)));
    std::vector<float> qs(size_t(lq) * dk);
    for (size_t i = 0; i < qs.size(); ++i) qs[i] = q[i] * scale;  // CpuBackend::scale
    return scores(qs.data(), k, lq, lk, dk, 1.0f);
}

}  // namespace scaling
