// The norms the gradients view prints beside its heatmaps (numfmt::gradientStat prints them).
#pragma once

#include <vector>

#include "stepformer/tensor.h"

namespace gradient_numbers {

// The Euclidean norm.
double l2(const std::vector<float>& v);
inline double l2(const stepformer::Tensor& t) { return l2(t.data); }

}  // namespace gradient_numbers
