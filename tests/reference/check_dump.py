#!/usr/bin/python3
"""Compare a C++ dump (safetensors) against PyTorch.

  check_dump.py --config C.json --weights W.safetensors --src "ich mochte ein bier P" \
                --src "ich mochte ein cola P" --tgt "S i want a beer ." --tgt "S i want a coke ." \
                --dump D.safetensors [--grads]
  check_dump.py --inputs tests/fixtures/tiny.inputs.json --config ... --weights ... --dump D
  check_dump.py --ref tests/fixtures/tiny.trace.safetensors --dump D      (no recomputation)
  check_dump.py --random-config SEED [--out-dir DIR]   (writes a random small case, prints paths)

Every tensor in D is compared with the tensor of the same name in the reference: trace names
(model.py), `loss`, `loss.per_token`, state_dict names (weights), and with --grads also
`grad.<param>` / `grad.<trace name>`. An element fails when |d - r| > max(atol, rtol*|r|)
(defaults rtol 1e-4, atol 1e-5); masks (integer dtypes) must match exactly. Exit status:
0 all match, 1 mismatch (or, with --strict, unknown/missing names), 2 usage error.

--src/--tgt/--out take one sentence each and may be repeated; a value may also hold several
sentences separated by '|'. Without --out the decoder targets are derived from --tgt
(drop leading bos, drop pads, append eos, pad): 'S i want P P' -> 'i want E P P'.
Rows are padded with the pad token to the length seen in the dump (encoder.src_emb.out,
decoder.tgt_emb.out, ...), else to the longest row.
"""
import argparse
import json
import os
import random
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import model as M  # noqa: E402
import st_io  # noqa: E402


def split_sentences(vals):
    out = []
    for v in vals or []:
        out.extend(s.strip() for s in v.split("|") if s.strip())
    return out


def build_model(cfg, weights, dtype):
    learned = cfg.get("learn_layer_norm", False)
    pe = weights.get("encoder.pos_emb.pe")
    max_len = pe.shape[0] if pe is not None else M.DEFAULT_MAX_LEN
    model = M.Transformer(cfg, max_len=max_len)
    sd = {k: torch.from_numpy(np.array(v)) for k, v in weights.items()}
    if not learned:
        for k in [k for k in sd if ".layer_norm." in k]:
            v = sd.pop(k)
            if not torch.equal(v, torch.ones_like(v) if k.endswith(".weight") else torch.zeros_like(v)):
                raise SystemExit("%s is not 1/0 but the config has \"learn_layer_norm\": false" % k)
    missing, unexpected = model.load_state_dict(sd, strict=False)
    missing = [k for k in missing if not k.endswith("pos_emb.pe")]
    if missing or unexpected:
        raise SystemExit("weights do not match the config: missing %s unexpected %s" % (missing, unexpected))
    return model.to(dtype)


def infer_len(dump_shapes, names, axis):
    for n in names:
        if n in dump_shapes and len(dump_shapes[n]) > axis:
            return int(dump_shapes[n][axis])
    return None


def reference(args, dump_shapes):
    cfg = None
    weights, wmeta = st_io.load(args.weights)
    if args.config:
        with open(args.config) as f:
            cfg = json.load(f)
    elif wmeta and "stepformer.config" in wmeta:
        cfg = json.loads(wmeta["stepformer.config"])
    else:
        raise SystemExit("--config needed (weights carry no stepformer.config metadata)")
    src, tgt, out = split_sentences(args.src), split_sentences(args.tgt), split_sentences(args.out)
    if args.inputs:
        with open(args.inputs) as f:
            js = json.load(f)
        src, tgt, out = src or js["src"], tgt or js["tgt"], out or js.get("out", [])
    if not src or not tgt or len(src) != len(tgt):
        raise SystemExit("need the same number (>0) of --src and --tgt sentences")
    S = infer_len(dump_shapes, ["encoder.src_emb.out", "encoder.pos_emb.out", "encoder.self_attn_mask",
                                "grad.encoder.src_emb.out"], 1)
    T = infer_len(dump_shapes, ["decoder.tgt_emb.out", "decoder.pos_emb.out", "projection.logits",
                                "loss.per_token", "decoder.self_attn_mask", "grad.projection.logits"], 1)
    S = S or max(len(s.split()) for s in src)
    T = T or max(len(t.split()) for t in tgt)
    if not out:
        out = [M.derive_out(cfg, t, T) for t in tgt]
    s_ids = M.encode(cfg, src, "src", S)
    t_ids = M.encode(cfg, tgt, "tgt", T)
    o_ids = M.encode(cfg, out, "tgt", T)
    print("inputs: B=%d S=%d T=%d  out=%s" % (len(src), S, T, out))
    dtype = torch.float64 if args.double else torch.float32
    model = build_model(cfg, weights, dtype)
    torch.set_num_threads(1)
    trace, grads = M.run_trace(model, s_ids, t_ids, o_ids, grads=args.grads)
    ref = {}
    for k, v in model.state_dict().items():
        ref[k] = v
    ref.update(trace)
    if grads:
        ref.update(grads)
    expected = list(trace.keys()) + (list(grads.keys()) if grads else [])
    return {k: v.detach().numpy() for k, v in ref.items()}, expected


