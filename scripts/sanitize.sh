#!/bin/sh
# Builds the core library, its tests and the fuzz replays with sanitizers in build-<kind>/ and runs
# them (docs/reliability.md):
#   scripts/sanitize.sh address   AddressSanitizer + UndefinedBehaviorSanitizer, leaks detected: the
#                                 core tests (every reader, the graph engine, the training loop,
#                                 the CLI, killed saves) and the fuzz corpus replays
#   scripts/sanitize.sh thread    ThreadSanitizer: the same tests (OpenMP on one thread: its runtime
#                                 is not instrumented), then the app's threads together
#                                 (ui.test_training_threads: a run streaming to the views while
#                                 the user steps and switches devices; ui.test_session: typed
#                                 sentences and model switches computed on workers;
#                                 ui.test_compute_device's switches to a test device and the
#                                 devices lost under them; the UI is built too)
#   scripts/sanitize.sh ci        ASan + UBSan, the reduced set the test command runs after the
#                                 normal suite (CI's 60 minutes): the library and the CLI only, the
#                                 fuzz replays (every reader) and the CLI computing, training,
#                                 saving, resuming and decoding each architecture (the engine, the
#                                 training loop, checkpoints)
# The GPU's tests are left out (but for the thread mode's GpuThreads): the Vulkan driver (lavapipe,
# LLVM) is not instrumented and keeps memory until the process ends. Extra arguments go to the GoogleTest binary; GTEST_FILTER picks
# tests (e.g. GTEST_FILTER='Safetensors*').
set -eu
kind=${1:-address}
[ $# -gt 0 ] && shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mode=$kind
[ "$kind" = ci ] && kind=address
BUILD="$ROOT/build-$kind"
case "$kind" in
address)
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    export LSAN_OPTIONS="suppressions=$ROOT/tests/sanitizers/lsan.supp:print_suppressions=0"
    ;;
thread)
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/tests/sanitizers/tsan.supp"
    export OMP_NUM_THREADS=1 OMP_THREAD_LIMIT=1  # the limit holds for num_threads() clauses too
    ;;
*)
    echo "usage: scripts/sanitize.sh address|thread [ctest arguments]" >&2
    exit 2
    ;;
esac
gui=OFF
[ "$mode" = thread ] && gui=ON
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTEPFORMER_SANITIZE="$kind" \
    -DSTEPFORMER_BUILD_GUI=$gui -DSTEPFORMER_BUILD_BENCH=OFF >/dev/null
replays="fuzz_replay_config fuzz_replay_dataset fuzz_replay_npy fuzz_replay_safetensors fuzz_replay_sentence fuzz_replay_checkpoint"
# No Vulkan driver is offered (VK_ICD_FILENAMES): the GPU's code is checked on lavapipe by the
# normal suite; the driver itself is not instrumented.
icd_was=${VK_ICD_FILENAMES-unset}
export VK_ICD_FILENAMES=/nonexistent-stepformer-icd.json
if [ "$mode" = ci ]; then
    # shellcheck disable=SC2086
    cmake --build "$BUILD" -j2 --target stepformer-cli $replays
    ctest --test-dir "$BUILD" --output-on-failure -j2 -L fuzz
    cli="$BUILD/bin/stepformer-cli"
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    fx="$ROOT/tests/fixtures"
    set -x
    "$cli" forward >/dev/null
    "$cli" train --epochs 3 --save "$work/tutorial.safetensors" --save-optimizer --quiet
    "$cli" train --init "$work/tutorial.safetensors" --resume --epochs 1 --quiet
    "$cli" translate --weights "$work/tutorial.safetensors" >/dev/null
    "$cli" grad --weights "$work/tutorial.safetensors" --dump "$work/grads.safetensors" >/dev/null
    "$cli" train --config "$fx/torch/seq2seq.config.json" --epochs 2 --optimizer adam --quiet
    "$cli" train --config "$fx/aiayn/shared_emb.config.json" --epochs 2 --quiet
    "$cli" train --config "$fx/gpt/bias_1layer.config.json" --epochs 2 --optimizer adamw --save "$work/gpt.safetensors" --quiet
    "$cli" generate --weights "$work/gpt.safetensors" --prompt "S i" >/dev/null
    "$cli" info "$work/gpt.safetensors" >/dev/null
    set +x
    echo "sanitize ci: ASan + UBSan clean"
    exit 0
fi
ui=
[ "$mode" = thread ] && ui="ui_test_training_threads ui_test_session ui_test_compute_device"
# shellcheck disable=SC2086
cmake --build "$BUILD" -j2 --target stepformer_core_tests stepformer-cli save_child $replays $ui
# The GoogleTests in one process (ctest would start one sanitized process per test: ~2 s each),
# then the fuzz replays.
"$BUILD/bin/stepformer_core_tests" --gtest_filter="${GTEST_FILTER:-*}-*gpu*:*Gpu*:*Vulkan*:RowReductions.*:CliBackend.*" \
    --gtest_brief=1 "$@"
ctest --test-dir "$BUILD" --output-on-failure -j2 -L fuzz
if [ "$mode" = thread ]; then
    # The GPU backend's own threads (one queue per thread), on the Vulkan driver where there is
    # one: the driver is not instrumented, but the backend's locks and queues are.
    gpu_threads="$BUILD/bin/stepformer_core_tests --gtest_filter=GpuThreads.* --gtest_brief=1"
    if [ "$icd_was" = unset ]; then
        env -u VK_ICD_FILENAMES $gpu_threads
    else
        VK_ICD_FILENAMES=$icd_was $gpu_threads
    fi
fi
if [ -n "$ui" ]; then
    export QT_QPA_PLATFORM=offscreen
    "$BUILD/bin/ui_test_training_threads"
    "$BUILD/bin/ui_test_session"
    # (its tests on the test device "cpu-device": the Vulkan driver is not offered here)
    "$BUILD/bin/ui_test_compute_device" aLostGpuFallsBackToTheCpuWithTheSameWeights trainingRunsOnTheChosenDevice \
        aGpuLostUnderTrainingKeepsTheWeights aDeviceSwitchBuildsOnAPendingPresetSwitch aGpuLostUnderTheSwitchToItLeavesTheCpu
fi
