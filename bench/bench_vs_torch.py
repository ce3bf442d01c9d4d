#!/usr/bin/python3
"""Stepformer against PyTorch on the same machine, pair by pair, alternately (scripts/bench_vs_torch.sh).

Each round runs every pair once, ours then PyTorch's, so a machine that slows down for a while
slows both; the ratio's min / median / max over the rounds is the figure, not one run's.

Pairs (PyTorch: bench/torch_bench.py, Debian's python3-torch, its own process per case):
  forward, tutorial size, every intermediate traced   BM_ForwardTraced_Tutorial_B2
  training step, tutorial size, as the trainer runs    BM_TrainStep_Tutorial_B2_NoParamGrads
  training step through `stepformer-cli train`         wall of a (1+N)-epoch run minus a 1-epoch run, / N
  training step, batch 32 x length 64, vocab 1000      BM_TrainStep_B32_L64
  the same at batch 8 x length 256 (no target)         BM_TrainStep_Long/8/256
Also: the machine (cores, CPU, the BLAS PyTorch loaded, threads, OMP_WAIT_POLICY), its memory
bandwidth in each round (a triad on every thread, stepformer_gemm_bench; it varied from 37 to 69 GB/s
on one development machine) and the tutorial step's floor in that round: the bytes
an SGD-with-momentum step must move (each weight read in the forward; read, its momentum read and
written, and it written back in the backward: 20 bytes a parameter) over that bandwidth; the
cores' peak GFLOP/s (independent FMA chains, BM_PeakFma) and what it allows the batch 32 x 64 step,
whose products are a fixed number of multiply-adds.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_BENCH = os.path.join(HERE, "torch_bench.py")
FLOOR_BYTES_PER_PARAM = 20  # 4 (forward read) + 4 (backward read) + 8 (momentum read, write) + 4 (weight write)

# (label, our case, PyTorch's case, target speed-up)
PAIRS = [
    ("forward, tutorial, traced", "BM_ForwardTraced_Tutorial_B2", "torch_forward_tutorial_b2", 3.0),
    ("step, tutorial (benchmark)", "BM_TrainStep_Tutorial_B2_NoParamGrads", "torch_train_step_tutorial_b2", 3.0),
    ("step, tutorial (stepformer-cli train)", "cli", "torch_train_step_tutorial_b2", 3.0),
    ("step, batch 32 x 64", "BM_TrainStep_B32_L64", "torch_train_step_b32_l64", 1.3),
    ("step, batch 8 x 256", "BM_TrainStep_Long/8/256", "torch_train_step_b8_l256", None),
]


def sh(cmd, env=None, check=True):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if check and r.returncode != 0:
        sys.stderr.write(r.stderr)
        raise SystemExit(f"bench_vs_torch: {' '.join(cmd)} failed ({r.returncode})")
    return r.stdout


def machine(args):
    cpu = platform.processor() or "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    blas = json.loads(sh([args.python, TORCH_BENCH, "--case", "blas"]).strip().splitlines()[-1])
    print(f"machine: {os.cpu_count()} cores ({cpu}), {mem_gb:.0f} GiB")
    print(f"stepformer: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset (every core)')}, "
          f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', 'unset')}")
    print(f"PyTorch {blas['torch']}: {args.threads} threads, OMP_WAIT_POLICY=PASSIVE, BLAS_INFO={blas['BLAS_INFO']}, "
          f"loaded {', '.join(os.path.basename(p) for p in blas['loaded_libs']) or 'no BLAS library'}"
          + (f", on {args.device}" if args.device != "cpu" else ""))


def gemm_bench_counter(build, case, counter):
    """One counter of a stepformer_gemm_bench case, as it reports it (None without the benchmark)."""
    exe = os.path.join(build, "bin", "stepformer_gemm_bench")
    if not os.path.exists(exe):
        return None
    out = json.loads(sh([exe, f"--benchmark_filter={case}", "--benchmark_format=json"]))
    values = [b[counter] for b in out["benchmarks"] if counter in b]
    return values[0] if values else None


def gemm_bench_rate(build, case, counter):
    """One rate counter of a stepformer_gemm_bench case, in G/s (None without the benchmark)."""
    value = gemm_bench_counter(build, case, counter)
    return value / 1e9 if value is not None else None


def round_trip_ns(build):
    """A cache line passed between the two threads and back (BM_CoreRoundTrip): ~50 ns where the
    cores share an L3, several times that where they do not. A virtual machine's cores can move
    between the two placements from one minute to the next, and both the triad and the steps
    read differently in each."""
    return gemm_bench_counter(build, "CoreRoundTrip", "ns")


def triad_gbs(build):
    return gemm_bench_rate(build, "Triad", "GB/s")


def peak_gflops(build):
    """The cores' single-precision peak: independent FMA chains on every thread (BM_PeakFma)."""
    return gemm_bench_rate(build, "PeakFma", "GFLOP/s")


