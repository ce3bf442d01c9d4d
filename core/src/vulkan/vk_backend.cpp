#include "vulkan/vk_backend.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "stepformer/devices.h"
#include "stepformer/loss.h"
#include "vulkan/vk_context.h"

namespace stepformer::vk {
namespace {

// elementwise.comp's ops
enum class Elementwise : uint32_t { Fill = 0, Copy = 1, Add = 2, Mul = 3, Relu = 4, ReluBackward = 5, MaskOr = 6,
                                    Gelu = 7, GeluBackward = 8, Scale = 9, AddBias = 10 };

// elementwise.comp's Args, field for field
struct ElementwiseArgs {
    VkDeviceAddress out, a, b;
    uint32_t n, op;
    float value;
    uint32_t cols;  // AddBias: b's length (one row)
};
// per_subgroup: the *_subgroup shaders' split (row_teams); the one-invocation-a-row shaders ignore it
struct SoftmaxArgs {
    VkDeviceAddress out, in;
    uint32_t rows, cols;
    uint32_t per_subgroup;
};
// gather.comp's ops
enum class Gather : uint32_t { Embedding = 0, SplitHeads = 1, MergeHeads = 2, Positional = 3, MaskFill = 4, PadMask = 5,
                               SubsequenceMask = 6, MaskFillBackward = 7 };
struct GatherArgs {
    VkDeviceAddress out, a, b, c;
    uint32_t d0, d1, d2, d3;
    uint32_t n, op;
    float value;
    int32_t ival;
};
struct MatmulArgs {
    VkDeviceAddress C, A, B;
    uint32_t G, M, N, K;
    uint32_t a_transposed, b_transposed, accumulate;
    float scale;
};
// rows.comp's ops and arguments
enum class Rows : uint32_t { SoftmaxBackward = 0, LayerNormBackward = 1, CrossEntropyBackward = 2, CrossEntropy = 3,
                             SmoothedCrossEntropy = 4, SmoothedCrossEntropyBackward = 5 };
struct RowsArgs {
    VkDeviceAddress out, a, b, c, d, e;
    uint32_t rows, cols, op;
    int32_t ival;
    float value;
    uint32_t per_subgroup;
    float q_target, scale;  // the smoothed loss's q at the target (value: q elsewhere) and its gradient's scale
};
struct UpdateArgs {
    VkDeviceAddress param, out, buf1, buf2, grad, apply_if;
    uint32_t n, adam;
    float lr, momentum;
    float beta1, beta2, eps, step_size, bc2_sqrt;
};
struct DropoutArgs {
    VkDeviceAddress keep;
    uint64_t seed, offset;
    uint32_t n;
    float p, scale;
};
struct ReduceArgs {
    VkDeviceAddress out, x;
    uint32_t n, op;  // 0: sum of squares, 1: all finite, 2: count of ints != ival
    int32_t ival;
};
// columns.comp's
enum class Columns : uint32_t { LayerNorm = 0, Embedding = 1, Bias = 2 };
struct ColumnsArgs {
    VkDeviceAddress out1, out2, a, b, c, d;
    uint32_t rows, cols, n, op;
};
struct LayerNormArgs {
    VkDeviceAddress out, mean, rstd, in, gamma, beta;
    uint32_t rows, cols;
    float eps;
    uint32_t per_subgroup;
};

class VulkanBackend final : public Backend {
public:
    VulkanBackend(int device_index, int threads) : ctx_(device_index), cpu_(make_cpu_backend(threads)) {
        // Shared-memory tiles pay on a GPU, not on a CPU device; STEPFORMER_VK_GEMM=tiled|simple
        // chooses (the tests run the tiled one on lavapipe that way).
        const char* gemm = std::getenv("STEPFORMER_VK_GEMM");
        tiled_ = gemm ? std::strcmp(gemm, "tiled") == 0 : ctx_.info().type != "cpu";
        // Row reductions (softmax, LayerNorm, their backwards, cross-entropy's gradient) split a row
        // across a subgroup or a workgroup on a GPU with subgroup arithmetic in compute shaders. On
        // a CPU device one invocation a row is faster (lavapipe: the split rows ran 2 to 7 times
        // slower, its barriers and subgroups being emulated); STEPFORMER_VK_REDUCE=subgroup|serial
        // chooses (the tests run both on lavapipe), subgroup only where the device has it.
        // Memory: a discrete GPU computes on its own memory, which the host reaches through copies
        // (upload and download record them); elsewhere (integrated GPUs, CPU devices) the memory is
        // the host's anyway and is mapped. STEPFORMER_VK_MEMORY=device|host chooses (the tests run
        // the copies on lavapipe too).
        const char* memory = std::getenv("STEPFORMER_VK_MEMORY");
        device_memory_ = memory ? std::strcmp(memory, "device") == 0 : ctx_.info().type == "discrete";
        const char* reduce = std::getenv("STEPFORMER_VK_REDUCE");
        subgroup_ = ctx_.info().subgroup_arithmetic &&
                    (reduce ? std::strcmp(reduce, "subgroup") == 0 : ctx_.info().type != "cpu");
        VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        pci.queueFamilyIndex = ctx_.queue_family();
        check(vkCreateCommandPool(ctx_.device(), &pci, nullptr, &pool_), "vkCreateCommandPool");
        VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = pool_;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        check(vkAllocateCommandBuffers(ctx_.device(), &ai, &cb_), "vkAllocateCommandBuffers");
        VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        check(vkCreateFence(ctx_.device(), &fci, nullptr, &fence_), "vkCreateFence");
    }
    ~VulkanBackend() override {
        try {
            sync();
        } catch (...) {
        }
        for (auto& [base, a] : allocs_) destroy(a);
        for (auto& cache : cache_)
            for (auto& [bytes, a] : cache) destroy(a);
        for (const Alloc& a : retired_) destroy(a);
        if (scalars_) destroy(*scalars_);
        vkDestroyFence(ctx_.device(), fence_, nullptr);
        vkDestroyCommandPool(ctx_.device(), pool_, nullptr);
    }

