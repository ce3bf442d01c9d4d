// safetensors reader/writer and the atomic file writer under it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "stepformer/atomic_file.h"
#include "stepformer/safetensors.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using namespace stepformer;

namespace {

using Bytes = std::vector<uint8_t>;

using testutil::TempDir;

Bytes slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), {});
}

void put(const std::string& path, const Bytes& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// resize + memcpy rather than vector::insert: GCC 12 at -O3 warns falsely on the latter.
void append(Bytes& out, const void* p, size_t n) {
    const size_t at = out.size();
    out.resize(at + n);
    if (n) std::memcpy(out.data() + at, p, n);
}

// Builds a safetensors file by hand: length prefix, header text, data.
Bytes make_file(const std::string& header, const Bytes& data = {}) {
    Bytes out;
    const uint64_t n = header.size();
    append(out, &n, 8);
    append(out, header.data(), header.size());
    append(out, data.data(), data.size());
    return out;
}

template <typename T>
Bytes raw(std::initializer_list<T> values) {
    Bytes out;
    append(out, values.begin(), values.size() * sizeof(T));
    return out;
}

Bytes concat(std::initializer_list<Bytes> parts) {
    Bytes out;
    for (const auto& p : parts) append(out, p.data(), p.size());
    return out;
}

// The message of the SafetensorsError `fn` throws; fails the test if it throws nothing.
std::string error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const SafetensorsError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected a SafetensorsError";
    return {};
}

bool same_bits(float a, float b) { return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b); }

}  // namespace

// ---------------------------------------------------------------------------
// Reading

TEST(SafetensorsRead, ConvertsEveryDtypeToFloat) {
    // One tensor per dtype, laid out back to back; F64 sits at an odd offset to
    // prove unaligned data is read correctly.
    const Bytes u8 = raw<uint8_t>({0, 255, 7});
    const Bytes f64 = raw<double>({1.5, -0.25});
    const Bytes f32 = raw<float>({3.5f, -0.0f});
    const Bytes f16 = raw<uint16_t>({0x3c00, 0xc000, 0x7c00, 0x0001, 0x3555, 0x8000});
    const Bytes bf16 = raw<uint16_t>({0x3f80, 0xc040, 0x7fc0});
    const Bytes i64 = raw<int64_t>({-7, int64_t{1} << 40});
    const Bytes i32 = raw<int32_t>({std::numeric_limits<int32_t>::min(), 5});
    const Bytes i16 = raw<int16_t>({-32768, 32767});
    const Bytes i8 = raw<int8_t>({-128, 127});
    const Bytes boolean = raw<uint8_t>({0, 1, 2});
    const std::string header = R"({
        "u8":   {"dtype": "U8",   "shape": [3],    "data_offsets": [0, 3]},
        "f64":  {"dtype": "F64",  "shape": [2],    "data_offsets": [3, 19]},
        "f32":  {"dtype": "F32",  "shape": [2],    "data_offsets": [19, 27]},
        "f16":  {"dtype": "F16",  "shape": [2, 3], "data_offsets": [27, 39]},
        "bf16": {"dtype": "BF16", "shape": [3],    "data_offsets": [39, 45]},
        "i64":  {"dtype": "I64",  "shape": [2],    "data_offsets": [45, 61]},
        "i32":  {"dtype": "I32",  "shape": [2],    "data_offsets": [61, 69]},
        "i16":  {"dtype": "I16",  "shape": [2],    "data_offsets": [69, 73]},
        "i8":   {"dtype": "I8",   "shape": [2],    "data_offsets": [73, 75]},
        "bool": {"dtype": "BOOL", "shape": [3],    "data_offsets": [75, 78]}
    })";
    const auto file = parse_safetensors(make_file(header, concat({u8, f64, f32, f16, bf16, i64, i32, i16, i8, boolean})), "all");

    ASSERT_EQ(file.tensors.size(), 10u);
    auto values = [&](const char* name) { return file.find(name)->value.data; };
    EXPECT_EQ(values("u8"), (std::vector<float>{0, 255, 7}));
    EXPECT_EQ(values("f64"), (std::vector<float>{1.5f, -0.25f}));
    EXPECT_TRUE(same_bits(values("f32")[1], -0.0f));
    const auto f16v = values("f16");
    EXPECT_EQ(f16v[0], 1.0f);
    EXPECT_EQ(f16v[1], -2.0f);
    EXPECT_EQ(f16v[2], std::numeric_limits<float>::infinity());
    EXPECT_EQ(f16v[3], std::ldexp(1.0f, -24));  // smallest subnormal
    EXPECT_EQ(f16v[4], 0.333251953125f);
    EXPECT_TRUE(same_bits(f16v[5], -0.0f));
    EXPECT_EQ(file.find("f16")->value.shape, (Shape{2, 3}));
    const auto bf = values("bf16");
    EXPECT_EQ(bf[0], 1.0f);
    EXPECT_EQ(bf[1], -3.0f);
    EXPECT_TRUE(std::isnan(bf[2]));
    EXPECT_EQ(values("i64"), (std::vector<float>{-7, 1099511627776.0f}));
    EXPECT_EQ(values("i32"), (std::vector<float>{-2147483648.0f, 5}));
    EXPECT_EQ(values("i16"), (std::vector<float>{-32768, 32767}));
    EXPECT_EQ(values("i8"), (std::vector<float>{-128, 127}));
    EXPECT_EQ(values("bool"), (std::vector<float>{0, 1, 1}));
    EXPECT_EQ(file.find("bool")->dtype, DType::BOOL);
    EXPECT_EQ(file.find("nope"), nullptr);
}