def step_gflop(batch, length, vocab=1000, d=512, ff=2048, layers=6, heads=8):
    """The multiply-adds (x 2) of a training step of the tutorial's layers at batch x length: the
    forward's projections, feed-forwards, attention products and output layer, three times (the
    backward computes each product's two gradients)."""
    n = batch * length
    proj, ffn = 2 * n * d * d, 2 * 2 * n * d * ff
    att = 2 * 2 * batch * heads * length * length * (d // heads)
    forward = layers * (4 * proj + ffn + att) + layers * (8 * proj + ffn + 2 * att) + 2 * n * d * vocab
    return 3 * forward / 1e9


def ours(build, case, env):
    out = json.loads(sh([os.path.join(build, "bin", "stepformer_bench"), f"--benchmark_filter=^{case}(/|$)",
                         "--benchmark_format=json"], env=env))
    b = out["benchmarks"][0]
    return {"ms": b["real_time"], "rss": b.get("peak_rss_MB"), "label": b.get("label")}


def cli_step_ms(build, epochs, backend):
    """Per-step wall of `stepformer-cli train` on the tutorial's two sentences (one step an epoch)."""
    exe = os.path.join(build, "bin", "stepformer-cli")

    def run(n):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "log.csv")
            t0 = time.perf_counter()
            sh([exe, "train", "--epochs", str(n), "--quiet", "--backend", backend, "--log", log])
            wall = time.perf_counter() - t0
            steps = sum(1 for line in open(log) if line[:1].isdigit())
        return wall, steps

    w1, s1 = run(1)
    wn, sn = run(1 + epochs)
    return {"ms": (wn - w1) * 1e3 / (sn - s1), "rss": None}


def theirs(args, case):
    cmd = [args.python, TORCH_BENCH, "--case", case, "--threads", str(args.threads), "--device", args.device]
    if args.quick:
        cmd.append("--quick")
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
    d = json.loads(sh(cmd, env=env).strip().splitlines()[-1])
    return {"ms": d["ms"], "rss": d.get("peak_rss_mb"), "params": d.get("params")}


