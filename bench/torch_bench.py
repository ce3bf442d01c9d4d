#!/usr/bin/python3
"""PyTorch baseline timings for the same work the C++ benchmarks do (float32; on the CPU with 2
threads, or eager on a CUDA GPU with --device cuda, synchronised after every step).

  /usr/bin/python3 bench/torch_bench.py [--quick] [--threads 2] [--device cpu|cuda] [--case NAME]

Cases (each runs in its own subprocess so peak RSS is per case):
  torch_forward_tutorial_b2   forward, tutorial config (d_model 512, d_ff 2048, d_k=d_v=64, 6 layers,
                              8 heads), the two tutorial sentences, under torch.no_grad()
  torch_train_step_tutorial_b2  forward + CrossEntropyLoss(ignore_index=0) + backward +
                              SGD(lr 1e-3, momentum 0.99) step, same size
  torch_train_step_b32_l64    same step at batch 32, src_len = tgt_len = 64, vocab 1000 each side,
                              random token ids
  torch_train_step_b8_l256    the same at batch 8, length 256 (as many tokens; the attention's
                              scores four times as many)
Prints one JSON line per case: {"name", "ms" (median per iteration), "iters", "peak_rss_mb", ...}
and a line with torch's BLAS build info / the BLAS library actually loaded.
"""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "reference"))

CASES = ["torch_forward_tutorial_b2", "torch_train_step_tutorial_b2", "torch_train_step_b32_l64",
         "torch_train_step_b8_l256"]


def blas_info():
    import torch
    cfg = torch.__config__.show()
    m = re.search(r"BLAS_INFO=([^,\s]+)", cfg)
    a = torch.randn(256, 256)
    (a @ a).sum()  # make sure the BLAS library is loaded
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                p = line.split()[-1]
                if re.search(r"(openblas|libblas|mkl|blis|atlas|libgomp|libomp)", os.path.basename(p)):
                    libs.add(os.path.realpath(p))
    except OSError:
        pass
    return {"name": "torch_blas_info", "torch": torch.__version__,
            "BLAS_INFO": m.group(1) if m else None,
            "blas_line": next((ln.strip() for ln in cfg.splitlines() if "BLAS_INFO" in ln), None),
            "loaded_libs": sorted(libs),
            "openblas_loaded": any("openblas" in p for p in libs),
            "mkldnn": torch.backends.mkldnn.is_available()}


def run_case(name, quick, threads, device="cpu"):
    import torch
    import model as M
    if device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("torch_bench: --device cuda, but this PyTorch sees no CUDA device")
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    if name.endswith("_b32_l64") or name.endswith("_b8_l256"):
        V = 1000
        B, L = (32, 64) if name.endswith("_b32_l64") else (8, 256)
        cfg = M.tutorial_config(src_vocab=["P"] + ["s%d" % i for i in range(V - 1)],
                                tgt_vocab=["P", "S", "E"] + ["t%d" % i for i in range(V - 3)],
                                src_len=L, tgt_len=L)
        src = torch.randint(1, V, (B, L))
        tgt = torch.randint(1, V, (B, L))
        out = torch.randint(1, V, (B, L))
        warm, iters = (1, 1) if quick else (1, 5)  # ~1 min per step on 2 loaded cores
    else:
        cfg = M.tutorial_config()
        rows = M.TUTORIAL_SENTENCES
        src = M.encode(cfg, [r[0] for r in rows], "src")
        tgt = M.encode(cfg, [r[1] for r in rows], "tgt")
        out = M.encode(cfg, [r[2] for r in rows], "tgt")
        warm, iters = (2, 5) if quick else (5, 30)
    model = M.Transformer(cfg).to(device)
    src, tgt, out = src.to(device), tgt.to(device), out.to(device)
    model.rec.enabled = False  # plain forward, no intermediate recording
    # A GPU runs asynchronously: a step's time is until its work is done.
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    times = []
    if "forward" in name:
        def step():
            with torch.no_grad():
                model(src, tgt)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.99)

        def step():
            logits = model(src, tgt)
            loss = model.loss(logits, out)
            opt.zero_grad()
            loss.backward()
            opt.step()
    for _ in range(warm):
        step()
    sync()
    for _ in range(iters):
        t0 = time.perf_counter()
        step()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB
    return {"name": name, "ms": round(statistics.median(times), 3), "min_ms": round(min(times), 3),
            "iters": iters, "threads": threads, "peak_rss_mb": round(rss_mb, 1),
            "device": torch.cuda.get_device_name() if device == "cuda" else "cpu",
            "params": sum(p.numel() for p in model.parameters())}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="few iterations")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="where PyTorch computes")
    ap.add_argument("--case", choices=CASES + ["blas"], help="run one case in this process")
    args = ap.parse_args()
    if args.case == "blas":
        print(json.dumps(blas_info()), flush=True)
        return 0
    if args.case:
        print(json.dumps(run_case(args.case, args.quick, args.threads, args.device)), flush=True)
        return 0
    rc = 0
    for case in ["blas"] + CASES:
        cmd = [sys.executable, os.path.abspath(__file__), "--case", case, "--threads", str(args.threads),
               "--device", args.device]
        if args.quick:
            cmd.append("--quick")
        r = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        sys.stdout.write(r.stdout)
        sys.stdout.flush()
        rc |= r.returncode
    return rc


if __name__ == "__main__":
    sys.exit(main())
