// Private: what the forward engine (engine/) and the backward pass (engine/backward.cpp) read weights through.
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
};

// The ids a step with Attrs::stream reads: a token stream of the batch, or the positions 0, 1, ...
// (Stream::Position: a prefix of one array as long as any sequence may be).
const std::vector<int>& stream_ids(const Batch& b, int stream);

}  // namespace stepformer::detail
