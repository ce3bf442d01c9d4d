// Private: pieces shared by the forward (model.cpp) and backward (model_backward.cpp) passes.
#pragma once

#include <string>

#include "stepformer/model.h"

namespace stepformer::detail {

struct ModelCtx {
    const Config& c;
    const ParamSet& p;
    Backend& be;
    const float* w(const std::string& name) const { return p.at(name).ptr(); }
};

Axis ax(AxisKind k, const char* name);

}  // namespace stepformer::detail