TEST(SafetensorsRead, TensorsComeInDataOffsetOrder) {
    // JSON key order (alphabetical here) differs from data order.
    const std::string header = R"({"a": {"dtype": "U8", "shape": [1], "data_offsets": [2, 3]},
                                   "b": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},
                                   "c": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]}})";
    const auto file = parse_safetensors(make_file(header, raw<uint8_t>({10, 20, 30})), "order");
    ASSERT_EQ(file.tensors.size(), 3u);
    EXPECT_EQ(file.tensors[0].name, "b");
    EXPECT_EQ(file.tensors[1].name, "c");
    EXPECT_EQ(file.tensors[2].name, "a");
    EXPECT_EQ(file.tensors[2].value.data[0], 30.0f);
}

TEST(SafetensorsRead, ScalarAndEmptyTensors) {
    const std::string header = R"({"s": {"dtype": "F32", "shape": [], "data_offsets": [0, 4]},
                                   "e": {"dtype": "F32", "shape": [0, 3], "data_offsets": [4, 4]},
                                   "__metadata__": {}})";
    const auto file = parse_safetensors(make_file(header, raw<float>({2.5f})), "scalar");
    ASSERT_EQ(file.tensors.size(), 2u);
    const auto* s = file.find("s");
    EXPECT_TRUE(s->shape.empty());
    EXPECT_EQ(s->value.data, std::vector<float>{2.5f});
    EXPECT_EQ(file.find("e")->value.shape, (Shape{0, 3}));
    EXPECT_TRUE(file.find("e")->value.empty());
    EXPECT_TRUE(file.metadata.empty());
}

TEST(SafetensorsRead, ReadsFileMadeByPython) {
    // Made by tests/reference/make_st_sample.py straight from the format spec.
    const auto file = read_safetensors(std::string(STEPFORMER_FIXTURES_DIR) + "/st_python_made.safetensors");
    ASSERT_EQ(file.tensors.size(), 6u);
    const std::vector<std::string> order = {"weight", "mask", "ids", "half", "brain", "scalar"};
    for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(file.tensors[i].name, order[i]);

    EXPECT_EQ(file.metadata, (std::map<std::string, std::string>{{"format", "pt"}, {"made_by", "make_st_sample.py"}}));
    const auto* w = file.find("weight");
    EXPECT_EQ(w->dtype, DType::F32);
    EXPECT_EQ(w->shape, (Shape{2, 3}));
    EXPECT_EQ(w->value.data, (std::vector<float>{0.5f, -1.25f, 3.0f, 1024.0f, -0.0078125f, 7.0f}));
    EXPECT_EQ(w->value.at({1, 0}), 1024.0f);
    EXPECT_EQ(file.find("mask")->dtype, DType::U8);
    EXPECT_EQ(file.find("mask")->value.data, (std::vector<float>{0, 1, 200, 255}));
    EXPECT_EQ(file.find("ids")->dtype, DType::I64);
    EXPECT_EQ(file.find("ids")->value.data, (std::vector<float>{-5, 0, 123456789.0f}));
    EXPECT_EQ(file.find("half")->dtype, DType::F16);
    EXPECT_EQ(file.find("half")->value.data, (std::vector<float>{1.0f, -2.5f, 65504.0f, std::ldexp(1.0f, -24)}));
    EXPECT_EQ(file.find("brain")->dtype, DType::BF16);
    EXPECT_EQ(file.find("brain")->value.data, (std::vector<float>{1.0f, -3.140625f, std::ldexp(1.0f, 100)}));
    EXPECT_TRUE(file.find("scalar")->shape.empty());
    EXPECT_EQ(file.find("scalar")->value.data, std::vector<float>{42.0f});
}