    std::string name() const override { return "gpu"; }
    std::string describe() const override { return "gpu, " + ctx_.info().name + " (Vulkan)"; }

    // ----- memory
    bool host_memory() const override { return false; }
    void* alloc(size_t bytes) override {
        const std::lock_guard lock(mu_);
        Alloc a = obtain(std::max<size_t>(bytes, 4), !device_memory_);
        // The address handed out: the mapped pointer, or for unmapped memory the device address
        // (never dereferenced on the host; only this backend reads it).
        const uintptr_t key = a.mapped ? reinterpret_cast<uintptr_t>(a.mapped) : uintptr_t(a.address);
        allocs_[key] = a;
        return reinterpret_cast<void*>(key);
    }
    void release(void* p) override {
        if (!p) return;
        const std::lock_guard lock(mu_);
        auto it = allocs_.find(reinterpret_cast<uintptr_t>(p));
        if (it == allocs_.end()) throw std::logic_error("gpu: release of memory the backend did not allocate");
        if (recording_)
            retired_.push_back(it->second);  // queued kernels may still use it
        else
            recycle(it->second);
        allocs_.erase(it);
    }
    void upload(void* dst, const void* src, size_t bytes) override {
        if (!bytes) return;
        const std::lock_guard lock(mu_);
        const Span d = find(dst, bytes, "upload");
        if (!recording_ && d.alloc->mapped) {
            std::memcpy(dst, src, bytes);
            return;
        }
        // In order with the queued kernels (or into memory the host cannot see): through a
        // staging buffer and a recorded copy.
        begin();
        Alloc s = obtain(bytes, true);
        std::memcpy(s.mapped, src, bytes);
        retired_.push_back(s);
        const VkBufferCopy region{0, d.offset, bytes};
        vkCmdCopyBuffer(cb_, s.buffer, d.alloc->buffer, 1, &region);
        barrier();
    }
    void download(void* dst, const void* src, size_t bytes) override {
        if (!bytes) return;
        const std::lock_guard lock(mu_);
        const Span from = find(src, bytes, "download");
        if (from.alloc->mapped) {
            flush();
            std::memcpy(dst, src, bytes);
            return;
        }
        // Unmapped: copied into a staging buffer after the queued kernels, then to the host.
        begin();
        Alloc s = obtain(bytes, true);
        const VkBufferCopy region{from.offset, 0, bytes};
        vkCmdCopyBuffer(cb_, from.alloc->buffer, s.buffer, 1, &region);
        barrier();
        try {
            flush();
        } catch (...) {
            recycle(s);
            throw;
        }
        std::memcpy(dst, s.mapped, bytes);
        recycle(s);
    }
    void sync() override {
        const std::lock_guard lock(mu_);
        flush();
    }
    size_t memory_in_use() const override {
        const std::lock_guard lock(mu_);
        size_t n = scalars_ ? scalars_->bytes : 0;
        for (const auto& [base, a] : allocs_) n += a.bytes;
        return n;
    }

    // ----- kernels that run as shaders
    void fill(float* x, int64_t n, float value) override { elementwise(Elementwise::Fill, x, nullptr, nullptr, n, value); }
    void copy(float* out, const float* in, int64_t n) override { elementwise(Elementwise::Copy, out, in, nullptr, n); }
    void add_forward(float* out, const float* a, const float* b, int64_t n) override {
        elementwise(Elementwise::Add, out, a, b, n);
    }
    void mul_forward(float* out, const float* a, const float* b, int64_t n) override {
        elementwise(Elementwise::Mul, out, a, b, n);
    }
    void relu_forward(float* out, const float* in, int64_t n) override { elementwise(Elementwise::Relu, out, in, nullptr, n); }
    void relu_backward(float* din, const float* dout, const float* out, int64_t n) override {
        elementwise(Elementwise::ReluBackward, din, dout, out, n);
    }
    void gelu_forward(float* out, const float* in, int64_t n) override { elementwise(Elementwise::Gelu, out, in, nullptr, n); }
    void gelu_backward(float* din, const float* dout, const float* in, int64_t n) override {
        elementwise(Elementwise::GeluBackward, din, dout, in, n);
    }
    void mask_or(float* out, const float* a, const float* b, int64_t n) override {
        elementwise(Elementwise::MaskOr, out, a, b, n);
    }
    void scale(float* out, const float* in, int64_t n, float s) override {
        elementwise(Elementwise::Scale, out, in, nullptr, n, s);
    }
    void add_bias(float* y, const float* bias, int N, int O) override {
        if (N <= 0 || O <= 0) return;
        // y (N, O) += bias (O): y is both the output and the first input (each element read, then
        // written, by one invocation)
        elementwise(Elementwise::AddBias, y, y, bias, int64_t(N) * O, 0.0f, uint32_t(O));
    }
    void bias_backward(float* dbias, const float* dy, int N, int O) override {
        if (N <= 0 || O <= 0) return;
        const std::lock_guard lock(mu_);
        ColumnsArgs c{addr(dbias, size_t(O), "bias_backward dbias"), 0, addr(dy, size_t(N) * O, "bias_backward dy"),
                      0, 0, 0, uint32_t(N), uint32_t(O), uint32_t(O), uint32_t(Columns::Bias)};
        column_sums(c, (uint32_t(O) + 63) / 64, [&](ColumnsArgs& part, VkDeviceAddress r0) {
            part.a += r0 * uint32_t(O) * sizeof(float);  // dy (N, O)
        });
    }
    void linear_forward(float* y, const float* x, const float* W, int N, int I, int O) override {
        // y (N, O) = x (N, I) W^T, W (O, I)
        matmul(y, x, W, 1, N, O, I, false, true, false, 1.0f, "linear_forward");
    }
    void softmax_forward(float* out, const float* in, int rows, int cols) override {
        if (rows <= 0 || cols <= 0) return;
        const std::lock_guard lock(mu_);
        const size_t n = size_t(rows) * cols;
        SoftmaxArgs args{addr(out, n, "softmax_forward out"), addr(in, n, "softmax_forward in"), uint32_t(rows),
                         uint32_t(cols), 0};
        if (subgroup_) {
            const uint32_t groups = row_teams(rows, cols, args.per_subgroup);
            dispatch("softmax_forward_subgroup", &args, sizeof args, groups, 1);
        } else {
            dispatch("softmax_forward", &args, sizeof args, (uint32_t(rows) + 63) / 64, 1);
        }
    }

