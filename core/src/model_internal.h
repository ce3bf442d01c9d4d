// Private: pieces shared by the forward (model.cpp) and backward (model_backward.cpp) passes.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "stepformer/model.h"
#include "stepformer/staging.h"
#include "stepformer/trace_names.h"

namespace stepformer::detail {

// Kernel addresses come from the pass's staging: a trace entry's value, a weight, a token id
// array, each where the backend computes (the host storage itself on the CPU).
struct ModelCtx {
    const Config& c;
    const ParamSet& p;
    Backend& be;
    Staging& st;
    const std::unordered_map<const float*, const float*>* resident;  // Transformer::resident_weights()
    const float* w(const std::string& name) const { return weight(p.at(name)); }
    const float* weight(const Tensor& t) const { return resident ? resident->at(t.ptr()) : st.in(t); }
    // LayerNorm gamma or beta of a block; nullptr (1 or 0) when the config does not learn them.
    const float* norm_w(const Block& b, const char* which) const {
        return c.learn_layer_norm ? w(names::param(b, std::string("layer_norm.") + which)) : nullptr;
    }
    // A LayerNorm's inputs: the residual sum, then gamma and beta where they are parameters.
    std::vector<std::string> norm_inputs(const Block& b, const std::string& residual) const {
        if (!c.learn_layer_norm) return {residual};
        return {residual, names::param(b, "layer_norm.weight"), names::param(b, "layer_norm.bias")};
    }
};

Axis ax(AxisKind k, const char* name);

// Dropout where a model puts it, in training only: each call draws the keep mask (n) of the pass's
// next site, saved as trace.saved[key + ".dropout_keep"]; null outside training or at p = 0. One
// Philox stream per site and step: the same seed and step draw the same masks on every backend.
struct DropoutSites {
    const ModelCtx& m;
    const ForwardOptions& opt;
    int site = 0;
    // p < 0: the model's dropout (Config::dropout).
    const Tensor* draw(Trace& tr, const std::string& key, int64_t n, double p = -1.0);
};

}  // namespace stepformer::detail
