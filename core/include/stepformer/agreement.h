// How far one tensor is from another of the same shape: how the app's agreement box (explain
// panel) and `stepformer-cli forward --compare-cpu` report a step computed on the GPU (a) against
// the same step computed on the CPU (b, the reference). Tested on hand-made tensors
// (tests/ui/test_device_agreement.cpp).
//
// Definitions (the box's tooltip repeats them):
//  - max |Δ|: the largest |a − b| over the elements where both are finite.
//  - max relative: max |Δ| / max |b|, the largest difference against the reference's largest
//    magnitude (both over finite elements). Not the largest element-wise |a − b| / |b|: that
//    ratio explodes at references near 0 (a masked attention weight, a ReLU's zeros) where
//    rounding differences are meaningless. 0 when max |Δ| is 0; +∞ when b is all zeros and a is
//    not.
//  - differing: the elements whose values are not equal. Two NaNs count as equal (both devices
//    say "not a number"); +0 and −0 count as equal (see bitIdentical).
//  - NaN and ∞ never enter max |Δ|: they are counted per side and, where only one side (or the
//    other infinity) has them, as `nonFiniteMismatch`, so a caller has to say so instead of
//    printing a small max |Δ| over the finite rest.
#pragma once

#include <cstdint>
#include <string>

#include "stepformer/tensor.h"

namespace stepformer::agreement {

struct TensorDiff {
    std::string error;  // non-empty: not compared (shapes differ, a malformed tensor); nothing else is set
    int64_t count = 0;          // elements compared
    int64_t differing = 0;      // elements whose values differ (NaN vs NaN, +0 vs −0: equal)
    bool bitIdentical = false;  // every element the same float, bit for bit (−0 ≠ +0, NaN payloads too)
    double maxAbs = 0.0;        // max |a − b| over elements finite on both sides
    int64_t maxAbsIndex = -1;   // flat index of that element; -1 when nothing finite differs
    double maxRef = 0.0;        // max |b| over finite b
    double maxRel = 0.0;        // maxAbs / maxRef (see the top of the file)
    int64_t nanA = 0, nanB = 0;  // NaNs on each side
    int64_t infA = 0, infB = 0;  // ±∞ on each side
    int64_t nonFiniteMismatch = 0;  // elements where a and b are not the same non-finite value
                                    // (one side finite, NaN vs ∞, +∞ vs −∞)
    stepformer::Tensor difference;  // a − b, element by element (IEEE: NaN where either is NaN or
                                    // both are the same infinity)

    bool ok() const { return error.empty(); }
    bool hasNonFinite() const { return nanA + nanB + infA + infB > 0; }
};

// a − b and its summary. Never throws on bad input: a shape mismatch or a tensor whose data does
// not fill its shape comes back as `error`.
TensorDiff compare(const stepformer::Tensor& a, const stepformer::Tensor& b);

}  // namespace stepformer::agreement
