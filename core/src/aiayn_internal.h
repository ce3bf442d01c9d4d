// Private: attention-is-all-you-need-pytorch's model ("architecture": "aiayn"), its forward pass
// (aiayn_model.cpp); the backward is the graph walk of graph_backward.cpp.
#pragma once

#include <string>
#include <vector>

#include "model_internal.h"

namespace stepformer::detail {

struct AiaynPass {
    const ModelCtx& m;
    const ForwardOptions& opt;
    DropoutSites sites{m, opt};

    // A weight by any of its state_dict names (a shared one by its other names too).
    const float* w(const std::string& state_dict_name) const;
    // Each returns the name of the entry it added last.
    std::string layer_norm(Trace& tr, const Block& blk, const std::string& leaf, const std::string& in, AxisKind tk);
    std::string residual(Trace& tr, const Block& blk, const std::string& sub, const std::string& x, AxisKind tk);
    // `mask` names the traced mask (1 = keep); `fill` is its complement where the kernel reads it.
    std::string attention(Trace& tr, const Block& blk, const std::string& xq, const std::string& xkv,
                          const std::string& mask, const float* fill, AxisKind qk, AxisKind kk);
    std::string feed_forward(Trace& tr, const Block& blk, const std::string& in, AxisKind tk);
    std::string input(Trace& tr, Stack stack, const std::vector<int>& ids, int B, int L, const Tensor& pe_table);
};

void aiayn_forward(AiaynPass& pass, const Batch& batch, Trace& tr, const Tensor& pe_src, const Tensor& pe_tgt);

}  // namespace stepformer::detail
