// Private: the Vulkan backend's class and its shaders' push constants, shared by the files that
// implement it: vk_backend.cpp (making and ending the backend), vk_memory.cpp (allocations,
// buffer reuse, uploads and downloads), vk_queue.cpp (each thread's queue), vk_recording.cpp (a
// queue's command buffers, submission and the scalar results), and the kernels in vk_kernels_elementwise.cpp (element-wise, gathers, masks,
// dropout) and vk_kernels_matmul_rows.cpp (matrix products, row and column reductions, losses,
// updates).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "stepformer/backend.h"
#include "vulkan/vk_context.h"

namespace stepformer::vk {

// elementwise.comp's ops
enum class Elementwise : uint32_t { Fill = 0, Copy = 1, Add = 2, Mul = 3, Relu = 4, ReluBackward = 5, MaskOr = 6,
                                    Gelu = 7, GeluBackward = 8, Scale = 9, AddBias = 10, CopyBits = 11 };

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
// update.comp's: kind 0 SGD, 1 Adam, 2 AdamW (WeightUpdate::Kind's order)
struct UpdateArgs {
    VkDeviceAddress param, out, buf1, buf2, grad, apply_if;
    uint32_t n, kind;
    float lr, momentum;
    float beta1, beta2, eps, step_size, bc2_sqrt;
    float decay, one_minus_beta1, one_minus_beta2;  // AdamW (step_size is then -lr / bc1)
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
    VulkanBackend(int device_index, int threads);
    ~VulkanBackend() override;

    std::string name() const override { return "gpu"; }
    std::string describe() const override { return "gpu, " + ctx_.info().name + " (Vulkan)"; }

    // ----- memory
    bool supports(Kernel) const override { return true; }  // a shader for every kernel
    bool host_memory() const override { return false; }
    void* alloc(size_t bytes) override;
    void release(void* p) override;
    void upload(void* dst, const void* src, size_t bytes) override;
    void download(void* dst, const void* src, size_t bytes) override;
    void download_many(std::span<const DownloadRange> ranges) override;
    void sync() override;
    size_t memory_in_use() const override;
    size_t trim() override;
    std::optional<BackendCounters> counters() const override;  // vk_counters.cpp
    bool set_profiling(bool on) override;

    // ----- kernels that run as shaders
    void fill(float* x, int64_t n, float value) override;
    void copy(float* out, const float* in, int64_t n) override;
    void add_forward(float* out, const float* a, const float* b, int64_t n) override;
    void mul_forward(float* out, const float* a, const float* b, int64_t n) override;
    void relu_forward(float* out, const float* in, int64_t n) override;
    void relu_backward(float* din, const float* dout, const float* out, int64_t n) override;
    void gelu_forward(float* out, const float* in, int64_t n) override;
    void gelu_backward(float* din, const float* dout, const float* in, int64_t n) override;
    void mask_or(float* out, const float* a, const float* b, int64_t n) override;
    void scale(float* out, const float* in, int64_t n, float s) override;
    void add_bias(float* y, const float* bias, int N, int O) override;
    void bias_backward(float* dbias, const float* dy, int N, int O) override;
    void linear_forward(float* y, const float* x, const float* W, int N, int I, int O) override;
    void softmax_forward(float* out, const float* in, int rows, int cols) override;

