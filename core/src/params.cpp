#include "stepformer/params.h"

#include <cmath>
#include <optional>
#include <cstdio>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "models/models.h"
#include "stepformer/model.h"
#include "stepformer/safetensors.h"
#include "stepformer/trace_names.h"

namespace stepformer {

// gamma/beta exist only when learned; the tutorial's fresh nn.LayerNorm has none to train.
static void add_layer_norm(std::vector<ParamSpec>& s, const Block& b, const Config& c) {
    using I = ParamSpec::Init;
    if (!c.learn_layer_norm) return;
    s.push_back({names::param(b, "layer_norm.weight"), {c.d_model}, I::Ones, 0, true, true});
    s.push_back({names::param(b, "layer_norm.bias"), {c.d_model}, I::Zeros, 0, true, true});
}

static void add_attention(std::vector<ParamSpec>& s, const Block& b, const Config& c) {
    using I = ParamSpec::Init;
    const int D = c.d_model, HK = c.n_heads * c.d_k, HV = c.n_heads * c.d_v;
    s.push_back({names::param(b, "W_Q.weight"), {HK, D}, I::Uniform, D});
    s.push_back({names::param(b, "W_K.weight"), {HK, D}, I::Uniform, D});
    s.push_back({names::param(b, "W_V.weight"), {HV, D}, I::Uniform, D});
    s.push_back({names::param(b, "fc.weight"), {D, HV}, I::Uniform, HV});
    add_layer_norm(s, b, c);
}

static void add_ffn(std::vector<ParamSpec>& s, const Block& b, const Config& c) {
    using I = ParamSpec::Init;
    s.push_back({names::param(b, "fc.0.weight"), {c.d_ff, c.d_model}, I::Uniform, c.d_model});
    s.push_back({names::param(b, "fc.2.weight"), {c.d_model, c.d_ff}, I::Uniform, c.d_ff});
    add_layer_norm(s, b, c);
}

// ----- PyTorch's layers: names as their state_dicts write them (trace_names.h composes them).

static void add_torch_norm(std::vector<ParamSpec>& s, const Block& b, int k, const Config& c) {
    using I = ParamSpec::Init;
    const std::string norm = "norm" + std::to_string(k);
    s.push_back({names::param(b, norm + ".weight"), {c.d_model}, I::Ones, 0, false, true});
    s.push_back({names::param(b, norm + ".bias"), {c.d_model}, I::Zeros, 0, false, true});
}

// nn.MultiheadAttention: in_proj_weight (rows Q | K | V) and in_proj_bias, out_proj.
static void add_torch_attention(std::vector<ParamSpec>& s, const Block& b, const Config& c, bool xavier_all) {
    using I = ParamSpec::Init;
    const int D = c.d_model;
    // Its gradient is written in three slices (Q, K, V rows) by three kernels, and updated after
    // the last: it needs storage of its own, as an accumulated one does.
    s.push_back({names::param(b, "in_proj_weight"), {3 * D, D}, I::Xavier, D, false, true, 3 * D});
    s.push_back({names::param(b, "in_proj_bias"), {3 * D}, I::Zeros, 0, false, true});
    s.push_back({names::param(b, "out_proj.weight"), {D, D}, xavier_all ? I::Xavier : I::Uniform, D, false, false, D});
    s.push_back({names::param(b, "out_proj.bias"), {D}, I::Zeros, 0, false, true});
}

// One nn.TransformerEncoderLayer / nn.TransformerDecoderLayer, in its state_dict's order.
static void add_torch_layer(std::vector<ParamSpec>& s, Stack stack, int i, const Config& c) {
    using I = ParamSpec::Init;
    const Naming n = c.layers() ? Naming::TorchLayers : Naming::TorchSeq2Seq;
    const bool xavier_all = !c.layers();  // nn.Transformer's _reset_parameters: xavier on every matrix
    const int D = c.d_model, F = c.d_ff;
    std::vector<Block> blocks;
    if (stack == Stack::Encoder) {
        blocks = {Block{stack, BlockKind::SelfAttention, i, n}};
    } else {
        blocks = {Block{stack, BlockKind::MaskedSelfAttention, i, n}, Block{stack, BlockKind::CrossAttention, i, n}};
    }
    for (const Block& b : blocks) add_torch_attention(s, b, c, xavier_all);
    const Block ffn{stack, BlockKind::FeedForward, i, n};
    const I lin = xavier_all ? I::Xavier : I::Uniform;
    s.push_back({names::param(ffn, "linear1.weight"), {F, D}, lin, D, false, false, F});
    s.push_back({names::param(ffn, "linear1.bias"), {F}, I::Uniform, D, false, true});
    s.push_back({names::param(ffn, "linear2.weight"), {D, F}, lin, F, false, false, D});
    s.push_back({names::param(ffn, "linear2.bias"), {D}, I::Uniform, F, false, true});
    blocks.push_back(ffn);
    for (size_t k = 0; k < blocks.size(); ++k) add_torch_norm(s, blocks[k], int(k) + 1, c);
}

std::vector<ParamSpec> build::torch_params(const Config& c) {
    using I = ParamSpec::Init;
    std::vector<ParamSpec> s;
    if (c.layers()) {
        add_torch_layer(s, Stack::Encoder, 0, c);
        if (c.decoder_layer) add_torch_layer(s, Stack::Decoder, 0, c);
        return s;
    }
    const Naming n = Naming::TorchSeq2Seq;
    const int D = c.d_model;
    for (int i = 0; i < c.encoder_layers(); ++i) add_torch_layer(s, Stack::Encoder, i, c);
    for (Stack st : {Stack::Encoder, Stack::Decoder}) {
        if (st == Stack::Decoder)
            for (int i = 0; i < c.decoder_layers(); ++i) add_torch_layer(s, Stack::Decoder, i, c);
        const Block norm{st, BlockKind::FinalNorm, -1, n};
        s.push_back({names::param(norm, "weight"), {D}, I::Ones, 0, false, true});
        s.push_back({names::param(norm, "bias"), {D}, I::Zeros, 0, false, true});
    }
    const Block gen{Stack::None, BlockKind::Projection, -1, n};
    const int V = c.tgt_vocab_size();
    s.push_back({names::param(gen, "weight"), {V, D}, I::Xavier, D, false, false, V});
    s.push_back({names::param(gen, "bias"), {V}, I::Uniform, D, false, true});
    s.push_back({names::param(Block{Stack::Encoder, BlockKind::Input, -1, n}, "tok_emb.embedding.weight"),
                 {c.src_vocab_size(), D}, I::Xavier, D, false, true, c.src_vocab_size()});
    s.push_back({names::param(Block{Stack::Decoder, BlockKind::Input, -1, n}, "tok_emb.embedding.weight"),
                 {c.tgt_vocab_size(), D}, I::Xavier, D, false, true, c.tgt_vocab_size()});
    return s;
}

// ----- attention-is-all-you-need-pytorch (seed 003): its state_dict's names and order.

std::vector<std::pair<std::string, std::string>> param_aliases(const Config& c) { return build::model_aliases(c); }

std::vector<std::pair<std::string, std::string>> build::aiayn_aliases(const Config& c) {
    std::vector<std::pair<std::string, std::string>> out;
    if (c.emb_src_trg_weight_sharing) out.push_back({"encoder.src_word_emb.weight", "decoder.trg_word_emb.weight"});
    if (c.trg_emb_prj_weight_sharing) out.push_back({"trg_word_prj.weight", "decoder.trg_word_emb.weight"});
    return out;
}

std::string canonical_param(const Config& c, const std::string& name) {
    for (const auto& [alias, own] : param_aliases(c))
        if (alias == name) return own;
    return name;
}

static void add_aiayn_norm(std::vector<ParamSpec>& s, const Block& b, const std::string& prefix, int D) {
    using I = ParamSpec::Init;
    s.push_back({names::param(b, prefix + "weight"), {D}, I::Ones, 0, false, true});
    s.push_back({names::param(b, prefix + "bias"), {D}, I::Zeros, 0, false, true});
}

static void add_aiayn_attention(std::vector<ParamSpec>& s, const Block& b, const Config& c) {
    using I = ParamSpec::Init;
    const int D = c.d_model, HK = c.n_heads * c.d_k, HV = c.n_heads * c.d_v;
    s.push_back({names::param(b, "w_qs.weight"), {HK, D}, I::Xavier, D, false, false, HK});
    s.push_back({names::param(b, "w_ks.weight"), {HK, D}, I::Xavier, D, false, false, HK});
    s.push_back({names::param(b, "w_vs.weight"), {HV, D}, I::Xavier, D, false, false, HV});
    s.push_back({names::param(b, "fc.weight"), {D, HV}, I::Xavier, HV, false, false, D});
    add_aiayn_norm(s, b, "layer_norm.", D);
}

static void add_aiayn_ffn(std::vector<ParamSpec>& s, const Block& b, const Config& c) {
    using I = ParamSpec::Init;
    const int D = c.d_model, F = c.d_ff;
    s.push_back({names::param(b, "w_1.weight"), {F, D}, I::Xavier, D, false, false, F});
    s.push_back({names::param(b, "w_1.bias"), {F}, I::Uniform, D, false, true});
    s.push_back({names::param(b, "w_2.weight"), {D, F}, I::Xavier, F, false, false, D});
    s.push_back({names::param(b, "w_2.bias"), {D}, I::Uniform, F, false, true});
    add_aiayn_norm(s, b, "layer_norm.", D);
}

// Every matrix xavier-initialised, as its Transformer does after building the modules.
std::vector<ParamSpec> build::aiayn_params(const Config& c) {
    using I = ParamSpec::Init;
    const Naming n = Naming::Aiayn;
    const int D = c.d_model;
    std::vector<ParamSpec> s;
    for (Stack st : {Stack::Encoder, Stack::Decoder}) {
        const Block in{st, BlockKind::Input, -1, n};
        const bool enc = st == Stack::Encoder;
        const int V = enc ? c.src_vocab_size() : c.tgt_vocab_size();
        const std::string table = enc ? "src_word_emb.weight" : "trg_word_emb.weight";
        if (!(enc && c.emb_src_trg_weight_sharing))
            s.push_back({names::param(in, table), {V, D}, I::Xavier, D, false, true, V});
        for (int i = 0; i < c.n_layers; ++i) {
            if (enc) {
                add_aiayn_attention(s, Block{st, BlockKind::SelfAttention, i, n}, c);
            } else {
                add_aiayn_attention(s, Block{st, BlockKind::MaskedSelfAttention, i, n}, c);
                add_aiayn_attention(s, Block{st, BlockKind::CrossAttention, i, n}, c);
            }
            add_aiayn_ffn(s, Block{st, BlockKind::FeedForward, i, n}, c);
        }
        add_aiayn_norm(s, in, "layer_norm.", D);
    }
    if (!c.trg_emb_prj_weight_sharing)
        s.push_back({names::param(Block{Stack::None, BlockKind::Projection, -1, n}, "weight"), {c.tgt_vocab_size(), D},
                     I::Xavier, D, false, false, c.tgt_vocab_size()});
    return s;
}

std::vector<ParamSpec> param_specs(const Config& c) { return build::model_params(c); }

std::vector<ParamSpec> build::tutorial_params(const Config& c) {
    using I = ParamSpec::Init;
    std::vector<ParamSpec> s;
    s.push_back({names::embedding_table(Stack::Encoder), {c.src_vocab_size(), c.d_model}, I::Normal, 0, false, true});
    for (int i = 0; i < c.n_layers; ++i) {
        add_attention(s, Block{Stack::Encoder, BlockKind::SelfAttention, i}, c);
        add_ffn(s, Block{Stack::Encoder, BlockKind::FeedForward, i}, c);
    }
    s.push_back({names::embedding_table(Stack::Decoder), {c.tgt_vocab_size(), c.d_model}, I::Normal, 0, false, true});
    for (int i = 0; i < c.n_layers; ++i) {
        add_attention(s, Block{Stack::Decoder, BlockKind::MaskedSelfAttention, i}, c);
        add_attention(s, Block{Stack::Decoder, BlockKind::CrossAttention, i}, c);
        add_ffn(s, Block{Stack::Decoder, BlockKind::FeedForward, i}, c);
    }
    s.push_back({names::param(Block{Stack::None, BlockKind::Projection, -1}, "weight"), {c.tgt_vocab_size(), c.d_model},
                 I::Uniform, c.d_model});
    return s;
}

ParamSet::ParamSet(const std::vector<ParamSpec>& specs) {
    items_.reserve(specs.size());
    for (const auto& sp : specs) {
        index_.emplace(sp.name, items_.size());
        items_.emplace_back(sp.name, Tensor(sp.shape));
    }
}

Tensor& ParamSet::at(const std::string& name) {
    auto it = index_.find(name);
    if (it == index_.end()) throw std::out_of_range("no parameter named '" + name + "'");
    return items_[it->second].second;
}

const Tensor& ParamSet::at(const std::string& name) const {
    auto it = index_.find(name);
    if (it == index_.end()) throw std::out_of_range("no parameter named '" + name + "'");
    return items_[it->second].second;
}

size_t ParamSet::index_of(const std::string& name) const {
    auto it = index_.find(name);
    if (it == index_.end()) throw std::out_of_range("no parameter named '" + name + "'");
    return it->second;
}

int64_t ParamSet::total_elements() const {
    int64_t n = 0;
    for (const auto& [name, t] : items_) n += t.size();
    return n;
}

bool ParamSet::same_layout(const ParamSet& other) const {
    if (items_.size() != other.items_.size()) return false;
    for (size_t i = 0; i < items_.size(); ++i)
        if (items_[i].first != other.items_[i].first || items_[i].second.shape != other.items_[i].second.shape) return false;
    return true;
}

void ParamSet::zero() {
    for (auto& [name, t] : items_) t.zero();
}

ParamSet init_params(const Config& c, uint64_t seed) {
    auto specs = param_specs(c);
    ParamSet ps(specs);
    std::mt19937_64 rng(seed);
    for (size_t i = 0; i < specs.size(); ++i) {
        Tensor& t = ps[i];
        switch (specs[i].init) {
            case ParamSpec::Init::Normal: {
                std::normal_distribution<float> nd(0.0f, specs[i].stddev);
                for (float& v : t.data) v = nd(rng);
                break;
            }
            case ParamSpec::Init::Uniform: {
                const float bound = 1.0f / std::sqrt(static_cast<float>(specs[i].fan_in));
                std::uniform_real_distribution<float> ud(-bound, bound);
                for (float& v : t.data) v = ud(rng);
                break;
            }
            case ParamSpec::Init::Xavier: {
                const float bound = std::sqrt(6.0f / static_cast<float>(specs[i].fan_in + specs[i].fan_out));
                std::uniform_real_distribution<float> ud(-bound, bound);
                for (float& v : t.data) v = ud(rng);
                break;
            }
            case ParamSpec::Init::Ones: std::fill(t.data.begin(), t.data.end(), 1.0f); break;
            case ParamSpec::Init::Zeros: t.zero(); break;
        }
    }
    return ps;
}

bool read_config_from_weights(const std::string& path, Config* out) {
    SafetensorsFile f = read_safetensors(path);
    auto it = f.metadata.find("stepformer.config");
    if (it == f.metadata.end()) return false;
    *out = config_from_json_text(it->second, Message(Msg::config_in_weights_metadata, {path}));
    return true;
}

static bool is_ignored_buffer(const std::string& name) {
    return name == "encoder.pos_emb.pe" || name == "decoder.pos_emb.pe" || name == "positional_encoding.pos_embedding" ||
           name == "encoder.position_enc.pos_table" || name == "decoder.position_enc.pos_table";
}

// A positional buffer is recomputed, not read: a file whose buffer holds another table (another
// formula, a learned one) would otherwise change the numbers silently, so it is said.
static std::optional<Message> positional_buffer_warning(const StoredTensor& st, const Config& c, const std::string& path) {
    // (max_len, 1, D) as the tutorials register it; (1, n_position, D) in attention-is-all-you-need-pytorch
    const Shape& s = st.shape;
    const int64_t rows = c.aiayn() ? (s.size() == 3 ? s[1] : 0) : (s.size() == 3 ? s[0] : 0);
    const bool fits = s.size() == 3 && s[2] == c.d_model && rows > 0 && (c.aiayn() ? s[0] == 1 : s[1] == 1);
    if (!fits)
        return Message(Msg::weights_positional_shape, {path, st.name, shape_to_string(s)});
    const int L = static_cast<int>(std::min<int64_t>(rows, 4096));
    const Tensor pe = c.aiayn() ? positional_table_float64(L, c.d_model) : positional_table(L, c.d_model);  // (L, D)
    double worst = 0.0;
    for (size_t i = 0; i < pe.data.size(); ++i) worst = std::max(worst, double(std::abs(pe.data[i] - st.value.data[i])));
    if (!(worst <= 1e-5)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3g", worst);
        return Message(Msg::weights_positional_not_sinusoid, {path, st.name, std::string(buf)});
    }
    return std::nullopt;
}

static bool is_optimizer_state(const std::string& name) { return name.rfind("optim.", 0) == 0; }

LoadedWeights load_weights(const std::string& path, const Config* config, NonFiniteWeights non_finite) {
    return load_weights(read_safetensors(path), path, config, non_finite);
}

std::optional<NonFinite> find_non_finite(const std::string& name, const Tensor& t) {
    const float* x = t.ptr();
    const size_t n = t.data.size();
    size_t i = 0;
    while (i < n && std::isfinite(x[i])) ++i;  // the common case: one pass, no branch taken
    if (i == n) return std::nullopt;
    NonFinite bad{name, 0, static_cast<int64_t>(i), x[i]};
    for (; i < n; ++i) bad.count += !std::isfinite(x[i]);
    return bad;
}

std::vector<NonFinite> non_finite_parameters(const ParamSet& p) {
    std::vector<NonFinite> out;
    for (size_t i = 0; i < p.size(); ++i)
        if (auto bad = find_non_finite(p.name(i), p[i])) out.push_back(std::move(*bad));
    return out;
}

Message non_finite_message(const NonFinite& bad) {
    const float v = bad.first_value;
    const std::string value = std::isnan(v) ? "NaN" : v > 0 ? "+inf" : "-inf";
    return Message(Msg::weights_parameter_not_finite, {bad.name, bad.count, value, bad.first_index});
}

// The names of the LayerNorm gamma/beta a model of `c`'s shape would have if it learned them.
static std::vector<ParamSpec> layer_norm_specs(Config c) {
    c.learn_layer_norm = true;
    std::vector<ParamSpec> out;
    for (auto& sp : param_specs(c))
        if (sp.optional_in_file) out.push_back(std::move(sp));
    return out;
}

// The first element of `t` that is not `want`, or -1.
static int64_t first_not(const Tensor& t, float want) {
    for (size_t i = 0; i < t.data.size(); ++i)
        if (t.data[i] != want) return static_cast<int64_t>(i);
    return -1;
}

LoadedWeights load_weights(const SafetensorsFile& f, const std::string& path, const Config* config,
                           NonFiniteWeights non_finite) {
    LoadedWeights out;
    out.metadata = f.metadata;
    Config file_config;
    bool has_file_config = false;
    // Checkpoints written before learn_layer_norm existed trained gamma/beta; their config lacks the key.
    bool file_predates_option = false;
    if (auto it = f.metadata.find("stepformer.config"); it != f.metadata.end()) {
        file_config = config_from_json_text(it->second, Message(Msg::config_in_weights_metadata, {path}));
        has_file_config = true;
        auto j = nlohmann::json::parse(it->second, nullptr, false);
        file_predates_option = j.is_object() && !j.contains("learn_layer_norm");
    }
    if (config) {
        out.config = *config;
        Message why;
        if (has_file_config && !file_config.same_architecture(*config, &why))
            throw WeightsError(Message(Msg::weights_other_model, {path, why}));
    } else if (has_file_config) {
        out.config = file_config;
        out.config_from_file = true;
    } else {
        // A bare state_dict, as the tutorial's program saves it: it can only be the tutorial's model.
        out.config = Config::tutorial();
        out.config_assumed = true;
    }
    auto fail = [&](Message what) -> WeightsError {
        if (out.config_assumed) return WeightsError(Message(Msg::weights_not_tutorial, {path, std::move(what)}));
        return WeightsError(Message(Msg::weights_in_file, {path, std::move(what)}));
    };

    // LayerNorm gamma/beta in a file whose config does not learn them: identity values are
    // harmless and skipped; trained values would change the numbers, so they are not dropped silently.
    std::set<std::string> skipped_norms;
    if (!out.config.learns_layer_norm()) {
        for (const auto& sp : layer_norm_specs(out.config)) {
            const StoredTensor* st = f.find(sp.name);
            if (!st) continue;
            const float identity = sp.init == ParamSpec::Init::Ones ? 1.0f : 0.0f;
            const int64_t bad = st->shape == sp.shape ? first_not(st->value, identity) : 0;
            if (bad < 0) {
                skipped_norms.insert(sp.name);
                continue;
            }
            if (file_predates_option && !config) {
                out.config.learn_layer_norm = true;
                out.warnings.push_back(Message(Msg::weights_earlier_learned_norms, {path}));
                skipped_norms.clear();
                break;
            }
            Message found = st->shape == sp.shape
                                ? Message(Msg::weights_holds_value,
                                          {std::to_string(st->value.data[static_cast<size_t>(bad)]), bad})
                                : Message(Msg::weights_has_shape, {shape_to_string(st->shape)});
            throw fail(Message(file_predates_option ? Msg::weights_layer_norm_learned_earlier : Msg::weights_layer_norm_learned,
                               {sp.name, std::move(found)}));
        }
    }
    if (!skipped_norms.empty())
        out.notes.push_back(Message(Msg::weights_norms_skipped, {skipped_norms.size()}));

    const auto specs = param_specs(out.config);
    out.params = ParamSet(specs);
    std::set<std::string> expected;
    for (const auto& sp : specs) expected.insert(sp.name);
    const auto aliases = param_aliases(out.config);
    for (const auto& st : f.tensors) {
        if (expected.count(st.name) || skipped_norms.count(st.name)) continue;
        if (canonical_param(out.config, st.name) != st.name) continue;  // a shared weight's other name: checked below
        if (build::model_buffer(st, out.config, path)) {  // the model's own, checked and never read
            out.ignored.push_back(st.name);
            continue;
        }
        if (is_ignored_buffer(st.name) || is_optimizer_state(st.name)) {
            if (is_ignored_buffer(st.name)) {
                out.ignored.push_back(st.name);
                if (auto w = positional_buffer_warning(st, out.config, path)) out.warnings.push_back(std::move(*w));
            }
            continue;
        }
        if (out.config_assumed && names::parse(st.name).block.torch())
            throw WeightsError(Message(Msg::weights_torch_without_config, {path, st.name}));
        const std::string layers_word =
            out.config.torch() ? "num_encoder_layers=" + std::to_string(out.config.encoder_layers()) +
                                     ", num_decoder_layers=" + std::to_string(out.config.decoder_layers())
                               : "n_layers=" + std::to_string(out.config.n_layers);
        throw fail(Message(Msg::weights_unexpected_tensor, {st.name, shape_to_string(st.shape), layers_word}));
    }
    for (size_t i = 0; i < specs.size(); ++i) {
        const auto& sp = specs[i];
        const StoredTensor* st = f.find(sp.name);
        if (!st) {
            if (!sp.optional_in_file)
                throw fail(Message(out.config_assumed ? Msg::weights_missing_parameter_tutorial : Msg::weights_missing_parameter,
                                   {sp.name, shape_to_string(sp.shape)}));
            Tensor& t = out.params[i];
            std::fill(t.data.begin(), t.data.end(), sp.init == ParamSpec::Init::Ones ? 1.0f : 0.0f);
            out.defaulted.push_back(sp.name);
            continue;
        }
        if (st->shape != sp.shape)
            throw fail(Message(out.config_assumed ? Msg::weights_parameter_shape_tutorial : Msg::weights_parameter_shape,
                               {sp.name, shape_to_string(st->shape), shape_to_string(sp.shape)}));
        if (auto bad = find_non_finite(sp.name, st->value)) {
            if (non_finite == NonFiniteWeights::Refuse) throw fail(non_finite_message(*bad));
            out.not_finite.push_back(std::move(*bad));
        }
        out.params[i] = st->value;
    }
    // A shared weight under its other names: the same values, or the file is not of this model.
    for (const auto& [alias, own] : aliases) {
        const StoredTensor* st = f.find(alias);
        if (!st) continue;
        const Tensor& t = out.params.at(own);
        if (st->shape != t.shape || st->value.data != t.data)
            throw fail(Message(Msg::weights_shared_differs, {alias, own}));
    }
    return out;
}

}  // namespace stepformer
