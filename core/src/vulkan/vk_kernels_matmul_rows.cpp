// The Vulkan backend's matrix products and reductions: linear layers, attention products, softmax,
// LayerNorm, the losses, column sums, and the optimizer updates.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "adamw_scalars.h"
#include "stepformer/loss.h"
#include "vulkan/vk_backend_internal.h"

namespace stepformer::vk {

namespace {

// The smoothed loss's q, rounded to float on the host as the CPU rounds it (a shader's division
// need not be exact): 1 - eps at the target, eps / (V - 1) elsewhere, 0 when V is 1.
void smoothing(RowsArgs& r, int V, float eps) {
    r.q_target = 1.0f - eps;
    r.value = V > 1 ? eps / static_cast<float>(V - 1) : 0.0f;
}

}  // namespace

void VulkanBackend::bias_backward(float* dbias, const float* dy, int N, int O) {
    if (N <= 0 || O <= 0) return;
    const QueueLock lock(*this);
    ColumnsArgs c{waddr(dbias, size_t(O), "bias_backward dbias"), 0, addr(dy, size_t(N) * O, "bias_backward dy"),
                  0, 0, 0, uint32_t(N), uint32_t(O), uint32_t(O), uint32_t(Columns::Bias)};
    column_sums(c, (uint32_t(O) + 63) / 64, [&](ColumnsArgs& part, VkDeviceAddress r0) {
        part.a += r0 * uint32_t(O) * sizeof(float);  // dy (N, O)
    });
}

void VulkanBackend::linear_forward(float* y, const float* x, const float* W, int N, int I, int O) {
    // y (N, O) = x (N, I) W^T, W (O, I)
    matmul(y, x, W, 1, N, O, I, false, true, false, 1.0f, "linear_forward");
}

void VulkanBackend::softmax_forward(float* out, const float* in, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return;
    const QueueLock lock(*this);
    const size_t n = size_t(rows) * cols;
    SoftmaxArgs args{waddr(out, n, "softmax_forward out"), addr(in, n, "softmax_forward in"), uint32_t(rows),
                     uint32_t(cols), 0};
    if (subgroup_) {
        const uint32_t groups = row_teams(rows, cols, args.per_subgroup);
        dispatch("softmax_forward_subgroup", &args, sizeof args, groups, 1);
    } else {
        dispatch("softmax_forward", &args, sizeof args, (uint32_t(rows) + 63) / 64, 1);
    }
}

void VulkanBackend::linear_backward(float* dx, float* dW, const float* dy, const float* x, const float* W, int N, int I,
                                    int O, bool accumulate_dx, bool accumulate_dw) {
    // dx (N, I) = dy (N, O) W (O, I); dW (O, I) = dy^T x
    if (dx) matmul(dx, dy, W, 1, N, I, O, false, false, accumulate_dx, 1.0f, "linear_backward dx");
    if (dW) matmul(dW, dy, x, 1, O, I, N, true, false, accumulate_dw, 1.0f, "linear_backward dW");
}

void VulkanBackend::linear_backward_update(float* dx, float* dW, double* dW_sum_squares, const float* dy,
                                           const float* x, float* W, int N, int I, int O, bool accumulate_dx,
                                           const WeightUpdate& upd) {
    // dx with the weight before its update, then the gradient (into a temporary when it is not
    // kept), its sum of squares, and the update.
    const int64_t n = int64_t(O) * I;
    if (dx) matmul(dx, dy, W, 1, N, I, O, false, false, accumulate_dx, 1.0f, "linear_backward_update dx");
    float* g = dW ? dW : static_cast<float*>(alloc(size_t(n) * sizeof(float)));
    matmul(g, dy, x, 1, O, I, N, true, false, false, 1.0f, "linear_backward_update dW");
    if (dW_sum_squares) sum_squares(dW_sum_squares, g, n);
    apply_update(W, g, n, upd);
    if (!dW) release(g);  // after the queued kernels that use it
}

void VulkanBackend::apply_update(float* param, const float* grad, int64_t n, const WeightUpdate& upd) {
    if (n <= 0) return;
    if (n > int64_t(UINT32_MAX)) throw std::length_error("gpu: more than 2^32 elements in one kernel");
    const QueueLock lock(*this);
    const size_t z = size_t(n);
    UpdateArgs u{};
    u.param = upd.out ? addr(param, z, "update param") : waddr(param, z, "update param");
    u.out = upd.out ? waddr(upd.out, z, "update upd.out") : u.param;
    u.buf1 = waddr(upd.buf1, z, "update upd.buf1");
    u.buf2 = waddr(upd.buf2, z, "update upd.buf2");
    u.grad = addr(grad, z, "update grad");
    u.apply_if = addr(upd.apply_if, 1, "update upd.apply_if");
    u.n = uint32_t(n);
    u.kind = uint32_t(upd.kind);
    u.lr = float(upd.lr);
    u.momentum = upd.momentum;
    if (upd.kind == WeightUpdate::Kind::Adam) {
        // adam_scalars' arithmetic, from lr and the betas rounded to float, in double as the CPU's
        const float lr = float(upd.lr), beta1 = float(upd.beta1), beta2 = float(upd.beta2);
        const double bc1 = 1.0 - std::pow(double(beta1), double(upd.step));
        const double bc2 = 1.0 - std::pow(double(beta2), double(upd.step));
        u.beta1 = beta1, u.beta2 = beta2, u.eps = upd.eps;
        u.step_size = static_cast<float>(lr / bc1);
        u.bc2_sqrt = static_cast<float>(std::sqrt(bc2));
    } else if (upd.kind == WeightUpdate::Kind::AdamW) {
        const AdamWScalars a = adamw_scalars(upd);  // the CPU's, rounded alike
        u.beta1 = a.beta1, u.beta2 = a.beta2, u.eps = a.eps;
        u.step_size = a.neg_step_size;
        u.bc2_sqrt = a.bc2_sqrt;
        u.decay = a.decay, u.one_minus_beta1 = a.one_minus_beta1, u.one_minus_beta2 = a.one_minus_beta2;
    }
    dispatch("update", &u, sizeof u, uint32_t(std::min<int64_t>((n + 255) / 256, 65535)), 1);
}

void VulkanBackend::embedding_backward(float* dtable, const float* dout, const int* ids, int N, int V, int D) {
    if (V <= 0 || D <= 0) return;
    const QueueLock lock(*this);
    const int64_t n = int64_t(V) * D;
    if (n > int64_t(UINT32_MAX)) throw std::length_error("gpu: more than 2^32 elements in one kernel");
    ColumnsArgs c{waddr(dtable, size_t(n), "embedding_backward dtable"), 0,
                  addr(dout, size_t(N) * D, "embedding_backward dout"), addr(ids, size_t(N), "embedding_backward ids"),
                  0, 0, uint32_t(N), uint32_t(D), uint32_t(n), uint32_t(Columns::Embedding)};
    column_sums(c, uint32_t((n + 63) / 64), [&](ColumnsArgs& part, VkDeviceAddress r0) {
        part.a += r0 * uint32_t(D) * sizeof(float);  // dout (N, D)
        part.b += r0 * sizeof(int);                  // ids (N)
    });
}

void VulkanBackend::attn_scores_forward(float* scores, const float* Q, const float* K, int G, int Lq, int Lk, int dk,
                                        float scale) {
    matmul(scores, Q, K, G, Lq, Lk, dk, false, true, false, scale, "attn_scores_forward");
}

void VulkanBackend::attn_scores_backward(float* dQ, float* dK, const float* dscores, const float* Q, const float* K,
                                         int G, int Lq, int Lk, int dk, float scale) {
    // dQ (G, Lq, dk) = scale dS K; dK (G, Lk, dk) = scale dS^T Q
    matmul(dQ, dscores, K, G, Lq, dk, Lk, false, false, false, scale, "attn_scores_backward dQ");
    matmul(dK, dscores, Q, G, Lk, dk, Lq, true, false, false, scale, "attn_scores_backward dK");
}

void VulkanBackend::softmax_backward(float* din, const float* dout, const float* out, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return;
    const QueueLock lock(*this);
    const size_t n = size_t(rows) * cols;
    RowsArgs r{};
    r.out = waddr(din, n, "softmax_backward din");
    r.a = addr(dout, n, "softmax_backward dout");
    r.b = addr(out, n, "softmax_backward out");
    rows_kernel(Rows::SoftmaxBackward, r, rows, cols);
}

void VulkanBackend::attn_context_forward(float* context, const float* attn, const float* V, int G, int Lq, int Lk,
                                         int dv) {
    matmul(context, attn, V, G, Lq, dv, Lk, false, false, false, 1.0f, "attn_context_forward");
}

void VulkanBackend::attn_context_backward(float* dattn, float* dV, const float* dcontext, const float* attn,
                                          const float* V, int G, int Lq, int Lk, int dv) {
    // dattn (G, Lq, Lk) = dC V^T; dV (G, Lk, dv) = attn^T dC
    matmul(dattn, dcontext, V, G, Lq, Lk, dv, false, true, false, 1.0f, "attn_context_backward dattn");
    matmul(dV, attn, dcontext, G, Lk, dv, Lq, true, false, false, 1.0f, "attn_context_backward dV");
}

void VulkanBackend::layernorm_forward(float* out, float* mean, float* rstd, const float* in, const float* gamma,
                                      const float* beta, int rows, int cols, float eps) {
    if (rows <= 0 || cols <= 0) return;
    const QueueLock lock(*this);
    const size_t n = size_t(rows) * cols;
    LayerNormArgs args{waddr(out, n, "layernorm_forward out"), waddr(mean, size_t(rows), "layernorm_forward mean"),
                       waddr(rstd, size_t(rows), "layernorm_forward rstd"), addr(in, n, "layernorm_forward in"),
                       addr(gamma, size_t(cols), "layernorm_forward gamma"),
                       addr(beta, size_t(cols), "layernorm_forward beta"), uint32_t(rows), uint32_t(cols), eps, 0};
    if (subgroup_) {
        const uint32_t groups = row_teams(rows, cols, args.per_subgroup);
        dispatch("layernorm_forward_subgroup", &args, sizeof args, groups, 1);
    } else {
        dispatch("layernorm_forward", &args, sizeof args, (uint32_t(rows) + 63) / 64, 1);
    }
}

void VulkanBackend::layernorm_backward(float* din, float* dgamma, float* dbeta, const float* dout, const float* in,
                                       const float* mean, const float* rstd, const float* gamma, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return;
    const QueueLock lock(*this);
    const size_t n = size_t(rows) * cols;
    RowsArgs r{};
    r.out = waddr(din, n, "layernorm_backward din");
    r.a = addr(dout, n, "layernorm_backward dout");
    r.b = addr(in, n, "layernorm_backward in");
    r.c = addr(mean, size_t(rows), "layernorm_backward mean");
    r.d = addr(rstd, size_t(rows), "layernorm_backward rstd");
    r.e = addr(gamma, size_t(cols), "layernorm_backward gamma");
    rows_kernel(Rows::LayerNormBackward, r, rows, cols);
    if (!dgamma) return;
    ColumnsArgs c{waddr(dgamma, size_t(cols), "layernorm_backward dgamma"),
                  waddr(dbeta, size_t(cols), "layernorm_backward dbeta"),
                  // the row kernel's inputs again: each dispatch names what it reads (the queue's order)
                  addr(dout, n, "layernorm_backward dout"), addr(in, n, "layernorm_backward in"),
                  addr(mean, size_t(rows), "layernorm_backward mean"), addr(rstd, size_t(rows), "layernorm_backward rstd"),
                  uint32_t(rows), uint32_t(cols), uint32_t(cols), uint32_t(Columns::LayerNorm)};
    column_sums(c, (uint32_t(cols) + 63) / 64, [&](ColumnsArgs& part, VkDeviceAddress r0) {
        part.a += r0 * uint32_t(cols) * sizeof(float);  // dout (rows, cols)
        part.b += r0 * uint32_t(cols) * sizeof(float);  // in (rows, cols)
        part.c += r0 * sizeof(float);                   // mean (rows)
        part.d += r0 * sizeof(float);                   // rstd (rows)
    });
}

void VulkanBackend::cross_entropy_forward(float* losses, float* mean, int* counted, const float* probs,
                                          const int* targets, int N, int V, int ignore_index) {
    const QueueLock lock(*this);
    if (N > 0) {
        RowsArgs r{};
        r.out = waddr(losses, size_t(N), "cross_entropy_forward losses");
        r.a = addr(probs, size_t(N) * V, "cross_entropy_forward probs");
        r.b = addr(targets, size_t(N), "cross_entropy_forward targets");
        r.ival = ignore_index;
        r.value = token_loss(0.0f);
        rows_kernel(Rows::CrossEntropy, r, N, V);
    }
    // The mean as the CPU takes it (double sum over the counted rows), read from the losses
    // once the queue has run: a scalar result, valid after sync(). Unmapped losses and
    // targets are copied to a staging buffer first, which goes after the results are read.
    const float* host_losses = losses;
    const int* host_targets = targets;
    if (N > 0 && device_memory_) {
        const Alloc st = scratch(size_t(N) * (sizeof(float) + sizeof(int)));
        copy_words(st, 0, losses, size_t(N) * sizeof(float), "cross_entropy_forward losses");
        copy_words(st, size_t(N) * sizeof(float), targets, size_t(N) * sizeof(int), "cross_entropy_forward targets");
        host_losses = static_cast<const float*>(st.mapped);
        host_targets = reinterpret_cast<const int*>(static_cast<const float*>(st.mapped) + N);
    }
    q().after.push_back([=, losses = host_losses, targets = host_targets] {
        double sum = 0.0;
        int count = 0;
        for (int i = 0; i < N; ++i)
            if (targets[i] != ignore_index) sum += losses[i], ++count;
        CrossEntropy ce;
        ce.sum = sum;
        ce.counted = count;
        *mean = ce.loss();
        if (counted) *counted = count;
    });
}

void VulkanBackend::cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                           int ignore_index) {
    if (N <= 0 || V <= 0) return;
    const QueueLock lock(*this);
    RowsArgs r{};
    r.out = waddr(dlogits, size_t(N) * V, "cross_entropy_backward dlogits");
    r.a = addr(probs, size_t(N) * V, "cross_entropy_backward probs");
    r.b = addr(targets, size_t(N), "cross_entropy_backward targets");
    r.ival = ignore_index;
    // The rows that count, once, into a slot the row kernel reads.
    float* counted = scalar_slot();
    r.c = waddr(counted, 1, "cross_entropy_backward counted");
    const ReduceArgs count{r.c, r.b, uint32_t(N), 2u, ignore_index};
    dispatch("reduce", &count, sizeof count, 1, 1);
    rows_kernel(Rows::CrossEntropyBackward, r, N, V);
}

