// Facts about the registered models a viewer needs before it has a trace: the names a
// configuration's traces take (Block::naming, the key a viewer's presentation data is filed
// under). One line per model in core/src/models/registry.cpp.
#pragma once

#include "stepformer/config.h"
#include "stepformer/trace.h"

namespace stepformer {

// The naming of every block a pass of this configuration's model records.
Naming model_naming(const Config& c);
// Its name, the key viewers file their presentation data under: "tutorial", "torch",
// "torch_layers" (seed 004's layer lab), "aiayn".
const char* naming_key(Naming n);
// The configuration key the model's width goes by: "d_model", or nanoGPT's "n_embd".
const char* width_key(const Config& c);

}  // namespace stepformer
