// The streaming linear kernels of one kernel set (isa.h): few tokens, each weight row read once.
//
// Forward: the dot products of a tile of R weight rows x T tokens stay in registers while the
// rows stream past. Backward fused with the optimizer: each block of R rows of W is read once,
// its gradient rows and its share of dx computed while the block is in L1, then the block updated
// (SGD/Adam/AdamW, the same element loops as apply_update) and the gradient's sum of squares taken
// before moving on. At the tutorial's size a training step moves ~10 tokens through 44M weights:
// it is bound by memory traffic, which these loops keep to one pass.
#include <algorithm>

#include "isa/isa.h"
#include "isa/simd.h"

namespace stepformer::cpu::STEPFORMER_ISA {
namespace {

// How far ahead of the rows being read the streaming kernels ask for the weights: ~40 KB, into
// L2 (prefetcht2; prefetcht1 measured the same). Each block used to fetch the next block into L1,
// whose few miss buffers capped the lines in flight. Zen 4 host, 2 threads, 10 tokens through
// 160 MB of weights (stepformer_gemm_bench LinearFromMemory, two runs each): 14.0-14.3 GB/s at 512
// inputs and 17.7-19.9 at 2048 before; 17.2-21.8 and 19.7-19.9 asking 40 KB ahead into L2; 21.6-25.4
// and 23.1-24.4 with the requests shared by the block's passes (rows_forward). The machine reads
// 40-42 GB/s. The distance mattered less than the level (20-80 KB within noise).
constexpr int64_t kStreamAhead = 10240;  // floats

// Asks for the cache line at p, if before `limit`, to be brought into L2.
inline void fetch_ahead(const float* p, const float* limit) {
    if (p < limit) __builtin_prefetch(p, 0, 1);
}

// y[n0:n0+T, o:o+R] = x[n0:n0+T] W[o:o+R]^T, the sums over I in R x T vector registers.
// Ahead of rows first, first + every, ... of the block, up to `limit` (the end of the rows this
// thread reads), the weights are asked for kStreamAhead floats ahead: a block's passes over its
// tokens take turns (pass q asks for rows q, q + passes, ...), so that no pass carries all the
// requests (all in the first pass, the tutorial's traced forward took 10.6-11.0 ms; shared,
// 8.3-8.7, four alternating pairs).
template <int R, int T>
void rows_forward(float* y, const float* x, const float* Wr, int I, int O, int o, int n0, const float* limit, int first,
                  int every) {
    using L = VectorLanes;
    typename L::V acc[R][T];
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < T; ++t) acc[r][t] = L::zero();
    const int vec_end = I / L::width * L::width;
    for (int i = 0; i < vec_end; i += L::width) {
        typename L::V w[R];
        for (int r = 0; r < R; ++r) w[r] = L::load(Wr + int64_t(r) * I + i);
        for (int r = first; r < R; r += every) fetch_ahead(Wr + int64_t(r) * I + i + kStreamAhead, limit);
        for (int t = 0; t < T; ++t) {
            const typename L::V xv = L::load(x + int64_t(n0 + t) * I + i);
            for (int r = 0; r < R; ++r) acc[r][t] = L::fmaddv(xv, w[r], acc[r][t]);
        }
    }
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < T; ++t) {
            float s = L::sum(acc[r][t]);
            const float* xr = x + int64_t(n0 + t) * I;
            for (int i = vec_end; i < I; ++i) s += xr[i] * Wr[int64_t(r) * I + i];
            y[int64_t(n0 + t) * O + o + r] = s;
        }
}

template <int R, int T>
void rows_forward_tokens(float* y, const float* x, const float* Wr, int I, int O, int o, int n0, int tokens,
                         const float* limit, int first, int every) {
    if constexpr (T > 1) {
        if (tokens < T) return rows_forward_tokens<R, T - 1>(y, x, Wr, I, O, o, n0, tokens, limit, first, every);
    }
    rows_forward<R, T>(y, x, Wr, I, O, o, n0, limit, first, every);
}

template <int R, int T>
void stream_forward_tiles(float* y, const float* x, const float* W, int N, int I, int O, int o0, int o1) {
    const float* end = W + int64_t(o1) * I;
    const int passes = (N + T - 1) / T;
    for (int o = o0; o < o1;) {
        const bool full = o1 - o >= R;
        const int rows = full ? R : 1;
        for (int n0 = 0; n0 < N; n0 += T) {
            const int tokens = std::min(T, N - n0), pass = n0 / T;
            if (full)
                rows_forward_tokens<R, T>(y, x, W + int64_t(o) * I, I, O, o, n0, tokens, end, pass, passes);
            else
                rows_forward_tokens<1, T>(y, x, W + int64_t(o) * I, I, O, o, n0, tokens, end, pass, passes);
        }
        o += rows;
    }
}

// An array read in order: the current block's rows and the end of what this thread reads.
struct Stream {
    const float* rows = nullptr;
    const float* limit = nullptr;
};

