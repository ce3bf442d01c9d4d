// The three models at their readable sizes on the tutorial's sentences, for tests run on every
// model and every registered backend (parameters: model name, backend name).
#pragma once

#include <string>
#include <tuple>
#include <vector>

#include "copy_backend.h"
#include "stepformer/model.h"

namespace stepformer::testing {

// "tutorial" (Config::small), "torch" (torch_small), "aiayn" (aiayn_small) or "gpt" (gpt_small).
inline Config model_config(const std::string& which) {
    if (which == "tutorial") return Config::small();
    if (which == "torch") return Config::torch_small();
    if (which == "gpt") return Config::gpt_small();
    return Config::aiayn_small();
}

// Two sentence pairs with their expected outputs, one of them padded (a model without a source:
// the two target sentences, the shorter padded to the longer).
inline Batch sentence_batch(const Config& c) {
    if (!c.reads_source())
        return make_batch(c, {}, {"S i want a beer .", "S you like coke"}, {"i want a beer . E", "you like coke . P"});
    return make_batch(c, {"ich mochte ein bier P", "ich mochte ein cola"}, {"S i want a beer .", "S i want a coke ."},
                      {"i want a beer . E", "i want a coke . E"});
}

using ModelCase = std::tuple<std::string, std::string>;

inline auto model_cases() {
    return ::testing::Combine(::testing::Values("tutorial", "torch", "aiayn", "gpt"), ::testing::ValuesIn(registered_backends()));
}

inline std::string model_case_name(const ::testing::TestParamInfo<ModelCase>& i) {
    return std::get<0>(i.param) + "_" + test_name(std::get<1>(i.param));
}

}  // namespace stepformer::testing
