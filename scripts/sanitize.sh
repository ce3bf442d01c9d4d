#!/bin/sh
# Builds the core library, its tests and the fuzz replays with sanitizers in build-<kind>/ and runs
# them (docs/reliability.md):
#   scripts/sanitize.sh address   AddressSanitizer + UndefinedBehaviorSanitizer, leaks detected: the
#                                 core tests (every reader, the graph engine, the training loop,
#                                 the CLI, killed saves) and the fuzz corpus replays
#   scripts/sanitize.sh thread    ThreadSanitizer: the same tests (OpenMP on one thread: its runtime
#                                 is not instrumented)
# The GPU's tests are left out: the Vulkan driver (lavapipe, LLVM) is not instrumented and keeps
# memory until the process ends. Extra arguments go to the GoogleTest binary; GTEST_FILTER picks
# tests (e.g. GTEST_FILTER='Safetensors*').
set -eu
kind=${1:-address}
[ $# -gt 0 ] && shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build-$kind"
case "$kind" in
address)
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    export LSAN_OPTIONS="suppressions=$ROOT/tests/sanitizers/lsan.supp:print_suppressions=0"
    ;;
thread)
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/tests/sanitizers/tsan.supp"
    export OMP_NUM_THREADS=1
    ;;
*)
    echo "usage: scripts/sanitize.sh address|thread [ctest arguments]" >&2
    exit 2
    ;;
esac
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTEPFORMER_SANITIZE="$kind" \
    -DSTEPFORMER_BUILD_GUI=OFF -DSTEPFORMER_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" -j2 --target stepformer_core_tests stepformer-cli save_child \
    fuzz_replay_config fuzz_replay_dataset fuzz_replay_npy fuzz_replay_safetensors fuzz_replay_sentence \
    fuzz_replay_checkpoint
# The GoogleTests in one process (ctest would start one sanitized process per test: ~2 s each),
# then the fuzz replays. No Vulkan driver is offered to them (VK_ICD_FILENAMES): the CLI tests
# that would compare with a GPU see none.
export VK_ICD_FILENAMES=/nonexistent-stepformer-icd.json
"$BUILD/bin/stepformer_core_tests" --gtest_filter="${GTEST_FILTER:-*}-*gpu*:*Gpu*:*Vulkan*:RowReductions.*:CliBackend.*" \
    --gtest_brief=1 "$@"
ctest --test-dir "$BUILD" --output-on-failure -j2 -L fuzz