    // ----- more kernels
    void linear_backward(float* dx, float* dW, const float* dy, const float* x, const float* W, int N, int I, int O,
                         bool accumulate_dx, bool accumulate_dw) override;
    void linear_backward_update(float* dx, float* dW, double* dW_sum_squares, const float* dy, const float* x, float* W,
                                int N, int I, int O, bool accumulate_dx, const WeightUpdate& upd) override;
    void apply_update(float* param, const float* grad, int64_t n, const WeightUpdate& upd) override;
    void embedding_forward(float* out, const int* ids, const float* table, int N, int V, int D) override;
    void embedding_backward(float* dtable, const float* dout, const int* ids, int N, int V, int D) override;
    void split_heads(float* out, const float* in, int B, int L, int H, int d) override;
    void merge_heads(float* out, const float* in, int B, int L, int H, int d) override;
    void attn_scores_forward(float* scores, const float* Q, const float* K, int G, int Lq, int Lk, int dk,
                             float scale) override;
    void attn_scores_backward(float* dQ, float* dK, const float* dscores, const float* Q, const float* K, int G, int Lq,
                              int Lk, int dk, float scale) override;
    void mask_fill_forward(float* out, const float* in, const float* mask, int B, int H, int Lq, int Lk,
                           float value) override;
    void mask_fill_backward(float* din, const float* dout, const float* mask, int B, int H, int Lq, int Lk) override;
    void softmax_backward(float* din, const float* dout, const float* out, int rows, int cols) override;
    void attn_context_forward(float* context, const float* attn, const float* V, int G, int Lq, int Lk,
                              int dv) override;
    void attn_context_backward(float* dattn, float* dV, const float* dcontext, const float* attn, const float* V, int G,
                               int Lq, int Lk, int dv) override;
    void positional_forward(float* out, const float* in, const float* pe, const float* keep, int B, int L,
                            int D) override;
    void layernorm_forward(float* out, float* mean, float* rstd, const float* in, const float* gamma, const float* beta,
                           int rows, int cols, float eps) override;
    void layernorm_backward(float* din, float* dgamma, float* dbeta, const float* dout, const float* in,
                            const float* mean, const float* rstd, const float* gamma, int rows, int cols) override;
    void cross_entropy_forward(float* losses, float* mean, int* counted, const float* probs, const int* targets, int N,
                               int V, int ignore_index) override;
    void cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                int ignore_index) override;
    void smoothed_cross_entropy_forward(float* losses, float* sum, const float* logits, const int* targets, int N, int V,
                                        int ignore_index, float eps) override;
    void smoothed_cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                         int ignore_index, float eps, float scale) override;
    void all_finite(float* flag, const float* x, int64_t n) override;
    void pad_mask(float* mask, const int* ids_k, int B, int Lq, int Lk, int pad_id) override;
    void subsequence_mask(float* mask, int B, int T) override;
    void positional_table(float* pe, int L, int D) override;
    void dropout_mask(float* keep, int64_t n, float p, uint64_t seed, uint64_t offset) override;
    void sgd_step(float* param, float* momentum_buf, const float* grad, int64_t n, float lr, float momentum) override;
    void adam_step(float* param, float* m, float* v, const float* grad, int64_t n, float lr, float beta1, float beta2,
                   float eps, int64_t step) override;
    void sum_squares(double* acc, const float* x, int64_t n) override;