TEST(SafetensorsRead, MissingFileNamesPathAndReason) {
    TempDir dir;
    const std::string path = dir.file("absent.safetensors");
    const std::string msg = error_of([&] { read_safetensors(path); });
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;
}

TEST(SafetensorsRead, DirectoryIsAnError) {
    TempDir dir;
    const std::string msg = error_of([&] { read_safetensors(dir.path().string()); });
    EXPECT_NE(msg.find("directory"), std::string::npos) << msg;
}

TEST(SafetensorsRead, ErrorsFromFilesNameTheFile) {
    TempDir dir;
    const std::string path = dir.file("broken.safetensors");
    put(path, make_file("{oops"));
    const std::string msg = error_of([&] { read_safetensors(path); });
    EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
}

// ---------------------------------------------------------------------------
// Every validation failure: a SafetensorsError whose message names the file and
// says what is wrong.

struct BadFile {
    const char* label;
    Bytes bytes;
    std::vector<std::string> needles;  // all must appear in the message
};

void PrintTo(const BadFile& c, std::ostream* os) { *os << c.label; }

class SafetensorsBadFile : public ::testing::TestWithParam<BadFile> {};

TEST_P(SafetensorsBadFile, IsRejectedWithAClearMessage) {
    const BadFile& c = GetParam();
    const std::string msg = error_of([&] { parse_safetensors(c.bytes, "case.st"); });
    EXPECT_EQ(msg.rfind("case.st: ", 0), 0u) << msg;
    for (const auto& needle : c.needles) EXPECT_NE(msg.find(needle), std::string::npos) << "'" << needle << "' not in: " << msg;
}

