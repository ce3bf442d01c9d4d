#include "stepformer/safetensors.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "stepformer/atomic_file.h"

namespace stepformer {

// The format is little-endian; raw memcpy of element bytes is only valid on such hosts.
static_assert(std::endian::native == std::endian::little, "safetensors I/O assumes a little-endian host");

namespace {

using json = nlohmann::json;

constexpr uint64_t kMaxHeaderBytes = 100ull * 1000 * 1000;  // 100 MB: far beyond any real header
constexpr const char* kMetadataKey = "__metadata__";

struct DTypeInfo {
    DType dtype;
    const char* name;
    size_t size;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::F64, "F64", 8}, {DType::F32, "F32", 4}, {DType::F16, "F16", 2}, {DType::BF16, "BF16", 2},
    {DType::I64, "I64", 8}, {DType::I32, "I32", 4}, {DType::I16, "I16", 2}, {DType::I8, "I8", 1},
    {DType::U8, "U8", 1},   {DType::BOOL, "BOOL", 1},
};

const DTypeInfo& info(DType dtype) {
    for (const auto& d : kDTypes)
        if (d.dtype == dtype) return d;
    throw SafetensorsError("invalid DType value " + std::to_string(static_cast<int>(dtype)));
}

// "<file>: <problem>"
[[noreturn]] void fail(const MessageArg& what, Message problem) {
    throw SafetensorsError(Message(Msg::context, {what, std::move(problem)}));
}

// "tensor '<name>': <problem>"
Message tensor_problem(const std::string& name, Msg problem, std::vector<MessageArg> args = {}) {
    return Message(Msg::st_tensor, {name, Message(problem, std::move(args))});
}

std::string offsets_to_string(uint64_t begin, uint64_t end) {
    // Appended piecewise: GCC 12 -O3 warns falsely (-Wrestrict) on "[" + std::string.
    std::string s = "[";
    s += std::to_string(begin);
    s += ", ";
    s += std::to_string(end);
    s += ']';
    return s;
}

// ---------------------------------------------------------------------------
// Reading

// A header entry after validation, before its bytes are decoded.
struct Entry {
    std::string name;
    DType dtype;
    Shape shape;
    uint64_t begin;
    uint64_t end;
};

struct Sections {
    std::string_view header;
    const uint8_t* data;
    uint64_t data_size;
};

Sections split_sections(const std::vector<uint8_t>& bytes, const std::string& what) {
    // torch.save's files: a zip of pickles (since 1.6) or a bare pickle (protocol 2-5) before it.
    if (bytes.size() >= 4 && bytes[0] == 'P' && bytes[1] == 'K' && bytes[2] == 3 && bytes[3] == 4)
        fail(what, Message(Msg::st_pytorch_zip));
    if (bytes.size() >= 2 && bytes[0] == 0x80 && bytes[1] >= 2 && bytes[1] <= 5)
        fail(what, Message(Msg::st_pytorch_pickle));
    if (bytes.size() < 8)
        fail(what, Message(Msg::st_too_short, {bytes.size()}));
    uint64_t header_size = 0;
    std::memcpy(&header_size, bytes.data(), 8);
    const uint64_t after_prefix = bytes.size() - 8;
    // Checked before the size comparison so garbage (e.g. a text file) gets the clearer message.
    if (header_size > kMaxHeaderBytes)
        fail(what, Message(Msg::st_header_absurd, {header_size}));
    if (header_size > after_prefix) fail(what, Message(Msg::st_header_exceeds, {header_size, after_prefix}));
    const auto* header_begin = reinterpret_cast<const char*>(bytes.data() + 8);
    return {std::string_view(header_begin, header_size), bytes.data() + 8 + header_size, after_prefix - header_size};
}

// nlohmann::json keeps only the last of duplicate keys, so duplicates among the
// top-level names are caught while parsing, before they are silently merged.
json parse_header_json(std::string_view text, const std::string& what) {
    std::set<std::string> seen;
    std::string duplicate;
    auto note_keys = [&](int depth, json::parse_event_t event, json& parsed) {
        if (event == json::parse_event_t::key && depth == 1) {
            const auto& key = parsed.get_ref<const std::string&>();
            if (!seen.insert(key).second && duplicate.empty()) duplicate = key;
        }
        return true;
    };
    json header;
    try {
        header = json::parse(text.begin(), text.end(), note_keys);
    } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e400
        fail(what, Message(Msg::st_header_not_json, {e.what()}));
    }
    if (!header.is_object()) fail(what, Message(Msg::st_header_not_object, {header.type_name()}));
    if (!duplicate.empty()) fail(what, Message(Msg::st_duplicate_name, {duplicate}));
    return header;
}

