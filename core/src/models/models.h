// Private: the models, each a graph builder (one file each), and the registry that picks one.
#pragma once

#include <cmath>
#include <memory>

#include "models/layers.h"
#include "stepformer/model.h"

namespace stepformer::build {

// The graph of one forward pass over a batch (its sizes; the layer lab's, its tensors too).
void tutorial_graph(Builder& b, const Config& c, const Batch& batch);
void torch_graph(Builder& b, const Config& c, const Batch& batch);
void aiayn_graph(Builder& b, const Config& c, const Batch& batch);

// The graph of the config's model for this batch.
std::shared_ptr<const Graph> model_graph(const Config& c, const Batch& batch);

}  // namespace stepformer::build
