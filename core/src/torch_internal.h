// Private: PyTorch's layers ("architecture": "torch"), shared by their forward (torch_model.cpp)
// and backward (torch_backward.cpp) passes.
#pragma once

#include <string>

#include "model_internal.h"

namespace stepformer::detail {

struct TorchNames {
    explicit TorchNames(const Config& c);
    Naming naming;
};

// Where an attention block's mask comes from: an additive (B, H, Lq, Lk) tensor made on the host
// (the layer lab's attn_mask and key_padding_mask merged), or a 0/1 (B, Lq, Lk) mask in the
// backend's memory (1 = ignore; becomes −inf). Neither: no mask (P.mask is all zeros).
struct MaskSource {
    const Tensor* host_additive = nullptr;
    const float* bool_mask = nullptr;
};

// One forward pass: its context, its options, and a count of the dropout sites met so far.
struct TorchPass {
    const ModelCtx& m;
    const ForwardOptions& opt;
    TorchNames names;
    DropoutSites sites{m, opt};

    const Tensor* dropout(Trace& tr, const std::string& key, int64_t n) { return sites.draw(tr, key, n); }
    void linear(Tensor& y, const float* x, const float* W, const float* b, int N, int I, int O);
    // Each returns the name of the entry it added last (the block's or layer's output).
    std::string attention(Trace& tr, const Block& blk, const std::string& xq, const std::string& xkv,
                          const MaskSource& mask, AxisKind qk, AxisKind kk);
    std::string add(Trace& tr, const Block& blk, const std::string& leaf, const std::string& x, const std::string& sub,
                    AxisKind tk);
    // LayerNorm with its parameters `prefix`.weight / .bias; the entry is <layer>.<prefix>, or
    // <block>.out for a stack's final norm.
    std::string norm(Trace& tr, const Block& blk, const std::string& prefix, const std::string& in, AxisKind tk);
    std::string feed_forward(Trace& tr, const Block& blk, const std::string& in, AxisKind tk);
    std::string encoder_layer(Trace& tr, int i, const std::string& x, const MaskSource& mask);
    std::string decoder_layer(Trace& tr, int i, const std::string& x, const std::string& memory,
                              const MaskSource& self_mask, const MaskSource& cross_mask);
};

struct Ctx;  // backward_internal.h
// The backward pass over a torch or aiayn trace whose gradients at the output (the logits, or the
// layer lab's last entry) are pending in x.gs (graph_backward.cpp).
void graph_backward(Ctx& x, const Batch& batch);

void torch_forward_layers(TorchPass& pass, const Batch& batch, Trace& tr);
void torch_forward_seq2seq(TorchPass& pass, const Batch& batch, Trace& tr, const Tensor& pe_src, const Tensor& pe_tgt);

}  // namespace stepformer::detail
