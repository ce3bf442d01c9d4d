#include "stepformer/tensor.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace stepformer {

int64_t numel(const Shape& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

std::string shape_to_string(const Shape& shape) {
    std::ostringstream os;
    os << '[';
    for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
    os << ']';
    return os.str();
}

Tensor::Tensor(Shape s, std::vector<float> values) : shape(std::move(s)), data(std::move(values)) {
    if (numel(shape) != static_cast<int64_t>(data.size()))
        throw std::invalid_argument("Tensor: shape " + shape_to_string(shape) + " does not match " +
                                    std::to_string(data.size()) + " values");
}

static int64_t flat_index(const Shape& shape, std::initializer_list<int64_t> idx) {
    if (idx.size() != shape.size())
        throw std::out_of_range("Tensor::at: " + std::to_string(idx.size()) + " indices for shape " +
                                shape_to_string(shape));
    int64_t off = 0;
    size_t k = 0;
    for (int64_t i : idx) {
        if (i < 0 || i >= shape[k]) throw std::out_of_range("Tensor::at: index out of range");
        off = off * shape[k] + i;
        ++k;
    }
    return off;
}

float Tensor::at(std::initializer_list<int64_t> idx) const { return data[static_cast<size_t>(flat_index(shape, idx))]; }
float& Tensor::at(std::initializer_list<int64_t> idx) { return data[static_cast<size_t>(flat_index(shape, idx))]; }

void Tensor::zero() { std::fill(data.begin(), data.end(), 0.0f); }

Tensor swap_leading_axes(const Tensor& t) {
    if (t.rank() < 2) throw std::invalid_argument("swap_leading_axes: shape " + shape_to_string(t.shape) + " has fewer than 2 axes");
    Shape s = t.shape;
    std::swap(s[0], s[1]);
    Tensor out(s);
    const int64_t A = t.dim(0), B = t.dim(1), inner = A * B > 0 ? t.size() / (A * B) : 0;
    for (int64_t a = 0; a < A; ++a)
        for (int64_t b = 0; b < B; ++b)
            std::copy_n(t.data.begin() + (a * B + b) * inner, inner, out.data.begin() + (b * A + a) * inner);
    return out;
}

}  // namespace stepformer