def compare(name, d, r, rtol, atol):
    """Returns (ok, line)."""
    if tuple(d.shape) != tuple(r.shape):
        return False, "%-58s SHAPE dump %s ref %s" % (name, list(d.shape), list(r.shape))
    if d.dtype.kind in "biu" or r.dtype.kind in "biu":
        dd, rr = d.astype(np.int64) != 0, r.astype(np.int64) != 0
        if r.dtype.kind == "f" or d.dtype.kind == "f":
            dd, rr = d.astype(np.float64), r.astype(np.float64)
        bad = int(np.sum(dd != rr))
        return bad == 0, "%-58s %-14s exact   %s" % (name, list(d.shape), "ok" if bad == 0 else "%d DIFFER" % bad)
    dd, rr = d.astype(np.float64), r.astype(np.float64)
    nan_d, nan_r = np.isnan(dd), np.isnan(rr)
    if np.any(nan_d != nan_r):
        return False, "%-58s NaN pattern differs (dump %d NaN, ref %d NaN)" % (name, nan_d.sum(), nan_r.sum())
    dd, rr = np.where(nan_d, 0, dd), np.where(nan_r, 0, rr)
    err = np.abs(dd - rr)
    tol = np.maximum(atol, rtol * np.abs(rr))
    max_abs = float(err.max()) if err.size else 0.0
    sig = np.abs(rr) > atol
    max_rel = float((err[sig] / np.abs(rr[sig])).max()) if np.any(sig) else 0.0
    worst = float((err / tol).max()) if err.size else 0.0
    nbad = int(np.sum(err > tol))
    ok = nbad == 0
    return ok, "%-58s %-14s abs %.2e rel %.2e err/tol %.2f %s" % (
        name, list(d.shape), max_abs, max_rel, worst, "ok" if ok else "MISMATCH (%d elems)" % nbad)