namespace {

// A header holding just tensor "w" with the given entry JSON, over `data_bytes` zero bytes.
Bytes with_entry(const std::string& entry, size_t data_bytes = 8) {
    return make_file(R"({"w": )" + entry + "}", Bytes(data_bytes, 0));
}

Bytes length_prefix_only(uint64_t n, size_t trailing) {
    Bytes out(8 + trailing, '{');
    std::memcpy(out.data(), &n, 8);
    return out;
}

std::vector<BadFile> bad_files() {
    return {
        {"too_short", Bytes{1, 2, 3, 4}, {"shorter than the 8-byte", "4 bytes"}},
        {"empty", Bytes{}, {"shorter than the 8-byte"}},
        {"header_longer_than_file", length_prefix_only(100, 10), {"header length 100", "exceeds", "10 bytes"}},
        {"header_absurd", length_prefix_only(uint64_t{1} << 40, 10), {"header length", "absurd"}},
        {"not_json", make_file("{not json"), {"not valid JSON"}},
        {"invalid_utf8", make_file("{\"w\xff\": 1}"), {"not valid JSON"}},
        {"empty_header", make_file(""), {"not valid JSON"}},
        // a number no double holds: the JSON parser's out_of_range, found by fuzzing
        {"number_overflow", make_file(R"({"w": {"dtype": "F32", "shape": [1e400], "data_offsets": [0, 4]}})"),
         {"not valid JSON"}},
        {"not_object", make_file("[1, 2]"), {"not a JSON object", "array"}},
        {"entry_not_object", with_entry("3"), {"'w'", "entry must be an object"}},
        {"missing_dtype", with_entry(R"({"shape": [2], "data_offsets": [0, 8]})"), {"'w'", "missing \"dtype\""}},
        {"missing_shape", with_entry(R"({"dtype": "F32", "data_offsets": [0, 8]})"), {"'w'", "missing \"shape\""}},
        {"missing_offsets", with_entry(R"({"dtype": "F32", "shape": [2]})"), {"'w'", "missing \"data_offsets\""}},
        {"dtype_not_string", with_entry(R"({"dtype": 4, "shape": [2], "data_offsets": [0, 8]})"),
         {"'w'", "\"dtype\" must be a string"}},
        {"unknown_dtype", with_entry(R"({"dtype": "F8_E4M3", "shape": [8], "data_offsets": [0, 8]})"),
         {"'w'", "unknown dtype 'F8_E4M3'"}},
        {"lowercase_dtype", with_entry(R"({"dtype": "f32", "shape": [2], "data_offsets": [0, 8]})"),
         {"unknown dtype 'f32'"}},
        {"shape_not_list", with_entry(R"({"dtype": "F32", "shape": "2", "data_offsets": [0, 8]})"),
         {"'w'", "\"shape\" must be a list of integers"}},
        {"shape_float", with_entry(R"({"dtype": "F32", "shape": [2.0], "data_offsets": [0, 8]})"),
         {"'w'", "\"shape\" must be a list of integers", "2.0"}},
        {"negative_dim", with_entry(R"({"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]})"),
         {"'w'", "negative dimension -2"}},
        {"huge_shape", with_entry(R"({"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 8]})"),
         {"'w'", "more than 2^64 bytes"}},
        {"offsets_not_pair", with_entry(R"({"dtype": "F32", "shape": [2], "data_offsets": [8]})"),
         {"'w'", "data_offsets", "two non-negative integers"}},
        {"offsets_negative", with_entry(R"({"dtype": "F32", "shape": [2], "data_offsets": [-8, 0]})"),
         {"'w'", "two non-negative integers"}},
        {"offsets_strings", with_entry(R"({"dtype": "F32", "shape": [2], "data_offsets": ["0", "8"]})"),
         {"'w'", "two non-negative integers"}},
        {"offsets_out_of_range", with_entry(R"({"dtype": "F32", "shape": [2], "data_offsets": [4, 12]})"),
         {"'w'", "[4, 12]", "out of range", "8-byte data section"}},
        {"offsets_reversed", with_entry(R"({"dtype": "F32", "shape": [1], "data_offsets": [8, 4]})"),
         {"'w'", "begin > end"}},
        {"size_mismatch", with_entry(R"({"dtype": "F32", "shape": [3], "data_offsets": [0, 8]})", 16),
         {"'w'", "expected 12 bytes", "found 8 bytes", "F32", "[3]"}},
        {"scalar_size_mismatch", with_entry(R"({"dtype": "F64", "shape": [], "data_offsets": [0, 4]})"),
         {"'w'", "expected 8 bytes", "found 4"}},
        {"overlap",
         make_file(R"({"first": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                       "second": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})",
                   Bytes(12, 0)),
         {"overlap", "'first'", "'second'"}},
        {"overlap_behind_empty",  // an empty tensor between them must not hide the overlap
         make_file(R"({"outer": {"dtype": "U8", "shape": [8], "data_offsets": [0, 8]},
                       "empty": {"dtype": "U8", "shape": [0], "data_offsets": [2, 2]},
                       "inner": {"dtype": "U8", "shape": [1], "data_offsets": [3, 4]}})",
                   Bytes(8, 0)),
         {"overlap", "'outer'", "'inner'"}},
        {"duplicate_name",
         make_file(R"({"w": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},
                       "w": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]}})",
                   Bytes(2, 0)),
         {"duplicate", "'w'"}},
        {"metadata_not_string", make_file(R"({"__metadata__": {"epoch": 3}})"),
         {"__metadata__", "'epoch'", "not a string", "number"}},
        {"metadata_not_object", make_file(R"({"__metadata__": ["a"]})"), {"__metadata__", "must be an object"}},
    };
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(AllCases, SafetensorsBadFile, ::testing::ValuesIn(bad_files()),
                         [](const ::testing::TestParamInfo<BadFile>& info) { return std::string(info.param.label); });

// ---------------------------------------------------------------------------
// Writing

