// Named parameters in a fixed order (the tutorial's state_dict order), and their loading from
// safetensors with shape checks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "stepformer/config.h"
#include "stepformer/message.h"
#include "stepformer/tensor.h"

namespace stepformer {

struct WeightsError : Error {
    using Error::Error;
};

struct ParamSpec {
    std::string name;
    Shape shape;
    enum class Init { Normal, Uniform, Ones, Zeros, Xavier } init;
    int fan_in = 0;  // Uniform: U(±1/√fan_in); Xavier: U(±√(6 / (fan_in + fan_out)))
    bool optional_in_file = false;  // learned LayerNorm gamma/beta: a file may lack them (then 1/0)
    // Its gradient is summed over several kernel calls (an embedding table's rows, LayerNorm's
    // gamma/beta over positions), so the backward pass zeroes it first; a linear weight's is
    // written once by its one kernel.
    bool grad_accumulates = false;
    int fan_out = 0;
    float stddev = 1.0f;  // Normal: N(0, stddev²) (nanoGPT's 0.02, and 0.02/√(2·n_layer) for c_proj)
};

// The parameter list of the model for `c`, in state_dict order. A shared parameter is listed once,
// under its own name (see param_aliases).
std::vector<ParamSpec> param_specs(const Config& c);

// The other names a state_dict holds a shared parameter under (attention-is-all-you-need-pytorch's
// weight sharing: trg_word_prj.weight and encoder.src_word_emb.weight are the same Parameter as
// decoder.trg_word_emb.weight): alias -> the parameter's own name. Empty for unshared models.
std::vector<std::pair<std::string, std::string>> param_aliases(const Config& c);
// The parameter's own name for a state_dict name (the name itself when it is no alias).
std::string canonical_param(const Config& c, const std::string& name);

class ParamSet {
public:
    ParamSet() = default;
    explicit ParamSet(const std::vector<ParamSpec>& specs);  // zero-filled

    Tensor& at(const std::string& name);
    const Tensor& at(const std::string& name) const;
    bool contains(const std::string& name) const { return index_.count(name) != 0; }
    size_t index_of(const std::string& name) const;  // throws std::out_of_range
    size_t size() const { return items_.size(); }
    const std::string& name(size_t i) const { return items_[i].first; }
    Tensor& operator[](size_t i) { return items_[i].second; }
    const Tensor& operator[](size_t i) const { return items_[i].second; }
    int64_t total_elements() const;
    // The same names with the same shapes, in the same order.
    bool same_layout(const ParamSet& other) const;
    void zero();

private:
    std::vector<std::pair<std::string, Tensor>> items_;
    std::unordered_map<std::string, size_t> index_;
};

// PyTorch's default initialisation (N(0,1) embeddings, U(+-1/sqrt(fan_in)) linears,
// LayerNorm 1/0; for "torch", nn.MultiheadAttention's xavier in-projection and zero biases, and
// in a seq2seq model xavier on every matrix, as the translation tutorial does), from a seeded
// generator.
ParamSet init_params(const Config& c, uint64_t seed);

// A tensor holding NaN or ±inf: how many such entries, and the first of them.
struct NonFinite {
    std::string name;
    int64_t count = 0;
    int64_t first_index = 0;  // flat, row-major
    float first_value = 0.0f;
};
std::optional<NonFinite> find_non_finite(const std::string& name, const Tensor& t);
// Every parameter of `p` that holds NaN or ±inf, in the set's order (empty when all are finite).
std::vector<NonFinite> non_finite_parameters(const ParamSet& p);
// "parameter '<name>' holds <count> NaN or infinite values (the first, <value>, at entry <index>)"
Message non_finite_message(const NonFinite& bad);

// What load_weights does with a parameter holding NaN or ±inf: refuse the file, naming it (the
// CLI, checkpoints, the layer lab), or open it and list it in LoadedWeights::not_finite (the app,
// which shows such a model with the bad entries marked; training refuses to start from it).
enum class NonFiniteWeights { Refuse, Report };

struct LoadedWeights {
    ParamSet params;
    Config config;
    bool config_from_file = false;
    bool config_assumed = false;          // no config anywhere: the names and shapes are the tutorial's
    std::vector<std::string> ignored;     // e.g. encoder.pos_emb.pe
    std::vector<std::string> defaulted;   // learned LayerNorm params not in the file (1/0)
    std::vector<Message> notes;           // what was skipped, for the user
    std::vector<Message> warnings;        // something the user should act on
    std::vector<NonFinite> not_finite;    // with NonFiniteWeights::Report: the parameters holding NaN/±inf
    std::map<std::string, std::string> metadata;
};

// Reads a safetensors weights file. The config comes from `config` when given, otherwise from
// the file's __metadata__["stepformer.config"], otherwise it is the tutorial's (a bare
// state_dict as the tutorial saves it; config_assumed) and any other name or shape is an
// error asking for --config. Checks every parameter's presence and shape, naming the first
// problem (expected vs found). LayerNorm gamma/beta in the file while the config does not
// learn them: exactly 1/0 is skipped with a note, anything else is an error naming
// "learn_layer_norm" — except in a checkpoint saved before that option existed (its config
// lacks the key), which opens with learned LayerNorm and a warning.
LoadedWeights load_weights(const std::string& path, const Config* config,
                           NonFiniteWeights non_finite = NonFiniteWeights::Refuse);
// The same from a file already read (`path` only names it in messages).
struct SafetensorsFile;
LoadedWeights load_weights(const SafetensorsFile& file, const std::string& path, const Config* config,
                           NonFiniteWeights non_finite = NonFiniteWeights::Refuse);

// The config stored in a file's metadata, if any.
bool read_config_from_weights(const std::string& path, Config* out);

}  // namespace stepformer
