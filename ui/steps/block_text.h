// What the UI calls a block of the trace graph (stepformer::Block): titles for pickers, tree
// groups and headers. The words come from the block's fields, never from a trace name.
#pragma once

#include <QString>

#include "stepformer/trace.h"

namespace tensorviz {

// "encoder self-attention", "decoder masked self-attention", "decoder–encoder attention",
// "feed-forward network"; other kinds: their attribute word or "".
QString blockTitle(stepformer::BlockKind k);
// The same for a block, PyTorch's module name added for PyTorch's layers: "decoder–encoder
// attention (multihead_attn)".
QString blockTitle(const stepformer::Block& b);
// The same, capitalised for pickers: "Encoder self-attention", ...
QString blockPickerTitle(stepformer::BlockKind k);
// A layer's sub-block as the navigator groups it: "Self-attention", "Masked self-attention",
// "Encoder-decoder attention", "Feed-forward".
QString sublayerTitle(stepformer::BlockKind k);
// The same for a block of PyTorch's layers, named as PyTorch names the module:
// "Self-attention (self_attn)", "Cross-attention (multihead_attn)", "Feed-forward (linear1, linear2)",
// "Final norm (encoder.norm)"; a tutorial block: sublayerTitle(b.kind).
QString sublayerTitle(const stepformer::Block& b);
// "Encoder" / "Decoder" / "".
QString stackTitle(stepformer::Stack s);
// The tutorial's attribute name of the block (names::block_word), for labels.
QString blockWord(stepformer::BlockKind k);
stepformer::BlockKind blockKindOfWord(const QString& word);
// The attribute name a block goes by in its model, for labels: the tutorial's word, or PyTorch's
// module name ("self_attn", "multihead_attn") for a block of PyTorch's layers.
QString blockWord(const stepformer::Block& b);

}  // namespace tensorviz
