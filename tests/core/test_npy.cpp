// NumPy .npy export/import and CSV export.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

#include "stepformer/npy.h"
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

// A hand-made .npy: magic, version, little-endian header length (u16 for v1, u32 after).
Bytes make_npy(const std::string& header, const Bytes& data, int major = 1) {
    Bytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
    const uint32_t len = static_cast<uint32_t>(header.size());
    append(out, &len, major == 1 ? 2 : 4);  // little-endian host
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

std::string npy_error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const NpyError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected an NpyError";
    return {};
}

}  // namespace

TEST(Npy, RoundTripsEveryRank) {
    TempDir dir;
    const std::vector<Tensor> tensors = {
        Tensor(Shape{}, std::vector<float>{7.5f}),
        Tensor({5}, {1, -2, 3.25f, 1e-30f, std::numeric_limits<float>::infinity()}),
        Tensor({2, 3}, {1, 2, 3, 4, 5, 6}),
        Tensor({2, 1, 3, 2}, std::vector<float>(12, -0.5f)),
        Tensor(Shape{0, 3}),
    };
    for (const auto& t : tensors) {
        const std::string path = dir.file("t.npy");
        write_npy(path, t);
        const Tensor back = read_npy(path);
        EXPECT_EQ(back.shape, t.shape) << shape_to_string(t.shape);
        EXPECT_EQ(back.data, t.data) << shape_to_string(t.shape);
    }
}

TEST(Npy, WritesNumpyV1HeaderAlignedTo64) {
    TempDir dir;
    struct Case {
        Shape shape;
        std::string tuple;
    };
    for (const auto& c : std::vector<Case>{{{}, "()"}, {{5}, "(5,)"}, {{2, 3}, "(2, 3)"}, {{1, 2, 3, 4}, "(1, 2, 3, 4)"}}) {
        const std::string path = dir.file("h.npy");
        write_npy(path, Tensor(c.shape, 1.0f));
        const Bytes b = slurp(path);
        ASSERT_GE(b.size(), 10u);
        EXPECT_EQ(std::memcmp(b.data(), "\x93NUMPY\x01\x00", 8), 0);
        const size_t header_len = b[8] | (b[9] << 8);
        EXPECT_EQ((10 + header_len) % 64, 0u);
        const std::string header(b.begin() + 10, b.begin() + 10 + static_cast<long>(header_len));
        EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': " + c.tuple + ", }", 0), 0u) << header;
        EXPECT_EQ(header.back(), '\n');
        EXPECT_EQ(b.size(), 10 + header_len + 4 * static_cast<size_t>(numel(c.shape)));
        float first;
        std::memcpy(&first, b.data() + 10 + header_len, 4);
        EXPECT_EQ(first, 1.0f);
    }
}

TEST(Npy, ReadsFloat64AndOtherHeaderSpellings) {
    TempDir dir;
    const std::string path = dir.file("f8.npy");
    // Double quotes, no trailing comma, keys in another order, Python-2 long suffix.
    put(path, make_npy("{\"shape\": (3L,), \"fortran_order\": False, \"descr\": \"<f8\"}\n", raw<double>({0.5, -1e-3, 1e10})));
    const Tensor t = read_npy(path);
    EXPECT_EQ(t.shape, (Shape{3}));
    EXPECT_EQ(t.data, (std::vector<float>{0.5f, static_cast<float>(-1e-3), 1e10f}));
}

TEST(Npy, ReadsVersion2Header) {
    TempDir dir;
    const std::string path = dir.file("v2.npy");
    put(path, make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1), }\n", raw<float>({4, 5}), 2));
    const Tensor t = read_npy(path);
    EXPECT_EQ(t.shape, (Shape{2, 1}));
    EXPECT_EQ(t.data, (std::vector<float>{4, 5}));
}

