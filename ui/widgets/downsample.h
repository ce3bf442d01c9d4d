// Drawing many cells into few pixels without moiré: each pixel averages the cells under a window
// at least two cells wide (an even number of them), weighted by overlap. Sampling one cell per
// pixel (or a box of exactly one pixel) turned columns that alternate, as the sines and cosines
// of a positional encoding do, into stripes that are not in the data.
#pragma once

#include <utility>
#include <vector>

namespace downsample {

// For target pixels 0..pixels-1 laid over `cells` cells, `cellsPerPixel` apart starting at cell
// coordinate `first` (a scroll offset): the (cell, weight) pairs each pixel averages, weights
// summing to 1.
std::vector<std::vector<std::pair<int, double>>> weights(int cells, int pixels, double cellsPerPixel, double first = 0.0);

}  // namespace downsample
