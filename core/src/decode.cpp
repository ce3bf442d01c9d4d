#include "stepformer/decode.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include "stepformer/dataset.h"
#include "stepformer/trace_graph.h"

namespace stepformer {

namespace {

int argmax(const float* p, int V) {
    int best = 0;
    for (int v = 1; v < V; ++v)
        if (p[v] > p[best]) best = v;
    return best;
}

// The words of `tokens` without bos, eos and pad, space-separated.
std::string words_of(const Config& c, const std::vector<int>& tokens) {
    std::string text;
    const int bos = c.bos_id(), eos = c.eos_id(), pad = c.tgt_id(c.pad);
    for (int t : tokens) {
        if (t == eos || t == bos || t == pad) continue;
        text += (text.empty() ? "" : " ") + c.tgt_vocab[size_t(t)];
    }
    return text;
}

void keep(DecodeResult& r, std::vector<int> context, const float* probs, int V, int chosen, Trace& trace) {
    DecodeStep s;
    s.dec_input = std::move(context);
    s.probs.assign(probs, probs + V);
    s.chosen = chosen;
    s.trace = std::move(trace);
    r.steps.push_back(std::move(s));
    trace = Trace{};
}

}  // namespace

DecodeResult greedy_decode(const Transformer& model, const std::string& src, bool keep_steps) {
    const Config& c = model.config();
    if (!c.has_vocabulary())
        throw ConfigError(Message(Msg::decode_no_vocabulary));
    if (!c.reads_source()) return generate(model, src, GenerateOptions{}, keep_steps);
    Batch batch;
    batch.B = 1;
    batch.S = c.src_len;
    batch.src = encode_sentence(src, c.src_vocab, c.src_len, "source");
    const int bos = c.bos_id(), eos = c.eos_id(), V = c.tgt_vocab_size();
    DecodeResult result;
    std::vector<int> dec_input{bos};
    Trace trace;
    while (static_cast<int>(result.tokens.size()) < c.tgt_len) {
        batch.T = static_cast<int>(dec_input.size());
        batch.tgt = dec_input;
        model.forward(batch, trace);
        trace.release_staging();  // nothing follows this step's forward pass
        const float* p = graph::output_probs(trace)->value.ptr() + size_t(batch.T - 1) * V;
        const int best = argmax(p, V);
        if (keep_steps) keep(result, dec_input, p, V, best, trace);
        result.tokens.push_back(best);
        if (best == eos) {
            result.reached_eos = true;
            break;
        }
        dec_input.push_back(best);
    }
    result.text = words_of(c, result.tokens);
    return result;
}

void GenerateOptions::validate() const {
    if (max_new_tokens < 0 || max_new_tokens > 4096)
        throw std::invalid_argument("--max-new-tokens must be between 0 and 4096, got " + std::to_string(max_new_tokens));
    if (!(temperature > 0.0f) || !std::isfinite(temperature))
        throw std::invalid_argument("--temperature must be a positive number, got " + std::to_string(temperature));
    if (top_k < 0) throw std::invalid_argument("--top-k must be 0 (every word) or more, got " + std::to_string(top_k));
}

std::vector<float> next_token_probs(const float* logits, int V, float temperature, int top_k) {
    std::vector<float> scaled(logits, logits + V);
    for (float& v : scaled) v = v / temperature;  // a float32 division, as PyTorch's logits / temperature
    if (top_k > 0 && top_k < V) {
        std::vector<float> sorted = scaled;
        std::nth_element(sorted.begin(), sorted.begin() + (top_k - 1), sorted.end(), std::greater<float>());
        const float kth = sorted[size_t(top_k - 1)];  // v[:, [-1]]: ties with it are kept
        for (float& v : scaled)
            if (v < kth) v = -std::numeric_limits<float>::infinity();
    }
    const float top = *std::max_element(scaled.begin(), scaled.end());
    double sum = 0.0;
    std::vector<float> p(static_cast<size_t>(V));
    for (int v = 0; v < V; ++v) sum += p[size_t(v)] = std::exp(scaled[size_t(v)] - top);
    for (float& x : p) x = static_cast<float>(x / sum);
    return p;
}

DecodeResult generate(const Transformer& model, const std::string& prompt, const GenerateOptions& opt, bool keep_steps) {
    opt.validate();
    const Config& c = model.config();
    if (c.reads_source()) throw ConfigError(Message(Msg::generate_needs_decoder_only));
    const std::vector<std::string> words = split_words(prompt);
    if (words.empty()) throw ConfigError(Message(Msg::generate_empty_prompt));
    std::vector<int> ids = encode_sentence(prompt, c.tgt_vocab, int(words.size()), "prompt");
    const int V = c.tgt_vocab_size(), eos = c.eos_id();
    const int steps = opt.max_new_tokens > 0 ? opt.max_new_tokens : c.block_size;
    std::mt19937_64 rng(opt.seed);
    DecodeResult result;
    Trace trace;
    for (int n = 0; n < steps; ++n) {
        // idx_cond: the last block_size tokens
        const size_t from = ids.size() > size_t(c.block_size) ? ids.size() - size_t(c.block_size) : 0;
        Batch batch;
        batch.B = 1;
        batch.tgt.assign(ids.begin() + std::ptrdiff_t(from), ids.end());
        batch.T = static_cast<int>(batch.tgt.size());
        model.forward(batch, trace);
        trace.release_staging();
        const float* logits = graph::output_logits(trace)->value.ptr() + size_t(batch.T - 1) * V;
        const std::vector<float> p = next_token_probs(logits, V, opt.temperature, opt.top_k);
        int chosen = argmax(p.data(), V);
        if (opt.sample) chosen = std::discrete_distribution<int>(p.begin(), p.end())(rng);
        if (keep_steps) keep(result, batch.tgt, p.data(), V, chosen, trace);
        result.tokens.push_back(chosen);
        ids.push_back(chosen);
        if (chosen == eos) {
            result.reached_eos = true;
            if (opt.stop_at_eos) break;
        }
    }
    result.text = words_of(c, result.tokens);
    return result;
}

bool reproduces_examples(const Transformer& model, const std::vector<Example>& examples, std::vector<std::string>* lines) {
    const Config& c = model.config();
    bool ok = true;
    // The words an output should have: the expected ones without bos, eos and pad.
    const auto content = [&](const std::vector<std::string>& words) {
        std::string out;
        for (const std::string& w : words)
            if (w != c.eos && w != c.pad && w != c.bos) out += (out.empty() ? "" : " ") + w;
        return out;
    };
    for (const Example& ex : examples) {
        if (c.reads_source()) {
            const DecodeResult r = greedy_decode(model, ex.enc_input);
            if (lines) lines->push_back(ex.enc_input + " → " + r.text);
            ok = ok && r.text == content(split_words(ex.dec_output));
            continue;
        }
        // The sentence: its inputs and the last target word; the prompt, its shortest unshared start.
        std::vector<std::string> words = split_words(ex.dec_input);
        const std::vector<std::string> out = split_words(ex.dec_output);
        if (!out.empty()) words.push_back(out.back());
        while (!words.empty() && words.back() == c.pad) words.pop_back();
        size_t n = std::min<size_t>(2, words.size());
        for (const Example& other : examples) {
            if (&other == &ex) continue;
            const std::vector<std::string> o = split_words(other.dec_input);
            size_t common = 0;
            while (common < o.size() && common < words.size() && o[common] == words[common]) ++common;
            n = std::max(n, std::min(common + 1, words.size()));
        }
        const std::vector<std::string> prompt(words.begin(), words.begin() + std::ptrdiff_t(n));
        std::string prompt_text;
        for (const std::string& w : prompt) prompt_text += (prompt_text.empty() ? "" : " ") + w;
        GenerateOptions opt;
        opt.max_new_tokens = std::max(1, int(words.size() - n) + 1);
        const DecodeResult r = generate(model, prompt_text, opt);
        if (lines) lines->push_back(prompt_text + " → " + r.text);
        ok = ok && r.text == content(std::vector<std::string>(words.begin() + std::ptrdiff_t(n), words.end()));
    }
    return ok;
}

}  // namespace stepformer