TEST(SafetensorsWrite, F32RoundTripKeepsOrderAndExactBits) {
    TempDir dir;
    const float denormal = std::numeric_limits<float>::denorm_min();
    const Tensor z({2, 2}, {1.0f, -0.0f, denormal, std::numeric_limits<float>::infinity()});
    const Tensor a({3}, {0.1f, 1e-30f, 3.4e38f});
    const Tensor m({1, 1, 2}, {std::nanf(""), -7.25f});
    const std::string path = dir.file("model.safetensors");
    write_safetensors(path, {{"z", &z}, {"a", &a}, {"m.weight", &m}});

    const auto file = read_safetensors(path);
    ASSERT_EQ(file.tensors.size(), 3u);
    const std::vector<const Tensor*> originals = {&z, &a, &m};
    const std::vector<std::string> names = {"z", "a", "m.weight"};
    for (size_t i = 0; i < 3; ++i) {
        const auto& t = file.tensors[i];
        EXPECT_EQ(t.name, names[i]);
        EXPECT_EQ(t.dtype, DType::F32);
        EXPECT_EQ(t.shape, originals[i]->shape);
        EXPECT_EQ(t.value.shape, originals[i]->shape);
        ASSERT_EQ(t.value.data.size(), originals[i]->data.size());
        for (size_t k = 0; k < t.value.data.size(); ++k)
            EXPECT_TRUE(same_bits(t.value.data[k], originals[i]->data[k])) << t.name << "[" << k << "]";
    }
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"model.safetensors"});  // no temp file left
}

TEST(SafetensorsWrite, IntegerDtypesRoundValues) {
    const Tensor bytes({4}, {0.0f, 1.4f, 254.6f, 255.0f});
    const Tensor flags({3}, {0.0f, 1.0f, 0.7f});
    const Tensor ids({3}, {-3.0f, 1099511627776.0f, 2.5f});
    const auto file =
        parse_safetensors(serialize_safetensors({{"u", &bytes, DType::U8}, {"b", &flags, DType::BOOL}, {"i", &ids, DType::I64}}, {}),
                          "ints");
    EXPECT_EQ(file.find("u")->dtype, DType::U8);
    EXPECT_EQ(file.find("u")->value.data, (std::vector<float>{0, 1, 255, 255}));
    EXPECT_EQ(file.find("b")->dtype, DType::BOOL);
    EXPECT_EQ(file.find("b")->value.data, (std::vector<float>{0, 1, 1}));
    EXPECT_EQ(file.find("i")->dtype, DType::I64);
    EXPECT_EQ(file.find("i")->value.data, (std::vector<float>{-3, 1099511627776.0f, 3}));  // half away from zero
}

TEST(SafetensorsWrite, I64StoresExactIntegers) {
    const Tensor ids({2}, {-123456.0f, 16777216.0f});
    const Bytes bytes = serialize_safetensors({{"ids", &ids, DType::I64}}, {});
    int64_t stored[2];
    std::memcpy(stored, bytes.data() + bytes.size() - 16, 16);
    EXPECT_EQ(stored[0], -123456);
    EXPECT_EQ(stored[1], 16777216);
}

TEST(SafetensorsWrite, MetadataRoundTrip) {
    TempDir dir;
    const Tensor t({1}, {1.0f});
    const std::map<std::string, std::string> meta = {
        {"step", "1200"}, {"config", R"({"d_model": 64, "quote": "\""})"}, {"empty", ""}, {"unicode", "λ → ∞"}};
    write_safetensors(dir.file("m.safetensors"), {{"t", &t}}, meta);
    EXPECT_EQ(read_safetensors(dir.file("m.safetensors")).metadata, meta);
}

TEST(SafetensorsWrite, ScalarRoundTrip) {
    const Tensor s(Shape{}, std::vector<float>{3.25f});
    const auto file = parse_safetensors(serialize_safetensors({{"loss", &s}}, {}), "scalar");
    ASSERT_EQ(file.tensors.size(), 1u);
    EXPECT_TRUE(file.tensors[0].shape.empty());
    EXPECT_EQ(file.tensors[0].value.data, std::vector<float>{3.25f});
}

TEST(SafetensorsWrite, HeaderIsPaddedAndDescribesTensors) {
    const Tensor a({3}, {1, 2, 3});
    const Tensor b(Shape{0, 4});
    for (const std::string name : {"x", "xy", "xyz", "longer.name.here"}) {
        const Bytes bytes = serialize_safetensors({{name, &a}, {"b", &b}}, {{"k", "v"}});
        uint64_t n = 0;
        std::memcpy(&n, bytes.data(), 8);
        EXPECT_EQ(n % 8, 0u) << name;
        ASSERT_EQ(bytes.size(), 8 + n + 12) << name;
        const std::string text(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(n));
        const auto header = nlohmann::json::parse(text);  // trailing padding is whitespace
        EXPECT_EQ(header[name]["dtype"], "F32");
        EXPECT_EQ(header[name]["shape"], nlohmann::json::array({3}));
        EXPECT_EQ(header[name]["data_offsets"], nlohmann::json::array({0, 12}));
        EXPECT_EQ(header["b"]["data_offsets"], nlohmann::json::array({12, 12}));
        EXPECT_EQ(header["__metadata__"]["k"], "v");
    }
}

