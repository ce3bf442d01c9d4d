"""Seed 003's model: the Transformer of the `attention-is-all-you-need-pytorch` project
(jadore801120), written again here (our own code) with its exact semantics, for issue 18.

Two versions of the same computation, which make_aiayn_fixtures.py runs side by side and asserts
bit-identical (logits, loss, every parameter gradient):

  * `Transformer` (with `Encoder`, `Decoder`, `EncoderLayer`, `DecoderLayer`,
    `MultiHeadAttention`, `ScaledDotProductAttention`, `PositionwiseFeedForward`,
    `PositionalEncoding`): plain nn.Modules built the way the project builds them -- the same
    module tree (so the same state_dict names), the same construction order (so the same random
    numbers for a seed), xavier_uniform_ on every parameter with more than one dimension BEFORE
    the weights are tied, the same forward with its in-place `*=` / `+=`;
  * `forward_steps(rec, params, cfg, src_seq, trg_seq)`: the same forward from a flat
    {state_dict name: tensor} mapping, one operation per line, every intermediate handed to
    `rec` under its trace name (batch-first). Tied weights are one tensor under several names.

Semantics (the project's, dropout left out: the fixtures use 0):
  * masks are 1 = keep: get_pad_mask(seq) = (seq != pad).unsqueeze(-2) [B,1,L];
    get_subsequent_mask = lower triangle incl. the diagonal [1,T,T]; trg_mask = pad & subsequent;
  * attention: attn = (q / temperature) @ k^T, temperature = d_k ** 0.5 (the QUERY is divided,
    before the product), masked_fill(mask == 0, -1e9), softmax over the keys, (dropout), @ v;
  * multi-head: w_qs, w_ks, w_vs, fc: Linear without bias; heads split as view(B, L, H, d) then
    transpose(1, 2); merged back as transpose(1, 2).contiguous().view(B, L, H * d_v);
    out = LayerNorm_eps1e-6(dropout(fc(.)) + residual);
  * FFN: LayerNorm_eps1e-6(dropout(w_2(relu(w_1(x)))) + x), w_1/w_2 with bias;
  * embeddings: nn.Embedding(padding_idx=pad); `x *= d_model ** 0.5` when scale_emb; then
    x + pos_table[:, :L] (buffer, no gradient), dropout, LayerNorm eps 1e-6, the layer stack
    (the encoder's and the decoder's final LayerNorm come BEFORE their first layer);
  * logits = trg_word_prj(dec_out) (no bias), `*= d_model ** -0.5` when scale_prj;
  * scale_emb = (scale_emb_or_prj == 'emb') and scale_prj = (scale_emb_or_prj == 'prj') take
    effect ONLY when trg_emb_prj_weight_sharing is on (otherwise neither scale is applied);
  * cal_loss(smoothing=True): eps 0.1, target distribution 1 - eps on the gold class and
    eps / (n_class - 1) on every other class (the pad class included), minus the sum of
    target * log_softmax per token, summed over the non-pad targets (no averaging).
"""
import json

import numpy as np
import torch

from fixture_io import Recorder  # noqa: F401  (the step-by-step version records with it)
from torch import nn
import torch.nn.functional as F

# the Transformer constructor's defaults (d_word_vec = d_model)
DEFAULTS = {
    "d_model": 512, "d_inner": 2048, "n_layers": 6, "n_head": 8, "d_k": 64, "d_v": 64,
    "dropout": 0.1, "n_position": 200, "trg_emb_prj_weight_sharing": True,
    "emb_src_trg_weight_sharing": True, "scale_emb_or_prj": "prj",
}
LN_EPS = 1e-6
SMOOTHING_EPS = 0.1


def with_defaults(cfg):
    out = dict(DEFAULTS)
    out.update(cfg)
    return out


