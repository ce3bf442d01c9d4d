#include "copy_backend.h"

#include "stepformer/devices.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace stepformer::testing {

namespace {

// Floats either side of every scratch buffer, filled with a sentinel and checked afterwards.
constexpr size_t kGuard = 16;

template <class T>
T garbage() {
    if constexpr (std::is_floating_point_v<T>)
        return std::numeric_limits<T>::quiet_NaN();
    else
        return T(INT_MIN + 7);
}
template <class T>
T sentinel() {
    if constexpr (std::is_floating_point_v<T>)
        return T(-7.77e33f);
    else
        return T(0x5eadbeef);
}

enum class Mode {
    In,     // copied in; must come out unchanged
    Out,    // pre-filled with garbage; copied back
    InOut,  // copied in (accumulated into or updated in place); copied back
};

struct Scratch {
    virtual ~Scratch() = default;
    // Checks the guard zones and that an input is unchanged (first pass), then copies an
    // output back (second pass: an output that aliases an input on the caller's side must not
    // be taken for a write into the input).
    virtual void check(const std::string& kernel) = 0;
    virtual void copy_back() = 0;
};

template <class T>
struct Buffer : Scratch {
    const char* arg;
    T* host;
    size_t n;
    Mode mode;
    std::vector<T> mem;

    Buffer(const char* a, T* h, size_t count, Mode m) : arg(a), host(h), n(count), mode(m) {
        mem.assign(n + 2 * kGuard, sentinel<T>());
        if (mode == Mode::Out)
            std::fill(mem.begin() + kGuard, mem.begin() + kGuard + n, garbage<T>());
        else
            std::copy(host, host + n, mem.begin() + kGuard);
    }
    T* device() { return mem.data() + kGuard; }

    void check(const std::string& kernel) override {
        const T s = sentinel<T>();
        for (size_t i = 0; i < kGuard; ++i)
            if (std::memcmp(&mem[i], &s, sizeof(T)) != 0 || std::memcmp(&mem[kGuard + n + i], &s, sizeof(T)) != 0)
                throw std::logic_error(kernel + " wrote outside its argument " + arg + " (" + std::to_string(n) +
                                       " elements)");
        if (mode == Mode::In) {
            if (n && std::memcmp(device(), host, n * sizeof(T)) != 0)
                throw std::logic_error(kernel + " wrote into its input " + arg);
        }
    }
    void copy_back() override {
        if (mode != Mode::In) std::copy(device(), device() + n, host);
    }
};

// One kernel call's scratch buffers: made before the kernel, finished (checked, copied back)
// after it.
class Call {
public:
    explicit Call(std::string kernel) : kernel_(std::move(kernel)) {}

    template <class T>
    const T* in(const char* arg, const T* host, size_t n) {
        return add(arg, const_cast<T*>(host), n, Mode::In);
    }
    template <class T>
    T* out(const char* arg, T* host, size_t n) {
        return add(arg, host, n, Mode::Out);
    }
    template <class T>
    T* inout(const char* arg, T* host, size_t n) {
        return add(arg, host, n, Mode::InOut);
    }
    // Out or InOut as the kernel accumulates into the argument or not.
    template <class T>
    T* out(const char* arg, T* host, size_t n, bool accumulates) {
        return add(arg, host, n, accumulates ? Mode::InOut : Mode::Out);
    }
    void done() {
        for (auto& b : bufs_) b->check(kernel_);
        for (auto& b : bufs_) b->copy_back();
    }

private:
    template <class T>
    T* add(const char* arg, T* host, size_t n, Mode m) {
        if (!host) return nullptr;
        auto b = std::make_unique<Buffer<T>>(arg, host, n, m);
        T* d = b->device();
        bufs_.push_back(std::move(b));
        return d;
    }
    std::string kernel_;
    std::vector<std::unique_ptr<Scratch>> bufs_;
};

size_t z(int64_t a) { return size_t(a); }

class CopyBackend final : public Backend {
public:
    explicit CopyBackend(int threads) : cpu_(make_cpu_backend(threads)) {}
    std::string name() const override { return kCopyBackendName; }
    std::string describe() const override { return "cpu-copy (" + cpu_describe() + ", through copies)"; }
    std::string cpu_describe() const { return cpu_->describe(); }

    void linear_forward(float* y, const float* x, const float* W, int N, int I, int O) override {
        Call c("linear_forward");
        float* dy = c.out("y", y, z(N) * O);
        const float* dx = c.in("x", x, z(N) * I);
        const float* dW = c.in("W", W, z(O) * I);
        cpu_->linear_forward(dy, dx, dW, N, I, O);
        c.done();
    }
    void linear_backward(float* dx, float* dW, const float* dy, const float* x, const float* W, int N, int I, int O,
                         bool accumulate_dx, bool accumulate_dw) override {
        Call c("linear_backward");
        float* ddx = c.out("dx", dx, z(N) * I, accumulate_dx);
        float* ddW = c.out("dW", dW, z(O) * I, accumulate_dw);
        const float* ddy = c.in("dy", dy, z(N) * O);
        const float* dxx = c.in("x", x, z(N) * I);
        const float* dWW = c.in("W", W, z(O) * I);
        cpu_->linear_backward(ddx, ddW, ddy, dxx, dWW, N, I, O, accumulate_dx, accumulate_dw);
        c.done();
    }
    void linear_backward_update(float* dx, float* dW, double* dW_sum_squares, const float* dy, const float* x, float* W,
                                int N, int I, int O, bool accumulate_dx, const WeightUpdate& upd) override {
        Call c("linear_backward_update");
        const size_t nw = z(O) * I;
        float* ddx = c.out("dx", dx, z(N) * I, accumulate_dx);
        float* ddW = c.out("dW", dW, nw);
        const float* ddy = c.in("dy", dy, z(N) * O);
        const float* dxx = c.in("x", x, z(N) * I);
        WeightUpdate u = upd;
        float* dWW;
        if (upd.out && upd.out != W) {
            dWW = const_cast<float*>(c.in("W", static_cast<const float*>(W), nw));  // stays as it was
            u.out = c.out("upd.out", upd.out, nw, upd.apply_if != nullptr);  // a guarded update may keep it
        } else {
            dWW = c.inout("W", W, nw);
            u.out = upd.out ? dWW : nullptr;
        }
        u.buf1 = c.inout("upd.buf1", upd.buf1, nw);
        u.buf2 = c.inout("upd.buf2", upd.buf2, nw);
        u.apply_if = c.in("upd.apply_if", upd.apply_if, 1);
        double* ss = c.inout("dW_sum_squares", dW_sum_squares, 1);  // accumulated
        cpu_->linear_backward_update(ddx, ddW, ss, ddy, dxx, dWW, N, I, O, accumulate_dx, u);
        c.done();
    }