TEST(SafetensorsWrite, NoMetadataMeansNoMetadataEntry) {
    const Tensor a({1}, {1});
    const Bytes bytes = serialize_safetensors({{"a", &a}}, {});
    const std::string text(bytes.begin() + 8, bytes.end() - 4);
    EXPECT_EQ(text.find("__metadata__"), std::string::npos);
}

TEST(SafetensorsWrite, RejectsBadNames) {
    const Tensor t({1}, {1});
    EXPECT_NE(error_of([&] { serialize_safetensors({{"", &t}}, {}); }).find("empty name"), std::string::npos);
    EXPECT_NE(error_of([&] { serialize_safetensors({{"w", &t}, {"w", &t}}, {}); }).find("duplicate tensor name 'w'"),
              std::string::npos);
    EXPECT_NE(error_of([&] { serialize_safetensors({{"__metadata__", &t}}, {}); }).find("reserved"), std::string::npos);
    EXPECT_NE(error_of([&] { serialize_safetensors({{"w", nullptr}}, {}); }).find("null"), std::string::npos);
    EXPECT_NE(error_of([&] { serialize_safetensors({{"bad\xff", &t}}, {}); }).find("UTF-8"), std::string::npos);
}

TEST(SafetensorsWrite, RejectsInconsistentTensor) {
    Tensor t({2}, {1, 2});
    t.shape = {3};  // shape no longer matches the data
    EXPECT_NE(error_of([&] { serialize_safetensors({{"t", &t}}, {}); }).find("'t'"), std::string::npos);
}

TEST(SafetensorsWrite, RejectsValuesThatDoNotFitIntegerDtypes) {
    auto error_for = [](float v, DType dtype) {
        const Tensor t({2}, {0.0f, v});
        return error_of([&] { serialize_safetensors({{"ids", &t, dtype}}, {}); });
    };
    const std::string msg = error_for(256.0f, DType::U8);
    EXPECT_NE(msg.find("'ids'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("index 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("U8"), std::string::npos) << msg;
    EXPECT_NE(error_for(-0.6f, DType::U8).find("does not fit"), std::string::npos);
    EXPECT_NE(error_for(std::nanf(""), DType::U8).find("does not fit"), std::string::npos);
    EXPECT_NE(error_for(2.0f, DType::BOOL).find("does not fit BOOL"), std::string::npos);
    EXPECT_NE(error_for(std::numeric_limits<float>::infinity(), DType::I64).find("does not fit I64"), std::string::npos);
    EXPECT_NE(error_for(9.3e18f, DType::I64).find("does not fit I64"), std::string::npos);
}

TEST(SafetensorsWrite, RejectsUnsupportedWriteDtype) {
    const Tensor t({1}, {1});
    const std::string msg = error_of([&] { serialize_safetensors({{"h", &t, DType::F16}}, {}); });
    EXPECT_NE(msg.find("cannot write dtype F16"), std::string::npos) << msg;
}

TEST(SafetensorsWrite, ReplacesExistingFile) {
    TempDir dir;
    const std::string path = dir.file("ckpt.safetensors");
    const Tensor first({1}, {1}), second({2}, {2, 3});
    write_safetensors(path, {{"w", &first}});
    write_safetensors(path, {{"w", &second}});
    EXPECT_EQ(read_safetensors(path).find("w")->value.data, (std::vector<float>{2, 3}));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"ckpt.safetensors"});
}

TEST(SafetensorsWrite, InterruptedSaveLeavesPreviousCheckpointIntact) {
    TempDir dir;
    const std::string path = dir.file("ckpt.safetensors");
    const Tensor old_weights({4}, {1, 2, 3, 4}), new_weights({4}, {5, 6, 7, 8});
    write_safetensors(path, {{"w", &old_weights}}, {{"step", "100"}});
    const Bytes before = slurp(path);

    set_atomic_write_fault_for_testing(20);  // dies inside the header
    const std::string msg = error_of([&] { write_safetensors(path, {{"w", &new_weights}}, {{"step", "200"}}); });
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("simulated"), std::string::npos) << msg;

    EXPECT_EQ(slurp(path), before);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"ckpt.safetensors"});  // temp file removed
    EXPECT_EQ(read_safetensors(path).metadata.at("step"), "100");

    // The fault fires once; the next save goes through.
    write_safetensors(path, {{"w", &new_weights}}, {{"step", "200"}});
    EXPECT_EQ(read_safetensors(path).find("w")->value.data, new_weights.data);
}

