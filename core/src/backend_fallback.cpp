// Every kernel's default: described once, as a replayable call, and handed to run_elsewhere.
// The argument list of each is its contract with memory: which pointers it reads, which it
// writes whole, which it adds to, how many elements each spans, and which may be null. A
// backend that declines a kernel (the base's default), the CPU fallback's copies and the tests'
// checking backends all read it from here.
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "stepformer/backend.h"

namespace stepformer {

namespace {

size_t z(int64_t n) { return n > 0 ? size_t(n) : 0; }

struct KernelInfo {
    const char* name;
    KernelFamily family;
};
constexpr KernelInfo kOps[] = {
#define STEPFORMER_OP_INFO(e, name, family) {name, KernelFamily::family},
    STEPFORMER_BACKEND_OPS(STEPFORMER_OP_INFO)
#undef STEPFORMER_OP_INFO
};
static_assert(sizeof(kOps) / sizeof(kOps[0]) == size_t(kKernelCount));

// The CPU fallback's map for a backend whose memory is not the host's: what the kernel reads is
// downloaded into host buffers, what it writes is uploaded back after it ran. Scalar results are
// the host's already.
class HostStaging final : public ArgMap {
public:
    explicit HostStaging(Backend& device) : device_(device) {}
    void* map(const KernelArg& a) override {
        if (!a.p || a.access == Access::HostResult) return a.p;
        auto& buf = bufs_.emplace_back();
        buf.device = a.p;
        buf.bytes = a.bytes();
        buf.writes = a.access != Access::In;
        buf.host.resize((buf.bytes + 7) / 8 + 1);  // uint64_t: aligned for every element type
        if (a.access != Access::Out) device_.download(buf.host.data(), a.p, buf.bytes);
        return buf.host.data();
    }
    void upload_results() {
        for (const Buf& b : bufs_)
            if (b.writes) device_.upload(b.device, b.host.data(), b.bytes);
    }

private:
    struct Buf {
        void* device;
        size_t bytes;
        bool writes;
        std::vector<uint64_t> host;
    };
    Backend& device_;
    std::vector<Buf> bufs_;
};

class SameAddresses final : public ArgMap {
public:
    void* map(const KernelArg& a) override { return a.p; }
};

}  // namespace

const char* kernel_name(Kernel k) { return kOps[size_t(k)].name; }
KernelFamily kernel_family(Kernel k) { return kOps[size_t(k)].family; }
const char* family_name(KernelFamily f) {
    switch (f) {
    case KernelFamily::Linear: return "linear";
    case KernelFamily::Embedding: return "embedding";
    case KernelFamily::Attention: return "attention";
    case KernelFamily::Rows: return "rows";
    case KernelFamily::Elementwise: return "elementwise";
    case KernelFamily::Loss: return "loss";
    case KernelFamily::Inputs: return "inputs";
    case KernelFamily::Optimizer: return "optimizer";
    case KernelFamily::Reduction: return "reduction";
    }
    return "?";
}

bool Backend::supports(Kernel) const { return false; }

void Backend::run_elsewhere(Kernel k, const KernelCall& call) {
    Backend& cpu = default_backend();
    if (&cpu == this) throw std::logic_error(std::string("the CPU backend does not implement ") + kernel_name(k));
    if (host_memory()) {
        SameAddresses same;
        call(cpu, same);
        return;
    }
    HostStaging staging(*this);
    call(cpu, staging);
    cpu.sync();
    staging.upload_results();
}

// ----- Linear

void Backend::linear_forward(float* y, const float* x, const float* W, int N, int I, int O) {
    run_elsewhere(Kernel::LinearForward, [=](Backend& be, ArgMap& m) {
        be.linear_forward(m.out("y", y, z(N) * O), m.in("x", x, z(N) * I), m.in("W", W, z(O) * I), N, I, O);
    });
}
void Backend::linear_backward(float* dx, float* dW, const float* dy, const float* x, const float* W, int N, int I,
                              int O, bool accumulate_dx, bool accumulate_dw) {
    run_elsewhere(Kernel::LinearBackward, [=](Backend& be, ArgMap& m) {
        be.linear_backward(m.out_or_add("dx", dx, z(N) * I, accumulate_dx, true),
                           m.out_or_add("dW", dW, z(O) * I, accumulate_dw, true), m.in("dy", dy, z(N) * O),
                           m.in("x", x, z(N) * I), m.in("W", W, z(O) * I), N, I, O, accumulate_dx, accumulate_dw);
    });
}
void Backend::add_bias(float* y, const float* bias, int N, int O) {
    run_elsewhere(Kernel::AddBias, [=](Backend& be, ArgMap& m) {
        be.add_bias(m.inout("y", y, z(N) * O), m.in("bias", bias, z(O)), N, O);
    });
}
void Backend::bias_backward(float* dbias, const float* dy, int N, int O) {
    run_elsewhere(Kernel::BiasBackward, [=](Backend& be, ArgMap& m) {
        be.bias_backward(m.inout("dbias", dbias, z(O)), m.in("dy", dy, z(N) * O), N, O);
    });
}

// ----- Optimizer

namespace {
// The update's buffers, and the weight it updates: in place, or into upd.out with the weight
// left as it was (the Trainer's double buffer; a guarded update may leave upd.out unwritten, so
// it is added to rather than written whole).
float* map_update(ArgMap& m, float* w, const char* wname, size_t n, WeightUpdate& u) {
    float* mw;
    if (u.out && u.out != w) {
        mw = const_cast<float*>(m.in(wname, w, n));
        u.out = m.out_or_add("upd.out", u.out, n, u.apply_if != nullptr);
    } else {
        mw = m.inout(wname, w, n);
        u.out = u.out ? mw : nullptr;
    }
    u.buf1 = m.inout("upd.buf1", u.buf1, n);
    u.buf2 = m.inout("upd.buf2", u.buf2, n, u.kind == WeightUpdate::Kind::SGD);  // Adam's and AdamW's exp_avg_sq
    u.apply_if = m.in("upd.apply_if", u.apply_if, 1, true);
    return mw;
}
}  // namespace

void Backend::linear_backward_update(float* dx, float* dW, double* dW_sum_squares, const float* dy, const float* x,
                                     float* W, int N, int I, int O, bool accumulate_dx, const WeightUpdate& upd) {
    run_elsewhere(Kernel::LinearBackwardUpdate, [=](Backend& be, ArgMap& m) {
        WeightUpdate u = upd;
        float* mW = map_update(m, W, "W", z(O) * I, u);
        float* mdx = m.out_or_add("dx", dx, z(N) * I, accumulate_dx, true);
        float* mdW = m.out("dW", dW, z(O) * I, true);
        double* ss = m.result("dW_sum_squares", dW_sum_squares);
        be.linear_backward_update(mdx, mdW, ss, m.in("dy", dy, z(N) * O), m.in("x", x, z(N) * I), mW, N, I, O,
                                  accumulate_dx, u);
    });
}
void Backend::apply_update(float* param, const float* grad, int64_t n, const WeightUpdate& upd) {
    run_elsewhere(Kernel::ApplyUpdate, [=](Backend& be, ArgMap& m) {
        WeightUpdate u = upd;
        float* p = map_update(m, param, "param", z(n), u);
        be.apply_update(p, m.in("grad", grad, z(n)), n, u);
    });
}
void Backend::sgd_step(float* param, float* momentum_buf, const float* grad, int64_t n, float lr, float momentum) {
    run_elsewhere(Kernel::SgdStep, [=](Backend& be, ArgMap& m) {
        be.sgd_step(m.inout("param", param, z(n)), m.inout("momentum_buf", momentum_buf, z(n)),
                    m.in("grad", grad, z(n)), n, lr, momentum);
    });
}
void Backend::adam_step(float* param, float* mm, float* v, const float* grad, int64_t n, float lr, float beta1,
                        float beta2, float eps, int64_t step) {
    run_elsewhere(Kernel::AdamStep, [=](Backend& be, ArgMap& m) {
        be.adam_step(m.inout("param", param, z(n)), m.inout("m", mm, z(n)), m.inout("v", v, z(n)),
                     m.in("grad", grad, z(n)), n, lr, beta1, beta2, eps, step);
    });
}

// ----- Embedding

void Backend::embedding_forward(float* out, const int* ids, const float* table, int N, int V, int D) {
    run_elsewhere(Kernel::EmbeddingForward, [=](Backend& be, ArgMap& m) {
        be.embedding_forward(m.out("out", out, z(N) * D), m.in("ids", ids, z(N)), m.in("table", table, z(V) * D), N,
                             V, D);
    });
}
void Backend::embedding_backward(float* dtable, const float* dout, const int* ids, int N, int V, int D) {
    run_elsewhere(Kernel::EmbeddingBackward, [=](Backend& be, ArgMap& m) {
        be.embedding_backward(m.inout("dtable", dtable, z(V) * D), m.in("dout", dout, z(N) * D),
                              m.in("ids", ids, z(N)), N, V, D);
    });
}

// ----- Attention

void Backend::split_heads(float* out, const float* in, int B, int L, int H, int d) {
    run_elsewhere(Kernel::SplitHeads, [=](Backend& be, ArgMap& m) {
        const size_t n = z(B) * L * H * d;
        be.split_heads(m.out("out", out, n), m.in("in", in, n), B, L, H, d);
    });
}
void Backend::merge_heads(float* out, const float* in, int B, int L, int H, int d) {
    run_elsewhere(Kernel::MergeHeads, [=](Backend& be, ArgMap& m) {
        const size_t n = z(B) * L * H * d;
        be.merge_heads(m.out("out", out, n), m.in("in", in, n), B, L, H, d);
    });
}
void Backend::attn_scores_forward(float* scores, const float* Q, const float* K, int G, int Lq, int Lk, int dk,
                                  float scale) {
    run_elsewhere(Kernel::AttnScoresForward, [=](Backend& be, ArgMap& m) {
        be.attn_scores_forward(m.out("scores", scores, z(G) * Lq * Lk), m.in("Q", Q, z(G) * Lq * dk),
                               m.in("K", K, z(G) * Lk * dk), G, Lq, Lk, dk, scale);
    });
}
void Backend::attn_scores_backward(float* dQ, float* dK, const float* dscores, const float* Q, const float* K, int G,
                                   int Lq, int Lk, int dk, float scale) {
    run_elsewhere(Kernel::AttnScoresBackward, [=](Backend& be, ArgMap& m) {
        be.attn_scores_backward(m.out("dQ", dQ, z(G) * Lq * dk), m.out("dK", dK, z(G) * Lk * dk),
                                m.in("dscores", dscores, z(G) * Lq * Lk), m.in("Q", Q, z(G) * Lq * dk),
                                m.in("K", K, z(G) * Lk * dk), G, Lq, Lk, dk, scale);
    });
}
void Backend::mask_fill_forward(float* out, const float* in, const float* mask, int B, int H, int Lq, int Lk,
                                float value) {
    run_elsewhere(Kernel::MaskFillForward, [=](Backend& be, ArgMap& m) {
        be.mask_fill_forward(m.out("out", out, z(B) * H * Lq * Lk), m.in("in", in, z(B) * H * Lq * Lk),
                             m.in("mask", mask, z(B) * Lq * Lk), B, H, Lq, Lk, value);
    });
}
void Backend::mask_fill_backward(float* din, const float* dout, const float* mask, int B, int H, int Lq, int Lk) {
    run_elsewhere(Kernel::MaskFillBackward, [=](Backend& be, ArgMap& m) {
        be.mask_fill_backward(m.out("din", din, z(B) * H * Lq * Lk), m.in("dout", dout, z(B) * H * Lq * Lk),
                              m.in("mask", mask, z(B) * Lq * Lk), B, H, Lq, Lk);
    });
}
void Backend::attn_context_forward(float* context, const float* attn, const float* V, int G, int Lq, int Lk, int dv) {
    run_elsewhere(Kernel::AttnContextForward, [=](Backend& be, ArgMap& m) {
        be.attn_context_forward(m.out("context", context, z(G) * Lq * dv), m.in("attn", attn, z(G) * Lq * Lk),
                                m.in("V", V, z(G) * Lk * dv), G, Lq, Lk, dv);
    });
}
void Backend::attn_context_backward(float* dattn, float* dV, const float* dcontext, const float* attn,
                                    const float* V, int G, int Lq, int Lk, int dv) {
    run_elsewhere(Kernel::AttnContextBackward, [=](Backend& be, ArgMap& m) {
        be.attn_context_backward(m.out("dattn", dattn, z(G) * Lq * Lk), m.out("dV", dV, z(G) * Lk * dv),
                                 m.in("dcontext", dcontext, z(G) * Lq * dv), m.in("attn", attn, z(G) * Lq * Lk),
                                 m.in("V", V, z(G) * Lk * dv), G, Lq, Lk, dv);
    });
}

// ----- Rows

void Backend::softmax_forward(float* out, const float* in, int rows, int cols) {
    run_elsewhere(Kernel::SoftmaxForward, [=](Backend& be, ArgMap& m) {
        be.softmax_forward(m.out("out", out, z(rows) * cols), m.in("in", in, z(rows) * cols), rows, cols);
    });
}
void Backend::softmax_backward(float* din, const float* dout, const float* out, int rows, int cols) {
    run_elsewhere(Kernel::SoftmaxBackward, [=](Backend& be, ArgMap& m) {
        be.softmax_backward(m.out("din", din, z(rows) * cols), m.in("dout", dout, z(rows) * cols),
                            m.in("out", out, z(rows) * cols), rows, cols);
    });
}
void Backend::layernorm_forward(float* out, float* mean, float* rstd, const float* in, const float* gamma,
                                const float* beta, int rows, int cols, float eps) {
    run_elsewhere(Kernel::LayerNormForward, [=](Backend& be, ArgMap& m) {
        be.layernorm_forward(m.out("out", out, z(rows) * cols), m.out("mean", mean, z(rows)),
                             m.out("rstd", rstd, z(rows)), m.in("in", in, z(rows) * cols),
                             m.in("gamma", gamma, z(cols), true), m.in("beta", beta, z(cols), true), rows, cols, eps);
    });
}
void Backend::layernorm_backward(float* din, float* dgamma, float* dbeta, const float* dout, const float* in,
                                 const float* mean, const float* rstd, const float* gamma, int rows, int cols) {
    run_elsewhere(Kernel::LayerNormBackward, [=](Backend& be, ArgMap& m) {
        be.layernorm_backward(m.out("din", din, z(rows) * cols), m.inout("dgamma", dgamma, z(cols), true),
                              m.inout("dbeta", dbeta, z(cols), true), m.in("dout", dout, z(rows) * cols),
                              m.in("in", in, z(rows) * cols), m.in("mean", mean, z(rows)),
                              m.in("rstd", rstd, z(rows)), m.in("gamma", gamma, z(cols), true), rows, cols);
    });
}

// ----- Elementwise

void Backend::add_forward(float* out, const float* a, const float* b, int64_t n) {
    run_elsewhere(Kernel::AddForward, [=](Backend& be, ArgMap& m) {
        be.add_forward(m.out("out", out, z(n)), m.in("a", a, z(n)), m.in("b", b, z(n)), n);
    });
}
void Backend::mul_forward(float* out, const float* a, const float* b, int64_t n) {
    run_elsewhere(Kernel::MulForward, [=](Backend& be, ArgMap& m) {
        be.mul_forward(m.out("out", out, z(n)), m.in("a", a, z(n)), m.in("b", b, z(n)), n);
    });
}
void Backend::positional_forward(float* out, const float* in, const float* pe, const float* keep, int B, int L,
                                 int D) {
    run_elsewhere(Kernel::PositionalForward, [=](Backend& be, ArgMap& m) {
        const size_t n = z(B) * L * D;
        be.positional_forward(m.out("out", out, n), m.in("in", in, n), m.in("pe", pe, z(L) * D),
                              m.in("keep", keep, n, true), B, L, D);
    });
}
void Backend::relu_forward(float* out, const float* in, int64_t n) {
    run_elsewhere(Kernel::ReluForward, [=](Backend& be, ArgMap& m) {
        be.relu_forward(m.out("out", out, z(n)), m.in("in", in, z(n)), n);
    });
}
void Backend::relu_backward(float* din, const float* dout, const float* out, int64_t n) {
    run_elsewhere(Kernel::ReluBackward, [=](Backend& be, ArgMap& m) {
        be.relu_backward(m.out("din", din, z(n)), m.in("dout", dout, z(n)), m.in("out", out, z(n)), n);
    });
}
void Backend::gelu_forward(float* out, const float* in, int64_t n) {
    run_elsewhere(Kernel::GeluForward, [=](Backend& be, ArgMap& m) {
        be.gelu_forward(m.out("out", out, z(n)), m.in("in", in, z(n)), n);
    });
}
void Backend::gelu_backward(float* din, const float* dout, const float* in, int64_t n) {
    run_elsewhere(Kernel::GeluBackward, [=](Backend& be, ArgMap& m) {
        be.gelu_backward(m.out("din", din, z(n)), m.in("dout", dout, z(n)), m.in("in", in, z(n)), n);
    });
}
void Backend::scale(float* out, const float* in, int64_t n, float s) {
    run_elsewhere(Kernel::Scale, [=](Backend& be, ArgMap& m) {
        if (out == in) {
            float* io = m.inout("out", out, z(n));  // in place: one buffer, read then written
            be.scale(io, io, n, s);
        } else {
            be.scale(m.out("out", out, z(n)), m.in("in", in, z(n)), n, s);
        }
    });
}
void Backend::fill(float* x, int64_t n, float value) {
    run_elsewhere(Kernel::Fill, [=](Backend& be, ArgMap& m) { be.fill(m.out("x", x, z(n)), n, value); });
}
void Backend::copy(float* out, const float* in, int64_t n) {
    run_elsewhere(Kernel::Copy, [=](Backend& be, ArgMap& m) {
        be.copy(m.out("out", out, z(n)), m.in("in", in, z(n)), n);
    });
}

// ----- Loss

void Backend::cross_entropy_forward(float* losses, float* mean, int* counted, const float* probs, const int* targets,
                                    int N, int V, int ignore_index) {
    run_elsewhere(Kernel::CrossEntropyForward, [=](Backend& be, ArgMap& m) {
        be.cross_entropy_forward(m.out("losses", losses, z(N)), m.result("mean", mean),
                                 m.result("counted", counted), m.in("probs", probs, z(N) * V),
                                 m.in("targets", targets, z(N)), N, V, ignore_index);
    });
}
void Backend::cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                     int ignore_index) {
    run_elsewhere(Kernel::CrossEntropyBackward, [=](Backend& be, ArgMap& m) {
        be.cross_entropy_backward(m.out("dlogits", dlogits, z(N) * V), m.in("probs", probs, z(N) * V),
                                  m.in("targets", targets, z(N)), N, V, ignore_index);
    });
}
void Backend::smoothed_cross_entropy_forward(float* losses, float* sum, const float* logits, const int* targets,
                                             int N, int V, int ignore_index, float eps) {
    run_elsewhere(Kernel::SmoothedCrossEntropyForward, [=](Backend& be, ArgMap& m) {
        be.smoothed_cross_entropy_forward(m.out("losses", losses, z(N)), m.result("sum", sum),
                                          m.in("logits", logits, z(N) * V), m.in("targets", targets, z(N)), N, V,
                                          ignore_index, eps);
    });
}
void Backend::smoothed_cross_entropy_backward(float* dlogits, const float* probs, const int* targets, int N, int V,
                                              int ignore_index, float eps, float scale) {
    run_elsewhere(Kernel::SmoothedCrossEntropyBackward, [=](Backend& be, ArgMap& m) {
        be.smoothed_cross_entropy_backward(m.out("dlogits", dlogits, z(N) * V), m.in("probs", probs, z(N) * V),
                                           m.in("targets", targets, z(N)), N, V, ignore_index, eps, scale);
    });
}

