// The tutorial's configuration ("architecture" missing or "tutorial"): its global
// hyperparameters, every key required except layer_norm_eps, dropout and learn_layer_norm.
#include "config_keys.h"

namespace stepformer::keys {

Config tutorial_from_json(const nlohmann::json& j) {
    Config c;
    c.d_model = get_int(j, "d_model");
    c.d_ff = get_int(j, "d_ff");
    c.d_k = get_int(j, "d_k");
    c.d_v = get_int(j, "d_v");
    c.n_layers = get_int(j, "n_layers");
    c.n_heads = get_int(j, "n_heads");
    c.src_vocab = get_key<std::vector<std::string>>(j, "src_vocab");
    c.tgt_vocab = get_key<std::vector<std::string>>(j, "tgt_vocab");
    c.src_len = get_int(j, "src_len");
    c.tgt_len = get_int(j, "tgt_len");
    c.pad = get_key<std::string>(j, "pad");
    c.bos = get_key<std::string>(j, "bos");
    c.eos = get_key<std::string>(j, "eos");
    if (j.contains("layer_norm_eps")) c.layer_norm_eps = get_key<double>(j, "layer_norm_eps");
    c.dropout = j.contains("dropout") ? get_key<double>(j, "dropout") : 0.1;
    if (j.contains("learn_layer_norm")) c.learn_layer_norm = get_key<bool>(j, "learn_layer_norm");
    return c;
}

nlohmann::json tutorial_to_json(const Config& c) {
    return nlohmann::json{{"d_model", c.d_model},   {"d_ff", c.d_ff},           {"d_k", c.d_k},
                          {"d_v", c.d_v},           {"n_layers", c.n_layers},   {"n_heads", c.n_heads},
                          {"src_vocab", c.src_vocab}, {"tgt_vocab", c.tgt_vocab}, {"src_len", c.src_len},
                          {"tgt_len", c.tgt_len},   {"pad", c.pad},             {"bos", c.bos},
                          {"eos", c.eos},           {"layer_norm_eps", c.layer_norm_eps}, {"dropout", c.dropout},
                          {"learn_layer_norm", c.learn_layer_norm}};
}

void tutorial_validate(const Config& c) {
    check_positive(c.d_model, "d_model", 16384);
    check_positive(c.d_ff, "d_ff", 65536);
    check_positive(c.d_k, "d_k", 4096);
    check_positive(c.d_v, "d_v", 4096);
    check_positive(c.n_layers, "n_layers", 64);
    check_positive(c.n_heads, "n_heads", 256);
}

}  // namespace stepformer::keys
