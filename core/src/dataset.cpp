#include "stepformer/dataset.h"

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

namespace stepformer {

static std::string join_words(const std::vector<std::string>& w);

std::vector<Example> builtin_examples() {
    return {{"ich mochte ein bier P", "S i want a beer .", "i want a beer . E"},
            {"ich mochte ein cola P", "S i want a coke .", "i want a coke . E"}};
}

std::vector<std::string> builtin_lines() {
    return {"S i want a beer . E", "S i want a coke . E", "S you want a cold beer . E",
            "S i like tea . E",    "S you like tea . E",  "S i like cold beer . E"};
}

std::vector<Example> builtin_examples(const Config& c) {
    if (c.reads_source()) return builtin_examples();
    std::string text;
    for (const std::string& line : builtin_lines()) text += line + "\n";
    return parse_lines(text, c, Message(Msg::data_word));
}

Example next_word_example(const std::vector<std::string>& words) {
    Example e;
    e.dec_input = join_words(std::vector<std::string>(words.begin(), words.end() - 1));
    e.dec_output = join_words(std::vector<std::string>(words.begin() + 1, words.end()));
    return e;
}

std::vector<Example> parse_lines(const std::string& text, const Config& c, const MessageArg& what) {
    std::vector<Example> out;
    std::istringstream in(text);
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        std::vector<std::string> words = split_words(line);
        if (words.empty() || words[0][0] == '#') continue;
        const auto fail = [&](MessageArg problem) { return DataError(Message(Msg::data_line, {what, lineno, std::move(problem)})); };
        if (words.front() != c.bos) words.insert(words.begin(), c.bos);
        if (words.back() != c.eos) words.push_back(c.eos);
        Example ex = next_word_example(words);
        try {
            encode_sentence(join_words(words), c.tgt_vocab, int(words.size()), "line");
            if (int(words.size()) - 1 > c.block_size)
                throw ConfigError(Message(Msg::sentence_over_block_size, {ex.dec_input, words.size() - 1, c.block_size}));
        } catch (const ConfigError& e) {
            throw fail(e.message());
        }
        out.push_back(std::move(ex));
    }
    if (out.empty()) throw DataError(Message(Msg::data_no_examples, {what}));
    return out;
}

static std::string join_words(const std::vector<std::string>& w) {
    std::string s;
    for (size_t i = 0; i < w.size(); ++i) s += (i ? " " : "") + w[i];
    return s;
}

std::string dec_output_for(const std::string& dec_input, const Config& c) {
    auto words = split_words(dec_input);
    if (words.empty() || words.front() != c.bos) return {};
    size_t end = words.size();
    while (end > 1 && words[end - 1] == c.pad) --end;
    std::vector<std::string> out(words.begin() + 1, words.begin() + long(end));
    out.push_back(c.eos);
    out.insert(out.end(), words.size() - end, c.pad);
    return join_words(out);
}

static std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> cols;
    size_t start = 0;
    while (true) {
        size_t tab = line.find('\t', start);
        cols.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
        if (tab == std::string::npos) break;
        start = tab + 1;
    }
    return cols;
}

std::vector<Example> parse_tsv(const std::string& text, const Config& c, const MessageArg& what) {
    if (!c.reads_source()) return parse_lines(text, c, what);
    std::vector<Example> out;
    std::istringstream in(text);
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (split_words(line).empty() || line[0] == '#') continue;
        // "<what> line <n>: <problem>"
        const auto fail = [&](MessageArg problem) { return DataError(Message(Msg::data_line, {what, lineno, std::move(problem)})); };
        auto cols = split_tabs(line);
        if (cols.size() != 2 && cols.size() != 3) throw fail(Message(Msg::data_columns, {cols.size()}));
        for (size_t i = 0; i < cols.size(); ++i)
            if (split_words(cols[i]).empty()) throw fail(Message(Msg::data_column_empty, {i + 1}));
        Example ex;
        ex.enc_input = join_words(split_words(cols[0]));
        if (cols.size() == 3) {
            ex.dec_input = join_words(split_words(cols[1]));
            ex.dec_output = join_words(split_words(cols[2]));
            auto di = split_words(ex.dec_input), dout = split_words(ex.dec_output);
            if (di.front() != c.bos) throw fail(Message(Msg::data_no_bos, {c.bos}));
            if (di.size() != dout.size()) throw fail(Message(Msg::data_length_mismatch, {di.size(), dout.size()}));
        } else {
            ex.dec_input = c.bos + " " + join_words(split_words(cols[1]));
            ex.dec_output = dec_output_for(ex.dec_input, c);
        }
        try {
            encode_sentence(ex.enc_input, c.src_vocab, c.src_len, "source");
            encode_sentence(ex.dec_input, c.tgt_vocab, c.tgt_len, "dec_input");
            encode_sentence(ex.dec_output, c.tgt_vocab, c.tgt_len, "dec_output");
        } catch (const ConfigError& e) {
            throw fail(e.message());
        }
        out.push_back(std::move(ex));
    }
    if (out.empty()) throw DataError(Message(Msg::data_no_examples, {what}));
    return out;
}

