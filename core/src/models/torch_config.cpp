// PyTorch's nn.Transformer configuration ("architecture": "torch"): its constructor arguments,
// each missing one taking PyTorch's default; "structure": "layers" is seed 004's layer lab (one
// encoder layer, optionally a decoder layer), fed tensors instead of tokens.
#include "config_keys.h"

namespace stepformer::keys {

Config torch_from_json(const nlohmann::json& j) {
    Config c;
    c.architecture = Architecture::Torch;
    const std::string structure = j.contains("structure") ? get_key<std::string>(j, "structure") : "seq2seq";
    if (structure != "seq2seq" && structure != "layers")
        config_fail(Msg::config_structure, {structure});
    c.structure = structure == "layers" ? Structure::Layers : Structure::Seq2Seq;
    for (const char* tutorial_key : {"d_ff", "n_heads", "n_layers", "d_k", "d_v", "learn_layer_norm"})
        if (j.contains(tutorial_key))
            config_fail(Msg::config_tutorial_key, {tutorial_key});
    c.d_model = get_int_or(j, "d_model", 512);
    c.n_heads = get_int_or(j, "nhead", 8);
    c.d_ff = get_int_or(j, "dim_feedforward", 2048);
    c.dropout = j.contains("dropout") ? get_key<double>(j, "dropout") : 0.1;
    c.activation = j.contains("activation") ? get_key<std::string>(j, "activation") : "relu";
    c.layer_norm_eps = j.contains("layer_norm_eps") ? get_key<double>(j, "layer_norm_eps") : 1e-5;
    c.batch_first = get_bool(j, "batch_first", false);
    c.norm_first = get_bool(j, "norm_first", false);
    if (c.n_heads > 0) c.d_k = c.d_v = c.d_model / c.n_heads;
    if (c.structure == Structure::Layers) {
        for (const char* key : {"num_encoder_layers", "num_decoder_layers"})
            if (j.contains(key))
                config_fail(Msg::config_layer_lab_key, {key});
        c.decoder_layer = get_bool(j, "decoder_layer", false);
        c.n_layers = 1;
        c.n_decoder_layers = c.decoder_layer ? 1 : 0;
    } else {
        c.n_layers = get_int_or(j, "num_encoder_layers", 6);
        c.n_decoder_layers = get_int_or(j, "num_decoder_layers", 6);
        read_vocabulary_keys(j, c);
    }
    return c;
}

nlohmann::json torch_to_json(const Config& c) {
    nlohmann::json j{{"architecture", "torch"},         {"structure", structure_name(c.structure)},
                     {"d_model", c.d_model},             {"nhead", c.n_heads},
                     {"dim_feedforward", c.d_ff},        {"dropout", c.dropout},
                     {"activation", c.activation},       {"layer_norm_eps", c.layer_norm_eps},
                     {"batch_first", c.batch_first},     {"norm_first", c.norm_first}};
    if (c.layers()) {
        j["decoder_layer"] = c.decoder_layer;
    } else {
        j["num_encoder_layers"] = c.n_layers;
        j["num_decoder_layers"] = c.n_decoder_layers;
        j.update(vocabulary_keys(c));
    }
    return j;
}

void torch_validate(const Config& c) {
    check_positive(c.d_model, "d_model", 16384);
    check_positive(c.d_ff, "dim_feedforward", 65536);
    check_positive(c.d_k, "d_k", 4096);
    check_positive(c.d_v, "d_v", 4096);
    check_positive(c.n_layers, "num_encoder_layers", 64);
    check_positive(c.n_heads, "nhead", 256);
    if (c.d_model % c.n_heads != 0)
        config_fail(Msg::config_nhead_divides, {c.d_model, c.n_heads});
    if (c.d_k != c.d_model / c.n_heads || c.d_v != c.d_k)
        config_fail(Msg::config_head_size);
    if (c.activation != "relu" && c.activation != "gelu")
        config_fail(Msg::config_activation, {c.activation});
    if (c.layers()) {
        if (c.n_layers != 1 || c.n_decoder_layers != (c.decoder_layer ? 1 : 0))
            config_fail(Msg::config_layer_lab_layers);
    } else {
        check_positive(c.n_decoder_layers, "num_decoder_layers", 64);
    }
}

}  // namespace stepformer::keys
