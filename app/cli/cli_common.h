// Shared bits of the stepformer-cli subcommands.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "stepformer/backend.h"
#include "stepformer/model_io.h"

namespace cli {

// Each subcommand registers itself and sets `run` to its action.
using Action = std::function<int()>;
void add_forward_command(CLI::App& app, Action& run);
void add_info_command(CLI::App& app, Action& run);
void add_grad_command(CLI::App& app, Action& run);
void add_train_command(CLI::App& app, Action& run);
void add_translate_command(CLI::App& app, Action& run);
void add_generate_command(CLI::App& app, Action& run);
void add_bench_command(CLI::App& app, Action& run);

// --backend cpu|gpu|auto (default: $STEPFORMER_BACKEND, else cpu) on a command that computes.
struct BackendOption {
    std::string choice;
    void add_to(CLI::App& cmd);
    // The chosen backend, made once and kept for the process; "auto" without a GPU says on stderr
    // that the CPU computes. --backend gpu without a device throws stepformer::BackendUnavailable
    // (exit code 2).
    stepformer::Backend* get() const;
};

// --config / --weights / --seed as one group, and the backend that computes.
struct ModelOptions {
    std::string config, weights;
    uint64_t seed = 0;
    BackendOption backend;
    void add_to(CLI::App& cmd, const char* weights_flag = "--weights");
    stepformer::ModelSource source() const;
    // load_model(source()), saying on stderr what the user should know: an assumed config, warnings.
    stepformer::LoadedModel load() const;
    // On stderr, when no weights were given: the model is untrained, so what `command` prints is
    // noise (translate and generate, whose output reads like an answer).
    void warn_if_untrained(const char* command) const;
};

// Prints a (rows, cols) slice as a small aligned table with row/column labels.
void print_matrix(const float* data, int rows, int cols, const std::vector<std::string>& row_labels,
                  const std::vector<std::string>& col_labels, int precision = 3);

}  // namespace cli
