// The Vulkan backend's element-wise and gather kernels: arithmetic, activations, embeddings, heads,
// masks, the positional encoding and dropout.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "vulkan/vk_backend_internal.h"

namespace stepformer::vk {

void VulkanBackend::fill(float* x, int64_t n, float value) {
    elementwise(Elementwise::Fill, x, nullptr, nullptr, n, value);
}

void VulkanBackend::copy(float* out, const float* in, int64_t n) {
    elementwise(Elementwise::Copy, out, in, nullptr, n);
}

void VulkanBackend::add_forward(float* out, const float* a, const float* b, int64_t n) {
    elementwise(Elementwise::Add, out, a, b, n);
}

void VulkanBackend::mul_forward(float* out, const float* a, const float* b, int64_t n) {
    elementwise(Elementwise::Mul, out, a, b, n);
}

void VulkanBackend::relu_forward(float* out, const float* in, int64_t n) {
    elementwise(Elementwise::Relu, out, in, nullptr, n);
}

void VulkanBackend::relu_backward(float* din, const float* dout, const float* out, int64_t n) {
    elementwise(Elementwise::ReluBackward, din, dout, out, n);
}

void VulkanBackend::gelu_forward(float* out, const float* in, int64_t n) {
    elementwise(Elementwise::Gelu, out, in, nullptr, n);
}

void VulkanBackend::gelu_backward(float* din, const float* dout, const float* in, int64_t n) {
    elementwise(Elementwise::GeluBackward, din, dout, in, n);
}

void VulkanBackend::mask_or(float* out, const float* a, const float* b, int64_t n) {
    elementwise(Elementwise::MaskOr, out, a, b, n);
}

void VulkanBackend::scale(float* out, const float* in, int64_t n, float s) {
    elementwise(Elementwise::Scale, out, in, nullptr, n, s);
}

void VulkanBackend::add_bias(float* y, const float* bias, int N, int O) {
    if (N <= 0 || O <= 0) return;
    // y (N, O) += bias (O): y is both the output and the first input (each element read, then
    // written, by one invocation)
    elementwise(Elementwise::AddBias, y, y, bias, int64_t(N) * O, 0.0f, uint32_t(O));
}

void VulkanBackend::embedding_forward(float* out, const int* ids, const float* table, int N, int V, int D) {
    const QueueLock lock(*this);
    GatherArgs g{};
    g.out = waddr(out, size_t(N) * D, "embedding_forward out");
    g.a = addr(ids, size_t(N), "embedding_forward ids");
    g.b = addr(table, size_t(V) * D, "embedding_forward table");
    g.d0 = uint32_t(D);
    gather(Gather::Embedding, g, int64_t(N) * D);
}

void VulkanBackend::split_heads(float* out, const float* in, int B, int L, int H, int d) {
    heads(Gather::SplitHeads, out, in, B, L, H, d);
}

void VulkanBackend::merge_heads(float* out, const float* in, int B, int L, int H, int d) {
    heads(Gather::MergeHeads, out, in, B, L, H, d);
}

void VulkanBackend::mask_fill_forward(float* out, const float* in, const float* mask, int B, int H, int Lq, int Lk,
                                      float value) {
    masked(Gather::MaskFill, out, in, mask, B, H, Lq, Lk, value);
}

void VulkanBackend::mask_fill_backward(float* din, const float* dout, const float* mask, int B, int H, int Lq, int Lk) {
    masked(Gather::MaskFillBackward, din, dout, mask, B, H, Lq, Lk, 0.0f);
}

void VulkanBackend::positional_forward(float* out, const float* in, const float* pe, const float* keep, int B, int L,
                                       int D) {
    const QueueLock lock(*this);
    const size_t n = size_t(B) * L * D;
    GatherArgs g{};
    g.out = waddr(out, n, "positional_forward out");
    g.a = addr(in, n, "positional_forward in");
    g.b = addr(pe, size_t(L) * D, "positional_forward pe");
    g.c = addr(keep, n, "positional_forward keep");
    g.d0 = uint32_t(L), g.d1 = uint32_t(D);
    gather(Gather::Positional, g, int64_t(n));
}

void VulkanBackend::pad_mask(float* mask, const int* ids_k, int B, int Lq, int Lk, int pad_id) {
    const QueueLock lock(*this);
    GatherArgs g{};
    g.out = waddr(mask, size_t(B) * Lq * Lk, "pad_mask mask");
    g.a = addr(ids_k, size_t(B) * Lk, "pad_mask ids_k");
    g.d0 = uint32_t(B), g.d1 = uint32_t(Lq), g.d2 = uint32_t(Lk);
    g.ival = pad_id;
    gather(Gather::PadMask, g, int64_t(B) * Lq * Lk);
}

void VulkanBackend::subsequence_mask(float* mask, int B, int T) {
    const QueueLock lock(*this);
    GatherArgs g{};
    g.out = waddr(mask, size_t(B) * T * T, "subsequence_mask mask");
    g.d0 = uint32_t(T);
    gather(Gather::SubsequenceMask, g, int64_t(B) * T * T);
}

void VulkanBackend::positional_table(float* pe, int L, int D) {
    // The CPU's table (its float32 sines and cosines), uploaded in order with the queue.
    std::vector<float> table(size_t(std::max(L, 0)) * size_t(std::max(D, 0)));
    cpu_->positional_table(table.data(), L, D);
    upload(pe, table.data(), table.size() * sizeof(float));
}

void VulkanBackend::dropout_mask(float* keep, int64_t n, float p, uint64_t seed, uint64_t offset) {
    if (n <= 0) return;
    if (n > int64_t(UINT32_MAX)) throw std::length_error("gpu: more than 2^32 elements in one kernel");
    const QueueLock lock(*this);
    const DropoutArgs d{waddr(keep, size_t(n), "dropout_mask keep"), seed, offset, uint32_t(n), p,
                        1.0f / (1.0f - p)};  // the CPU's scale, in float
    const int64_t blocks = (n + 3) / 4;
    dispatch("dropout", &d, sizeof d, uint32_t(std::min<int64_t>((blocks + 255) / 256, 65535)), 1);
}

// cols: AddBias's row length; b is then one row (cols floats), not n.
void VulkanBackend::elementwise(Elementwise op, float* out, const float* a, const float* b, int64_t n, float value,
                                uint32_t cols) {
    if (n <= 0) return;
    if (n > int64_t(UINT32_MAX)) throw std::length_error("gpu: more than 2^32 elements in one kernel");
    const QueueLock lock(*this);
    const ElementwiseArgs args{waddr(out, size_t(n), "an output"), addr(a, size_t(n), "an input"),
                               addr(b, cols ? size_t(cols) : size_t(n), "an input"), uint32_t(n), uint32_t(op),
                               value, cols};
    const uint32_t groups = uint32_t(std::min<int64_t>((n + 255) / 256, 65535));
    dispatch("elementwise", &args, sizeof args, groups, 1);
}

// The queue held.
void VulkanBackend::gather(Gather op, GatherArgs g, int64_t n) {
    if (n <= 0) return;
    if (n > int64_t(UINT32_MAX)) throw std::length_error("gpu: more than 2^32 elements in one kernel");
    g.n = uint32_t(n);
    g.op = uint32_t(op);
    dispatch("gather", &g, sizeof g, uint32_t(std::min<int64_t>((n + 255) / 256, 65535)), 1);
}

// out (B, H, Lq, Lk) from in by mask (B, Lq, Lk): mask fill and its backward
void VulkanBackend::masked(Gather op, float* out, const float* in, const float* mask, int B, int H, int Lq, int Lk,
                           float value) {
    const QueueLock lock(*this);
    const size_t n = size_t(B) * H * Lq * Lk;
    GatherArgs g{};
    g.out = waddr(out, n, "mask fill out");
    g.a = addr(in, n, "mask fill in");
    g.b = addr(mask, size_t(B) * Lq * Lk, "mask fill mask");
    g.d0 = uint32_t(B), g.d1 = uint32_t(H), g.d2 = uint32_t(Lq), g.d3 = uint32_t(Lk);
    g.value = value;
    gather(op, g, int64_t(n));
}

void VulkanBackend::heads(Gather op, float* out, const float* in, int B, int L, int H, int d) {
    const QueueLock lock(*this);
    const size_t n = size_t(B) * L * H * d;
    GatherArgs g{};
    g.out = waddr(out, n, "heads out");
    g.a = addr(in, n, "heads in");
    g.d0 = uint32_t(B), g.d1 = uint32_t(L), g.d2 = uint32_t(H), g.d3 = uint32_t(d);
    gather(op, g, int64_t(n));
}

}  // namespace stepformer::vk
