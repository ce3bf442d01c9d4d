// The models: one line each, its configuration's keys (config_keys.h), its graph builder, and the
// batch's token streams it reads (the tests check these against the streams its graph's steps read).
#include <algorithm>
#include <iterator>

#include "config_keys.h"
#include "models/models.h"
#include "stepformer/model_registry.h"

namespace stepformer {

namespace {

struct ModelEntry {
    ConfigKeys keys;  // its architecture, named
    void (*graph)(build::Builder& b, const Config& c, const Batch& batch);
    std::vector<TokenStream> reads;
    Naming naming;  // its traces' names (the layer lab's: TorchLayers)
    std::vector<ParamSpec> (*params)(const Config& c);
    std::vector<std::pair<std::string, std::string>> (*aliases)(const Config& c) = nullptr;  // shared weights
    bool (*buffer)(const StoredTensor& st, const Config& c, const std::string& path) = nullptr;
};

const std::vector<ModelEntry>& models() {
    using enum TokenStream;
    static const std::vector<ModelEntry> m = {
        {{Architecture::Tutorial, "tutorial", keys::tutorial_from_json, keys::tutorial_to_json, keys::tutorial_validate},
         build::tutorial_graph, {Src, Tgt, Out}, Naming::Tutorial, build::tutorial_params},
        {{Architecture::Torch, "torch", keys::torch_from_json, keys::torch_to_json, keys::torch_validate},
         build::torch_graph, {Src, Tgt, Out}, Naming::TorchSeq2Seq, build::torch_params},
        {{Architecture::Aiayn, "aiayn", keys::aiayn_from_json, keys::aiayn_to_json, keys::aiayn_validate},
         build::aiayn_graph, {Src, Tgt, Out}, Naming::Aiayn, build::aiayn_params, build::aiayn_aliases},
        {{Architecture::Gpt, "gpt", keys::gpt_from_json, keys::gpt_to_json, keys::gpt_validate, "n_embd"},
         build::gpt_graph, {Tgt, Out}, Naming::Gpt, build::gpt_params, build::gpt_aliases, build::gpt_buffer},
    };
    return m;
}

const ModelEntry& entry(Architecture a) {
    const auto& m = models();
    const auto it = std::find_if(m.begin(), m.end(), [&](const ModelEntry& e) { return e.keys.architecture == a; });
    if (it == m.end()) throw std::logic_error("no model is registered for this architecture");
    return *it;
}
const ModelEntry& entry(const Config& c) { return entry(c.architecture); }

}  // namespace

const ConfigKeys& config_keys(Architecture a) { return entry(a).keys; }

const ConfigKeys* config_keys(std::string_view name) {
    for (const ModelEntry& e : models())
        if (e.keys.name == name) return &e.keys;
    return nullptr;
}

std::string architecture_names() {
    std::string out;
    for (const ModelEntry& e : models()) out += std::string(out.empty() ? "" : ", ") + "\"" + e.keys.name + "\"";
    return out;
}

const char* width_key(const Config& c) { return entry(c).keys.width_key; }

std::vector<TokenStream> model_streams(const Config& c) {
    if (c.layers()) return {};  // the layer lab reads tensors, not tokens
    return entry(c).reads;
}

const char* naming_key(Naming n) {
    switch (n) {
    case Naming::TorchSeq2Seq: return "torch";
    case Naming::TorchLayers: return "torch_layers";
    case Naming::Aiayn: return "aiayn";
    case Naming::Gpt: return "gpt";
    case Naming::Tutorial: break;
    }
    return "tutorial";
}

Naming model_naming(const Config& c) {
    if (c.layers()) return Naming::TorchLayers;  // the layer lab: PyTorch's layers without a model around them
    return entry(c).naming;
}

namespace build {

std::vector<ParamSpec> model_params(const Config& c) { return entry(c).params(c); }

std::vector<std::pair<std::string, std::string>> model_aliases(const Config& c) {
    const ModelEntry& e = entry(c);
    return e.aliases ? e.aliases(c) : std::vector<std::pair<std::string, std::string>>{};
}

bool model_buffer(const StoredTensor& st, const Config& c, const std::string& path) {
    const ModelEntry& e = entry(c);
    return e.buffer && e.buffer(st, c, path);
}

std::shared_ptr<const Graph> model_graph(const Config& c, const Batch& batch) {
    auto g = std::make_shared<Graph>();
    Builder b(*g);
    entry(c).graph(b, c, batch);
    return g;
}

}  // namespace build

}  // namespace stepformer
