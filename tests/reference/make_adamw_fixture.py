#!/usr/bin/python3
"""Writes tests/fixtures/optim/: five steps of torch.optim.AdamW (PyTorch 1.13) on two
parameters, the reference of tests/core/test_adamw.cpp.

Run from the repository root: /usr/bin/python3 tests/reference/make_adamw_fixture.py
Deterministic (torch.set_num_threads(1), a fixed seed): running it twice leaves `git status` clean.

nanoGPT's configure_optimizers groups: `weight` [5, 7] (2 dimensions) decays with weight_decay
0.1, `bias` [7] (1 dimension) is in the group with weight_decay 0.0. Gradients are fixed random
tensors, one per step, given to .grad by hand (no model). Row 4 of the weight's gradient is
always 0: those weights only decay (m = v = 0 makes the Adam step exactly 0), as nanoGPT's
position rows past the batch's length do.

The script also recomputes every step in NumPy float32 as the update's arithmetic is written
down in adamw.json (and in core/src/adamw_scalars.h, cpu_adamw.cpp) and asserts that it gives
torch's numbers bit for bit: the fixture documents the rounding, not only the result.
"""
import math
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixture_io  # noqa: E402

OUT = os.path.normpath(os.path.join(HERE, "..", "fixtures", "optim"))
SEED = 31
STEPS = 5
SHAPES = {"weight": [5, 7], "bias": [7]}
OPT = {"type": "AdamW", "lr": 1e-2, "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.1,
       "amsgrad": False, "foreach": False,
       "groups": "nanoGPT configure_optimizers: parameters with dim >= 2 (weight) with "
                 "weight_decay, dim < 2 (bias) with weight_decay 0.0",
       "update": "torch 1.13 _single_tensor_adamw, per parameter at step t = 1, 2, ...: "
                 "p = p * f(1 - lr*wd); m = fma(g, f(1 - b1), m * f(b1)); "
                 "v = fma(f(1 - b2) * g, g, v * f(b2)); "
                 "p = p + (f(-lr / (1 - b1^t)) * m) / (sqrt(v) / f(sqrt(1 - b2^t)) + f(eps)); "
                 "f() rounds a Python float (double) to float32, every operation is rounded "
                 "to float32, fma rounds once (torch's add_ with alpha and addcmul_)"}


def emulate(p, grads, lr, b1, b2, eps, wd):
    """The update as OPT["update"] writes it, in float32 NumPy; returns params after each step and
    the final (exp_avg, exp_avg_sq)."""
    f32 = np.float32

    # fused multiply-add: a float32 product is exact in float64; the sum is rounded to float64 and
    # then to float32 (a double rounding, which the bit-for-bit assertions would catch if it ever
    # differed from fma's single one)
    def fma(a, b, c):
        return (a.astype(np.float64) * np.float64(b) + c.astype(np.float64)).astype(np.float32) \
            if np.isscalar(b) else \
            (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)

    p = p.copy()
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    out = []
    for t, g in enumerate(grads, 1):
        p = p * f32(1 - lr * wd)
        m = fma(g, f32(1 - b1), m * f32(b1))
        v = fma(f32(1 - b2) * g, g, v * f32(b2))
        bc1, bc2 = 1 - b1 ** t, 1 - b2 ** t
        denom = np.sqrt(v) / f32(math.sqrt(bc2)) + f32(eps)
        p = p + (f32(-(lr / bc1)) * m) / denom
        assert p.dtype == np.float32 and m.dtype == np.float32 and v.dtype == np.float32
        out.append(p.copy())
    return out, m, v


def main():
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    init = {n: torch.randn(s) for n, s in SHAPES.items()}
    grads = [{n: torch.randn(s) for n, s in SHAPES.items()} for _ in range(STEPS)]
    for g in grads:
        g["weight"][4].zero_()
    params = {n: t.clone().requires_grad_(True) for n, t in init.items()}
    lr, (b1, b2), eps, wd = OPT["lr"], OPT["betas"], OPT["eps"], OPT["weight_decay"]
    opt = torch.optim.AdamW([{"params": [params["weight"]], "weight_decay": wd},
                             {"params": [params["bias"]], "weight_decay": 0.0}],
                            lr=lr, betas=(b1, b2), eps=eps, foreach=False)
    tensors = {n + ".init": t for n, t in init.items()}
    for s, g in enumerate(grads, 1):
        for n, p in params.items():
            p.grad = g[n].clone()
            tensors["grad.%d.%s" % (s, n)] = g[n]
        opt.step()
        for n, p in params.items():
            tensors["%s.%d" % (n, s)] = p.detach().clone()
    for n, p in params.items():
        st = opt.state[p]
        assert float(st["step"]) == STEPS
        tensors["state.%s.exp_avg" % n] = st["exp_avg"].clone()
        tensors["state.%s.exp_avg_sq" % n] = st["exp_avg_sq"].clone()

    # The written-down arithmetic gives torch's numbers exactly.
    for n in SHAPES:
        decay = wd if len(SHAPES[n]) >= 2 else 0.0
        steps, m, v = emulate(init[n].numpy(), [g[n].numpy() for g in grads], lr, b1, b2, eps, decay)
        for s, p in enumerate(steps, 1):
            assert np.array_equal(p, tensors["%s.%d" % (n, s)].numpy()), (n, s)
        assert np.array_equal(m, tensors["state.%s.exp_avg" % n].numpy()), n
        assert np.array_equal(v, tensors["state.%s.exp_avg_sq" % n].numpy()), n
    # The zero-gradient row only decayed: p * f(1 - lr wd), five times.
    row = init["weight"][4].numpy()
    for s in range(STEPS):
        row = row * np.float32(1 - lr * wd)
    assert np.array_equal(row, tensors["weight.%d" % STEPS][4].numpy())

    os.makedirs(OUT, exist_ok=True)
    fx = fixture_io.Fixtures(OUT)
    fx.write_st("adamw.safetensors", tensors)
    fx.write_json("adamw.json", {
        "optimizer": OPT, "steps": STEPS, "shapes": SHAPES, "decayed": ["weight"],
        "torch": torch.__version__.split("+")[0],
        "tensors": "<name>.init; grad.<step>.<name> (given before step <step>); <name>.<step> "
                   "(after step <step>); state.<name>.exp_avg / .exp_avg_sq (after the last step)",
    })
    assert sorted(fx.written) == sorted(os.listdir(OUT)), "stale files in " + OUT
    print("wrote %s to %s" % (", ".join(fx.written), OUT))


if __name__ == "__main__":
    main()