def spread(xs):
    return f"{min(xs):.2f} / {statistics.median(xs):.2f} / {max(xs):.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    ap.add_argument("--quick", action="store_true", help="one round, fewer PyTorch iterations")
    ap.add_argument("--gpu", action="store_true", help="our Vulkan backend against PyTorch CUDA eager")
    ap.add_argument("--threads", type=int, default=2, help="PyTorch's threads (default 2)")
    ap.add_argument("--cli-epochs", type=int, default=200,
                    help="extra epochs of the CLI run (default 200: long enough to include the CPU trainer's rollback copies, ~2 %% of its time)")
    ap.add_argument("--python", default=os.environ.get("PYTHON", "/usr/bin/python3"))
    args = ap.parse_args()
    args.device = "cuda" if args.gpu else "cpu"
    if args.quick:
        args.rounds, args.cli_epochs = 1, min(args.cli_epochs, 15)
    env = dict(os.environ)
    if args.gpu:
        env["STEPFORMER_BENCH_BACKEND"] = "gpu"
    backend = "gpu" if args.gpu else "cpu"

    machine(args)
    results = {p[0]: {"ours": [], "theirs": []} for p in PAIRS}
    # GB/s in each round: the mean of a triad just before the CLI's step and one just after. This
    # machine's bandwidth moves from minute to minute (one reading of 58 GB/s between two of 36,
    # with the CLI's step as slow as in the rounds beside it), and one reading alone made a round's
    # floor whatever that moment's was.
    triads = []
    trips = []  # ns, the threads' round trip in each round, before and after the CLI's step
    peaks = []  # GFLOP/s, before each round's batch 32 x 64 pair
    b32_trips = []  # ns, before each round's batch 32 x 64 pair
    for r in range(args.rounds):
        for label, mine, their, _ in PAIRS:
            if mine == "BM_TrainStep_B32_L64" and not args.gpu:
                peak = peak_gflops(args.build)
                trip = round_trip_ns(args.build)
                if peak:
                    peaks.append(peak)
                    print(f"  round {r + 1}: the cores' peak (FMA chains, every thread): {peak:.0f} GFLOP/s", flush=True)
                if trip:
                    b32_trips.append(trip)
                    print(f"  round {r + 1}: the threads' round trip before the batch 32 x 64 pair: {trip:.0f} ns",
                          flush=True)
            measure_bandwidth = mine == "cli" and not args.gpu
            before = triad_gbs(args.build) if measure_bandwidth else None
            trip_before = round_trip_ns(args.build) if measure_bandwidth else None
            a = cli_step_ms(args.build, args.cli_epochs, backend) if mine == "cli" else ours(args.build, mine, env)
            trip_after = round_trip_ns(args.build) if measure_bandwidth else None
            after = triad_gbs(args.build) if measure_bandwidth else None
            if before and after:
                triads.append((before + after) / 2)
                print(f"  round {r + 1}: memory bandwidth (triad, every thread), before and after the CLI's step: "
                      f"{before:.1f}, {after:.1f} GB/s", flush=True)
            if trip_before and trip_after:
                trips.append((trip_before, trip_after))
                print(f"  round {r + 1}: the threads' round trip, before and after the CLI's step: "
                      f"{trip_before:.0f}, {trip_after:.0f} ns", flush=True)
            b = theirs(args, their)
            results[label]["ours"].append(a)
            results[label]["theirs"].append(b)
            print(f"  round {r + 1}: {label}: {a['ms']:.1f} ms against {b['ms']:.1f} ms", flush=True)

    labels = {x.get("label") for v in results.values() for x in v["ours"] if x.get("label")}
    print(f"\nstepformer on: {', '.join(sorted(labels)) or backend}; {args.rounds} round(s), each pair alternately")
    print(f"{'work':40s} {'ours ms':>9s} {'torch ms':>9s} {'speed-up min / median / max':>28s} {'target':>7s} "
          f"{'RSS MB ours/torch':>18s}")
    params = None
    for label, mine, their, target in PAIRS:
        o, t = results[label]["ours"], results[label]["theirs"]
        ratios = [b["ms"] / a["ms"] for a, b in zip(o, t)]
        params = params or next((x["params"] for x in t if x.get("params")), None)
        rss_o = max((x["rss"] for x in o if x.get("rss")), default=float("nan"))
        rss_t = max((x["rss"] for x in t if x.get("rss")), default=float("nan"))
        met = "" if target is None else "met" if min(ratios) >= target else "not met"
        goal = "-" if target is None else f"{target:g}x"
        print(f"{label:40s} {statistics.median(x['ms'] for x in o):9.1f} {statistics.median(x['ms'] for x in t):9.1f} "
              f"{spread(ratios):>28s} {goal:>7s} {rss_o:8.0f}/{rss_t:<9.0f} {met}")
    if triads and params:
        floors = [FLOOR_BYTES_PER_PARAM * params / (gbs * 1e9) * 1e3 for gbs in triads]
        cli = [x["ms"] for x in results[PAIRS[2][0]]["ours"]]
        print(f"\ntutorial step floor: {FLOOR_BYTES_PER_PARAM} bytes x {params / 1e6:.1f} M parameters / "
              f"{spread(triads)} GB/s = {spread(floors)} ms; the CLI's step is "
              f"{spread([c / f for c, f in zip(cli, floors)])} times its round's floor (target <= 1.5)")
        if len(trips) == len(cli):
            print("  by round (the threads' round trip before / after the CLI's step): " + "; ".join(
                f"{c / f:.2f} ({t0:.0f} / {t1:.0f} ns)" for c, f, (t0, t1) in zip(cli, floors, trips)))
    if peaks:
        gflop = step_gflop(32, 64)
        least = [gflop / p for p in peaks]
        torch_s = [x["ms"] / 1e3 for x in results[PAIRS[3][0]]["theirs"]]
        print(f"batch 32 x 64 ceiling: {gflop:.0f} GFLOP a step; at the cores' peak ({spread(peaks)} GFLOP/s) at least "
              f"{spread(least)} s, so no implementation is more than {spread([t / l for t, l in zip(torch_s, least)])} "
              f"times PyTorch's step here (ours: {spread([gflop / (x['ms'] / 1e3) for x in results[PAIRS[3][0]]['ours']])} "
              f"GFLOP/s over the whole step)")
        b32 = results[PAIRS[3][0]]
        if len(b32_trips) == len(b32["ours"]):
            print("  by round (ratio, our step, the threads' round trip before the pair): " + "; ".join(
                f"{t['ms'] / o['ms']:.2f}, {o['ms'] / 1e3:.2f} s ({n:.0f} ns)"
                for o, t, n in zip(b32["ours"], b32["theirs"], b32_trips)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
