// nanoGPT's parameters under its state_dict names and in its order, initialised as its
// _init_weights does (normal 0.02, biases 0, every c_proj.weight normal 0.02/√(2·n_layer), LayerNorm
// 1/0); lm_head.weight is transformer.wte.weight (weight tying: one parameter, listed under its
// first name, with the second as an alias); the causal-mask buffers PyTorch < 2.0 saves beside them.
#include <cmath>
#include <string>

#include "models/models.h"
#include "stepformer/safetensors.h"

namespace stepformer::build {

namespace {

constexpr float kStd = 0.02f;
constexpr Naming kN = Naming::Gpt;

void add_norm(std::vector<ParamSpec>& s, const Block& b, const std::string& leaf, const Config& c) {
    using I = ParamSpec::Init;
    s.push_back({names::param(b, leaf + ".weight"), {c.d_model}, I::Ones, 0, false, true});
    if (c.bias) s.push_back({names::param(b, leaf + ".bias"), {c.d_model}, I::Zeros, 0, false, true});
}

// A Linear (out, in) with its bias when the config has biases; `accumulates`: its gradient is
// written in slices (c_attn's Q, K and V thirds), so it needs storage of its own.
void add_linear(std::vector<ParamSpec>& s, const Block& b, const std::string& leaf, int out, int in, float stddev,
                const Config& c, bool accumulates = false) {
    using I = ParamSpec::Init;
    s.push_back({names::param(b, leaf + ".weight"), {out, in}, I::Normal, in, false, accumulates, out, stddev});
    if (c.bias) s.push_back({names::param(b, leaf + ".bias"), {out}, I::Zeros, 0, false, true});
}

}  // namespace

std::vector<ParamSpec> gpt_params(const Config& c) {
    using I = ParamSpec::Init;
    const int C = c.d_model;
    const float proj_std = kStd / std::sqrt(2.0f * float(c.n_layers));
    std::vector<ParamSpec> s;
    const Block in{Stack::Decoder, BlockKind::Input, -1, kN};
    s.push_back({names::param(in, "wte.weight"), {c.tgt_vocab_size(), C}, I::Normal, 0, false, true, 0, kStd});
    s.push_back({names::param(in, "wpe.weight"), {c.block_size, C}, I::Normal, 0, false, true, 0, kStd});
    for (int i = 0; i < c.n_layers; ++i) {
        const Block attn{Stack::Decoder, BlockKind::MaskedSelfAttention, i, kN}, mlp{Stack::Decoder, BlockKind::FeedForward, i, kN};
        add_norm(s, attn, "ln_1", c);
        add_linear(s, attn, "attn.c_attn", 3 * C, C, kStd, c, true);
        add_linear(s, attn, "attn.c_proj", C, C, proj_std, c);
        add_norm(s, mlp, "ln_2", c);
        add_linear(s, mlp, "mlp.c_fc", 4 * C, C, kStd, c);
        add_linear(s, mlp, "mlp.c_proj", C, 4 * C, proj_std, c);
    }
    const Block ln_f{Stack::Decoder, BlockKind::FinalNorm, -1, kN};
    s.push_back({names::param(ln_f, "weight"), {C}, I::Ones, 0, false, true});
    if (c.bias) s.push_back({names::param(ln_f, "bias"), {C}, I::Zeros, 0, false, true});
    return s;
}

std::vector<std::pair<std::string, std::string>> gpt_aliases(const Config&) {
    return {{names::param(Block{Stack::None, BlockKind::Projection, -1, kN}, "weight"),
             names::param(Block{Stack::Decoder, BlockKind::Input, -1, kN}, "wte.weight")}};
}

// transformer.h.{i}.attn.bias: (1, 1, block_size, block_size), ones on and below the diagonal.
bool gpt_buffer(const StoredTensor& st, const Config& c, const std::string& path) {
    const names::Parsed p = names::parse(st.name);
    if (p.block.naming != kN || p.block.kind != BlockKind::MaskedSelfAttention || p.leaf != "attn.bias" ||
        p.block.layer >= c.n_layers)
        return false;
    const int L = c.block_size;
    std::string found;
    if (st.shape != Shape{1, 1, L, L}) {
        found = shape_to_string(st.shape);
    } else {
        for (int q = 0; q < L && found.empty(); ++q)
            for (int k = 0; k < L; ++k)
                if (st.value.data[size_t(q) * L + k] != (k <= q ? 1.0f : 0.0f)) {
                    found = std::to_string(st.value.data[size_t(q) * L + k]) + " at [0, 0, " + std::to_string(q) + ", " +
                            std::to_string(k) + "]";
                    break;
                }
    }
    if (!found.empty()) throw WeightsError(Message(Msg::weights_not_causal_buffer, {path, st.name, L, found}));
    return true;
}

}  // namespace stepformer::build
