#!/bin/sh
# The GPU backend on a real GPU, in one go (issue "GPU speed"): builds the core, its tests and the
# benchmarks (no GUI) in build-gpu/, runs every GPU parity test on the device in both memory
# modes, prints the device's work per step (stepformer-cli bench --counts, both sizes), and runs
# scripts/bench_vs_torch.sh --gpu (PyTorch CUDA eager, synchronised per step) last, whose table
# ends the output. Needs cmake, a C++20 compiler, Eigen, GoogleTest, Google Benchmark, CLI11,
# nlohmann-json, the Vulkan loader (libvulkan1) and headers, glslc, and a PyTorch with CUDA (set
# PYTHON to its python). Usage: scripts/gpu_device_check.sh [--quick]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build-gpu"
QUICK=${1:-}
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DSTEPFORMER_BUILD_GUI=OFF -DSTEPFORMER_VULKAN=ON >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target stepformer_core_tests stepformer-cli stepformer_bench
"$BUILD/bin/stepformer-cli" info --devices
# The parity tests: every backend against the CPU, the models against PyTorch's fixtures.
for memory in device host; do
  echo "== GPU tests, STEPFORMER_VK_MEMORY=$memory"
  STEPFORMER_VK_MEMORY=$memory "$BUILD/bin/stepformer_core_tests" \
    --gtest_filter='*gpu*:*Gpu*:RowReductions.*:CliBackend.*:DeviceBackend.*:DeviceModel.*' --gtest_brief=1
done
for size in "" --large; do
  echo "== stepformer-cli bench --backend gpu --counts $size"
  "$BUILD/bin/stepformer-cli" bench --backend gpu --counts --iters 20 $size
done
echo "== against PyTorch CUDA eager"
"$ROOT/scripts/bench_vs_torch.sh" --gpu $QUICK "$BUILD"
