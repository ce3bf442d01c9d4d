// The numbers the gradients view prints beside its heatmaps: norms and short values.
#pragma once

#include <vector>

#include <QString>

#include "stepformer/tensor.h"

namespace gradient_numbers {

// Four significant digits, or two decimals of scientific notation for the very small and large;
// "—" when not finite.
QString fmt(double v);
// The Euclidean norm.
double l2(const std::vector<float>& v);
inline double l2(const stepformer::Tensor& t) { return l2(t.data); }

}  // namespace gradient_numbers