TEST(SafetensorsWrite, UnwritablePathErrors) {
    TempDir dir;
    const Tensor t({1}, {1});
    const std::string missing_dir = dir.file("no/such/dir/x.safetensors");
    const std::string msg = error_of([&] { write_safetensors(missing_dir, {{"t", &t}}); });
    EXPECT_NE(msg.find(missing_dir), std::string::npos) << msg;
    EXPECT_NE(msg.find("No such file or directory"), std::string::npos) << msg;

    const std::string is_dir = dir.file("sub");
    fs::create_directory(is_dir);
    const std::string msg2 = error_of([&] { write_safetensors(is_dir, {{"t", &t}}); });
    EXPECT_NE(msg2.find(is_dir), std::string::npos) << msg2;
    EXPECT_TRUE(fs::is_directory(is_dir));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"sub"});  // no temp file left beside it
}

// ---------------------------------------------------------------------------
// write_file_atomic directly

namespace {
std::string runtime_error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected a std::runtime_error";
    return {};
}
}  // namespace

TEST(AtomicFile, WritesAndReplaces) {
    TempDir dir;
    const std::string path = dir.file("f.bin");
    write_file_atomic(path, "hello", 5);
    EXPECT_EQ(read_file_bytes(path), (Bytes{'h', 'e', 'l', 'l', 'o'}));
    write_file_atomic(path, "", 0);
    EXPECT_TRUE(read_file_bytes(path).empty());
}

TEST(AtomicFile, FaultKeepsOldFileByteIdentical) {
    TempDir dir;
    const std::string path = dir.file("f.bin");
    const std::string old_content(10000, 'o');
    write_file_atomic(path, old_content.data(), old_content.size());
    const std::string new_content(20000, 'n');
    for (int fail_after : {0, 1, 9999, 19999}) {
        set_atomic_write_fault_for_testing(fail_after);
        const std::string msg = runtime_error_of([&] { write_file_atomic(path, new_content.data(), new_content.size()); });
        EXPECT_NE(msg.find(path), std::string::npos) << msg;
        const Bytes now = read_file_bytes(path);
        EXPECT_EQ(std::string(now.begin(), now.end()), old_content) << "fail_after " << fail_after;
        EXPECT_EQ(dir.entries(), std::vector<std::string>{"f.bin"});
    }
}

TEST(AtomicFile, FaultCanBeDisarmed) {
    TempDir dir;
    set_atomic_write_fault_for_testing(0);
    set_atomic_write_fault_for_testing(-1);
    write_file_atomic(dir.file("f.bin"), "ok", 2);
    EXPECT_EQ(read_file_bytes(dir.file("f.bin")).size(), 2u);
}

TEST(AtomicFile, ReadOnlyDirectoryErrors) {
    if (::geteuid() == 0) {
        // root ignores permission bits, so use a directory no one can create files in
        const std::string path = "/proc/stepformer-unwritable.bin";
        const std::string msg = runtime_error_of([&] { write_file_atomic(path, "new", 3); });
        EXPECT_NE(msg.find(path), std::string::npos) << msg;
        EXPECT_FALSE(fs::exists(path));
        return;
    }
    TempDir dir;
    const std::string path = dir.file("f.bin");
    write_file_atomic(path, "old", 3);
    fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
    const std::string msg = runtime_error_of([&] { write_file_atomic(path, "new", 3); });
    fs::permissions(dir.path(), fs::perms::owner_all);
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("Permission denied"), std::string::npos) << msg;
    EXPECT_EQ(read_file_bytes(path), (Bytes{'o', 'l', 'd'}));
}

TEST(AtomicFile, ReadMissingFileNamesPath) {
    const std::string msg = runtime_error_of([] { read_file_bytes("/nonexistent/stepformer/f.bin"); });
    EXPECT_NE(msg.find("/nonexistent/stepformer/f.bin"), std::string::npos) << msg;
    EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;
}
