// Private to the core: what each model says about its configuration, and the JSON helpers its
// keys are read with. Each architecture's keys live beside its graph (models/<name>_config.cpp),
// listed once in the model registry (models/registry.cpp); config.cpp only dispatches.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "stepformer/config.h"

namespace stepformer {

// "config: <problem>" (config_from_json_text puts its source in place of "config").
[[noreturn]] void config_fail(Msg problem, std::vector<MessageArg> args = {});

template <typename T>
T get_key(const nlohmann::json& j, const char* key) {
    if (!j.contains(key)) config_fail(Msg::config_missing_key, {key});
    try {
        return j.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
        config_fail(Msg::config_wrong_type, {key, j.at(key).dump()});
    }
}
int get_int(const nlohmann::json& j, const char* key);  // an integer, within ±1e9
int get_int_or(const nlohmann::json& j, const char* key, int fallback);
bool get_bool(const nlohmann::json& j, const char* key, bool fallback);
// v in 1..max, else a named error.
void check_positive(int v, const char* key, int max);
// The vocabulary and length keys, where the file has them (else the tutorial's toy data).
void read_vocabulary_keys(const nlohmann::json& j, Config& c);
nlohmann::json vocabulary_keys(const Config& c);

// One architecture's configuration: its "architecture" name, its keys read (validated after)
// and written, and its own checks (Config::validate adds the ones every model shares).
struct ConfigKeys {
    Architecture architecture;
    const char* name;
    Config (*from_json)(const nlohmann::json& j);
    nlohmann::json (*to_json)(const Config& c);
    void (*validate)(const Config& c);
    // The key the model's width goes by (d_model, nanoGPT's n_embd): a viewer's label.
    const char* width_key = "d_model";
};
const ConfigKeys& config_keys(Architecture a);
const ConfigKeys* config_keys(std::string_view name);  // nullptr for an unknown name
std::string architecture_names();  // "\"tutorial\", \"torch\", ...": the registered names, quoted

namespace keys {
Config tutorial_from_json(const nlohmann::json& j);
nlohmann::json tutorial_to_json(const Config& c);
void tutorial_validate(const Config& c);
Config torch_from_json(const nlohmann::json& j);
nlohmann::json torch_to_json(const Config& c);
void torch_validate(const Config& c);
Config aiayn_from_json(const nlohmann::json& j);
nlohmann::json aiayn_to_json(const Config& c);
void aiayn_validate(const Config& c);
Config gpt_from_json(const nlohmann::json& j);
nlohmann::json gpt_to_json(const Config& c);
void gpt_validate(const Config& c);
}  // namespace keys

}  // namespace stepformer
