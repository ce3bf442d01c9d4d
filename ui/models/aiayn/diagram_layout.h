// The architecture diagram of attention-is-all-you-need-pytorch's Transformer ("architecture":
// "aiayn", seed 003) as that project builds it: word embedding (× √d_model with scale_emb), + the
// float64-made position table, dropout and a LayerNorm BEFORE the first layer; post-norm layers
// whose sub-layers end in dropout, + residual, LayerNorm (eps 1e-6); attention projections without
// bias (the FFN's w_1 / w_2 with); trg_word_prj drawn as sharing its weight with trg_word_emb
// (and src_word_emb) — painted in architecture_painting.cpp. The stacks keep the tutorial's places;
// the picture is kAiaynShift taller at the bottom, where the input LayerNorm sits.
#pragma once

#include "models/torch/diagram_layout.h"

namespace architecture {

constexpr qreal kAiaynShift = 34;
constexpr qreal kAiaynH = kH + kAiaynShift;
constexpr qreal kAiaynAddY = 456;                   // the embedding + position_enc circle
constexpr qreal kAiaynNormY0 = 418, kAiaynNormY1 = 436;  // the stack's layer_norm before the layers
constexpr qreal kAiaynEmbY0 = 478, kAiaynEmbY1 = 502;
constexpr qreal kAiaynShareX = 394;                 // the dashed "shared" line, right of everything

// "%emb" is " × √d_model" when the embeddings are scaled, "%prj" "× d_model^−0.5" when the logits are.
inline constexpr BlockSpec kAiaynBlocks[] = {
    box("encoder.embedding", "src_word_emb%emb", kEncX0 - 12, kAiaynEmbY0, kEncX1 + 8, kAiaynEmbY1, kEmbedding),
    circle("encoder.pe", "position_enc", Shape::PeIcon, kEncCx - 36, kAiaynAddY, kPeR),
    circle("encoder.add_pe", "+", Shape::Circle, kEncCx, kAiaynAddY, kAddR),
    box("encoder.input_norm", "layer_norm", kEncX0 + 6, kAiaynNormY0, kEncX1 - 6, kAiaynNormY1, kNorm),
    box("encoder.mha", "slf_attn\n(q/√d_k)·kᵀ", kEncX0, 350, kEncX1, 390, kAttention),
    box("encoder.mha_norm", "Add & Norm", kEncX0, 312, kEncX1, 334, kNorm),
    box("encoder.ffn", "pos_ffn\nw_1 · ReLU · w_2", kEncX0, 260, kEncX1, 298, kFfn),
    box("encoder.ffn_norm", "Add & Norm", kEncX0, 222, kEncX1, 244, kNorm),
    box("decoder.embedding", "trg_word_emb%emb", kDecX0 - 8, kAiaynEmbY0, kDecX1 + 12, kAiaynEmbY1, kEmbedding),
    circle("decoder.pe", "position_enc", Shape::PeIcon, kDecCx + 36, kAiaynAddY, kPeR),
    circle("decoder.add_pe", "+", Shape::Circle, kDecCx, kAiaynAddY, kAddR),
    box("decoder.input_norm", "layer_norm", kDecX0 + 6, kAiaynNormY0, kDecX1 - 6, kAiaynNormY1, kNorm),
    box("decoder.masked_mha", "masked slf_attn\n(q/√d_k)·kᵀ", kDecX0, 350, kDecX1, 390, kAttention),
    box("decoder.masked_mha_norm", "Add & Norm", kDecX0, 312, kDecX1, 334, kNorm),
    box("decoder.cross_mha", "enc_attn\n(q/√d_k)·kᵀ", kDecX0, 258, kDecX1, 298, kAttention),
    box("decoder.cross_mha_norm", "Add & Norm", kDecX0, 222, kDecX1, 244, kNorm),
    box("decoder.ffn", "pos_ffn\nw_1 · ReLU · w_2", kDecX0, 166, kDecX1, 204, kFfn),
    box("decoder.ffn_norm", "Add & Norm", kDecX0, 130, kDecX1, 152, kNorm),
    // Tall enough for "trg_word_prj × d_model^−0.5" on two lines at the boxes' size.
    box("linear", "trg_word_prj%prj", 214, 64, 344, 100, kLinear),
    box("softmax", "Softmax", 234, 34, 324, 58, kSoftmax),
};

// The blocks whose input went through dropout first (a "dropout" badge at their top left): every
// Add & Norm (dropout(sub-layer) + residual) and the stacks' layer_norm after the positional encoding.
inline constexpr const char* kAiaynDropoutBadge[] = {"encoder.input_norm", "encoder.mha_norm", "encoder.ffn_norm",
                                                    "decoder.input_norm", "decoder.masked_mha_norm",
                                                    "decoder.cross_mha_norm", "decoder.ffn_norm"};

// Only the FFN's linear maps have biases here.
inline constexpr const char* kAiaynBiasBadge[] = {"encoder.ffn", "decoder.ffn"};

inline constexpr Arrow kAiaynArrows[] = {
    // Encoder: tokens -> embedding -> + position_enc -> dropout · layer_norm -> the layers.
    line({kEncCx, 524}, {kEncCx, kAiaynEmbY1}),
    line({kEncCx, kAiaynEmbY0}, {kEncCx, kAiaynAddY + kAddR}),
    line({kEncCx - 36 + kPeR, kAiaynAddY}, {kEncCx - kAddR, kAiaynAddY}),
    line({kEncCx, kAiaynAddY - kAddR}, {kEncCx, kAiaynNormY1}),
    line({kEncCx, kAiaynNormY0}, {kEncCx, kBranchY}, false),
    line({kEncLane, kBranchY}, {kEncCx + 30, kBranchY}, false),
    line({kEncCx - 30, kBranchY}, {kEncCx - 30, 390}),
    line({kEncCx, kBranchY}, {kEncCx, 390}),
    line({kEncCx + 30, kBranchY}, {kEncCx + 30, 390}),
    line3({kEncLane, kBranchY}, {kEncLane, 323}, {kEncX0, 323}),
    line({kEncCx, 350}, {kEncCx, 334}),
    line({kEncCx, 312}, {kEncCx, 298}),
    line4({kEncCx, 305}, {kEncLane, 305}, {kEncLane, 233}, {kEncX0, 233}),
    line({kEncCx, 260}, {kEncCx, 244}),
    // The encoder's output -> k, v of enc_attn.
    line4({kEncX1, 233}, {200, 233}, {200, 306}, {kDecX0 + 30, 306}, false),
    line({kDecX0 + 14, 306}, {kDecX0 + 14, 298}),
    line({kDecX0 + 30, 306}, {kDecX0 + 30, 298}),
    // Decoder.
    line({kDecCx, 524}, {kDecCx, kAiaynEmbY1}),
    line({kDecCx, kAiaynEmbY0}, {kDecCx, kAiaynAddY + kAddR}),
    line({kDecCx + 36 - kPeR, kAiaynAddY}, {kDecCx + kAddR, kAiaynAddY}),
    line({kDecCx, kAiaynAddY - kAddR}, {kDecCx, kAiaynNormY1}),
    line({kDecCx, kAiaynNormY0}, {kDecCx, kBranchY}, false),
    line({kDecCx - 30, kBranchY}, {kDecLane, kBranchY}, false),
    line({kDecCx - 30, kBranchY}, {kDecCx - 30, 390}),
    line({kDecCx, kBranchY}, {kDecCx, 390}),
    line({kDecCx + 30, kBranchY}, {kDecCx + 30, 390}),
    line3({kDecLane, kBranchY}, {kDecLane, 323}, {kDecX1, 323}),
    line({kDecCx, 350}, {kDecCx, 334}),
    line({kDecCx + 26, 312}, {kDecCx + 26, 298}),
    line4({kDecCx + 26, 305}, {kDecLane, 305}, {kDecLane, 233}, {kDecX1, 233}),
    line({kDecCx, 258}, {kDecCx, 244}),
    line({kDecCx, 222}, {kDecCx, 204}),
    line4({kDecCx, 213}, {kDecLane, 213}, {kDecLane, 141}, {kDecX1, 141}),
    line({kDecCx, 166}, {kDecCx, 152}),
    line({kDecCx, 130}, {kDecCx, 100}),
    line({kDecCx, 64}, {kDecCx, 58}),
    line({kDecCx, 34}, {kDecCx, 20}),
};

}  // namespace architecture
