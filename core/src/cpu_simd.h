// Private: the few SIMD operations the streaming kernels need, as a lanes type (AVX-512, AVX2
// or plain floats, chosen at compile time) so one kernel body serves every target; the scalar
// type also handles the columns left over after the last full vector.
#pragma once

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace stepformer::cpu {

// Up to this many tokens a linear layer's backward is bound by streaming its weight from memory,
// and the fused streaming kernel (each weight row read once) wins; above, Eigen's GEMM. (For the
// forward pass Eigen's packed GEMM was measured faster than a streaming kernel even at 10 tokens.)
constexpr int kStreamingMaxTokens = 48;

struct ScalarLanes {
    using V = float;
    static constexpr int width = 1;
    static V load(const float* p) { return *p; }
    static void store(float* p, V v) { *p = v; }
    static V zero() { return 0.0f; }
    static V fmadd(float a, V b, V c) { return a * b + c; }
};
#if defined(__AVX512F__)
struct VectorLanes {
    using V = __m512;
    static constexpr int width = 16;
    static V load(const float* p) { return _mm512_loadu_ps(p); }
    static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
    static V zero() { return _mm512_setzero_ps(); }
    static V fmadd(float a, V b, V c) { return _mm512_fmadd_ps(_mm512_set1_ps(a), b, c); }
};
constexpr int kUpdateRows = 8;  // 8 weight rows + 8 gradient rows + 2 = 18 of 32 zmm registers
#elif defined(__AVX2__) && defined(__FMA__)
struct VectorLanes {
    using V = __m256;
    static constexpr int width = 8;
    static V load(const float* p) { return _mm256_loadu_ps(p); }
    static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
    static V zero() { return _mm256_setzero_ps(); }
    static V fmadd(float a, V b, V c) { return _mm256_fmadd_ps(_mm256_set1_ps(a), b, c); }
};
constexpr int kUpdateRows = 4;  // 4 + 4 + 2 of 16 ymm registers
#else
using VectorLanes = ScalarLanes;
constexpr int kUpdateRows = 4;
#endif

}  // namespace stepformer::cpu