std::vector<Example> load_tsv(const std::string& path, const Config& c) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw DataError(Message(Msg::data_cannot_open, {path}));
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_tsv(ss.str(), c, Message(Msg::data_named, {path}));
}

std::string to_tsv(const std::vector<Example>& examples) {
    const bool lines = !examples.empty() && std::all_of(examples.begin(), examples.end(), [](const Example& e) {
        return e.enc_input.empty();
    });
    if (lines) {  // a decoder-only model's sentences, one per line: the input and its last target word
        std::string s = "# one sentence per line\n";
        for (const auto& e : examples) {
            const auto out = split_words(e.dec_output);
            s += e.dec_input + (out.empty() ? "" : " " + out.back()) + "\n";
        }
        return s;
    }
    std::string s = "# enc_input\tdec_input\tdec_output\n";
    for (const auto& e : examples) s += e.enc_input + "\t" + e.dec_input + "\t" + e.dec_output + "\n";
    return s;
}

Config config_with_vocab_from(const std::vector<Example>& examples, const Config& base) {
    Config c = base;
    auto add = [](std::vector<std::string>& v, const std::string& w) {
        for (const auto& x : v)
            if (x == w) return;
        v.push_back(w);
    };
    c.src_vocab = {base.pad};
    c.tgt_vocab = {base.pad, base.bos, base.eos};
    size_t max_src = 1, max_tgt = 1;
    for (const auto& e : examples) {
        auto s = split_words(e.enc_input);
        auto d = split_words(e.dec_input);
        max_src = std::max(max_src, s.size());
        max_tgt = std::max(max_tgt, d.size());
        for (const auto& w : s) add(c.src_vocab, w);
        for (const auto& w : d) add(c.tgt_vocab, w);
        for (const auto& w : split_words(e.dec_output)) add(c.tgt_vocab, w);
    }
    if (!base.reads_source()) {  // no source; block_size bounds the inputs
        c.src_vocab = base.src_vocab;
        c.block_size = c.tgt_len = std::max<int>(c.block_size, static_cast<int>(max_tgt));
        c.validate();
        return c;
    }
    c.src_len = std::max<int>(c.src_len, static_cast<int>(max_src));
    c.tgt_len = std::max<int>(c.tgt_len, static_cast<int>(max_tgt));
    c.validate();
    return c;
}

Batch make_training_batch(const Config& c, const std::vector<Example>& examples, const std::vector<size_t>& indices) {
    std::vector<std::string> src, tgt, out;
    for (size_t i : indices) {
        const Example& e = examples.at(i);
        if (c.reads_source()) src.push_back(e.enc_input);
        tgt.push_back(e.dec_input);
        out.push_back(e.dec_output);
    }
    try {
        return make_batch(c, src, tgt, out);
    } catch (const ConfigError& e) {
        throw ConfigError(Message(Msg::data_in_dataset, {e.message()}));
    }
}

Batch random_batch(const Config& c, int B, int S, int T, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> src_tok(1, std::max(1, c.src_vocab_size() - 1)), tgt_tok(1, c.tgt_vocab_size() - 1);
    Batch b;
    b.B = B;
    b.S = S;
    b.T = T;
    for (int i = 0; i < B * S; ++i) b.src.push_back(src_tok(rng));
    for (int i = 0; i < B * T; ++i) b.tgt.push_back(i % T == 0 ? c.bos_id() : tgt_tok(rng));
    for (int i = 0; i < B * T; ++i) b.out.push_back(tgt_tok(rng));
    return b;
}

Config synthetic_config(const Config& base, int vocab, int src_len, int tgt_len) {
    Config c = base;
    c.src_vocab = {c.pad};
    c.tgt_vocab = {c.pad, c.bos, c.eos};
    // "s1", "t1", ... (spelled so: GCC 12 warns falsely, -Wrestrict, on "s" + std::to_string(i))
    for (int i = 1; c.src_vocab_size() < vocab; ++i) c.src_vocab.push_back(std::to_string(i).insert(0, 1, 's'));
    for (int i = 1; c.tgt_vocab_size() < vocab; ++i) c.tgt_vocab.push_back(std::to_string(i).insert(0, 1, 't'));
    c.src_len = src_len;
    c.tgt_len = tgt_len;
    c.validate();
    return c;
}

}  // namespace stepformer
