// Inputs that would need absurd memory are refused before anything is allocated, with a message
// that says what the limit is (issue 34): a shape of 2^31 x 2^31, a shape far larger than its file,
// d_model = 10^9, a sentence or a dataset line of 100,000 words. The process's peak resident size
// may not grow by more than a few MB while each is refused.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stepformer/config.h"
#include "stepformer/dataset.h"
#include "stepformer/npy.h"
#include "stepformer/safetensors.h"

using namespace stepformer;

namespace {

long peakKb() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

// Runs `f`, which must throw; the message must hold every one of `words`; the peak resident size
// may grow by at most 16 MB.
template <class E>
void refused(const std::function<void()>& f, std::vector<std::string> words) {
    const long before = peakKb();
    try {
        f();
        ADD_FAILURE() << "accepted";
    } catch (const E& e) {
        for (const auto& w : words) EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what();
    } catch (const std::bad_alloc&) {
        ADD_FAILURE() << "tried to allocate what the input claims";
    }
    EXPECT_LT(peakKb() - before, 16 * 1024) << "the peak resident size grew while refusing";
}

std::vector<uint8_t> safetensorsWithHeader(const std::string& header, size_t dataBytes) {
    const uint64_t n = header.size();
    std::string s(reinterpret_cast<const char*>(&n), 8);  // little-endian, as on every machine we build for
    s += header;
    s.append(dataBytes, '\0');
    return {s.begin(), s.end()};
}

std::string words(int n, const std::string& w) {
    std::string s;
    for (int i = 0; i < n; ++i) s += (i ? " " : "") + w;
    return s;
}

}  // namespace

TEST(Limits, AShapeWhoseByteSizeOverflowsIsRefused) {
    // The issue's example: 2^31 x 2^31 floats are 2^64 bytes.
    const auto bytes = safetensorsWithHeader(R"({"w":{"dtype":"F32","shape":[2147483648,2147483648],"data_offsets":[0,4]}})", 4);
    refused<SafetensorsError>([&] { parse_safetensors(bytes, "huge.safetensors"); },
                              {"huge.safetensors", "'w'", "[2147483648, 2147483648]", "more than 2^64 bytes (16 EiB)"});
}

TEST(Limits, AShapeLargerThanItsFileIsRefused) {
    // 65536 x 65536 floats are 16 GiB; the file holds 16 bytes.
    const auto bytes = safetensorsWithHeader(R"({"w":{"dtype":"F32","shape":[65536,65536],"data_offsets":[0,16]}})", 16);
    refused<SafetensorsError>([&] { parse_safetensors(bytes, "big.safetensors"); }, {"'w'", "[0, 16]"});
}

TEST(Limits, AnAbsurdNpyShapeIsRefused) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648, 2147483648, 8), }";
    while ((10 + header.size() + 1) % 64) header += ' ';
    header += '\n';
    std::string s("\x93NUMPY\x01\x00", 8);
    s += char(header.size() & 0xff);
    s += char(header.size() >> 8);
    s += header;
    s.append(16, '\0');
    const std::vector<uint8_t> b(s.begin(), s.end());
    refused<NpyError>([&] { parse_npy(b, "huge.npy"); }, {"huge.npy", "more than 2^64 bytes (16 EiB)"});
}

TEST(Limits, AConfigOfABillionDimensionsIsRefusedWithItsLimit) {
    nlohmann::json j = config_to_json(Config::small());
    j["d_model"] = 1000000000;
    refused<ConfigError>([&] { config_from_json_text(j.dump(), "huge.json"); }, {"'d_model' = 1000000000", "limit"});
}

TEST(Limits, AHundredThousandWordSentenceIsRefusedWithTheLength) {
    const Config c = Config::tutorial();
    refused<ConfigError>([&] { encode_sentence(words(100000, "ich"), c.src_vocab, c.src_len, "source"); },
                         {"100000 tokens", "length " + std::to_string(c.src_len)});
}

TEST(Limits, AHundredThousandWordDatasetLineIsRefused) {
    const std::string line = words(100000, "ich") + "\t" + words(3, "i") + "\n";
    refused<DataError>([&] { parse_tsv(line, Config::small(), "huge.tsv"); }, {"huge.tsv", "line 1"});
}
