#!/bin/sh
# Builds the libFuzzer targets (tests/fuzz) with Clang, ASan and UBSan in build-fuzz/ and runs each
# for SECONDS (default 60) from the seeds in tests/fuzz/corpus/. A finding leaves its input as
# crash-* / leak-* / timeout-* in build-fuzz/findings/ and the script exits non-zero.
# Needs `apt-get install clang libclang-rt-14-dev libomp-14-dev`. Not part of the test command.
#   scripts/fuzz.sh [SECONDS]
set -eu
SECONDS_EACH=${1:-60}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build-fuzz"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DSTEPFORMER_FUZZ=ON \
    -DSTEPFORMER_BUILD_GUI=OFF -DSTEPFORMER_BUILD_TESTS=OFF -DSTEPFORMER_BUILD_BENCH=OFF -DSTEPFORMER_NATIVE=OFF >/dev/null
cmake --build "$BUILD" -j2 --target fuzz_config fuzz_dataset fuzz_npy fuzz_safetensors fuzz_sentence fuzz_checkpoint
mkdir -p "$BUILD/findings"
status=0
for t in ${TARGETS:-config dataset npy safetensors sentence checkpoint}; do
    work="$BUILD/corpus/$t"
    mkdir -p "$work"
    cp -n "$ROOT/tests/fuzz/corpus/$t/"* "$work/" 2>/dev/null || true
    echo "== fuzz_$t for $SECONDS_EACH s"
    "$BUILD/bin/fuzz_$t" -max_total_time="$SECONDS_EACH" -max_len=8192 -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="$BUILD/findings/$t-" "$work" 2>&1 | tail -n 4 || status=1
done
ls "$BUILD/findings"
exit $status
