// Checkpoints: weights + config (+ optimizer state) in one safetensors file, saved atomically.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "stepformer/model.h"
#include "stepformer/optimizer.h"

namespace stepformer {

// Saves weights and config, and the optimizer's state when given. Atomic: a failed save leaves
// any previous file at `path` intact. Throws std::runtime_error naming the path and reason.
void save_checkpoint(const std::string& path, const Transformer& model, const Optimizer* optimizer = nullptr);

struct Checkpoint {
    Config config;
    ParamSet params;
    std::optional<std::string> optimizer_json;  // present when the file carries optimizer state
    std::map<std::string, Tensor> optimizer_tensors;
};

// Loads a checkpoint; when `expected` is given, its architecture must match (error says which
// key differs).
Checkpoint load_checkpoint(const std::string& path, const Config* expected = nullptr);

// Restores optimizer state saved with the checkpoint (no-op when it has none).
void restore_optimizer(const Checkpoint& ck, Optimizer& opt);

}  // namespace stepformer
