// Building a model from what the user gave: a config file, a weights file, a seed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "stepformer/model.h"

namespace stepformer {

struct ModelSource {
    std::optional<std::string> config_path;   // JSON config
    std::optional<std::string> weights_path;  // safetensors
    uint64_t seed = 0;                        // weights from PyTorch-style init when no file
};

struct LoadedModel {
    Config config;
    ParamSet params;
    std::string description;  // one line: where the config and weights came from
    std::vector<std::string> notes;     // ignored buffers, defaulted or skipped LayerNorm parameters
    std::vector<std::string> warnings;  // e.g. a checkpoint from before "learn_layer_norm"
    bool config_assumed = false;        // bare state_dict: the tutorial's config was assumed
};

// Without a config path the weights' metadata config is used, else the tutorial's (for a
// weights file, only when its names and shapes are the tutorial's).
LoadedModel load_model(const ModelSource& src);

// Writes every trace entry (masks as U8) with the config in the metadata. Atomic.
void write_trace(const std::string& path, const Trace& trace, const Config& config,
                 const std::map<std::string, std::string>& extra_metadata = {});

// Weights (and optionally extra tensors such as optimizer state) with the config in
// __metadata__["stepformer.config"]. Atomic.
void save_weights(const std::string& path, const Config& config, const ParamSet& params,
                  const std::map<std::string, std::string>& extra_metadata = {},
                  const std::vector<std::pair<std::string, const Tensor*>>& extra_tensors = {});

}  // namespace stepformer