def scales(cfg):
    """(scale_emb, scale_prj) as the project derives them from its options."""
    mode = cfg["scale_emb_or_prj"]
    assert mode in ("emb", "prj", "none"), mode
    tied = cfg["trg_emb_prj_weight_sharing"]
    return (tied and mode == "emb"), (tied and mode == "prj")


def pad_ids(cfg):
    return cfg["src_vocab"].index(cfg["pad"]), cfg["tgt_vocab"].index(cfg["pad"])


# ----------------------------------------------------------------------- positional encoding

def sinusoid_table_f64(n_position, d_hid):
    """The project's table in float64, element by element as it computes it: angle
    pos / 10000 ** (2 * (j // 2) / d_hid) (np.power of Python numbers), then np.sin on the
    even columns and np.cos on the odd ones of the whole array. [n_position, d_hid] float64."""
    rows = []
    for pos in range(n_position):
        rows.append([pos / np.power(10000, 2 * (j // 2) / d_hid) for j in range(d_hid)])
    table = np.array(rows)
    assert table.dtype == np.float64
    table[:, 0::2] = np.sin(table[:, 0::2])
    table[:, 1::2] = np.cos(table[:, 1::2])
    return table


def pos_table(n_position, d_hid):
    """The buffer: the float64 table rounded to float32 (torch.FloatTensor), [1, n, d]."""
    return torch.FloatTensor(sinusoid_table_f64(n_position, d_hid)).unsqueeze(0)


# ---------------------------------------------------------------------------------- masks

def get_pad_mask(seq, pad_idx):
    """[B, L] ids -> [B, 1, L] bool, True = a real token (keep)."""
    return (seq != pad_idx).unsqueeze(-2)


def get_subsequent_mask(seq):
    """[B, T] -> [1, T, T] bool, True on and below the diagonal (keep)."""
    n = seq.size(1)
    upper = torch.triu(torch.ones((1, n, n), device=seq.device), diagonal=1)
    return (1 - upper).bool()


# ------------------------------------------------------------- the modules, the project's way

class ScaledDotProductAttention(nn.Module):
    def __init__(self, temperature, attn_dropout=0.1):
        super().__init__()
        self.temperature = temperature
        self.dropout = nn.Dropout(attn_dropout)

    def forward(self, q, k, v, mask=None):
        scores = torch.matmul(q / self.temperature, k.transpose(2, 3))
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = self.dropout(F.softmax(scores, dim=-1))
        return torch.matmul(weights, v), weights


class MultiHeadAttention(nn.Module):
    def __init__(self, n_head, d_model, d_k, d_v, dropout=0.1):
        super().__init__()
        self.n_head, self.d_k, self.d_v = n_head, d_k, d_v
        self.w_qs = nn.Linear(d_model, n_head * d_k, bias=False)
        self.w_ks = nn.Linear(d_model, n_head * d_k, bias=False)
        self.w_vs = nn.Linear(d_model, n_head * d_v, bias=False)
        self.fc = nn.Linear(n_head * d_v, d_model, bias=False)
        self.attention = ScaledDotProductAttention(temperature=d_k ** 0.5)
        self.dropout = nn.Dropout(dropout)
        self.layer_norm = nn.LayerNorm(d_model, eps=LN_EPS)

    def forward(self, q, k, v, mask=None):
        b, lq, lk, lv = q.size(0), q.size(1), k.size(1), v.size(1)
        h = self.n_head
        residual = q
        qh = self.w_qs(q).view(b, lq, h, self.d_k).transpose(1, 2)
        kh = self.w_ks(k).view(b, lk, h, self.d_k).transpose(1, 2)
        vh = self.w_vs(v).view(b, lv, h, self.d_v).transpose(1, 2)
        if mask is not None:
            mask = mask.unsqueeze(1)  # a head axis to broadcast over
        ctx, weights = self.attention(qh, kh, vh, mask=mask)
        x = ctx.transpose(1, 2).contiguous().view(b, lq, -1)
        x = self.dropout(self.fc(x))
        x += residual
        return self.layer_norm(x), weights


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_in, d_hid, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Linear(d_in, d_hid)
        self.w_2 = nn.Linear(d_hid, d_in)
        self.layer_norm = nn.LayerNorm(d_in, eps=LN_EPS)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        residual = x
        y = self.dropout(self.w_2(F.relu(self.w_1(x))))
        y += residual
        return self.layer_norm(y)


class EncoderLayer(nn.Module):
    def __init__(self, d_model, d_inner, n_head, d_k, d_v, dropout=0.1):
        super().__init__()
        self.slf_attn = MultiHeadAttention(n_head, d_model, d_k, d_v, dropout=dropout)
        self.pos_ffn = PositionwiseFeedForward(d_model, d_inner, dropout=dropout)

    def forward(self, x, slf_attn_mask=None):
        x, a = self.slf_attn(x, x, x, mask=slf_attn_mask)
        return self.pos_ffn(x), a


class DecoderLayer(nn.Module):
    def __init__(self, d_model, d_inner, n_head, d_k, d_v, dropout=0.1):
        super().__init__()
        self.slf_attn = MultiHeadAttention(n_head, d_model, d_k, d_v, dropout=dropout)
        self.enc_attn = MultiHeadAttention(n_head, d_model, d_k, d_v, dropout=dropout)
        self.pos_ffn = PositionwiseFeedForward(d_model, d_inner, dropout=dropout)

    def forward(self, y, memory, slf_attn_mask=None, dec_enc_attn_mask=None):
        y, a1 = self.slf_attn(y, y, y, mask=slf_attn_mask)
        y, a2 = self.enc_attn(y, memory, memory, mask=dec_enc_attn_mask)
        return self.pos_ffn(y), a1, a2


class PositionalEncoding(nn.Module):
    def __init__(self, d_hid, n_position=200):
        super().__init__()
        self.register_buffer("pos_table", pos_table(n_position, d_hid))

    def forward(self, x):
        return x + self.pos_table[:, :x.size(1)].clone().detach()


class Encoder(nn.Module):
    def __init__(self, n_src_vocab, d_word_vec, n_layers, n_head, d_k, d_v, d_model, d_inner,
                 pad_idx, dropout=0.1, n_position=200, scale_emb=False):
        super().__init__()
        self.src_word_emb = nn.Embedding(n_src_vocab, d_word_vec, padding_idx=pad_idx)
        self.position_enc = PositionalEncoding(d_word_vec, n_position=n_position)
        self.dropout = nn.Dropout(p=dropout)
        self.layer_stack = nn.ModuleList(
            [EncoderLayer(d_model, d_inner, n_head, d_k, d_v, dropout=dropout)
             for _ in range(n_layers)])
        self.layer_norm = nn.LayerNorm(d_model, eps=LN_EPS)
        self.scale_emb, self.d_model = scale_emb, d_model

    def forward(self, src_seq, src_mask):
        x = self.src_word_emb(src_seq)
        if self.scale_emb:
            x *= self.d_model ** 0.5
        x = self.layer_norm(self.dropout(self.position_enc(x)))
        for layer in self.layer_stack:
            x, _ = layer(x, slf_attn_mask=src_mask)
        return x


class Decoder(nn.Module):
    def __init__(self, n_trg_vocab, d_word_vec, n_layers, n_head, d_k, d_v, d_model, d_inner,
                 pad_idx, n_position=200, dropout=0.1, scale_emb=False):
        super().__init__()
        self.trg_word_emb = nn.Embedding(n_trg_vocab, d_word_vec, padding_idx=pad_idx)
        self.position_enc = PositionalEncoding(d_word_vec, n_position=n_position)
        self.dropout = nn.Dropout(p=dropout)
        self.layer_stack = nn.ModuleList(
            [DecoderLayer(d_model, d_inner, n_head, d_k, d_v, dropout=dropout)
             for _ in range(n_layers)])
        self.layer_norm = nn.LayerNorm(d_model, eps=LN_EPS)
        self.scale_emb, self.d_model = scale_emb, d_model

    def forward(self, trg_seq, trg_mask, memory, src_mask):
        y = self.trg_word_emb(trg_seq)
        if self.scale_emb:
            y *= self.d_model ** 0.5
        y = self.layer_norm(self.dropout(self.position_enc(y)))
        for layer in self.layer_stack:
            y, _, _ = layer(y, memory, slf_attn_mask=trg_mask, dec_enc_attn_mask=src_mask)
        return y


class Transformer(nn.Module):
    def __init__(self, n_src_vocab, n_trg_vocab, src_pad_idx, trg_pad_idx, d_word_vec=512,
                 d_model=512, d_inner=2048, n_layers=6, n_head=8, d_k=64, d_v=64, dropout=0.1,
                 n_position=200, trg_emb_prj_weight_sharing=True, emb_src_trg_weight_sharing=True,
                 scale_emb_or_prj="prj"):
        super().__init__()
        self.src_pad_idx, self.trg_pad_idx = src_pad_idx, trg_pad_idx
        scale_emb, self.scale_prj = scales({"scale_emb_or_prj": scale_emb_or_prj,
                                            "trg_emb_prj_weight_sharing": trg_emb_prj_weight_sharing})
        self.d_model = d_model
        self.encoder = Encoder(n_src_vocab=n_src_vocab, n_position=n_position,
                               d_word_vec=d_word_vec, d_model=d_model, d_inner=d_inner,
                               n_layers=n_layers, n_head=n_head, d_k=d_k, d_v=d_v,
                               pad_idx=src_pad_idx, dropout=dropout, scale_emb=scale_emb)
        self.decoder = Decoder(n_trg_vocab=n_trg_vocab, n_position=n_position,
                               d_word_vec=d_word_vec, d_model=d_model, d_inner=d_inner,
                               n_layers=n_layers, n_head=n_head, d_k=d_k, d_v=d_v,
                               pad_idx=trg_pad_idx, dropout=dropout, scale_emb=scale_emb)
        self.trg_word_prj = nn.Linear(d_model, n_trg_vocab, bias=False)
        # every matrix (embeddings included: their pad rows stop being zero), before tying
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        assert d_model == d_word_vec
        if trg_emb_prj_weight_sharing:
            self.trg_word_prj.weight = self.decoder.trg_word_emb.weight
        if emb_src_trg_weight_sharing:
            assert n_src_vocab == n_trg_vocab
            self.encoder.src_word_emb.weight = self.decoder.trg_word_emb.weight

    def forward(self, src_seq, trg_seq):
        src_mask = get_pad_mask(src_seq, self.src_pad_idx)
        trg_mask = get_pad_mask(trg_seq, self.trg_pad_idx) & get_subsequent_mask(trg_seq)
        memory = self.encoder(src_seq, src_mask)
        y = self.decoder(trg_seq, trg_mask, memory, src_mask)
        logits = self.trg_word_prj(y)
        if self.scale_prj:
            logits *= self.d_model ** -0.5
        return logits.view(-1, logits.size(2))


def build_transformer(cfg):
    """The project's Transformer from a Stepformer config (missing keys: its defaults)."""
    c = with_defaults(cfg)
    src_pad, trg_pad = pad_ids(c)
    return Transformer(len(c["src_vocab"]), len(c["tgt_vocab"]), src_pad, trg_pad,
                       d_word_vec=c["d_model"], d_model=c["d_model"], d_inner=c["d_inner"],
                       n_layers=c["n_layers"], n_head=c["n_head"], d_k=c["d_k"], d_v=c["d_v"],
                       dropout=c["dropout"], n_position=c["n_position"],
                       trg_emb_prj_weight_sharing=c["trg_emb_prj_weight_sharing"],
                       emb_src_trg_weight_sharing=c["emb_src_trg_weight_sharing"],
                       scale_emb_or_prj=c["scale_emb_or_prj"])


# -------------------------------------------------------------------------------- the loss

def cal_loss(pred, gold, trg_pad_idx):
    """The project's cal_loss with smoothing=True. pred [N, V] logits, gold [N] ids.
    Returns (loss = sum over non-pad targets, per-target loss [N] with 0 at pads)."""
    gold = gold.contiguous().view(-1)
    n_class = pred.size(1)
    target = torch.zeros_like(pred).scatter(1, gold.view(-1, 1), 1)
    target = target * (1 - SMOOTHING_EPS) + (1 - target) * SMOOTHING_EPS / (n_class - 1)
    log_p = F.log_softmax(pred, dim=1)
    keep = gold.ne(trg_pad_idx)
    per = -(target * log_p).sum(dim=1)
    loss = per.masked_select(keep).sum()
    return loss, per.detach().masked_fill(~keep, 0.0)


class ScheduledOptim:
    """The project's learning-rate wrapper: before every inner step, step n (from 1) gets
    lr = lr_mul * d_model ** -0.5 * min(n ** -0.5, n * n_warmup_steps ** -1.5)."""

    def __init__(self, optimizer, lr_mul, d_model, n_warmup_steps):
        self._optimizer = optimizer
        self.lr_mul, self.d_model, self.n_warmup_steps = lr_mul, d_model, n_warmup_steps
        self.n_steps = 0

    def lr_at(self, n):
        return self.lr_mul * (self.d_model ** -0.5) * min(n ** (-0.5),
                                                          n * self.n_warmup_steps ** (-1.5))

    def step_and_update_lr(self):
        self.n_steps += 1
        lr = self.lr_at(self.n_steps)
        for group in self._optimizer.param_groups:
            group["lr"] = lr
        self._optimizer.step()
        return lr

    def zero_grad(self):
        self._optimizer.zero_grad()


def make_adam(params):
    return torch.optim.Adam(params, betas=(0.9, 0.98), eps=1e-09)


# --------------------------------------------------------------- the step-by-step version

def tied_names(cfg):
    """Lists of state_dict names that are one parameter."""
    src, trg, prj = "encoder.src_word_emb.weight", "decoder.trg_word_emb.weight", "trg_word_prj.weight"
    group = [trg]
    if cfg["trg_emb_prj_weight_sharing"]:
        group.append(prj)
    if cfg["emb_src_trg_weight_sharing"]:
        group.insert(0, src)
    return [group] if len(group) > 1 else []


def is_buffer(name):
    return name.endswith("position_enc.pos_table")


def make_params(weights, cfg, tie=True):
    """Leaf tensors for forward_steps. tie=True: tied names share one leaf (one gradient);
    tie=False: every name its own leaf (so each use's gradient can be seen alone)."""
    params = {k: v.detach().clone().requires_grad_(not is_buffer(k)) for k, v in weights.items()}
    if tie:
        for group in tied_names(cfg):
            for n in group[1:]:
                assert torch.equal(weights[n], weights[group[0]]), n
                params[n] = params[group[0]]
    return params


def _ln(params, name, x, D):
    return F.layer_norm(x, (D,), params[name + ".weight"], params[name + ".bias"], LN_EPS)


def _attention(rec, P, params, cfg, q_in, kv_in, mask):
    B, Lq, Lk = q_in.size(0), q_in.size(1), kv_in.size(1)
    H, dk, dv, D = cfg["n_head"], cfg["d_k"], cfg["d_v"], cfg["d_model"]
    q = rec(P + ".Q", F.linear(q_in, params[P + ".w_qs.weight"]).view(B, Lq, H, dk).transpose(1, 2))
    k = rec(P + ".K", F.linear(kv_in, params[P + ".w_ks.weight"]).view(B, Lk, H, dk).transpose(1, 2))
    v = rec(P + ".V", F.linear(kv_in, params[P + ".w_vs.weight"]).view(B, Lk, H, dv).transpose(1, 2))
    q_scaled = rec(P + ".q_scaled", q / (dk ** 0.5))
    scores = rec(P + ".scores", torch.matmul(q_scaled, k.transpose(2, 3)))
    masked = rec(P + ".masked_scores", scores.masked_fill(mask.unsqueeze(1) == 0, -1e9))
    attn = rec(P + ".attn", F.softmax(masked, dim=-1))
    ctx = rec(P + ".context", torch.matmul(attn, v))
    merged = ctx.transpose(1, 2).contiguous().view(B, Lq, H * dv)
    fc = rec(P + ".fc_out", F.linear(merged, params[P + ".fc.weight"]))
    res = rec(P + ".residual", fc + q_in)
    return rec(P + ".out", _ln(params, P + ".layer_norm", res, D))


def _ffn(rec, Fn, params, cfg, x):
    h = rec(Fn + ".hidden", F.linear(x, params[Fn + ".w_1.weight"], params[Fn + ".w_1.bias"]))
    r = rec(Fn + ".relu", F.relu(h))
    o = rec(Fn + ".fc_out", F.linear(r, params[Fn + ".w_2.weight"], params[Fn + ".w_2.bias"]))
    res = rec(Fn + ".residual", o + x)
    return rec(Fn + ".out", _ln(params, Fn + ".layer_norm", res, cfg["d_model"]))


def _embed(rec, side, emb, params, cfg, ids, pad, scale_emb):
    D = cfg["d_model"]
    x = F.embedding(ids, params[side + "." + emb + ".weight"], padding_idx=pad)
    if scale_emb:
        x = x * (D ** 0.5)
    x = rec(side + "." + emb + ".out", x)
    x = rec(side + ".position_enc.out",
            x + params[side + ".position_enc.pos_table"][:, :ids.size(1)])
    return rec(side + ".layer_norm.out", _ln(params, side + ".layer_norm", x, D))


def forward_steps(rec, params, cfg, src_seq, trg_seq):
    """The model's forward, one step per trace name. Returns logits [B, T, V]."""
    assert cfg["dropout"] == 0.0
    src_pad, trg_pad = pad_ids(cfg)
    scale_emb, scale_prj = scales(cfg)
    src_mask = rec("src_mask", get_pad_mask(src_seq, src_pad))
    trg_mask = rec("trg_mask", get_pad_mask(trg_seq, trg_pad) & get_subsequent_mask(trg_seq))
    x = _embed(rec, "encoder", "src_word_emb", params, cfg, src_seq, src_pad, scale_emb)
    for i in range(cfg["n_layers"]):
        L = "encoder.layer_stack.%d" % i
        x = _attention(rec, L + ".slf_attn", params, cfg, x, x, src_mask)
        x = _ffn(rec, L + ".pos_ffn", params, cfg, x)
    y = _embed(rec, "decoder", "trg_word_emb", params, cfg, trg_seq, trg_pad, scale_emb)
    for i in range(cfg["n_layers"]):
        L = "decoder.layer_stack.%d" % i
        y = _attention(rec, L + ".slf_attn", params, cfg, y, y, trg_mask)
        y = _attention(rec, L + ".enc_attn", params, cfg, y, x, src_mask)
        y = _ffn(rec, L + ".pos_ffn", params, cfg, y)
    logits = F.linear(y, params["trg_word_prj.weight"])
    if scale_prj:
        logits = logits * (cfg["d_model"] ** -0.5)
    logits = rec("trg_word_prj.logits", logits)
    rec("trg_word_prj.probs", F.softmax(logits, dim=-1))
    return logits


def config_json(cfg):
    return json.dumps(cfg)
