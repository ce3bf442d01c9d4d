// libFuzzer target: a weights file from outside, as the app and the CLI read it. Any bytes must end
// in the file's data or in a SafetensorsError / WeightsError / ConfigError naming the problem:
// a crash, a sanitizer report or any other exception is a finding.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "stepformer/config.h"
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
    try {
        const LoadedWeights w = load_weights(f, "fuzz.safetensors", nullptr);
        if (w.params.size() != param_specs(w.config).size()) __builtin_trap();
    } catch (const SafetensorsError&) {
    } catch (const WeightsError&) {
    } catch (const ConfigError&) {
    }
    return 0;
}
