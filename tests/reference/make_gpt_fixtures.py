#!/usr/bin/python3
"""Writes tests/fixtures/gpt/: PyTorch fixtures for "architecture": "gpt", Karpathy's nanoGPT
(`model.py`) at word level, from gpt_model.py.

Run from the repository root: /usr/bin/python3 tests/reference/make_gpt_fixtures.py
Deterministic (torch.set_num_threads(1), fixed seeds): running it twice leaves `git status`
clean. See the "nanoGPT (architecture gpt)" section of tests/reference/README.md.

For every case the script asserts that the nanoGPT-style nn.Module model and the step-by-step
version (whose intermediates are the trace) give the same logits, loss, module outputs and
parameter gradients BIT FOR BIT, the tied-weight and ignored-position gradient rules, that
training the step-by-step version gives the same 30 losses and final weights, that both versions
generate the same tokens with the same probabilities, and that every file round-trips through
st_io.
"""
import copy
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpt_model as G  # noqa: E402
import fixture_io  # noqa: E402
import st_io  # noqa: E402

OUT = os.path.normpath(os.path.join(HERE, "..", "fixtures", "gpt"))
SIZE_LIMIT = 600 * 1024

# pad first (id 0 = the ignore index), then the tutorial's target words, then ours
VOCAB = ["P", "S", "E", "i", "want", "a", "beer", "coke", ".", "you", "like", "tea", "cold"]
TOY = [  # the toy set: the tutorial's two target sentences and two of ours (lengths 7, 7, 8, 6)
    "S i want a beer . E",
    "S i want a coke . E",
    "S you want a cold beer . E",
    "S i like tea . E",
]
BASE = {"block_size": 8, "dropout": 0.0}
CASES = [  # name, seed, sizes, rows of TOY in the batch
    # n_embd 12, n_head 2: head size 6, so the scale 1/sqrt(6) is not a power of two
    ("bias_1layer", 1337, {"n_layer": 1, "n_head": 2, "n_embd": 12, "bias": True}, [0, 2, 3]),
    # head size 4 (scale 0.5); three blocks, no bias anywhere
    ("nobias_3layer", 1337, {"n_layer": 3, "n_head": 2, "n_embd": 8, "bias": False}, [1, 3, 0]),
]
BUFFER_CASE = "nobias_3layer"  # also written with the attn.bias buffers (the full state_dict)
N_STEPS = 30
SGD = {"type": "SGD", "lr": 0.1, "momentum": 0.9, "dampening": 0.0, "nesterov": False,
       "weight_decay": 0.0}
ADAMW = {"type": "AdamW", "lr": 1e-2, "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.1,
         "amsgrad": False,
         "groups": "nanoGPT configure_optimizers: group 0 = every parameter with dim >= 2 "
                   "(transformer.wte.weight = lm_head.weight once, transformer.wpe.weight, every "
                   "Linear weight) with weight_decay; group 1 = every parameter with dim < 2 "
                   "(Linear biases, LayerNorm weights and biases) with weight_decay 0.0",
         "update": "torch 1.13 AdamW (CPU default foreach=False: the single-tensor loop), per parameter p with gradient g at step t = 1, 2, ...: "
                   "p *= 1 - lr * weight_decay; m = beta1 m + (1 - beta1) g; "
                   "v = beta2 v + (1 - beta2) g^2; p -= (lr / (1 - beta1^t)) * m / "
                   "(sqrt(v) / sqrt(1 - beta2^t) + eps)",
         "not_applied": "train.py's warmup / cosine learning-rate schedule, gradient clipping "
                        "(grad_clip 1.0) and gradient accumulation: the lr is constant"}
TRAININGS = [  # name, base case, optimizer
    ("bias_1layer_sgd", "bias_1layer", SGD),
    ("bias_1layer_adamw", "bias_1layer", ADAMW),
    ("nobias_3layer_sgd", "nobias_3layer", SGD),
    ("nobias_3layer_adamw", "nobias_3layer", ADAMW),
]
PROMPTS = ["S i", "S", "S you"]
MAX_NEW_TOKENS = 10  # 2 + 10 > block_size 8: the context is cropped in the last steps
SAMPLE = {"temperature": 0.8, "top_k": 3}

FIXTURES = fixture_io.Fixtures(OUT)
written = FIXTURES.written
write_json = FIXTURES.write_json
write_st = FIXTURES.write_st
path = FIXTURES.path
report = []