std::map<std::string, std::string> parse_metadata(const json& value, const std::string& what) {
    if (!value.is_object()) fail(what, Message(Msg::st_metadata_not_object, {value.type_name()}));
    std::map<std::string, std::string> metadata;
    for (const auto& [key, v] : value.items()) {
        if (!v.is_string())
            fail(what, Message(Msg::st_metadata_not_string, {key, v.type_name()}));
        metadata.emplace(key, v.get<std::string>());
    }
    return metadata;
}

const json& require_field(const json& entry, const char* field, const std::string& name, const std::string& what) {
    const auto it = entry.find(field);
    if (it == entry.end()) fail(what, tensor_problem(name, Msg::st_missing_field, {field}));
    return *it;
}

DType parse_dtype(const json& value, const std::string& name, const std::string& what) {
    if (!value.is_string()) fail(what, tensor_problem(name, Msg::st_dtype_not_string, {value.type_name()}));
    const auto& text = value.get_ref<const std::string&>();
    const auto dtype = dtype_from_name(text);
    if (!dtype)
        fail(what, tensor_problem(name, Msg::st_unknown_dtype, {text}));
    return *dtype;
}

Shape parse_shape(const json& value, const std::string& name, const std::string& what) {
    if (!value.is_array()) fail(what, tensor_problem(name, Msg::st_shape_not_list, {value.type_name()}));
    Shape shape;
    for (const auto& dim : value) {
        if (!dim.is_number_integer()) fail(what, tensor_problem(name, Msg::st_shape_not_integer, {dim.dump()}));
        if (dim.is_number_unsigned() && dim.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            fail(what, tensor_problem(name, Msg::st_dimension_too_large, {dim.dump()}));
        const auto d = dim.get<int64_t>();
        if (d < 0) fail(what, tensor_problem(name, Msg::st_negative_dimension, {d, value.dump()}));
        shape.push_back(d);
    }
    return shape;
}

std::pair<uint64_t, uint64_t> parse_offsets(const json& value, const std::string& name, const std::string& what) {
    // nlohmann parses non-negative integer literals as unsigned, negative ones as signed.
    const bool ok = value.is_array() && value.size() == 2 && value[0].is_number_unsigned() && value[1].is_number_unsigned();
    if (!ok) fail(what, tensor_problem(name, Msg::st_offsets_not_pair, {value.dump()}));
    return {value[0].get<uint64_t>(), value[1].get<uint64_t>()};
}

// Element count times element size, or nullopt on overflow (a hostile shape).
std::optional<uint64_t> byte_size(const Shape& shape, size_t element_size) {
    uint64_t bytes = element_size;
    for (int64_t d : shape)
        if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes)) return std::nullopt;
    return bytes;
}

Entry parse_entry(const std::string& name, const json& value, uint64_t data_size, const std::string& what) {
    if (!value.is_object())
        fail(what, tensor_problem(name, Msg::st_entry_not_object, {value.type_name()}));
    Entry e{name, parse_dtype(require_field(value, "dtype", name, what), name, what),
            parse_shape(require_field(value, "shape", name, what), name, what), 0, 0};
    std::tie(e.begin, e.end) = parse_offsets(require_field(value, "data_offsets", name, what), name, what);

    const std::string span = offsets_to_string(e.begin, e.end);
    if (e.begin > e.end) fail(what, tensor_problem(name, Msg::st_offsets_reversed, {span}));
    if (e.end > data_size) fail(what, tensor_problem(name, Msg::st_offsets_out_of_range, {span, data_size}));
    const size_t elem = dtype_size(e.dtype);
    const auto expected = byte_size(e.shape, elem);
    // "tensor '<name>' (<dtype>, shape <shape>): <problem>"
    const auto described = [&](Message problem) {
        return Message(Msg::st_tensor_described, {name, dtype_name(e.dtype), shape_to_string(e.shape), std::move(problem)});
    };
    if (!expected) fail(what, described(Message(Msg::st_shape_too_large)));
    if (*expected != e.end - e.begin)
        fail(what, described(Message(Msg::st_byte_size_mismatch, {*expected, *expected / elem, elem, e.end - e.begin, span})));
    return e;
}

