#include "stepformer/npy.h"

#include <array>

#include <bit>
#include <charconv>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "stepformer/atomic_file.h"

namespace stepformer {

// '<f4' / '<f8' data is copied byte for byte, which is only right on little-endian hosts.
static_assert(std::endian::native == std::endian::little, "npy I/O assumes a little-endian host");

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kAlignment = 64;

// "<file>: <problem>"
[[noreturn]] void fail(const std::string& path, Message problem) {
    throw NpyError(Message(Msg::context, {path, std::move(problem)}));
}

// ---------------------------------------------------------------------------
// Writing

std::string shape_tuple(const Shape& shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    if (shape.size() == 1) s += ',';  // Python spells a 1-tuple "(3,)"
    return s + ")";
}

// Magic, version 1.0, little-endian u16 header length, then the dict padded with
// spaces and ended by '\n' so the data starts on a 64-byte boundary.
std::string npy_preamble(const Shape& shape, const std::string& path) {
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }";
    const size_t fixed = kMagicSize + 2 + 2;
    const size_t unpadded = fixed + dict.size() + 1;
    dict.append((kAlignment - unpadded % kAlignment) % kAlignment, ' ');
    dict += '\n';
    if (dict.size() > 0xffff) fail(path, Message(Msg::npy_header_too_long, {shape_to_string(shape)}));

    std::string out(kMagic, kMagicSize);
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(dict.size() & 0xff);
    out += static_cast<char>(dict.size() >> 8);
    return out + dict;
}

// ---------------------------------------------------------------------------
// Reading

struct NpyHeader {
    std::string descr;
    bool fortran_order = false;
    Shape shape;
};

// Just enough of a Python-literal parser for the dict np.save writes, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
public:
    HeaderParser(std::string_view text, const std::string& path) : s_(text), path_(path) {}

    NpyHeader parse() {
        NpyHeader h;
        bool have_descr = false, have_order = false, have_shape = false;
        expect('{');
        while (!consume('}')) {
            const std::string key = string_literal();
            expect(':');
            if (key == "descr") {
                if (peek() != '\'' && peek() != '"') malformed(Message(Msg::npy_record_dtype));
                h.descr = string_literal();
                have_descr = true;
            } else if (key == "fortran_order") {
                h.fortran_order = boolean();
                have_order = true;
            } else if (key == "shape") {
                h.shape = tuple_of_ints();
                have_shape = true;
            } else {
                malformed(Message(Msg::npy_unexpected_key, {key}));
            }
            if (!consume(',')) {
                expect('}');
                break;
            }
        }
        if (!have_descr || !have_order || !have_shape) malformed(Message(Msg::npy_missing_keys));
        return h;
    }

private:
    [[noreturn]] void malformed(Message why) const {
        fail(path_, Message(Msg::npy_malformed, {std::move(why), std::string(s_)}));
    }
    void skip_space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    char peek() {
        skip_space();
        return i_ < s_.size() ? s_[i_] : '\0';
    }
    bool consume(char c) {
        if (peek() != c) return false;
        ++i_;
        return true;
    }
    void expect(char c) {
        if (!consume(c)) malformed(Message(Msg::npy_expected_char, {std::string(1, c)}));
    }
    std::string string_literal() {
        const char quote = peek();
        if (quote != '\'' && quote != '"') malformed(Message(Msg::npy_expected_string));
        const size_t end = s_.find(quote, ++i_);
        if (end == std::string_view::npos) malformed(Message(Msg::npy_unterminated_string));
        std::string value(s_.substr(i_, end - i_));
        i_ = end + 1;
        return value;
    }
    bool boolean() {
        skip_space();
        for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
            if (s_.substr(i_).starts_with(word)) {
                i_ += std::strlen(word);
                return value;
            }
        }
        malformed(Message(Msg::npy_expected_boolean));
    }
    int64_t integer() {
        skip_space();
        int64_t v = 0;
        const auto [ptr, ec] = std::from_chars(s_.data() + i_, s_.data() + s_.size(), v);
        if (ec != std::errc() || v < 0) malformed(Message(Msg::npy_expected_dimension));
        i_ = static_cast<size_t>(ptr - s_.data());
        if (i_ < s_.size() && s_[i_] == 'L') ++i_;  // Python 2 long suffix
        return v;
    }
    Shape tuple_of_ints() {
        Shape shape;
        expect('(');
        while (!consume(')')) {
            shape.push_back(integer());
            if (!consume(',')) {
                expect(')');
                break;
            }
        }
        return shape;
    }

    std::string_view s_;
    const std::string& path_;
    size_t i_ = 0;
};