private:
    // Device memory of one kind (mapped or not) allocated in large pieces, lent out in parts
    // (vk_memory.cpp): drivers allow a few thousand allocations, and allocating is slow.
    struct Block {
        VkBuffer buffer = VK_NULL_HANDLE;
        VkDeviceMemory memory = VK_NULL_HANDLE;
        void* mapped = nullptr;
        VkDeviceAddress address = 0;
        size_t size = 0;
        std::map<size_t, size_t> free;  // offset -> length, coalesced
    };
    struct Alloc {
        VkBuffer buffer = VK_NULL_HANDLE;
        VkDeviceMemory memory = VK_NULL_HANDLE;  // its own (null: a part of a block)
        void* mapped = nullptr;
        size_t bytes = 0;     // asked for: what find() lets kernels use
        size_t capacity = 0;  // allocated (its size class, or its part of the block)
        VkDeviceAddress address = 0;
        Block* block = nullptr;  // the block it is a part of
        size_t offset = 0;       // where in the buffer it starts
    };
    struct Span {
        const Alloc* alloc;
        size_t offset;
    };
    // Memory released while queued commands may still use it: it goes back to the pool when the
    // last queue holding it has run them (each such queue keeps a reference until its flush).
    struct Retired {
        VulkanBackend* be;
        Alloc a;
        Retired(VulkanBackend* b, const Alloc& x) : be(b), a(x) {}
        Retired(const Retired&) = delete;
        Retired& operator=(const Retired&) = delete;
        ~Retired();
    };

    // ----- the queues (vk_queue.cpp, vk_recording.cpp)
    struct Access {
        VkDeviceAddress lo, hi;
        bool write;
    };
    struct Command {
        const char* shader = nullptr;  // null: a buffer copy
        VkPipeline pipeline = VK_NULL_HANDLE;
        VkPipelineLayout layout = VK_NULL_HANDLE;
        uint32_t groups[3] = {1, 1, 1};
        uint32_t args = 0;                   // its arguments' offset in the queue's args
        VkBuffer src = VK_NULL_HANDLE, dst = VK_NULL_HANDLE;  // a copy's
        VkBufferCopy region{};
        uint32_t first = 0, count = 0;       // its ranges in accesses
    };
    // Command buffers recorded before, by what they hold (the order, pipelines, group counts,
    // argument offsets and barriers): submitted again when the same commands come.
    struct Recorded {
        std::vector<uint64_t> key;
        VkCommandBuffer cb = VK_NULL_HANDLE;
        uint32_t barriers = 0;
        uint64_t used = 0;
    };
    static constexpr size_t kArgsBytes = size_t(1) << 20;
    static constexpr size_t kScalarSlots = 4096;
    static constexpr size_t kRecorded = 16;
    static constexpr uint32_t kQueries = 8192;  // two per timed dispatch, per command buffer
    // One thread's queue: the kernels it has queued, their arguments, its command buffers and
    // fence. Every thread queues into one of its own, so one thread's sync() submits and waits
    // for its own kernels only, and a thread records while another waits for the device. A
    // thread keeps its queue while it has commands queued; an idle queue may pass to another
    // thread once there are kQueues, the one taken longest ago (threads come and go: a training
    // run has one of its own).
    struct Queue {
        std::mutex mu;  // held by the thread queueing into it (QueueLock), and through its flush
        // Written under mu and queues_mu_; read without them by the thread that used it last, so
        // that a thread whose idle queue passed to another does not wait for the other's flush.
        std::atomic<std::thread::id> owner;
        uint32_t index = 0;  // which of the device's queues it submits to (Context::submit)
        uint64_t last_used = 0;
        VkCommandPool pool = VK_NULL_HANDLE;
        VkFence fence = VK_NULL_HANDLE;
        std::vector<Command> commands;
        std::vector<Access> accesses;
        std::vector<Access> next;  // noted for the next dispatch
        bool next_taken = false;   // a dispatch has them: the next note starts afresh
        Alloc args;                // the queued dispatches' arguments, mapped (kArgsBytes)
        size_t args_used = 0;
        Alloc scalars;             // slots for scalar results, mapped (kScalarSlots floats)
        size_t scalars_used = 0;
        std::vector<std::function<void()>> after;  // scalar results to hand out after the next flush
        std::unordered_map<const char*, Context::Pipeline> pipelines;  // by the shader name's address
        std::vector<Recorded> recorded;
        uint64_t submits = 0;
        VkCommandBuffer once_cb = VK_NULL_HANDLE;  // the last one recorded and not kept
        VkQueryPool queries = VK_NULL_HANDLE;
        bool timing = false;  // the command buffer being recorded is timed
        uint32_t queries_used = 0;
        std::vector<const char*> timed;  // the shader of each timed dispatch in the command buffer
        // Memory released (by any thread) while this queue had commands queued or running.
        std::mutex retire_mu;
        bool busy = false;  // commands queued or running
        std::vector<std::shared_ptr<Retired>> retired;
    };
    static constexpr size_t kQueues = 4;  // made before idle ones are handed on

    // The calling thread's queue, locked for the guard's life; the kernels' helpers (dispatch,
    // addr, flush...) find it through q() instead of each taking it as an argument.
    class QueueLock {
    public:
        explicit QueueLock(VulkanBackend& be);
        ~QueueLock();
        QueueLock(const QueueLock&) = delete;
        QueueLock& operator=(const QueueLock&) = delete;

    private:
        Queue* q_;
        Queue* outer_;
    };
    static thread_local Queue* held_;
    Queue& q() const { return *held_; }
    Queue& acquire();  // the calling thread's queue, locked (vk_queue.cpp)
    std::unique_ptr<Queue> make_queue(uint32_t index);
    void destroy_queue(Queue& q);
    void mark_busy(Queue& q);
    // An upload's or a loss's staging buffer, mapped: recycled after the queue's next flush.
    Alloc scratch(size_t bytes);

    // vk_memory.cpp (mem_mu_ held unless said)
    Alloc make(size_t bytes, bool mapped = true);
    void destroy(const Alloc& a);
    std::optional<Alloc> from_blocks(size_t bytes, bool mapped);
    void give_back(const Alloc& a);  // a part, to its block
    Alloc obtain(size_t bytes, bool mapped);
    void recycle(const Alloc& a);
    Span find(const void* p, size_t bytes, const char* what) const;  // takes mem_mu_
    // The device address of p (n floats, or 4-byte words), noted as read (addr) or written
    // (waddr, also for what a kernel reads and writes) by the next dispatch: the queue orders
    // dispatches by these ranges. A dispatch with no addr() calls of its own since the one
    // before (column sums in parts, a count and the row kernel that reads it) reuses its ranges.
    // The queue held.
    VkDeviceAddress addr(const void* p, size_t floats, const char* what) { return address(p, floats, what, false); }
    VkDeviceAddress waddr(const void* p, size_t floats, const char* what) { return address(p, floats, what, true); }
    VkDeviceAddress address(const void* p, size_t floats, const char* what, bool write);
    void note(VkDeviceAddress lo, size_t bytes, bool write);
    // A dispatch copying `bytes` (a multiple of 4) from the backend's memory at `from` into
    // staging buffer `to` at `offset`. The queue held.
    void copy_words(const Alloc& to, size_t offset, const void* from, size_t bytes, const char* what);

    // vk_recording.cpp: the held queue. Kernels are queued as commands; flush() orders them into
    // levels (a command's level is one more than the highest of the queued commands whose
    // ranges it conflicts with: read after write, write after read or write), records them a
    // level at a time with one barrier between levels, or submits the command buffer recorded
    // for the same commands before (their arguments are in the queue's args, rewritten each time).
    void dispatch(const char* shader, const void* args, uint32_t bytes, uint32_t gx, uint32_t gy, uint32_t gz = 1);
    const Context::Pipeline& pipeline_of(const char* shader);
    void queue_copy(const Alloc& from, size_t from_offset, const Alloc& to, size_t to_offset, size_t bytes);
    float* scalar_slot();
    void flush();
    void finished(Queue& q);  // after a flush, run or failed: the queue empty, its retired memory back
    std::vector<uint32_t> schedule(std::vector<uint32_t>& levels) const;
    VkCommandBuffer record(const std::vector<uint32_t>& order, const std::vector<uint32_t>& levels, uint32_t& barriers);
    enum class Barrier { Levels, ToHost, FromOtherQueues };
    void barrier(VkCommandBuffer cb, Barrier kind);

    // vk_counters.cpp (the queue held)
    void start_timing(VkCommandBuffer cb);
    bool stamp_before(VkCommandBuffer cb);
    void stamp_after(VkCommandBuffer cb, const char* shader);
    void collect_timing();
    template <class F>
    void count(F f) {
        const std::lock_guard lock(stats_mu_);
        f(counts_);
    }

    // vk_kernels_elementwise.cpp
    void elementwise(Elementwise op, float* out, const float* a, const float* b, int64_t n, float value = 0.0f,
                     uint32_t cols = 0);
    void gather(Gather op, GatherArgs g, int64_t n);
    void masked(Gather op, float* out, const float* in, const float* mask, int B, int H, int Lq, int Lk, float value);
    void heads(Gather op, float* out, const float* in, int B, int L, int H, int d);

    // vk_kernels_matmul_rows.cpp
    void matmul(float* C, const float* A, const float* B, int G, int M, int N, int K, bool a_transposed,
                bool b_transposed, bool accumulate, float scale, const char* what);
    void rows_kernel(Rows op, RowsArgs r, int rows, int cols);
    uint32_t row_teams(int rows, int cols, uint32_t& per_subgroup) const;
    // columns.comp adds rows into the running column sums in order, in dispatches of at most
    // kColumnRows rows (lavapipe ends an invocation's loops after 65535 iterations): `from(part,
    // r0)` moves a part's per-row arguments on to row r0; each dispatch runs after the one before
    // (they all write the sums: the queue keeps their order), so the sums keep the CPU's order.
    // The queue held.
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

    Context ctx_;
    std::unique_ptr<Backend> cpu_;
    const uint64_t id_;  // this backend among all made (the threads' queue caches key on it)
    bool tiled_ = false;  // batched_matmul_tiled.comp
    int strip_rows_ = 0;  // batched_matmul_strip.comp for products of at most this many rows (unless tiled_)
    int blocked_min_ = 0;  // batched_matmul_blocked.comp for products of at least this many rows and columns (0: never)
    int blocked_min_k_ = 0;  // ... summing over at least this many terms
    bool subgroup_ = false;  // the *_subgroup.comp row reductions
    bool device_memory_ = false;  // allocations in the device's memory, unmapped (see the constructor)
    static constexpr uint32_t kReduceGroup = 128;  // their local_size_x
    std::atomic<bool> profiling_{false};  // timestamps around every dispatch

    // Locks, in the order they may be taken: queues_mu_, a queue's mu, a queue's retire_mu,
    // mem_mu_, stats_mu_.
    mutable std::mutex queues_mu_;
    std::vector<std::unique_ptr<Queue>> queues_;
    uint64_t queue_uses_ = 0;  // queues_mu_

    mutable std::mutex mem_mu_;
    std::map<uintptr_t, Alloc> allocs_;  // by mapped address
    std::multimap<size_t, Alloc> cache_[2];  // freed buffers of their own by capacity: [0] unmapped, [1] mapped
    std::vector<std::unique_ptr<Block>> blocks_[2];  // [0] unmapped, [1] mapped
    size_t cached_bytes_ = 0;

    mutable std::mutex stats_mu_;
    BackendCounters counts_;
};

}  // namespace stepformer::vk
