// What the layer lab says about each trace entry: its group in the step list, its short label,
// seed 004's variable name for it, one line of what PyTorch computes there, and its numbers and
// shape in PyTorch's own layout. Text only, no widgets (tests/ui/test_layer_lab.cpp reads it).
#pragma once

#include <QString>

#include "stepformer/config.h"
#include "stepformer/trace.h"

namespace labsteps {

// The group an entry is listed under: a layer's sub-layer ("encoder_layer · self-attn"), an
// input ("src (encoder input)"), or the same prefixed "grad · " for a gradient; and the group's
// tool tip, naming the modules of the sub-layer.
QString groupTitle(const stepformer::TraceEntry& e, const stepformer::Config& c);
QString groupToolTip(const stepformer::TraceEntry& e, const stepformer::Config& c);
// The entry's name without its layer's prefix: "self_attn.Q", "norm1", "src", "grad.norm2".
QString label(const stepformer::TraceEntry& e);
// Seed 004's name for the entry in its hand derivation ("normalized", "normalized2 = memory"),
// or "" where the seed has none (masks, gradients, the inside of a pre-norm layer). `last`:
// the entry is the output of the whole lab (the decoder's, when there is one).
QString seedName(const stepformer::TraceEntry& e, const stepformer::Config& c, bool last);
// "What PyTorch computes here", in PyTorch's calls (nn.MultiheadAttention,
// F.multi_head_attention_forward, nn.TransformerEncoderLayer._sa_block, ...), with the lab's sizes.
QString torchLine(const stepformer::TraceEntry& e, const stepformer::Config& c, bool last);

// The entry's values as PyTorch holds them: [seq_len, batch, d_model] for a batch-first
// (batch, position, feature) entry (batch_first=False), [batch·num_heads, len_q, x] for a
// per-head one (F.multi_head_attention_forward's bmm layout, seed 004's reshape_for_heads).
stepformer::Tensor torchLayout(const stepformer::TraceEntry& e, const stepformer::Config& c);
// The shape in words: "[3, 1, 4] = [seq_len, batch, d_model]".
QString torchShapeText(const stepformer::TraceEntry& e, const stepformer::Config& c);
// An axis as a reader names it: "batch", "head", "position (src)", "feature (d_model)".
QString axisWord(const stepformer::Axis& a);

}  // namespace labsteps
