// The architecture diagram of a translation model around PyTorch's nn.Transformer
// ("architecture": "torch"): the paper's figure as PyTorch builds it — biases on every
// projection, the activation it was given, nn.Transformer's final encoder.norm / decoder.norm and
// the generator — in two orders: post-norm (norm_first=False: Add & Norm after each sub-layer, as
// the tutorial's) and pre-norm (norm_first=True: a LayerNorm before each sub-layer, the residual
// around both into a ⊕). The same design space as the tutorial's picture (diagram_layout.h),
// taller by kTorchShift so the final norms fit above the stacks.
#pragma once

#include "architecture/diagram_layout.h"

namespace architecture {

constexpr qreal kTorchShift = 34;  // the stacks and inputs sit this much lower than the tutorial's
constexpr qreal kTorchH = kH + kTorchShift;
constexpr qreal kTorchFrameBottom = kFrameBottom + kTorchShift, kTorchEncFrameTop = kEncFrameTop + kTorchShift,
                kTorchDecFrameTop = kDecFrameTop + kTorchShift;
constexpr qreal kTorchAddY = kAddY + kTorchShift;
constexpr qreal kSumR = 8;  // a pre-norm layer's residual ⊕

// "%act" in a label is replaced by the model's activation (ReLU / GELU). The blocks whose
// projections have biases carry a "+b" badge (kBiasBadge).
inline constexpr BlockSpec kTorchCommon[] = {
    box("encoder.embedding", "src_tok_emb × √d_model", kEncX0 - 12, 490, kEncX1 + 8, 514, kEmbedding),
    circle("encoder.pe", "positional_encoding", Shape::PeIcon, kEncCx - 36, kTorchAddY, kPeR),
    circle("encoder.add_pe", "+", Shape::Circle, kEncCx, kTorchAddY, kAddR),
    box("encoder.final_norm", "encoder.norm", kEncX0, 206, kEncX1, 228, kNorm),
    box("decoder.embedding", "tgt_tok_emb × √d_model", kDecX0 - 8, 490, kDecX1 + 12, 514, kEmbedding),
    circle("decoder.pe", "positional_encoding", Shape::PeIcon, kDecCx + 36, kTorchAddY, kPeR),
    circle("decoder.add_pe", "+", Shape::Circle, kDecCx, kTorchAddY, kAddR),
    box("decoder.final_norm", "decoder.norm", kDecX0, 100, kDecX1, 122, kNorm),
    box("linear", "generator (Linear)", 226, 64, 332, 88, kLinear),
    box("softmax", "Softmax", 234, 30, 324, 52, kSoftmax),
};

// norm_first=False: the tutorial's places, lower by kTorchShift.
inline constexpr BlockSpec kTorchPostNorm[] = {
    box("encoder.mha", "self_attn\nattention", kEncX0, 384, kEncX1, 424, kAttention),
    box("encoder.mha_norm", "add1 & norm1", kEncX0, 346, kEncX1, 368, kNorm),
    box("encoder.ffn", "linear1 · %act\n· linear2", kEncX0, 294, kEncX1, 332, kFfn),
    box("encoder.ffn_norm", "add2 & norm2", kEncX0, 256, kEncX1, 278, kNorm),
    box("decoder.masked_mha", "self_attn\nmasked attention", kDecX0, 384, kDecX1, 424, kAttention),
    box("decoder.masked_mha_norm", "add1 & norm1", kDecX0, 346, kDecX1, 368, kNorm),
    box("decoder.cross_mha", "multihead_attn\ncross-attention", kDecX0, 292, kDecX1, 332, kAttention),
    box("decoder.cross_mha_norm", "add2 & norm2", kDecX0, 256, kDecX1, 278, kNorm),
    box("decoder.ffn", "linear1 · %act\n· linear2", kDecX0, 200, kDecX1, 238, kFfn),
    box("decoder.ffn_norm", "add3 & norm3", kDecX0, 164, kDecX1, 186, kNorm),
};

// norm_first=True: LayerNorm, sub-layer, ⊕ with the residual that went around both.
inline constexpr BlockSpec kTorchPreNorm[] = {
    box("encoder.mha_norm", "norm1", kEncX0 + 16, 414, kEncX1 - 16, 430, kNorm),
    box("encoder.mha", "self_attn\nattention", kEncX0, 368, kEncX1, 400, kAttention),
    circle("encoder.mha_add", "+", Shape::Circle, kEncCx, 356, kSumR),
    box("encoder.ffn_norm", "norm2", kEncX0 + 16, 318, kEncX1 - 16, 334, kNorm),
    box("encoder.ffn", "linear1 · %act\n· linear2", kEncX0, 280, kEncX1, 310, kFfn),
    circle("encoder.ffn_add", "+", Shape::Circle, kEncCx, 268, kSumR),
    box("decoder.masked_mha_norm", "norm1", kDecX0 + 16, 414, kDecX1 - 16, 430, kNorm),
    box("decoder.masked_mha", "self_attn\nmasked attention", kDecX0, 370, kDecX1, 400, kAttention),
    circle("decoder.masked_mha_add", "+", Shape::Circle, kDecCx, 358, kSumR),
    box("decoder.cross_mha_norm", "norm2", kDecX0 + 40, 320, kDecX1 - 12, 336, kNorm),
    box("decoder.cross_mha", "multihead_attn\ncross-attention", kDecX0, 274, kDecX1, 304, kAttention),
    circle("decoder.cross_mha_add", "+", Shape::Circle, kDecCx, 262, kSumR),
    box("decoder.ffn_norm", "norm3", kDecX0 + 16, 224, kDecX1 - 16, 240, kNorm),
    box("decoder.ffn", "linear1 · %act\n· linear2", kDecX0, 188, kDecX1, 216, kFfn),
    circle("decoder.ffn_add", "+", Shape::Circle, kDecCx, 176, kSumR),
};

// The blocks drawn with a "+b" badge: every linear map of PyTorch's layers has a bias.
inline constexpr const char* kBiasBadge[] = {"encoder.mha", "encoder.ffn", "decoder.masked_mha", "decoder.cross_mha",
                                            "decoder.ffn", "linear"};

// A polyline of up to five points, with an arrow head at its end or not.
struct Arrow {
    int n;
    QPointF pts[5];
    bool head;
};

constexpr Arrow line(QPointF a, QPointF b, bool head = true) { return {2, {a, b}, head}; }
constexpr Arrow line3(QPointF a, QPointF b, QPointF c, bool head = true) { return {3, {a, b, c}, head}; }
constexpr Arrow line4(QPointF a, QPointF b, QPointF c, QPointF d, bool head = true) { return {4, {a, b, c, d}, head}; }

// What both orders share: the inputs, the embeddings, the final norms, the memory, the output.
inline constexpr Arrow kTorchCommonArrows[] = {
    line({kEncCx, 524}, {kEncCx, 514}),
    line({kEncCx, 490}, {kEncCx, kTorchAddY + kAddR}),
    line({kEncCx - 36 + kPeR, kTorchAddY}, {kEncCx - kAddR, kTorchAddY}),
    line({kDecCx, 524}, {kDecCx, 514}),
    line({kDecCx, 490}, {kDecCx, kTorchAddY + kAddR}),
    line({kDecCx + 36 - kPeR, kTorchAddY}, {kDecCx + kAddR, kTorchAddY}),
    line({kDecCx, 100}, {kDecCx, 88}),  // decoder.norm -> generator
    line({kDecCx, 64}, {kDecCx, 52}),
    line({kDecCx, 30}, {kDecCx, 20}),
};

inline constexpr Arrow kTorchPostArrows[] = {
    // Encoder.
    line({kEncCx, kTorchAddY - kAddR}, {kEncCx, 436}, false),
    line({kEncLane, 436}, {kEncCx + 30, 436}, false),
    line({kEncCx - 30, 436}, {kEncCx - 30, 424}),
    line({kEncCx, 436}, {kEncCx, 424}),
    line({kEncCx + 30, 436}, {kEncCx + 30, 424}),
    line3({kEncLane, 436}, {kEncLane, 357}, {kEncX0, 357}),
    line({kEncCx, 384}, {kEncCx, 368}),
    line({kEncCx, 346}, {kEncCx, 332}),
    line4({kEncCx, 339}, {kEncLane, 339}, {kEncLane, 267}, {kEncX0, 267}),
    line({kEncCx, 294}, {kEncCx, 278}),
    line({kEncCx, 256}, {kEncCx, 228}),  // -> encoder.norm
    // The memory -> the keys and values of multihead_attn.
    line4({kEncX1, 217}, {200, 217}, {200, 340}, {kDecX0 + 30, 340}, false),
    line({kDecX0 + 14, 340}, {kDecX0 + 14, 332}),
    line({kDecX0 + 30, 340}, {kDecX0 + 30, 332}),
    // Decoder.
    line({kDecCx, kTorchAddY - kAddR}, {kDecCx, 436}, false),
    line({kDecCx - 30, 436}, {kDecLane, 436}, false),
    line({kDecCx - 30, 436}, {kDecCx - 30, 424}),
    line({kDecCx, 436}, {kDecCx, 424}),
    line({kDecCx + 30, 436}, {kDecCx + 30, 424}),
    line3({kDecLane, 436}, {kDecLane, 357}, {kDecX1, 357}),
    line({kDecCx, 384}, {kDecCx, 368}),
    line({kDecCx + 26, 346}, {kDecCx + 26, 332}),
    line4({kDecCx + 26, 339}, {kDecLane, 339}, {kDecLane, 267}, {kDecX1, 267}),
    line({kDecCx, 292}, {kDecCx, 278}),
    line({kDecCx, 256}, {kDecCx, 238}),
    line4({kDecCx, 247}, {kDecLane, 247}, {kDecLane, 175}, {kDecX1, 175}),
    line({kDecCx, 200}, {kDecCx, 186}),
    line({kDecCx, 164}, {kDecCx, 122}),  // -> decoder.norm
};

inline constexpr Arrow kTorchPreArrows[] = {
    // Encoder: x -> norm1 -> self_attn -> ⊕ (x around both), then norm2 -> feed-forward -> ⊕.
    line({kEncCx, kTorchAddY - kAddR}, {kEncCx, 440}, false),
    line({kEncCx, 440}, {kEncCx, 430}),
    line4({kEncCx, 440}, {kEncLane, 440}, {kEncLane, 356}, {kEncCx - kSumR, 356}),
    line({kEncCx, 414}, {kEncCx, 408}, false),
    line({kEncCx - 30, 408}, {kEncCx + 30, 408}, false),
    line({kEncCx - 30, 408}, {kEncCx - 30, 400}),
    line({kEncCx, 408}, {kEncCx, 400}),
    line({kEncCx + 30, 408}, {kEncCx + 30, 400}),
    line({kEncCx, 368}, {kEncCx, 356 + kSumR}),
    line({kEncCx, 356 - kSumR}, {kEncCx, 334}),
    line4({kEncCx, 342}, {kEncLane, 342}, {kEncLane, 268}, {kEncCx - kSumR, 268}),
    line({kEncCx, 318}, {kEncCx, 310}),
    line({kEncCx, 280}, {kEncCx, 268 + kSumR}),
    line({kEncCx, 268 - kSumR}, {kEncCx, 228}),  // -> encoder.norm
    // The memory -> the keys and values of multihead_attn (left of norm2).
    line4({kEncX1, 217}, {200, 217}, {200, 312}, {kDecX0 + 30, 312}, false),
    line({kDecX0 + 14, 312}, {kDecX0 + 14, 304}),
    line({kDecX0 + 30, 312}, {kDecX0 + 30, 304}),
    // Decoder.
    line({kDecCx, kTorchAddY - kAddR}, {kDecCx, 440}, false),
    line({kDecCx, 440}, {kDecCx, 430}),
    line4({kDecCx, 440}, {kDecLane, 440}, {kDecLane, 358}, {kDecCx + kSumR, 358}),
    line({kDecCx, 414}, {kDecCx, 408}, false),
    line({kDecCx - 30, 408}, {kDecCx + 30, 408}, false),
    line({kDecCx - 30, 408}, {kDecCx - 30, 400}),
    line({kDecCx, 408}, {kDecCx, 400}),
    line({kDecCx + 30, 408}, {kDecCx + 30, 400}),
    line({kDecCx, 370}, {kDecCx, 358 + kSumR}),
    line({kDecCx, 358 - kSumR}, {kDecCx, 336}),
    line4({kDecCx, 344}, {kDecLane, 344}, {kDecLane, 262}, {kDecCx + kSumR, 262}),
    line({kDecCx + 26, 320}, {kDecCx + 26, 304}),  // q from norm2
    line({kDecCx, 274}, {kDecCx, 262 + kSumR}),
    line({kDecCx, 262 - kSumR}, {kDecCx, 240}),
    line4({kDecCx, 248}, {kDecLane, 248}, {kDecLane, 176}, {kDecCx + kSumR, 176}),
    line({kDecCx, 224}, {kDecCx, 216}),
    line({kDecCx, 188}, {kDecCx, 176 + kSumR}),
    line({kDecCx, 176 - kSumR}, {kDecCx, 122}),  // -> decoder.norm
};

}  // namespace architecture
