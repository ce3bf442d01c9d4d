// Helpers for the golden tests against the PyTorch fixtures in tests/fixtures/.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "stepformer/model.h"
#include "stepformer/safetensors.h"

namespace fixtures {

inline std::string path(const std::string& name) { return std::string(STEPFORMER_FIXTURES_DIR) + "/" + name; }

inline nlohmann::json read_json(const std::string& name) {
    std::ifstream in(path(name));
    std::stringstream ss;
    ss << in.rdbuf();
    return nlohmann::json::parse(ss.str());
}

struct Inputs {
    std::vector<std::string> src, tgt, out;
};

inline Inputs inputs(const std::string& case_name) {
    auto j = read_json(case_name + ".inputs.json");
    Inputs in;
    in.src = j.at("src").get<std::vector<std::string>>();
    in.tgt = j.at("tgt").get<std::vector<std::string>>();
    if (j.contains("out")) in.out = j.at("out").get<std::vector<std::string>>();
    return in;
}

// max |a-b| / max(|b|_inf, floor): relative to the tensor's scale, so values near zero in a
// large tensor don't dominate. A NaN on either side is an infinite error (std::max would
// otherwise drop it: max(x, NaN) is x).
inline double rel_error(const stepformer::Tensor& a, const stepformer::Tensor& b, double floor = 1e-6) {
    double max_diff = 0.0, scale = floor;
    for (size_t i = 0; i < a.data.size(); ++i) {
        if (std::isnan(a.data[i]) || std::isnan(b.data[i])) return std::numeric_limits<double>::infinity();
        max_diff = std::max(max_diff, std::abs(double(a.data[i]) - double(b.data[i])));
        scale = std::max(scale, std::abs(double(b.data[i])));
    }
    return max_diff / scale;
}

inline ::testing::AssertionResult close(const std::string& name, const stepformer::Tensor& got,
                                        const stepformer::Tensor& want, double tol) {
    if (got.shape != want.shape)
        return ::testing::AssertionFailure() << name << ": shape " << stepformer::shape_to_string(got.shape)
                                             << " vs expected " << stepformer::shape_to_string(want.shape);
    const double e = rel_error(got, want);
    if (!(e <= tol)) return ::testing::AssertionFailure() << name << ": relative error " << e << " > " << tol;
    return ::testing::AssertionSuccess();
}

// close(), but an infinity (an additive mask's −inf) must be the same infinity and a NaN (a fully
// masked row's, as PyTorch makes it) a NaN: the relative error alone would pass any tensor holding
// an infinity (its scale is infinite) and fail any holding a NaN.
inline ::testing::AssertionResult close_nonfinite(const std::string& name, const stepformer::Tensor& got,
                                                  const stepformer::Tensor& want, double tol) {
    if (got.shape != want.shape)
        return ::testing::AssertionFailure() << name << ": shape " << stepformer::shape_to_string(got.shape)
                                             << " vs expected " << stepformer::shape_to_string(want.shape);
    stepformer::Tensor g = got, w = want;
    for (size_t i = 0; i < g.data.size(); ++i) {
        if (std::isfinite(g.data[i]) && std::isfinite(w.data[i])) continue;
        const bool both_nan = std::isnan(g.data[i]) && std::isnan(w.data[i]);
        if (!both_nan && g.data[i] != w.data[i])
            return ::testing::AssertionFailure() << name << "[" << i << "]: " << g.data[i] << " vs " << w.data[i];
        g.data[i] = w.data[i] = 0.0f;
    }
    return close(name, g, w, tol);
}

}  // namespace fixtures
