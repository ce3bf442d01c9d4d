// The compute backend: the small set of kernels the model is made of, in the spirit of
// ggml's backend interface. The CPU backend (Eigen + OpenMP) is the reference and always
// present; another backend must produce the same numbers (tests compare against the CPU).
//
// Conventions (llm.c's): outputs first, then saved values, then inputs, then weights, then
// dimensions. Every buffer is row-major float32. Gradients are prefixed `d`. Whether a backward
// kernel overwrites its gradients or adds to them differs by kernel, and each one's comment says
// which: a linear layer's dW is overwritten or accumulated as its caller asks (the model
// overwrites: each linear weight is used once per pass), an embedding table's and LayerNorm's
// parameter gradients are accumulated (the caller zeroes them first), input gradients are
// overwritten unless `accumulate_dx` says otherwise.
//
// Memory: a kernel's float* and int* arguments are addresses in the backend's memory. For the
// CPU backend (host_memory()) that is the caller's memory, any host pointer will do and nothing
// is copied; another backend's addresses come from its alloc() alone and host data crosses with
// upload()/download(). Staging (staging.h) does that bookkeeping for a pass, and is free on the
// CPU. Scalar results (a loss, a sum of squares) are the exception: they are host pointers,
// written by sync().
//
// Declining a kernel: every kernel below has a default that runs it on the CPU backend
// (run_elsewhere: on a backend whose memory is not the host's, its inputs are downloaded and its
// outputs uploaded around the CPU kernel). A backend overrides the kernels it computes itself and
// says so in supports(); the rest fall back. So a new kernel is one declaration here, one CPU
// kernel and its argument list in backend_fallback.cpp, and, where wanted, one shader.
//
// Thread safety: a Backend keeps no state that a kernel call changes, so one object may run
// kernels from several threads at once (the GUI thread, QtConcurrent tasks and the training
// thread do) as long as the calls write different buffers. Making a backend is thread-safe.
// (A backend with a queue keeps one per thread, so that one thread's sync() waits for its own
// kernels.)
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "stepformer/backend_counters.h"
#include "stepformer/backend_ops.h"

namespace stepformer {

// An optimizer step for one weight, applied by linear_backward_update in the same pass that
// computes the weight's gradient: the weight and its optimizer state then cross the memory bus
// once per training step instead of three times (gradient, norm, update).
struct WeightUpdate {
    // AdamW is torch.optim.AdamW (1.13): decoupled weight decay, and its own rounding of the Adam
    // step (exp_avg.mul_().add_(), not Adam's lerp_), so a kind of its own rather than a flag.
    enum class Kind { SGD, Adam, AdamW };
    Kind kind = Kind::SGD;
    float* buf1 = nullptr;  // SGD: momentum_buffer; Adam, AdamW: exp_avg
    float* buf2 = nullptr;  // Adam, AdamW: exp_avg_sq
    // lr and the betas in double, as the optimizer holds them (Python floats, in torch): AdamW's
    // scalars (1 - lr * weight_decay, 1 - beta, lr / bias_correction1) are computed from them
    // in double and only then rounded to float, as torch computes them. SGD and Adam round lr and
    // the betas to float first, as they always have.
    double lr = 0.0;
    float momentum = 0.0f;  // SGD
    double beta1 = 0.0, beta2 = 0.0;
    float eps = 0.0f;
    // AdamW: param *= 1 - lr * weight_decay before the Adam step. 0 for a parameter that is not
    // decayed (nanoGPT's configure_optimizers: biases and LayerNorm weights, under 2 dimensions).
    double weight_decay = 0.0;
    int64_t step = 0;      // Adam, AdamW: this step's number (1-based), for the bias corrections
    float* out = nullptr;  // where the updated weight goes; null: in place. (The Trainer writes
                           // into a second buffer so the weights before the step stay intact.)
    // A flag in the backend's memory (one float, written by an earlier kernel such as
    // all_finite): the update is made only when it is non-zero; when it is zero nothing is written,
    // not the weight, not `out`, not the optimizer state (the gradient still is). Null: always.
    // The Trainer's: a step whose loss is not finite changes nothing, and it learns so at the
    // step's one synchronisation instead of waiting for the loss before the backward pass.
    const float* apply_if = nullptr;
};

// One range for Backend::download_many: `bytes` from the backend's memory at `src` to the host's at `dst`.
struct DownloadRange {
    void* dst;
    const void* src;
    size_t bytes;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    // What computes, for people: "cpu, 2 threads", "gpu, NVIDIA H100 …". (How a backend divides
    // its work, threads or workgroups, is its own business, not the interface's.)
    virtual std::string describe() const = 0;

