// Internal to the training worker (training_controller.cpp): the forward passes a run takes
// between its steps, on its own model.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "stepformer/dataset.h"
#include "stepformer/trace.h"
#include "training/training_controller.h"

namespace stepformer {
class Transformer;
}

namespace training_traces {

// The replay batch: the chosen sentence, or the first example when it does not fit the vocabulary.
stepformer::Batch replayBatch(const stepformer::Config& c, const std::string& src, const std::string& tgt,
                              const std::vector<stepformer::Example>& data);

// The attention of `batch`'s first sentence on `model`: every attention block's softmax.
std::shared_ptr<const AttentionSnapshot> takeSnapshot(const stepformer::Transformer& model,
                                                      const stepformer::Batch& batch, int epoch, double meanLoss);

// The forward pass (and the loss, when the target gives an expected output) of one sentence
// pair, as the Session computes its trace, without the backward pass. Null when the sentences do
// not fit the run's vocabulary.
std::shared_ptr<const stepformer::Trace> liveForward(const stepformer::Transformer& model, const std::string& src,
                                                     const std::string& tgt);

}  // namespace training_traces
