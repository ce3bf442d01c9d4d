"""The tutorial encoder-decoder Transformer (seed 001), parameterised by a config dict,
CPU / float32, recording every intermediate (batch-first) under stable trace names.

Differences from the tutorial (all deliberate, see tests/reference/README.md):
  * hyper-parameters come from `cfg` instead of globals (d_k, d_v, n_heads, d_model independent;
    attention scale uses cfg["d_k"]);
  * LayerNorm follows cfg["learn_layer_norm"] (default false): false is the tutorial's fresh
    nn.LayerNorm per call (F.layer_norm with no weight and bias: gamma=1, beta=0, nothing in the
    state_dict, nothing trained); true makes persistent submodules named `layer_norm` whose
    gamma/beta are parameters. `tutorial_layernorm=True/False` overrides the config;
  * pad mask uses the pad token's index in the key sequence's vocabulary (0 in the tutorial);
  * scores and masked_scores are separate tensors (the tutorial fills in place);
  * dropout (p = cfg["dropout"]) is only applied after the positional encoding.
"""
import math
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DEFAULT_MAX_LEN = 5000


def tutorial_config(**over):
    cfg = {
        "d_model": 512, "d_ff": 2048, "d_k": 64, "d_v": 64, "n_layers": 6, "n_heads": 8,
        "src_vocab": ["P", "ich", "mochte", "ein", "bier", "cola"],
        "tgt_vocab": ["P", "i", "want", "a", "beer", "coke", "S", "E", "."],
        "src_len": 5, "tgt_len": 6, "pad": "P", "bos": "S", "eos": "E",
        "layer_norm_eps": 1e-5, "dropout": 0.0, "learn_layer_norm": False,
    }
    cfg.update(over)
    return cfg


TUTORIAL_SENTENCES = [
    ["ich mochte ein bier P", "S i want a beer .", "i want a beer . E"],
    ["ich mochte ein cola P", "S i want a coke .", "i want a coke . E"],
]


class Recorder:
    """Ordered dict of trace name -> tensor. Float tensors that require grad get retain_grad()."""

    def __init__(self):
        self.enabled = True
        self.tensors = OrderedDict()

    def clear(self):
        self.tensors = OrderedDict()

    def __call__(self, name, t):
        if not self.enabled:
            return t
        if name in self.tensors:
            raise KeyError("duplicate trace name " + name)
        if t.is_floating_point() and t.requires_grad:
            t.retain_grad()
        self.tensors[name] = t
        return t


def get_attn_pad_mask(seq_q, seq_k, pad_id=0):
    batch_size, len_q = seq_q.size()
    batch_size, len_k = seq_k.size()
    pad_attn_mask = seq_k.data.eq(pad_id).unsqueeze(1)  # [B, 1, len_k], True is masked
    return pad_attn_mask.expand(batch_size, len_q, len_k)


def get_attn_subsequence_mask(seq):
    attn_shape = [seq.size(0), seq.size(1), seq.size(1)]
    subsequence_mask = np.triu(np.ones(attn_shape), k=1)
    # uint8 [B, T, T], where the ids are (the tutorial moves it with .cuda() at the call site)
    return torch.from_numpy(subsequence_mask).byte().to(seq.device)


def positional_table(max_len, d_model):
    """Exactly the tutorial's float32 computation. Returns [max_len, 1, d_model]."""
    pe = torch.zeros(max_len, d_model)
    position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe.unsqueeze(0).transpose(0, 1)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout, max_len, rec, name):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        self.register_buffer("pe", positional_table(max_len, d_model))
        self.rec, self.tname = rec, name

    def forward(self, x):
        """x: [B, L, D] (batch-first; same numbers as the tutorial's seq-first add)."""
        pe = self.pe[: x.size(1), 0, :]  # [L, D]
        self.rec(self.tname + ".pe", pe)
        x = x + pe.unsqueeze(0)
        return self.rec(self.tname + ".out", self.dropout(x))


