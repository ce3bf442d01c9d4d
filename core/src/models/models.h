// Private: the models, each a graph builder (one file each), and the registry that picks one.
#pragma once

#include <cmath>
#include <memory>

#include "models/layers.h"
#include "stepformer/model.h"

namespace stepformer {
struct StoredTensor;
}

namespace stepformer::build {

// The graph of one forward pass over a batch (its sizes; the layer lab's, its tensors too).
void tutorial_graph(Builder& b, const Config& c, const Batch& batch);
void torch_graph(Builder& b, const Config& c, const Batch& batch);
void aiayn_graph(Builder& b, const Config& c, const Batch& batch);
void gpt_graph(Builder& b, const Config& c, const Batch& batch);

// Each model's parameters in its state_dict's order (a shared one once, under its own name), the
// other names a state_dict holds a shared one under (alias -> own name), and the buffers its files
// hold besides (true when `st` is one the model knows and never reads; a wrong one throws
// WeightsError naming it).
std::vector<ParamSpec> tutorial_params(const Config& c);
std::vector<ParamSpec> torch_params(const Config& c);
std::vector<ParamSpec> aiayn_params(const Config& c);
std::vector<ParamSpec> gpt_params(const Config& c);
std::vector<std::pair<std::string, std::string>> aiayn_aliases(const Config& c);
std::vector<std::pair<std::string, std::string>> gpt_aliases(const Config& c);
bool gpt_buffer(const StoredTensor& st, const Config& c, const std::string& path);

// The config's model's, from its registry line.
std::vector<ParamSpec> model_params(const Config& c);
std::vector<std::pair<std::string, std::string>> model_aliases(const Config& c);
bool model_buffer(const StoredTensor& st, const Config& c, const std::string& path);

// The graph of the config's model for this batch. It depends on the batch only through its shape
// (B, S, T), which lets a Transformer keep the last one; the layer lab's also checks the batch's
// inputs and masks, and is built for each batch.
std::shared_ptr<const Graph> model_graph(const Config& c, const Batch& batch);

}  // namespace stepformer::build
