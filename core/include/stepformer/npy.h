// Export of tensors for outside tools: NumPy .npy files (np.load reads them) and CSV.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "stepformer/message.h"
#include "stepformer/tensor.h"

namespace stepformer {

struct NpyError : Error {
    using Error::Error;
};

// NumPy format v1.0, dtype '<f4', C order, header padded so the data starts at a
// multiple of 64 bytes. Written atomically (see atomic_file.h). Throws NpyError.
void write_npy(const std::string& path, const Tensor& t);

// NumPy's .npz: a zip archive (stored, not compressed) of one .npy per array, "<name>.npy", in the
// order given; np.load(path)[name] reads each. Written atomically. Throws NpyError (a shape that
// does not match its values; an archive of 4 GiB or more, which would need ZIP64).
void write_npz(const std::string& path, const std::vector<std::pair<std::string, const Tensor*>>& arrays);

// Reads '<f4' and '<f8' (converted to float32) C-order arrays, format v1.0 to v3.0.
// Anything else (other dtypes, big-endian, Fortran order, truncated data) is an
// NpyError naming the file and the problem.
Tensor read_npy(const std::string& path);
// The same from the file's bytes; `path` names it in the messages.
Tensor parse_npy(const std::vector<uint8_t>& bytes, const std::string& path);

// 1-D: one line. 2-D: one line per row. Rank >= 3: the leading dimensions are
// flattened into rows, preceded by a "# shape [a, b, c]" comment line. A scalar is
// one value. Values use %.9g, enough digits for a float32 to round-trip exactly.
// Every line ends with '\n'.
std::string tensor_to_csv(const Tensor& t);

}  // namespace stepformer