    // ----- more kernels
    void linear_backward(float* dx, float* dW, const float* dy, const float* x, const float* W, int N, int I, int O,
                         bool accumulate_dx, bool accumulate_dw) override {
        // dx (N, I) = dy (N, O) W (O, I); dW (O, I) = dy^T x
        if (dx) matmul(dx, dy, W, 1, N, I, O, false, false, accumulate_dx, 1.0f, "linear_backward dx");
        if (dW) matmul(dW, dy, x, 1, O, I, N, true, false, accumulate_dw, 1.0f, "linear_backward dW");
    }
    void linear_backward_update(float* dx, float* dW, double* dW_sum_squares, const float* dy, const float* x, float* W,
                                int N, int I, int O, bool accumulate_dx, const WeightUpdate& upd) override {
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
    void apply_update(float* param, const float* grad, int64_t n, const WeightUpdate& upd) override {
        if (n <= 0) return;
        if (n > int64_t(UINT32_MAX)) throw std::length_error("gpu: more than 2^32 elements in one kernel");
        const std::lock_guard lock(mu_);
        const size_t z = size_t(n);
        UpdateArgs u{};
        u.param = addr(param, z, "update param");
        u.out = upd.out ? addr(upd.out, z, "update upd.out") : u.param;
        u.buf1 = addr(upd.buf1, z, "update upd.buf1");
        u.buf2 = addr(upd.buf2, z, "update upd.buf2");
        u.grad = addr(grad, z, "update grad");
        u.apply_if = addr(upd.apply_if, 1, "update upd.apply_if");
        u.n = uint32_t(n);
        u.adam = upd.kind == WeightUpdate::Kind::Adam ? 1u : 0u;
        u.lr = upd.lr;
        u.momentum = upd.momentum;
        if (u.adam) {
            // adam_scalars' arithmetic, in double as the CPU's
            const double bc1 = 1.0 - std::pow(double(upd.beta1), double(upd.step));
            const double bc2 = 1.0 - std::pow(double(upd.beta2), double(upd.step));
            u.beta1 = upd.beta1, u.beta2 = upd.beta2, u.eps = upd.eps;
            u.step_size = static_cast<float>(upd.lr / bc1);
            u.bc2_sqrt = static_cast<float>(std::sqrt(bc2));
        }
        dispatch("update", &u, sizeof u, uint32_t(std::min<int64_t>((n + 255) / 256, 65535)), 1);
    }
    void embedding_forward(float* out, const int* ids, const float* table, int N, int V, int D) override {
        const std::lock_guard lock(mu_);
        GatherArgs g{};
        g.out = addr(out, size_t(N) * D, "embedding_forward out");
        g.a = addr(ids, size_t(N), "embedding_forward ids");
        g.b = addr(table, size_t(V) * D, "embedding_forward table");
        g.d0 = uint32_t(D);
        gather(Gather::Embedding, g, int64_t(N) * D);
    }
    void embedding_backward(float* dtable, const float* dout, const int* ids, int N, int V, int D) override {
        if (V <= 0 || D <= 0) return;
        const std::lock_guard lock(mu_);
        const int64_t n = int64_t(V) * D;
        if (n > int64_t(UINT32_MAX)) throw std::length_error("gpu: more than 2^32 elements in one kernel");
        ColumnsArgs c{addr(dtable, size_t(n), "embedding_backward dtable"), 0,
                      addr(dout, size_t(N) * D, "embedding_backward dout"), addr(ids, size_t(N), "embedding_backward ids"),
                      0, 0, uint32_t(N), uint32_t(D), uint32_t(n), uint32_t(Columns::Embedding)};
        column_sums(c, uint32_t((n + 63) / 64), [&](ColumnsArgs& part, VkDeviceAddress r0) {
            part.a += r0 * uint32_t(D) * sizeof(float);  // dout (N, D)
            part.b += r0 * sizeof(int);                  // ids (N)
        });
    }
    void split_heads(float* out, const float* in, int B, int L, int H, int d) override {
        heads(Gather::SplitHeads, out, in, B, L, H, d);
    }
    void merge_heads(float* out, const float* in, int B, int L, int H, int d) override {
        heads(Gather::MergeHeads, out, in, B, L, H, d);
    }
    void attn_scores_forward(float* scores, const float* Q, const float* K, int G, int Lq, int Lk, int dk,
                             float scale) override {
        matmul(scores, Q, K, G, Lq, Lk, dk, false, true, false, scale, "attn_scores_forward");
    }
    void attn_scores_backward(float* dQ, float* dK, const float* dscores, const float* Q, const float* K, int G, int Lq,
                              int Lk, int dk, float scale) override {
        // dQ (G, Lq, dk) = scale dS K; dK (G, Lk, dk) = scale dS^T Q
        matmul(dQ, dscores, K, G, Lq, dk, Lk, false, false, false, scale, "attn_scores_backward dQ");
        matmul(dK, dscores, Q, G, Lk, dk, Lq, true, false, false, scale, "attn_scores_backward dK");
    }
    void mask_fill_forward(float* out, const float* in, const float* mask, int B, int H, int Lq, int Lk,
                           float value) override {
        masked(Gather::MaskFill, out, in, mask, B, H, Lq, Lk, value);
    }
    void mask_fill_backward(float* din, const float* dout, const float* mask, int B, int H, int Lq, int Lk) override {
        masked(Gather::MaskFillBackward, din, dout, mask, B, H, Lq, Lk, 0.0f);
    }
    void softmax_backward(float* din, const float* dout, const float* out, int rows, int cols) override {
        if (rows <= 0 || cols <= 0) return;
        const std::lock_guard lock(mu_);
        const size_t n = size_t(rows) * cols;
        RowsArgs r{};
        r.out = addr(din, n, "softmax_backward din");
        r.a = addr(dout, n, "softmax_backward dout");
        r.b = addr(out, n, "softmax_backward out");
        rows_kernel(Rows::SoftmaxBackward, r, rows, cols);
    }
    void attn_context_forward(float* context, const float* attn, const float* V, int G, int Lq, int Lk,
                              int dv) override {
        matmul(context, attn, V, G, Lq, dv, Lk, false, false, false, 1.0f, "attn_context_forward");
    }
    void attn_context_backward(float* dattn, float* dV, const float* dcontext, const float* attn, const float* V, int G,
                               int Lq, int Lk, int dv) override {
        // dattn (G, Lq, Lk) = dC V^T; dV (G, Lk, dv) = attn^T dC
        matmul(dattn, dcontext, V, G, Lq, Lk, dv, false, true, false, 1.0f, "attn_context_backward dattn");
        matmul(dV, attn, dcontext, G, Lk, dv, Lq, true, false, false, 1.0f, "attn_context_backward dV");
    }
    void positional_forward(float* out, const float* in, const float* pe, const float* keep, int B, int L,
                            int D) override {
        const std::lock_guard lock(mu_);
        const size_t n = size_t(B) * L * D;
        GatherArgs g{};
        g.out = addr(out, n, "positional_forward out");
        g.a = addr(in, n, "positional_forward in");
        g.b = addr(pe, size_t(L) * D, "positional_forward pe");
        g.c = addr(keep, n, "positional_forward keep");
        g.d0 = uint32_t(L), g.d1 = uint32_t(D);
        gather(Gather::Positional, g, int64_t(n));
    }
    void layernorm_forward(float* out, float* mean, float* rstd, const float* in, const float* gamma, const float* beta,
                           int rows, int cols, float eps) override {
        if (rows <= 0 || cols <= 0) return;
        const std::lock_guard lock(mu_);
        const size_t n = size_t(rows) * cols;
        LayerNormArgs args{addr(out, n, "layernorm_forward out"), addr(mean, size_t(rows), "layernorm_forward mean"),
                           addr(rstd, size_t(rows), "layernorm_forward rstd"), addr(in, n, "layernorm_forward in"),
                           addr(gamma, size_t(cols), "layernorm_forward gamma"),
                           addr(beta, size_t(cols), "layernorm_forward beta"), uint32_t(rows), uint32_t(cols), eps, 0};
        if (subgroup_) {
            const uint32_t groups = row_teams(rows, cols, args.per_subgroup);
            dispatch("layernorm_forward_subgroup", &args, sizeof args, groups, 1);
        } else {
            dispatch("layernorm_forward", &args, sizeof args, (uint32_t(rows) + 63) / 64, 1);
        }
    }
    void layernorm_backward(float* din, float* dgamma, float* dbeta, const float* dout, const float* in,
                            const float* mean, const float* rstd, const float* gamma, int rows, int cols) override {
        if (rows <= 0 || cols <= 0) return;
        const std::lock_guard lock(mu_);
        const size_t n = size_t(rows) * cols;
        RowsArgs r{};
        r.out = addr(din, n, "layernorm_backward din");
        r.a = addr(dout, n, "layernorm_backward dout");
        r.b = addr(in, n, "layernorm_backward in");
        r.c = addr(mean, size_t(rows), "layernorm_backward mean");
        r.d = addr(rstd, size_t(rows), "layernorm_backward rstd");
        r.e = addr(gamma, size_t(cols), "layernorm_backward gamma");
        rows_kernel(Rows::LayerNormBackward, r, rows, cols);
        if (!dgamma) return;
        ColumnsArgs c{addr(dgamma, size_t(cols), "layernorm_backward dgamma"),
                      addr(dbeta, size_t(cols), "layernorm_backward dbeta"), r.a, r.b, r.c, r.d,
                      uint32_t(rows), uint32_t(cols), uint32_t(cols), uint32_t(Columns::LayerNorm)};
        column_sums(c, (uint32_t(cols) + 63) / 64, [&](ColumnsArgs& part, VkDeviceAddress r0) {
            part.a += r0 * uint32_t(cols) * sizeof(float);  // dout (rows, cols)
            part.b += r0 * uint32_t(cols) * sizeof(float);  // in (rows, cols)
            part.c += r0 * sizeof(float);                   // mean (rows)
            part.d += r0 * sizeof(float);                   // rstd (rows)
        });
    }
    void cross_entropy_forward(float* losses, float* mean, int* counted, const float* probs, const int* targets, int N,
                               int V, int ignore_index) override {
        const std::lock_guard lock(mu_);
        if (N > 0) {
            RowsArgs r{};
            r.out = addr(losses, size_t(N), "cross_entropy_forward losses");
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
            const Span l = find(losses, size_t(N) * sizeof(float), "cross_entropy_forward losses");
            const Span t = find(targets, size_t(N) * sizeof(int), "cross_entropy_forward targets");
            begin();
            Alloc st = obtain(size_t(N) * (sizeof(float) + sizeof(int)), true);
            retired_.push_back(st);
            const VkBufferCopy lc{l.offset, 0, size_t(N) * sizeof(float)};
            const VkBufferCopy tc{t.offset, size_t(N) * sizeof(float), size_t(N) * sizeof(int)};
            vkCmdCopyBuffer(cb_, l.alloc->buffer, st.buffer, 1, &lc);
            vkCmdCopyBuffer(cb_, t.alloc->buffer, st.buffer, 1, &tc);
            barrier();
            host_losses = static_cast<const float*>(st.mapped);
            host_targets = reinterpret_cast<const int*>(static_cast<const float*>(st.mapped) + N);
        }
        after_.push_back([=, losses = host_losses, targets = host_targets] {
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
    void cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                int ignore_index) override {
        if (N <= 0 || V <= 0) return;
        const std::lock_guard lock(mu_);
        RowsArgs r{};
        r.out = addr(dlogits, size_t(N) * V, "cross_entropy_backward dlogits");
        r.a = addr(probs, size_t(N) * V, "cross_entropy_backward probs");
        r.b = addr(targets, size_t(N), "cross_entropy_backward targets");
        r.ival = ignore_index;
        // The rows that count, once, into a slot the row kernel reads.
        float* counted = scalar_slot();
        r.c = addr(counted, 1, "cross_entropy_backward counted");
        const ReduceArgs count{r.c, r.b, uint32_t(N), 2u, ignore_index};
        dispatch("reduce", &count, sizeof count, 1, 1);
        rows_kernel(Rows::CrossEntropyBackward, r, N, V);
    }
    void smoothed_cross_entropy_forward(float* losses, float* sum, const float* logits, const int* targets, int N, int V,
                                        int ignore_index, float eps) override {
        const std::lock_guard lock(mu_);
        if (N > 0) {
            RowsArgs r{};
            r.out = addr(losses, size_t(N), "smoothed_cross_entropy_forward losses");
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
            const Span l = find(losses, size_t(N) * sizeof(float), "smoothed_cross_entropy_forward losses");
            begin();
            Alloc st = obtain(size_t(N) * sizeof(float), true);
            retired_.push_back(st);
            const VkBufferCopy lc{l.offset, 0, size_t(N) * sizeof(float)};
            vkCmdCopyBuffer(cb_, l.alloc->buffer, st.buffer, 1, &lc);
            barrier();
            host_losses = static_cast<const float*>(st.mapped);
        }
        after_.push_back([=, losses = host_losses] {
            double total = 0.0;
            for (int i = 0; i < N; ++i) total += losses[i];
            *sum = static_cast<float>(total);
        });
    }
    void smoothed_cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                         int ignore_index, float eps, float scale) override {
        if (N <= 0 || V <= 0) return;
        const std::lock_guard lock(mu_);
        RowsArgs r{};
        r.out = addr(dlogits, size_t(N) * V, "smoothed_cross_entropy_backward dlogits");
        r.a = addr(probs, size_t(N) * V, "smoothed_cross_entropy_backward probs");
        r.b = addr(targets, size_t(N), "smoothed_cross_entropy_backward targets");
        r.ival = ignore_index;
        smoothing(r, V, eps);
        r.scale = scale;
        rows_kernel(Rows::SmoothedCrossEntropyBackward, r, N, V);
    }
    void all_finite(float* flag, const float* x, int64_t n) override {
        if (n > int64_t(UINT32_MAX)) throw std::length_error("gpu: more than 2^32 elements in one kernel");
        const std::lock_guard lock(mu_);
        const ReduceArgs r{addr(flag, 1, "all_finite flag"), addr(x, size_t(n), "all_finite x"), uint32_t(std::max<int64_t>(n, 0)), 1u, 0};
        dispatch("reduce", &r, sizeof r, 1, 1);
    }
    void pad_mask(float* mask, const int* ids_k, int B, int Lq, int Lk, int pad_id) override {
        const std::lock_guard lock(mu_);
        GatherArgs g{};
        g.out = addr(mask, size_t(B) * Lq * Lk, "pad_mask mask");
        g.a = addr(ids_k, size_t(B) * Lk, "pad_mask ids_k");
        g.d0 = uint32_t(B), g.d1 = uint32_t(Lq), g.d2 = uint32_t(Lk);
        g.ival = pad_id;
        gather(Gather::PadMask, g, int64_t(B) * Lq * Lk);
    }
    void subsequence_mask(float* mask, int B, int T) override {
        const std::lock_guard lock(mu_);
        GatherArgs g{};
        g.out = addr(mask, size_t(B) * T * T, "subsequence_mask mask");
        g.d0 = uint32_t(T);
        gather(Gather::SubsequenceMask, g, int64_t(B) * T * T);
    }
    void positional_table(float* pe, int L, int D) override {
        // The CPU's table (its float32 sines and cosines), uploaded in order with the queue.
        std::vector<float> table(size_t(std::max(L, 0)) * size_t(std::max(D, 0)));
        cpu_->positional_table(table.data(), L, D);
        upload(pe, table.data(), table.size() * sizeof(float));
    }
    void dropout_mask(float* keep, int64_t n, float p, uint64_t seed, uint64_t offset) override {
        if (n <= 0) return;
        if (n > int64_t(UINT32_MAX)) throw std::length_error("gpu: more than 2^32 elements in one kernel");
        const std::lock_guard lock(mu_);
        const DropoutArgs d{addr(keep, size_t(n), "dropout_mask keep"), seed, offset, uint32_t(n), p,
                            1.0f / (1.0f - p)};  // the CPU's scale, in float
        const int64_t blocks = (n + 3) / 4;
        dispatch("dropout", &d, sizeof d, uint32_t(std::min<int64_t>((blocks + 255) / 256, 65535)), 1);
    }
    void sgd_step(float* param, float* momentum_buf, const float* grad, int64_t n, float lr, float momentum) override {
        WeightUpdate u;
        u.kind = WeightUpdate::Kind::SGD;
        u.buf1 = momentum_buf;
        u.lr = lr;
        u.momentum = momentum;
        apply_update(param, grad, n, u);
    }
    void adam_step(float* param, float* m, float* v, const float* grad, int64_t n, float lr, float beta1, float beta2,
                   float eps, int64_t step) override {
        WeightUpdate u;
        u.kind = WeightUpdate::Kind::Adam;
        u.buf1 = m;
        u.buf2 = v;
        u.lr = lr;
        u.beta1 = beta1, u.beta2 = beta2, u.eps = eps;
        u.step = step;
        apply_update(param, grad, n, u);
    }
    void sum_squares(double* acc, const float* x, int64_t n) override {
        if (n <= 0) return;
        if (n > int64_t(UINT32_MAX)) throw std::length_error("gpu: more than 2^32 elements in one kernel");
        const std::lock_guard lock(mu_);
        float* slot = scalar_slot();
        const ReduceArgs r{addr(slot, 1, "sum_squares slot"), addr(x, size_t(n), "sum_squares x"), uint32_t(n), 0u, 0};
        dispatch("reduce", &r, sizeof r, 1, 1);
        after_.push_back([acc, slot] { *acc += double(*slot); });
    }

private:
    struct Alloc {
        VkBuffer buffer = VK_NULL_HANDLE;
        VkDeviceMemory memory = VK_NULL_HANDLE;
        void* mapped = nullptr;
        size_t bytes = 0;     // asked for: what find() lets kernels use
        size_t capacity = 0;  // allocated (its size class)
        VkDeviceAddress address = 0;
    };
    struct Span {
        const Alloc* alloc;
        size_t offset;
    };

    // A buffer of `bytes`: host-visible and mapped, or (mapped false) in the device's memory.
    Alloc make(size_t bytes, bool mapped = true) {
        Alloc a;
        a.bytes = a.capacity = bytes;
        VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bci.size = bytes;
        bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                    VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
        bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        check(vkCreateBuffer(ctx_.device(), &bci, nullptr, &a.buffer), "vkCreateBuffer");
        VkMemoryRequirements req{};
        vkGetBufferMemoryRequirements(ctx_.device(), a.buffer, &req);
        VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
        flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
        VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        mai.pNext = &flags;
        mai.allocationSize = req.size;
        mai.memoryTypeIndex = mapped ? ctx_.host_memory_type() : ctx_.device_memory_type();
        if (!(req.memoryTypeBits & (1u << mai.memoryTypeIndex))) mai.memoryTypeIndex = ctx_.host_memory_type();
        if (VkResult r = vkAllocateMemory(ctx_.device(), &mai, nullptr, &a.memory); r != VK_SUCCESS) {
            vkDestroyBuffer(ctx_.device(), a.buffer, nullptr);
            throw std::bad_alloc();
        }
        check(vkBindBufferMemory(ctx_.device(), a.buffer, a.memory, 0), "vkBindBufferMemory");
        if (mapped) check(vkMapMemory(ctx_.device(), a.memory, 0, VK_WHOLE_SIZE, 0, &a.mapped), "vkMapMemory");
        VkBufferDeviceAddressInfo bai{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
        bai.buffer = a.buffer;
        a.address = vkGetBufferDeviceAddress(ctx_.device(), &bai);
        return a;
    }
    void destroy(const Alloc& a) {
        vkDestroyBuffer(ctx_.device(), a.buffer, nullptr);
        vkFreeMemory(ctx_.device(), a.memory, nullptr);
    }
    // Buffers freed are kept for reuse, by size class (a power of two from 256 bytes to 64 MB;
    // larger ones are exact and not kept) and by kind (mapped or not), up to kCacheBytes in all:
    // allocating device memory is slow, and drivers allow a few thousand allocations at once,
    // while a pass makes and frees hundreds of tensors. Contents are not cleared (a pass writes
    // what it reads; the tests' cpu-device fills fresh memory with garbage to make sure).
    static constexpr size_t kCacheBytes = size_t(128) << 20, kLargestClass = size_t(64) << 20;
    static size_t size_class(size_t bytes) {
        if (bytes > kLargestClass) return bytes;
        size_t c = 256;
        while (c < bytes) c <<= 1;
        return c;
    }
    Alloc obtain(size_t bytes, bool mapped) {
        const size_t cls = size_class(bytes);
        auto& cache = cache_[mapped ? 1 : 0];
        Alloc a;
        if (auto it = cache.find(cls); it != cache.end()) {
            a = it->second;
            cache.erase(it);
            cached_bytes_ -= a.capacity;
        } else {
            a = make(cls, mapped);
        }
        a.bytes = bytes;
        return a;
    }
    void recycle(const Alloc& a) {
        if (a.capacity > kLargestClass || cached_bytes_ + a.capacity > kCacheBytes) {
            destroy(a);
            return;
        }
        cache_[a.mapped ? 1 : 0].emplace(a.capacity, a);
        cached_bytes_ += a.capacity;
    }
    // The allocation holding [p, p + bytes), or a logic_error naming the call.
    Span find(const void* p, size_t bytes, const char* what) const {
        const auto u = reinterpret_cast<uintptr_t>(p);
        auto it = allocs_.upper_bound(u);
        if (it == allocs_.begin()) throw std::logic_error(std::string("gpu: ") + what + " is not in the backend's memory");
        --it;
        const size_t off = size_t(u - it->first);
        if (off + bytes > it->second.bytes)
            throw std::logic_error(std::string("gpu: ") + what + " is not in the backend's memory or runs past its allocation");
        return Span{&it->second, off};
    }
    VkDeviceAddress addr(const void* p, size_t floats, const char* what) const {
        if (!p) return 0;
        // A scalar slot (host-visible, outside the table: its mapped address and the device
        // addresses the table holds may be from different spaces).
        if (scalars_) {
            const auto u = reinterpret_cast<uintptr_t>(p), base = reinterpret_cast<uintptr_t>(scalars_->mapped);
            if (u >= base && u + floats * sizeof(float) <= base + scalars_->bytes) return scalars_->address + (u - base);
        }
        const Span s = find(p, floats * sizeof(float), what);
        return s.alloc->address + s.offset;
    }
    void begin() {
        if (recording_) return;
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        check(vkBeginCommandBuffer(cb_, &bi), "vkBeginCommandBuffer");
        recording_ = true;
    }
    // Every command sees what the commands before it wrote (kernels are small; ordering is simple).
    void barrier() {
        VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                           VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                                 VK_PIPELINE_STAGE_HOST_BIT,
                             0, 1, &mb, 0, nullptr, 0, nullptr);
    }
    void dispatch(const char* shader, const void* args, uint32_t bytes, uint32_t gx, uint32_t gy, uint32_t gz = 1) {
        VkPipeline p = ctx_.pipeline(shader, bytes);
        begin();
        vkCmdBindPipeline(cb_, VK_PIPELINE_BIND_POINT_COMPUTE, p);
        vkCmdPushConstants(cb_, ctx_.layout(shader), VK_SHADER_STAGE_COMPUTE_BIT, 0, bytes, args);
        vkCmdDispatch(cb_, gx, gy, gz);
        barrier();
    }
    // cols: AddBias's row length; b is then one row (cols floats), not n.
    void elementwise(Elementwise op, float* out, const float* a, const float* b, int64_t n, float value = 0.0f,
                     uint32_t cols = 0) {
        if (n <= 0) return;
        if (n > int64_t(UINT32_MAX)) throw std::length_error("gpu: more than 2^32 elements in one kernel");
        const std::lock_guard lock(mu_);
        const ElementwiseArgs args{addr(out, size_t(n), "an output"), addr(a, size_t(n), "an input"),
                                   addr(b, cols ? size_t(cols) : size_t(n), "an input"), uint32_t(n), uint32_t(op),
                                   value, cols};
        const uint32_t groups = uint32_t(std::min<int64_t>((n + 255) / 256, 65535));
        dispatch("elementwise", &args, sizeof args, groups, 1);
    }
    // mu_ held.
    void gather(Gather op, GatherArgs g, int64_t n) {
        if (n <= 0) return;
        if (n > int64_t(UINT32_MAX)) throw std::length_error("gpu: more than 2^32 elements in one kernel");
        g.n = uint32_t(n);
        g.op = uint32_t(op);
        dispatch("gather", &g, sizeof g, uint32_t(std::min<int64_t>((n + 255) / 256, 65535)), 1);
    }
    // out (B, H, Lq, Lk) from in by mask (B, Lq, Lk): mask fill and its backward
    void masked(Gather op, float* out, const float* in, const float* mask, int B, int H, int Lq, int Lk, float value) {
        const std::lock_guard lock(mu_);
        const size_t n = size_t(B) * H * Lq * Lk;
        GatherArgs g{};
        g.out = addr(out, n, "mask fill out");
        g.a = addr(in, n, "mask fill in");
        g.b = addr(mask, size_t(B) * Lq * Lk, "mask fill mask");
        g.d0 = uint32_t(B), g.d1 = uint32_t(H), g.d2 = uint32_t(Lq), g.d3 = uint32_t(Lk);
        g.value = value;
        gather(op, g, int64_t(n));
    }
    void heads(Gather op, float* out, const float* in, int B, int L, int H, int d) {
        const std::lock_guard lock(mu_);
        const size_t n = size_t(B) * L * H * d;
        GatherArgs g{};
        g.out = addr(out, n, "heads out");
        g.a = addr(in, n, "heads in");
        g.d0 = uint32_t(B), g.d1 = uint32_t(L), g.d2 = uint32_t(H), g.d3 = uint32_t(d);
        gather(op, g, int64_t(n));
    }
    // C (G, M, N) = scale * A B (+ C when accumulating); A (G, M, K), or (G, K, M) when a_transposed;
    // B (G, K, N), or (G, N, K) when b_transposed
    void matmul(float* C, const float* A, const float* B, int G, int M, int N, int K, bool a_transposed,
                bool b_transposed, bool accumulate, float scale, const char* what) {
        if (G <= 0 || M <= 0 || N <= 0) return;
        const std::lock_guard lock(mu_);
        const MatmulArgs args{addr(C, size_t(G) * M * N, what), addr(A, size_t(G) * M * K, what),
                              addr(B, size_t(G) * N * K, what), uint32_t(G), uint32_t(M), uint32_t(N), uint32_t(K),
                              a_transposed ? 1u : 0u, b_transposed ? 1u : 0u, accumulate ? 1u : 0u, scale};
        dispatch(tiled_ ? "batched_matmul_tiled" : "batched_matmul", &args, sizeof args, (uint32_t(N) + 15) / 16,
                 (uint32_t(M) + 15) / 16, uint32_t(G));
    }
    void rows_kernel(Rows op, RowsArgs r, int rows, int cols) {
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
    // The smoothed loss's q, rounded to float on the host as the CPU rounds it (a shader's division
    // need not be exact): 1 - eps at the target, eps / (V - 1) elsewhere, 0 when V is 1.
    static void smoothing(RowsArgs& r, int V, float eps) {
        r.q_target = 1.0f - eps;
        r.value = V > 1 ? eps / static_cast<float>(V - 1) : 0.0f;
    }
    // How a *_subgroup shader shares out `rows` rows of `cols`: a row of up to 16 values a lane to
    // one subgroup (no barriers, a workgroup takes several rows: d_model 512 on a 32-wide GPU), a
    // longer one to a whole workgroup (a vocabulary's logits). Sets per_subgroup and returns the
    // workgroups to dispatch; the shaders stride over the rows, so the count only needs to be
    // about right (the subgroup size reported may not be the one run).
    uint32_t row_teams(int rows, int cols, uint32_t& per_subgroup) const {
        const uint32_t sg = std::max<uint32_t>(ctx_.info().subgroup_size, 1);
        per_subgroup = uint32_t(cols) <= 16 * sg ? 1u : 0u;
        const uint32_t rows_per_group = per_subgroup ? std::max<uint32_t>(kReduceGroup / sg, 1) : 1;
        return uint32_t(std::min<int64_t>((int64_t(rows) + rows_per_group - 1) / rows_per_group, 65535));
    }
    // columns.comp adds rows into the running column sums in order, in dispatches of at most
    // kColumnRows rows (lavapipe ends an invocation's loops after 65535 iterations): `from(part,
    // r0)` moves a part's per-row arguments on to row r0; each dispatch runs after the one before
    // (a barrier follows every dispatch), so the sums keep the CPU's order. mu_ held.
    template <class From>
    void column_sums(const ColumnsArgs& c, uint32_t groups, From from) {
        constexpr uint32_t kColumnRows = 32768;
        uint32_t r0 = 0;
        do {
            ColumnsArgs part = c;
            part.rows = std::min(kColumnRows, c.rows - r0);
            from(part, VkDeviceAddress(r0));
            dispatch("columns", &part, sizeof part, groups, 1);
            r0 += part.rows;
        } while (r0 < c.rows);
    }
    // A float in the backend's memory for one scalar result, valid until the next flush. mu_ held.
    float* scalar_slot() {
        if (!scalars_) scalars_ = make(kScalarSlots * sizeof(float));
        if (scalars_used_ == kScalarSlots) flush();
        return static_cast<float*>(scalars_->mapped) + scalars_used_++;
    }
    // Submits what is recorded and waits for it, then hands the scalar results out. mu_ held.
    void flush() {
        if (recording_) {
            recording_ = false;
            // Whatever happens, the queue is empty afterwards: the scalar results and staging
            // buffers of a failed submission are dropped with it.
            struct Reset {
                VulkanBackend& be;
                ~Reset() {
                    vkResetFences(be.ctx_.device(), 1, &be.fence_);
                    vkResetCommandBuffer(be.cb_, 0);
                }
            } reset{*this};
            try {
                check(vkEndCommandBuffer(cb_), "vkEndCommandBuffer");
                VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
                si.commandBufferCount = 1;
                si.pCommandBuffers = &cb_;
                check(vkQueueSubmit(ctx_.queue(), 1, &si, fence_), "vkQueueSubmit");
                check(vkWaitForFences(ctx_.device(), 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
            } catch (...) {
                after_.clear();
                scalars_used_ = 0;
                throw;
            }
        }
        // The scalar results first: they read memory that may have been released meanwhile.
        for (auto& f : after_) f();
        after_.clear();
        scalars_used_ = 0;
        for (const Alloc& a : retired_) recycle(a);
        retired_.clear();
    }

    Context ctx_;
    std::unique_ptr<Backend> cpu_;
    bool tiled_ = false;  // batched_matmul_tiled.comp
    bool subgroup_ = false;  // the *_subgroup.comp row reductions
    bool device_memory_ = false;  // allocations in the device's memory, unmapped (see the constructor)
    static constexpr uint32_t kReduceGroup = 128;  // their local_size_x
    mutable std::mutex mu_;  // one queue and one command buffer for every thread (the first step's simplicity)
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkCommandBuffer cb_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    bool recording_ = false;
    std::map<uintptr_t, Alloc> allocs_;  // by mapped address
    std::vector<Alloc> retired_;         // released while kernels were queued, and upload staging
    std::multimap<size_t, Alloc> cache_[2];  // freed buffers by capacity: [0] unmapped, [1] mapped
    size_t cached_bytes_ = 0;
    static constexpr size_t kScalarSlots = 4096;
    std::optional<Alloc> scalars_;            // slots for scalar results (in allocs_, freed with them)
    size_t scalars_used_ = 0;
    std::vector<std::function<void()>> after_;  // scalar results to hand out after the next flush
};

}  // namespace

std::unique_ptr<Backend> make_vulkan_backend(int device_index, int cpu_threads) {
    if (device_index < 0) {
        device_index = gpu_device_for(gpu_devices());
        if (device_index < 0) throw std::runtime_error("no usable Vulkan device");
    }
    return std::make_unique<VulkanBackend>(device_index, cpu_threads);
}

}  // namespace stepformer::vk