// Columns [i0, i1) of R rows starting at row o:
//   g (R, I)  = dy[:, o:o+R]^T x           the rows' weight gradient
//   dxp (N, I) += dy[:, o:o+R] W[o:o+R]    their contribution to dx (rows ldp apart)
//   sq += g^2, lane by lane                for the gradient norm, while g is in registers
// `ahead`: up to three arrays this block's rows belong to (its weights and optimizer state), read
// kStreamAhead floats ahead meanwhile; null entries are skipped.
template <class L, int R>
void rows_backward(float* g, float* dxp, int ldp, const float* dy, const float* x, const float* Wr, int N, int I, int O,
                   int o, int i0, int i1, typename L::V& sq, const Stream* ahead) {
    // In a local: through the reference, the compiler had to assume g's stores might change it and
    // kept it in memory, a chain of 8 load-add-stores per column vector (half the kernel's time).
    typename L::V s = sq;
    for (int i = i0; i + L::width <= i1; i += L::width) {
        typename L::V w[R], acc[R];
        for (int r = 0; r < R; ++r) {
            w[r] = L::load(Wr + int64_t(r) * I + i);
            acc[r] = L::zero();
        }
        for (int a = 0; a < 3; ++a)
            if (ahead[a].rows)
                for (int r = 0; r < R; ++r) fetch_ahead(ahead[a].rows + int64_t(r) * I + i + kStreamAhead, ahead[a].limit);
        for (int n = 0; n < N; ++n) {
            const float* dyn = dy + int64_t(n) * O + o;  // (R,)
            const typename L::V xv = L::load(x + int64_t(n) * I + i);
            // dx's sum over the R rows in P independent chains rather than one chain of R
            // dependent FMAs (whose latency the out-of-order window has to hide).
            constexpr int P = R < 4 ? R : 4;
            typename L::V part[P];
            part[0] = L::load(dxp + int64_t(n) * ldp + i);
            for (int q = 1; q < P; ++q) part[q] = L::zero();
            for (int r = 0; r < R; ++r) {
                acc[r] = L::fmadd(dyn[r], xv, acc[r]);
                part[r % P] = L::fmadd(dyn[r], w[r], part[r % P]);
            }
            if constexpr (P == 4) {
                part[0] = L::add(L::add(part[0], part[1]), L::add(part[2], part[3]));
            } else {
                for (int q = 1; q < P; ++q) part[0] = L::add(part[0], part[q]);
            }
            L::store(dxp + int64_t(n) * ldp + i, part[0]);
        }
        for (int r = 0; r < R; ++r) {
            L::store(g + int64_t(r) * I + i, acc[r]);
            s = L::fmaddv(acc[r], acc[r], s);
        }
    }
    sq = s;
}

// Returns sum(g^2) of the block (float lanes: at most 8 x 2048 / 16 terms each, then double).
template <int R>
double rows_backward(float* g, float* dxp, int ldp, const float* dy, const float* x, const float* Wr, int N, int I,
                     int O, int o, const Stream* ahead) {
    static const Stream none[3] = {};
    const int vec_end = I / VectorLanes::width * VectorLanes::width;
    VectorLanes::V sqv = VectorLanes::zero();
    ScalarLanes::V sqs = ScalarLanes::zero();
    rows_backward<VectorLanes, R>(g, dxp, ldp, dy, x, Wr, N, I, O, o, 0, vec_end, sqv, ahead);
    rows_backward<ScalarLanes, R>(g, dxp, ldp, dy, x, Wr, N, I, O, o, vec_end, I, sqs, none);
    return double(VectorLanes::sum(sqv)) + double(sqs);
}

}  // namespace

void stream_forward(float* y, const float* x, const float* W, int N, int I, int O, int o0, int o1) {
    stream_forward_tiles<kForwardRows, kForwardTokens>(y, x, W, N, I, O, o0, o1);
}

int update_rows() { return kUpdateRows; }

double backward_update_rows(float* dW, float* dxp, int ldp, float* g, const float* dy, const float* x, float* W, int N,
                            int I, int O, int o0, int o1, const WeightUpdate& upd, const UpdateScalars& s,
                            bool apply) {
    double total = 0.0;
    for (int o = o0; o < o1;) {
        const int rows = o1 - o >= kUpdateRows ? kUpdateRows : 1;
        float* Wr = W + int64_t(o) * I;
        // The weights and optimizer state ahead stream into L2 while this block computes (in the
        // step, from memory: a block's rows are short streams the hardware learns late).
        const auto stream = [&](const float* a) {
            return a ? Stream{a + int64_t(o) * I, a + int64_t(o1) * I} : Stream{};
        };
        const Stream ahead[3] = {stream(W), stream(upd.buf1), stream(upd.buf2)};
        total += rows == kUpdateRows ? rows_backward<kUpdateRows>(g, dxp, ldp, dy, x, Wr, N, I, O, o, ahead)
                                     : rows_backward<1>(g, dxp, ldp, dy, x, Wr, N, I, O, o, ahead);
        if (apply) update_weights(W, int64_t(o) * I, g, int64_t(rows) * I, upd, s);
        if (dW) stream_copy(dW + int64_t(o) * I, g, int64_t(rows) * I);  // measured ~8% faster than stores
        o += rows;
    }
    stream_fence();
    return total;
}

}  // namespace stepformer::cpu::STEPFORMER_ISA