// Expects entries sorted by begin. Empty tensors occupy no bytes and cannot overlap.
void check_no_overlap(const std::vector<Entry>& entries, const MessageArg& what) {
    const Entry* furthest = nullptr;  // the non-empty entry reaching furthest so far
    for (const auto& e : entries) {
        if (e.begin == e.end) continue;
        if (furthest && e.begin < furthest->end)
            fail(what, Message(Msg::st_overlap, {furthest->name, offsets_to_string(furthest->begin, furthest->end), e.name,
                                                 offsets_to_string(e.begin, e.end)}));
        if (!furthest || e.end > furthest->end) furthest = &e;
    }
}

float half_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu;
    const uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
        const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -magnitude : magnitude;
    }
    if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));  // inf / NaN
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));      // rebias 15 -> 127
}

// memcpy per element: the data section gives no alignment guarantee.
template <typename T, typename Convert>
void decode_each(const uint8_t* src, float* out, size_t count, Convert convert) {
    for (size_t i = 0; i < count; ++i) {
        T v;
        std::memcpy(&v, src + i * sizeof(T), sizeof(T));
        out[i] = convert(v);
    }
}

template <typename T>
void decode_cast(const uint8_t* src, float* out, size_t count) {
    decode_each<T>(src, out, count, [](T v) { return static_cast<float>(v); });
}

std::vector<float> decode(DType dtype, const uint8_t* src, size_t count) {
    std::vector<float> out(count);
    float* dst = out.data();
    switch (dtype) {
        case DType::F32: if (count) std::memcpy(dst, src, count * 4); break;
        case DType::F64: decode_cast<double>(src, dst, count); break;
        case DType::F16: decode_each<uint16_t>(src, dst, count, half_to_float); break;
        case DType::BF16:  // bfloat16 is the top half of a float32
            decode_each<uint16_t>(src, dst, count, [](uint16_t v) { return std::bit_cast<float>(uint32_t{v} << 16); });
            break;
        case DType::I64: decode_cast<int64_t>(src, dst, count); break;
        case DType::I32: decode_cast<int32_t>(src, dst, count); break;
        case DType::I16: decode_cast<int16_t>(src, dst, count); break;
        case DType::I8: decode_cast<int8_t>(src, dst, count); break;
        case DType::U8: decode_cast<uint8_t>(src, dst, count); break;
        case DType::BOOL: decode_each<uint8_t>(src, dst, count, [](uint8_t v) { return v ? 1.0f : 0.0f; }); break;
    }
    return out;
}

// ---------------------------------------------------------------------------
// Writing

void validate_for_writing(const std::vector<TensorToWrite>& tensors, const MessageArg& what) {
    std::set<std::string> names;
    for (size_t i = 0; i < tensors.size(); ++i) {
        const auto& t = tensors[i];
        if (t.name.empty()) fail(what, Message(Msg::st_empty_tensor_name, {i}));
        if (t.name == kMetadataKey) fail(what, Message(Msg::st_reserved_name));
        if (!names.insert(t.name).second) fail(what, Message(Msg::st_duplicate_tensor, {t.name}));
        if (!t.tensor) fail(what, Message(Msg::st_tensor, {t.name, "null tensor pointer"}));  // a caller's bug: English
        const Shape& shape = t.tensor->shape;
        const bool negative_dim = std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; });
        if (negative_dim || numel(shape) != t.tensor->size())
            fail(what, tensor_problem(t.name, Msg::st_shape_values, {shape_to_string(t.tensor->shape), t.tensor->size()}));
    }
}

// Integer dtypes store round(v); a value that is not finite or does not fit is a
// caller bug (e.g. a NaN token id), so it is reported rather than clamped.
template <typename Int>
void encode_integers(const TensorToWrite& t, double lo, double hi, std::vector<uint8_t>& out, const MessageArg& what) {
    const auto& data = t.tensor->data;
    for (size_t i = 0; i < data.size(); ++i) {
        const double r = std::round(static_cast<double>(data[i]));
        if (!(r >= lo && r <= hi))  // also false for NaN
            fail(what, tensor_problem(t.name, Msg::st_value_does_not_fit, {std::to_string(data[i]), i, dtype_name(t.dtype)}));
        const Int v = static_cast<Int>(r);
        const auto* p = reinterpret_cast<const uint8_t*>(&v);
        out.insert(out.end(), p, p + sizeof(Int));
    }
}