class ScaledDotProductAttention(nn.Module):
    def __init__(self, d_k, rec, name):
        super().__init__()
        self.d_k, self.rec, self.tname = d_k, rec, name

    def forward(self, Q, K, V, attn_mask):
        r, p = self.rec, self.tname
        scores = r(p + ".scores", torch.matmul(Q, K.transpose(-1, -2)) / np.sqrt(self.d_k))
        masked = r(p + ".masked_scores", scores.masked_fill(attn_mask, -1e9))
        attn = r(p + ".attn", nn.Softmax(dim=-1)(masked))
        context = r(p + ".context", torch.matmul(attn, V))
        return context, attn


class MultiHeadAttention(nn.Module):
    def __init__(self, cfg, rec, name, tutorial_layernorm=False):
        super().__init__()
        d_model, d_k, d_v, n_heads = cfg["d_model"], cfg["d_k"], cfg["d_v"], cfg["n_heads"]
        self.d_model, self.d_k, self.d_v, self.n_heads = d_model, d_k, d_v, n_heads
        self.eps = cfg["layer_norm_eps"]
        self.W_Q = nn.Linear(d_model, d_k * n_heads, bias=False)
        self.W_K = nn.Linear(d_model, d_k * n_heads, bias=False)
        self.W_V = nn.Linear(d_model, d_v * n_heads, bias=False)
        self.fc = nn.Linear(n_heads * d_v, d_model, bias=False)
        self.layer_norm = None if tutorial_layernorm else nn.LayerNorm(d_model, eps=self.eps)
        self.sdpa = ScaledDotProductAttention(d_k, rec, name)
        self.rec, self.tname = rec, name

    def forward(self, input_Q, input_K, input_V, attn_mask):
        r, p = self.rec, self.tname
        residual, batch_size = input_Q, input_Q.size(0)
        Q = r(p + ".Q", self.W_Q(input_Q).view(batch_size, -1, self.n_heads, self.d_k).transpose(1, 2))
        K = r(p + ".K", self.W_K(input_K).view(batch_size, -1, self.n_heads, self.d_k).transpose(1, 2))
        V = r(p + ".V", self.W_V(input_V).view(batch_size, -1, self.n_heads, self.d_v).transpose(1, 2))
        attn_mask = attn_mask.unsqueeze(1).repeat(1, self.n_heads, 1, 1)
        context, attn = self.sdpa(Q, K, V, attn_mask)
        context = context.transpose(1, 2).reshape(batch_size, -1, self.n_heads * self.d_v)
        output = r(p + ".fc_out", self.fc(context))
        res = r(p + ".residual", output + residual)
        if self.layer_norm is None:
            out = F.layer_norm(res, (self.d_model,), eps=self.eps)
        else:
            out = self.layer_norm(res)
        return r(p + ".out", out), attn


class PoswiseFeedForwardNet(nn.Module):
    def __init__(self, cfg, rec, name, tutorial_layernorm=False):
        super().__init__()
        d_model, d_ff = cfg["d_model"], cfg["d_ff"]
        self.d_model, self.eps = d_model, cfg["layer_norm_eps"]
        self.fc = nn.Sequential(
            nn.Linear(d_model, d_ff, bias=False),
            nn.ReLU(),
            nn.Linear(d_ff, d_model, bias=False),
        )
        self.layer_norm = None if tutorial_layernorm else nn.LayerNorm(d_model, eps=self.eps)
        self.rec, self.tname = rec, name

    def forward(self, inputs):
        r, p = self.rec, self.tname
        residual = inputs
        h = r(p + ".hidden", self.fc[0](inputs))
        a = r(p + ".relu", self.fc[1](h))
        output = r(p + ".fc_out", self.fc[2](a))
        res = r(p + ".residual", output + residual)
        if self.layer_norm is None:
            out = F.layer_norm(res, (self.d_model,), eps=self.eps)
        else:
            out = self.layer_norm(res)
        return r(p + ".out", out)


class EncoderLayer(nn.Module):
    def __init__(self, cfg, rec, name, tl):
        super().__init__()
        self.enc_self_attn = MultiHeadAttention(cfg, rec, name + ".enc_self_attn", tl)
        self.pos_ffn = PoswiseFeedForwardNet(cfg, rec, name + ".pos_ffn", tl)

    def forward(self, enc_inputs, enc_self_attn_mask):
        enc_outputs, attn = self.enc_self_attn(enc_inputs, enc_inputs, enc_inputs, enc_self_attn_mask)
        enc_outputs = self.pos_ffn(enc_outputs)
        return enc_outputs, attn


