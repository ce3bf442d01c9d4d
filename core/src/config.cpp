#include "stepformer/config.h"
#include "config_keys.h"

#include <cmath>

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace stepformer {

Config Config::small() {
    Config c;
    c.d_model = 32;
    c.d_ff = 64;
    c.d_k = 8;
    c.d_v = 8;
    c.n_layers = 2;
    c.n_heads = 4;
    c.dropout = 0.0;
    return c;
}

Config Config::torch_small() {
    Config c;
    c.architecture = Architecture::Torch;
    c.structure = Structure::Seq2Seq;
    c.d_model = 32;
    c.n_heads = 4;
    c.d_k = c.d_v = 8;
    c.d_ff = 64;
    c.n_layers = 2;
    c.n_decoder_layers = 2;
    c.dropout = 0.0;
    return c;
}

Config Config::seed004() {
    Config c;
    c.architecture = Architecture::Torch;
    c.structure = Structure::Layers;
    c.d_model = 4;
    c.n_heads = 2;
    c.d_k = c.d_v = 2;
    c.d_ff = 8;
    c.n_layers = 1;
    c.n_decoder_layers = 0;
    c.dropout = 0.0;
    return c;
}

Config Config::aiayn_small() {
    Config c;
    c.architecture = Architecture::Aiayn;
    c.d_model = 32;
    c.d_ff = 64;
    c.n_layers = 2;
    c.n_heads = 4;
    c.d_k = c.d_v = 8;
    c.dropout = 0.0;
    c.layer_norm_eps = 1e-6;
    c.emb_src_trg_weight_sharing = false;  // the tutorial's two vocabularies differ
    return c;
}

Config Config::gpt_small() {
    Config c;
    c.architecture = Architecture::Gpt;
    c.d_model = 32;
    c.n_heads = 4;
    c.d_k = c.d_v = 8;
    c.d_ff = 4 * 32;
    c.n_layers = 2;
    c.block_size = c.tgt_len = 12;
    c.dropout = 0.0;
    c.bias = true;
    c.src_vocab.clear();
    c.src_len = 0;
    c.tgt_vocab = {"P", "S", "E", "i", "want", "a", "beer", "coke", ".", "you", "like", "tea", "cold"};
    return c;
}

const char* architecture_name(Architecture a) { return config_keys(a).name; }
const char* structure_name(Structure s) { return s == Structure::Layers ? "layers" : "seq2seq"; }

// A problem in a config: "config: <problem>" (config_from_json_text puts its source there instead).
void config_fail(Msg problem, std::vector<MessageArg> args) {
    throw ConfigError(Message(Msg::config_problem, {Message(problem, std::move(args))}));
}

static int index_of(const std::vector<std::string>& v, const std::string& s) {
    for (size_t i = 0; i < v.size(); ++i)
        if (v[i] == s) return static_cast<int>(i);
    return -1;
}

int Config::src_id(const std::string& token) const { return index_of(src_vocab, token); }
int Config::tgt_id(const std::string& token) const { return index_of(tgt_vocab, token); }

std::string join_vocab(const std::vector<std::string>& vocab) {
    std::string out;
    for (size_t i = 0; i < vocab.size(); ++i) out += (i ? " " : "") + vocab[i];
    return out;
}

static void check_vocab(const std::vector<std::string>& vocab, const char* key, const std::string& pad) {
    if (vocab.empty()) config_fail(Msg::config_key_empty, {key});
    std::set<std::string> seen;
    for (const auto& t : vocab) {
        if (t.empty() || t.find_first_of(" \t\r\n") != std::string::npos)
            config_fail(Msg::config_vocab_bad_token, {key, t});
        if (!seen.insert(t).second) config_fail(Msg::config_vocab_duplicate, {key, t});
    }
    if (vocab[0] != pad)
        config_fail(Msg::config_pad_not_first, {pad, key, vocab[0]});
}

void check_positive(int v, const char* key, int max) {
    if (v <= 0) config_fail(Msg::config_not_positive, {key, v});
    if (v > max) config_fail(Msg::config_over_limit, {key, v, max});
}

void Config::validate() const {
    config_keys(architecture).validate(*this);  // the model's own keys, under its names
    if (!(layer_norm_eps > 0.0) || layer_norm_eps > 1.0)
        config_fail(Msg::config_layer_norm_eps, {std::to_string(layer_norm_eps)});
    if (!(dropout >= 0.0 && dropout < 1.0))
        config_fail(Msg::config_dropout, {std::to_string(dropout)});
    if (!has_vocabulary()) return;
    if (reads_source()) check_positive(src_len, "src_len", 4096);
    check_positive(tgt_len, "tgt_len", 4096);
    if (pad.empty()) config_fail(Msg::config_key_empty, {"pad"});
    if (reads_source()) check_vocab(src_vocab, "src_vocab", pad);
    check_vocab(tgt_vocab, reads_source() ? "tgt_vocab" : "vocab", pad);
    if (tgt_id(bos) < 0) config_fail(Msg::config_bos_missing, {bos});
    if (tgt_id(eos) < 0) config_fail(Msg::config_eos_missing, {eos});
    if (bos == pad || eos == pad || bos == eos) config_fail(Msg::config_special_tokens);
}

bool Config::same_architecture(const Config& o, std::string* why) const {
    Message m;
    const bool same = same_architecture(o, why ? &m : nullptr);
    if (!same && why) *why = m.text();
    return same;
}

bool Config::same_architecture(const Config& o, Message* why) const {
    auto diff = [&](const char* key, auto a, auto b) {
        if (a == b) return false;
        if (why) {
            std::ostringstream as, bs;
            as << a;
            bs << b;
            *why = Message(Msg::config_differs, {key, as.str(), bs.str()});
        }
        return true;
    };
    if (diff("architecture", architecture_name(architecture), architecture_name(o.architecture)) ||
        diff("structure", structure_name(structure), structure_name(o.structure)) ||
        diff("activation", activation, o.activation) || diff("norm_first", norm_first, o.norm_first) ||
        diff("trg_emb_prj_weight_sharing", trg_emb_prj_weight_sharing, o.trg_emb_prj_weight_sharing) ||
        diff("emb_src_trg_weight_sharing", emb_src_trg_weight_sharing, o.emb_src_trg_weight_sharing) ||
        diff("scale_emb_or_prj", scale_emb_or_prj, o.scale_emb_or_prj) || diff("bias", bias, o.bias) ||
        diff("block_size", block_size, o.block_size) ||
        diff("d_model", d_model, o.d_model) || diff("d_ff", d_ff, o.d_ff) || diff("d_k", d_k, o.d_k) ||
        diff("d_v", d_v, o.d_v) || diff("n_layers", n_layers, o.n_layers) ||
        (torch() && diff("num_decoder_layers", decoder_layers(), o.decoder_layers())) || diff("n_heads", n_heads, o.n_heads) ||
        diff("src_vocab", join_vocab(src_vocab), join_vocab(o.src_vocab)) ||
        diff("tgt_vocab", join_vocab(tgt_vocab), join_vocab(o.tgt_vocab)))
        return false;
    return true;
}

int get_int(const nlohmann::json& j, const char* key) {
    if (!j.contains(key)) config_fail(Msg::config_missing_key, {key});
    const auto& v = j.at(key);
    if (!v.is_number()) config_fail(Msg::config_not_integer, {key, v.dump()});
    // The range first: a number too large for any integer type (JSON has no limit; the parser
    // makes it a double) must not reach an integer conversion, which would be undefined.
    const double d = v.get<double>();
    if (!(std::fabs(d) <= 1e9)) config_fail(Msg::config_out_of_range, {key, v.dump()});
    if (v.is_number_float() && d != std::floor(d)) config_fail(Msg::config_not_integer, {key, v.dump()});
    return static_cast<int>(d);
}

bool get_bool(const nlohmann::json& j, const char* key, bool fallback) {
    return j.contains(key) ? get_key<bool>(j, key) : fallback;
}

int get_int_or(const nlohmann::json& j, const char* key, int fallback) {
    return j.contains(key) ? get_int(j, key) : fallback;
}

void read_vocabulary_keys(const nlohmann::json& j, Config& c) {
    if (j.contains("src_vocab")) c.src_vocab = get_key<std::vector<std::string>>(j, "src_vocab");
    if (j.contains("tgt_vocab")) c.tgt_vocab = get_key<std::vector<std::string>>(j, "tgt_vocab");
    c.src_len = get_int_or(j, "src_len", c.src_len);
    c.tgt_len = get_int_or(j, "tgt_len", c.tgt_len);
    if (j.contains("pad")) c.pad = get_key<std::string>(j, "pad");
    if (j.contains("bos")) c.bos = get_key<std::string>(j, "bos");
    if (j.contains("eos")) c.eos = get_key<std::string>(j, "eos");
}

nlohmann::json vocabulary_keys(const Config& c) {
    return nlohmann::json{{"src_vocab", c.src_vocab}, {"tgt_vocab", c.tgt_vocab}, {"src_len", c.src_len},
                          {"tgt_len", c.tgt_len},     {"pad", c.pad},             {"bos", c.bos},
                          {"eos", c.eos}};
}

// The architecture's keys (the tutorial's without "architecture"), then the checks.
Config config_from_json(const nlohmann::json& j) {
    if (!j.is_object()) config_fail(Msg::config_not_object);
    const ConfigKeys* keys = &config_keys(Architecture::Tutorial);
    if (j.contains("architecture")) {
        const std::string a = get_key<std::string>(j, "architecture");
        keys = config_keys(a);
        if (!keys) config_fail(Msg::config_architecture_one_of, {a, architecture_names()});
    }
    Config c = keys->from_json(j);
    c.validate();
    return c;
}

Config config_from_json_text(const std::string& text, const MessageArg& what) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number like 1e400
        throw ConfigError(Message(Msg::config_not_json, {what, e.what()}));
    }
    try {
        return config_from_json(j);
    } catch (const ConfigError& e) {
        // "<what>: <problem>" in place of "config: <problem>"
        const Message& m = e.message();
        if (!m.is_plain() && m.id() == Msg::config_problem && m.args().size() == 1)
            throw ConfigError(Message(Msg::context, {what, m.args()[0]}));
        throw ConfigError(what.text() + ": " + std::string(e.what()).substr(8));  // drop the "config: " prefix
    }
}

