// Training data: the tutorial's sentence triples (enc_input, dec_input, dec_output).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "stepformer/config.h"
#include "stepformer/model.h"

namespace stepformer {

struct DataError : Error {
    using Error::Error;
};

struct Example {
    std::string enc_input;   // "ich mochte ein bier P"
    std::string dec_input;   // "S i want a beer ."
    std::string dec_output;  // "i want a beer . E"
};

// The tutorial's two sentences.
std::vector<Example> builtin_examples();
// The config's model's toy data: the tutorial's two sentences, or for a model without a source
// (nanoGPT) the toy lines (builtin_lines) as next-word examples.
std::vector<Example> builtin_examples(const Config& c);
// The decoder-only toy set: the tutorial's target sentences and a few more, bos ... eos.
std::vector<std::string> builtin_lines();

// A sentence as a decoder-only model learns it: inputs words[:-1], targets words[1:] (enc_input empty).
Example next_word_example(const std::vector<std::string>& words);
// One sentence per line (blank lines and lines starting with '#' skipped), bos put first and eos
// last where the line lacks them; at most block_size + 1 words. parse_tsv reads this format for a
// model without a source. Throws DataError naming the line and the problem.
std::vector<Example> parse_lines(const std::string& text, const Config& c, const MessageArg& what = Message(Msg::data_word));

// The decoder's expected output for a decoder input, the tutorial's pairing ("S i want a beer ."
// -> "i want a beer . E"): the bos dropped, eos after the last word. Trailing pads stay after the
// eos ("S i want a coke P" -> "i want a coke E P"), so both sentences keep the same length, as
// the tutorial's tgt_len-long rows do, and the pads stay ignored targets of the loss. Empty when
// dec_input does not start with bos. The one place this rule lives: the dataset, the editor and
// the step-through's loss all call it.
std::string dec_output_for(const std::string& dec_input, const Config& c);

// A TSV file (for a model without a source: lines, see parse_lines): three columns (enc_input, dec_input, dec_output) exactly as the tutorial, or two
// (source, target) from which the bos/eos tokens are added. Blank lines and lines starting with
// '#' are skipped. Throws DataError naming the line and the problem.
std::vector<Example> parse_tsv(const std::string& text, const Config& c, const MessageArg& what = Message(Msg::data_word));
std::vector<Example> load_tsv(const std::string& path, const Config& c);
std::string to_tsv(const std::vector<Example>& examples);

// Vocabularies built from a dataset (pad first, then bos/eos on the target side, then words in
// order of first appearance). The other config fields are kept from `base`.
Config config_with_vocab_from(const std::vector<Example>& examples, const Config& base);

// Batch of the given examples; throws ConfigError naming an unknown token / long sentence and
// the example's index.
Batch make_training_batch(const Config& c, const std::vector<Example>& examples, const std::vector<size_t>& indices);

// A batch of random non-pad tokens (bos first on the decoder side), for benchmarks and tests
// at sizes the toy data doesn't reach. Lengths override the config's.
Batch random_batch(const Config& c, int B, int S, int T, uint64_t seed);

// A config of the tutorial's hyperparameters with synthetic vocabularies of `vocab` words
// and the given lengths (the benchmark's batch 32 x length 64 case).
Config synthetic_config(const Config& base, int vocab, int src_len, int tgt_len);

}  // namespace stepformer
