#include "stepformer/model_io.h"

#include "stepformer/safetensors.h"

namespace stepformer {

LoadedModel load_model(const ModelSource& src) {
    LoadedModel out;
    std::optional<Config> cfg;
    std::string cfg_desc = "the tutorial's config";
    if (src.config_path) {
        cfg = load_config_file(*src.config_path);
        cfg_desc = "config " + *src.config_path;
    }
    if (src.weights_path) {
        LoadedWeights w = load_weights(*src.weights_path, cfg ? &*cfg : nullptr);
        out.config = w.config;
        out.params = std::move(w.params);
        if (w.config_from_file) cfg_desc = "config from " + *src.weights_path;
        if (w.config_assumed) cfg_desc = "the tutorial's config (assumed: the file carries none, and its names and shapes are the tutorial's)";
        out.config_assumed = w.config_assumed;
        out.description = cfg_desc + ", weights " + *src.weights_path;
        for (const auto& m : w.warnings) out.warnings.push_back(m.text());
        for (const auto& n : w.ignored) out.notes.push_back("ignored buffer " + n);
        for (const auto& n : w.notes) out.notes.push_back(n.text());
        if (!w.defaulted.empty())
            out.notes.push_back(std::to_string(w.defaulted.size()) +
                                " LayerNorm parameters not in the file: gamma = 1, beta = 0");
        return out;
    }
    out.config = cfg ? *cfg : Config::tutorial();
    out.config.validate();
    out.params = init_params(out.config, src.seed);
    out.description = cfg_desc + ", weights initialised from seed " + std::to_string(src.seed);
    return out;
}

void write_trace(const std::string& path, const Trace& trace, const Config& config,
                 const std::map<std::string, std::string>& extra_metadata) {
    std::vector<TensorToWrite> items;
    items.reserve(trace.size());
    for (const auto& e : trace.entries()) items.push_back({e.name, &e.value, e.is_mask ? DType::U8 : DType::F32});
    auto meta = extra_metadata;
    meta["stepformer.config"] = config_to_json_text(config, -1);
    write_safetensors(path, items, meta);
}

void save_weights(const std::string& path, const Config& config, const ParamSet& params,
                  const std::map<std::string, std::string>& extra_metadata,
                  const std::vector<std::pair<std::string, const Tensor*>>& extra_tensors) {
    std::vector<TensorToWrite> items;
    for (size_t i = 0; i < params.size(); ++i) items.push_back({params.name(i), &params[i], DType::F32});
    // A shared weight under each of its state_dict names, as PyTorch's state_dict() writes it.
    for (const auto& [alias, own] : param_aliases(config))
        if (params.contains(own)) items.push_back({alias, &params.at(own), DType::F32});
    for (const auto& [name, t] : extra_tensors) items.push_back({name, t, DType::F32});
    auto meta = extra_metadata;
    meta["stepformer.config"] = config_to_json_text(config, -1);
    write_safetensors(path, items, meta);
}

}  // namespace stepformer