void VulkanBackend::smoothed_cross_entropy_forward(float* losses, float* sum, const float* logits, const int* targets,
                                                   int N, int V, int ignore_index, float eps) {
    const QueueLock lock(*this);
    if (N > 0) {
        RowsArgs r{};
        r.out = waddr(losses, size_t(N), "smoothed_cross_entropy_forward losses");
        r.a = addr(logits, size_t(N) * V, "smoothed_cross_entropy_forward logits");
        r.b = addr(targets, size_t(N), "smoothed_cross_entropy_forward targets");
        r.ival = ignore_index;
        smoothing(r, V, eps);
        rows_kernel(Rows::SmoothedCrossEntropy, r, N, V);
    }
    // The sum as the CPU takes it (the float losses added in row order in double; an ignored
    // row's is 0), on the host once the queue has run, as cross_entropy_forward's mean: no
    // invocation loops over the rows (lavapipe ends its loops after 65535 iterations). Unmapped
    // losses are copied to a staging buffer first, which goes after the result is read.
    const float* host_losses = losses;
    if (N > 0 && device_memory_) {
        const Alloc st = scratch(size_t(N) * sizeof(float));
        copy_words(st, 0, losses, size_t(N) * sizeof(float), "smoothed_cross_entropy_forward losses");
        host_losses = static_cast<const float*>(st.mapped);
    }
    q().after.push_back([=, losses = host_losses] {
        double total = 0.0;
        for (int i = 0; i < N; ++i) total += losses[i];
        *sum = static_cast<float>(total);
    });
}

