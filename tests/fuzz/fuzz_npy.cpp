// libFuzzer target: a NumPy .npy file from outside. Any bytes must end in a tensor whose data
// fills its shape or in an NpyError naming the problem.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "stepformer/npy.h"

using namespace stepformer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const Tensor t = parse_npy(std::vector<uint8_t>(data, data + size), "fuzz.npy");
        if (int64_t(t.data.size()) != numel(t.shape)) __builtin_trap();
    } catch (const NpyError&) {
    }
    return 0;
}
