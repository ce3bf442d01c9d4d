#include "stepformer/checkpoint.h"

#include "stepformer/model_io.h"
#include "stepformer/safetensors.h"

namespace stepformer {

void save_checkpoint(const std::string& path, const Transformer& model, const Optimizer* optimizer) {
    std::map<std::string, std::string> meta;
    std::vector<std::pair<std::string, const Tensor*>> extra;
    if (optimizer) {
        meta["stepformer.optimizer"] = optimizer->state_json();
        extra = optimizer->state_tensors();
    }
    save_weights(path, model.config(), model.params(), meta, extra);
}

Checkpoint load_checkpoint(const std::string& path, const Config* expected) {
    SafetensorsFile f = read_safetensors(path);  // read once: weights and optimizer state
    LoadedWeights w = load_weights(f, path, expected);
    Checkpoint ck;
    ck.config = w.config;
    ck.params = std::move(w.params);
    if (auto it = w.metadata.find("stepformer.optimizer"); it != w.metadata.end()) {
        ck.optimizer_json = it->second;
        for (auto& t : f.tensors)
            if (t.name.rfind("optim.", 0) == 0) ck.optimizer_tensors.emplace(t.name, std::move(t.value));
    }
    return ck;
}

void restore_optimizer(const Checkpoint& ck, Optimizer& opt) {
    if (!ck.optimizer_json) return;
    std::map<std::string, const Tensor*> tensors;
    for (const auto& [name, t] : ck.optimizer_tensors) tensors.emplace(name, &t);
    opt.load_state(*ck.optimizer_json, tensors);
}

}  // namespace stepformer
