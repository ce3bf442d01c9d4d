// `grad`, `train` and `translate`: the learning side of the core, headless.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "cli_common.h"
#include "stepformer/checkpoint.h"
#include "stepformer/decode.h"
#include "stepformer/message.h"
#include "stepformer/safetensors.h"
#include "stepformer/train.h"

namespace cli {
namespace {

using namespace stepformer;

// Fails early (before minutes of training) when the output's directory can't be written.
void check_writable(const std::string& path, const char* what) {
    namespace fs = std::filesystem;
    fs::path p(path);
    fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    std::error_code ec;
    if (fs::is_directory(p, ec)) throw std::runtime_error(std::string(what) + " '" + path + "' is a directory");
    if (!fs::is_directory(dir, ec))
        throw std::runtime_error(std::string("cannot write ") + what + " '" + path + "': directory '" + dir.string() +
                                 "' does not exist");
    if (access(dir.c_str(), W_OK) != 0)
        throw std::runtime_error(std::string("cannot write ") + what + " '" + path + "': directory '" + dir.string() +
                                 "' is not writable");
}

// grad, train and translate need sentences and a loss, which the layer lab has not.
void require_sentences(const Config& c, const char* command) {
    if (c.layers())
        throw ConfigError(std::string(command) +
                          ": this model is the layer lab (\"structure\": \"layers\"), which has no vocabulary and "
                          "no loss; run it with forward --src-input x.npy [--grad] instead");
}

std::vector<Example> load_data(const std::string& path, const Config& c) {
    return path.empty() ? builtin_examples(c) : load_tsv(path, c);
}

struct GradArgs {
    ModelOptions model;
    std::string data, dump;
};

int run_grad(const GradArgs& a) {
    LoadedModel lm = a.model.load();
    require_sentences(lm.config, "grad");
    check_writable(a.dump, "gradient dump");
    const auto data = load_data(a.data, lm.config);
    std::vector<size_t> all(data.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    const Batch batch = make_training_batch(lm.config, data, all);
    Transformer model(lm.config, std::move(lm.params), a.model.backend.get());
    Trace trace;
    model.forward(batch, trace);
    const float loss = model.loss(batch, trace);
    ParamSet grads;
    model.backward(batch, trace, grads, true);
    std::vector<TensorToWrite> items;
    items.push_back({"loss", &trace.at("loss").value, DType::F32});
    items.push_back({"loss.per_token", &trace.at("loss.per_token").value, DType::F32});
    for (size_t i = 0; i < grads.size(); ++i) items.push_back({"grad." + grads.name(i), &grads[i], DType::F32});
    for (const auto& e : trace.entries())
        if (e.name.rfind("grad.", 0) == 0) items.push_back({e.name, &e.value, DType::F32});
    write_safetensors(a.dump, items, {{"stepformer.config", config_to_json_text(lm.config, -1)}});
    std::printf("loss %.6f over %zu sentences; wrote %zu tensors to %s\n", loss, data.size(), items.size(),
                a.dump.c_str());
    return 0;
}

struct TrainArgs {
    ModelOptions model;
    std::string data, optimizer = "sgd", log, save;
    int epochs = 30, batch_size = 2;
    bool no_shuffle = false, save_optimizer = false, resume = false, warmup = false, quiet = false;
    double lr = 1e-3, momentum = 0.99;
    int warmup_steps = 4000;
    std::optional<double> dropout;       // overrides the config's
    std::optional<double> weight_decay;  // AdamW's; unset: the resumed checkpoint's, else 0.1
};

int run_train(const TrainArgs& a) {
    ModelSource ms = a.model.source();
    LoadedModel lm = a.model.load();
    require_sentences(lm.config, "train");
    if (a.dropout) {
        lm.config.dropout = *a.dropout;
        lm.config.validate();
    }
    std::optional<Checkpoint> ck;
    if (a.resume) {
        if (!ms.weights_path) throw std::runtime_error("--resume needs --init with a checkpoint");
        ck = load_checkpoint(*ms.weights_path, &lm.config);
        if (!ck->optimizer_json)
            throw std::runtime_error("--resume: '" + *ms.weights_path + "' carries no optimizer state");
    }
    if (!a.save.empty()) check_writable(a.save, "checkpoint");
    if (!a.log.empty()) check_writable(a.log, "log");
    const auto data = load_data(a.data, lm.config);
    TrainOptions to;
    to.epochs = a.epochs;
    to.batch_size = a.batch_size;
    to.shuffle = !a.no_shuffle;
    to.seed = a.model.seed;
    to.optimizer = optimizer_defaults(optimizer_from_name(a.optimizer));  // AdamW: nanoGPT's betas and eps
    to.optimizer.lr = a.lr;
    to.optimizer.momentum = a.momentum;
    to.optimizer.warmup_schedule = a.warmup;
    to.optimizer.warmup_steps = a.warmup_steps;
    if (a.weight_decay && to.optimizer.kind != OptimizerKind::AdamW)
        throw std::invalid_argument("--weight-decay: only --optimizer adamw decays weights");
    if (a.weight_decay)
        to.optimizer.weight_decay = *a.weight_decay;
    else if (ck && to.optimizer.kind == OptimizerKind::AdamW)
        to.optimizer.weight_decay = saved_weight_decay(*ck->optimizer_json).value_or(to.optimizer.weight_decay);
    try {
        to.validate();
    } catch (const InvalidArgument& e) {
        // The range depends on --lr, so only here can it be checked; say which option it was.
        if (e.message().code() != "optimizer.weight_decay") throw;
        throw InvalidArgument(Message(Msg::context, {"--weight-decay", e.message()}));
    }
    std::printf("model: %s\n", lm.description.c_str());
    std::printf("training on %zu sentences: %d epochs, batch %d, %s lr %g, dropout %g%s%s\n", data.size(), a.epochs,
                a.batch_size, a.optimizer.c_str(), a.lr, lm.config.dropout, to.shuffle ? ", shuffled" : "",
                lm.config.learn_layer_norm ? ", learned LayerNorm" : "");
    Transformer model(lm.config, std::move(lm.params), a.model.backend.get());
    Trainer trainer(model, data, to);
    if (ck) {
        restore_optimizer(*ck, trainer.optimizer());
        std::printf("resumed optimizer state at step %lld\n", static_cast<long long>(trainer.optimizer().step_count()));
    }
    std::ofstream log;
    if (!a.log.empty()) {
        log.open(a.log);
        if (!log) throw std::runtime_error("cannot write log '" + a.log + "'");
        log << "step,epoch,loss,grad_norm,lr,elapsed_s\n";
        log.precision(9);  // every digit of a float: a log is compared with other programs' losses
    }
    auto result = trainer.run(
        [&](const StepReport& r) {
            if (log.is_open())
                log << r.step << ',' << r.epoch << ',' << r.loss << ',' << r.grad_norm << ',' << r.lr << ','
                    << r.elapsed_s << '\n';
            if (!a.quiet && r.step_in_epoch == r.steps_per_epoch)
                std::printf("Epoch: %04d loss = %.6f  |grad| = %.4f  lr = %g  (%.1f s)\n", r.epoch, r.loss,
                            r.grad_norm, r.lr, r.elapsed_s);
            std::fflush(stdout);
        });
    if (log.is_open()) log.close();
    if (!a.save.empty()) {
        save_checkpoint(a.save, model, a.save_optimizer ? &trainer.optimizer() : nullptr);
        std::printf("saved %s to %s\n", result.status == TrainStatus::Diverged ? "the last good weights" : "weights",
                    a.save.c_str());
    }
    if (result.status == TrainStatus::Diverged) {
        std::fprintf(stderr, "error: %s\n", result.message.c_str());
        return 2;
    }
    std::printf("%s, final loss %.6f\n", result.message.c_str(), result.last_loss);
    return 0;
}

struct TranslateArgs {
    ModelOptions model;
    std::vector<std::string> src;
    bool verbose = false;
};

int run_translate(const TranslateArgs& a) {
    LoadedModel lm = a.model.load();
    require_sentences(lm.config, "translate");
    if (!lm.config.reads_source())
        throw ConfigError("translate: this model (\"" + std::string(architecture_name(lm.config.architecture)) +
                          "\") has no source sentence to translate; continue a prompt with generate --prompt \"S i\"");
    a.model.warn_if_untrained("translate");
    Transformer model(lm.config, std::move(lm.params), a.model.backend.get());
    std::vector<std::string> src = a.src;
    if (src.empty()) src = {"ich mochte ein bier P", "ich mochte ein cola P"};
    for (const auto& s : src) {
        auto r = greedy_decode(model, s);
        if (a.verbose)
            std::printf("%s -> %s\n", s.c_str(), r.text.c_str());
        else
            std::printf("%s\n", r.text.c_str());
    }
    return 0;
}

}  // namespace

void add_grad_command(CLI::App& app, Action& run) {
    auto* cmd = app.add_subcommand("grad", "one forward + backward over a dataset as one batch; dump every gradient");
    auto a = std::make_shared<GradArgs>();
    a->model.add_to(*cmd);
    cmd->add_option("--data", a->data, "dataset TSV, or for a decoder-only model one sentence per line (default: the toy data)")->check(CLI::ExistingFile);
    cmd->add_option("--dump", a->dump, "output safetensors: loss, grad.<param>, grad.<trace name>")->required();
    cmd->callback([&run, a] { run = [a] { return run_grad(*a); }; });
}

void add_train_command(CLI::App& app, Action& run) {
    auto* cmd = app.add_subcommand("train", "train on a dataset (default: the tutorial's two sentences)");
    auto a = std::make_shared<TrainArgs>();
    a->model.add_to(*cmd, "--init");
    cmd->add_option("--data", a->data, "dataset TSV (a decoder-only model: one sentence per line)")->check(CLI::ExistingFile);
    cmd->add_option("--epochs", a->epochs, "epochs (default 30)");
    cmd->add_option("--batch-size", a->batch_size, "sentences per step (default 2)");
    cmd->add_flag("--no-shuffle", a->no_shuffle, "keep the dataset's order");
    cmd->add_option("--dropout", a->dropout, "dropout probability (the tutorial: after the positional encoding; torch: where PyTorch puts it); "
                    "default: the config's")
        ->check(CLI::Range(0.0, 0.999));
    cmd->add_option("--optimizer", a->optimizer, "sgd, adam or adamw (default sgd; adamw: betas 0.9/0.95, eps 1e-8)");
    cmd->add_option("--lr", a->lr, "learning rate (default 1e-3)");
    cmd->add_option("--momentum", a->momentum, "SGD momentum (default 0.99)");
    cmd->add_option("--weight-decay", a->weight_decay,
                    "AdamW: decoupled weight decay of the parameters with 2 or more dimensions (default 0.1, "
                    "nanoGPT's; resuming: the checkpoint's)")
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                char* end = nullptr;
                const double v = std::strtod(s.c_str(), &end);
                if (end == s.c_str() || *end != '\0' || !std::isfinite(v) || v < 0.0)
                    return "weight decay must be a number of at least 0, got " + s;
                return "";
            },
            "NUMBER >= 0"));
    cmd->add_flag("--warmup", a->warmup, "Adam, AdamW: the paper's warm-up learning-rate schedule");
    cmd->add_option("--warmup-steps", a->warmup_steps, "warm-up steps (default 4000)");
    cmd->add_option("--log", a->log, "CSV log, one row per step: step,epoch,loss,grad_norm,lr,elapsed_s");
    cmd->add_option("--save", a->save, "checkpoint to write (safetensors, config in the metadata)");
    cmd->add_flag("--save-optimizer", a->save_optimizer, "also store the optimizer state so training can resume");
    cmd->add_flag("--resume", a->resume, "restore the optimizer state stored in --init");
    cmd->add_flag("--quiet", a->quiet, "no per-epoch lines");
    cmd->callback([&run, a] { run = [a] { return run_train(*a); }; });
}

void add_translate_command(CLI::App& app, Action& run) {
    auto* cmd = app.add_subcommand("translate", "greedy decoding, one line per --src");
    auto a = std::make_shared<TranslateArgs>();
    a->model.add_to(*cmd);
    cmd->add_option("--src", a->src, "source sentence (repeatable; default: the tutorial's two)");
    cmd->add_flag("--verbose", a->verbose, "print 'source -> translation'");
    cmd->callback([&run, a] { run = [a] { return run_translate(*a); }; });
}

}  // namespace cli