    // Whether this backend computes `k` itself (true) or hands it to the CPU (false: the
    // default). The engine needs no answer, the call is the same either way; it is for tests,
    // for the device's description, and for choosing what to write a shader for next.
    virtual bool supports(Kernel k) const;

    // Linear without bias, PyTorch layout: y = x W^T.
    // y (N, O); x (N, I); W (O, I)
    virtual void linear_forward(float* y, const float* x, const float* W, int N, int I, int O);
    // dx (N, I) = or += dy W (dx may be null); dW (O, I) = or += dy^T x (dW may be null)
    virtual void linear_backward(float* dx, float* dW, const float* dy, const float* x, const float* W, int N, int I,
                                 int O, bool accumulate_dx, bool accumulate_dw = true);

    // linear_backward with dW overwritten, then W updated in place by `upd` exactly as
    // apply_update would; dW may be null (the gradient is then not kept). Adds sum(dW^2) to
    // *dW_sum_squares (may be null), valid after sync().
    virtual void linear_backward_update(float* dx, float* dW, double* dW_sum_squares, const float* dy, const float* x,
                                        float* W, int N, int I, int O, bool accumulate_dx, const WeightUpdate& upd);
    // sgd_step, adam_step or AdamW's step as `upd` says, for parameters outside linear layers (and the
    // optimizer's preview). With upd.out (not param), the updated values go there and param stays
    // as it was (the Trainer's double buffer): a kernel, so that the copy happens where the
    // numbers live.
    virtual void apply_update(float* param, const float* grad, int64_t n, const WeightUpdate& upd);

    // out (N, D) = table[ids]; dtable (V, D) += scatter of dout. Every id is in [0, V) (the model
    // checks); V sizes the table for a backend that keeps it in its own memory.
    virtual void embedding_forward(float* out, const int* ids, const float* table, int N, int V, int D);
    virtual void embedding_backward(float* dtable, const float* dout, const int* ids, int N, int V, int D);

    // (B, L, H*d) -> (B, H, L, d) and back; the backward of one is the other.
    virtual void split_heads(float* out, const float* in, int B, int L, int H, int d);
    virtual void merge_heads(float* out, const float* in, int B, int L, int H, int d);

    // scores (G, Lq, Lk) = scale * Q K^T with Q (G, Lq, dk), K (G, Lk, dk); G = batch*heads.
    virtual void attn_scores_forward(float* scores, const float* Q, const float* K, int G, int Lq, int Lk, int dk,
                                     float scale);
    // dQ = scale dscores K ; dK = scale dscores^T Q (both overwritten)
    virtual void attn_scores_backward(float* dQ, float* dK, const float* dscores, const float* Q, const float* K, int G,
                                      int Lq, int Lk, int dk, float scale);

    // out (B, H, Lq, Lk) = mask (B, Lq, Lk) != 0 ? value : in ; backward zeroes the masked cells
    virtual void mask_fill_forward(float* out, const float* in, const float* mask, int B, int H, int Lq, int Lk,
                                   float value);
    virtual void mask_fill_backward(float* din, const float* dout, const float* mask, int B, int H, int Lq, int Lk);

    // softmax over the last axis of (rows, cols)
    virtual void softmax_forward(float* out, const float* in, int rows, int cols);
    virtual void softmax_backward(float* din, const float* dout, const float* out, int rows, int cols);

    // context (G, Lq, dv) = attn (G, Lq, Lk) V (G, Lk, dv)
    virtual void attn_context_forward(float* context, const float* attn, const float* V, int G, int Lq, int Lk,
                                      int dv);
    // dattn = dcontext V^T ; dV = attn^T dcontext (both overwritten)
    virtual void attn_context_backward(float* dattn, float* dV, const float* dcontext, const float* attn,
                                       const float* V, int G, int Lq, int Lk, int dv);

    // out = a + b (n elements)
    virtual void add_forward(float* out, const float* a, const float* b, int64_t n);
    // out = (in + pe[l]) * keep, broadcast pe (L, D) over the batch; keep may be null (no dropout)
    virtual void positional_forward(float* out, const float* in, const float* pe, const float* keep, int B, int L,
                                    int D);

