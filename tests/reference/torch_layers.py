"""PyTorch 1.13's nn.TransformerEncoderLayer / nn.TransformerDecoderLayer, re-done step by step.

Follows the slow (Python) path of PyTorch 1.13 operation for operation, in the same tensor
layouts, so every number is the one the real modules compute:
  * nn.MultiheadAttention: batch_first inputs are transposed to seq-first first; the packed
    in-projection is one linear for self-attention (then split in three) and, for
    encoder-decoder attention, one linear for q (rows 0..D-1) and one for k|v (rows D..3D-1);
  * q is divided by sqrt(head_dim) BEFORE q @ k^T (as F.multi_head_attention_forward does);
  * masks: key_padding_mask (bool, True = ignore) is merged into attn_mask (a bool attn_mask by
    logical_or, a float one by masked_fill(-inf)); a bool result becomes an additive float mask
    (0 / -inf) and the masked scores are mask + scores (PyTorch fuses this as baddbmm);
  * softmax over the keys, attn @ v, heads merged back, out_proj;
  * the layers: post-norm x = norm(x + block(x)), pre-norm x = x + block(norm(x)).
Dropout is not modelled: the fixtures use dropout 0 (PyTorch then runs identity dropouts).

Every intermediate is recorded with a function that turns it into the trace layout
(batch-first); `Recorder.grads()` maps the retained gradients the same way.
"""
import math

import torch
import torch.nn.functional as F


class Recorder:
    def __init__(self):
        self.items = []  # (name, tensor as computed, to-trace-layout function)

    def __call__(self, name, t, fn=lambda x: x):
        assert all(n != name for n, _, _ in self.items), name
        if t.requires_grad:
            t.retain_grad()
        self.items.append((name, t, fn))
        return t

    def trace(self):
        return {n: fn(t.detach()).contiguous() for n, t, fn in self.items}

    def grads(self):
        out = {}
        for n, t, fn in self.items:
            if t.requires_grad and t.grad is not None:
                out["grad." + n] = fn(t.grad).contiguous()
        return out


def _seq_to_bf(t):  # [L, B, ...] -> [B, L, ...]
    return t.transpose(0, 1)


