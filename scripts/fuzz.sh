#!/bin/sh
# Builds the libFuzzer targets (tests/fuzz) with Clang, ASan and UBSan in build-fuzz/ and runs each
# for SECONDS (default 60) from the seeds in tests/fuzz/corpus/. A finding leaves its input as
# crash-* / leak-* / timeout-* in build-fuzz/findings/ and the script exits non-zero.
# RUNS=N stops a target after N executions if that comes first (the issue's budget: 10 million or
# 30 minutes, i.e. RUNS=10000000 scripts/fuzz.sh 1800). Each target's log is build-fuzz/logs/<target>.log.
# Needs `apt-get install clang libclang-rt-14-dev libomp-14-dev`. Not part of the test command.
#   [TARGETS="npy config"] [RUNS=N] scripts/fuzz.sh [SECONDS]
set -eu
SECONDS_EACH=${1:-60}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build-fuzz"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DSTEPFORMER_FUZZ=ON \
    -DSTEPFORMER_BUILD_GUI=OFF -DSTEPFORMER_BUILD_TESTS=OFF -DSTEPFORMER_BUILD_BENCH=OFF -DSTEPFORMER_NATIVE=OFF >/dev/null
cmake --build "$BUILD" -j2 --target fuzz_config fuzz_dataset fuzz_npy fuzz_safetensors fuzz_sentence fuzz_checkpoint
mkdir -p "$BUILD/findings" "$BUILD/logs"
status=0
for t in ${TARGETS:-config dataset npy safetensors sentence checkpoint}; do
    work="$BUILD/corpus/$t"
    mkdir -p "$work"
    cp -n "$ROOT/tests/fuzz/corpus/$t/"* "$work/" 2>/dev/null || true
    echo "== fuzz_$t for $SECONDS_EACH s"
    "$BUILD/bin/fuzz_$t" -max_total_time="$SECONDS_EACH" -runs="${RUNS:--1}" -max_len=8192 -rss_limit_mb=2048 \
        -timeout=10 -print_final_stats=1 -artifact_prefix="$BUILD/findings/$t-" "$work" >"$BUILD/logs/$t.log" 2>&1 || status=1
    grep -E '^Done|stat::number_of_executed_units|stat::peak_rss|ERROR|SUMMARY' "$BUILD/logs/$t.log" || tail -n 4 "$BUILD/logs/$t.log"
done
ls "$BUILD/findings"
exit $status