void VulkanBackend::smoothed_cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N,
                                                    int V, int ignore_index, float eps, float scale) {
    if (N <= 0 || V <= 0) return;
    const QueueLock lock(*this);
    RowsArgs r{};
    r.out = waddr(dlogits, size_t(N) * V, "smoothed_cross_entropy_backward dlogits");
    r.a = addr(probs, size_t(N) * V, "smoothed_cross_entropy_backward probs");
    r.b = addr(targets, size_t(N), "smoothed_cross_entropy_backward targets");
    r.ival = ignore_index;
    smoothing(r, V, eps);
    r.scale = scale;
    rows_kernel(Rows::SmoothedCrossEntropyBackward, r, N, V);
}

void VulkanBackend::all_finite(float* flag, const float* x, int64_t n) {
    if (n > int64_t(UINT32_MAX)) throw std::length_error("gpu: more than 2^32 elements in one kernel");
    const QueueLock lock(*this);
    const ReduceArgs r{waddr(flag, 1, "all_finite flag"), addr(x, size_t(n), "all_finite x"), uint32_t(std::max<int64_t>(n, 0)), 1u, 0};
    dispatch("reduce", &r, sizeof r, 1, 1);
}

void VulkanBackend::sgd_step(float* param, float* momentum_buf, const float* grad, int64_t n, float lr,
                             float momentum) {
    WeightUpdate u;
    u.kind = WeightUpdate::Kind::SGD;
    u.buf1 = momentum_buf;
    u.lr = lr;
    u.momentum = momentum;
    apply_update(param, grad, n, u);
}