def exact(a, b):
    return a.shape == b.shape and torch.equal(a.detach(), b.detach())


def config_for(sizes):
    cfg = {"architecture": "gpt", "block_size": BASE["block_size"], "n_layer": sizes["n_layer"],
           "n_head": sizes["n_head"], "n_embd": sizes["n_embd"], "dropout": BASE["dropout"],
           "bias": sizes["bias"], "vocab": list(VOCAB), "pad": "P", "bos": "S", "eos": "E"}
    return cfg


def make_batch(sentences):
    """Rows padded with P at the end to the longest; inputs = tokens[:-1], targets = tokens[1:]."""
    words = [s.split() for s in sentences]
    n = max(len(w) for w in words)
    padded = [w + ["P"] * (n - len(w)) for w in words]
    ids = torch.tensor([[VOCAB.index(x) for x in w] for w in padded], dtype=torch.int64)
    idx, targets = ids[:, :-1].contiguous(), ids[:, 1:].contiguous()
    js = {"sentences": list(sentences), "padded": [" ".join(w) for w in padded],
          "inputs": [" ".join(w[:-1]) for w in padded],
          "targets": [" ".join(w[1:]) for w in padded],
          "input_ids": idx.tolist(), "target_ids": targets.tolist(),
          "ignore_index": VOCAB.index("P"),
          "note": "rows padded with the pad word at the end; inputs = tokens[:-1], targets = "
                  "tokens[1:]; targets equal to ignore_index (the pad id) are not counted"}
    return js, idx, targets


