// nanoGPT's configuration ("architecture": "gpt"): GPTConfig's fields as it spells them, each
// missing one taking its default (block_size 1024, n_layer 12, n_head 12, n_embd 768, dropout 0.0,
// bias true), and the word-level vocabulary (vocab; its length is vocab_size), pad (targets there
// are ignored), bos and eos. LayerNorm eps 1e-5, the MLP 4·n_embd wide, GELU.
#include <string_view>
#include <utility>

#include "config_keys.h"

namespace stepformer::keys {

namespace {

// Other models' keys, and what nanoGPT calls them (nullptr: it has nothing of the kind).
constexpr std::pair<std::string_view, const char*> kForeign[] = {
    {"d_model", "n_embd"},          {"n_heads", "n_head"},       {"nhead", "n_head"},
    {"n_layers", "n_layer"},        {"num_encoder_layers", "n_layer"}, {"num_decoder_layers", "n_layer"},
    {"tgt_vocab", "vocab"},         {"src_len", "block_size"},   {"tgt_len", "block_size"},
    {"n_position", "block_size"},   {"d_ff", nullptr},           {"dim_feedforward", nullptr},
    {"d_inner", nullptr},           {"d_k", nullptr},            {"d_v", nullptr},
    {"src_vocab", nullptr},         {"learn_layer_norm", nullptr}, {"layer_norm_eps", nullptr},
    {"activation", nullptr},        {"norm_first", nullptr},     {"batch_first", nullptr},
    {"structure", nullptr},         {"trg_emb_prj_weight_sharing", nullptr},
    {"emb_src_trg_weight_sharing", nullptr}, {"scale_emb_or_prj", nullptr}, {"vocab_size", nullptr},
};

}  // namespace

Config gpt_from_json(const nlohmann::json& j) {
    for (const auto& [key, gpt_key] : kForeign)
        if (j.contains(std::string(key))) {
            if (gpt_key) config_fail(Msg::config_not_gpt_key, {std::string(key), gpt_key});
            config_fail(Msg::config_not_gpt_key_at_all, {std::string(key)});
        }
    Config c;
    c.architecture = Architecture::Gpt;
    c.block_size = get_int_or(j, "block_size", 1024);
    c.n_layers = get_int_or(j, "n_layer", 12);
    c.n_heads = get_int_or(j, "n_head", 12);
    c.d_model = get_int_or(j, "n_embd", 768);
    c.dropout = j.contains("dropout") ? get_key<double>(j, "dropout") : 0.0;
    c.bias = get_bool(j, "bias", true);
    c.d_k = c.d_v = c.n_heads > 0 ? c.d_model / c.n_heads : 0;
    c.d_ff = 4 * c.d_model;
    c.layer_norm_eps = 1e-5;
    c.src_vocab.clear();
    c.src_len = 0;
    c.tgt_len = c.block_size;
    if (j.contains("vocab")) c.tgt_vocab = get_key<std::vector<std::string>>(j, "vocab");
    if (j.contains("pad")) c.pad = get_key<std::string>(j, "pad");
    if (j.contains("bos")) c.bos = get_key<std::string>(j, "bos");
    if (j.contains("eos")) c.eos = get_key<std::string>(j, "eos");
    return c;
}

nlohmann::json gpt_to_json(const Config& c) {
    return nlohmann::json{{"architecture", "gpt"}, {"block_size", c.block_size}, {"n_layer", c.n_layers},
                          {"n_head", c.n_heads},   {"n_embd", c.d_model},        {"dropout", c.dropout},
                          {"bias", c.bias},        {"vocab", c.tgt_vocab},       {"pad", c.pad},
                          {"bos", c.bos},          {"eos", c.eos}};
}

void gpt_validate(const Config& c) {
    check_positive(c.block_size, "block_size", 4096);
    check_positive(c.n_layers, "n_layer", 64);
    check_positive(c.n_heads, "n_head", 256);
    check_positive(c.d_model, "n_embd", 16384);
    if (c.d_model % c.n_heads != 0) config_fail(Msg::config_gpt_heads, {c.d_model, c.n_heads});
    // The fields the other keys set, as a program that builds a Config by hand may get them wrong.
    if (c.d_k != c.d_model / c.n_heads || c.d_v != c.d_k || c.d_ff != 4 * c.d_model || c.tgt_len != c.block_size)
        throw std::logic_error("a gpt Config's d_k, d_v, d_ff and tgt_len follow n_embd, n_head and block_size");
}

}  // namespace stepformer::keys
