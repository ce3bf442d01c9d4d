// The graph a name is resolved against when no trace is at hand: a widget before its first
// trace, a name that comes from a test or a command line. It is a forward pass (with its loss)
// of a tiny model of the tutorial's architecture, so its entries carry the same blocks, roles
// and inputs as a real trace's, and a widget reads them instead of spelling names.
#pragma once

#include <memory>
#include <string>

#include "stepformer/config.h"

#include "stepformer/trace.h"

namespace tensorviz {

// The reference trace with (at least) `layers` layers per stack; made once, kept for the
// program's life (references stay valid).
const stepformer::Trace& referenceTrace(int layers);

// The same for the model whose names are `naming` (its entry in models/model_registry.h says
// how its reference is made: PyTorch's seq2seq model, the layer lab, ...).
const stepformer::Trace& referenceTrace(stepformer::Naming naming, int layers);

// A translation model of `c`'s architecture, shrunk to `layers` layers per stack, run forward
// with its loss on one token each way (a decoder-only model: the start word alone): a registry
// entry's reference.
std::unique_ptr<stepformer::Trace> translationReference(stepformer::Config c, int layers);

// The forward entry a trace of the model records under `name` (a gradient's name gives its
// forward entry), found in a reference trace with enough layers; nullptr for a name the model
// never records (either architecture's names). `graph`, when given, receives that reference trace (for graph queries).
const stepformer::TraceEntry* referenceEntry(const std::string& name, const stepformer::Trace** graph = nullptr);

}  // namespace tensorviz
