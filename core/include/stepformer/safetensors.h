// Reader and writer for the Hugging Face safetensors format, the checkpoint format.
//
// Layout: an 8-byte little-endian u64 N, N bytes of UTF-8 JSON header, then the data
// section. The header maps each tensor name to {"dtype", "shape", "data_offsets":
// [begin, end)} (offsets relative to the data section) plus an optional
// "__metadata__" object of string -> string.
//
// Files come from outside (other tools, other people), so reading validates every
// field and reports problems as SafetensorsError naming the file and the tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "stepformer/message.h"
#include "stepformer/tensor.h"

namespace stepformer {

enum class DType { F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL };

std::string dtype_name(DType dtype);                          // "F32", "BF16", ...
size_t dtype_size(DType dtype);                               // bytes per element
std::optional<DType> dtype_from_name(const std::string& name);  // nullopt if unknown

struct SafetensorsError : Error {
    using Error::Error;
};

struct StoredTensor {
    std::string name;
    DType dtype;   // as stored in the file
    Shape shape;   // as stored; [] is a scalar holding one element
    Tensor value;  // converted to float32; value.shape == shape
};

struct SafetensorsFile {
    std::vector<StoredTensor> tensors;            // in the order of their data offsets
    std::map<std::string, std::string> metadata;  // "__metadata__"

    const StoredTensor* find(const std::string& name) const;  // nullptr if absent
};

// Every dtype above is read and converted to float32. Throws SafetensorsError.
SafetensorsFile read_safetensors(const std::string& path);
// `what_for_messages` (usually the path) prefixes every error message.
SafetensorsFile parse_safetensors(const std::vector<uint8_t>& bytes, const std::string& what_for_messages);

// dtype may be F32, I64, U8 or BOOL. Integer dtypes store the rounded value, which
// must be finite and fit (U8: 0..255, BOOL: 0 or 1); anything else is an error.
struct TensorToWrite {
    std::string name;
    const Tensor* tensor;
    DType dtype = DType::F32;
};

// Tensors are laid out in the given order; names must be non-empty, unique and not
// "__metadata__". The header is space-padded to a multiple of 8 bytes so the data
// section starts 8-byte aligned. Writes atomically (see atomic_file.h): an
// existing file survives a failed write. Throws SafetensorsError.
void write_safetensors(const std::string& path, const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata = {});
std::vector<uint8_t> serialize_safetensors(const std::vector<TensorToWrite>& tensors,
                                           const std::map<std::string, std::string>& metadata);

}  // namespace stepformer
