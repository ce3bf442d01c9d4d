#!/usr/bin/env bash
# The app's resident memory at the tutorial's size, scenario by scenario (issue 14: under 1 GB
# through the first start, a 300-step training run with the attention replay, and an hour of
# stepping). Runs bench/memory_scenarios.cpp (stepformer_memory_bench), offscreen, which drives
# the real MainWindow and prints after each phase the peak resident size so far (VmHWM) and the
# resident size now (VmRSS, split into anonymous, file-backed and shared memory), in MB.
# Not a timed test and not in ctest: it takes a few minutes (each 300-epoch run about a minute on
# two cores).
#
# usage: scripts/memory_profile.sh [BIN_DIR] [WEIGHTS] [REPEATS]
#   BIN_DIR  where stepformer_memory_bench is (default build/bin)
#   WEIGHTS  a trained tutorial-size model (default /tmp/tut.safetensors; see
#            `stepformer-cli train` or the app's cache, ~/.local/share/*/models/tutorial.safetensors)
#   REPEATS  how many times each scenario runs (default 2; the figures vary by a few MB)
# Environment: RUNS (training runs in the train scenario, default 3), EPOCHS (default 300),
#   PASSES (stepping passes through every step of every view, default 3), HEAPTRACK=1 (also
#   record each scenario with heaptrack into $OUT_DIR, default /tmp/stepformer-memory).
set -euo pipefail

BIN_DIR=${1:-build/bin}
WEIGHTS=${2:-/tmp/tut.safetensors}
REPEATS=${3:-2}
RUNS=${RUNS:-3}
EPOCHS=${EPOCHS:-300}
PASSES=${PASSES:-3}
OUT_DIR=${OUT_DIR:-/tmp/stepformer-memory}
BENCH="$BIN_DIR/stepformer_memory_bench"

[[ -x "$BENCH" ]] || { echo "no $BENCH: build the target stepformer_memory_bench" >&2; exit 2; }
[[ -f "$WEIGHTS" ]] || { echo "no weights file $WEIGHTS" >&2; exit 2; }
mkdir -p "$OUT_DIR"
export QT_QPA_PLATFORM=offscreen

run() {  # name, then the bench's arguments
    local name=$1
    shift
    local cmd=("$BENCH" "$@")
    if [[ "${HEAPTRACK:-0}" == 1 ]]; then
        cmd=(heaptrack -o "$OUT_DIR/$name" "${cmd[@]}")
    fi
    echo "== $name: ${*}"
    # Only the bench's phase lines (Qt's offscreen notes go to stderr).
    "${cmd[@]}" 2>/dev/null | grep -E '^(phase|[0-9]+ step switches)'
}

for rep in $(seq 1 "$REPEATS"); do
    echo "### repeat $rep of $REPEATS"
    cache=$(mktemp -d "$OUT_DIR/cache.XXXXXX")  # empty: the first start trains the preset
    run "first-start.$rep" first-start --cache-dir "$cache"
    rm -rf "$cache"
    run "open-weights.$rep" open-weights --weights "$WEIGHTS"
    run "train.$rep" train --weights "$WEIGHTS" --runs "$RUNS" --epochs "$EPOCHS"
    run "stepping.$rep" stepping --weights "$WEIGHTS" --passes "$PASSES"
done
if [[ "${HEAPTRACK:-0}" == 1 ]]; then
    echo "heaptrack records in $OUT_DIR; e.g. heaptrack_print -f $OUT_DIR/train.1.zst --print-peaks 1 -n 20"
fi
