// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), the
// counter-based generator behind dropout: the value for element i is a pure function of
// (seed, offset, i), so a GPU thread computes its own element without a shared state and every
// backend draws the same mask. Header-only: the GLSL kernel of a GPU backend repeats these lines.
#pragma once

#include <array>
#include <cstdint>

namespace stepformer::philox {

using Block = std::array<uint32_t, 4>;

inline void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
    const uint64_t p = uint64_t(a) * uint64_t(b);
    hi = uint32_t(p >> 32);
    lo = uint32_t(p);
}

// Ten rounds of the Philox4x32 bijection of `ctr` under `key`.
inline Block philox4x32_10(Block ctr, std::array<uint32_t, 2> key) {
    constexpr uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u, W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
    for (int round = 0; round < 10; ++round) {
        uint32_t hi0, lo0, hi1, lo1;
        mulhilo(M0, ctr[0], hi0, lo0);
        mulhilo(M1, ctr[2], hi1, lo1);
        ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
        key[0] += W0;
        key[1] += W1;
    }
    return ctr;
}

// The stream (seed, offset): block j is Philox of the counter (j, offset) under the key seed;
// element i is word i % 4 of block i / 4.
inline Block block(uint64_t seed, uint64_t offset, uint64_t j) {
    return philox4x32_10({uint32_t(j), uint32_t(j >> 32), uint32_t(offset), uint32_t(offset >> 32)},
                         {uint32_t(seed), uint32_t(seed >> 32)});
}

// A word as a float in [0, 1): its top 24 bits, exactly representable.
inline float uniform(uint32_t word) { return float(word >> 8) * (1.0f / 16777216.0f); }

}  // namespace stepformer::philox
