// libFuzzer target: a model config (JSON) from outside, as --config and a checkpoint's metadata
// give it. Any text must end in a valid Config or a ConfigError naming the problem; a valid one
// must survive its own round trip.
#include <cstddef>
#include <cstdint>
#include <string>

#include "stepformer/config.h"

using namespace stepformer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    Config c;
    try {
        c = config_from_json_text(text, "fuzz.json");
    } catch (const ConfigError&) {
        return 0;
    }
    c.validate();  // a parsed config is valid: throwing here is a finding
    const Config again = config_from_json_text(config_to_json_text(c), "round trip");
    if (config_to_json_text(again) != config_to_json_text(c)) __builtin_trap();
    return 0;
}
