// The graph a name is resolved against when no trace is at hand: a widget before its first
// trace, a name that comes from a test or a command line. It is a forward pass (with its loss)
// of a tiny model of the tutorial's architecture, so its entries carry the same blocks, roles
// and inputs as a real trace's, and a widget reads them instead of spelling names.
#pragma once

#include <string>

#include "stepformer/trace.h"

namespace tensorviz {

// The reference trace with (at least) `layers` layers per stack; made once, kept for the
// program's life (references stay valid).
const stepformer::Trace& referenceTrace(int layers);

// The same for a model of PyTorch's layers ("architecture": "torch") with names of `naming`:
// a seq2seq model with (at least) `layers` layers per stack, or the layer lab.
const stepformer::Trace& torchReferenceTrace(stepformer::Naming naming, int layers);

// The forward entry a trace of the model records under `name` (a gradient's name gives its
// forward entry), found in a reference trace with enough layers; nullptr for a name the model
// never records (either architecture's names). `graph`, when given, receives that reference trace (for graph queries).
const stepformer::TraceEntry* referenceEntry(const std::string& name, const stepformer::Trace** graph = nullptr);

}  // namespace tensorviz
