// The tutorial's greedy_decoder, and nanoGPT's generate for a model without a source: one token
// per step, each step a full traced forward pass.
#pragma once

#include <string>
#include <vector>

#include "stepformer/model.h"

namespace stepformer {

struct DecodeStep {
    std::vector<int> dec_input;        // bos, then the tokens chosen so far (nanoGPT: the context, cropped to block_size)
    std::vector<float> probs;          // (tgt_vocab) at the last position: what the token is chosen from
    int chosen = 0;                    // argmax of probs, or the token drawn from them
    Trace trace;                       // the full forward trace of this step
};

struct DecodeResult {
    std::vector<int> tokens;           // chosen tokens, ending with eos when reached
    std::vector<DecodeStep> steps;     // empty unless keep_steps
    bool reached_eos = false;
    std::string text;                  // tokens without bos/eos/pad, space-separated
};

// Decodes one source sentence (validated, padded to src_len). Stops when eos is produced or after
// tgt_len tokens. For a model without a source (nanoGPT), `src` is the prompt and this is
// generate() with its defaults: greedy, up to block_size new words, stopping at eos.
DecodeResult greedy_decode(const Transformer& model, const std::string& src, bool keep_steps = false);

// nanoGPT's generate(idx, max_new_tokens, temperature, top_k): each step crops the context to its
// last block_size tokens, runs the model, divides the last position's logits by the temperature,
// keeps the top_k largest (the rest −inf) and takes softmax's argmax (greedy) or a draw from it.
struct GenerateOptions {
    int max_new_tokens = 0;     // 0: block_size
    float temperature = 1.0f;   // > 0
    int top_k = 0;              // 0: every word
    bool sample = false;        // false: argmax (the same word every run); true: drawn, seeded
    uint64_t seed = 0;
    bool stop_at_eos = true;    // nanoGPT's own loop goes on after eos
    void validate() const;      // throws std::invalid_argument naming the option
};
// `prompt`: words of the vocabulary (at least one; bos first is the toy data's way).
DecodeResult generate(const Transformer& model, const std::string& prompt, const GenerateOptions& opt,
                      bool keep_steps = false);
// Whether the model has learned its examples (the app's check of a preset's training): a
// translation model translates each source into its expected output; a decoder-only model,
// prompted with the shortest start of each sentence that no other example shares, generates the
// rest of it. `lines` gets one "input → output" line per example.
struct Example;
bool reproduces_examples(const Transformer& model, const std::vector<Example>& examples, std::vector<std::string>* lines);

// One step's distribution from the last position's logits (V): softmax(top_k(logits / temperature)).
std::vector<float> next_token_probs(const float* logits, int V, float temperature, int top_k);

}  // namespace stepformer