void VulkanBackend::adam_step(float* param, float* m, float* v, const float* grad, int64_t n, float lr, float beta1,
                              float beta2, float eps, int64_t step) {
    WeightUpdate u;
    u.kind = WeightUpdate::Kind::Adam;
    u.buf1 = m;
    u.buf2 = v;
    u.lr = lr;
    u.beta1 = beta1, u.beta2 = beta2, u.eps = eps;
    u.step = step;
    apply_update(param, grad, n, u);
}

void VulkanBackend::sum_squares(double* acc, const float* x, int64_t n) {
    if (n <= 0) return;
    if (n > int64_t(UINT32_MAX)) throw std::length_error("gpu: more than 2^32 elements in one kernel");
    const QueueLock lock(*this);
    float* slot = scalar_slot();
    const ReduceArgs r{waddr(slot, 1, "sum_squares slot"), addr(x, size_t(n), "sum_squares x"), uint32_t(n), 0u, 0};
    dispatch("reduce", &r, sizeof r, 1, 1);
    q().after.push_back([acc, slot] { *acc += double(*slot); });
}

// C (G, M, N) = scale * A B (+ C when accumulating); A (G, M, K), or (G, K, M) when a_transposed;
// B (G, K, N), or (G, N, K) when b_transposed
void VulkanBackend::matmul(float* C, const float* A, const float* B, int G, int M, int N, int K, bool a_transposed,
                           bool b_transposed, bool accumulate, float scale, const char* what) {
    if (G <= 0 || M <= 0 || N <= 0) return;
    const QueueLock lock(*this);
    const MatmulArgs args{waddr(C, size_t(G) * M * N, what), addr(A, size_t(G) * M * K, what),
                          addr(B, size_t(G) * N * K, what), uint32_t(G), uint32_t(M), uint32_t(N), uint32_t(K),
                          a_transposed ? 1u : 0u, b_transposed ? 1u : 0u, accumulate ? 1u : 0u, scale};
    if (blocked_min_ > 0 && M >= blocked_min_ && N >= blocked_min_ && K >= blocked_min_k_)  // 4 x 4 outputs an invocation, 64 x 64 a workgroup
        dispatch("batched_matmul_blocked", &args, sizeof args, (uint32_t(N) + 63) / 64, (uint32_t(M) + 63) / 64, uint32_t(G));
    else if (tiled_)
        dispatch("batched_matmul_tiled", &args, sizeof args, (uint32_t(N) + 15) / 16, (uint32_t(M) + 15) / 16, uint32_t(G));
    else if (M <= strip_rows_)  // four columns an invocation, 32 x 4 invocations a workgroup
        dispatch("batched_matmul_strip", &args, sizeof args, (uint32_t(N) + 127) / 128, (uint32_t(M) + 3) / 4, uint32_t(G));
    else
        dispatch("batched_matmul", &args, sizeof args, (uint32_t(N) + 15) / 16, (uint32_t(M) + 15) / 16, uint32_t(G));
}