// ----- Reduction

void Backend::all_finite(float* flag, const float* x, int64_t n) {
    run_elsewhere(Kernel::AllFinite, [=](Backend& be, ArgMap& m) {
        be.all_finite(m.out("flag", flag, 1), m.in("x", x, z(n)), n);
    });
}
void Backend::sum_squares(double* acc, const float* x, int64_t n) {
    run_elsewhere(Kernel::SumSquares, [=](Backend& be, ArgMap& m) {
        be.sum_squares(m.result("acc", acc), m.in("x", x, z(n)), n);
    });
}

// ----- Inputs

void Backend::pad_mask(float* mask, const int* ids_k, int B, int Lq, int Lk, int pad_id) {
    run_elsewhere(Kernel::PadMask, [=](Backend& be, ArgMap& m) {
        be.pad_mask(m.out("mask", mask, z(B) * Lq * Lk), m.in("ids_k", ids_k, z(B) * Lk), B, Lq, Lk, pad_id);
    });
}
void Backend::subsequence_mask(float* mask, int B, int T) {
    run_elsewhere(Kernel::SubsequenceMask,
                  [=](Backend& be, ArgMap& m) { be.subsequence_mask(m.out("mask", mask, z(B) * T * T), B, T); });
}
void Backend::mask_or(float* out, const float* a, const float* b, int64_t n) {
    run_elsewhere(Kernel::MaskOr, [=](Backend& be, ArgMap& m) {
        be.mask_or(m.out("out", out, z(n)), m.in("a", a, z(n)), m.in("b", b, z(n)), n);
    });
}
void Backend::positional_table(float* pe, int L, int D) {
    run_elsewhere(Kernel::PositionalTable,
                  [=](Backend& be, ArgMap& m) { be.positional_table(m.out("pe", pe, z(L) * D), L, D); });
}
void Backend::dropout_mask(float* keep, int64_t n, float p, uint64_t seed, uint64_t offset) {
    run_elsewhere(Kernel::DropoutMask, [=](Backend& be, ArgMap& m) {
        be.dropout_mask(m.out("keep", keep, z(n)), n, p, seed, offset);
    });
}

}  // namespace stepformer
