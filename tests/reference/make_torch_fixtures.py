#!/usr/bin/python3
"""Regenerates tests/fixtures/torch/ (deterministic): PyTorch 1.13's own
nn.TransformerEncoderLayer / nn.TransformerDecoderLayer, "architecture": "torch",
"structure": "layers" (issue 17). See tests/reference/README.md for the file layout.

Run from the repository root:  /usr/bin/python3 tests/reference/make_torch_fixtures.py

For every case the script asserts that torch_layers.py (the step-by-step re-implementation
whose intermediates become the trace) gives the real modules' outputs and parameter gradients
(bit for bit where reached, never more than 1e-6 apart), that NaNs sit in the same places, and
that every file round-trips through st_io.
"""
import json
import os
import sys

import numpy as np
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixture_io  # noqa: E402
import st_io  # noqa: E402
import torch_layers as TL  # noqa: E402

OUT = os.path.normpath(os.path.join(HERE, "..", "fixtures", "torch"))
TOL = 1e-6

# seed 004 (/work/shared/seeds/004_*.txt) prints these (4 decimals)
SEED004_INPUT = [[[0.3367, 0.1288, 0.2345, 0.2303]], [[-1.1229, -0.1863, 2.2082, -0.6380]],
                 [[0.4617, 0.2674, 0.5349, 0.8094]]]
SEED004_NORM1 = [[[-0.9493, -1.0434, 1.1045, 0.8881]], [[-1.0025, -0.1531, 1.6511, -0.4955]],
                 [[-1.0129, -0.9286, 0.6342, 1.3073]]]
SEED004_OUT = [[[-1.0328, -0.9185, 0.6710, 1.2804]], [[-1.4175, -0.1948, 1.3775, 0.2347]],
               [[-1.0022, -0.8035, 0.3029, 1.5028]]]

FIXTURES = fixture_io.Fixtures(OUT)
written = FIXTURES.written
write_json = FIXTURES.write_json
write_st = FIXTURES.write_st
path = FIXTURES.path
report = []


def compare(what, mine, ref, tol=TOL):
    """Same shape, NaN in the same places, finite values within tol. Returns max |diff|."""
    a, b = mine.detach(), ref.detach()
    assert a.shape == b.shape, (what, a.shape, b.shape)
    na, nb = torch.isnan(a), torch.isnan(b)
    assert torch.equal(na, nb), "%s: NaNs in different places" % what
    fa, fb = a[~na], b[~nb]
    assert torch.equal(torch.isinf(fa), torch.isinf(fb)), what
    fin = torch.isfinite(fa)
    assert torch.equal(fa[~fin], fb[~fin]), what
    d = float((fa[fin] - fb[fin]).abs().max()) if fin.any() else 0.0
    assert d <= tol, "%s: max |diff| %g > %g" % (what, d, tol)
    return d


def config(d_model, nhead, dim_feedforward, activation="relu", layer_norm_eps=1e-5,
           batch_first=False, norm_first=False, decoder_layer=True):
    return {"architecture": "torch", "structure": "layers", "d_model": d_model, "nhead": nhead,
            "dim_feedforward": dim_feedforward, "dropout": 0.0, "activation": activation,
            "layer_norm_eps": layer_norm_eps, "batch_first": batch_first, "norm_first": norm_first,
            "decoder_layer": decoder_layer}


def layer_kwargs(cfg):
    return {k: cfg[k] for k in ("d_model", "nhead", "dim_feedforward", "dropout", "activation",
                                "layer_norm_eps", "batch_first", "norm_first")}