    void embedding_forward(float* out, const int* ids, const float* table, int N, int V, int D) override {
        Call c("embedding_forward");
        float* dout = c.out("out", out, z(N) * D);
        const int* dids = c.in("ids", ids, z(N));
        const float* dtable = c.in("table", table, z(V) * D);
        cpu_->embedding_forward(dout, dids, dtable, N, V, D);
        c.done();
    }
    void embedding_backward(float* dtable, const float* dout, const int* ids, int N, int V, int D) override {
        Call c("embedding_backward");
        float* ddtable = c.inout("dtable", dtable, z(V) * D);  // accumulated
        const float* ddout = c.in("dout", dout, z(N) * D);
        const int* dids = c.in("ids", ids, z(N));
        cpu_->embedding_backward(ddtable, ddout, dids, N, V, D);
        c.done();
    }

    void split_heads(float* out, const float* in, int B, int L, int H, int d) override {
        Call c("split_heads");
        const size_t n = z(B) * L * H * d;
        float* o = c.out("out", out, n);
        const float* i = c.in("in", in, n);
        cpu_->split_heads(o, i, B, L, H, d);
        c.done();
    }
    void merge_heads(float* out, const float* in, int B, int L, int H, int d) override {
        Call c("merge_heads");
        const size_t n = z(B) * L * H * d;
        float* o = c.out("out", out, n);
        const float* i = c.in("in", in, n);
        cpu_->merge_heads(o, i, B, L, H, d);
        c.done();
    }

    void attn_scores_forward(float* scores, const float* Q, const float* K, int G, int Lq, int Lk, int dk,
                             float scale) override {
        Call c("attn_scores_forward");
        float* s = c.out("scores", scores, z(G) * Lq * Lk);
        const float* q = c.in("Q", Q, z(G) * Lq * dk);
        const float* k = c.in("K", K, z(G) * Lk * dk);
        cpu_->attn_scores_forward(s, q, k, G, Lq, Lk, dk, scale);
        c.done();
    }
    void attn_scores_backward(float* dQ, float* dK, const float* dscores, const float* Q, const float* K, int G, int Lq,
                              int Lk, int dk, float scale) override {
        Call c("attn_scores_backward");
        float* dq = c.out("dQ", dQ, z(G) * Lq * dk);
        float* dkk = c.out("dK", dK, z(G) * Lk * dk);
        const float* ds = c.in("dscores", dscores, z(G) * Lq * Lk);
        const float* q = c.in("Q", Q, z(G) * Lq * dk);
        const float* k = c.in("K", K, z(G) * Lk * dk);
        cpu_->attn_scores_backward(dq, dkk, ds, q, k, G, Lq, Lk, dk, scale);
        c.done();
    }

    void mask_fill_forward(float* out, const float* in, const float* mask, int B, int H, int Lq, int Lk,
                           float value) override {
        Call c("mask_fill_forward");
        float* o = c.out("out", out, z(B) * H * Lq * Lk);
        const float* i = c.in("in", in, z(B) * H * Lq * Lk);
        const float* m = c.in("mask", mask, z(B) * Lq * Lk);
        cpu_->mask_fill_forward(o, i, m, B, H, Lq, Lk, value);
        c.done();
    }
    void mask_fill_backward(float* din, const float* dout, const float* mask, int B, int H, int Lq, int Lk) override {
        Call c("mask_fill_backward");
        float* di = c.out("din", din, z(B) * H * Lq * Lk);
        const float* d = c.in("dout", dout, z(B) * H * Lq * Lk);
        const float* m = c.in("mask", mask, z(B) * Lq * Lk);
        cpu_->mask_fill_backward(di, d, m, B, H, Lq, Lk);
        c.done();
    }

    void softmax_forward(float* out, const float* in, int rows, int cols) override {
        Call c("softmax_forward");
        float* o = c.out("out", out, z(rows) * cols);
        const float* i = c.in("in", in, z(rows) * cols);
        cpu_->softmax_forward(o, i, rows, cols);
        c.done();
    }
    void softmax_backward(float* din, const float* dout, const float* out, int rows, int cols) override {
        Call c("softmax_backward");
        float* di = c.out("din", din, z(rows) * cols);
        const float* d = c.in("dout", dout, z(rows) * cols);
        const float* o = c.in("out", out, z(rows) * cols);
        cpu_->softmax_backward(di, d, o, rows, cols);
        c.done();
    }

    void attn_context_forward(float* context, const float* attn, const float* V, int G, int Lq, int Lk,
                              int dv) override {
        Call c("attn_context_forward");
        float* ctx = c.out("context", context, z(G) * Lq * dv);
        const float* a = c.in("attn", attn, z(G) * Lq * Lk);
        const float* v = c.in("V", V, z(G) * Lk * dv);
        cpu_->attn_context_forward(ctx, a, v, G, Lq, Lk, dv);
        c.done();
    }
    void attn_context_backward(float* dattn, float* dV, const float* dcontext, const float* attn, const float* V, int G,
                               int Lq, int Lk, int dv) override {
        Call c("attn_context_backward");
        float* da = c.out("dattn", dattn, z(G) * Lq * Lk);
        float* dvv = c.out("dV", dV, z(G) * Lk * dv);
        const float* dc = c.in("dcontext", dcontext, z(G) * Lq * dv);
        const float* a = c.in("attn", attn, z(G) * Lq * Lk);
        const float* v = c.in("V", V, z(G) * Lk * dv);
        cpu_->attn_context_backward(da, dvv, dc, a, v, G, Lq, Lk, dv);
        c.done();
    }