uint32_t read_le(const uint8_t* p, size_t n) {
    uint32_t v = 0;
    for (size_t k = 0; k < n; ++k) v |= static_cast<uint32_t>(p[k]) << (8 * k);
    return v;
}

// Returns the header text and the offset where the data begins.
std::pair<std::string_view, size_t> locate_header(const std::vector<uint8_t>& bytes, const std::string& path) {
    if (bytes.size() < kMagicSize + 4 || std::memcmp(bytes.data(), kMagic, kMagicSize) != 0)
        fail(path, Message(Msg::npy_not_npy));
    const int major = bytes[6], minor = bytes[7];
    // v1.0 has a u16 header length; v2.0 and v3.0 (UTF-8 header) a u32.
    if (major < 1 || major > 3)
        fail(path, Message(Msg::npy_version, {major, minor}));
    const size_t len_size = major == 1 ? 2 : 4;
    const size_t header_start = kMagicSize + 2 + len_size;
    if (bytes.size() < header_start) fail(path, Message(Msg::npy_truncated_preamble));
    const size_t header_size = read_le(bytes.data() + kMagicSize + 2, len_size);
    if (header_size > bytes.size() - header_start)
        fail(path, Message(Msg::npy_header_exceeds, {header_size}));
    const auto* text = reinterpret_cast<const char*>(bytes.data() + header_start);
    return {std::string_view(text, header_size), header_start + header_size};
}

size_t element_size_of(const std::string& descr, const std::string& path) {
    if (descr == "<f4") return 4;
    if (descr == "<f8") return 8;
    fail(path, Message(Msg::npy_dtype, {descr}));
}

std::optional<uint64_t> checked_byte_size(const Shape& shape, size_t element_size) {
    uint64_t bytes = element_size;
    for (int64_t d : shape)
        if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes)) return std::nullopt;
    return bytes;
}

std::vector<float> decode(const uint8_t* src, size_t count, size_t element_size) {
    std::vector<float> out(count);
    if (element_size == 4) {
        if (count) std::memcpy(out.data(), src, count * 4);
        return out;
    }
    for (size_t i = 0; i < count; ++i) {  // memcpy per element: no alignment guarantee
        double v;
        std::memcpy(&v, src + i * 8, 8);
        out[i] = static_cast<float>(v);
    }
    return out;
}

// ---------------------------------------------------------------------------
// CSV

// std::to_chars gives the shortest text that round-trips, and unlike printf it
// ignores the C locale (which a GUI may switch to one with decimal commas).
void append_value(std::string& out, float v) {
    char buf[32];
    const auto result = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, result.ptr);
}

void append_row(std::string& out, const float* values, int64_t count) {
    for (int64_t i = 0; i < count; ++i) {
        if (i) out += ',';
        append_value(out, values[i]);
    }
    out += '\n';
}

}  // namespace

void write_npy(const std::string& path, const Tensor& t) {
    if (numel(t.shape) != t.size())
        fail(path, Message(Msg::npy_shape_values, {shape_to_string(t.shape), t.size()}));
    std::string bytes = npy_preamble(t.shape, path);
    bytes.append(reinterpret_cast<const char*>(t.ptr()), t.data.size() * sizeof(float));
    try {
        write_file_atomic(path, bytes.data(), bytes.size());
    } catch (const std::runtime_error& e) {
        throw NpyError(as_message(e));
    }
}

