// The tutorial's encoder-decoder Transformer. forward() records every intermediate in a Trace
// under the contract's names; backward() records grad.<name> for each of them and fills the
// parameter gradients.
#pragma once

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "stepformer/backend.h"
#include "stepformer/config.h"
#include "stepformer/graph.h"
#include "stepformer/params.h"
#include "stepformer/staging.h"
#include "stepformer/trace.h"

namespace stepformer {

// Token ids of a batch, row-major. `out` (the decoder's expected output) is only needed for
// the loss.
struct Batch {
    int B = 0, S = 0, T = 0;
    std::vector<int> src;  // (B, S)
    std::vector<int> tgt;  // (B, T) decoder input, starting with bos
    std::vector<int> out;  // (B, T) decoder target, ending with eos; empty when unknown

    // A token stream by name: src (B, S), tgt (B, T), out (B, T).
    const std::vector<int>& tokens(TokenStream s) const { return s == TokenStream::Src ? src : s == TokenStream::Tgt ? tgt : out; }
    int length(TokenStream s) const { return s == TokenStream::Src ? S : T; }

    // "structure": "layers" (seed 004's layer lab): the layers' inputs are tensors, batch-first,
    // with the masks PyTorch's forward takes; S and T are their lengths, src/tgt/out stay empty.
    Tensor src_x;        // (B, S, D)
    Tensor tgt_x;        // (B, T, D): the decoder layer's input (empty without one)
    Tensor src_mask;     // (S, S) additive (a bool mask arrives as 0 / −inf); empty: none
    Tensor tgt_mask;     // (T, T)
    Tensor memory_mask;  // (T, S)
    std::vector<int> src_key_padding_mask, tgt_key_padding_mask, memory_key_padding_mask;  // (B, L), 1 = ignore
};

// A layer lab batch from tensors in PyTorch's layout ([L, B, D], or [B, L, D] when the config
// is batch_first); tgt empty when there is no decoder layer. Throws ConfigError naming a shape
// that does not fit.
Batch make_layer_batch(const Config& c, const Tensor& src, const Tensor& tgt = {});

// The token streams the config's model reads (its registry line); none for the layer lab.
std::vector<TokenStream> model_streams(const Config& c);

// Encodes sentences (validated against the vocabularies, padded to src_len / tgt_len).
// Throws ConfigError naming the bad token or the too-long sentence.
Batch make_batch(const Config& c, const std::vector<std::string>& src, const std::vector<std::string>& tgt,
                 const std::vector<std::string>& out = {});

// One sentence pair as a batch (out empty: no expected output); a model without a source (nanoGPT)
// reads `tgt` alone and `src`, whatever it holds, is not read.
Batch make_sentence_batch(const Config& c, const std::string& src, const std::string& tgt, const std::string& out = {});

// attention-is-all-you-need-pytorch's cal_loss(smoothing=True): ε of its label smoothing.
inline constexpr float kLabelSmoothing = 0.1f;

// The tutorial's sinusoidal table, (L, D), computed in float32 the way PositionalEncoding does.
Tensor positional_table(int L, int D);
// attention-is-all-you-need-pytorch's: made in float64 with NumPy's formula (position /
// 10000^(2 (j // 2) / D), sin on even, cos on odd columns), then stored as float32 — it differs
// from the float32 table in the last bits.
Tensor positional_table_float64(int L, int D);

// Told by backward() about each parameter once the backward pass has made its last use of it,
// so an optimizer can update it right there, while it is in cache (the fused update).
class ParamUpdater {
public:
    struct Fused {
        float* weight = nullptr;     // the parameter's host storage, updated in place (or into update.out)
        bool keep_gradient = true;   // false: the gradient is not stored in `grads` (less memory traffic)
        WeightUpdate update;
        double* grad_sum_squares = nullptr;  // the kernel adds sum(dW^2) here (valid after Backend::sync)
    };
    virtual ~ParamUpdater() = default;
    // A linear layer's weight: the update to apply in the same pass that computes its gradient
    // (Backend::linear_backward_update), or nullptr for ready() after the gradient is computed.
    virtual const Fused* fused_update(size_t param_index) = 0;
    // Any other parameter: its gradient is final. Kernels on it take their addresses from `st`,
    // the pass's staging (staging.h).
    virtual void ready(size_t param_index, Staging& st) = 0;
};

struct ForwardOptions {
    bool train = false;  // dropout active
    // Dropout's masks are a function of (seed, step) and nothing else (Backend::dropout_mask): the
    // same seed and step draw the same masks on every backend and every run.
    uint64_t seed = 0;
    uint64_t step = 0;
    // Synchronise at the end, so that the trace is on the host when forward() returns. false: the
    // caller reads the trace only after loss(), whose synchronisation brings the forward's tensors
    // too (a training step waits once for forward and loss, not twice).
    bool finish = true;
    // false: the pass's tensors stay where the backend computes and are not copied back — on a
    // backend with memory of its own the trace's host values are then not filled (its names,
    // shapes and graph are). For a training step, which reads only its loss (a scalar result).
    bool trace_to_host = true;
    // false (a training step, which reads its loss and nothing else): a step's output that the
    // backward pass does not read is freed after its last reader, and backward() frees each step's
    // tensors once it has passed them (ggml's graph allocator). The trace keeps every entry's
    // name, shape and graph, the model's outputs (logits, probabilities) and the loss. true: a
    // pass kept for viewing (the app, --dump) keeps everything.
    bool keep_all = true;
};

class Transformer {
public:
    Transformer(Config config, ParamSet params, Backend* backend = nullptr);
    // Shares weights held elsewhere too, which must not change while they are shared: the app
    // shows a trained model, keeps it for saving and translates with it from one copy of its
    // weights (176 MB at the tutorial's size) instead of one each. The non-const params()
    // copies them first (copy on write).
    Transformer(Config config, std::shared_ptr<const ParamSet> params, Backend* backend = nullptr);

