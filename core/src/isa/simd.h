// Private to the kernel sets (isa.h): the few SIMD operations the streaming kernels need, as a
// lanes type (AVX-512, AVX2 or plain floats, chosen by the flags this set is compiled with) so one
// kernel body serves every set; the scalar type also handles the columns left over after the last
// full vector. In the set's namespace: these inline functions differ from set to set.
#pragma once

#include "isa/isa.h"

#include <cstdint>
#include <cstring>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace stepformer::cpu::STEPFORMER_ISA {

struct ScalarLanes {
    using V = float;
    static constexpr int width = 1;
    static V load(const float* p) { return *p; }
    static void store(float* p, V v) { *p = v; }
    static V zero() { return 0.0f; }
    static V fmadd(float a, V b, V c) { return a * b + c; }
    static V add(V a, V b) { return a + b; }
    static V fmaddv(V a, V b, V c) { return a * b + c; }
    static float sum(V v) { return v; }
};
#if defined(__AVX512F__)
struct VectorLanes {
    using V = __m512;
    static constexpr int width = 16;
    static V load(const float* p) { return _mm512_loadu_ps(p); }
    static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
    static V zero() { return _mm512_setzero_ps(); }
    static V fmadd(float a, V b, V c) { return _mm512_fmadd_ps(_mm512_set1_ps(a), b, c); }
    static V add(V a, V b) { return _mm512_add_ps(a, b); }
    static V fmaddv(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
    // A tree of adds in registers: lane by lane through memory was a chain of 16 dependent adds,
    // half the forward kernel's time at 512 inputs (24 sums per tile of 32 x 24 products).
    static float sum(V v) {
        // Vector-extension shuffles: GCC 12's 512-bit extract intrinsics warn (-Wuninitialized) on
        // their own undefined operand.
        const __m256 h = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7) +
                         __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);            // 8 pairs
        const __m128 f = __builtin_shufflevector(h, h, 0, 1, 2, 3) + __builtin_shufflevector(h, h, 4, 5, 6, 7);  // 4
        const __m128 q = f + __builtin_shufflevector(f, f, 2, 3, 2, 3);                          // 2
        return q[0] + q[1];
    }
};
constexpr int kUpdateRows = 8;     // 8 weight rows + 8 gradient rows + 4 + 2 = 22 of 32 zmm registers
// The forward tile, 5 x 5 sums + 5 weight rows + 1 = 31 of 32: on the models' shapes (10 tokens, 512
// and 2048 inputs) it measured 35 / 124 / 115 us against 6 x 4's 57 / 163 / 158 and 4 x 5's, 4 x 6's,
// 3 x 8's and 2 x 10's 54-68 / 194-249 / 207-289 (stepformer_gemm_bench, Linear/tutorial_*).
constexpr int kForwardRows = 5;
constexpr int kForwardTokens = 5;
#elif defined(__AVX2__) && defined(__FMA__)
struct VectorLanes {
    using V = __m256;
    static constexpr int width = 8;
    static V load(const float* p) { return _mm256_loadu_ps(p); }
    static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
    static V zero() { return _mm256_setzero_ps(); }
    static V fmadd(float a, V b, V c) { return _mm256_fmadd_ps(_mm256_set1_ps(a), b, c); }
    static V add(V a, V b) { return _mm256_add_ps(a, b); }
    static V fmaddv(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
    static float sum(V v) {
        const __m128 h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));  // 4 pairs
        const __m128 q = _mm_add_ps(h, _mm_movehl_ps(h, h));                                   // 2 pairs
        return _mm_cvtss_f32(_mm_add_ss(q, _mm_movehdup_ps(q)));
    }
};
constexpr int kUpdateRows = 4;     // 4 + 4 + 4 + 2 of 16 ymm registers
constexpr int kForwardRows = 2;    // 2 x 5 + 2 + 1 = 13 of 16
constexpr int kForwardTokens = 5;
#else
using VectorLanes = ScalarLanes;
constexpr int kUpdateRows = 4;
constexpr int kForwardRows = 2;
constexpr int kForwardTokens = 4;
#endif

// dst[0:n] = src[0:n] with non-temporal stores where dst is 64-byte aligned: for results that
// are not read again soon, so their cache lines are not first fetched from memory just to be
// overwritten. Call stream_fence() before another thread reads dst.
inline void stream_copy(float* dst, const float* src, int64_t n) {
#if defined(__AVX512F__)
    int64_t i = 0;
    for (; i < n && (reinterpret_cast<uintptr_t>(dst + i) & 63) != 0; ++i) dst[i] = src[i];
    for (; i + 16 <= n; i += 16) _mm512_stream_ps(dst + i, _mm512_loadu_ps(src + i));
    for (; i < n; ++i) dst[i] = src[i];
#else
    std::memcpy(dst, src, sizeof(float) * size_t(n));
#endif
}
inline void stream_fence() {
#if defined(__AVX512F__)
    _mm_sfence();
#endif
}

}  // namespace stepformer::cpu::STEPFORMER_ISA
