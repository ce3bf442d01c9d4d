#include "cli_common.h"

#include "stepformer/devices.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <cstdio>
#include <iostream>

namespace cli {

void BackendOption::add_to(CLI::App& cmd) {
    const char* env = std::getenv("STEPFORMER_BACKEND");
    choice = env && *env ? env : "cpu";
    cmd.add_option("--backend", choice, "what computes: cpu, gpu (Vulkan) or auto (a GPU when there is one); "
                                        "default $STEPFORMER_BACKEND, else cpu")
        ->check(CLI::IsMember({"cpu", "gpu", "auto"}));
}

stepformer::Backend* BackendOption::get() const {
    static std::unique_ptr<stepformer::Backend> made;
    if (!made) {
        if (choice != "cpu" && choice != "gpu" && choice != "auto")
            throw std::invalid_argument("STEPFORMER_BACKEND='" + choice + "': use cpu, gpu or auto");
        std::string note;
        made = stepformer::choose_backend(choice, 0, &note);
        if (!note.empty()) std::fprintf(stderr, "stepformer-cli: %s\n", note.c_str());
    }
    return made.get();
}

void ModelOptions::add_to(CLI::App& cmd, const char* weights_flag) {
    backend.add_to(cmd);
    cmd.add_option("--config", config, "model config (JSON); default: the weights' own, else the tutorial's")
        ->check(CLI::ExistingFile);
    cmd.add_option(weights_flag, weights, "weights (safetensors: the tutorial's state_dict names, or PyTorch's with a \"torch\" config)")
        ->check(CLI::ExistingFile);
    cmd.add_option("--seed", seed, "seed for PyTorch-style initialisation when no weights are given");
}

stepformer::ModelSource ModelOptions::source() const {
    stepformer::ModelSource s;
    if (!config.empty()) s.config_path = config;
    if (!weights.empty()) s.weights_path = weights;
    s.seed = seed;
    return s;
}

stepformer::LoadedModel ModelOptions::load() const {
    stepformer::LoadedModel lm = stepformer::load_model(source());
    if (lm.config_assumed)
        std::fprintf(stderr,
                     "stepformer-cli: '%s' carries no config; its tensor names and shapes are the tutorial's, so the "
                     "tutorial's config was assumed (d_model %d, %d layers, %d heads)\n",
                     weights.c_str(), lm.config.d_model, lm.config.n_layers, lm.config.n_heads);
    for (const auto& w : lm.warnings) std::fprintf(stderr, "stepformer-cli: warning: %s\n", w.c_str());
    return lm;
}

void ModelOptions::warn_if_untrained(const char* command) const {
    if (!weights.empty()) return;
    std::fprintf(stderr,
                 "stepformer-cli: warning: no --weights: the model's weights are random (seed %llu), not trained, so "
                 "%s prints noise. Train first (stepformer-cli train --save model.safetensors) and pass "
                 "--weights model.safetensors\n",
                 static_cast<unsigned long long>(seed), command);
}

void print_matrix(const float* data, int rows, int cols, const std::vector<std::string>& row_labels,
                  const std::vector<std::string>& col_labels, int precision) {
    size_t w0 = 0;
    for (const auto& l : row_labels) w0 = std::max(w0, l.size());
    const int w = std::max<int>(precision + 4, 6);
    std::printf("%*s", static_cast<int>(w0), "");
    for (int c = 0; c < cols; ++c) std::printf(" %*s", w, c < int(col_labels.size()) ? col_labels[c].c_str() : "");
    std::printf("\n");
    for (int r = 0; r < rows; ++r) {
        std::printf("%*s", static_cast<int>(w0), r < int(row_labels.size()) ? row_labels[r].c_str() : "");
        for (int c = 0; c < cols; ++c) std::printf(" %*.*f", w, precision, data[r * cols + c]);
        std::printf("\n");
    }
}

}  // namespace cli
