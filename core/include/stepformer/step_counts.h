// The device work of a Trainer's steps (BackendCounters), for `stepformer-cli bench --counts` and
// the benchmarks: what a training run's resident steps cost a GPU backend, counted on any device.
#pragma once

#include <vector>

#include "stepformer/backend_counters.h"
#include "stepformer/dataset.h"
#include "stepformer/model.h"

namespace stepformer {

// The batch's rows as examples (its token ids as words), for a Trainer.
std::vector<Example> examples_of(const Config& c, const Batch& batch);

// Trains `model` for `steps` steps of one epoch over `data` in order, batch_size examples a step
// (data must hold steps * batch_size examples), and returns each step's device work, from the
// end of the step before (the first: from the start of the run, its uploads included). Empty
// when the model's backend has no counters (it computes in the host's memory).
std::vector<BackendCounters> trainer_step_counts(Transformer& model, std::vector<Example> data, int batch_size,
                                                 int steps);

}  // namespace stepformer