def randomize(module, gen):
    """PyTorch initialises every bias to 0 and LayerNorm to 1/0; give them values so the
    fixtures test them (all other weights keep PyTorch's own initialisation)."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name.endswith("bias"):
                p.copy_(0.2 * torch.randn(p.shape, generator=gen))
            elif ".norm" in "." + name and name.endswith("weight"):
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=gen))


def state(prefix, module):
    return {prefix + k: v.detach().clone() for k, v in module.state_dict().items()}


def run_case(case, cfg, enc, dec, inputs, masks, loss_gen):
    """enc/dec: the real modules (training mode: PyTorch's slow path, as seed 004 runs them).
    inputs: {'src': ..., 'tgt': ...} in PyTorch's layout. masks: the forward's mask arguments."""
    assert enc.training and (dec is None or dec.training)
    weights = state("encoder_layer.", enc)
    if dec is not None:
        weights.update(state("decoder_layer.", dec))

    # --- the real modules (forward + autograd) ---
    src_ref = inputs["src"].clone().requires_grad_(True)
    mem_ref = enc(src_ref, src_mask=masks.get("src_mask"),
                  src_key_padding_mask=masks.get("src_key_padding_mask"))
    final_ref = mem_ref
    tgt_ref = None
    if dec is not None:
        tgt_ref = inputs["tgt"].clone().requires_grad_(True)
        final_ref = dec(tgt_ref, mem_ref, tgt_mask=masks.get("tgt_mask"),
                        memory_mask=masks.get("memory_mask"),
                        tgt_key_padding_mask=masks.get("tgt_key_padding_mask"),
                        memory_key_padding_mask=masks.get("memory_key_padding_mask"))
    R = torch.randn(final_ref.shape, generator=loss_gen)
    loss_ref = (final_ref * R).sum()
    loss_ref.backward()
    ref_grads = {"encoder_layer." + n: p.grad for n, p in enc.named_parameters()}
    if dec is not None:
        ref_grads.update({"decoder_layer." + n: p.grad for n, p in dec.named_parameters()})

    # --- the re-implementation ---
    params = {k: v.clone().requires_grad_(True) for k, v in weights.items()}
    rec = TL.Recorder()
    src = inputs["src"].clone().requires_grad_(True)
    mem = TL.encoder_layer(rec, "encoder_layer", TL._sub(params, "encoder_layer."), cfg, src,
                           masks.get("src_mask"), masks.get("src_key_padding_mask"))
    final = mem
    tgt = None
    if dec is not None:
        tgt = inputs["tgt"].clone().requires_grad_(True)
        final = TL.decoder_layer(rec, "decoder_layer", TL._sub(params, "decoder_layer."), cfg, tgt,
                                 mem, masks.get("tgt_mask"), masks.get("memory_mask"),
                                 masks.get("tgt_key_padding_mask"),
                                 masks.get("memory_key_padding_mask"))
    loss = (final * R).sum()
    loss.backward()

    dmax = compare(case + " encoder_layer.out", mem, mem_ref)
    if dec is not None:
        dmax = max(dmax, compare(case + " decoder_layer.out", final, final_ref))
    gmax = 0.0
    for n, g in ref_grads.items():
        gmax = max(gmax, compare(case + " grad." + n, params[n].grad, g))
    gmax = max(gmax, compare(case + " grad.src", src.grad, src_ref.grad))
    if dec is not None:
        gmax = max(gmax, compare(case + " grad.tgt", tgt.grad, tgt_ref.grad))
    # NaN-aware bit equality of outputs (NaN == NaN)
    def bits(a, b):
        a, b = a.detach(), b.detach()
        return torch.equal(torch.nan_to_num(a, nan=7.0), torch.nan_to_num(b, nan=7.0)) and \
            torch.equal(torch.isnan(a), torch.isnan(b))
    out_exact = bits(mem, mem_ref) and (dec is None or bits(final, final_ref))
    grads_exact = all(bits(params[n].grad, g) for n, g in ref_grads.items())

    trace = rec.trace()
    trace["encoder_layer.out"] = mem_ref.detach().clone()
    if dec is not None:
        trace["decoder_layer.out"] = final_ref.detach().clone()
    grads = {"loss": loss.detach().clone(), "loss.weight": R}
    for n in weights:
        grads["grad." + n] = params[n].grad.detach().clone()
    grads["grad.src"] = src.grad.detach().clone()
    if dec is not None:
        grads["grad.tgt"] = tgt.grad.detach().clone()
    grads.update(rec.grads())
    # the modules' outputs, in PyTorch's layout: d loss / d out
    grads["grad.encoder_layer.out"] = mem.grad.detach().clone()
    if dec is not None:
        assert torch.equal(final.grad, R)
        grads["grad.decoder_layer.out"] = final.grad.detach().clone()
    else:
        assert torch.equal(mem.grad, R)

    write_json(case + ".config.json", cfg)
    write_st(case + ".weights.safetensors", weights, {"stepformer.config": json.dumps(cfg)})
    ins = dict(inputs)
    for k, m in masks.items():
        ins[k] = m
    write_st(case + ".inputs.safetensors", ins, {"stepformer.case": case})
    write_st(case + ".trace.safetensors", trace,
             {"stepformer.case": case})
    write_st(case + ".grads.safetensors", grads,
             {"stepformer.case": case})
    report.append("%-18s out: %s (max |diff| %.1e)  param grads: %s (max |diff| %.1e)  NaNs in out: %d"
                  % (case, "bit-exact" if out_exact else "close", dmax,
                     "bit-exact" if grads_exact else "close", gmax,
                     int(torch.isnan(final_ref).sum())))
    return trace, grads


def causal(n):
    m = nn.Transformer.generate_square_subsequent_mask(n)
    assert m.dtype == torch.float32 and torch.isinf(m).sum() == n * (n - 1) // 2
    return m


def make_pair(cfg, seed):
    torch.manual_seed(seed)
    enc = nn.TransformerEncoderLayer(**layer_kwargs(cfg))
    dec = nn.TransformerDecoderLayer(**layer_kwargs(cfg)) if cfg["decoder_layer"] else None
    gen = torch.Generator().manual_seed(seed + 1000)
    randomize(enc, gen)
    if dec is not None:
        randomize(dec, gen)
    return enc, dec, gen


def seq_inputs(gen, cfg, B, S, T):
    D = cfg["d_model"]
    src = torch.randn(S, B, D, generator=gen)
    tgt = torch.randn(T, B, D, generator=gen)
    if cfg["batch_first"]:
        src, tgt = src.transpose(0, 1).contiguous(), tgt.transpose(0, 1).contiguous()
    return {"src": src, "tgt": tgt}


def case_seed004():
    # seed 004, in its order: torch.manual_seed(42) (first cell), then randn, then the layer
    torch.manual_seed(42)
    x = torch.randn(3, 1, 4)
    enc = nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0)
    cfg = config(4, 2, 8, decoder_layer=False)
    assert layer_kwargs(cfg)["activation"] == "relu"
    assert np.allclose(x.numpy(), SEED004_INPUT, atol=0.5e-4 + 1e-7), "seed 004's input differs"
    trace, _ = run_case("seed004", cfg, enc, None, {"src": x}, {},
                        torch.Generator().manual_seed(4004))
    out = trace["encoder_layer.out"].numpy()
    assert np.array_equal(np.round(out, 4), np.array(SEED004_OUT, dtype=np.float32).round(4)), out
    # the seed's hand-made LayerNorm after the first residual ("normalized"); trace is batch-first
    n1 = trace["encoder_layer.norm1"].transpose(0, 1).numpy()
    assert np.array_equal(np.round(n1, 4), np.array(SEED004_NORM1, dtype=np.float32).round(4)), n1


def case_pair(case, seed, **kw):
    cfg = config(8, 2, 16, **kw)
    enc, dec, gen = make_pair(cfg, seed)
    B, S, T = 2, 2, 3
    ins = seq_inputs(gen, cfg, B, S, T)
    return run_case(case, cfg, enc, dec, ins, {"tgt_mask": causal(T)}, gen), (enc, dec, ins)


def case_batch_first(seq_first_trace, seq_first_models):
    """Case 2's weights and inputs with batch_first=True: every trace tensor must come out
    identical to pair_post_relu's (the trace is batch-first either way)."""
    cfg = config(8, 2, 16, batch_first=True)
    enc0, dec0, ins0 = seq_first_models
    enc = nn.TransformerEncoderLayer(**layer_kwargs(cfg))
    dec = nn.TransformerDecoderLayer(**layer_kwargs(cfg))
    enc.load_state_dict(enc0.state_dict())
    dec.load_state_dict(dec0.state_dict())
    ins = {k: v.transpose(0, 1).contiguous() for k, v in ins0.items()}
    T = ins["tgt"].shape[1]
    trace, _ = run_case("batch_first", cfg, enc, dec, ins, {"tgt_mask": causal(T)},
                        torch.Generator().manual_seed(2 + 1000))
    worst = 0.0
    for k, v in trace.items():
        w = seq_first_trace[k]
        if k.endswith(".out"):
            w = w.transpose(0, 1)
        worst = max(worst, compare("batch_first vs pair_post_relu " + k, v, w))
    report.append("batch_first vs pair_post_relu: every trace tensor within %.1e" % worst)


def case_key_padding():
    cfg = config(4, 2, 8)  # seed 004's size
    enc, dec, gen = make_pair(cfg, 5)
    B, S, T = 3, 4, 3
    ins = seq_inputs(gen, cfg, B, S, T)
    src_kpm = torch.zeros(B, S, dtype=torch.bool)
    src_kpm[1, 1] = True  # a pad in the middle of the sentence
    src_kpm[1, 3] = True
    tgt_kpm = torch.zeros(B, T, dtype=torch.bool)
    tgt_kpm[1, 1] = True  # key 0 stays visible, so no causal row is fully masked
    masks = {"tgt_mask": causal(T), "src_key_padding_mask": src_kpm,
             "tgt_key_padding_mask": tgt_kpm, "memory_key_padding_mask": src_kpm.clone()}
    trace, _ = run_case("key_padding", cfg, enc, dec, ins, masks, gen)
    # row 1's padded keys get no attention anywhere, rows 0 and 2 attend everywhere they may
    for p, kpm in (("encoder_layer.self_attn", src_kpm), ("decoder_layer.self_attn", tgt_kpm),
                   ("decoder_layer.multihead_attn", src_kpm)):
        a = trace[p + ".attn"]
        assert torch.all(a[1][:, :, kpm[1]] == 0), p
        assert torch.all(torch.isinf(trace[p + ".mask"][1][:, :, kpm[1]])), p


def case_fully_masked_row():
    cfg = config(4, 2, 8, decoder_layer=False)  # seed 004's size
    enc, _, gen = make_pair(cfg, 6)
    B, S = 2, 4
    src = torch.randn(S, B, cfg["d_model"], generator=gen)
    src_mask = torch.zeros(S, S, dtype=torch.bool)
    src_mask[0, 3] = True
    src_mask[2, :] = True  # query 2 may attend to nothing
    trace, grads = run_case("fully_masked_row", cfg, enc, None, {"src": src}, {"src_mask": src_mask},
                            gen)
    out = trace["encoder_layer.out"]
    nan_rows = torch.isnan(out).all(dim=-1)  # [S, B]
    assert torch.equal(nan_rows, torch.tensor([[False, False], [False, False], [True, True],
                                               [False, False]])), nan_rows
    assert not torch.isnan(out[~nan_rows]).any()
    a = trace["encoder_layer.self_attn.attn"]
    assert torch.isnan(a[:, :, 2, :]).all() and not torch.isnan(a[:, :, [0, 1, 3], :]).any()
    report.append("fully_masked_row: attn row 2 NaN (softmax of all -inf), out rows NaN at "
                  "position 2 only; loss %s; NaN param grads: %d of %d"
                  % (float(grads["loss"]),
                     sum(int(torch.isnan(v).any()) for k, v in grads.items()
                         if k.startswith("grad.encoder_layer.") and k[5:] in dict(enc.named_parameters(prefix="encoder_layer"))),
                     len(list(enc.parameters()))))


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    os.makedirs(OUT, exist_ok=True)
    case_seed004()
    (t2, _), models2 = case_pair("pair_post_relu", 2)
    trace = t2
    assert torch.equal(trace["encoder_layer.norm2"], trace["encoder_layer.out"].transpose(0, 1))
    case_pair("pair_pre_gelu", 3, activation="gelu", layer_norm_eps=1e-6, norm_first=True)
    case_batch_first(t2, models2)
    case_key_padding()
    case_fully_masked_row()
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in written)
    assert total < 200 * 1024, total
    import torch_seq2seq  # "structure": "seq2seq" (its own files, its own size check)
    torch_seq2seq.main(sys.modules[__name__])
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in written)
    for line in report:
        print(line)
    print("wrote %d files to %s (%d bytes)" % (len(written), OUT, total))


if __name__ == "__main__":
    main()
