// Private: the models, each a graph builder (one file each), and the registry that picks one.
#pragma once

#include <cmath>
#include <memory>

#include "models/layers.h"
#include "stepformer/model.h"

namespace stepformer::build {

// The graph of one forward pass over a batch of B sequences of lengths S (source) and T (target).
void tutorial_graph(Builder& b, const Config& c, int B, int S, int T);
void torch_graph(Builder& b, const Config& c, const Batch& batch);
void aiayn_graph(Builder& b, const Config& c, int B, int S, int T);

// The graph of the config's model for this batch.
std::shared_ptr<const Graph> model_graph(const Config& c, const Batch& batch);

}  // namespace stepformer::build