def multi_head_attention(rec, p, params, query, key, value, nhead, batch_first,
                         attn_mask=None, key_padding_mask=None):
    """F.multi_head_attention_forward as nn.MultiheadAttention calls it (training mode,
    dropout 0, need_weights=False). `params` maps 'in_proj_weight' etc. to tensors.
    Records P.Q, P.K, P.V, P.scores, P.mask, P.masked_scores, P.attn, P.context, P.out_proj."""
    if batch_first:
        if key is value:
            if query is key:
                query = key = value = query.transpose(1, 0)
            else:
                query, key = [x.transpose(1, 0) for x in (query, key)]
                value = key
        else:
            query, key, value = [x.transpose(1, 0) for x in (query, key, value)]
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    head_dim = embed_dim // nhead
    assert head_dim * nhead == embed_dim
    w, b = params["in_proj_weight"], params["in_proj_bias"]
    E = embed_dim
    if key is value:
        if query is key:  # self-attention: one packed projection
            q, k, v = F.linear(query, w, b).chunk(3, dim=-1)
        else:  # encoder-decoder attention: q alone, k|v packed
            w_q, w_kv = w.split([E, E * 2])
            b_q, b_kv = b.split([E, E * 2])
            q = F.linear(query, w_q, b_q)
            k, v = F.linear(key, w_kv, b_kv).chunk(2, dim=-1)
    else:
        w_q, w_k, w_v = w.chunk(3)
        b_q, b_k, b_v = b.chunk(3)
        q, k, v = F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v, b_v)

    # the additive mask PyTorch ends up with
    if attn_mask is not None:
        if attn_mask.dtype == torch.uint8:
            attn_mask = attn_mask.to(torch.bool)
        if attn_mask.dim() == 2:
            assert attn_mask.shape == (tgt_len, src_len)
            attn_mask = attn_mask.unsqueeze(0)
        else:
            assert attn_mask.shape == (bsz * nhead, tgt_len, src_len)
    if key_padding_mask is not None:
        assert key_padding_mask.shape == (bsz, src_len)
        kpm = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, nhead, -1, -1) \
            .reshape(bsz * nhead, 1, src_len)
        if attn_mask is None:
            attn_mask = kpm
        elif attn_mask.dtype == torch.bool:
            attn_mask = attn_mask.logical_or(kpm)
        else:
            attn_mask = attn_mask.masked_fill(kpm, float("-inf"))
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        new_mask = torch.zeros_like(attn_mask, dtype=q.dtype)
        new_mask.masked_fill_(attn_mask, float("-inf"))
        attn_mask = new_mask

    def heads(t, n):  # [B*H, n, hd] -> [B, H, n, hd]
        return t.view(bsz, nhead, n, head_dim)

    # [L, B, D] -> [B*H, L, hd], exactly PyTorch's reshapes
    rec(p + ".Q", q, lambda t: t.reshape(tgt_len, bsz, nhead, head_dim).permute(1, 2, 0, 3))
    rec(p + ".K", k, lambda t: t.reshape(src_len, bsz, nhead, head_dim).permute(1, 2, 0, 3))
    rec(p + ".V", v, lambda t: t.reshape(src_len, bsz, nhead, head_dim).permute(1, 2, 0, 3))
    q = q.contiguous().view(tgt_len, bsz * nhead, head_dim).transpose(0, 1)
    k = k.contiguous().view(src_len, bsz * nhead, head_dim).transpose(0, 1)
    v = v.contiguous().view(src_len, bsz * nhead, head_dim).transpose(0, 1)

    q_scaled = q / math.sqrt(head_dim)
    scores = rec(p + ".scores", torch.bmm(q_scaled, k.transpose(-2, -1)),
                 lambda t: t.view(bsz, nhead, tgt_len, src_len))
    if attn_mask is not None:
        full = attn_mask.expand(bsz * nhead, tgt_len, src_len)
        rec(p + ".mask", full, lambda t: t.reshape(bsz, nhead, tgt_len, src_len))
        masked = rec(p + ".masked_scores", attn_mask + scores,
                     lambda t: t.view(bsz, nhead, tgt_len, src_len))
        # PyTorch computes this in one call; the split into scores + mask is bit-identical
        fused = torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1)).detach()
        assert torch.equal(fused, masked.detach()), p + ": baddbmm differs from mask + scores"
    else:
        # no mask: masked_scores are the scores (the same tensor, the same gradient)
        rec(p + ".mask", torch.zeros(bsz * nhead, tgt_len, src_len, dtype=q.dtype),
            lambda t: t.view(bsz, nhead, tgt_len, src_len))
        masked = scores
        rec(p + ".masked_scores", masked, lambda t: t.view(bsz, nhead, tgt_len, src_len))
    attn = rec(p + ".attn", F.softmax(masked, dim=-1), lambda t: t.view(bsz, nhead, tgt_len, src_len))
    ctx = rec(p + ".context", torch.bmm(attn, v), lambda t: heads(t, tgt_len))
    out = ctx.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
    out = F.linear(out, params["out_proj.weight"], params["out_proj.bias"])
    out = out.view(tgt_len, bsz, out.size(1))
    rec(p + ".out_proj", out, _seq_to_bf)
    if batch_first:
        return out.transpose(1, 0)
    return out


def _sub(params, prefix):
    n = len(prefix)
    return {k[n:]: v for k, v in params.items() if k.startswith(prefix)}


def _act(cfg):
    return {"relu": F.relu, "gelu": F.gelu}[cfg["activation"]]


def _ln(params, name, x, cfg):
    return F.layer_norm(x, (cfg["d_model"],), params[name + ".weight"], params[name + ".bias"],
                        cfg["layer_norm_eps"])


