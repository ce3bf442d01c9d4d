// The model configuration: the tutorial's global hyperparameters as one value.
// JSON keys are a public contract (docs/contracts.md).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "stepformer/message.h"

namespace stepformer {

struct ConfigError : Error {
    using Error::Error;
};

// Which model: the tutorial's (seed 001), PyTorch's own nn.Transformer layers (seeds 002, 004),
// attention-is-all-you-need-pytorch's Transformer (seed 003) or nanoGPT's decoder-only GPT (the
// third family seed 001 names).
enum class Architecture { Tutorial, Torch, Aiayn, Gpt };
// For "torch": a translation model around nn.Transformer, or seed 004's layer lab (one encoder
// layer, optionally one decoder layer reading its output as memory, fed tensors instead of tokens).
enum class Structure { Seq2Seq, Layers };

struct Config {
    Architecture architecture = Architecture::Tutorial;
    Structure structure = Structure::Seq2Seq;
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

    // "torch" only (nn.Transformer's constructor arguments; d_ff is dim_feedforward, n_heads nhead,
    // n_layers num_encoder_layers, d_k = d_v = d_model / nhead). LayerNorm is always learned there.
    int n_decoder_layers = 6;      // num_decoder_layers ("tutorial": n_layers on both sides)
    std::string activation = "relu";  // "relu" | "gelu"
    bool batch_first = false;      // the layout of the layer lab's inputs and outputs ([B, L, D] or [L, B, D])
    bool norm_first = false;       // pre-norm layers
    bool decoder_layer = false;    // "layers": a decoder layer follows the encoder layer

    // "aiayn" only (its Transformer's constructor arguments; d_ff is d_inner, n_heads n_head, and
    // d_k, d_v, n_layers as named; LayerNorm eps 1e-6, always learned).
    int n_position = 200;                    // rows of the sinusoid table (pos_table)
    bool trg_emb_prj_weight_sharing = true;  // trg_word_prj.weight is decoder.trg_word_emb.weight
    bool emb_src_trg_weight_sharing = true;  // encoder.src_word_emb.weight is decoder.trg_word_emb.weight
    std::string scale_emb_or_prj = "prj";    // "emb" (embeddings × √d_model) | "prj" (logits × d_model^−0.5) | "none"

    // "gpt" only (nanoGPT's GPTConfig: n_embd is d_model, n_head n_heads, n_layer n_layers, the MLP
    // 4·n_embd wide; the word-level vocabulary is tgt_vocab and there is no source). block_size
    // bounds a sequence (tgt_len, the longest a batch pads to, is block_size); bias: Linear and
    // LayerNorm biases (false: none); lm_head.weight is transformer.wte.weight.
    int block_size = 1024;
    bool bias = true;

    bool torch() const { return architecture == Architecture::Torch; }
    bool aiayn() const { return architecture == Architecture::Aiayn; }
    bool layers() const { return torch() && structure == Structure::Layers; }
    int encoder_layers() const { return n_layers; }
    int decoder_layers() const { return torch() ? n_decoder_layers : n_layers; }
    bool has_vocabulary() const { return !layers(); }
    bool learns_layer_norm() const { return architecture != Architecture::Tutorial || learn_layer_norm; }
    bool reads_source() const { return architecture != Architecture::Gpt; }  // an encoder (src_vocab, src_len)

    static Config tutorial() { return Config{}; }
    // A small readable model with the tutorial's vocabulary (for the GUI and quick tests).
    static Config small();
    // PyTorch's nn.Transformer around the tutorial's data, small enough to read (d_model 32).
    static Config torch_small();
    // Seed 004's layer lab: nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0).
    static Config seed004();
    // attention-is-all-you-need-pytorch's Transformer at a readable size (d_model 32, 2 layers, 4
    // heads) on the tutorial's sentences: separate vocabularies, so no shared embeddings.
    static Config aiayn_small();
    // nanoGPT's GPT at a readable size (n_embd 32, 2 layers, 4 heads, block_size 12) on the
    // tutorial's target sentences and a few more words.
    static Config gpt_small();

    // Throws ConfigError naming the first problem found.
    void validate() const;
    bool same_architecture(const Config& other, std::string* why = nullptr) const;
    bool same_architecture(const Config& other, Message* why) const;  // why as a message

    int src_vocab_size() const { return static_cast<int>(src_vocab.size()); }
    int tgt_vocab_size() const { return static_cast<int>(tgt_vocab.size()); }
    int src_id(const std::string& token) const;  // -1 if absent
    int tgt_id(const std::string& token) const;
    int bos_id() const { return tgt_id(bos); }
    int eos_id() const { return tgt_id(eos); }
};

// Parsing validates. "architecture" missing or "tutorial": missing keys are errors except
// layer_norm_eps, dropout and learn_layer_norm (defaults). "torch": PyTorch's keys, each missing
// one taking nn.Transformer's default, the vocabulary and length keys the tutorial's.
Config config_from_json(const nlohmann::json& j);
// `what` names the source in the messages ("my.json: missing key 'd_model'"; "config: ..." by default).
Config config_from_json_text(const std::string& text, const MessageArg& what = Message(Msg::config_word));
Config load_config_file(const std::string& path);
nlohmann::json config_to_json(const Config& c);
std::string config_to_json_text(const Config& c, int indent = 2);
const char* architecture_name(Architecture a);  // "tutorial" | "torch" | "aiayn" | "gpt"
const char* structure_name(Structure s);        // "seq2seq" | "layers"

// Tokenisation: whitespace split, each token looked up in the vocabulary, then padded to
// `len` with the pad id. Throws ConfigError naming the unknown token and listing the vocabulary,
// or saying the sentence is longer than `len`.
std::vector<int> encode_sentence(const std::string& sentence, const std::vector<std::string>& vocab, int len,
                                 const std::string& which);
// Words split at white space, after fold_full_width.
std::vector<std::string> split_words(const std::string& sentence);
// What a Chinese keyboard types, as ASCII: the ideographic space U+3000 as a space, the
// full-width forms U+FF01–U+FF5E (！ to ～, e.g. "．" and "Ｐ") as the ASCII they stand for.
std::string fold_full_width(const std::string& text);
std::string join_vocab(const std::vector<std::string>& vocab);

}  // namespace stepformer
