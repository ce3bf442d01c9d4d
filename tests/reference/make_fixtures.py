#!/usr/bin/python3
"""Regenerates the committed reference fixtures in tests/fixtures/ (deterministic).

Run from the repository root:  /usr/bin/python3 tests/reference/make_fixtures.py
"""
import copy
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import model as M  # noqa: E402
import st_io  # noqa: E402
import tutorial_literal as TL  # noqa: E402

OUT = os.path.normpath(os.path.join(HERE, "..", "fixtures"))
N_STEPS = 30
SGD_OPT = {"type": "SGD", "lr": 0.05, "momentum": 0.99, "dampening": 0.0, "nesterov": False,
           "weight_decay": 0.0}
ADAM_OPT = {"type": "Adam", "lr": 1e-3, "betas": [0.9, 0.98], "eps": 1e-9, "weight_decay": 0.0,
            "amsgrad": False}

written = []


def path(name):
    return os.path.join(OUT, name)


def write_json(name, obj):
    with open(path(name), "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    written.append(name)


def write_st(name, tensors, metadata=None):
    p = path(name)
    st_io.save(p, tensors, metadata)
    # round-trip self-check: names, shapes, dtypes and bytes
    back, meta = st_io.load(p)
    assert list(sorted(back)) == list(sorted(tensors)), name
    for k, v in tensors.items():
        a = v.detach().contiguous()
        if a.dtype == torch.bool:
            a = a.to(torch.uint8)
        a = a.numpy()
        assert back[k].shape == a.shape and back[k].dtype == a.dtype, (name, k)
        assert back[k].tobytes() == a.tobytes(), (name, k)
    assert meta == ({str(k): str(v) for k, v in metadata.items()} if metadata is not None else None)
    written.append(name)


def cfg_meta(cfg):
    return {"stepformer.config": json.dumps(cfg)}


def order_meta(case, tensors):
    return {"stepformer.case": case, "stepformer.order": json.dumps(list(tensors.keys()))}


def make_inputs(cfg, rows):
    src = [r[0] for r in rows]
    tgt = [r[1] for r in rows]
    out = [r[2] for r in rows]
    for t, o in zip(tgt, out):
        assert M.derive_out(cfg, t, cfg["tgt_len"]) == o, (t, o)
    s_ids = M.encode(cfg, src, "src", cfg["src_len"])
    t_ids = M.encode(cfg, tgt, "tgt", cfg["tgt_len"])
    o_ids = M.encode(cfg, out, "tgt", cfg["tgt_len"])
    js = {"src": src, "tgt": tgt, "out": out,
          "src_ids": s_ids.tolist(), "tgt_ids": t_ids.tolist(), "out_ids": o_ids.tolist()}
    return js, s_ids, t_ids, o_ids


def build(cfg, seed):
    torch.manual_seed(seed)
    m = M.Transformer(cfg)
    M.randomize_layer_norms(m)
    return m


def cross_check_literal(cfg, my_model, s, t, o):
    """Compare model.py (LayerNorm forced to gamma=1, beta=0) against the verbatim tutorial code."""
    TL.configure(cfg)
    lit = TL.Transformer().eval()
    mine = M.Transformer(cfg, tutorial_layernorm=True)
    sd = {k: v for k, v in my_model.state_dict().items() if ".layer_norm." not in k}
    mine.load_state_dict(sd, strict=True)
    lit.load_state_dict(sd, strict=True)
    crit = torch.nn.CrossEntropyLoss(ignore_index=0)
    ll, _, _, _ = lit(s, t)
    l1 = crit(ll, o.view(-1))
    l1.backward()
    mine.rec.enabled = False
    ml = mine(s, t)
    l2 = mine.loss(ml, o)
    l2.backward()
    assert torch.equal(ll.view_as(ml), ml), "logits differ from the tutorial code"
    assert torch.equal(l1, l2)
    gl = dict(lit.named_parameters())
    for n, p in mine.named_parameters():
        assert torch.allclose(p.grad, gl[n].grad, rtol=1e-5, atol=1e-7), n


def trace_case(case, cfg, seed, rows):
    model = build(cfg, seed)
    js, s, t, o = make_inputs(cfg, rows)
    cross_check_literal(cfg, model, s, t, o)
    trace, grads = M.run_trace(model, s, t, o, grads=True)
    # internal consistency
    n_valid = (o != cfg["tgt_vocab"].index(cfg["pad"])).sum()
    assert torch.allclose(trace["loss"], trace["loss.per_token"].sum() / n_valid, rtol=1e-6)
    assert trace["loss"].shape == torch.Size([])
    write_json(case + ".config.json", cfg)
    write_st(case + ".weights.safetensors", M.weights_state(model), cfg_meta(cfg))
    write_json(case + ".inputs.json", js)
    write_st(case + ".trace.safetensors", trace, order_meta(case, trace))
    write_st(case + ".grads.safetensors", grads, order_meta(case, grads))
    return model


def train(cfg, model, s, t, o, opt_spec, dtype=torch.float32):
    m = copy.deepcopy(model).to(dtype)
    m.rec.enabled = False
    params = [p for p in m.parameters()]
    if opt_spec["type"] == "SGD":
        opt = torch.optim.SGD(params, lr=opt_spec["lr"], momentum=opt_spec["momentum"],
                              dampening=opt_spec["dampening"], nesterov=opt_spec["nesterov"],
                              weight_decay=opt_spec["weight_decay"])
    else:
        opt = torch.optim.Adam(params, lr=opt_spec["lr"], betas=tuple(opt_spec["betas"]),
                               eps=opt_spec["eps"], weight_decay=opt_spec["weight_decay"],
                               amsgrad=opt_spec["amsgrad"])
    losses = []
    for _ in range(N_STEPS):
        logits = m(s, t)
        loss = m.loss(logits, o)
        losses.append(float(loss))
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        final_loss = float(m.loss(m(s, t), o))
    return m, losses, final_loss


def training_case(cfg, seed, rows):
    model = build(cfg, seed)
    js, s, t, o = make_inputs(cfg, rows)
    write_json("sgd.config.json", cfg)
    write_st("sgd.weights.safetensors", M.weights_state(model), cfg_meta(cfg))
    write_json("sgd.inputs.json", js)
    for name, spec in (("sgd", SGD_OPT), ("adam", ADAM_OPT)):
        m32, l32, f32 = train(cfg, model, s, t, o, spec)
        m64, l64, f64 = train(cfg, model, s, t, o, spec, dtype=torch.float64)
        dev = [abs(a - b) for a, b in zip(l32, l64)]
        w32, w64 = M.weights_state(m32), m64.state_dict()
        wdev = max(float((w32[k].double() - w64[k]).abs().max()) for k in w32)
        write_json(name + ".losses.json", {
            "config": "sgd.config.json",
            "init": "sgd.weights.safetensors",
            "inputs": "sgd.inputs.json",
            "batch": "all rows of the inputs file as one batch, in order, no shuffle",
            "optimizer": spec,
            "steps": N_STEPS,
            "loss_reduction": "CrossEntropyLoss(ignore_index=pad), mean over non-pad targets",
            "losses": l32,
            "note": "losses[i] is the loss computed BEFORE optimizer step i (i = 0..steps-1)",
            "final_loss": f32,
            "final": name + ".final.safetensors",
            "float64_losses": l64,
            "float64_final_loss": f64,
            "float32_vs_float64_max_abs_dev": max(dev),
            "float32_vs_float64_final_weights_max_abs_dev": wdev,
        })
        write_st(name + ".final.safetensors", M.weights_state(m32), cfg_meta(cfg))
        print("%s losses: %.5f -> %.5f (final %.5f), max |f32-f64| dev %.2e, final weights dev %.2e"
              % (name, l32[0], l32[-1], f32, max(dev), wdev))


def tutorial_state_dict_case(seed, rows, max_len=64):
    cfg = M.tutorial_config(d_model=8, d_ff=16, d_k=2, d_v=2, n_layers=1, n_heads=2)
    TL.configure(cfg)
    torch.manual_seed(seed)
    lit = TL.Transformer()
    sd = lit.state_dict()
    # A tutorial user's state_dict: pe buffers included; we truncate max_len 5000 -> 64 to keep the
    # file small (rows are identical: the table only depends on position and d_model).
    sd = type(sd)((k, (v[:max_len].clone() if k.endswith("pos_emb.pe") else v)) for k, v in sd.items())
    assert sd["encoder.pos_emb.pe"].shape == (max_len, 1, cfg["d_model"])
    assert not any(".layer_norm." in k for k in sd)
    js, s, t, o = make_inputs(cfg, rows)
    mine = M.Transformer(cfg, max_len=max_len, tutorial_layernorm=True)
    mine.load_state_dict(sd, strict=True)
    lit.eval()
    ll = lit(s, t)[0]
    trace, _ = M.run_trace(mine, s, t, o, grads=False)
    assert torch.equal(ll.view_as(trace["projection.logits"]), trace["projection.logits"])
    write_json("tutorial_state_dict.config.json", cfg)
    write_st("tutorial_state_dict.weights.safetensors", sd, None)
    write_json("tutorial_state_dict.inputs.json", js)
    write_st("tutorial_state_dict.trace.safetensors", trace, order_meta("tutorial_state_dict", trace))


def main():
    torch.set_num_threads(1)  # fixed reduction order -> reproducible bytes
    os.makedirs(OUT, exist_ok=True)
    rows2 = M.TUTORIAL_SENTENCES
    tiny = M.tutorial_config(d_model=16, d_ff=32, d_k=4, d_v=6, n_layers=2, n_heads=3)
    trace_case("tiny", tiny, 1, rows2)
    small = M.tutorial_config(d_model=32, d_ff=64, d_k=8, d_v=8, n_layers=2, n_heads=4)
    rows3 = rows2 + [["ich mochte cola P P", "S i want P P P", "i want E P P P"]]
    trace_case("small", small, 2, rows3)
    training_case(dict(tiny), 3, rows2)
    tutorial_state_dict_case(4, rows2)
    total = 0
    for n in written:
        sz = os.path.getsize(path(n))
        total += sz
        print("%-45s %9d bytes" % (n, sz))
    print("total %d bytes (%.1f KiB)" % (total, total / 1024))
    assert total < 5 * 1024 * 1024


if __name__ == "__main__":
    main()
