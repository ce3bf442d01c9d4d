// The model configuration: the tutorial's global hyperparameters as one value.
// JSON keys are a public contract (docs/contracts.md).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace stepformer {

struct ConfigError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Config {
    int d_model = 512;
    int d_ff = 2048;
    int d_k = 64;
    int d_v = 64;
    int n_layers = 6;
    int n_heads = 8;
    std::vector<std::string> src_vocab{"P", "ich", "mochte", "ein", "bier", "cola"};
    std::vector<std::string> tgt_vocab{"P", "i", "want", "a", "beer", "coke", "S", "E", "."};
    int src_len = 5;
    int tgt_len = 6;
    std::string pad = "P";
    std::string bos = "S";
    std::string eos = "E";
    double layer_norm_eps = 1e-5;
    double dropout = 0.1;  // the tutorial's PositionalEncoding default; only active in training
    // The tutorial builds a fresh nn.LayerNorm in every forward, so gamma = 1 and beta = 0 are
    // constants, never trained. true: gamma/beta are parameters (*.layer_norm.weight/bias).
    bool learn_layer_norm = false;

    static Config tutorial() { return Config{}; }
    // A small readable model with the tutorial's vocabulary (for the GUI and quick tests).
    static Config small();

    // Throws ConfigError naming the first problem found.
    void validate() const;
    bool same_architecture(const Config& other, std::string* why = nullptr) const;

    int src_vocab_size() const { return static_cast<int>(src_vocab.size()); }
    int tgt_vocab_size() const { return static_cast<int>(tgt_vocab.size()); }
    int src_id(const std::string& token) const;  // -1 if absent
    int tgt_id(const std::string& token) const;
    int bos_id() const { return tgt_id(bos); }
    int eos_id() const { return tgt_id(eos); }
};

// Parsing validates; missing keys are errors except layer_norm_eps, dropout and learn_layer_norm
// (defaults).
Config config_from_json(const nlohmann::json& j);
Config config_from_json_text(const std::string& text, const std::string& what = "config");
Config load_config_file(const std::string& path);
nlohmann::json config_to_json(const Config& c);
std::string config_to_json_text(const Config& c, int indent = 2);

// Tokenisation: whitespace split, each token looked up in the vocabulary, then padded to
// `len` with the pad id. Throws ConfigError naming the unknown token and listing the vocabulary,
// or saying the sentence is longer than `len`.
std::vector<int> encode_sentence(const std::string& sentence, const std::vector<std::string>& vocab, int len,
                                 const std::string& which);
std::vector<std::string> split_words(const std::string& sentence);
std::string join_vocab(const std::vector<std::string>& vocab);

}  // namespace stepformer
