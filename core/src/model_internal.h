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
    // LayerNorm gamma or beta of block `prefix`; nullptr (1 or 0) when the config does not learn them.
    const float* norm_w(const std::string& prefix, const char* which) const {
        return c.learn_layer_norm ? w(prefix + ".layer_norm." + which) : nullptr;
    }
};

Axis ax(AxisKind k, const char* name);

}  // namespace stepformer::detail
