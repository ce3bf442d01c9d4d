// libFuzzer target: a weights file from outside, as the app and the CLI read it. Any bytes must end
// in the file's data or in a SafetensorsError / WeightsError / ConfigError naming the problem:
// a crash, a sanitizer report or any other exception is a finding.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "stepformer/checkpoint.h"
#include "stepformer/config.h"
#include "stepformer/optimizer.h"
#include "stepformer/params.h"
#include "stepformer/safetensors.h"

using namespace stepformer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::vector<uint8_t> bytes(data, data + size);
    SafetensorsFile f;
    try {
        f = parse_safetensors(bytes, "fuzz.safetensors");
    } catch (const SafetensorsError&) {
        return 0;
    }
    for (const StoredTensor& t : f.tensors)
        if (t.value.shape != t.shape || int64_t(t.value.data.size()) != numel(t.shape)) __builtin_trap();
    LoadedWeights w;
    try {
        w = load_weights(f, "fuzz.safetensors", nullptr);
        if (w.params.size() != param_specs(w.config).size()) __builtin_trap();
    } catch (const SafetensorsError&) {
        return 0;
    } catch (const WeightsError&) {
        return 0;
    } catch (const ConfigError&) {
        return 0;
    }
    // A checkpoint's optimizer state, restored as `train --resume` and the Train dock do: it
    // must load or say why in a runtime_error.
    auto it = w.metadata.find("stepformer.optimizer");
    if (it == w.metadata.end()) return 0;
    Checkpoint ck;
    ck.config = w.config;
    ck.params = w.params;
    ck.optimizer_json = it->second;
    for (const StoredTensor& t : f.tensors)
        if (t.name.rfind("optim.", 0) == 0) ck.optimizer_tensors.emplace(t.name, t.value);
    for (OptimizerKind kind : {OptimizerKind::SGD, OptimizerKind::Adam, OptimizerKind::AdamW}) {
        Optimizer opt(optimizer_defaults(kind), ck.params);
        try {
            restore_optimizer(ck, opt);
        } catch (const std::runtime_error&) {
        }
    }
    return 0;
}
