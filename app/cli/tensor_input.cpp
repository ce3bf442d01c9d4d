#include "tensor_input.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "stepformer/npy.h"
#include "stepformer/safetensors.h"

namespace cli {

namespace {

using stepformer::Shape;
using stepformer::Tensor;

[[noreturn]] void fail(const std::string& path, const std::string& why) { throw std::runtime_error(path + ": " + why); }

std::vector<uint8_t> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(path, std::string("cannot open it: ") + std::strerror(errno));
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The value of `key` in the header dict np.save writes ({'descr': '|b1', 'fortran_order':
// False, 'shape': (3, 4), }), as the text up to the next ',' at depth 0.
std::string header_value(const std::string& header, const std::string& key, const std::string& path) {
    size_t at = header.find("'" + key + "'");
    if (at == std::string::npos) at = header.find("\"" + key + "\"");
    if (at == std::string::npos) fail(path, "malformed .npy header (no '" + key + "'): " + header);
    at = header.find(':', at);
    if (at == std::string::npos) fail(path, "malformed .npy header: " + header);
    int depth = 0;
    size_t end = at + 1;
    for (; end < header.size(); ++end) {
        const char c = header[end];
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if ((c == ',' && depth == 0) || c == '}') break;
    }
    std::string v = header.substr(at + 1, end - at - 1);
    const auto first = v.find_first_not_of(" \t"), last = v.find_last_not_of(" \t");
    return first == std::string::npos ? "" : v.substr(first, last - first + 1);
}

Shape parse_shape(const std::string& tuple, const std::string& path) {
    if (tuple.size() < 2 || tuple.front() != '(' || tuple.back() != ')') fail(path, "malformed .npy shape " + tuple);
    Shape s;
    std::string num;
    for (size_t i = 1; i < tuple.size(); ++i) {
        const char c = tuple[i];
        if (c >= '0' && c <= '9') {
            num += c;
            if (num.size() > 12) fail(path, "a dimension of .npy shape " + tuple + " is too large");
        } else if (c == ',' || c == ')') {
            if (!num.empty()) s.push_back(std::stoll(num));
            num.clear();
        } else if (c != ' ' && c != 'L') {
            fail(path, "malformed .npy shape " + tuple);
        }
    }
    return s;
}

// Bool and integer arrays, which the core's reader (float only) leaves out: masks are saved so.
InputTensor read_npy_ints(const std::vector<uint8_t>& bytes, size_t data_at, const std::string& header,
                          const std::string& descr, const std::string& path) {
    const char order = descr[0], kind = descr[1];
    const int size = std::atoi(descr.c_str() + 2);
    if (order == '>' && size > 1) fail(path, "big-endian data ('" + descr + "') is not supported");
    if (header_value(header, "fortran_order", path) != "False")
        fail(path, "Fortran-order arrays are not supported (save with np.ascontiguousarray)");
    const Shape shape = parse_shape(header_value(header, "shape", path), path);
    // Counted against the file's size as it grows, so that no shape can overflow the count.
    const uint64_t have = (bytes.size() - data_at) / uint64_t(size);
    uint64_t n = 1;
    for (int64_t d : shape) {
        if (d != 0 && n > have / uint64_t(d) + 1) n = have + 1;  // already more than the file holds
        else n *= uint64_t(d);
    }
    if (n > have)
        fail(path, "truncated: shape " + stepformer::shape_to_string(shape) + " of '" + descr + "' needs more than the " +
                       std::to_string(bytes.size() - data_at) + " bytes of data the file has");
    if (n == 0) fail(path, "shape " + stepformer::shape_to_string(shape) + " holds no numbers");
    InputTensor out;
    out.dtype = descr;
    out.kind = kind == 'b' ? StoredKind::Bool : StoredKind::Int;
    out.value = Tensor(shape);
    const uint8_t* p = bytes.data() + data_at;
    for (uint64_t i = 0; i < n; ++i, p += size) {
        int64_t v = 0;
        if (kind == 'u') {
            uint64_t u = 0;
            std::memcpy(&u, p, size_t(size));  // little-endian: the low bytes first
            v = static_cast<int64_t>(u);
        } else {
            std::memcpy(&v, p, size_t(size));
            if (size < 8 && (p[size - 1] & 0x80)) v |= ~int64_t(0) << (8 * size);  // sign-extend
        }
        out.value.data[size_t(i)] = static_cast<float>(v);
    }
    return out;
}

InputTensor read_npy_file(const std::string& path) {
    const std::vector<uint8_t> bytes = read_bytes(path);
    if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
        fail(path, "not a .npy file (save the array with np.save, or name a tensor of a safetensors file as "
                   "FILE.safetensors:NAME)");
    const int major = bytes[6];
    const size_t len_size = major == 1 ? 2 : 4, header_at = 8 + len_size;
    if (bytes.size() < header_at) fail(path, "truncated .npy header");
    size_t header_len = 0;
    for (size_t i = 0; i < len_size; ++i) header_len |= size_t(bytes[8 + i]) << (8 * i);
    if (bytes.size() < header_at + header_len) fail(path, "truncated .npy header");
    const std::string header(bytes.begin() + long(header_at), bytes.begin() + long(header_at + header_len));
    std::string descr = header_value(header, "descr", path);
    if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"')) descr = descr.substr(1, descr.size() - 2);
    const bool ints = descr.size() >= 3 && (descr[0] == '<' || descr[0] == '|' || descr[0] == '=' || descr[0] == '>') &&
                      (descr[1] == 'b' || descr[1] == 'i' || descr[1] == 'u') &&
                      (descr.substr(2) == "1" || descr.substr(2) == "2" || descr.substr(2) == "4" ||
                       descr.substr(2) == "8");
    if (ints) return read_npy_ints(bytes, header_at + header_len, header, descr, path);
    InputTensor out;
    out.value = stepformer::parse_npy(bytes, path);  // floats; anything else is its error, naming the dtype
    out.dtype = descr;
    return out;
}

InputTensor read_safetensors_entry(const std::string& file, const std::string& name, const std::string& spec) {
    const auto f = stepformer::read_safetensors(file);
    const stepformer::StoredTensor* t = f.find(name);
    if (!t) {
        std::string names;
        for (const auto& s : f.tensors) names += (names.empty() ? "" : ", ") + s.name;
        fail(spec, "'" + file + "' has no tensor '" + name + "' (it has: " + names + ")");
    }
    InputTensor out;
    out.value = t->value;
    out.dtype = stepformer::dtype_name(t->dtype);
    using stepformer::DType;
    switch (t->dtype) {
        case DType::BOOL: out.kind = StoredKind::Bool; break;
        case DType::I64: case DType::I32: case DType::I16: case DType::I8: case DType::U8:
            out.kind = StoredKind::Int;
            break;
        default: out.kind = StoredKind::Float;
    }
    return out;
}

}  // namespace

InputTensor read_input_tensor(const std::string& spec) {
    const std::string ext = ".safetensors:";
    const size_t at = spec.rfind(ext);
    if (at != std::string::npos && at + ext.size() < spec.size())
        return read_safetensors_entry(spec.substr(0, at + ext.size() - 1), spec.substr(at + ext.size()), spec);
    return read_npy_file(spec);
}

}  // namespace cli
