#!/usr/bin/python3
"""Writes tests/fixtures/pth/: small files made by torch.save for scripts/pth_to_safetensors.py
(issue 33), and for each the tensors it must convert to, as a safetensors file written here with
st_io (float32, the state_dict's order, the buffers the app recomputes left out, metadata
`stepformer.config` = the config the converter must write).

Run from the repository root: /usr/bin/python3 tests/reference/make_pth_fixtures.py
Deterministic except `gpt_bf16_legacy.pth`, whose storage keys are memory addresses (the legacy
format names storages so): it differs byte-wise between runs, its tensors do not.
tests/app/test_pth_convert.py (standard library only) runs the converter on them.
"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpt_model as G  # noqa: E402
import model as M  # noqa: E402
import st_io  # noqa: E402
import tutorial_literal as TL  # noqa: E402

OUT = os.path.normpath(os.path.join(HERE, "..", "fixtures", "pth"))
FILE_LIMIT = 40 * 1024
VOCAB = ["P", "S", "E", "i", "want", "a", "beer", "coke", ".", "you", "like", "tea", "cold"]
written = []


def path(name):
    return os.path.join(OUT, name)


def write_json(name, obj):
    with open(path(name), "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    written.append(name)


def save_pth(name, obj, legacy=False):
    torch.save(obj, path(name), _use_new_zipfile_serialization=not legacy)
    written.append(name)


def write_expected(name, sd, cfg):
    """`sd`: name -> tensor as the converter must write it (float32, contiguous)."""
    tensors = {k: v.detach().float().contiguous() for k, v in sd.items()}
    meta = {"stepformer.config": json.dumps(cfg, separators=(",", ":"))}
    st_io.save(path(name), tensors, meta)
    back, m = st_io.load(path(name))
    assert list(back) == list(tensors) and m == meta, name
    for k, v in tensors.items():
        assert back[k].tobytes() == v.numpy().tobytes(), (name, k)
    written.append(name)


def same(a, b):
    assert list(a) == list(b), (list(a), list(b))
    for k in a:
        assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape and torch.equal(a[k], b[k]), k


def tutorial_cases():
    """tutorial.pth: a tutorial user's model.state_dict() (the verbatim tutorial code, pe buffers
    cut to 16 rows); tutorial_fp16.pth: the same in float16, nested under "state_dict" beside
    other entries, with an int64 tensor the converter skips."""
    cfg = M.tutorial_config(d_model=8, d_ff=16, d_k=2, d_v=2, n_layers=1, n_heads=2)
    TL.configure(cfg)
    torch.manual_seed(4)
    sd = TL.Transformer().state_dict()
    sd = type(sd)((k, v[:16].clone() if k.endswith("pos_emb.pe") else v) for k, v in sd.items())
    assert not any(".layer_norm." in k for k in sd)
    write_json("tutorial.config.json", cfg)
    save_pth("tutorial.pth", sd)
    same(torch.load(path("tutorial.pth")), sd)
    kept = {k: v for k, v in sd.items() if not k.endswith("pos_emb.pe")}
    write_expected("tutorial.expected.safetensors", kept, cfg)

    half = type(sd)((k, v.half()) for k, v in sd.items())
    half["encoder.step_count"] = torch.tensor(7)  # an integer tensor: skipped with a note
    save_pth("tutorial_fp16.pth", {"state_dict": half, "epoch": 3, "loss": 0.25, "note": "float16"})
    write_expected("tutorial_fp16.expected.safetensors", {k: half[k] for k in kept}, cfg)


def nanogpt_case():
    """nanogpt_ckpt.pt: a checkpoint as nanoGPT's train.py writes it after torch.compile: the
    model's keys prefixed `_orig_mod.`, the causal-mask buffers, the tied lm_head/wte sharing one
    storage, an AdamW state, model_args, iter_num, best_val_loss (a tensor) and config. Three
    tensors are views the converter must make contiguous: c_fc.weight transposed twice (strides
    (1, 32)), wpe a column slice of a wider matrix (offset 4, row stride 20), attn.c_proj's weight
    and bias two pieces of one storage (the bias at offset 64)."""
    margs = dict(n_layer=1, n_head=2, n_embd=8, block_size=8, bias=True, vocab_size=len(VOCAB), dropout=0.0)
    cfg = {k: margs[k] for k in ("block_size", "n_layer", "n_head", "n_embd", "dropout", "bias")}
    torch.manual_seed(1337)
    model = G.GPT(dict(cfg, vocab=VOCAB))
    gen = torch.Generator().manual_seed(2337)
    with torch.no_grad():
        for n, p in model.named_parameters():
            if n.endswith("bias") or ".ln_" in n:
                p.add_(0.2 * torch.randn(p.shape, generator=gen))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1)
    idx = torch.tensor([[1, 3, 4, 5, 6, 8]])
    _, loss = model(idx[:, :-1], idx[:, 1:])
    loss.backward()
    opt.step()
    sd = model.state_dict()
    assert sd["lm_head.weight"].data_ptr() == sd["transformer.wte.weight"].data_ptr()
    assert "transformer.h.0.attn.bias" in sd
    views = dict(sd)
    w = sd["transformer.h.0.mlp.c_fc.weight"]
    views["transformer.h.0.mlp.c_fc.weight"] = w.t().contiguous().t()
    wide = torch.randn(8, 20, generator=gen)
    wide[:, 4:12] = sd["transformer.wpe.weight"]
    views["transformer.wpe.weight"] = wide[:, 4:12]
    pw, pb = sd["transformer.h.0.attn.c_proj.weight"], sd["transformer.h.0.attn.c_proj.bias"]
    flat = torch.cat([pw.flatten(), pb])
    views["transformer.h.0.attn.c_proj.weight"], views["transformer.h.0.attn.c_proj.bias"] = flat[:64].view(8, 8), flat[64:]
    assert not views["transformer.h.0.mlp.c_fc.weight"].is_contiguous()
    assert views["transformer.wpe.weight"].storage_offset() == 4
    assert views["transformer.h.0.attn.c_proj.bias"].storage_offset() == 64
    same(views, sd)
    ckpt = {"model": type(sd)(("_orig_mod." + k, v) for k, v in views.items()), "optimizer": opt.state_dict(),
            "model_args": margs, "iter_num": 1, "best_val_loss": loss.detach(),
            "config": {"out_dir": "out-words", "batch_size": 1, "learning_rate": 1e-3, "compile": True,
                       "dtype": "float32", "betas": (0.9, 0.95)}}
    save_pth("nanogpt_ckpt.pt", ckpt)
    back = torch.load(path("nanogpt_ckpt.pt"))
    same({k[len("_orig_mod."):]: v for k, v in back["model"].items()}, sd)
    with open(path("nanogpt.vocab.txt"), "w") as f:
        f.write(" ".join(VOCAB) + "\n")
    written.append("nanogpt.vocab.txt")
    expected_cfg = dict({"architecture": "gpt"}, **cfg, vocab=VOCAB, pad="P")
    write_expected("nanogpt_ckpt.expected.safetensors",
                   {k: v for k, v in sd.items() if not G.is_buffer(k)}, expected_cfg)


def legacy_bf16_case():
    """gpt_bf16_legacy.pth: a bias-free nanoGPT model.state_dict() in bfloat16 (buffer included),
    saved in the legacy (pre-1.6, non-zip) format; converted with gpt_bf16.config.json."""
    cfg = {"architecture": "gpt", "block_size": 8, "n_layer": 1, "n_head": 2, "n_embd": 8, "dropout": 0.0,
           "bias": False, "vocab": VOCAB, "pad": "P", "bos": "S", "eos": "E"}
    torch.manual_seed(7)
    model = G.GPT(cfg).to(torch.bfloat16)
    sd = model.state_dict()
    assert all(v.dtype == torch.bfloat16 for v in sd.values())
    write_json("gpt_bf16.config.json", cfg)
    save_pth("gpt_bf16_legacy.pth", sd, legacy=True)
    same(torch.load(path("gpt_bf16_legacy.pth")), sd)
    write_expected("gpt_bf16_legacy.expected.safetensors",
                   {k: v for k, v in sd.items() if not G.is_buffer(k)}, cfg)


def refused_cases():
    """Files the converter must refuse: a complex tensor (an unsupported dtype) and a whole
    nn.Module saved with torch.save(model) (a global that is not allowed)."""
    save_pth("bad_complex.pth", {"w": torch.zeros(2, dtype=torch.complex64)})
    save_pth("bad_module.pth", torch.nn.Linear(2, 2))


def main():
    torch.set_num_threads(1)
    os.makedirs(OUT, exist_ok=True)
    tutorial_cases()
    nanogpt_case()
    legacy_bf16_case()
    refused_cases()
    total = 0
    for n in written:
        size = os.path.getsize(path(n))
        assert size < FILE_LIMIT, (n, size)
        total += size
        print("%-40s %7d bytes" % (n, size))
    print("total %d bytes (%.1f KiB)" % (total, total / 1024))


if __name__ == "__main__":
    main()
