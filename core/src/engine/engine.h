// Private: the engine that runs a model's graph (stepformer/graph.h) forward, step by step, on the
// pass's backend, recording each traced step's output in the trace.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "engine/model_context.h"
#include "stepformer/graph.h"

namespace stepformer::engine {

struct Pass {
    const detail::ModelCtx& m;  // weights, backend, staging
    const Batch& batch;
    const ForwardOptions& opt;
    // The sinusoid table (L, d_model), float64-made when `precise`: made once per length by the model.
    std::function<Tensor(int L, bool precise)> pe_table;
};

// The memory plan of a training step (ForwardOptions::keep_all = false): for each step, the
// steps whose outputs may be freed once it has run — read by no later step and not by the
// backward pass (which reads, per op, only some inputs: a linear layer its input, LayerNorm its
// input, softmax and ReLU their own outputs, ...). The model's outputs stay for the loss.
std::vector<std::vector<size_t>> release_plan(const Graph& g);

// Runs steps [from, end) of `g` (the trace holds the outputs of the steps before `from`) and
// appends the traced ones to `tr`; tr.graph is `g`. Dropout sites are numbered as a run from the
// first step would number them.
void run(const std::shared_ptr<const Graph>& g, size_t from, Pass& p, Trace& tr);

}  // namespace stepformer::engine