class Encoder(nn.Module):
    def __init__(self, cfg, rec, max_len, tl):
        super().__init__()
        self.src_emb = nn.Embedding(len(cfg["src_vocab"]), cfg["d_model"])
        self.pos_emb = PositionalEncoding(cfg["d_model"], cfg["dropout"], max_len, rec, "encoder.pos_emb")
        self.layers = nn.ModuleList(
            [EncoderLayer(cfg, rec, "encoder.layers.%d" % i, tl) for i in range(cfg["n_layers"])])
        self.pad_id = cfg["src_vocab"].index(cfg["pad"])
        self.rec = rec

    def forward(self, enc_inputs):
        r = self.rec
        x = r("encoder.src_emb.out", self.src_emb(enc_inputs))
        x = self.pos_emb(x)
        mask = r("encoder.self_attn_mask", get_attn_pad_mask(enc_inputs, enc_inputs, self.pad_id))
        attns = []
        for layer in self.layers:
            x, a = layer(x, mask)
            attns.append(a)
        return x, attns


class DecoderLayer(nn.Module):
    def __init__(self, cfg, rec, name, tl):
        super().__init__()
        self.dec_self_attn = MultiHeadAttention(cfg, rec, name + ".dec_self_attn", tl)
        self.dec_enc_attn = MultiHeadAttention(cfg, rec, name + ".dec_enc_attn", tl)
        self.pos_ffn = PoswiseFeedForwardNet(cfg, rec, name + ".pos_ffn", tl)

    def forward(self, dec_inputs, enc_outputs, dec_self_attn_mask, dec_enc_attn_mask):
        dec_outputs, dsa = self.dec_self_attn(dec_inputs, dec_inputs, dec_inputs, dec_self_attn_mask)
        dec_outputs, dea = self.dec_enc_attn(dec_outputs, enc_outputs, enc_outputs, dec_enc_attn_mask)
        dec_outputs = self.pos_ffn(dec_outputs)
        return dec_outputs, dsa, dea


class Decoder(nn.Module):
    def __init__(self, cfg, rec, max_len, tl):
        super().__init__()
        self.tgt_emb = nn.Embedding(len(cfg["tgt_vocab"]), cfg["d_model"])
        self.pos_emb = PositionalEncoding(cfg["d_model"], cfg["dropout"], max_len, rec, "decoder.pos_emb")
        self.layers = nn.ModuleList(
            [DecoderLayer(cfg, rec, "decoder.layers.%d" % i, tl) for i in range(cfg["n_layers"])])
        self.src_pad_id = cfg["src_vocab"].index(cfg["pad"])
        self.tgt_pad_id = cfg["tgt_vocab"].index(cfg["pad"])
        self.rec = rec

    def forward(self, dec_inputs, enc_inputs, enc_outputs):
        r = self.rec
        x = r("decoder.tgt_emb.out", self.tgt_emb(dec_inputs))
        x = self.pos_emb(x)
        pad_m = r("decoder.self_attn_pad_mask", get_attn_pad_mask(dec_inputs, dec_inputs, self.tgt_pad_id))
        sub_m = r("decoder.self_attn_subsequence_mask", get_attn_subsequence_mask(dec_inputs))
        self_m = r("decoder.self_attn_mask", torch.gt((pad_m + sub_m), 0))
        enc_m = r("decoder.enc_attn_mask", get_attn_pad_mask(dec_inputs, enc_inputs, self.src_pad_id))
        dsas, deas = [], []
        for layer in self.layers:
            x, a, b = layer(x, enc_outputs, self_m, enc_m)
            dsas.append(a)
            deas.append(b)
        return x, dsas, deas


