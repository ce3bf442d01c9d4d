// `stepformer-cli forward`: one traced forward pass; dumps every intermediate or prints a summary.
#include <cstdio>
#include <iostream>

#include "cli_common.h"

namespace cli {
namespace {

struct ForwardArgs {
    ModelOptions model;
    std::vector<std::string> src, tgt;
    std::string dump;
};

int run_forward(const ForwardArgs& a) {
    using namespace stepformer;
    LoadedModel lm = a.model.load();
    std::vector<std::string> src = a.src, tgt = a.tgt;
    if (src.empty() && tgt.empty()) {
        src = {"ich mochte ein bier P"};
        tgt = {"S i want a beer ."};
    }
    if (src.size() != tgt.size())
        throw ConfigError("give as many --tgt as --src (got " + std::to_string(src.size()) + " and " +
                          std::to_string(tgt.size()) + ")");
    const Batch batch = make_batch(lm.config, src, tgt);
    Transformer model(lm.config, std::move(lm.params));
    Trace trace;
    model.forward(batch, trace);
    if (!a.dump.empty()) {
        write_trace(a.dump, trace, lm.config);
        std::printf("wrote %zu tensors to %s\n", trace.size(), a.dump.c_str());
        return 0;
    }
    const Config& c = lm.config;
    std::printf("model: %s\n", lm.description.c_str());
    for (const auto& n : lm.notes) std::printf("note: %s\n", n.c_str());
    std::printf("d_model=%d d_ff=%d d_k=%d d_v=%d n_layers=%d n_heads=%d, batch %d\n", c.d_model, c.d_ff, c.d_k, c.d_v,
                c.n_layers, c.n_heads, batch.B);
    std::printf("%zu traced tensors, e.g.:\n", trace.size());
    for (const char* n : {"encoder.src_emb.out", "encoder.pos_emb.pe", "encoder.self_attn_mask",
                          "encoder.layers.0.enc_self_attn.scores", "decoder.self_attn_mask",
                          "decoder.layers.0.dec_enc_attn.attn", "projection.logits"})
        std::printf("  %-42s %s\n", n, shape_to_string(trace.at(n).value.shape).c_str());
    const std::string last = "decoder.layers." + std::to_string(c.n_layers - 1);
    for (const char* block : {".dec_self_attn.attn", ".dec_enc_attn.attn"}) {
        const auto& e = trace.at(last + block);
        const int Lq = static_cast<int>(e.value.dim(2)), Lk = static_cast<int>(e.value.dim(3));
        std::printf("\n%s%s, sentence 0, head 0 (rows: queries, columns: keys):\n", last.c_str(), block);
        const auto& keys = e.axes[3].kind == AxisKind::SrcToken ? trace.src_tokens[0] : trace.tgt_tokens[0];
        print_matrix(e.value.ptr(), Lq, Lk, trace.tgt_tokens[0], keys);
    }
    const auto& probs = trace.at("projection.probs").value;
    const int T = batch.T, V = c.tgt_vocab_size();
    std::printf("\npredicted next tokens (argmax of projection.probs):");
    for (int t = 0; t < T; ++t) {
        int best = 0;
        for (int v = 1; v < V; ++v)
            if (probs.data[size_t(t) * V + v] > probs.data[size_t(t) * V + best]) best = v;
        std::printf(" %s", c.tgt_vocab[size_t(best)].c_str());
    }
    std::printf("\n");
    return 0;
}

}  // namespace

void add_forward_command(CLI::App& app, Action& run) {
    auto* cmd = app.add_subcommand("forward", "run one traced forward pass (the tutorial's example by default)");
    auto a = std::make_shared<ForwardArgs>();
    a->model.add_to(*cmd);
    cmd->add_option("--src", a->src, "source sentence (repeat for a batch)");
    cmd->add_option("--tgt", a->tgt, "decoder input sentence starting with S (repeat, one per --src)");
    cmd->add_option("--dump", a->dump, "write every traced tensor to this safetensors file");
    cmd->callback([&run, a] { run = [a] { return run_forward(*a); }; });
}

}  // namespace cli