Config load_config_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ConfigError(Message(Msg::config_cannot_open, {path}));
    std::stringstream ss;
    ss << in.rdbuf();
    return config_from_json_text(ss.str(), Message(Msg::config_file_named, {path}));
}

nlohmann::json config_to_json(const Config& c) { return config_keys(c.architecture).to_json(c); }

std::string config_to_json_text(const Config& c, int indent) { return config_to_json(c).dump(indent); }

std::string fold_full_width(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const auto b = static_cast<unsigned char>(text[i]);
        // Three-byte UTF-8 sequences only: U+3000 (E3 80 80) and U+FF01–U+FF5E (EF BC 81 … EF BD 9E).
        // (Both following bytes must be continuation bytes 10xxxxxx: a stray lead byte before
        // another character must not swallow that character's first bytes.)
        if (b == 0xE3 || b == 0xEF) {
            if (i + 2 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0u) == 0x80u &&
                (static_cast<unsigned char>(text[i + 2]) & 0xC0u) == 0x80u) {
                const unsigned cp = ((b & 0x0Fu) << 12) | ((static_cast<unsigned char>(text[i + 1]) & 0x3Fu) << 6) |
                                    (static_cast<unsigned char>(text[i + 2]) & 0x3Fu);
                if (cp == 0x3000) {
                    out += ' ';
                    i += 3;
                    continue;
                }
                if (cp >= 0xFF01 && cp <= 0xFF5E) {
                    out += static_cast<char>(cp - 0xFEE0);
                    i += 3;
                    continue;
                }
            }
        }
        out += text[i++];
    }
    return out;
}

