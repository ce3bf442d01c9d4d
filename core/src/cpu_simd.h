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

// Up to this many tokens a linear layer is bound by streaming its weight from memory and the
// streaming kernels (each weight row read once, the products in registers) win; above, Eigen.
constexpr int kStreamingMaxTokens = 48;

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
    static float sum(V v) {
        alignas(64) float t[16];
        _mm512_store_ps(t, v);
        float s = 0.0f;
        for (float f : t) s += f;
        return s;
    }
};
constexpr int kUpdateRows = 8;     // 8 weight rows + 8 gradient rows + 4 + 2 = 22 of 32 zmm registers
constexpr int kForwardRows = 6;    // forward tile: 6 x 4 sums + 6 weight rows + 1 = 31 of 32
constexpr int kForwardTokens = 4;
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
        alignas(32) float t[8];
        _mm256_store_ps(t, v);
        float s = 0.0f;
        for (float f : t) s += f;
        return s;
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

}  // namespace stepformer::cpu