    const Config& config() const { return config_; }
    ParamSet& params();
    const ParamSet& params() const { return shared_ ? *shared_ : params_; }
    Backend& backend() const { return *backend_; }

    // Clears `trace` and fills it with every intermediate, in computation order.
    void forward(const Batch& batch, Trace& trace, const ForwardOptions& opt = {}) const;

    // Runs the pass again from step `step` of the trace's graph, the steps before it as the trace
    // holds them (edited or not; Trace::mutable_at): bit for bit a full pass when nothing was
    // edited. Drops the entries from that step on (gradients and loss too) and makes them anew.
    void recompute_from(const Batch& batch, Trace& trace, const std::string& step, const ForwardOptions& opt = {}) const;

    // Appends loss.per_token (B, T) and loss () to a forward trace; needs batch.out. Returns the loss:
    // CrossEntropyLoss(ignore_index=pad), the mean over the targets; for "aiayn" its cal_loss, the
    // label-smoothed (ε = kLabelSmoothing) loss summed over the targets.
    float loss(const Batch& batch, Trace& trace) const;
    // The same without waiting: the entries' values, and the loss entry's Saved::finite (1
    // when the loss is finite; WeightUpdate::apply_if), arrive at the pass's next synchronisation,
    // which backward() makes. How a training step waits once.
    void queue_loss(const Batch& batch, Trace& trace) const;

    // Backward from the loss: zeroes and fills `grads` (same layout as params) and, when
    // `trace_grads`, appends grad.<name> for every intermediate that has a gradient, in the
    // order the backward pass computes them (loss first, embeddings last).
    void backward(const Batch& batch, Trace& trace, ParamSet& grads, bool trace_grads = true,
                  ParamUpdater* updater = nullptr) const;
    // The layer lab's backward ("structure": "layers"), from a given gradient of its output
    // (the last layer's output, (B, L, D) batch-first): fills `grads` and, when `trace_grads`,
    // appends grad.<name> for every intermediate, down to grad.src and grad.tgt.
    void backward_from_output(const Batch& batch, Trace& trace, const Tensor& dout, ParamSet& grads,
                              bool trace_grads = true) const;

    // A training run's residency (staging.h): while set, every pass's staging takes `kept` as its
    // parent, so the weights and optimizer state it keeps stay where the backend computes, and
    // the host's copies of them are stale until kept->finish(). Null: every pass stages its own.
    // The Trainer sets it for a run (and clears it before it returns).
    void set_resident(Staging* kept) { kept_ = kept; }
    Staging* resident() const { return kept_; }

private:
    // Where the backend computes, the shared weights' copies (see resident_weights()).
    struct ResidentWeights;
    // On a backend with memory of its own, shared weights (which must not change while shared) are
    // uploaded once and kept there for every pass; null otherwise (on the CPU, or for weights the
    // model owns and may change, as training does), and then each pass stages its own copy.
    const std::unordered_map<const float*, const float*>* resident_weights() const;

    // Throws WeightsError unless they fit the config; notes which gradients accumulate.
    void check_params();
    Tensor pe_table(int L, bool precise) const;  // (L, d_model), made once per length (precise: in float64)
    void run(const std::shared_ptr<const Graph>& g, size_t from, const Batch& batch, Trace& tr,
             const ForwardOptions& opt) const;

    // The graph of the last batch shape: a model's graph depends on the batch only through its
    // B, S and T (models.h), except the layer lab's, which is built for each batch.
    std::shared_ptr<const Graph> graph_for(const Batch& batch) const;

    struct PeCache;
    struct GraphCache;
    Config config_;
    ParamSet params_;
    std::shared_ptr<const ParamSet> shared_;  // set: the weights, instead of params_
    Backend* backend_;
    std::shared_ptr<PeCache> pe_cache_;
    std::shared_ptr<GraphCache> graph_cache_;
    std::shared_ptr<ResidentWeights> resident_;  // filled on first use
    std::vector<bool> grad_accumulates_;  // ParamSpec::grad_accumulates, parameter by parameter
    Staging* kept_ = nullptr;             // set_resident()
};

}  // namespace stepformer
