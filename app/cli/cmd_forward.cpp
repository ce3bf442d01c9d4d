// `stepformer-cli forward`: one traced forward pass; dumps every intermediate or prints a summary.
#include <cstdio>
#include <iostream>
#include <stdexcept>

#include "cli_common.h"
#include "cmd_forward.h"
#include "stepformer/agreement.h"
#include "stepformer/trace_graph.h"

namespace cli {
namespace {

struct ForwardArgs {
    ModelOptions model;
    std::vector<std::string> src, tgt, text;
    std::string dump;
    bool compare_cpu = false;
    LayerLabArgs lab;
};

}  // namespace

// The numbers the app's agreement box shows for one step, for all of them.
int print_agreement(const stepformer::Trace& shown, const stepformer::Trace& cpu, const std::string& device) {
    using namespace stepformer;
    std::printf("%s against the CPU backend (%s), %zu traced tensors\n", device.c_str(),
                default_backend().describe().c_str(), shown.size());
    std::printf("  %-44s %-16s %10s %10s %s\n", "tensor", "shape", "max |d|", "max rel", "differ");
    int bad = 0, identical = 0;
    const TraceEntry* worst = nullptr;
    double worst_rel = -1.0, worst_abs = 0.0;
    for (const TraceEntry& e : shown.entries()) {
        const TraceEntry* r = cpu.find(e.name);
        const agreement::TensorDiff d = r ? agreement::compare(e.value, r->value) : agreement::TensorDiff{};
        if (!r || !d.ok()) {
            std::printf("  %-44s %s\n", e.name.c_str(), r ? d.error.c_str() : "missing on the CPU");
            ++bad;
            continue;
        }
        if (d.bitIdentical) ++identical;
        std::printf("  %-44s %-16s %10.3g %10.3g %lld/%lld%s\n", e.name.c_str(), shape_to_string(e.value.shape).c_str(),
                    d.maxAbs, d.maxRel, static_cast<long long>(d.differing), static_cast<long long>(d.count),
                    d.nonFiniteMismatch ? "  NaN/inf on one side only" : "");
        if (d.nonFiniteMismatch) ++bad;
        if (d.maxRel > worst_rel) {
            worst_rel = d.maxRel;
            worst_abs = d.maxAbs;
            worst = &e;
        }
    }
    if (worst)
        std::printf("largest difference: %s, max |d| %.3g, max relative %.3g; %d of %zu tensors bit for bit equal\n",
                    worst->name.c_str(), worst_abs, worst_rel, identical, shown.size());
    std::printf("(max relative = max |d| / max |cpu value| over the tensor)\n");
    return bad ? 1 : 0;
}

namespace {

int run_forward(const ForwardArgs& a) {
    using namespace stepformer;
    LoadedModel lm = a.model.load();
    if (lm.config.layers()) {
        if (!a.src.empty() || !a.tgt.empty())
            throw ConfigError(std::string(a.src.empty() ? "--tgt" : "--src") +
                              " takes a sentence, but this model is the layer lab (\"structure\": \"layers\"), "
                              "which has no vocabulary: give its input as a tensor, --src-input x.npy");
        return run_forward_layers(a.lab, lm, a.model.backend.get(), a.dump, a.compare_cpu);
    }
    if (const std::string flag = a.lab.first_given(); !flag.empty())
        throw ConfigError(flag + " is for the layer lab (\"architecture\": \"torch\", \"structure\": \"layers\"); "
                          "this model (\"" + architecture_name(lm.config.architecture) + "\", \"" +
                          structure_name(lm.config.structure) + "\") takes sentences: --src and --tgt");
    std::vector<std::string> src = a.src, tgt = a.tgt;
    if (!lm.config.reads_source()) {  // a decoder-only model reads one sentence: --text
        if (!src.empty() || !tgt.empty())
            throw ConfigError(std::string(src.empty() ? "--tgt" : "--src") +
                              " is for a model that translates a source sentence; this model (\"" +
                              architecture_name(lm.config.architecture) + "\") reads one text: --text \"S i want a beer .\"");
        tgt = a.text.empty() ? std::vector<std::string>{"S i want a beer ."} : a.text;
    } else if (!a.text.empty()) {
        throw ConfigError(std::string("--text is for a model without a source sentence (\"architecture\": \"gpt\"); "
                                      "this model (\"") + architecture_name(lm.config.architecture) + "\") takes --src and --tgt");
    }
    if (src.empty() && tgt.empty()) {
        src = {"ich mochte ein bier P"};
        tgt = {"S i want a beer ."};
    }
    if (lm.config.reads_source() && src.size() != tgt.size())
        throw ConfigError("give as many --tgt as --src (got " + std::to_string(src.size()) + " and " +
                          std::to_string(tgt.size()) + ")");
    const Batch batch = make_batch(lm.config, src, tgt);
    // Shared: --compare-cpu computes the same weights on the CPU too, without a copy.
    const auto weights = std::make_shared<const ParamSet>(std::move(lm.params));
    Transformer model(lm.config, weights, a.model.backend.get());
    Trace trace;
    model.forward(batch, trace);
    if (!a.dump.empty()) {
        write_trace(a.dump, trace, lm.config);
        std::printf("wrote %zu tensors to %s\n", trace.size(), a.dump.c_str());
    }
    if (a.compare_cpu) {
        const Transformer on_cpu(lm.config, weights, &default_backend());
        Trace reference;
        on_cpu.forward(batch, reference);
        return print_agreement(trace, reference, model.backend().describe());
    }
    if (!a.dump.empty()) return 0;
    const Config& c = lm.config;
    std::printf("model: %s\n", lm.description.c_str());
    for (const auto& n : lm.notes) std::printf("note: %s\n", n.c_str());
    if (c.torch())
        std::printf("nn.Transformer(d_model=%d, nhead=%d, num_encoder_layers=%d, num_decoder_layers=%d, "
                    "dim_feedforward=%d, dropout=%g, activation=%s, norm_first=%s), batch %d\n",
                    c.d_model, c.n_heads, c.encoder_layers(), c.decoder_layers(), c.d_ff, c.dropout,
                    c.activation.c_str(), c.norm_first ? "True" : "False", batch.B);
    else if (c.aiayn())
        std::printf("Transformer(d_model=%d, d_inner=%d, n_layers=%d, n_head=%d, d_k=%d, d_v=%d, dropout=%g, "
                    "n_position=%d, trg_emb_prj_weight_sharing=%s, emb_src_trg_weight_sharing=%s, "
                    "scale_emb_or_prj='%s'), batch %d\n",
                    c.d_model, c.d_ff, c.n_layers, c.n_heads, c.d_k, c.d_v, c.dropout, c.n_position,
                    c.trg_emb_prj_weight_sharing ? "True" : "False", c.emb_src_trg_weight_sharing ? "True" : "False",
                    c.scale_emb_or_prj.c_str(), batch.B);
    else if (!c.reads_source())
        std::printf("GPT(GPTConfig(block_size=%d, vocab_size=%d, n_layer=%d, n_head=%d, n_embd=%d, dropout=%g, "
                    "bias=%s)), batch %d\n",
                    c.block_size, c.tgt_vocab_size(), c.n_layers, c.n_heads, c.d_model, c.dropout, c.bias ? "True" : "False",
                    batch.B);
    else
        std::printf("d_model=%d d_ff=%d d_k=%d d_v=%d n_layers=%d n_heads=%d, batch %d\n", c.d_model, c.d_ff, c.d_k,
                    c.d_v, c.n_layers, c.n_heads, batch.B);
    std::printf("%zu traced tensors, e.g.:\n", trace.size());
    // One of each kind of step: the encoder's input, its mask, a score matrix, the decoder's mask,
    // a cross attention, the logits. Blocks are named by the model's naming (tutorial or torch).
    const Naming naming = trace.entries().front().block.naming;
    const Block enc_in{Stack::Encoder, BlockKind::Input, -1, naming};
    const Block enc_attn{Stack::Encoder, BlockKind::SelfAttention, 0, naming};
    const Block dec_attn{Stack::Decoder, BlockKind::MaskedSelfAttention, 0, naming};
    const TraceEntry* examples[] = {
        graph::find(trace, enc_in, Role::Embedding),
        graph::find(trace, enc_in, Role::PositionalTable),
        graph::mask_of(trace, enc_attn),
        graph::find(trace, enc_attn, Role::Scores),
        graph::mask_of(trace, dec_attn),
        graph::find(trace, Block{Stack::Decoder, BlockKind::CrossAttention, 0, naming}, Role::Softmax),
        graph::output_logits(trace),
    };
    for (const TraceEntry* e : examples)
        if (e) std::printf("  %-42s %s\n", e->name.c_str(), shape_to_string(e->value.shape).c_str());
    // The last decoder layer's two attention maps.
    const int last = graph::layer_count(trace, Stack::Decoder) - 1;
    for (const BlockKind kind : {BlockKind::MaskedSelfAttention, BlockKind::CrossAttention}) {
        const TraceEntry* e = graph::find(trace, Block{Stack::Decoder, kind, last, naming}, Role::Softmax);
        if (!e) continue;
        const int Lq = static_cast<int>(e->value.dim(2)), Lk = static_cast<int>(e->value.dim(3));
        std::printf("\n%s, sentence 0, head 0 (rows: queries, columns: keys):\n", e->name.c_str());
        const auto& keys = e->axes[3].kind == AxisKind::SrcToken ? trace.src_tokens[0] : trace.tgt_tokens[0];
        print_matrix(e->value.ptr(), Lq, Lk, trace.tgt_tokens[0], keys);
    }
    const TraceEntry* probs_entry = graph::output_probs(trace);
    if (!probs_entry) throw std::runtime_error("forward: the trace has no output probabilities");
    const auto& probs = probs_entry->value;
    const int T = batch.T, V = c.tgt_vocab_size();
    std::printf("\npredicted next tokens (argmax of %s):", probs_entry->name.c_str());
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
    auto* cmd = app.add_subcommand("forward", "run one traced forward pass (the tutorial's example by default; the layer lab's tensors with --src-input)");
    auto a = std::make_shared<ForwardArgs>();
    a->model.add_to(*cmd);
    cmd->add_option("--src", a->src, "source sentence (repeat for a batch)");
    cmd->add_option("--tgt", a->tgt, "decoder input sentence starting with S (repeat, one per --src)");
    cmd->add_option("--text", a->text, "a decoder-only model's input, e.g. \"S i want a beer .\" (repeat for a batch)");
    a->lab.add_to(*cmd);
    cmd->add_option("--dump", a->dump, "write every traced tensor to this safetensors file");
    cmd->add_flag("--compare-cpu", a->compare_cpu,
                  "also compute the pass on the CPU backend and print, for every traced tensor, how far the "
                  "chosen backend's numbers are from the CPU's (exit code 1 when a tensor is missing or NaN/inf "
                  "on one side only)");
    cmd->callback([&run, a] { run = [a] { return run_forward(*a); }; });
}

}  // namespace cli