    void add_forward(float* out, const float* a, const float* b, int64_t n) override {
        Call c("add_forward");
        float* o = c.out("out", out, z(n));
        const float* da = c.in("a", a, z(n));
        const float* db = c.in("b", b, z(n));
        cpu_->add_forward(o, da, db, n);
        c.done();
    }
    void positional_forward(float* out, const float* in, const float* pe, const float* keep, int B, int L,
                            int D) override {
        Call c("positional_forward");
        const size_t n = z(B) * L * D;
        float* o = c.out("out", out, n);
        const float* i = c.in("in", in, n);
        const float* p = c.in("pe", pe, z(L) * D);
        const float* k = c.in("keep", keep, n);
        cpu_->positional_forward(o, i, p, k, B, L, D);
        c.done();
    }

    void layernorm_forward(float* out, float* mean, float* rstd, const float* in, const float* gamma, const float* beta,
                           int rows, int cols, float eps) override {
        Call c("layernorm_forward");
        float* o = c.out("out", out, z(rows) * cols);
        float* m = c.out("mean", mean, z(rows));
        float* r = c.out("rstd", rstd, z(rows));
        const float* i = c.in("in", in, z(rows) * cols);
        const float* g = c.in("gamma", gamma, z(cols));
        const float* b = c.in("beta", beta, z(cols));
        cpu_->layernorm_forward(o, m, r, i, g, b, rows, cols, eps);
        c.done();
    }
    void layernorm_backward(float* din, float* dgamma, float* dbeta, const float* dout, const float* in,
                            const float* mean, const float* rstd, const float* gamma, int rows, int cols) override {
        Call c("layernorm_backward");
        float* di = c.out("din", din, z(rows) * cols);
        float* dg = c.inout("dgamma", dgamma, z(cols));  // accumulated
        float* db = c.inout("dbeta", dbeta, z(cols));    // accumulated
        const float* d = c.in("dout", dout, z(rows) * cols);
        const float* i = c.in("in", in, z(rows) * cols);
        const float* m = c.in("mean", mean, z(rows));
        const float* r = c.in("rstd", rstd, z(rows));
        const float* g = c.in("gamma", gamma, z(cols));
        cpu_->layernorm_backward(di, dg, db, d, i, m, r, g, rows, cols);
        c.done();
    }

    void relu_forward(float* out, const float* in, int64_t n) override {
        Call c("relu_forward");
        float* o = c.out("out", out, z(n));
        const float* i = c.in("in", in, z(n));
        cpu_->relu_forward(o, i, n);
        c.done();
    }
    void relu_backward(float* din, const float* dout, const float* out, int64_t n) override {
        Call c("relu_backward");
        float* di = c.out("din", din, z(n));
        const float* d = c.in("dout", dout, z(n));
        const float* o = c.in("out", out, z(n));
        cpu_->relu_backward(di, d, o, n);
        c.done();
    }
    void gelu_forward(float* out, const float* in, int64_t n) override {
        Call c("gelu_forward");
        float* o = c.out("out", out, z(n));
        const float* i = c.in("in", in, z(n));
        cpu_->gelu_forward(o, i, n);
        c.done();
    }
    void gelu_backward(float* din, const float* dout, const float* in, int64_t n) override {
        Call c("gelu_backward");
        float* di = c.out("din", din, z(n));
        const float* d = c.in("dout", dout, z(n));
        const float* i = c.in("in", in, z(n));
        cpu_->gelu_backward(di, d, i, n);
        c.done();
    }
    void add_bias(float* y, const float* bias, int N, int O) override {
        Call c("add_bias");
        float* dy = c.inout("y", y, z(N) * O);  // added to
        const float* b = c.in("bias", bias, z(O));
        cpu_->add_bias(dy, b, N, O);
        c.done();
    }
    void bias_backward(float* dbias, const float* dy, int N, int O) override {
        Call c("bias_backward");
        float* db = c.inout("dbias", dbias, z(O));  // accumulated
        const float* d = c.in("dy", dy, z(N) * O);
        cpu_->bias_backward(db, d, N, O);
        c.done();
    }
    void scale(float* out, const float* in, int64_t n, float s) override {
        Call c("scale");
        if (out == in) {  // in place, as the interface allows: one buffer, updated
            float* io = c.inout("out", out, z(n));
            cpu_->scale(io, io, n, s);
        } else {
            float* o = c.out("out", out, z(n));
            const float* i = c.in("in", in, z(n));
            cpu_->scale(o, i, n, s);
        }
        c.done();
    }

