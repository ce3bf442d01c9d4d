// libFuzzer target: a training dataset from outside, as the Train dock and `train --data` read it:
// sentence pairs (TSV) for the encoder-decoder models, lines of text for the decoder-only one. Any
// text must end in examples or a DataError naming the line; examples must survive their own round
// trip, and a vocabulary built from them must make a valid config and batches.
#include <cstddef>
#include <cstdint>
#include <string>

#include "stepformer/config.h"
#include "stepformer/dataset.h"

using namespace stepformer;

namespace {
void readAs(const std::string& text, const Config& base) {
    std::vector<Example> ex;
    try {
        ex = parse_tsv(text, base, "fuzz.tsv");
    } catch (const DataError&) {
        return;
    }
    const std::vector<Example> again = parse_tsv(to_tsv(ex), base, "round trip");
    if (again.size() != ex.size()) __builtin_trap();
    for (size_t i = 0; i < ex.size(); ++i)
        if (again[i].enc_input != ex[i].enc_input || again[i].dec_input != ex[i].dec_input ||
            again[i].dec_output != ex[i].dec_output)
            __builtin_trap();
    if (ex.empty()) return;
    try {
        const Config c = config_with_vocab_from(ex, base);
        c.validate();
        for (size_t i = 0; i < ex.size(); ++i) (void)make_training_batch(c, ex, {i});
    } catch (const ConfigError&) {  // a sentence longer than the lengths, a vocabulary too large
    } catch (const DataError&) {
    }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    static const Config pairs = Config::small(), lines = Config::gpt_small();
    readAs(text, pairs);  // parse_tsv: two or three columns
    readAs(text, lines);  // a model without a source: parse_tsv reads lines (parse_lines)
    return 0;
}