TEST(Npy, RejectsWhatItCannotRead) {
    TempDir dir;
    struct Case {
        const char* label;
        Bytes bytes;
        std::string needle;
    };
    const std::string ok_f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    const std::vector<Case> cases = {
        {"bad_magic", Bytes{'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0, 0}, "not a .npy file"},
        {"too_short", Bytes{0x93, 'N'}, "not a .npy file"},
        {"version", make_npy(ok_f4, raw<float>({1, 2}), 9), "unsupported .npy format version 9.0"},
        {"header_too_long", Bytes{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0xff, 0x00, '{'}, "header length 255"},
        {"int_dtype", make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", raw<int32_t>({1, 2})),
         "unsupported dtype '<i4'"},
        {"big_endian", make_npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", raw<float>({1, 2})),
         "unsupported dtype '>f4'"},
        {"structured", make_npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", raw<float>({1, 2})),
         "structured"},
        {"fortran", make_npy("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2), }", raw<float>({1, 2})),
         "Fortran-order"},
        {"truncated", make_npy(ok_f4, raw<float>({1})), "data is 4 bytes but shape [2] of '<f4' needs 8 (truncated"},
        {"trailing", make_npy(ok_f4, raw<float>({1, 2, 3})), "data is 12 bytes"},
        {"garbage_header", make_npy("{'descr' '<f4'}", {}), "malformed .npy header"},
        {"missing_key", make_npy("{'descr': '<f4', 'shape': (2,)}", raw<float>({1, 2})), "lacks"},
        {"negative_dim", make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", {}), "non-negative"},
    };
    for (const auto& c : cases) {
        const std::string path = dir.file(std::string(c.label) + ".npy");
        put(path, c.bytes);
        const std::string msg = npy_error_of([&] { read_npy(path); });
        EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << c.label << ": " << msg;
        EXPECT_NE(msg.find(c.needle), std::string::npos) << c.label << ": '" << c.needle << "' not in: " << msg;
    }
}

TEST(Npy, MissingFileAndUnwritablePath) {
    TempDir dir;
    const std::string missing = dir.file("absent.npy");
    EXPECT_NE(npy_error_of([&] { read_npy(missing); }).find(missing), std::string::npos);
    const std::string unwritable = dir.file("no/dir/x.npy");
    const std::string msg = npy_error_of([&] { write_npy(unwritable, Tensor({1}, {1.0f})); });
    EXPECT_NE(msg.find(unwritable), std::string::npos) << msg;
    EXPECT_NE(msg.find("No such file or directory"), std::string::npos) << msg;
}

TEST(Csv, OneDimensionIsOneLine) { EXPECT_EQ(tensor_to_csv(Tensor({3}, {1, 2.5f, -3})), "1,2.5,-3\n"); }

TEST(Csv, TwoDimensionsAreRows) { EXPECT_EQ(tensor_to_csv(Tensor({2, 2}, {1, 2, 3, 4})), "1,2\n3,4\n"); }

TEST(Csv, HigherRankFlattensLeadingDimsUnderAShapeComment) {
    Tensor t({2, 2, 3});
    for (int i = 0; i < 12; ++i) t.data[static_cast<size_t>(i)] = static_cast<float>(i);
    EXPECT_EQ(tensor_to_csv(t), "# shape [2, 2, 3]\n0,1,2\n3,4,5\n6,7,8\n9,10,11\n");
}

TEST(Csv, Scalar) { EXPECT_EQ(tensor_to_csv(Tensor(Shape{}, std::vector<float>{42})), "42\n"); }

TEST(Csv, ValuesRoundTripExactly) {
    const std::vector<float> values = {0.1f,  1.0f / 3.0f, 1e-30f, 3.4028235e38f, -2.5e-7f,
                                       std::numeric_limits<float>::denorm_min(), 16777217.0f, -0.0f};
    const std::string csv = tensor_to_csv(Tensor({static_cast<int64_t>(values.size())}, values));
    std::stringstream in(csv);
    std::string field;
    for (float expected : values) {
        ASSERT_TRUE(std::getline(in, field, ','));
        const float parsed = std::strtof(field.c_str(), nullptr);
        EXPECT_EQ(std::memcmp(&parsed, &expected, 4), 0) << field;
    }
}

// A .npz read back by an independent walk of the zip: every local header's name, sizes and CRC
// (computed bit by bit here, not with the writer's table), each .npy parsed, and the central
// directory and its end record where they say they are.
namespace {
uint32_t crc32Bitwise(const uint8_t* p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}
uint32_t le32(const std::vector<uint8_t>& b, size_t at) {
    return uint32_t(b.at(at)) | uint32_t(b.at(at + 1)) << 8 | uint32_t(b.at(at + 2)) << 16 | uint32_t(b.at(at + 3)) << 24;
}
uint32_t le16(const std::vector<uint8_t>& b, size_t at) { return uint32_t(b.at(at)) | uint32_t(b.at(at + 1)) << 8; }
}  // namespace

TEST(Npz, EveryArrayReadsBackThroughTheZip) {
    TempDir dir;
    Tensor a({2, 3}, std::vector<float>{1.0f, -2.5f, 3.25f, 0.0f, 1e-8f, -7.0f});
    Tensor b({4}, std::vector<float>{0.5f, 0.25f, 0.125f, 1.0f});
    Tensor c({1, 2, 2}, std::vector<float>{9, 8, 7, 6});
    const std::string path = dir.file("trace.npz");
    write_npz(path, {{"encoder.layers.0.enc_self_attn.scores", &a}, {"loss", &b}, {"grad.x", &c}});
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::vector<std::pair<std::string, const Tensor*>> want = {
        {"encoder.layers.0.enc_self_attn.scores.npy", &a}, {"loss.npy", &b}, {"grad.x.npy", &c}};
    size_t at = 0;
    for (const auto& [name, t] : want) {
        ASSERT_EQ(le32(bytes, at), 0x04034b50u) << name;
        EXPECT_EQ(le16(bytes, at + 8), 0u) << "stored, not compressed";
        const uint32_t crc = le32(bytes, at + 14), size = le32(bytes, at + 18), nameLen = le16(bytes, at + 26);
        EXPECT_EQ(le32(bytes, at + 22), size);
        const std::string got(bytes.begin() + long(at + 30), bytes.begin() + long(at + 30 + nameLen));
        EXPECT_EQ(got, name);
        const size_t data = at + 30 + nameLen + le16(bytes, at + 28);
        ASSERT_LE(data + size, bytes.size());
        EXPECT_EQ(crc32Bitwise(bytes.data() + data, size), crc) << name;
        const Tensor back = parse_npy(std::vector<uint8_t>(bytes.begin() + long(data), bytes.begin() + long(data + size)), name);
        EXPECT_EQ(back.shape, t->shape) << name;
        EXPECT_EQ(back.data, t->data) << name;
        at = data + size;
    }
    // The end record: 3 entries, the central directory right after the data.
    const size_t end = bytes.size() - 22;
    ASSERT_EQ(le32(bytes, end), 0x06054b50u);
    EXPECT_EQ(le16(bytes, end + 10), 3u);
    EXPECT_EQ(le32(bytes, end + 16), uint32_t(at));
    EXPECT_EQ(le32(bytes, at), 0x02014b50u);
    // A tensor whose shape does not match its values: refused, nothing written.
    Tensor bad({2}, std::vector<float>{1, 2});
    bad.shape = {3};  // (Tensor's constructor refuses this; a caller's bug could still make one)
    EXPECT_THROW(write_npz(dir.file("bad.npz"), {{"bad", &bad}}), NpyError);
    EXPECT_FALSE(std::filesystem::exists(dir.file("bad.npz")));
}