def encoder_layer(rec, L, params, cfg, src, src_mask=None, src_key_padding_mask=None):
    """nn.TransformerEncoderLayer.forward (slow path). params: names without the L. prefix."""
    assert cfg["dropout"] == 0.0
    bf = (lambda t: t) if cfg["batch_first"] else _seq_to_bf
    nh, bfirst = cfg["nhead"], cfg["batch_first"]
    sa = _sub(params, "self_attn.")

    def ff(x):
        h = rec(L + ".linear1", F.linear(x, params["linear1.weight"], params["linear1.bias"]), bf)
        h = rec(L + ".activation", _act(cfg)(h), bf)
        return rec(L + ".linear2", F.linear(h, params["linear2.weight"], params["linear2.bias"]), bf)

    x = src
    if cfg["norm_first"]:
        n1 = rec(L + ".norm1", _ln(params, "norm1", x, cfg), bf)
        a = multi_head_attention(rec, L + ".self_attn", sa, n1, n1, n1, nh, bfirst, src_mask,
                                 src_key_padding_mask)
        x = rec(L + ".add1", x + a, bf)
        n2 = rec(L + ".norm2", _ln(params, "norm2", x, cfg), bf)
        x = rec(L + ".add2", x + ff(n2), bf)
    else:
        a = multi_head_attention(rec, L + ".self_attn", sa, x, x, x, nh, bfirst, src_mask,
                                 src_key_padding_mask)
        x = rec(L + ".add1", x + a, bf)
        x = rec(L + ".norm1", _ln(params, "norm1", x, cfg), bf)
        x = rec(L + ".add2", x + ff(x), bf)
        x = rec(L + ".norm2", _ln(params, "norm2", x, cfg), bf)
    return x


def decoder_layer(rec, L, params, cfg, tgt, memory, tgt_mask=None, memory_mask=None,
                  tgt_key_padding_mask=None, memory_key_padding_mask=None):
    """nn.TransformerDecoderLayer.forward. params: names without the L. prefix."""
    assert cfg["dropout"] == 0.0
    bf = (lambda t: t) if cfg["batch_first"] else _seq_to_bf
    nh, bfirst = cfg["nhead"], cfg["batch_first"]
    sa, ca = _sub(params, "self_attn."), _sub(params, "multihead_attn.")

    def ff(x):
        h = rec(L + ".linear1", F.linear(x, params["linear1.weight"], params["linear1.bias"]), bf)
        h = rec(L + ".activation", _act(cfg)(h), bf)
        return rec(L + ".linear2", F.linear(h, params["linear2.weight"], params["linear2.bias"]), bf)

    x = tgt
    if cfg["norm_first"]:
        n1 = rec(L + ".norm1", _ln(params, "norm1", x, cfg), bf)
        a = multi_head_attention(rec, L + ".self_attn", sa, n1, n1, n1, nh, bfirst, tgt_mask,
                                 tgt_key_padding_mask)
        x = rec(L + ".add1", x + a, bf)
        n2 = rec(L + ".norm2", _ln(params, "norm2", x, cfg), bf)
        a = multi_head_attention(rec, L + ".multihead_attn", ca, n2, memory, memory, nh, bfirst,
                                 memory_mask, memory_key_padding_mask)
        x = rec(L + ".add2", x + a, bf)
        n3 = rec(L + ".norm3", _ln(params, "norm3", x, cfg), bf)
        x = rec(L + ".add3", x + ff(n3), bf)
    else:
        a = multi_head_attention(rec, L + ".self_attn", sa, x, x, x, nh, bfirst, tgt_mask,
                                 tgt_key_padding_mask)
        x = rec(L + ".add1", x + a, bf)
        x = rec(L + ".norm1", _ln(params, "norm1", x, cfg), bf)
        a = multi_head_attention(rec, L + ".multihead_attn", ca, x, memory, memory, nh, bfirst,
                                 memory_mask, memory_key_padding_mask)
        x = rec(L + ".add2", x + a, bf)
        x = rec(L + ".norm2", _ln(params, "norm2", x, cfg), bf)
        x = rec(L + ".add3", x + ff(x), bf)
        x = rec(L + ".norm3", _ln(params, "norm3", x, cfg), bf)
    return x
