// The forward pass, block by block, each intermediate recorded under its contract name.
// Shapes in comments: B batch, S src_len, T tgt_len, L either, H heads, D d_model.
#include "stepformer/model.h"

#include <algorithm>

#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "engine/engine.h"
#include "engine/model_context.h"
#include "models/models.h"
#include "stepformer/trace_graph.h"
#include "stepformer/trace_names.h"

namespace stepformer {

Batch make_batch(const Config& c, const std::vector<std::string>& src, const std::vector<std::string>& tgt,
                 const std::vector<std::string>& out) {
    const std::vector<TokenStream> reads = model_streams(c);
    const bool reads_src = std::find(reads.begin(), reads.end(), TokenStream::Src) != reads.end();
    if (!reads_src) {
        // A model without an encoder: its batch is the target streams alone.
        if (tgt.empty()) throw ConfigError(Message(Msg::batch_empty));
        if (!src.empty()) throw ConfigError(Message(Msg::batch_no_source_expected, {src.size()}));
    } else if (src.empty()) {
        throw ConfigError(Message(Msg::batch_empty_source));
    }
    if (reads_src && src.size() != tgt.size())
        throw ConfigError(Message(Msg::batch_count_mismatch, {src.size(), tgt.size()}));
    if (!out.empty() && out.size() != tgt.size())
        throw ConfigError(Message(Msg::batch_outputs_mismatch, {out.size(), tgt.size()}));
    Batch b;
    b.B = static_cast<int>(tgt.size());
    b.S = reads_src ? c.src_len : 0;
    b.T = c.tgt_len;
    if (!reads_src) {
        // A decoder-only model (nanoGPT) reads what it is given, up to block_size (its tgt_len):
        // the batch pads to its longest sentence, not to block_size.
        b.T = 1;
        for (const std::string& t : tgt) {
            const int n = static_cast<int>(split_words(t).size());
            if (n > c.tgt_len) throw ConfigError(Message(Msg::sentence_over_block_size, {t, n, c.tgt_len}));
            b.T = std::max(b.T, n);
        }
    }
    for (size_t i = 0; i < tgt.size(); ++i) {
        if (reads_src) {
            auto s = encode_sentence(src[i], c.src_vocab, c.src_len, "source");
            b.src.insert(b.src.end(), s.begin(), s.end());
        }
        auto t = encode_sentence(tgt[i], c.tgt_vocab, b.T, "target");
        b.tgt.insert(b.tgt.end(), t.begin(), t.end());
        if (!out.empty()) {
            auto o = encode_sentence(out[i], c.tgt_vocab, b.T, "expected output");
            b.out.insert(b.out.end(), o.begin(), o.end());
        }
    }
    return b;
}

Batch make_sentence_batch(const Config& c, const std::string& src, const std::string& tgt, const std::string& out) {
    std::vector<std::string> srcs;
    if (c.reads_source()) srcs.push_back(src);
    return make_batch(c, srcs, {tgt}, out.empty() ? std::vector<std::string>{} : std::vector<std::string>{out});
}

Tensor positional_table(int L, int D) {
    Tensor pe({L, D});  // (L, D)
    default_backend().positional_table(pe.ptr(), L, D);
    return pe;
}

Tensor positional_table_float64(int L, int D) {
    Tensor pe({L, D});  // (L, D)
    for (int pos = 0; pos < L; ++pos)
        for (int j = 0; j < D; ++j) {
            const double angle = double(pos) / std::pow(10000.0, 2.0 * double(j / 2) / double(D));
            pe.data[size_t(pos) * D + j] = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return pe;
}

struct Transformer::GraphCache {
    std::mutex mu;
    int B = -1, S = -1, T = -1;
    std::shared_ptr<const Graph> graph;
};

// Building the tutorial's graph and freeing the last one took ~2 % of a traced forward's own
// thread at its size (perf, two profiles: model_graph 0.53 %, the old graph's destruction
// 0.30-0.36 % of all samples).
std::shared_ptr<const Graph> Transformer::graph_for(const Batch& batch) const {
    if (config_.layers()) return build::model_graph(config_, batch);  // checks the layer lab's inputs too
    const std::lock_guard lock(graph_cache_->mu);
    GraphCache& c = *graph_cache_;
    if (!c.graph || c.B != batch.B || c.S != batch.S || c.T != batch.T) {
        c.graph = build::model_graph(config_, batch);
        c.B = batch.B, c.S = batch.S, c.T = batch.T;
    }
    return c.graph;
}

// The positional tables a model has made, one per length: the table depends on (L, d_model) only,
// so a forward pass copies it instead of computing L × d_model sines and cosines again. Shared by
// copies of the model (they have the same d_model) and guarded: forward() is const and may run
// on several threads.
struct Transformer::PeCache {
    std::mutex mu;
    std::map<int, Tensor> tables;  // by 2 · length + precise; (L, d_model) each
};

Tensor Transformer::pe_table(int L, bool precise) const {
    const std::lock_guard lock(pe_cache_->mu);
    const int key = 2 * L + (precise ? 1 : 0);
    auto it = pe_cache_->tables.find(key);
    if (it == pe_cache_->tables.end()) {
        Tensor pe({L, config_.d_model});  // (L, D)
        if (precise) {
            pe = positional_table_float64(L, config_.d_model);
        } else {
            // A host table (the pass uploads it where it computes): made by the CPU, which every
            // backend's table equals, so that a GPU's first pass of a length does not stop for it
            // in the middle (its command buffer would differ from every later pass's).
            Backend& maker = backend_->host_memory() ? *backend_ : default_backend();
            maker.positional_table(pe.ptr(), L, config_.d_model);
        }
        it = pe_cache_->tables.emplace(key, std::move(pe)).first;
    }
    return it->second;
}

struct Transformer::ResidentWeights {
    std::mutex mu;
    std::unique_ptr<Staging> staging;
    std::unordered_map<const float*, const float*> dev;  // host storage -> the backend's copy
};

const std::unordered_map<const float*, const float*>* Transformer::resident_weights() const {
    if (!shared_ || backend_->host_memory()) return nullptr;
    const std::lock_guard lock(resident_->mu);
    if (!resident_->staging) {
        auto st = std::make_unique<Staging>(*backend_);
        for (size_t i = 0; i < shared_->size(); ++i) resident_->dev[(*shared_)[i].ptr()] = st->in((*shared_)[i]);
        st->finish();  // once per model: the uploads are in place for every pass
        resident_->staging = std::move(st);
    }
    return &resident_->dev;
}

Transformer::Transformer(Config config, ParamSet params, Backend* backend)
    : config_(std::move(config)), params_(std::move(params)), backend_(backend ? backend : &default_backend()),
      pe_cache_(std::make_shared<PeCache>()), graph_cache_(std::make_shared<GraphCache>()),
      resident_(std::make_shared<ResidentWeights>()) {
    check_params();
}

Transformer::Transformer(Config config, std::shared_ptr<const ParamSet> params, Backend* backend)
    : config_(std::move(config)), shared_(std::move(params)), backend_(backend ? backend : &default_backend()),
      pe_cache_(std::make_shared<PeCache>()), graph_cache_(std::make_shared<GraphCache>()),
      resident_(std::make_shared<ResidentWeights>()) {
    if (!shared_) throw WeightsError(Message(Msg::weights_none));
    check_params();
}

ParamSet& Transformer::params() {
    if (shared_) {
        params_ = *shared_;
        shared_.reset();
        resident_ = std::make_shared<ResidentWeights>();  // the copies were of the shared ones
    }
    return params_;
}

void Transformer::check_params() {
    config_.validate();
    const ParamSet& p = std::as_const(*this).params();  // the const one: shared weights stay shared
    const auto specs = param_specs(config_);
    if (p.size() != specs.size())
        throw WeightsError(Message(Msg::weights_count, {p.size(), specs.size()}));
    for (size_t i = 0; i < specs.size(); ++i)
        if (p.name(i) != specs[i].name || p[i].shape != specs[i].shape)
            throw WeightsError(Message(Msg::weights_parameter_mismatch, {i, p.name(i), shape_to_string(p[i].shape),
                                                                         specs[i].name, shape_to_string(specs[i].shape)}));
    grad_accumulates_.clear();
    for (const ParamSpec& s : specs) grad_accumulates_.push_back(s.grad_accumulates);
}


void Transformer::forward(const Batch& batch, Trace& tr, const ForwardOptions& opt) const {
    const Config& c = config_;
    const int B = batch.B, S = batch.S, T = batch.T;
    if (!c.layers()) {
        // Every token stream the model reads but the targets (the loss's): there, of its size, in
        // its vocabulary.
        if (B <= 0) throw std::invalid_argument("forward: malformed batch (no sequences)");
        for (TokenStream s : model_streams(c)) {
            if (s == TokenStream::Out) continue;
            const std::vector<int>& ids = batch.tokens(s);
            const int L = batch.length(s);
            if (L <= 0 || ids.size() != size_t(B) * L)
                throw std::invalid_argument(std::string("forward: malformed batch (its ") + token_stream_name(s) +
                                            " stream is not B x length)");
            const int V = s == TokenStream::Src ? c.src_vocab_size() : c.tgt_vocab_size();
            for (int id : ids)
                if (id < 0 || id >= V)
                    throw std::invalid_argument(std::string("forward: ") +
                                                (s == TokenStream::Src ? "source" : "target") +
                                                " id out of the vocabulary");
        }
    }
    std::shared_ptr<const Graph> g = graph_for(batch);

    tr.clear();
    for (int b = 0; b < B; ++b) {
        tr.src_tokens.emplace_back();
        tr.tgt_tokens.emplace_back();
        // The layer lab's inputs are vectors, not tokens: their positions label the axes.
        for (int s = 0; s < S; ++s)
            tr.src_tokens.back().push_back(c.layers() ? std::to_string(s) : c.src_vocab[size_t(batch.src[size_t(b) * S + s])]);
        for (int t = 0; t < T; ++t)
            tr.tgt_tokens.back().push_back(c.layers() ? std::to_string(t) : c.tgt_vocab[size_t(batch.tgt[size_t(b) * T + t])]);
    }
    run(g, 0, batch, tr, opt);
}

void Transformer::recompute_from(const Batch& batch, Trace& tr, const std::string& step, const ForwardOptions& opt) const {
    if (!tr.graph) throw std::logic_error("recompute_from: the trace has no graph (call forward() first)");
    if (tr.lean) throw std::logic_error("recompute_from: a training step's trace keeps no activations (keep_all = false)");
    const size_t from = tr.graph->index_of(step);
    size_t keep = 0;  // the entries of the steps before `from`
    for (size_t i = 0; i < from; ++i) keep += tr.graph->steps()[i].traced ? 1 : 0;
    tr.truncate(keep);
    // The host holds every value (an edit may have changed some): a fresh staging uploads them.
    tr.release_staging();
    run(tr.graph, from, batch, tr, opt);
}

void Transformer::run(const std::shared_ptr<const Graph>& g, size_t from, const Batch& batch, Trace& tr,
                      const ForwardOptions& opt) const {
    Staging& st = tr.staging(*backend_);
    st.set_parent(kept_);
    st.set_copy_back(opt.trace_to_host);
    const detail::ModelCtx m{config_, params(), *backend_, st, resident_weights()};
    engine::Pass pass{m, batch, opt, [this](int L, bool precise) { return pe_table(L, precise); }};
    engine::run(g, from, pass, tr);
    if (opt.finish) st.finish();  // the pass's one synchronisation: its tensors are on the host from here
}

float Transformer::loss(const Batch& batch, Trace& tr) const {
    queue_loss(batch, tr);
    tr.staging(*backend_).finish();  // the loss is read here (and, after forward(finish = false), the forward's tensors arrive)
    return tr.at(names::entry(Block{Stack::None, BlockKind::Loss, -1}, "")).value.data[0];
}

void Transformer::queue_loss(const Batch& batch, Trace& tr) const {
    if (batch.out.size() != size_t(batch.B) * batch.T)
        throw std::invalid_argument("loss: the batch has no expected outputs (dec_output)");
    const int V = config_.tgt_vocab_size(), N = batch.B * batch.T;
    for (int id : batch.out)
        if (id < 0 || id >= V) throw std::invalid_argument("loss: target id out of the vocabulary");
    const Block blk{Stack::None, BlockKind::Loss, -1};
    const TraceEntry* probs_entry = graph::output_probs(tr);
    if (!probs_entry) throw std::logic_error("loss: the trace has no probabilities (call forward() first)");
    // The model's loss as its graph says (attention-is-all-you-need-pytorch's cal_loss: label-smoothed, summed).
    const LossSpec spec = tr.graph ? tr.graph->loss : LossSpec{};
    const bool smoothed = spec.label_smoothing > 0.0f;
    const std::string probs = probs_entry->name, logits = graph::output_logits(tr)->name,
                      per_token_name = names::entry(blk, "per_token");
    const Axis aB{AxisKind::Batch, "batch_size"}, aT{AxisKind::TgtToken, "tgt_len"};
    // The entries first: the kernel writes into them (the mean at the next synchronisation).
    const int pad = config_.tgt_id(config_.pad);
    const Attrs ce{.padding_idx = pad, .label_smoothing = spec.label_smoothing};
    Tensor& per_token = tr.add(per_token_name, Node{Role::LossPerToken, Op::CrossEntropy, blk, {smoothed ? logits : probs}, ce},
                               {aB, aT}, Tensor({batch.B, batch.T}))
                            .value;
    TraceEntry& loss = tr.add(names::entry(blk, ""), Node{Role::Loss, spec.sum ? Op::Sum : Op::Mean, blk, {per_token_name}},
                              {}, Tensor(Shape{}));
    Tensor& mean = loss.value;
    Tensor& finite = loss.saved.finite = Tensor(Shape{1});
    Staging& st = tr.staging(*backend_);
    float* dper_token = st.out(per_token);
    if (smoothed)
        backend_->smoothed_cross_entropy_forward(dper_token, mean.ptr(), st.in(tr.at(logits).value), st.in(batch.out), N,
                                                 V, pad, spec.label_smoothing);
    else
        backend_->cross_entropy_forward(dper_token, mean.ptr(), nullptr, st.in(tr.at(probs).value), st.in(batch.out), N, V,
                                        pad);
    backend_->all_finite(st.out(finite), dper_token, per_token.size());  // the mean is finite when every loss is
}

}  // namespace stepformer