def random_case(seed, out_dir):
    rng = random.Random(seed)
    d_model = rng.choice([4, 6, 8, 10, 12, 16, 20, 24, 32])  # even: the tutorial PE needs even d_model
    n_src, n_tgt = rng.randint(1, 8), rng.randint(1, 8)
    tgt_specials = ["S", "E", "."]
    tgt_words = ["t%d" % i for i in range(n_tgt)] + tgt_specials
    rng.shuffle(tgt_words)
    cfg = {
        "d_model": d_model, "d_ff": rng.randint(1, 48), "d_k": rng.randint(1, 8), "d_v": rng.randint(1, 8),
        "n_layers": rng.randint(1, 3), "n_heads": rng.randint(1, 4),
        "src_vocab": ["P"] + ["s%d" % i for i in range(n_src)],
        "tgt_vocab": ["P"] + tgt_words,
        "src_len": rng.randint(1, 8), "tgt_len": rng.randint(2, 8),
        "pad": "P", "bos": "S", "eos": "E",
        "layer_norm_eps": rng.choice([1e-5, 1e-6, 1e-3]), "dropout": 0.0,
        "learn_layer_norm": rng.choice([False, True]),
    }
    B = rng.randint(1, 4)
    src, tgt, out = [], [], []
    words_t = [w for w in cfg["tgt_vocab"] if w not in ("P", "S", "E")]
    for _ in range(B):
        n = rng.randint(1, cfg["src_len"])
        src.append(" ".join([rng.choice(cfg["src_vocab"][1:]) for _ in range(n)] + ["P"] * (cfg["src_len"] - n)))
        n = rng.randint(0, cfg["tgt_len"] - 1)
        t = " ".join(["S"] + [rng.choice(words_t) for _ in range(n)] + ["P"] * (cfg["tgt_len"] - 1 - n))
        tgt.append(t)
        out.append(M.derive_out(cfg, t, cfg["tgt_len"]))
    torch.manual_seed(seed)
    model = M.Transformer(cfg)
    M.randomize_layer_norms(model)
    s_ids = M.encode(cfg, src, "src", cfg["src_len"])
    t_ids = M.encode(cfg, tgt, "tgt", cfg["tgt_len"])
    o_ids = M.encode(cfg, out, "tgt", cfg["tgt_len"])
    trace, grads = M.run_trace(model, s_ids, t_ids, o_ids, grads=True)
    if out_dir is None:
        out_dir = tempfile.mkdtemp(prefix="stepformer-rand%d-" % seed)
    os.makedirs(out_dir, exist_ok=True)
    p = lambda n: os.path.join(out_dir, n)  # noqa: E731
    with open(p("config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    with open(p("inputs.json"), "w") as f:
        json.dump({"src": src, "tgt": tgt, "out": out}, f, indent=1)
    st_io.save(p("weights.safetensors"), M.weights_state(model), {"stepformer.config": json.dumps(cfg)})
    st_io.save(p("trace.safetensors"), trace, {"stepformer.order": json.dumps(list(trace))})
    st_io.save(p("grads.safetensors"), grads, {"stepformer.order": json.dumps(list(grads))})
    print("config   %s" % p("config.json"))
    print("weights  %s" % p("weights.safetensors"))
    print("inputs   %s" % p("inputs.json"))
    print("trace    %s" % p("trace.safetensors"))
    print("grads    %s" % p("grads.safetensors"))
    print("config: %s" % json.dumps({k: v for k, v in cfg.items() if k not in ("src_vocab", "tgt_vocab")}))
    q = lambda xs, flag: " ".join("%s '%s'" % (flag, x) for x in xs)  # noqa: E731
    print("\nexample:\n  stepformer-cli forward --config %s --weights %s %s %s --dump D.safetensors"
          % (p("config.json"), p("weights.safetensors"), q(src, "--src"), q(tgt, "--tgt")))
    print("  %s %s --config %s --weights %s --inputs %s --dump D.safetensors --grads"
          % (sys.executable, os.path.abspath(__file__), p("config.json"), p("weights.safetensors"),
             p("inputs.json")))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config")
    ap.add_argument("--weights")
    ap.add_argument("--src", action="append")
    ap.add_argument("--tgt", action="append")
    ap.add_argument("--out", action="append", help="decoder targets (default: derived from --tgt)")
    ap.add_argument("--inputs", help="inputs.json with src/tgt/out lists (fixtures format)")
    ap.add_argument("--dump")
    ap.add_argument("--ref", help="compare against this safetensors file instead of recomputing")
    ap.add_argument("--grads", action="store_true", help="also compute loss.backward() gradients")
    ap.add_argument("--double", action="store_true", help="reference in float64 instead of float32")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--strict", action="store_true",
                    help="also fail on dump names unknown to the reference and on missing trace names")
    ap.add_argument("--quiet", action="store_true", help="print only mismatches and the summary")
    ap.add_argument("--random-config", type=int, metavar="SEED")
    ap.add_argument("--out-dir", help="with --random-config: where to write (default: new temp dir)")
    args = ap.parse_args(argv)

    if args.random_config is not None:
        return random_case(args.random_config, args.out_dir)
    if not args.dump:
        ap.error("--dump is required")
    dump, _ = st_io.load(args.dump)
    if args.ref:
        ref, _ = st_io.load(args.ref)
        expected = list(ref.keys())
    else:
        if not args.weights:
            ap.error("--weights is required (or --ref)")
        ref, expected = reference(args, {k: v.shape for k, v in dump.items()})

    n_bad = n_ok = 0
    unknown = []
    for name, d in dump.items():
        if name not in ref:
            unknown.append(name)
            continue
        ok, line = compare(name, d, ref[name], args.rtol, args.atol)
        if ok:
            n_ok += 1
        else:
            n_bad += 1
        if not ok or not args.quiet:
            print(line)
    missing = [n for n in expected if n not in dump]
    for n in unknown:
        print("%-58s not in reference (%s)" % (n, "FAIL" if args.strict else "ignored"))
    if missing:
        print("%d reference tensors not in the dump%s: %s%s" % (
            len(missing), " (FAIL)" if args.strict else "", ", ".join(missing[:8]),
            " ..." if len(missing) > 8 else ""))
    print("summary: %d ok, %d mismatched, %d unknown, %d missing (rtol %g, atol %g)"
          % (n_ok, n_bad, len(unknown), len(missing), args.rtol, args.atol))
    if n_bad or (args.strict and (unknown or missing)) or (n_ok + n_bad == 0):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
