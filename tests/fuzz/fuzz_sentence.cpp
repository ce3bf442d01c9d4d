// libFuzzer target: what a student types into the input bar (any bytes, full-width forms and the
// ideographic space of a Chinese keyboard included), read as every model reads a sentence. It must
// end in token ids or a ConfigError naming the problem; the folding and splitting it goes through
// keep their promises (folding is idempotent, no word holds white space, ids lie in the vocabulary).
#include <cstddef>
#include <cstdint>
#include <string>

#include "stepformer/config.h"

using namespace stepformer;

namespace {
bool hasSpace(const std::string& w) {
    for (const char ch : w)
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f') return true;
    return false;
}

void encodeOrRefuse(const std::string& text, const std::vector<std::string>& vocab, int len) {
    std::vector<int> ids;
    try {
        ids = encode_sentence(text, vocab, len, "fuzz");
    } catch (const ConfigError& e) {
        if (std::string(e.what()).empty()) __builtin_trap();  // a refusal names its reason
        return;
    }
    if (int(ids.size()) != len) __builtin_trap();
    for (const int id : ids)
        if (id < 0 || id >= int(vocab.size())) __builtin_trap();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return 0;  // a sentence, not a book (the limit is tested elsewhere)
    const std::string text(reinterpret_cast<const char*>(data), size);
    const std::string folded = fold_full_width(text);
    if (fold_full_width(folded) != folded) __builtin_trap();
    for (const std::string& w : split_words(text))
        if (w.empty() || hasSpace(w)) __builtin_trap();
    static const Config configs[] = {Config::tutorial(), Config::small(), Config::torch_small(), Config::aiayn_small(),
                                     Config::gpt_small()};
    for (const Config& c : configs) {
        if (c.reads_source()) encodeOrRefuse(text, c.src_vocab, c.src_len);
        encodeOrRefuse(text, c.tgt_vocab, c.tgt_len);
    }
    return 0;
}
