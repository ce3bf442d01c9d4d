// Tensors given on the command line: the layer lab's inputs, masks and output gradient, as
// NumPy saves them (np.save) or as one tensor of a safetensors file (FILE.safetensors:NAME).
#pragma once

#include <string>

#include "stepformer/tensor.h"

namespace cli {

// What the numbers were stored as: PyTorch gives a mask a different meaning by its dtype (a
// bool attn_mask hides, a float one is added), so the reader keeps it.
enum class StoredKind { Float, Bool, Int };

struct InputTensor {
    stepformer::Tensor value;  // converted to float32 (bool: 0/1)
    StoredKind kind = StoredKind::Float;
    std::string dtype;  // as stored: "<f4", "|b1", "<i8", "F32", "BOOL", ...
};

// `spec` is a .npy file (float32/64, bool, (u)int8..64, C order) or FILE.safetensors:NAME.
// Throws std::runtime_error naming the file and the problem.
InputTensor read_input_tensor(const std::string& spec);

}  // namespace cli
