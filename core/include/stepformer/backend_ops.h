// The kernels of the backend interface as data: each one's name and family (Kernel), and how a
// kernel call's pointer arguments are described (ArgMap), so that code which does the same
// thing for every kernel — run it on the CPU for a backend that declines it, check its
// arguments, copy them — is written once instead of once per kernel (ggml's supports_op and
// its scheduler's copies are the model).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>

namespace stepformer {

// X(enumerator, kernel name, family): every kernel of Backend, in the order backend.h declares them.
#define STEPFORMER_BACKEND_OPS(X)                                                    \
    X(LinearForward, "linear_forward", Linear)                                       \
    X(LinearBackward, "linear_backward", Linear)                                     \
    X(LinearBackwardUpdate, "linear_backward_update", Optimizer)                     \
    X(ApplyUpdate, "apply_update", Optimizer)                                        \
    X(EmbeddingForward, "embedding_forward", Embedding)                              \
    X(EmbeddingBackward, "embedding_backward", Embedding)                            \
    X(SplitHeads, "split_heads", Attention)                                          \
    X(MergeHeads, "merge_heads", Attention)                                          \
    X(AttnScoresForward, "attn_scores_forward", Attention)                           \
    X(AttnScoresBackward, "attn_scores_backward", Attention)                         \
    X(MaskFillForward, "mask_fill_forward", Attention)                               \
    X(MaskFillBackward, "mask_fill_backward", Attention)                             \
    X(SoftmaxForward, "softmax_forward", Rows)                                       \
    X(SoftmaxBackward, "softmax_backward", Rows)                                     \
    X(AttnContextForward, "attn_context_forward", Attention)                         \
    X(AttnContextBackward, "attn_context_backward", Attention)                       \
    X(AddForward, "add_forward", Elementwise)                                        \
    X(PositionalForward, "positional_forward", Elementwise)                          \
    X(LayerNormForward, "layernorm_forward", Rows)                                   \
    X(LayerNormBackward, "layernorm_backward", Rows)                                 \
    X(ReluForward, "relu_forward", Elementwise)                                      \
    X(ReluBackward, "relu_backward", Elementwise)                                    \
    X(GeluForward, "gelu_forward", Elementwise)                                      \
    X(GeluBackward, "gelu_backward", Elementwise)                                    \
    X(AddBias, "add_bias", Linear)                                                   \
    X(BiasBackward, "bias_backward", Linear)                                         \
    X(Scale, "scale", Elementwise)                                                   \
    X(CrossEntropyForward, "cross_entropy_forward", Loss)                            \
    X(CrossEntropyBackward, "cross_entropy_backward", Loss)                          \
    X(SmoothedCrossEntropyForward, "smoothed_cross_entropy_forward", Loss)           \
    X(SmoothedCrossEntropyBackward, "smoothed_cross_entropy_backward", Loss)         \
    X(AllFinite, "all_finite", Reduction)                                            \
    X(PadMask, "pad_mask", Inputs)                                                   \
    X(SubsequenceMask, "subsequence_mask", Inputs)                                   \
    X(MaskOr, "mask_or", Inputs)                                                     \
    X(PositionalTable, "positional_table", Inputs)                                   \
    X(DropoutMask, "dropout_mask", Inputs)                                           \
    X(MulForward, "mul_forward", Elementwise)                                        \
    X(Fill, "fill", Elementwise)                                                     \
    X(Copy, "copy", Elementwise)                                                     \
    X(SgdStep, "sgd_step", Optimizer)                                                \
    X(AdamStep, "adam_step", Optimizer)                                              \
    X(SumSquares, "sum_squares", Reduction)

enum class Kernel : uint8_t {
#define STEPFORMER_OP_ENUM(e, name, family) e,
    STEPFORMER_BACKEND_OPS(STEPFORMER_OP_ENUM)
#undef STEPFORMER_OP_ENUM
};
#define STEPFORMER_OP_COUNT(e, name, family) +1
inline constexpr int kKernelCount = 0 STEPFORMER_BACKEND_OPS(STEPFORMER_OP_COUNT);
#undef STEPFORMER_OP_COUNT

// What a backend implements together: one family is usually one shader file or one CPU source.
enum class KernelFamily : uint8_t {
    Linear,       // matrix products with weights, their biases
    Embedding,    // table look-ups and their scatter
    Attention,    // heads, scores, masks on scores, context
    Rows,         // softmax and LayerNorm: a reduction then a map along each row
    Elementwise,  // one output element from the same element of each input
    Loss,         // cross-entropies
    Inputs,       // what a pass makes besides layers: masks, positional table, dropout masks
    Optimizer,    // weight updates
    Reduction,    // a scalar from a buffer
};

const char* kernel_name(Kernel k);
KernelFamily kernel_family(Kernel k);
const char* family_name(KernelFamily f);

// How a kernel uses one of its pointer arguments.
enum class Access : uint8_t {
    In,          // read only
    Out,         // written whole, never read
    InOut,       // read then written (accumulated into, or updated in place)
    HostResult,  // a scalar result in the host's memory by contract (a loss, a sum), valid after sync()
};
enum class Elem : uint8_t { F32, I32, F64 };

// One pointer argument of one kernel call.
struct KernelArg {
    const char* name;
    void* p;
    size_t count;  // elements
    Elem elem;
    Access access;
    bool optional;  // null is allowed (the interface says so)
    size_t bytes() const { return count * (elem == Elem::F64 ? 8 : 4); }
};

// Sees every pointer argument of a kernel call before the kernel runs and says which address
// the kernel is to be given for it: the same (a check), a host copy of device memory (the CPU
// fallback), a guarded scratch copy (the tests' "cpu-copy").
class ArgMap {
public:
    virtual ~ArgMap() = default;
    virtual void* map(const KernelArg& a) = 0;

    const float* in(const char* n, const float* p, size_t c, bool opt = false) {
        return static_cast<const float*>(map({n, const_cast<float*>(p), c, Elem::F32, Access::In, opt}));
    }
    const int* in(const char* n, const int* p, size_t c, bool opt = false) {
        return static_cast<const int*>(map({n, const_cast<int*>(p), c, Elem::I32, Access::In, opt}));
    }
    float* out(const char* n, float* p, size_t c, bool opt = false) {
        return static_cast<float*>(map({n, p, c, Elem::F32, Access::Out, opt}));
    }
    float* inout(const char* n, float* p, size_t c, bool opt = false) {
        return static_cast<float*>(map({n, p, c, Elem::F32, Access::InOut, opt}));
    }
    // Written whole, or added to when `accumulates`.
    float* out_or_add(const char* n, float* p, size_t c, bool accumulates, bool opt = false) {
        return static_cast<float*>(map({n, p, c, Elem::F32, accumulates ? Access::InOut : Access::Out, opt}));
    }
    template <class T>
    T* result(const char* n, T* p) {
        constexpr Elem e = sizeof(T) == 8 ? Elem::F64 : (std::is_integral_v<T> ? Elem::I32 : Elem::F32);
        return static_cast<T*>(map({n, p, 1, e, Access::HostResult, true}));
    }
};

class Backend;
// One kernel call made replayable: given a backend and a map, it maps its arguments and calls
// the same kernel on that backend. Holds its arguments by value (it may run later, queued).
using KernelCall = std::function<void(Backend& on, ArgMap& args)>;

}  // namespace stepformer
