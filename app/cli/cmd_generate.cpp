// `stepformer-cli generate`: nanoGPT's generate() from a prompt, for a model without a source
// ("architecture": "gpt"): greedy by default, or temperature / top-k draws with --sample.
#include <cstdio>
#include <memory>

#include "cli_common.h"
#include "stepformer/decode.h"

namespace cli {
namespace {

struct GenerateArgs {
    ModelOptions model;
    std::vector<std::string> prompts;
    stepformer::GenerateOptions opt;
    uint64_t sample_seed = 0;
    bool ignore_eos = false, verbose = false;
};

int run_generate(const GenerateArgs& a) {
    using namespace stepformer;
    LoadedModel lm = a.model.load();
    if (lm.config.reads_source())
        throw ConfigError(std::string("generate continues a prompt with a model that has no source sentence "
                                      "(\"architecture\": \"gpt\"); this model (\"") +
                          architecture_name(lm.config.architecture) + "\") translates: use translate --src");
    a.model.warn_if_untrained("generate");
    GenerateOptions opt = a.opt;
    opt.stop_at_eos = !a.ignore_eos;
    opt.seed = a.sample_seed;
    opt.validate();
    const Transformer model(lm.config, std::move(lm.params), a.model.backend.get());
    const std::vector<std::string> prompts = a.prompts.empty() ? std::vector<std::string>{lm.config.bos} : a.prompts;
    for (const std::string& p : prompts) {
        const DecodeResult r = generate(model, p, opt);
        std::string words;
        for (int t : r.tokens) words += " " + lm.config.tgt_vocab[size_t(t)];
        if (a.verbose) std::printf("%s ->%s\n", p.c_str(), words.c_str());
        else std::printf("%s%s\n", p.c_str(), words.c_str());
    }
    return 0;
}

}  // namespace

void add_generate_command(CLI::App& app, Action& run) {
    auto* cmd = app.add_subcommand("generate", "continue a prompt word by word (nanoGPT's generate; \"architecture\": \"gpt\")");
    auto a = std::make_shared<GenerateArgs>();
    a->model.add_to(*cmd);
    cmd->add_option("--prompt", a->prompts, "the words to continue, e.g. \"S i\" (repeatable; default: the start word)");
    cmd->add_option("--max-new-tokens", a->opt.max_new_tokens, "new words at most (default: block_size)")
        ->check(CLI::Range(1, 4096));
    cmd->add_option("--temperature", a->opt.temperature, "divide the logits by this before softmax (default 1.0; > 0)");
    cmd->add_option("--top-k", a->opt.top_k, "keep only the k likeliest words (default: all)")->check(CLI::Range(1, 1 << 20));
    cmd->add_flag("--sample", a->opt.sample, "draw each word from the distribution (default: the likeliest, as greedy)");
    cmd->add_option("--sample-seed", a->sample_seed, "seed of the draws (--sample)");
    cmd->add_flag("--ignore-eos", a->ignore_eos, "go on after the end word, as nanoGPT's loop does");
    cmd->add_flag("--verbose", a->verbose, "print 'prompt -> new words'");
    cmd->callback([&run, a] { run = [a] { return run_generate(*a); }; });
}

}  // namespace cli