    // LayerNorm over the last axis; mean, rstd (rows) saved for the backward. gamma and beta are
    // both null for a LayerNorm without learned scale and shift (the tutorial's); beta alone is
    // null for one with a scale and no shift (nanoGPT's LayerNorm(bias=False): y = xhat * gamma).
    // A beta without gamma is not a LayerNorm anyone builds: not allowed.
    virtual void layernorm_forward(float* out, float* mean, float* rstd, const float* in, const float* gamma,
                                   const float* beta, int rows, int cols, float eps);
    // din overwritten; dgamma, dbeta accumulated (both null when gamma is; dbeta null when the
    // LayerNorm has no beta)
    virtual void layernorm_backward(float* din, float* dgamma, float* dbeta, const float* dout, const float* in,
                                    const float* mean, const float* rstd, const float* gamma, int rows, int cols);

    virtual void relu_forward(float* out, const float* in, int64_t n);
    virtual void relu_backward(float* din, const float* dout, const float* out, int64_t n);
    // GELU as PyTorch's default (approximate='none'): out = x/2 (1 + erf(x/√2)). Its backward
    // takes the input: din = dout (Φ(x) + x φ(x)), Φ, φ the standard normal's CDF and density.
    virtual void gelu_forward(float* out, const float* in, int64_t n);
    virtual void gelu_backward(float* din, const float* dout, const float* in, int64_t n);
    // y (N, O) += bias (O), broadcast over the rows: nn.Linear's bias after linear_forward.
    virtual void add_bias(float* y, const float* bias, int N, int O);
    // dbias (O) += column sums of dy (N, O), rows added in order (accumulated: the caller zeroes it).
    virtual void bias_backward(float* dbias, const float* dy, int N, int O);
    // out (n) = in * s (in may be out): the embedding's × √d_model, and its backward.
    virtual void scale(float* out, const float* in, int64_t n, float s);

