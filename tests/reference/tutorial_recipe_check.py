#!/usr/bin/python3
"""The tutorial's program against stepformer-cli at the tutorial's full size (d_model 512,
6 layers, 8 heads): both train from the same initial weights with the tutorial's recipe
(SGD lr 1e-3, momentum 0.99, both sentences as one batch in order, 30 epochs, dropout 0;
LayerNorm a fresh nn.LayerNorm per call, never trained), then translate both sentences.

The initial weights are written the way a tutorial user saves them -- the bare state_dict,
pe buffers included, no metadata -- and the CLI gets nothing but that file (no --config).
Prints both programs' loss lines side by side and the largest relative difference; exits 1
when it exceeds --tol or the translations differ. Not part of the test run (168 MB of
weights, a minute of CPU); the committed, smaller fixture of the same recipe is
tests/fixtures/recipe.* (make_fixtures.py).

Run from the repository root after building:
    /usr/bin/python3 tests/reference/tutorial_recipe_check.py [--seed N] [--cli build/bin/stepformer-cli]
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_fixtures as MF  # noqa: E402
import model as M  # noqa: E402
import st_io  # noqa: E402
import tutorial_literal as TL  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cli", default=os.path.join("build", "bin", "stepformer-cli"))
    ap.add_argument("--tol", type=float, default=1e-5, help="largest relative loss difference allowed")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1: a fixed summation order)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)

    cfg = M.tutorial_config()
    TL.configure(cfg)
    torch.manual_seed(a.seed)
    sd = TL.Transformer().state_dict()  # what the tutorial's model.state_dict() holds
    assert sd["encoder.pos_emb.pe"].shape == (5000, 1, 512)
    assert not any(".layer_norm." in k for k in sd)
    js, s, t, o = MF.make_inputs(cfg, M.TUTORIAL_SENTENCES)

    losses, lit = MF.tutorial_recipe_run(cfg, sd, s, t, o)
    with torch.no_grad():
        want_tr = [" ".join(MF.tutorial_greedy(lit, s[i].view(1, -1), cfg, cfg["tgt_len"])) for i in range(2)]

    with tempfile.TemporaryDirectory(prefix="stepformer-recipe-") as d:
        init = os.path.join(d, "model.safetensors")
        st_io.save(init, sd, None)
        log, trained = os.path.join(d, "log.csv"), os.path.join(d, "trained.safetensors")
        run = subprocess.run([a.cli, "train", "--init", init, "--epochs", "30", "--batch-size", "2", "--no-shuffle",
                              "--dropout", "0", "--log", log, "--save", trained],
                             capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit("stepformer-cli train failed (%d):\n%s" % (run.returncode, run.stderr))
        print(run.stderr.strip())
        with open(log) as f:
            got = [float(r["loss"]) for r in csv.DictReader(f)]
        printed = [ln.split("  |")[0] for ln in run.stdout.splitlines() if ln.startswith("Epoch:")]
        tr = subprocess.run([a.cli, "translate", "--weights", trained], capture_output=True, text=True)
        if tr.returncode != 0:
            sys.exit("stepformer-cli translate failed (%d):\n%s" % (tr.returncode, tr.stderr))
        got_tr = tr.stdout.splitlines()

    tutorial_lines = ["Epoch: %04d loss = %s" % (i + 1, "{:.6f}".format(v)) for i, v in enumerate(losses)]
    worst = 0.0
    print("%-32s %-32s %s" % ("tutorial program", "stepformer-cli train", "relative difference"))
    for i, (want, have) in enumerate(zip(losses, got)):
        rel = abs(have - want) / abs(want)
        worst = max(worst, rel)
        print("%-32s %-32s %.2e" % (tutorial_lines[i], printed[i] if i < len(printed) else "-", rel))
    same_lines = sum(x == y for x, y in zip(tutorial_lines, printed))
    print("largest relative loss difference over %d epochs: %.3g (tolerance %g)" % (len(losses), worst, a.tol))
    print("identical printed loss lines: %d of %d" % (same_lines, len(losses)))
    print("translations: tutorial %s, stepformer-cli %s" % (want_tr, got_tr))
    ok = len(got) == len(losses) and worst <= a.tol and got_tr == want_tr
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
