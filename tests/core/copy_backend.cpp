#include "copy_backend.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <type_traits>
#include <stdexcept>
#include <string>
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
    std::string describe() const override { return "cpu-copy (" + cpu_->describe() + ", through copies)"; }

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
            u.out = c.out("upd.out", upd.out, nw);
        } else {
            dWW = c.inout("W", W, nw);
            u.out = upd.out ? dWW : nullptr;
        }
        u.buf1 = c.inout("upd.buf1", upd.buf1, nw);
        u.buf2 = c.inout("upd.buf2", upd.buf2, nw);
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
    void cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V, int ignore_index,
                                int counted) override {
        Call c("cross_entropy_backward");
        float* dl = c.out("dlogits", dlogits, z(N) * V);
        const float* p = c.in("probs", probs, z(N) * V);
        const int* t = c.in("targets", targets, z(N));
        cpu_->cross_entropy_backward(dl, p, t, N, V, ignore_index, counted);
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
            u.out = c.out("upd.out", upd.out, z(n));
        } else {
            p = c.inout("param", param, z(n));
            u.out = upd.out ? p : nullptr;
        }
        u.buf1 = c.inout("upd.buf1", upd.buf1, z(n));
        u.buf2 = c.inout("upd.buf2", upd.buf2, z(n));
        const float* g = c.in("grad", grad, z(n));
        cpu_->apply_update(p, g, n, u);
        c.done();
    }
    void copy(float* out, const float* in, int64_t n) override {
        Call c("copy");
        float* o = c.out("out", out, z(n));
        const float* i = c.in("in", in, z(n));
        cpu_->copy(o, i, n);
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

}  // namespace

std::unique_ptr<Backend> make_copy_backend(int threads) { return std::make_unique<CopyBackend>(threads); }

void register_copy_backend() {
    static std::once_flag once;
    std::call_once(once, [] { register_backend(kCopyBackendName, &make_copy_backend); });
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