    void cross_entropy_forward(float* losses, float* mean, int* counted, const float* probs, const int* targets, int N,
                               int V, int ignore_index) override {
        Call c("cross_entropy_forward");
        float* l = c.out("losses", losses, z(N));
        float* m = c.out("mean", mean, 1);
        int* cnt = c.out("counted", counted, 1);
        const float* p = c.in("probs", probs, z(N) * V);
        const int* t = c.in("targets", targets, z(N));
        cpu_->cross_entropy_forward(l, m, cnt, p, t, N, V, ignore_index);
        c.done();
    }
    void cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                int ignore_index) override {
        Call c("cross_entropy_backward");
        float* dl = c.out("dlogits", dlogits, z(N) * V);
        const float* p = c.in("probs", probs, z(N) * V);
        const int* t = c.in("targets", targets, z(N));
        cpu_->cross_entropy_backward(dl, p, t, N, V, ignore_index);
        c.done();
    }
    void smoothed_cross_entropy_forward(float* losses, float* sum, const float* logits, const int* targets, int N,
                                        int V, int ignore_index, float eps) override {
        Call c("smoothed_cross_entropy_forward");
        float* l = c.out("losses", losses, z(N));
        float* s = c.out("sum", sum, 1);
        const float* x = c.in("logits", logits, z(N) * V);
        const int* t = c.in("targets", targets, z(N));
        cpu_->smoothed_cross_entropy_forward(l, s, x, t, N, V, ignore_index, eps);
        c.done();
    }
    void smoothed_cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                         int ignore_index, float eps, float scale) override {
        Call c("smoothed_cross_entropy_backward");
        float* dl = c.out("dlogits", dlogits, z(N) * V);
        const float* p = c.in("probs", probs, z(N) * V);
        const int* t = c.in("targets", targets, z(N));
        cpu_->smoothed_cross_entropy_backward(dl, p, t, N, V, ignore_index, eps, scale);
        c.done();
    }
    void all_finite(float* flag, const float* x, int64_t n) override {
        Call c("all_finite");
        float* f = c.out("flag", flag, 1);
        const float* dx = c.in("x", x, z(n));
        cpu_->all_finite(f, dx, n);
        c.done();
    }

    void pad_mask(float* mask, const int* ids_k, int B, int Lq, int Lk, int pad_id) override {
        Call c("pad_mask");
        float* m = c.out("mask", mask, z(B) * Lq * Lk);
        const int* ids = c.in("ids_k", ids_k, z(B) * Lk);
        cpu_->pad_mask(m, ids, B, Lq, Lk, pad_id);
        c.done();
    }
    void subsequence_mask(float* mask, int B, int T) override {
        Call c("subsequence_mask");
        float* m = c.out("mask", mask, z(B) * T * T);
        cpu_->subsequence_mask(m, B, T);
        c.done();
    }
    void mask_or(float* out, const float* a, const float* b, int64_t n) override {
        Call c("mask_or");
        float* o = c.out("out", out, z(n));
        const float* da = c.in("a", a, z(n));
        const float* db = c.in("b", b, z(n));
        cpu_->mask_or(o, da, db, n);
        c.done();
    }
    void positional_table(float* pe, int L, int D) override {
        Call c("positional_table");
        float* p = c.out("pe", pe, z(L) * D);
        cpu_->positional_table(p, L, D);
        c.done();
    }
    void dropout_mask(float* keep, int64_t n, float p, uint64_t seed, uint64_t offset) override {
        Call c("dropout_mask");
        float* k = c.out("keep", keep, z(n));
        cpu_->dropout_mask(k, n, p, seed, offset);
        c.done();
    }
    void mul_forward(float* out, const float* a, const float* b, int64_t n) override {
        Call c("mul_forward");
        float* o = c.out("out", out, z(n));
        const float* da = c.in("a", a, z(n));
        const float* db = c.in("b", b, z(n));
        cpu_->mul_forward(o, da, db, n);
        c.done();
    }
    void fill(float* x, int64_t n, float value) override {
        Call c("fill");
        float* dx = c.out("x", x, z(n));
        cpu_->fill(dx, n, value);
        c.done();
    }

    void copy(float* out, const float* in, int64_t n) override {
        Call c("copy");
        float* o = c.out("out", out, z(n));
        const float* i = c.in("in", in, z(n));
        cpu_->copy(o, i, n);
        c.done();
    }

    void sgd_step(float* param, float* momentum_buf, const float* grad, int64_t n, float lr, float momentum) override {
        Call c("sgd_step");
        float* p = c.inout("param", param, z(n));
        float* m = c.inout("momentum_buf", momentum_buf, z(n));
        const float* g = c.in("grad", grad, z(n));
        cpu_->sgd_step(p, m, g, n, lr, momentum);
        c.done();
    }
    void adam_step(float* param, float* m, float* v, const float* grad, int64_t n, float lr, float beta1, float beta2,
                   float eps, int64_t step) override {
        Call c("adam_step");
        float* p = c.inout("param", param, z(n));
        float* dm = c.inout("m", m, z(n));
        float* dv = c.inout("v", v, z(n));
        const float* g = c.in("grad", grad, z(n));
        cpu_->adam_step(p, dm, dv, g, n, lr, beta1, beta2, eps, step);
        c.done();
    }
    void apply_update(float* param, const float* grad, int64_t n, const WeightUpdate& upd) override {
        Call c("apply_update");
        WeightUpdate u = upd;
        float* p;
        if (upd.out && upd.out != param) {
            p = const_cast<float*>(c.in("param", static_cast<const float*>(param), z(n)));  // stays as it was
            u.out = c.out("upd.out", upd.out, z(n), upd.apply_if != nullptr);  // a guarded update may keep it
        } else {
            p = c.inout("param", param, z(n));
            u.out = upd.out ? p : nullptr;
        }
        u.buf1 = c.inout("upd.buf1", upd.buf1, z(n));
        u.buf2 = c.inout("upd.buf2", upd.buf2, z(n));
        u.apply_if = c.in("upd.apply_if", upd.apply_if, 1);
        const float* g = c.in("grad", grad, z(n));
        cpu_->apply_update(p, g, n, u);
        c.done();
    }
    void sum_squares(double* acc, const float* x, int64_t n) override {
        Call c("sum_squares");
        double* a = c.inout("acc", acc, 1);  // accumulated
        const float* dx = c.in("x", x, z(n));
        cpu_->sum_squares(a, dx, n);
        c.done();
    }
    void sync() override { cpu_->sync(); }

private:
    std::unique_ptr<Backend> cpu_;
};

// ----- "cpu-device": a backend with memory of its own and a queue, as a GPU has.

// Bytes either side of every allocation, filled with kZoneByte and checked at release and sync.
// 64 keeps the allocation 64-byte aligned, as Backend::alloc promises.
constexpr size_t kZone = 64;
constexpr unsigned char kZoneByte = 0xa5;
// A fresh allocation's contents: NaN as floats, -1 as ints, so that reading memory nothing wrote
// gives numbers nobody mistakes for results.
constexpr unsigned char kFreshByte = 0xff;

// One pointer argument of a kernel or a copy, as the device must see it.
struct Arg {
    const char* name;
    const void* p;
    size_t bytes;
    size_t align;
    bool optional;  // null is allowed (the interface says so)
};
template <class T>
Arg need(const char* name, const T* p, size_t n) {
    return {name, p, n * sizeof(T), alignof(T), false};
}
template <class T>
Arg opt(const char* name, const T* p, size_t n) {
    return {name, p, n * sizeof(T), alignof(T), true};
}

class DeviceBackend final : public Backend {
public:
    explicit DeviceBackend(int threads) : inner_(threads) {}
    ~DeviceBackend() override {
        // Queued kernels would run on memory freed below: drop them. Allocations still live are
        // a leak the tests find with device_live_bytes(); freed here all the same.
        queues_.clear();
        for (auto& [base, a] : allocs_) ::operator delete(a.raw, std::align_val_t(64));
    }