def randomize(model, gen):
    """LayerNorm gamma/beta and every Linear bias get values (the rest keeps nanoGPT's init)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if ".ln_" in name and name.endswith("weight"):
                assert p.dim() == 1
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=gen))
            elif name.endswith("bias"):
                p.copy_(0.2 * torch.randn(p.shape, generator=gen))


def build(cfg, seed):
    torch.manual_seed(seed)
    model = G.build_gpt(cfg)
    # nanoGPT's init untouched so far: biases 0, LayerNorm 1/0
    for n, p in model.named_parameters():
        if n.endswith("bias"):
            assert torch.all(p == 0), n
        elif p.dim() == 1:
            assert torch.all(p == 1), n
    assert model.lm_head.weight is model.transformer.wte.weight
    randomize(model, torch.Generator().manual_seed(seed + 1000))
    return model


def weights_of(model):
    """The state_dict without the attn.bias buffers (both tied names kept)."""
    return {k: v.detach().clone() for k, v in model.state_dict().items() if not G.is_buffer(k)}


def param_names(weights):
    return list(weights)


# ------------------------------------------------------------------------------ one case

def run_case(case, cfg, seed, rows):
    js, idx, targets = make_batch([TOY[r] for r in rows])
    B, T = idx.shape
    V, C, H = len(VOCAB), cfg["n_embd"], cfg["n_head"]
    pad = G.pad_id(cfg)
    assert T < cfg["block_size"]
    lengths = [len(TOY[r].split()) for r in rows]
    assert len(set(lengths)) > 1, "uneven lengths"
    model = build(cfg, seed)
    full_sd = {k: v.detach().clone() for k, v in model.state_dict().items()}
    weights = weights_of(model)
    names = param_names(weights)
    bufs = [k for k in full_sd if G.is_buffer(k)]
    assert bufs == ["transformer.h.%d.attn.bias" % i for i in range(cfg["n_layer"])]
    for k in bufs:
        assert exact(full_sd[k], G.causal_mask(cfg["block_size"]))
    assert list(full_sd)[-1] == "lm_head.weight" and list(full_sd)[0] == "transformer.wte.weight"
    assert exact(weights["lm_head.weight"], weights["transformer.wte.weight"])
    named = dict(model.named_parameters())
    assert list(named) == [n for n in names if n != "lm_head.weight"]

    # dropout 0: train() and eval() agree, and the dropouts draw no random numbers
    with torch.no_grad():
        state = torch.get_rng_state()
        model.train()
        a = model(idx, targets, ignore_index=pad)[0]
        assert torch.equal(torch.get_rng_state(), state)
        assert torch.equal(a, model.eval()(idx, targets, ignore_index=pad)[0])
    model.train()  # as nanoGPT trains

    # ---- the nanoGPT-style modules, with hooks on the modules whose outputs the trace has
    seen = {}
    hooks = []
    for mname, mod in model.named_modules():
        if (mname.startswith("transformer.") and mname.count(".") in (1, 2, 3, 4)
                and mname != "transformer.h"):
            hooks.append(mod.register_forward_hook(
                lambda m, i, o, mname=mname: seen.setdefault(mname, []).append(o)))
    model.zero_grad()
    # nanoGPT's convention: ignore_index=-1, the pad targets mapped to -1
    t_minus1 = targets.masked_fill(targets == pad, -1)
    logits_ref, loss_ref = model(idx, t_minus1)
    loss_ref.backward()
    for h in hooks:
        h.remove()
    ref_grad = {n: named[n].grad.detach().clone() for n in named}
    with torch.no_grad():
        assert exact(model(idx, targets, ignore_index=pad)[1], loss_ref)  # pad id as the index

    # ---- the step-by-step version
    params = G.make_params(weights)
    rec = G.Recorder()
    logits, loss = G.forward_steps(rec, params, cfg, idx, targets)
    loss.backward()
    trace = rec.trace()
    assert list(trace) == G.trace_names(cfg), case

    assert exact(logits, logits_ref), case + ": logits differ"
    assert exact(loss, loss_ref), case + ": loss differs"
    for n in names:
        ref = ref_grad["transformer.wte.weight" if n == "lm_head.weight" else n]
        assert params[n].grad is not None and exact(params[n].grad, ref), case + ": grad." + n
    n_hooked = 0
    for mname, outs in seen.items():
        assert len(outs) == 1, mname
        o = outs[0]
        leaf = mname.split(".")[-1]
        if mname in ("transformer.wte", "transformer.wpe", "transformer.drop", "transformer.ln_f"):
            key = mname + ".out"
        elif leaf in ("ln_1", "ln_2"):
            key = mname + ".out"
        elif leaf == "attn":
            key = mname + ".c_proj"
        elif leaf == "mlp":
            key = mname + ".c_proj"
        elif mname.count(".") == 2:  # a Block
            key = mname + ".resid2"
        elif leaf in ("c_attn", "attn_dropout", "resid_dropout", "dropout"):
            continue  # not a trace entry (c_attn is split; the dropouts are identities)
        elif leaf in ("c_fc", "gelu"):
            key = mname
        elif leaf == "c_proj":
            key = mname  # attn.c_proj / mlp.c_proj: the Linear's output
        else:
            raise AssertionError(mname)
        assert exact(trace[key], o), (case, mname)
        n_hooked += 1

    # ---- the tied weight: each use on its own leaf
    split = G.make_params(weights, tie=False)
    _, l2 = G.forward_steps(G.NoRecorder(), split, cfg, idx, targets)
    l2.backward()
    assert exact(l2, loss)
    wte, lm = G.TIED
    total = split[wte].grad + split[lm].grad
    assert torch.allclose(total, params[wte].grad, rtol=1e-6, atol=1e-7)
    assert params[lm] is params[wte]
    # the pad word is only an input at ignored, trailing positions: its embedding row gets
    # exactly 0 through the lookup, so the tied row's gradient is lm_head's alone, bit for bit
    assert torch.all(split[wte].grad[pad] == 0)
    assert exact(params[wte].grad[pad], split[lm].grad[pad]) and torch.any(split[lm].grad[pad] != 0)
    # wpe rows past T are unused
    assert torch.all(params["transformer.wpe.weight"].grad[T:] == 0)
    assert torch.any(params["transformer.wpe.weight"].grad[:T] != 0)

    # ---- checks on the trace
    ignored = targets == pad
    assert ignored.any() and not ignored[:, 0].any()
    # the ignored targets are all trailing ones (the pad at the end of a row)
    for b in range(B):
        row = ignored[b].tolist()
        k = row.index(True) if True in row else T
        assert all(row[k:]) and not any(row[:k])
    probs = trace["lm_head.probs"]
    assert torch.allclose(probs.sum(-1), torch.ones(B, T), atol=1e-6)
    tri = torch.tril(torch.ones(T, T, dtype=torch.bool))
    scale = 1.0 / math.sqrt(C // H)
    n_div_differs = 0
    for i in range(cfg["n_layer"]):
        L = "transformer.h.%d.attn" % i
        q, k = trace[L + ".q"], trace[L + ".k"]
        prod = q @ k.transpose(-2, -1)
        # the Python float is rounded to float32 and multiplied
        assert exact(trace[L + ".scores"], prod * torch.tensor(scale, dtype=torch.float32))
        n_div_differs += int((prod / math.sqrt(C // H) != trace[L + ".scores"]).sum())
        ms, at = trace[L + ".masked_scores"], trace[L + ".attn"]
        assert torch.all(ms[..., ~tri] == float("-inf")) and torch.all(at[..., ~tri] == 0)
        assert exact(ms[..., tri], trace[L + ".scores"][..., tri])
        assert at[..., 0, 0].eq(1).all()  # the first query sees only itself
    if C // H == 4:
        assert n_div_differs == 0  # scale 0.5 is exact
    else:
        assert n_div_differs > 0  # the product * float32(1/sqrt(hs)) is not a division
    per = trace["loss.per_token"]
    assert torch.all(per[ignored] == 0) and torch.all(per[~ignored] > 0)
    assert torch.allclose(per.sum() / (~ignored).sum(), loss.detach(), rtol=1e-6)
    assert exact(per.view(-1), F.cross_entropy(logits.detach().view(-1, V), targets.view(-1),
                                               ignore_index=pad, reduction="none"))

    grads = {"loss": loss.detach().clone()}
    for n in names:
        grads["grad." + n] = params[n].grad.detach().clone()
    grads.update(rec.grads(skip={"lm_head.probs", "loss.per_token", "loss"}))
    # positions whose target is ignored (all trailing) get exactly zero gradient everywhere
    for n, g in grads.items():
        if n.startswith("grad.transformer.h.") or n in ("grad.transformer.wte.out",
                                                       "grad.transformer.drop.out",
                                                       "grad.transformer.ln_f.out",
                                                       "grad.lm_head.logits"):
            if g.dim() == 4:  # [B, H, T, *]
                assert torch.all(g.transpose(1, 2)[ignored] == 0), n
                if n.endswith((".scores", ".masked_scores")):
                    assert torch.all(g[..., ~tri] == 0), n
            elif g.dim() == 3:
                assert torch.all(g[ignored] == 0), n
    dlog = grads["grad.lm_head.logits"]
    onehot = F.one_hot(targets, V).float()
    n_count = int((~ignored).sum())
    expect = ((probs - onehot) / n_count).masked_fill(ignored.unsqueeze(-1), 0.0)
    assert torch.allclose(dlog, expect, atol=1e-7)

    meta = {"stepformer.config": json.dumps(cfg)}
    write_json(case + ".config.json", cfg)
    write_st(case + ".weights.safetensors", weights, meta)
    if case == BUFFER_CASE:
        write_st(case + ".weights_with_buffers.safetensors", full_sd, meta)
        check_buffer_file(case, cfg, full_sd, idx, logits)
    write_json(case + ".inputs.json", js)
    write_st(case + ".trace.safetensors", trace,
             {"stepformer.case": case, "stepformer.order": json.dumps(list(trace.keys()))})
    assert all(v.dtype == torch.float32 for v in grads.values())
    write_st(case + ".grads.safetensors", grads, {"stepformer.case": case})
    report.append("%-14s B %d T %d: logits, loss, %d module outputs, %d param grads (tied: one "
                  "sum) bit-exact vs the nn.Module model; loss %.6f; scores vs a division by "
                  "sqrt(hs): %d elements differ"
                  % (case, B, T, n_hooked, len(named), float(loss), n_div_differs))
    return {"cfg": cfg, "model": model, "weights": weights, "seed": seed,
            "trace": trace, "grads": grads}


def check_buffer_file(case, cfg, full_sd, idx, logits):
    """The full state_dict loads strictly into a fresh GPT; the normal weights file misses
    exactly the buffers; both give the same logits."""
    back, _ = st_io.load_torch(os.path.join(OUT, case + ".weights_with_buffers.safetensors"))
    m = G.build_gpt(cfg)
    m.load_state_dict(back, strict=True)
    plain, _ = st_io.load_torch(os.path.join(OUT, case + ".weights.safetensors"))
    m2 = G.build_gpt(cfg)
    res = m2.load_state_dict(plain, strict=False)
    assert sorted(res.missing_keys) == sorted(k for k in full_sd if G.is_buffer(k))
    assert not res.unexpected_keys
    with torch.no_grad():
        t = torch.zeros_like(idx)
        assert exact(m(idx, t)[0], logits) and exact(m2(idx, t)[0], logits)


# ------------------------------------------------------------------------------ training

def make_optimizer(opt, named):
    """The optimizer over {name: parameter} (a tied weight once)."""
    if opt["type"] == "SGD":
        return torch.optim.SGD(list(named.values()), lr=opt["lr"], momentum=opt["momentum"],
                               dampening=opt["dampening"], nesterov=opt["nesterov"],
                               weight_decay=opt["weight_decay"])
    return G.make_adamw(named, opt["weight_decay"], opt["lr"], tuple(opt["betas"]))


def train_module(model, opt, idx, targets, pad, dtype=torch.float32):
    m = copy.deepcopy(model).to(dtype)
    m.train()
    t = targets.masked_fill(targets == pad, -1)
    if opt["type"] == "AdamW":
        o = m.configure_optimizers(opt["weight_decay"], opt["lr"], tuple(opt["betas"]))
        assert o.defaults["eps"] == opt["eps"] and o.defaults["amsgrad"] == opt["amsgrad"]
    else:
        o = make_optimizer(opt, dict(m.named_parameters()))
    losses = []
    for _ in range(N_STEPS):
        o.zero_grad()
        _, loss = m(idx, t)
        losses.append(float(loss))
        loss.backward()
        o.step()
    with torch.no_grad():
        final = float(m(idx, t)[1])
    return m, losses, final


def train_steps(weights, cfg, opt, idx, targets):
    params = G.make_params(weights)
    named = {k: p for k, p in params.items() if k != "lm_head.weight"}
    o = make_optimizer(opt, named)
    losses = []
    for _ in range(N_STEPS):
        o.zero_grad()
        _, loss = G.forward_steps(G.NoRecorder(), params, cfg, idx, targets)
        losses.append(float(loss))
        loss.backward()
        o.step()
    return params, losses


def k_bias_slice(name, cfg):
    """The K third of c_attn.bias: its gradient is zero in exact arithmetic."""
    if name.endswith("attn.c_attn.bias"):
        C = cfg["n_embd"]
        return slice(C, 2 * C)
    return None


def run_training(name, base, opt, c, toy):
    cfg, model = c["cfg"], c["model"]
    js, idx, targets = toy
    pad = G.pad_id(cfg)
    m32, l32, f32 = train_module(model, opt, idx, targets, pad)
    m64, l64, f64 = train_module(model, opt, idx, targets, pad, torch.float64)
    p_steps, l_steps = train_steps(c["weights"], cfg, opt, idx, targets)
    final = weights_of(m32)
    steps_exact = l_steps == l32 and all(torch.equal(p_steps[k].detach(), v)
                                         for k, v in final.items())
    steps_dev = max(abs(a - b) for a, b in zip(l32, l_steps))
    steps_wdev = max(float((p_steps[k].detach() - v).abs().max()) for k, v in final.items())
    assert steps_dev <= 1e-5 and steps_wdev <= 1e-5, (name, steps_dev, steps_wdev)
    assert exact(final["lm_head.weight"], final["transformer.wte.weight"])
    for k, v in m32.state_dict().items():
        if G.is_buffer(k):
            assert exact(v, G.causal_mask(cfg["block_size"]))
    w0 = c["weights"]
    for k, v in final.items():
        assert not torch.equal(v, w0[k]), (name, k)  # every parameter moved
    # wpe rows past the toy batch's T get no gradient: SGD leaves them, AdamW only decays them
    # (m = v = 0 makes the Adam step exactly 0): p *= 1 - lr * weight_decay, 30 times
    T = idx.size(1)
    wpe0, wpe = w0["transformer.wpe.weight"][T:], final["transformer.wpe.weight"][T:]
    assert T < cfg["block_size"]
    if opt["type"] == "SGD":
        assert exact(wpe, wpe0)
    else:
        expect = wpe0.clone()
        for _ in range(N_STEPS):
            expect.mul_(1 - opt["lr"] * opt["weight_decay"])
        assert exact(wpe, expect)
    dev = max(abs(a - b) for a, b in zip(l32, l64))
    rel = max(abs(a - b) / abs(b) for a, b in zip(l32, l64))
    s64 = m64.state_dict()
    wdev = max(float((final[k].double() - s64[k]).abs().max()) for k in final)
    wdev_nok = 0.0
    kdev = 0.0
    for k in final:
        d = (final[k].double() - s64[k]).abs()
        sl = k_bias_slice(k, cfg)
        if sl is not None:
            kdev = max(kdev, float(d[sl].max()))
            d = torch.cat([d[:sl.start], d[sl.stop:]])
        wdev_nok = max(wdev_nok, float(d.max()))
    assert all(b < a for a, b in zip(l32, l32[1:])), (name, "loss falls at every step")
    assert f32 < l32[-1]
    out = {
        "config": base + ".config.json",
        "init": base + ".weights.safetensors",
        "inputs": "toy.inputs.json",
        "batch": "all rows of the inputs file as one batch, in order, no shuffle",
        "optimizer": opt,
        "steps": N_STEPS,
        "loss_reduction": "F.cross_entropy(logits.view(-1, V), targets.view(-1), ignore_index="
                          "pad id): the mean over the non-pad targets (nanoGPT's loss, its "
                          "ignore index -1 standing for the pad id)",
        "mode": "model.train() (dropout 0.0: identities)",
        "losses": l32,
        "note": "losses[i] is the loss computed BEFORE optimizer step i (i = 0..steps-1)",
        "final_loss": f32,
        "final": name + ".final.safetensors",
        "float64_losses": l64,
        "float64_final_loss": f64,
        "float32_vs_float64_max_abs_dev": dev,
        "float32_vs_float64_max_rel_dev": rel,
        "float32_vs_float64_final_weights_max_abs_dev": wdev,
        "float64_note": "the float64 run starts from the same (float32) weights converted to "
                        "float64",
    }
    if cfg["bias"]:
        out["float32_vs_float64_final_weights_max_abs_dev_except_k_bias"] = wdev_nok
        out["float32_vs_float64_k_bias_max_abs_dev"] = kdev
        out["k_bias_note"] = ("transformer.h.{i}.attn.c_attn.bias[n_embd:2*n_embd] (the key "
                              "bias) has a gradient that is exactly zero in exact arithmetic (it "
                              "adds q.b_k to every score of a query row, which softmax ignores) "
                              "and rounding noise in float32; Adam(W) normalises that noise into "
                              "steps of about lr, so under AdamW those slices depend on rounding: "
                              "compare them loosely (<= steps * lr) or skip them. SGD is "
                              "unaffected.")
    write_json(name + ".losses.json", out)
    write_st(name + ".final.safetensors", final, {"stepformer.config": json.dumps(cfg)})
    gen = generation(name, cfg, m32, p_steps)
    report.append("%-20s %s: losses %.5f -> %.5f (final %.5f); |f32-f64| losses %.1e (rel %.1e), "
                  "weights %.1e%s; step-by-step training vs nn.Module: "
                  "%s (losses %.1e, weights %.1e); greedy %s"
                  % (name, opt["type"], l32[0], l32[-1], f32, dev, rel, wdev,
                     " (%.1e without the K bias)" % wdev_nok if cfg["bias"] else "",
                     "bit-exact" if steps_exact else "close", steps_dev, steps_wdev,
                     " | ".join("%s -> %s" % (g["prompt"], g["until_eos"]) for g in gen)))


# ---------------------------------------------------------------------------- generation

def words(ids):
    return " ".join(VOCAB[i] for i in ids)


def generation(name, cfg, model, p_steps):
    """Greedy continuations (nanoGPT's generate with argmax for multinomial) and, per prompt,
    the first step's sampling distribution after the temperature and top-k filtering."""
    model.eval()
    bs = cfg["block_size"]
    eos = VOCAB.index(cfg["eos"])
    steps_fn = (lambda ic: G.forward_steps(G.NoRecorder(), p_steps, cfg, ic)[0])
    greedy, sampling = [], []
    for prompt in PROMPTS:
        ids = torch.tensor([[VOCAB.index(w) for w in prompt.split()]], dtype=torch.int64)
        log, log_s = [], []
        out = model.generate(ids, MAX_NEW_TOKENS, log=log)
        out_s = G.generate(steps_fn, bs, ids, MAX_NEW_TOKENS, log=log_s)
        assert exact(out, out_s)
        margins = []
        for (ic, lg, pr), (ic2, lg2, pr2) in zip(log, log_s):
            assert exact(ic, ic2) and exact(lg, lg2) and exact(pr, pr2)
            top2 = torch.topk(lg[0], 2).values
            margins.append(float(top2[0] - top2[1]))
        # a context longer than block_size is cropped to its last block_size tokens
        ctx_lens = [ic.size(1) for ic, _, _ in log]
        assert ctx_lens == [min(ids.size(1) + s, bs) for s in range(MAX_NEW_TOKENS)]
        assert max(ids.size(1) + s for s in range(MAX_NEW_TOKENS)) > bs
        new = out[0, ids.size(1):].tolist()
        until = new[:new.index(eos) + 1] if eos in new else new
        assert min(margins) > 1e-3, (name, prompt, margins)  # no near-ties for the argmax
        greedy.append({"prompt": prompt, "prompt_ids": ids[0].tolist(), "ids": out[0].tolist(),
                       "new_ids": new, "new_words": words(new), "until_eos": words(until),
                       "context_lengths": ctx_lens,
                       "top1_minus_top2_logit": margins})
        # the sampling distribution nanoGPT draws from at the first step
        with torch.no_grad():
            last = model(ids)[0][:, -1, :]
            log_t = []
            G.generate(lambda ic: model(ic)[0], bs, ids, 1, SAMPLE["temperature"],
                       SAMPLE["top_k"], log=log_t)
            log_t2 = []
            G.generate(steps_fn, bs, ids, 1, SAMPLE["temperature"], SAMPLE["top_k"], log=log_t2)
        _, filt, probs = log_t[0]
        assert exact(filt, log_t2[0][1]) and exact(probs, log_t2[0][2])
        scaled = last / SAMPLE["temperature"]
        # the division by the Python float: float32 division by float32(0.8)
        assert exact(scaled, last / torch.tensor(SAMPLE["temperature"], dtype=torch.float32))
        kept = torch.isfinite(filt[0])
        assert int(kept.sum()) == SAMPLE["top_k"]
        assert exact(filt[0][kept], scaled[0][kept])
        assert torch.all(probs[0][~kept] == 0) and abs(float(probs.sum()) - 1) < 1e-6
        assert torch.allclose(probs[0][kept], F.softmax(scaled[0][kept], dim=-1), rtol=1e-6, atol=1e-7)
        sampling.append({"prompt": prompt, "temperature": SAMPLE["temperature"],
                         "top_k": SAMPLE["top_k"],
                         "logits": [float(x) for x in last[0]],
                         "scaled_logits": [float(x) for x in scaled[0]],
                         "kept_ids": [int(i) for i in kept.nonzero()[:, 0]],
                         "probs": [float(x) for x in probs[0]]})
    write_json(name + ".generate.json", {
        "weights": name + ".final.safetensors",
        "config": next(t[1] for t in TRAININGS if t[0] == name) + ".config.json",
        "max_new_tokens": MAX_NEW_TOKENS,
        "greedy_note": "nanoGPT's generate(idx, max_new_tokens, temperature=1.0, top_k=None) "
                       "with torch.multinomial replaced by argmax: every step crops the context "
                       "to its last block_size tokens, runs the model without targets (lm_head "
                       "on the last position only) and appends the argmax; it does not stop at "
                       "the eos word (ids: prompt + all max_new_tokens tokens); until_eos is "
                       "the new words up to and including the first eos; context_lengths the "
                       "length of the (cropped) context of each step; top1_minus_top2_logit the "
                       "margin of each argmax",
        "greedy": greedy,
        "sampling_note": "the first step of nanoGPT's generate(idx, 1, temperature, top_k): "
                         "logits = the model's logits at the last position (float32, listed), "
                         "scaled_logits = logits / temperature (a float32 division by "
                         "float32(temperature)), v = topk(scaled, top_k), every scaled logit < "
                         "v[-1] set to -inf (kept_ids: the others), probs = softmax (0 where "
                         "filtered); torch.multinomial(probs, 1) would then draw the token",
        "sampling": sampling,
    })
    return greedy


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    os.makedirs(OUT, exist_ok=True)
    cases = {}
    for case, seed, sizes, rows in CASES:
        cases[case] = run_case(case, config_for(sizes), seed, rows)
    toy = make_batch(TOY)
    write_json("toy.inputs.json", toy[0])
    for name, base, opt in TRAININGS:
        run_training(name, base, opt, cases[base], toy)
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in written)
    assert total < SIZE_LIMIT, total
    assert sorted(written) == sorted(os.listdir(OUT)), "stale files in " + OUT
    for line in report:
        print(line)
    print("wrote %d files to %s (%d bytes)" % (len(written), OUT, total))


if __name__ == "__main__":
    main()
