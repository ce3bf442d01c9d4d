#!/usr/bin/python3
"""Regenerates the committed reference fixtures in tests/fixtures/ (deterministic).

Run from the repository root:  /usr/bin/python3 tests/reference/make_fixtures.py
"""
import copy
import json
import os
import sys
from collections import OrderedDict

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import model as M  # noqa: E402
import fixture_io  # noqa: E402
import st_io  # noqa: E402
import tutorial_literal as TL  # noqa: E402

OUT = os.path.normpath(os.path.join(HERE, "..", "fixtures"))
N_STEPS = 30
RECIPE_EPOCHS = 30
SGD_OPT = {"type": "SGD", "lr": 0.05, "momentum": 0.99, "dampening": 0.0, "nesterov": False,
           "weight_decay": 0.0}
ADAM_OPT = {"type": "Adam", "lr": 1e-3, "betas": [0.9, 0.98], "eps": 1e-9, "weight_decay": 0.0,
            "amsgrad": False}

FIXTURES = fixture_io.Fixtures(OUT)
written = FIXTURES.written
write_json = FIXTURES.write_json
write_st = FIXTURES.write_st
path = FIXTURES.path


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
    M.randomize_layer_norms(m)  # only where cfg learns LayerNorm
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


def tutorial_greedy(lit, enc_input, cfg, max_steps):
    """The tutorial's greedy_decoder and its final prediction, verbatim in effect (stops at '.'),
    with a step limit so an untrained model cannot loop forever. Returns the predicted words."""
    tv = {w: i for i, w in enumerate(cfg["tgt_vocab"])}
    enc_outputs, _ = lit.encoder(enc_input)
    dec_input = torch.zeros(1, 0).type_as(enc_input.data)
    next_symbol = tv[cfg["bos"]]
    for _ in range(max_steps):
        dec_input = torch.cat([dec_input.detach(), torch.tensor([[next_symbol]], dtype=enc_input.dtype)], -1)
        dec_outputs, _, _ = lit.decoder(dec_input, enc_input, enc_outputs)
        projected = lit.projection(dec_outputs)
        next_symbol = projected.squeeze(0).max(dim=-1, keepdim=False)[1].data[-1]
        if next_symbol == tv["."]:
            break
    predict, _, _, _ = lit(enc_input, dec_input)
    predict = predict.data.max(1, keepdim=True)[1]
    return [cfg["tgt_vocab"][n.item()] for n in predict.squeeze(-1)]


def tutorial_recipe_run(cfg, sd, s, t, o, dtype=torch.float32):
    """The tutorial's training loop (seed 001) on its own model code: SGD lr 1e-3 momentum 0.99,
    CrossEntropyLoss(ignore_index=0), one batch of both sentences per epoch, 30 epochs; dropout 0
    (eval mode: nothing else in the model depends on it). Returns (losses, model)."""
    TL.configure(cfg)
    # the literal code makes a fresh nn.LayerNorm per call, in the default dtype
    torch.set_default_dtype(dtype)
    try:
        return _recipe_loop(sd, s, t, o, dtype)
    finally:
        torch.set_default_dtype(torch.float32)


def _recipe_loop(sd, s, t, o, dtype):
    lit = TL.Transformer()
    missing, unexpected = lit.load_state_dict(sd, strict=False)
    assert not unexpected and all(k.endswith("pos_emb.pe") for k in missing), (missing, unexpected)
    lit = lit.to(dtype).eval()
    crit = torch.nn.CrossEntropyLoss(ignore_index=0)
    opt = torch.optim.SGD(lit.parameters(), lr=1e-3, momentum=0.99)
    losses = []
    for _ in range(RECIPE_EPOCHS):
        outputs, _, _, _ = lit(s, t)
        loss = crit(outputs, o.view(-1))
        losses.append(float(loss))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return losses, lit


def tutorial_recipe_case(seed, rows):
    """The tutorial's model and recipe at a reduced size (the full one is 168 MB of weights; see
    tutorial_recipe_check.py for it) -- committed initial weights, every epoch's loss, and the
    greedy translations after training."""
    # the smallest size tried (of 64..128 wide, 1..3 layers) at which 30 epochs learn both sentences
    cfg = M.tutorial_config(d_model=128, d_ff=256, d_k=32, d_v=32, n_layers=1, n_heads=4)
    TL.configure(cfg)
    torch.manual_seed(seed)
    sd = {k: v for k, v in TL.Transformer().state_dict().items() if not k.endswith("pos_emb.pe")}
    js, s, t, o = make_inputs(cfg, rows)
    l32, lit = tutorial_recipe_run(cfg, sd, s, t, o)
    l64, _ = tutorial_recipe_run(cfg, {k: v.double() for k, v in sd.items()}, s, t, o, torch.float64)
    with torch.no_grad():
        translations = [" ".join(tutorial_greedy(lit, s[i].view(1, -1), cfg, cfg["tgt_len"]))
                        for i in range(len(rows))]
    rel = [abs(a - b) / abs(b) for a, b in zip(l32, l64)]
    write_json("recipe.config.json", cfg)
    write_st("recipe.weights.safetensors", OrderedDict((k, v.float()) for k, v in sd.items()), cfg_meta(cfg))
    write_json("recipe.inputs.json", js)
    write_json("recipe.losses.json", {
        "config": "recipe.config.json",
        "init": "recipe.weights.safetensors",
        "inputs": "recipe.inputs.json",
        "recipe": "the tutorial's loop: SGD lr 1e-3 momentum 0.99, CrossEntropyLoss(ignore_index=0), batch 2 "
                  "(both sentences, in order), dropout 0, LayerNorm gamma=1 beta=0 (not trained)",
        "epochs": RECIPE_EPOCHS,
        "losses": l32,
        "note": "losses[i] is the loss printed as 'Epoch: i+1', computed before that epoch's step",
        "translations": translations,
        "float64_losses": l64,
        "float32_vs_float64_max_rel_dev": max(rel),
    })
    print("recipe losses: %.6f -> %.6f, max |f32-f64|/f64 %.2e, translations %s"
          % (l32[0], l32[-1], max(rel), translations))


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
    # The trace cases learn LayerNorm (random gamma/beta), so its affine part is tested too.
    tiny = M.tutorial_config(d_model=16, d_ff=32, d_k=4, d_v=6, n_layers=2, n_heads=3, learn_layer_norm=True)
    trace_case("tiny", tiny, 1, rows2)
    small = M.tutorial_config(d_model=32, d_ff=64, d_k=8, d_v=8, n_layers=2, n_heads=4, learn_layer_norm=True)
    rows3 = rows2 + [["ich mochte cola P P", "S i want P P P", "i want E P P P"]]
    trace_case("small", small, 2, rows3)
    # Training follows the tutorial: LayerNorm fixed, not trained.
    training_case(dict(tiny, learn_layer_norm=False), 3, rows2)
    tutorial_state_dict_case(4, rows2)
    tutorial_recipe_case(5, rows2)
    total = 0
    for n in written:
        sz = os.path.getsize(path(n))
        total += sz
        print("%-45s %9d bytes" % (n, sz))
    print("total %d bytes (%.1f KiB)" % (total, total / 1024))
    assert total < 5 * 1024 * 1024


if __name__ == "__main__":
    main()