class Transformer(nn.Module):
    def __init__(self, cfg, max_len=DEFAULT_MAX_LEN, tutorial_layernorm=None):
        super().__init__()
        self.cfg = dict(cfg)
        self.rec = Recorder()
        tl = not cfg.get("learn_layer_norm", False) if tutorial_layernorm is None else tutorial_layernorm
        self.encoder = Encoder(cfg, self.rec, max_len, tl)
        self.decoder = Decoder(cfg, self.rec, max_len, tl)
        self.projection = nn.Linear(cfg["d_model"], len(cfg["tgt_vocab"]), bias=False)
        self.tgt_pad_id = cfg["tgt_vocab"].index(cfg["pad"])

    def forward(self, enc_inputs, dec_inputs):
        """Returns logits [B, T, V] (batch-first; the tutorial returns them flattened)."""
        enc_outputs, _ = self.encoder(enc_inputs)
        dec_outputs, _, _ = self.decoder(dec_inputs, enc_inputs, enc_outputs)
        logits = self.rec("projection.logits", self.projection(dec_outputs))
        self.rec("projection.probs", torch.softmax(logits, dim=-1))
        return logits

    def loss(self, logits, dec_outputs):
        """Tutorial loss: CrossEntropyLoss(ignore_index=pad) on flattened logits; mean over non-pad."""
        V = logits.size(-1)
        criterion = nn.CrossEntropyLoss(ignore_index=self.tgt_pad_id)
        loss = criterion(logits.view(-1, V), dec_outputs.view(-1))
        with torch.no_grad():
            per_tok = F.cross_entropy(logits.view(-1, V), dec_outputs.view(-1),
                                      ignore_index=self.tgt_pad_id, reduction="none").view_as(dec_outputs)
        self.rec("loss", loss)
        self.rec("loss.per_token", per_tok)
        return loss


def randomize_layer_norms(model, gen=None):
    """gamma = 1 + 0.1*randn, beta = 0.1*randn (so the affine part is actually tested)."""
    with torch.no_grad():
        for name, m in model.named_modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.copy_(1.0 + 0.1 * torch.randn(m.weight.shape, generator=gen))
                m.bias.copy_(0.1 * torch.randn(m.bias.shape, generator=gen))


def encode(cfg, sentences, which, length=None):
    vocab = cfg["src_vocab"] if which == "src" else cfg["tgt_vocab"]
    idx = {w: i for i, w in enumerate(vocab)}
    rows = [[idx[w] for w in s.split()] for s in sentences]
    L = length if length is not None else max(len(r) for r in rows)
    pad_id = idx[cfg["pad"]]
    out = []
    for r in rows:
        if len(r) > L:
            raise ValueError("sentence longer than %d: %r" % (L, r))
        out.append(r + [pad_id] * (L - len(r)))
    return torch.LongTensor(out)


def derive_out(cfg, tgt_sentence, length=None):
    """Decoder target from decoder input: drop leading bos, drop pads, append eos, pad.
    'S i want a beer .' -> 'i want a beer . E';  'S i want P P P' -> 'i want E P P P'."""
    toks = tgt_sentence.split()
    L = length if length is not None else len(toks)
    if toks and toks[0] == cfg["bos"]:
        toks = toks[1:]
    toks = [t for t in toks if t != cfg["pad"]] + [cfg["eos"]]
    toks = toks[:L] + [cfg["pad"]] * max(0, L - len(toks))
    return " ".join(toks)


def run_trace(model, src_ids, tgt_ids, out_ids, grads=True):
    """Forward (+ backward). Returns (trace OrderedDict, grads OrderedDict or None)."""
    model.rec.clear()
    model.rec.enabled = True
    model.zero_grad(set_to_none=True)
    logits = model(src_ids, tgt_ids)
    loss = model.loss(logits, out_ids)
    trace = OrderedDict((k, v) for k, v in model.rec.tensors.items())
    g = None
    if grads:
        loss.backward()
        g = OrderedDict()
        g["loss"] = loss.detach()
        for n, p in model.named_parameters():
            if p.grad is not None:
                g["grad." + n] = p.grad.detach().clone()
        for n, t in trace.items():
            if t.is_floating_point() and n != "loss" and t.grad is not None:
                g["grad." + n] = t.grad.detach().clone()
    trace = OrderedDict((k, v.detach().clone()) for k, v in trace.items())
    return trace, g


def weights_state(model, include_pe=False):
    sd = OrderedDict()
    for k, v in model.state_dict().items():
        if not include_pe and k.endswith("pos_emb.pe"):
            continue
        sd[k] = v.detach().clone().float()
    return sd
