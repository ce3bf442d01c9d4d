// Queries over the trace as a graph: which entry plays a role in a block, what an entry read,
// who read it, how many layers a stack has. Viewers ask these instead of spelling names, so a
// model that emits the same kinds of entries under other names is shown the same way.
#pragma once

#include <string>
#include <vector>

#include "stepformer/trace.h"

namespace stepformer::graph {

// The forward entry (not a gradient) with `role` in block `b`; nullptr when there is none.
const TraceEntry* find(const Trace& tr, const Block& b, Role role);
// Its name, or "" when there is none.
std::string name_of(const Trace& tr, const Block& b, Role role);

// Input i of e as a trace entry; nullptr when e has no such input or it is a parameter.
const TraceEntry* input(const Trace& tr, const TraceEntry& e, size_t i);
// The inputs of e that are parameters (not trace entries), in argument order.
std::vector<std::string> params(const Trace& tr, const TraceEntry& e);
// The forward entries that read `name`, in trace order.
std::vector<const TraceEntry*> consumers(const Trace& tr, const std::string& name);
// The forward entry a gradient entry is the gradient of (e itself when it is not a gradient).
const TraceEntry* forward_of(const Trace& tr, const TraceEntry& e);

// The distinct blocks of the forward entries, in the order they first appear.
std::vector<Block> blocks(const Trace& tr);
// The attention blocks, in trace order.
std::vector<Block> attention_blocks(const Trace& tr);
// Number of layers of a stack (0 when it has none).
int layer_count(const Trace& tr, Stack s);

// What a block read: an attention block's query input and key/value input (the same entry for
// self-attention), an FFN's input; its mask (an attention block's). nullptr when unknown.
const TraceEntry* query_input(const Trace& tr, const Block& b);
const TraceEntry* key_input(const Trace& tr, const Block& b);
const TraceEntry* block_input(const Trace& tr, const Block& b);
const TraceEntry* mask_of(const Trace& tr, const Block& b);
// The attention blocks that mask their scores with entry `mask`, directly or through a mask
// made from it (the decoder's pad and subsequence masks reach its self-attention through their
// combination).
std::vector<Block> blocks_masked_by(const Trace& tr, const std::string& mask);
// What a stack hands on: its last layer's output (its input block's output when it has no layers).
const TraceEntry* stack_output(const Trace& tr, Stack s);
// A stack's input: the sum of embedding and positional encoding the first layer reads (the given
// tensor in the layer lab).
const TraceEntry* stack_input(const Trace& tr, Stack s);
// The model's output probabilities over the target vocabulary, whatever the model names them;
// nullptr when the trace has none (the layer lab).
const TraceEntry* output_probs(const Trace& tr);
// The model's output logits, likewise.
const TraceEntry* output_logits(const Trace& tr);

}  // namespace stepformer::graph
