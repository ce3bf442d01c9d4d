// Private to the kernel sets (isa.h): the few SIMD operations the streaming kernels need, as a
// lanes type (AVX-512, AVX2 or plain floats, chosen by the flags this set is compiled with) so one
// kernel body serves every set; the scalar type also handles the columns left over after the last
// full vector. In the set's namespace: these inline functions differ from set to set.
#pragma once

#include "isa/isa.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace stepformer::cpu::STEPFORMER_ISA {

// The vector exp's constants (VectorLanes::exp): x's range, ln2 in two parts (Cody and Waite's:
// the first has 9 bits, so n times it is exact for the n a float exp can have) and Cephes expf's
// polynomial for e^r - 1 - r over r^2, highest degree first.
constexpr float kExpLow = -87.3365478515625f;  // ln(FLT_MIN)
constexpr float kExpClamp = 100.0f;            // past ln(FLT_MAX), so that 2^n overflows to inf
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;
constexpr float kExpP[6] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                            4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};

// The part of the vector exp every set shares (defined below the lanes types): e^c for c already
// kept in range, as p · 2^n, returning p with n = round(c log2 e) in `n`.
template <class L>
typename L::V exp_mantissa(typename L::V c, typename L::V& n);

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
    static V set1(float a) { return a; }
    static V mul(V a, V b) { return a * b; }
    static V sub(V a, V b) { return a - b; }
    static V max(V a, V b) { return a < b ? b : a; }  // a when b is NaN, as a row's running maximum wants
    static V exp(V x) { return std::exp(x); }
    // A sum in double of vectors' lanes (softmax's Σ e^x and Σ dy·y, in double as they always were)
    struct DoubleSum {
        double s = 0.0;
        void add(V v) { s += double(v); }
        double total() const { return s; }
    };
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
    static V set1(float a) { return _mm512_set1_ps(a); }
    static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
    static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
    static V max(V a, V b) { return _mm512_max_ps(b, a); }  // a where b is NaN (maxps returns its second)
    static V round(V v) { return _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
    // e^x to ~1 ulp, lane by lane, as expf gives it for the softmax's x - max <= 0: x = n ln2 + r,
    // |r| <= ln2 / 2 (ln2 in two parts, so n ln2 is exact), e^r by Cephes' degree-6 polynomial,
    // times 2^n by scalef (which also gives 0 and inf past the float range). Below ln(FLT_MIN) the
    // result is 0 (expf's would be subnormal: under 1.2e-38, and 0 for a masked -inf or -1e9);
    // NaN stays NaN.
    static V exp(V x) {
        const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
        const __mmask16 tiny = _mm512_cmp_ps_mask(x, _mm512_set1_ps(kExpLow), _CMP_LT_OQ);
        V n;
        const V p = exp_mantissa<VectorLanes>(
            _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(kExpLow)), _mm512_set1_ps(kExpClamp)), n);
        V e = _mm512_scalef_ps(p, n);
        e = _mm512_mask_mov_ps(e, tiny, _mm512_setzero_ps());
        return _mm512_mask_mov_ps(e, nan, x);
    }
    struct DoubleSum {
        __m512d lo = _mm512_setzero_pd(), hi = _mm512_setzero_pd();
        void add(V v) {
            lo = _mm512_add_pd(lo, _mm512_cvtps_pd(__builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7)));
            hi = _mm512_add_pd(hi, _mm512_cvtps_pd(__builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15)));
        }
        double total() const {
            alignas(64) double t[8];
            _mm512_store_pd(t, _mm512_add_pd(lo, hi));
            return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
        }
    };
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
    static V set1(float a) { return _mm256_set1_ps(a); }
    static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
    static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
    static V max(V a, V b) { return _mm256_max_ps(b, a); }  // a where b is NaN (maxps returns its second)
    static V round(V v) { return _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
    // As the AVX-512 set's, with 2^n made in the exponent bits, in two halves (n is -126 to 144,
    // and each half's exponent stays normal); past 88.72 (expf's overflow) the product is inf.
    static V exp(V x) {
        const V nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
        const V tiny = _mm256_cmp_ps(x, _mm256_set1_ps(kExpLow), _CMP_LT_OQ);
        V n;
        const V p = exp_mantissa<VectorLanes>(
            _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(kExpLow)), _mm256_set1_ps(kExpClamp)), n);
        const __m256i ni = _mm256_cvtps_epi32(n);
        const __m256i n1 = _mm256_srai_epi32(ni, 1), n2 = _mm256_sub_epi32(ni, n1);
        const __m256i bias = _mm256_set1_epi32(127);
        const V s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
        const V s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
        V e = _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
        e = _mm256_andnot_ps(tiny, e);
        return _mm256_blendv_ps(e, x, nan);
    }
    struct DoubleSum {
        __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
        void add(V v) {
            lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
            hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
        }
        double total() const {
            alignas(32) double t[4];
            _mm256_store_pd(t, _mm256_add_pd(lo, hi));
            return (t[0] + t[1]) + (t[2] + t[3]);
        }
    };
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

template <class L>
typename L::V exp_mantissa(typename L::V c, typename L::V& n) {
    using V = typename L::V;
    n = L::round(L::mul(c, L::set1(kLog2e)));
    V r = L::fmaddv(n, L::set1(-kLn2Hi), c);  // c - n ln2, exact in the first part
    r = L::fmaddv(n, L::set1(-kLn2Lo), r);
    V p = L::set1(kExpP[0]);
    for (int i = 1; i < 6; ++i) p = L::fmaddv(p, r, L::set1(kExpP[i]));
    return L::fmaddv(L::mul(p, r), r, L::add(r, L::set1(1.0f)));  // 1 + r + r^2 p(r)
}

// The largest lane (NaN lanes skipped unless the first is NaN), for a row's maximum.
template <class L>
float max_of(typename L::V v) {
    float t[L::width];
    L::store(t, v);
    float m = t[0];
    for (int i = 1; i < L::width; ++i) m = m < t[i] ? t[i] : m;
    return m;
}

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
