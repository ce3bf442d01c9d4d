// Private: the few SIMD operations the streaming kernels need, as a lanes type (AVX-512, AVX2
// or plain floats, chosen at compile time) so one kernel body serves every target; the scalar
// type also handles the columns left over after the last full vector.
#pragma once

#include <cstdint>
#include <cstring>

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
    static V add(V a, V b) { return a + b; }
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
    static V add(V a, V b) { return _mm256_add_ps(a, b); }
};
constexpr int kUpdateRows = 4;  // 4 + 4 + 2 of 16 ymm registers
#else
using VectorLanes = ScalarLanes;
constexpr int kUpdateRows = 4;
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

}  // namespace stepformer::cpu
