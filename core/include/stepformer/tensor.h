// A dense float32 tensor with a row-major shape. Owns its storage: every traced
// intermediate is its own buffer, never a view of another.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace stepformer {

using Shape = std::vector<int64_t>;

int64_t numel(const Shape& shape);
std::string shape_to_string(const Shape& shape);  // "[2, 8, 5, 5]"

struct Tensor {
    Shape shape;
    std::vector<float> data;

    Tensor() = default;
    explicit Tensor(Shape s, float fill = 0.0f) : shape(std::move(s)), data(static_cast<size_t>(numel(shape)), fill) {}
    Tensor(Shape s, std::vector<float> values);

    int64_t size() const { return static_cast<int64_t>(data.size()); }
    int64_t dim(int i) const { return shape.at(static_cast<size_t>(i < 0 ? static_cast<int>(shape.size()) + i : i)); }
    int rank() const { return static_cast<int>(shape.size()); }
    float* ptr() { return data.data(); }
    const float* ptr() const { return data.data(); }
    bool empty() const { return data.empty(); }

    // Row-major element access for up to 4 indices (tests and UI convenience).
    float at(std::initializer_list<int64_t> idx) const;
    float& at(std::initializer_list<int64_t> idx);

    void zero();
};

// The first two axes swapped, (A, B, ...) -> (B, A, ...): PyTorch's sequence-first layout
// [L, B, D] to the trace's batch-first [B, L, D] and back. Throws std::invalid_argument below rank 2.
Tensor swap_leading_axes(const Tensor& t);

}  // namespace stepformer