    std::string name() const override { return kDeviceBackendName; }
    std::string describe() const override {
        return std::string(kDeviceBackendName) + " (" + inner_.cpu_describe() + ", own memory, deferred)";
    }

    size_t memory_in_use() const override { return live_bytes(); }
    size_t sync_waits() const { return waits_.load(); }
    void reset_sync_waits() { waits_.store(0); }
    size_t live_bytes() const {
        std::lock_guard lock(mu_);
        return live_bytes_;
    }

    // ----- Memory

    bool host_memory() const override { return false; }

    void* alloc(size_t bytes) override {
        auto* raw = static_cast<unsigned char*>(::operator new(bytes + 2 * kZone, std::align_val_t(64)));
        std::memset(raw, kZoneByte, kZone);
        std::memset(raw + kZone, kFreshByte, bytes);
        std::memset(raw + kZone + bytes, kZoneByte, kZone);
        std::lock_guard lock(mu_);
        allocs_.emplace(reinterpret_cast<uintptr_t>(raw + kZone), Allocation{raw, bytes});
        live_bytes_ += bytes;
        return raw + kZone;
    }

    void release(void* p) override {
        if (!p) return;
        {
            std::lock_guard lock(mu_);
            if (!allocs_.count(reinterpret_cast<uintptr_t>(p)))
                throw std::logic_error(
                    "release: the pointer is not an allocation of the backend's (a host pointer, an offset into "
                    "an allocation, or released twice?)");
        }
        // This thread's queued kernels may use the memory: wait for them first, as cudaFree does.
        drain(/*report_loss=*/false);
        std::lock_guard lock(mu_);
        auto it = allocs_.find(reinterpret_cast<uintptr_t>(p));
        if (it == allocs_.end()) throw std::logic_error("release: the allocation was released by another thread");
        const Allocation a = it->second;
        allocs_.erase(it);
        live_bytes_ -= a.bytes;
        const bool intact = zones_intact(a);
        ::operator delete(a.raw, std::align_val_t(64));
        if (!intact)
            throw std::logic_error("release: something wrote outside an allocation of " + std::to_string(a.bytes) +
                                   " bytes");
    }

    void upload(void* dst, const void* src, size_t bytes) override {
        check("upload", {need("dst", static_cast<const unsigned char*>(dst), bytes)});
        check_host("upload", "src", src, bytes);
        if (!bytes) return;
        uploaded_ += bytes;
        // The host may change its buffer as soon as upload returns: take the bytes now.
        auto copy = std::make_shared<std::vector<unsigned char>>(static_cast<const unsigned char*>(src),
                                                                 static_cast<const unsigned char*>(src) + bytes);
        later([dst, copy] { std::memcpy(dst, copy->data(), copy->size()); });
    }

    void download(void* dst, const void* src, size_t bytes) override {
        check("download", {need("src", static_cast<const unsigned char*>(src), bytes)});
        check_host("download", "dst", dst, bytes);
        drain();
        check_zones("download");
        downloaded_ += bytes;
        if (bytes) std::memcpy(dst, src, bytes);
    }

    void sync() override {
        drain();
        check_zones("sync");
        inner_.sync();
    }

    // ----- Kernels: checked now, run at this thread's next sync() or download().

    void linear_forward(float* y, const float* x, const float* W, int N, int I, int O) override {
        check("linear_forward", {need("y", y, z(N) * O), need("x", x, z(N) * I), need("W", W, z(O) * I)});
        later([=, this] { inner_.linear_forward(y, x, W, N, I, O); });
    }
    void linear_backward(float* dx, float* dW, const float* dy, const float* x, const float* W, int N, int I, int O,
                         bool accumulate_dx, bool accumulate_dw) override {
        check("linear_backward", {opt("dx", dx, z(N) * I), opt("dW", dW, z(O) * I), need("dy", dy, z(N) * O),
                                  need("x", x, z(N) * I), need("W", W, z(O) * I)});
        later([=, this] { inner_.linear_backward(dx, dW, dy, x, W, N, I, O, accumulate_dx, accumulate_dw); });
    }
    void linear_backward_update(float* dx, float* dW, double* dW_sum_squares, const float* dy, const float* x, float* W,
                                int N, int I, int O, bool accumulate_dx, const WeightUpdate& upd) override {
        // dW_sum_squares is a host pointer: a scalar result, written at sync().
        const size_t nw = z(O) * I;
        check("linear_backward_update",
              {opt("dx", dx, z(N) * I), opt("dW", dW, nw), need("dy", dy, z(N) * O), need("x", x, z(N) * I),
               need("W", W, nw), opt("upd.out", upd.out, nw), need("upd.buf1", upd.buf1, nw),
               upd.kind == WeightUpdate::Kind::Adam ? need("upd.buf2", upd.buf2, nw) : opt("upd.buf2", upd.buf2, nw),
               opt("upd.apply_if", upd.apply_if, 1)});
        later([=, this] {
            inner_.linear_backward_update(dx, dW, dW_sum_squares, dy, x, W, N, I, O, accumulate_dx, upd);
        });
    }
    void apply_update(float* param, const float* grad, int64_t n, const WeightUpdate& upd) override {
        check("apply_update",
              {need("param", param, z(n)), need("grad", grad, z(n)), opt("upd.out", upd.out, z(n)),
               need("upd.buf1", upd.buf1, z(n)),
               upd.kind == WeightUpdate::Kind::Adam ? need("upd.buf2", upd.buf2, z(n))
                                                    : opt("upd.buf2", upd.buf2, z(n)),
               opt("upd.apply_if", upd.apply_if, 1)});
        later([=, this] { inner_.apply_update(param, grad, n, upd); });
    }

    void embedding_forward(float* out, const int* ids, const float* table, int N, int V, int D) override {
        check("embedding_forward", {need("out", out, z(N) * D), need("ids", ids, z(N)), need("table", table, z(V) * D)});
        later([=, this] { inner_.embedding_forward(out, ids, table, N, V, D); });
    }
    void embedding_backward(float* dtable, const float* dout, const int* ids, int N, int V, int D) override {
        check("embedding_backward",
              {need("dtable", dtable, z(V) * D), need("dout", dout, z(N) * D), need("ids", ids, z(N))});
        later([=, this] { inner_.embedding_backward(dtable, dout, ids, N, V, D); });
    }

