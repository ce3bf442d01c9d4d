// The tutorial's encoder-decoder Transformer. forward() records every intermediate in a Trace
// under the contract's names; backward() records grad.<name> for each of them and fills the
// parameter gradients.
#pragma once

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "stepformer/backend.h"
#include "stepformer/config.h"
#include "stepformer/params.h"
#include "stepformer/trace.h"

namespace stepformer {

// Token ids of a batch, row-major. `out` (the decoder's expected output) is only needed for
// the loss.
struct Batch {
    int B = 0, S = 0, T = 0;
    std::vector<int> src;  // (B, S)
    std::vector<int> tgt;  // (B, T) decoder input, starting with bos
    std::vector<int> out;  // (B, T) decoder target, ending with eos; empty when unknown
};

// Encodes sentences (validated against the vocabularies, padded to src_len / tgt_len).
// Throws ConfigError naming the bad token or the too-long sentence.
Batch make_batch(const Config& c, const std::vector<std::string>& src, const std::vector<std::string>& tgt,
                 const std::vector<std::string>& out = {});

// The tutorial's sinusoidal table, (L, D), computed in float32 the way PositionalEncoding does.
Tensor positional_table(int L, int D);

// Called during backward() with a parameter's index once its gradient is final and the backward
// pass no longer reads the weight: an optimizer can update it right there (fused update).
using ParamReadyFn = std::function<void(size_t param_index)>;

struct ForwardOptions {
    bool train = false;                // dropout active
    std::mt19937_64* rng = nullptr;    // required when train and dropout > 0
};

class Transformer {
public:
    Transformer(Config config, ParamSet params, Backend* backend = nullptr);

    const Config& config() const { return config_; }
    ParamSet& params() { return params_; }
    const ParamSet& params() const { return params_; }
    Backend& backend() const { return *backend_; }

    // Clears `trace` and fills it with every intermediate, in computation order.
    void forward(const Batch& batch, Trace& trace, const ForwardOptions& opt = {}) const;

    // Appends loss.per_token (B, T) and loss () to a forward trace; needs batch.out. Returns the loss.
    float loss(const Batch& batch, Trace& trace) const;

    // Backward from the loss: zeroes and fills `grads` (same layout as params) and, when
    // `trace_grads`, appends grad.<name> for every intermediate that has a gradient, in the
    // order the backward pass computes them (loss first, embeddings last).
    void backward(const Batch& batch, Trace& trace, ParamSet& grads, bool trace_grads = true,
                  const ParamReadyFn& on_param_ready = {}) const;

private:
    Config config_;
    ParamSet params_;
    Backend* backend_;
};

}  // namespace stepformer
