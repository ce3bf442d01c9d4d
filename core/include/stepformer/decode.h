// The tutorial's greedy_decoder: one token per step, each step a full traced forward pass.
#pragma once

#include <string>
#include <vector>

#include "stepformer/model.h"

namespace stepformer {

struct DecodeStep {
    std::vector<int> dec_input;        // bos, then the tokens chosen so far
    std::vector<float> probs;          // (tgt_vocab) at the last position
    int chosen = 0;                    // argmax of probs
    Trace trace;                       // the full forward trace of this step
};

struct DecodeResult {
    std::vector<int> tokens;           // chosen tokens, ending with eos when reached
    std::vector<DecodeStep> steps;     // empty unless keep_steps
    bool reached_eos = false;
    std::string text;                  // tokens without bos/eos/pad, space-separated
};

// Decodes one source sentence (validated, padded to src_len). Stops when eos is produced or after
// tgt_len tokens.
DecodeResult greedy_decode(const Transformer& model, const std::string& src, bool keep_steps = false);

}  // namespace stepformer
