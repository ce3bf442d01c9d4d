#!/bin/sh
# Stepformer against PyTorch (Debian's python3-torch, 2 threads) on this machine: each pair run
# alternately for a few rounds, the speed-up's min / median / max, the machine's memory bandwidth
# and the tutorial step's memory floor. The work is done by bench/bench_vs_torch.py.
# Usage: scripts/bench_vs_torch.sh [--quick] [--gpu] [--rounds N] [build-dir]
# Needs `apt-get install python3-torch libopenblas0-openmp`: without an OpenBLAS, Debian's PyTorch
# runs on the reference BLAS, several times slower than it can be.
# --gpu: our Vulkan backend against PyTorch CUDA eager on the same machine (a PyTorch built with
# CUDA; Debian's is not; set PYTHON to its python).
set -eu
ARGS=""
GPU=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) ARGS="$ARGS --quick"; shift ;;
    --gpu) GPU="--gpu"; shift ;;
    --rounds) ARGS="$ARGS --rounds $2"; shift 2 ;;
    *) break ;;
  esac
done
BUILD="${1:-build}"
PY="${PYTHON:-/usr/bin/python3}"
if [ -n "$GPU" ] && ! "$PY" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)'; then
  echo "bench_vs_torch: --gpu needs a PyTorch that sees a CUDA device (set PYTHON to its python)" >&2
  exit 2
fi
# PyTorch's OpenMP threads (and an OpenMP OpenBLAS's) spin while they wait by default; on two
# cores they then starve each other: one run measured the tutorial's step at a median of 350-480
# ms that way and 122 ms with passive waiting (min 118). PyTorch is given its better setting
# (bench_vs_torch.py sets OMP_WAIT_POLICY=PASSIVE for its processes only).
exec "$PY" "$(dirname "$0")/../bench/bench_vs_torch.py" --build "$BUILD" --python "$PY" $GPU $ARGS
