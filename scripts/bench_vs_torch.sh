#!/bin/sh
# Runs the C++ Google Benchmarks and the same work in PyTorch (Debian's python3-torch, 2 threads)
# back to back and prints the ratios. Usage: scripts/bench_vs_torch.sh [--quick] [--gpu] [build-dir]
# Needs `apt-get install python3-torch libopenblas0-openmp`: without an OpenBLAS, Debian's PyTorch
# runs on the reference BLAS, several times slower than it can be.
# --gpu: our Vulkan backend (STEPFORMER_BENCH_BACKEND=gpu) against PyTorch CUDA eager on the same
# machine (a PyTorch built with CUDA; Debian's is not).
set -eu
QUICK=""
DEVICE="cpu"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK="--quick"; shift ;;
    --gpu) DEVICE="cuda"; shift ;;
    *) break ;;
  esac
done
BUILD="${1:-build}"
if [ "$DEVICE" = "cuda" ] &&
   ! "${PYTHON:-/usr/bin/python3}" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)'; then
  echo "bench_vs_torch: --gpu needs a PyTorch that sees a CUDA device (set PYTHON to its python)" >&2
  exit 2
fi
OUT="$(mktemp -d)"
if [ "$DEVICE" = "cuda" ]; then
  STEPFORMER_BENCH_BACKEND=gpu "$BUILD/bin/stepformer_bench" --benchmark_format=json > "$OUT/cpp.json"
else
  "$BUILD/bin/stepformer_bench" --benchmark_format=json > "$OUT/cpp.json"
fi
# PyTorch's OpenMP threads (and an OpenMP OpenBLAS's) spin while they wait by default; on two
# cores they then starve each other: one run measured the tutorial's step at a median of 350-480
# ms that way and 122 ms with passive waiting (min 118). PyTorch is given its better setting.
OMP_WAIT_POLICY=PASSIVE "${PYTHON:-/usr/bin/python3}" "$(dirname "$0")/../bench/torch_bench.py" $QUICK --threads 2 \
  --device "$DEVICE" > "$OUT/torch.jsonl"
grep -v '^{' "$OUT/torch.jsonl" || true  # torch's BLAS: the library it loaded
/usr/bin/python3 - "$OUT/cpp.json" "$OUT/torch.jsonl" <<'PY'
import json, sys
cpp = {b["name"].split("/")[0]: b for b in json.load(open(sys.argv[1]))["benchmarks"]}
torch = {}
for line in open(sys.argv[2]):
    line = line.strip()
    if line.startswith("{"):
        d = json.loads(line)
        torch[d["name"]] = d
pairs = [("BM_ForwardTraced_Tutorial_B2", "torch_forward_tutorial_b2"),
         ("BM_TrainStep_Tutorial_B2", "torch_train_step_tutorial_b2"),
         ("BM_TrainStep_Tutorial_B2_NoParamGrads", "torch_train_step_tutorial_b2"),
         ("BM_TrainStep_B32_L64", "torch_train_step_b32_l64")]
labels = {b.get("label") for b in cpp.values() if b.get("label")}
print("stepformer on:", ", ".join(sorted(labels)) or "the CPU backend")
print("PyTorch on:", ", ".join(sorted({d.get("device", "cpu") for d in torch.values() if "ms" in d})))
print(f"{'case':40s} {'stepformer ms':>14s} {'torch ms':>10s} {'speed-up':>9s} {'RSS MB (ours/torch)':>22s}")
for c, t in pairs:
    if c not in cpp or t not in torch:
        continue
    ours, theirs = cpp[c]["real_time"], torch[t]["ms"]
    rss = f"{cpp[c].get('peak_rss_MB', float('nan')):.0f}/{torch[t].get('peak_rss_mb', float('nan')):.0f}"
    print(f"{c:40s} {ours:14.1f} {theirs:10.1f} {theirs / ours:8.2f}x {rss:>22s}")
PY
rm -rf "$OUT"