    void split_heads(float* out, const float* in, int B, int L, int H, int d) override {
        const size_t n = z(B) * L * H * d;
        check("split_heads", {need("out", out, n), need("in", in, n)});
        later([=, this] { inner_.split_heads(out, in, B, L, H, d); });
    }
    void merge_heads(float* out, const float* in, int B, int L, int H, int d) override {
        const size_t n = z(B) * L * H * d;
        check("merge_heads", {need("out", out, n), need("in", in, n)});
        later([=, this] { inner_.merge_heads(out, in, B, L, H, d); });
    }

    void attn_scores_forward(float* scores, const float* Q, const float* K, int G, int Lq, int Lk, int dk,
                             float scale) override {
        check("attn_scores_forward",
              {need("scores", scores, z(G) * Lq * Lk), need("Q", Q, z(G) * Lq * dk), need("K", K, z(G) * Lk * dk)});
        later([=, this] { inner_.attn_scores_forward(scores, Q, K, G, Lq, Lk, dk, scale); });
    }
    void attn_scores_backward(float* dQ, float* dK, const float* dscores, const float* Q, const float* K, int G, int Lq,
                              int Lk, int dk, float scale) override {
        check("attn_scores_backward",
              {need("dQ", dQ, z(G) * Lq * dk), need("dK", dK, z(G) * Lk * dk), need("dscores", dscores, z(G) * Lq * Lk),
               need("Q", Q, z(G) * Lq * dk), need("K", K, z(G) * Lk * dk)});
        later([=, this] { inner_.attn_scores_backward(dQ, dK, dscores, Q, K, G, Lq, Lk, dk, scale); });
    }

    void mask_fill_forward(float* out, const float* in, const float* mask, int B, int H, int Lq, int Lk,
                           float value) override {
        check("mask_fill_forward", {need("out", out, z(B) * H * Lq * Lk), need("in", in, z(B) * H * Lq * Lk),
                                    need("mask", mask, z(B) * Lq * Lk)});
        later([=, this] { inner_.mask_fill_forward(out, in, mask, B, H, Lq, Lk, value); });
    }
    void mask_fill_backward(float* din, const float* dout, const float* mask, int B, int H, int Lq, int Lk) override {
        check("mask_fill_backward", {need("din", din, z(B) * H * Lq * Lk), need("dout", dout, z(B) * H * Lq * Lk),
                                     need("mask", mask, z(B) * Lq * Lk)});
        later([=, this] { inner_.mask_fill_backward(din, dout, mask, B, H, Lq, Lk); });
    }

    void softmax_forward(float* out, const float* in, int rows, int cols) override {
        check("softmax_forward", {need("out", out, z(rows) * cols), need("in", in, z(rows) * cols)});
        later([=, this] { inner_.softmax_forward(out, in, rows, cols); });
    }
    void softmax_backward(float* din, const float* dout, const float* out, int rows, int cols) override {
        check("softmax_backward", {need("din", din, z(rows) * cols), need("dout", dout, z(rows) * cols),
                                   need("out", out, z(rows) * cols)});
        later([=, this] { inner_.softmax_backward(din, dout, out, rows, cols); });
    }

    void attn_context_forward(float* context, const float* attn, const float* V, int G, int Lq, int Lk,
                              int dv) override {
        check("attn_context_forward", {need("context", context, z(G) * Lq * dv), need("attn", attn, z(G) * Lq * Lk),
                                       need("V", V, z(G) * Lk * dv)});
        later([=, this] { inner_.attn_context_forward(context, attn, V, G, Lq, Lk, dv); });
    }
    void attn_context_backward(float* dattn, float* dV, const float* dcontext, const float* attn, const float* V, int G,
                               int Lq, int Lk, int dv) override {
        check("attn_context_backward",
              {need("dattn", dattn, z(G) * Lq * Lk), need("dV", dV, z(G) * Lk * dv),
               need("dcontext", dcontext, z(G) * Lq * dv), need("attn", attn, z(G) * Lq * Lk),
               need("V", V, z(G) * Lk * dv)});
        later([=, this] { inner_.attn_context_backward(dattn, dV, dcontext, attn, V, G, Lq, Lk, dv); });
    }

    void add_forward(float* out, const float* a, const float* b, int64_t n) override {
        check("add_forward", {need("out", out, z(n)), need("a", a, z(n)), need("b", b, z(n))});
        later([=, this] { inner_.add_forward(out, a, b, n); });
    }
    void positional_forward(float* out, const float* in, const float* pe, const float* keep, int B, int L,
                            int D) override {
        const size_t n = z(B) * L * D;
        check("positional_forward",
              {need("out", out, n), need("in", in, n), need("pe", pe, z(L) * D), opt("keep", keep, n)});
        later([=, this] { inner_.positional_forward(out, in, pe, keep, B, L, D); });
    }

    void layernorm_forward(float* out, float* mean, float* rstd, const float* in, const float* gamma, const float* beta,
                           int rows, int cols, float eps) override {
        check("layernorm_forward",
              {need("out", out, z(rows) * cols), need("mean", mean, z(rows)), need("rstd", rstd, z(rows)),
               need("in", in, z(rows) * cols), opt("gamma", gamma, z(cols)), opt("beta", beta, z(cols))});
        later([=, this] { inner_.layernorm_forward(out, mean, rstd, in, gamma, beta, rows, cols, eps); });
    }
    void layernorm_backward(float* din, float* dgamma, float* dbeta, const float* dout, const float* in,
                            const float* mean, const float* rstd, const float* gamma, int rows, int cols) override {
        check("layernorm_backward",
              {need("din", din, z(rows) * cols), opt("dgamma", dgamma, z(cols)), opt("dbeta", dbeta, z(cols)),
               need("dout", dout, z(rows) * cols), need("in", in, z(rows) * cols), need("mean", mean, z(rows)),
               need("rstd", rstd, z(rows)), opt("gamma", gamma, z(cols))});
        later([=, this] { inner_.layernorm_backward(din, dgamma, dbeta, dout, in, mean, rstd, gamma, rows, cols); });
    }

