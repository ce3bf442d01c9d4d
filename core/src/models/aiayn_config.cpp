// attention-is-all-you-need-pytorch's configuration ("architecture": "aiayn"): its Transformer's
// constructor arguments, each missing one taking its default; LayerNorm eps 1e-6.
#include <algorithm>

#include "config_keys.h"

namespace stepformer::keys {

Config aiayn_from_json(const nlohmann::json& j) {
    Config c;
    c.architecture = Architecture::Aiayn;
    for (const char* other : {"d_ff", "n_heads", "nhead", "dim_feedforward", "num_encoder_layers", "learn_layer_norm",
                              "structure"})
        if (j.contains(other))
            config_fail(Msg::config_not_aiayn_key, {other});
    if (j.contains("d_word_vec") && get_int(j, "d_word_vec") != get_int_or(j, "d_model", 512))
        config_fail(Msg::config_d_word_vec);
    c.d_model = get_int_or(j, "d_model", 512);
    c.d_ff = get_int_or(j, "d_inner", 2048);
    c.n_layers = get_int_or(j, "n_layers", 6);
    c.n_heads = get_int_or(j, "n_head", 8);
    c.d_k = get_int_or(j, "d_k", 64);
    c.d_v = get_int_or(j, "d_v", 64);
    c.dropout = j.contains("dropout") ? get_key<double>(j, "dropout") : 0.1;
    c.n_position = get_int_or(j, "n_position", 200);
    c.trg_emb_prj_weight_sharing = get_bool(j, "trg_emb_prj_weight_sharing", true);
    c.emb_src_trg_weight_sharing = get_bool(j, "emb_src_trg_weight_sharing", true);
    c.scale_emb_or_prj = j.contains("scale_emb_or_prj") ? get_key<std::string>(j, "scale_emb_or_prj") : "prj";
    c.layer_norm_eps = 1e-6;
    read_vocabulary_keys(j, c);
    return c;
}

nlohmann::json aiayn_to_json(const Config& c) {
    nlohmann::json j{{"architecture", "aiayn"},
                     {"d_model", c.d_model},
                     {"d_inner", c.d_ff},
                     {"n_layers", c.n_layers},
                     {"n_head", c.n_heads},
                     {"d_k", c.d_k},
                     {"d_v", c.d_v},
                     {"dropout", c.dropout},
                     {"n_position", c.n_position},
                     {"trg_emb_prj_weight_sharing", c.trg_emb_prj_weight_sharing},
                     {"emb_src_trg_weight_sharing", c.emb_src_trg_weight_sharing},
                     {"scale_emb_or_prj", c.scale_emb_or_prj}};
    j.update(vocabulary_keys(c));
    return j;
}

void aiayn_validate(const Config& c) {
    check_positive(c.d_model, "d_model", 16384);
    check_positive(c.d_ff, "d_inner", 65536);
    check_positive(c.d_k, "d_k", 4096);
    check_positive(c.d_v, "d_v", 4096);
    check_positive(c.n_layers, "n_layers", 64);
    check_positive(c.n_heads, "n_head", 256);
    check_positive(c.n_position, "n_position", 65536);
    if (c.scale_emb_or_prj != "emb" && c.scale_emb_or_prj != "prj" && c.scale_emb_or_prj != "none")
        config_fail(Msg::config_scale_emb_or_prj, {c.scale_emb_or_prj});
    if (c.emb_src_trg_weight_sharing && c.src_vocab != c.tgt_vocab)
        config_fail(Msg::config_shared_vocab);
    if (c.src_len > c.n_position || c.tgt_len > c.n_position)
        config_fail(Msg::config_n_position, {std::max(c.src_len, c.tgt_len), c.n_position});
}

}  // namespace stepformer::keys