    // Cross-entropy with ignore_index: losses (N) = -log probs[target] (0 where target == ignore),
    // counted = the number of rows whose target is not ignored, mean = the mean loss over them (0
    // when none). mean and counted are host scalars, valid after sync(); counted may be null.
    virtual void cross_entropy_forward(float* losses, float* mean, int* counted, const float* probs, const int* targets,
                                       int N, int V, int ignore_index);
    // dlogits (N, V) = (probs - onehot) / counted for counted rows, 0 elsewhere; the kernel counts
    // the rows itself, so the backward pass needs no number from the forward's synchronisation.
    virtual void cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                        int ignore_index);
    // Label-smoothed cross-entropy (attention-is-all-you-need-pytorch's cal_loss): for a row whose
    // target t is not ignore_index, q = 1 - eps at t and eps / (V - 1) elsewhere, and
    // losses[r] = -Σ_c q_c log_softmax(logits[r])_c (from the logits, so no probability underflows
    // to a log of 0); 0 for ignored rows. *sum = Σ_r losses[r], a host scalar valid after sync().
    virtual void smoothed_cross_entropy_forward(float* losses, float* sum, const float* logits, const int* targets,
                                                int N, int V, int ignore_index, float eps);
    // dlogits (N, V) = (probs - q) * scale for counted rows, 0 for ignored ones (probs = softmax of
    // the logits; scale 1 for cal_loss's sum).
    virtual void smoothed_cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                                 int ignore_index, float eps, float scale);
    // flag (1) = 1 when every x is finite, else 0 (the guard of WeightUpdate::apply_if)
    virtual void all_finite(float* flag, const float* x, int64_t n);

    // ----- What the model needs besides its layers, made where the kernels run (on a GPU, the
    // device), so that no host loop sits between two kernels.

    // mask (B, Lq, Lk) = 1 where the key's id in ids_k (B, Lk) is pad_id, else 0 (get_attn_pad_mask)
    virtual void pad_mask(float* mask, const int* ids_k, int B, int Lq, int Lk, int pad_id);
    // mask (B, T, T) = 1 above the diagonal, else 0 (get_attn_subsequence_mask)
    virtual void subsequence_mask(float* mask, int B, int T);
    // out (n) = a + b > 0 ? 1 : 0 (torch.gt(pad + subsequence, 0))
    virtual void mask_or(float* out, const float* a, const float* b, int64_t n);
    // pe (L, D): the tutorial's sinusoid table, in float32 as its PositionalEncoding computes it
    virtual void positional_table(float* pe, int L, int D);
    // keep (n) = 0 with probability p, else 1 / (1 - p). Element i is decided by word i of the
    // Philox4x32-10 stream for (seed, offset) (philox.h), so every backend draws the same mask for
    // the same seed and offset.
    virtual void dropout_mask(float* keep, int64_t n, float p, uint64_t seed, uint64_t offset);
    // out (n) = a * b: dropout's backward (the gradient times the kept mask)
    virtual void mul_forward(float* out, const float* a, const float* b, int64_t n);
    // x (n) = value: zeroing the accumulated gradients
    virtual void fill(float* x, int64_t n, float value);
    // out (n) = in: a gradient that flows on unchanged into two places (a residual sum's inputs)
    virtual void copy(float* out, const float* in, int64_t n);

    // Optimizer updates (in place), as torch.optim does them.
    virtual void sgd_step(float* param, float* momentum_buf, const float* grad, int64_t n, float lr, float momentum);
    virtual void adam_step(float* param, float* m, float* v, const float* grad, int64_t n, float lr, float beta1,
                           float beta2, float eps, int64_t step);
    // sum of squares, accumulated in double
    virtual void sum_squares(double* acc, const float* x, int64_t n);  // *acc += sum(x^2), after sync()

    // ----- Memory (see the top of this file). The defaults are the host's: aligned new and delete,
    // memcpy. alloc gives `bytes` of uninitialised memory, 64-byte aligned (throws
    // std::bad_alloc); release gives it back (null: nothing). upload is queued in order with the
    // kernels: the host source may change as soon as it returns. download waits for the kernels
    // queued before it, then copies.
    virtual bool host_memory() const { return true; }
    virtual void* alloc(size_t bytes);
    virtual void release(void* p);
    virtual void upload(void* dst, const void* src, size_t bytes);
    virtual void download(void* dst, const void* src, size_t bytes);
    // download() of each range in turn, with one wait for the device: a view's pass brings back
    // dozens of tensors, and a GPU whose memory the host cannot see would otherwise copy and wait
    // once per tensor. The default calls download() for each.
    virtual void download_many(std::span<const DownloadRange> ranges);
    // Bytes of the backend's own memory allocated and not released, for leak checks and the
    // user; 0 for a backend that computes in host memory (it does not count the host's).
    virtual size_t memory_in_use() const { return 0; }
    // Gives back what the backend keeps for reuse (a GPU's freed buffers, kept so that the next
    // step need not allocate): for a backend the app has stopped computing on. It stays usable.
    // Returns the bytes given back.
    virtual size_t trim();  // (out of line: every kernel set's object would define an inline one)
    // What the backend's device did so far (dispatches, barriers, submissions, recordings, copies,
    // allocations: backend_counters.h); nullopt for a backend that computes in the host's memory.
    // set_profiling(true) times every dispatch too (device time per kernel family) where the device
    // has timestamps, and says whether it does. Both for measuring, not for computing.
    virtual std::optional<BackendCounters> counters() const;
    virtual bool set_profiling(bool on);

    // ----- Time. A backend may run kernels asynchronously (a GPU queues them). sync() returns
    // when every kernel called so far has finished, its buffers written and the scalars it was
    // given (a loss, a gradient's sum of squares) in place: a training step collects its scalars
    // and reads them after one sync, not after every kernel.
    virtual void sync() = 0;

    // One scalar at once, for a caller that wants one number now (a test, a one-off figure): a
    // synchronisation of its own.
    double sum_squares_now(const float* x, int64_t n) {
        double s = 0.0;
        sum_squares(&s, x, n);
        sync();
        return s;
    }

protected:
    // Where a kernel this backend does not override goes: by default the CPU backend, through
    // host copies of this backend's memory when it is not the host's (synchronous: the
    // downloads wait for the kernels queued before). A test backend overrides this to check or
    // copy every kernel's arguments in one place.
    virtual void run_elsewhere(Kernel k, const KernelCall& call);
};

// The CPU reference backend; `threads` <= 0 means all cores.
std::unique_ptr<Backend> make_cpu_backend(int threads = 0);
// The process-wide default backend: the CPU backend with all cores.
Backend& default_backend();

// The registry: every backend this build can make, by name ("cpu" always; a GPU backend adds
// itself where it is built). make_backend throws std::invalid_argument for a name not
// registered, naming the ones that are.
using BackendFactory = std::unique_ptr<Backend> (*)(int threads);
void register_backend(const std::string& name, BackendFactory make);
std::vector<std::string> available_backends();
std::unique_ptr<Backend> make_backend(const std::string& name, int threads = 0);

}  // namespace stepformer