    void relu_forward(float* out, const float* in, int64_t n) override {
        check("relu_forward", {need("out", out, z(n)), need("in", in, z(n))});
        later([=, this] { inner_.relu_forward(out, in, n); });
    }
    void relu_backward(float* din, const float* dout, const float* out, int64_t n) override {
        check("relu_backward", {need("din", din, z(n)), need("dout", dout, z(n)), need("out", out, z(n))});
        later([=, this] { inner_.relu_backward(din, dout, out, n); });
    }
    void gelu_forward(float* out, const float* in, int64_t n) override {
        check("gelu_forward", {need("out", out, z(n)), need("in", in, z(n))});
        later([=, this] { inner_.gelu_forward(out, in, n); });
    }
    void gelu_backward(float* din, const float* dout, const float* in, int64_t n) override {
        check("gelu_backward", {need("din", din, z(n)), need("dout", dout, z(n)), need("in", in, z(n))});
        later([=, this] { inner_.gelu_backward(din, dout, in, n); });
    }
    void add_bias(float* y, const float* bias, int N, int O) override {
        check("add_bias", {need("y", y, z(N) * O), need("bias", bias, z(O))});
        later([=, this] { inner_.add_bias(y, bias, N, O); });
    }
    void bias_backward(float* dbias, const float* dy, int N, int O) override {
        check("bias_backward", {need("dbias", dbias, z(O)), need("dy", dy, z(N) * O)});
        later([=, this] { inner_.bias_backward(dbias, dy, N, O); });
    }
    void scale(float* out, const float* in, int64_t n, float s) override {
        check("scale", {need("out", out, z(n)), need("in", in, z(n))});
        later([=, this] { inner_.scale(out, in, n, s); });
    }

    void cross_entropy_forward(float* losses, float* mean, int* counted, const float* probs, const int* targets, int N,
                               int V, int ignore_index) override {
        // mean and counted are host pointers: scalar results, written at sync().
        check("cross_entropy_forward",
              {need("losses", losses, z(N)), need("probs", probs, z(N) * V), need("targets", targets, z(N))});
        later([=, this] { inner_.cross_entropy_forward(losses, mean, counted, probs, targets, N, V, ignore_index); });
    }
    void cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                int ignore_index) override {
        check("cross_entropy_backward",
              {need("dlogits", dlogits, z(N) * V), need("probs", probs, z(N) * V), need("targets", targets, z(N))});
        later([=, this] { inner_.cross_entropy_backward(dlogits, probs, targets, N, V, ignore_index); });
    }
    void smoothed_cross_entropy_forward(float* losses, float* sum, const float* logits, const int* targets, int N,
                                        int V, int ignore_index, float eps) override {
        // sum is a host pointer: a scalar result, written at sync().
        check("smoothed_cross_entropy_forward",
              {need("losses", losses, z(N)), need("logits", logits, z(N) * V), need("targets", targets, z(N))});
        later([=, this] {
            inner_.smoothed_cross_entropy_forward(losses, sum, logits, targets, N, V, ignore_index, eps);
        });
    }
    void smoothed_cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                         int ignore_index, float eps, float scale) override {
        check("smoothed_cross_entropy_backward",
              {need("dlogits", dlogits, z(N) * V), need("probs", probs, z(N) * V), need("targets", targets, z(N))});
        later([=, this] {
            inner_.smoothed_cross_entropy_backward(dlogits, probs, targets, N, V, ignore_index, eps, scale);
        });
    }
    void all_finite(float* flag, const float* x, int64_t n) override {
        check("all_finite", {need("flag", flag, 1), need("x", x, z(n))});
        later([=, this] { inner_.all_finite(flag, x, n); });
    }

    void pad_mask(float* mask, const int* ids_k, int B, int Lq, int Lk, int pad_id) override {
        check("pad_mask", {need("mask", mask, z(B) * Lq * Lk), need("ids_k", ids_k, z(B) * Lk)});
        later([=, this] { inner_.pad_mask(mask, ids_k, B, Lq, Lk, pad_id); });
    }
    void subsequence_mask(float* mask, int B, int T) override {
        check("subsequence_mask", {need("mask", mask, z(B) * T * T)});
        later([=, this] { inner_.subsequence_mask(mask, B, T); });
    }
    void mask_or(float* out, const float* a, const float* b, int64_t n) override {
        check("mask_or", {need("out", out, z(n)), need("a", a, z(n)), need("b", b, z(n))});
        later([=, this] { inner_.mask_or(out, a, b, n); });
    }
    void positional_table(float* pe, int L, int D) override {
        check("positional_table", {need("pe", pe, z(L) * D)});
        later([=, this] { inner_.positional_table(pe, L, D); });
    }
    void dropout_mask(float* keep, int64_t n, float p, uint64_t seed, uint64_t offset) override {
        check("dropout_mask", {need("keep", keep, z(n))});
        later([=, this] { inner_.dropout_mask(keep, n, p, seed, offset); });
    }
    void mul_forward(float* out, const float* a, const float* b, int64_t n) override {
        check("mul_forward", {need("out", out, z(n)), need("a", a, z(n)), need("b", b, z(n))});
        later([=, this] { inner_.mul_forward(out, a, b, n); });
    }
    void fill(float* x, int64_t n, float value) override {
        check("fill", {need("x", x, z(n))});
        later([=, this] { inner_.fill(x, n, value); });
    }
    void copy(float* out, const float* in, int64_t n) override {
        check("copy", {need("out", out, z(n)), need("in", in, z(n))});
        later([=, this] { inner_.copy(out, in, n); });
    }

    void sgd_step(float* param, float* momentum_buf, const float* grad, int64_t n, float lr, float momentum) override {
        check("sgd_step", {need("param", param, z(n)), need("momentum_buf", momentum_buf, z(n)), need("grad", grad, z(n))});
        later([=, this] { inner_.sgd_step(param, momentum_buf, grad, n, lr, momentum); });
    }
    void adam_step(float* param, float* m, float* v, const float* grad, int64_t n, float lr, float beta1, float beta2,
                   float eps, int64_t step) override {
        check("adam_step",
              {need("param", param, z(n)), need("m", m, z(n)), need("v", v, z(n)), need("grad", grad, z(n))});
        later([=, this] { inner_.adam_step(param, m, v, grad, n, lr, beta1, beta2, eps, step); });
    }
    void sum_squares(double* acc, const float* x, int64_t n) override {
        // acc is a host pointer: a scalar result, written at sync().
        check("sum_squares", {need("x", x, z(n))});
        later([=, this] { inner_.sum_squares(acc, x, n); });
    }