void encode(const TensorToWrite& t, std::vector<uint8_t>& out, const MessageArg& what) {
    const auto& data = t.tensor->data;
    switch (t.dtype) {
        case DType::F32: {
            const auto* p = reinterpret_cast<const uint8_t*>(data.data());
            out.insert(out.end(), p, p + data.size() * sizeof(float));
            return;
        }
        case DType::U8: return encode_integers<uint8_t>(t, 0, 255, out, what);
        case DType::BOOL: return encode_integers<uint8_t>(t, 0, 1, out, what);
        // 2^63 itself does not fit; the largest double below it does.
        case DType::I64: return encode_integers<int64_t>(t, -0x1p63, std::nextafter(0x1p63, 0.0), out, what);
        default:
            fail(what, tensor_problem(t.name, Msg::st_cannot_write_dtype, {dtype_name(t.dtype)}));
    }
}

std::vector<uint8_t> serialize(const std::vector<TensorToWrite>& tensors, const std::map<std::string, std::string>& metadata,
                               const MessageArg& what) {
    validate_for_writing(tensors, what);

    // ordered_json keeps the header in writing order, which makes files easier to eyeball.
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty()) header[kMetadataKey] = metadata;
    // The offsets follow from the sizes, so the data is encoded once, straight into the output
    // buffer, allocated at its final size: a model's file is written with one copy of its data
    // in memory (not a growing buffer and then another).
    uint64_t data_size = 0;
    for (const auto& t : tensors) {
        const uint64_t begin = data_size;
        data_size += uint64_t(t.tensor->data.size()) * dtype_size(t.dtype);
        header[t.name] = {{"dtype", dtype_name(t.dtype)}, {"shape", t.tensor->shape}, {"data_offsets", {begin, data_size}}};
    }

    std::string text;
    try {
        text = header.dump();
    } catch (const nlohmann::json::exception& e) {  // invalid UTF-8 in a name or metadata
        fail(what, Message(Msg::st_cannot_encode_header, {e.what()}));
    }
    text.append((8 - text.size() % 8) % 8, ' ');  // keeps the data section 8-byte aligned

    const uint64_t header_size = text.size();
    std::vector<uint8_t> out;
    out.reserve(8 + text.size() + data_size);
    out.resize(8 + text.size());
    std::memcpy(out.data(), &header_size, 8);
    std::memcpy(out.data() + 8, text.data(), text.size());
    for (const auto& t : tensors) encode(t, out, what);
    if (out.size() != 8 + text.size() + data_size)
        fail(what, Message::plain("internal error: the data does not match its offsets"));
    return out;
}

}  // namespace

std::string dtype_name(DType dtype) { return info(dtype).name; }
size_t dtype_size(DType dtype) { return info(dtype).size; }

std::optional<DType> dtype_from_name(const std::string& name) {
    for (const auto& d : kDTypes)
        if (name == d.name) return d.dtype;
    return std::nullopt;
}

const StoredTensor* SafetensorsFile::find(const std::string& name) const {
    for (const auto& t : tensors)
        if (t.name == name) return &t;
    return nullptr;
}

SafetensorsFile parse_safetensors(const std::vector<uint8_t>& bytes, const std::string& what) {
    const Sections sections = split_sections(bytes, what);
    const json header = parse_header_json(sections.header, what);

    SafetensorsFile file;
    std::vector<Entry> entries;
    for (const auto& [name, value] : header.items()) {
        if (name == kMetadataKey)
            file.metadata = parse_metadata(value, what);
        else
            entries.push_back(parse_entry(name, value, sections.data_size, what));
    }
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
    check_no_overlap(entries, what);

    file.tensors.reserve(entries.size());
    for (auto& e : entries) {
        const size_t count = static_cast<size_t>(numel(e.shape));
        Tensor value(e.shape, decode(e.dtype, sections.data + e.begin, count));
        file.tensors.push_back({std::move(e.name), e.dtype, std::move(e.shape), std::move(value)});
    }
    return file;
}

SafetensorsFile read_safetensors(const std::string& path) {
    std::vector<uint8_t> bytes;
    try {
        bytes = read_file_bytes(path);
    } catch (const std::runtime_error& e) {
        throw SafetensorsError(as_message(e));
    }
    return parse_safetensors(bytes, path);
}

std::vector<uint8_t> serialize_safetensors(const std::vector<TensorToWrite>& tensors,
                                           const std::map<std::string, std::string>& metadata) {
    return serialize(tensors, metadata, Message(Msg::st_writer));
}

void write_safetensors(const std::string& path, const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata) {
    const std::vector<uint8_t> bytes = serialize(tensors, metadata, path);
    try {
        write_file_atomic(path, bytes.data(), bytes.size());
    } catch (const std::runtime_error& e) {
        throw SafetensorsError(as_message(e));
    }
}

}  // namespace stepformer
