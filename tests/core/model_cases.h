// The three models at their readable sizes on the tutorial's sentences, for tests run on every
// model and every registered backend (parameters: model name, backend name).
#pragma once

#include <string>
#include <tuple>
#include <vector>

#include "copy_backend.h"
#include "stepformer/model.h"

namespace stepformer::testing {

// "tutorial" (Config::small), "torch" (torch_small) or "aiayn" (aiayn_small).
inline Config model_config(const std::string& which) {
    if (which == "tutorial") return Config::small();
    if (which == "torch") return Config::torch_small();
    return Config::aiayn_small();
}

// Two sentence pairs with their expected outputs, one of them padded.
inline Batch sentence_batch(const Config& c) {
    return make_batch(c, {"ich mochte ein bier P", "ich mochte ein cola"}, {"S i want a beer .", "S i want a coke ."},
                      {"i want a beer . E", "i want a coke . E"});
}

using ModelCase = std::tuple<std::string, std::string>;

inline auto model_cases() {
    return ::testing::Combine(::testing::Values("tutorial", "torch", "aiayn"), ::testing::ValuesIn(registered_backends()));
}

inline std::string model_case_name(const ::testing::TestParamInfo<ModelCase>& i) {
    return std::get<0>(i.param) + "_" + test_name(std::get<1>(i.param));
}

}  // namespace stepformer::testing
