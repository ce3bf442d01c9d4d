// Facts about the registered models a viewer needs before it has a trace: the names a
// configuration's traces take (Block::naming, the key a viewer's presentation data is filed
// under). One line per model in core/src/models/registry.cpp.
#pragma once

#include "stepformer/config.h"
#include "stepformer/trace.h"

namespace stepformer {

// The naming of every block a pass of this configuration's model records.
Naming model_naming(const Config& c);

}  // namespace stepformer