std::vector<std::string> split_words(const std::string& sentence) {
    std::vector<std::string> words;
    std::istringstream is(fold_full_width(sentence));
    std::string w;
    while (is >> w) words.push_back(w);
    return words;
}

// The sentence's role in the messages: the words translated, identifiers (dec_input) as they are.
static MessageArg sentence_role(const std::string& which) {
    if (which == "source") return Message(Msg::sentence_source);
    if (which == "target") return Message(Msg::sentence_target);
    if (which == "expected output") return Message(Msg::sentence_expected_output);
    return which;
}

std::vector<int> encode_sentence(const std::string& sentence, const std::vector<std::string>& vocab, int len,
                                 const std::string& which) {
    auto words = split_words(sentence);
    if (words.empty()) throw ConfigError(Message(Msg::sentence_empty, {sentence_role(which)}));
    if (static_cast<int>(words.size()) > len)
        throw ConfigError(Message(Msg::sentence_too_long, {sentence_role(which), sentence, words.size(), len}));
    std::vector<int> ids(static_cast<size_t>(len), 0);
    for (size_t i = 0; i < words.size(); ++i) {
        int id = index_of(vocab, words[i]);
        if (id < 0)
            throw ConfigError(Message(Msg::sentence_unknown_token, {sentence_role(which), words[i], sentence, join_vocab(vocab)}));
        ids[i] = id;
    }
    return ids;
}

}  // namespace stepformer