void VulkanBackend::rows_kernel(Rows op, RowsArgs r, int rows, int cols) {
    r.rows = uint32_t(rows);
    r.cols = uint32_t(cols);
    r.op = uint32_t(op);
    // The loss reads one value a row: nothing to split, it stays one invocation a row.
    if (subgroup_ && op != Rows::CrossEntropy) {
        const uint32_t groups = row_teams(rows, cols, r.per_subgroup);
        dispatch("rows_subgroup", &r, sizeof r, groups, 1);
    } else {
        dispatch("rows", &r, sizeof r, (uint32_t(rows) + 63) / 64, 1);
    }
}

// How a *_subgroup shader shares out `rows` rows of `cols`: a row of up to 16 values a lane to
// one subgroup (no barriers, a workgroup takes several rows: d_model 512 on a 32-wide GPU), a
// longer one to a whole workgroup (a vocabulary's logits). Sets per_subgroup and returns the
// workgroups to dispatch; the shaders stride over the rows, so the count only needs to be
// about right (the subgroup size reported may not be the one run).
uint32_t VulkanBackend::row_teams(int rows, int cols, uint32_t& per_subgroup) const {
    const uint32_t sg = std::max<uint32_t>(ctx_.info().subgroup_size, 1);
    per_subgroup = uint32_t(cols) <= 16 * sg ? 1u : 0u;
    const uint32_t rows_per_group = per_subgroup ? std::max<uint32_t>(kReduceGroup / sg, 1) : 1;
    return uint32_t(std::min<int64_t>((int64_t(rows) + rows_per_group - 1) / rows_per_group, 65535));
}

}  // namespace stepformer::vk
