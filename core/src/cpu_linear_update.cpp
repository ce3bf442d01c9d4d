// A linear layer's backward pass fused with the optimizer's update of its weight.
//
// At the tutorial's size a training step moves ~10 tokens through 44M weights: it is bound by
// memory traffic, not arithmetic. Done separately, each weight is read for dx, its gradient
// written, read again for the norm and again for the update. Here each block of R rows of W is
// read once: its gradient rows and its share of dx are computed while the block is in L1, then
// the block is updated (SGD/Adam/AdamW, the same element loops as apply_update) and the
// gradient's sum of squares taken before moving on.
#include <algorithm>
#include <cstring>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cpu_backend.h"
#include "cpu_simd.h"

namespace stepformer::cpu {
namespace {

constexpr int kLinePad = 16;  // floats: one 64-byte cache line

// Columns [i0, i1) of R rows starting at row o:
//   g (R, I)  = dy[:, o:o+R]^T x           the rows' weight gradient
//   dxp (N, I) += dy[:, o:o+R] W[o:o+R]    their contribution to dx (rows ldp apart)
//   sq += g^2, lane by lane                for the gradient norm, while g is in registers
// `ahead`: up to three arrays of the next block's R rows (its weights and optimizer state),
// fetched into the cache meanwhile; null entries are skipped.
template <class L, int R>
void rows_backward(float* g, float* dxp, int ldp, const float* dy, const float* x, const float* Wr, int N, int I, int O,
                   int o, int i0, int i1, typename L::V& sq, const float* const* ahead) {
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
            if (ahead[a])
                for (int r = 0; r < R; ++r) __builtin_prefetch(ahead[a] + int64_t(r) * I + i);
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
                     int O, int o, const float* const* ahead) {
    static const float* const none[3] = {nullptr, nullptr, nullptr};
    const int vec_end = I / VectorLanes::width * VectorLanes::width;
    VectorLanes::V sqv = VectorLanes::zero();
    ScalarLanes::V sqs = ScalarLanes::zero();
    rows_backward<VectorLanes, R>(g, dxp, ldp, dy, x, Wr, N, I, O, o, 0, vec_end, sqv, ahead);
    rows_backward<ScalarLanes, R>(g, dxp, ldp, dy, x, Wr, N, I, O, o, vec_end, I, sqs, none);
    return double(VectorLanes::sum(sqv)) + double(sqs);
}

// The step's scalars, computed once per call.
struct UpdateScalars {
    AdamScalars adam{};
    AdamWScalars adamw{};
};

// Updates the `n` weights at offset `off` from their gradient g.
void update_block(float* W, int64_t off, const float* g, int64_t n, const WeightUpdate& u, const UpdateScalars& s) {
    float* out = (u.out ? u.out : W) + off;
    if (u.kind == WeightUpdate::Kind::SGD)
        sgd_range(out, W + off, u.buf1 + off, g, n, float(u.lr), u.momentum);
    else if (u.kind == WeightUpdate::Kind::Adam)
        adam_range(out, W + off, u.buf1 + off, u.buf2 + off, g, n, s.adam);
    else
        adamw_range(out, W + off, u.buf1 + off, u.buf2 + off, g, n, s.adamw);
}

}  // namespace

double CpuBackend::linear_backward_update_sum(float* dx, float* dW, const float* dy, const float* x, float* W, int N,
                                              int I, int O, bool accumulate_dx, const WeightUpdate& upd) {
    UpdateScalars scalars;
    if (upd.kind == WeightUpdate::Kind::Adam)
        scalars.adam = adam_scalars(float(upd.lr), float(upd.beta1), float(upd.beta2), upd.eps, upd.step);
    else if (upd.kind == WeightUpdate::Kind::AdamW)
        scalars.adamw = adamw_scalars(upd);
    const int64_t n = int64_t(O) * I;
    const int parts = threads_for(int64_t(N) * n);
    double total = 0.0;
    const bool apply = !upd.apply_if || *upd.apply_if != 0.0f;

    if (N > kStreamingMaxTokens) {
        std::vector<float> own;
        if (!dW) own.resize(size_t(n));
        float* g = dW ? dW : own.data();
        linear_backward(dx, g, dy, x, W, N, I, O, accumulate_dx, false);
#pragma omp parallel for num_threads(parts) reduction(+ : total) schedule(static)
        for (int p = 0; p < parts; ++p) {
            const int64_t b = n * p / parts, e = n * (p + 1) / parts;
            total += sum_squares_range(g + b, e - b);
            if (apply) update_block(W, b, g + b, e - b, upd, scalars);
        }
        return total;
    }

    // Each thread owns a range of rows and a private dx; the private ones are summed at the end.
    // Its rows are a cache line more than I apart: at I = 2048 (8 KB rows) each token's load of
    // its row aliased the previous token's store in the low 12 address bits, and the load waited
    // for the store (4K aliasing): 10 x 2048 x 512 took 906 us, 10 x 512 x 2048 727 us.
    const int ldp = I + kLinePad;
    std::vector<float> partial(size_t(parts) * N * ldp, 0.0f);
    std::vector<float> scratch(size_t(parts) * kUpdateRows * I);
#pragma omp parallel num_threads(parts) reduction(+ : total)
    {
        // The team may be smaller than asked (OMP_DYNAMIC): split by the team actually running.
        int p = 0, team = 1;
#ifdef _OPENMP
        p = omp_get_thread_num();
        team = omp_get_num_threads();
#endif
        const int o0 = chunk_begin(O, team, p, kUpdateRows), o1 = chunk_begin(O, team, p + 1, kUpdateRows);
        float* dxp = partial.data() + size_t(p) * N * ldp;  // (N, I), rows ldp apart
        for (int o = o0; o < o1;) {
            const int rows = o1 - o >= kUpdateRows ? kUpdateRows : 1;
            float* g = scratch.data() + size_t(p) * kUpdateRows * I;  // (rows, I), stays in L1
            float* Wr = W + int64_t(o) * I;
            // The next full block's weights and optimizer state stream in while this one computes
            // (in the step, from memory: its rows are short streams the hardware learns late).
            const int64_t nxt = int64_t(o + rows) * I;
            const bool more = o + rows + kUpdateRows <= o1;
            const float* const ahead[3] = {more ? W + nxt : nullptr, more && upd.buf1 ? upd.buf1 + nxt : nullptr,
                                           more && upd.buf2 ? upd.buf2 + nxt : nullptr};
            total += rows == kUpdateRows ? rows_backward<kUpdateRows>(g, dxp, ldp, dy, x, Wr, N, I, O, o, ahead)
                                         : rows_backward<1>(g, dxp, ldp, dy, x, Wr, N, I, O, o, ahead);
            if (apply) update_block(W, int64_t(o) * I, g, int64_t(rows) * I, upd, scalars);
            if (dW) stream_copy(dW + int64_t(o) * I, g, int64_t(rows) * I);  // measured ~8% faster than stores
            o += rows;
        }
        stream_fence();
        if (dx) {
#pragma omp barrier
            const int64_t len = int64_t(N) * I, b = len * p / team, e = len * (p + 1) / team;
            for (int64_t k = b; k < e;) {  // a row's run of the thread's share at a time
                const int64_t n = k / I, i0 = k % I, run = std::min<int64_t>(e - k, I - i0);
                const float* src = partial.data() + size_t(n * ldp + i0);
                for (int64_t j = 0; j < run; ++j) {
                    float s = accumulate_dx ? dx[k + j] : 0.0f;
                    for (int q = 0; q < team; ++q) s += src[size_t(q) * N * ldp + size_t(j)];
                    dx[k + j] = s;
                }
                k += run;
            }
        }
    }
    return total;
}

}  // namespace stepformer::cpu