namespace {

// CRC-32 (IEEE 802.3, reflected, as zip wants it), table-driven.
uint32_t crc32(const char* data, size_t n) {
    static const auto table = [] {
        std::array<uint32_t, 256> t{};
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) c = table[(c ^ uint8_t(data[i])) & 0xFFu] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

void put16(std::string& out, uint32_t v) {
    out += char(v & 0xFF);
    out += char((v >> 8) & 0xFF);
}
void put32(std::string& out, uint32_t v) {
    put16(out, v & 0xFFFF);
    put16(out, v >> 16);
}

}  // namespace

void write_npz(const std::string& path, const std::vector<std::pair<std::string, const Tensor*>>& arrays) {
    std::string zip, central;
    const uint32_t dosDate = (0u << 9) | (1u << 5) | 1u;  // 1980-01-01, the zip epoch: reproducible files
    for (const auto& [name, t] : arrays) {
        if (numel(t->shape) != t->size())
            fail(path, Message(Msg::npy_shape_values, {shape_to_string(t->shape), t->size()}));
        std::string npy = npy_preamble(t->shape, path);
        npy.append(reinterpret_cast<const char*>(t->ptr()), t->data.size() * sizeof(float));
        const std::string entry = name + ".npy";
        const uint32_t crc = crc32(npy.data(), npy.size());
        if (zip.size() + npy.size() + entry.size() + 30 >= 0xFFFFFFFFull)
            throw NpyError(Message::plain(path + ": the archive would be 4 GiB or more (a .npz needs ZIP64 then); "
                                                 "export fewer tensors"));
        const uint32_t offset = uint32_t(zip.size());
        // Local file header, then the data.
        put32(zip, 0x04034b50u);
        put16(zip, 20);  // version needed: 2.0
        put16(zip, 0);   // flags
        put16(zip, 0);   // stored
        put16(zip, 0);   // time
        put16(zip, dosDate);
        put32(zip, crc);
        put32(zip, uint32_t(npy.size()));
        put32(zip, uint32_t(npy.size()));
        put16(zip, uint32_t(entry.size()));
        put16(zip, 0);
        zip += entry;
        zip += npy;
        // Its central directory record.
        put32(central, 0x02014b50u);
        put16(central, 20);  // made by: 2.0
        put16(central, 20);
        put16(central, 0);
        put16(central, 0);
        put16(central, 0);
        put16(central, dosDate);
        put32(central, crc);
        put32(central, uint32_t(npy.size()));
        put32(central, uint32_t(npy.size()));
        put16(central, uint32_t(entry.size()));
        put16(central, 0);  // extra
        put16(central, 0);  // comment
        put16(central, 0);  // disk
        put16(central, 0);  // internal attributes
        put32(central, 0);  // external attributes
        put32(central, offset);
        central += entry;
    }
    if (arrays.size() > 0xFFFF || zip.size() + central.size() >= 0xFFFFFFFFull)
        throw NpyError(Message::plain(path + ": too many or too large tensors for a .npz without ZIP64"));
    const uint32_t centralAt = uint32_t(zip.size());
    zip += central;
    put32(zip, 0x06054b50u);  // end of central directory
    put16(zip, 0);
    put16(zip, 0);
    put16(zip, uint32_t(arrays.size()));
    put16(zip, uint32_t(arrays.size()));
    put32(zip, uint32_t(central.size()));
    put32(zip, centralAt);
    put16(zip, 0);
    try {
        write_file_atomic(path, zip.data(), zip.size());
    } catch (const std::runtime_error& e) {
        throw NpyError(as_message(e));
    }
}

Tensor read_npy(const std::string& path) {
    std::vector<uint8_t> bytes;
    try {
        bytes = read_file_bytes(path);
    } catch (const std::runtime_error& e) {
        throw NpyError(as_message(e));
    }
    return parse_npy(bytes, path);
}

Tensor parse_npy(const std::vector<uint8_t>& bytes, const std::string& path) {
    const auto [header_text, data_start] = locate_header(bytes, path);
    const NpyHeader header = HeaderParser(header_text, path).parse();
    const size_t element_size = element_size_of(header.descr, path);
    if (header.fortran_order)
        fail(path, Message(Msg::npy_fortran_order));

    const auto expected = checked_byte_size(header.shape, element_size);
    const size_t found = bytes.size() - data_start;
    if (!expected) fail(path, Message(Msg::npy_shape_too_large, {shape_to_string(header.shape)}));
    if (*expected != found)
        fail(path, Message(found < *expected ? Msg::npy_data_truncated : Msg::npy_data_size,
                           {found, shape_to_string(header.shape), header.descr, *expected}));
    const size_t count = static_cast<size_t>(*expected / element_size);
    return Tensor(header.shape, decode(bytes.data() + data_start, count, element_size));
}

std::string tensor_to_csv(const Tensor& t) {
    std::string out;
    if (t.rank() <= 1) {
        append_row(out, t.ptr(), t.size());
        return out;
    }
    if (t.rank() >= 3) out += "# shape " + shape_to_string(t.shape) + "\n";
    const int64_t cols = t.shape.back();
    const int64_t rows = numel(Shape(t.shape.begin(), t.shape.end() - 1));
    for (int64_t r = 0; r < rows; ++r) append_row(out, t.ptr() + r * cols, cols);
    return out;
}

}  // namespace stepformer