private:
    struct Allocation {
        unsigned char* raw;  // the zone before, then the bytes, then the zone after
        size_t bytes;
    };
    using Queue = std::vector<std::function<void()>>;

    static bool zones_intact(const Allocation& a) {
        for (size_t i = 0; i < kZone; ++i)
            if (a.raw[i] != kZoneByte || a.raw[kZone + a.bytes + i] != kZoneByte) return false;
        return true;
    }

    // Every argument lies in one live allocation with room for what the kernel touches. Null is
    // allowed for an optional argument, and for any argument of no elements.
    void check(const char* kernel, std::initializer_list<Arg> args) const {
        std::lock_guard lock(mu_);
        for (const Arg& a : args) {
            const std::string what = std::string(kernel) + ": argument " + a.name;
            if (!a.p) {
                if (a.optional || a.bytes == 0) continue;
                throw std::logic_error(what + " is null");
            }
            const auto p = reinterpret_cast<uintptr_t>(a.p);
            auto it = allocs_.upper_bound(p);
            if (it == allocs_.begin()) throw std::logic_error(what + " is not in the backend's memory (a host pointer?)");
            --it;
            const uintptr_t base = it->first;
            const size_t size = it->second.bytes;
            if (p > base + size) throw std::logic_error(what + " is not in the backend's memory (a host pointer?)");
            if (p % a.align) throw std::logic_error(what + " is misaligned");
            if (a.bytes > base + size - p)
                throw std::logic_error(what + " runs past its allocation (" + std::to_string(a.bytes) + " bytes from " +
                                       std::to_string(p - base) + " into an allocation of " + std::to_string(size) +
                                       ")");
        }
    }

    // A copy's host side must not be the backend's memory (a device pointer passed as the host's).
    void check_host(const char* call, const char* arg, const void* host, size_t bytes) const {
        if (!host) {
            if (bytes) throw std::logic_error(std::string(call) + ": argument " + arg + " is null");
            return;
        }
        std::lock_guard lock(mu_);
        const auto p = reinterpret_cast<uintptr_t>(host);
        auto it = allocs_.upper_bound(p);
        if (it != allocs_.begin() && p < std::prev(it)->first + std::prev(it)->second.bytes)
            throw std::logic_error(std::string(call) + ": argument " + arg +
                                   " is in the backend's memory, not the host's (a device pointer?)");
    }

    void check_zones(const char* call) const {
        std::lock_guard lock(mu_);
        for (const auto& [base, a] : allocs_)
            if (!zones_intact(a))
                throw std::logic_error(std::string(call) + ": something wrote outside an allocation of " +
                                       std::to_string(a.bytes) + " bytes");
    }

    void later(std::function<void()> f) {
        std::lock_guard lock(mu_);
        queues_[std::this_thread::get_id()].push_back(std::move(f));
    }

    // Runs this thread's queue, in order; counts a wait if there was anything to run. A kernel
    // that throws drops the rest of the queue.
    // `report_loss` false (release): a lost device drops the queue silently, as freeing memory on
    // a lost device succeeds.
    void drain(bool report_loss = true) {
        Queue q;
        {
            std::lock_guard lock(mu_);
            auto it = queues_.find(std::this_thread::get_id());
            if (it == queues_.end() || it->second.empty()) return;
            q.swap(it->second);
        }
        ++waits_;
        // The simulated driver reset: the queued work is lost, and so is every later wait's.
        int left = lose_after_.load();
        while (left > 0 && !lose_after_.compare_exchange_weak(left, left - 1)) {
        }
        if (left == 1) lost_.store(true);
        if (lost_.load()) {
            if (!report_loss) return;
            throw DeviceLost("cpu-device: the device was lost (simulated by the test)");
        }
        for (auto& f : q) f();
    }

public:
    void lose_after(int waits) { lose_after_.store(waits); }
    size_t uploaded() const { return uploaded_.load(); }
    size_t downloaded() const { return downloaded_.load(); }

private:

    CopyBackend inner_;
    mutable std::mutex mu_;  // guards allocs_, live_bytes_, queues_
    std::map<uintptr_t, Allocation> allocs_;  // by the address handed out
    size_t live_bytes_ = 0;
    std::unordered_map<std::thread::id, Queue> queues_;
    std::atomic<size_t> waits_{0};
    std::atomic<size_t> uploaded_{0}, downloaded_{0};
    std::atomic<int> lose_after_{0};  // > 0: the wait that brings it to 0 loses the device
    std::atomic<bool> lost_{false};
};

template <class B>
auto& as_device(B& be) {
    using D = std::conditional_t<std::is_const_v<B>, const DeviceBackend, DeviceBackend>;
    auto* d = dynamic_cast<D*>(&be);
    if (!d) throw std::invalid_argument("not a " + std::string(kDeviceBackendName) + " backend: " + be.name());
    return *d;
}

}  // namespace

std::unique_ptr<Backend> make_copy_backend(int threads) { return std::make_unique<CopyBackend>(threads); }

std::unique_ptr<Backend> make_device_backend(int threads) { return std::make_unique<DeviceBackend>(threads); }

size_t device_sync_waits(const Backend& be) { return as_device(be).sync_waits(); }
void reset_device_sync_waits(Backend& be) { as_device(be).reset_sync_waits(); }
size_t device_live_bytes(const Backend& be) { return as_device(be).live_bytes(); }
void lose_device_after(Backend& be, int waits) { as_device(be).lose_after(waits); }
size_t device_bytes_uploaded(const Backend& be) { return as_device(be).uploaded(); }
size_t device_bytes_downloaded(const Backend& be) { return as_device(be).downloaded(); }

void register_copy_backend() {
    static std::once_flag once;
    std::call_once(once, [] {
        register_backend(kCopyBackendName, &make_copy_backend);
        register_backend(kDeviceBackendName, &make_device_backend);
    });
}

std::vector<std::string> registered_backends() {
    register_copy_backend();
    return available_backends();
}

std::string test_name(std::string backend) {
    for (char& ch : backend)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return backend;
}

}  // namespace stepformer::testing
