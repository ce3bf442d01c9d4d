"""Karpathy's nanoGPT (`model.py`) at word level, written again here (our own code) with its exact
semantics on PyTorch 1.13, for "architecture": "gpt".

Two versions of the same computation, which make_gpt_fixtures.py runs side by side and asserts
bit-identical (logits, loss, every parameter gradient, training, generation):

  * `GPT` (with `LayerNorm`, `CausalSelfAttention`, `MLP`, `Block`): plain nn.Modules built the
    way nanoGPT builds them -- the same module tree (so the same state_dict names, the causal-mask
    buffer `transformer.h.{i}.attn.bias` included), the same construction order (so the same random
    numbers for a seed), lm_head tied to wte, `apply(_init_weights)`, then the scaled re-init of
    every `c_proj.weight`; the same forward, loss, `configure_optimizers` and `generate`;
  * `forward_steps(rec, params, cfg, idx, targets)`: the same forward from a flat
    {state_dict name: tensor} mapping, one operation per line, every intermediate handed to `rec`
    under its trace name (batch-first). The tied weight is one tensor under both names.

Semantics (nanoGPT's; PyTorch 1.13 has no F.scaled_dot_product_attention, so nanoGPT takes its
manual ("slow") attention path and registers the mask buffer):
  * config: GPTConfig's block_size, n_layer, n_head, n_embd, dropout, bias; vocab_size is the
    length of our word list `vocab`; the pad word's id is the loss's ignore index;
  * x = drop(wte(idx) + wpe(arange(T)))   (wpe(...) is [T, C], broadcast over the batch);
  * block: x = x + attn(ln_1(x)); x = x + mlp(ln_2(x))   (pre-norm, LayerNorm eps 1e-5, the
    LayerNorm has no bias when bias=False);
  * attn: q, k, v = c_attn(x).split(C, dim=2); each .view(B, T, H, hs).transpose(1, 2);
    att = (q @ k^T) * (1.0 / math.sqrt(hs))   (the PRODUCT is scaled, by a Python float that
    torch rounds to float32 and multiplies with); masked_fill(bias[:, :, :T, :T] == 0, -inf);
    softmax over the keys; attn_dropout; y = att @ v; y.transpose(1, 2).contiguous().view(B, T, C);
    resid_dropout(c_proj(y));
  * mlp: c_fc (C -> 4C), nn.GELU() (exact, erf), c_proj (4C -> C), dropout;
  * ln_f, logits = lm_head(x) (no bias; the wte matrix). With targets: logits at every position
    and F.cross_entropy(logits.view(-1, V), targets.view(-1), ignore_index) -- the mean over the
    counted targets. Without targets (generation): lm_head(x[:, [-1], :]) only, loss None;
  * init: nn.Linear / nn.Embedding weights normal(0, 0.02), Linear biases 0, LayerNorm 1 / 0,
    then every parameter whose name ends with `c_proj.weight` normal(0, 0.02 / sqrt(2 n_layer));
  * configure_optimizers: AdamW, weight decay on the parameters with dim >= 2 (the tied wte /
    lm_head matrix, wpe, every Linear weight), none on the biases and LayerNorm weights.
"""
import math

import torch

from fixture_io import Recorder  # noqa: F401  (the step-by-step version records with it)
from torch import nn
import torch.nn.functional as F

LN_EPS = 1e-5
INIT_STD = 0.02

# GPTConfig's fields we use, with nanoGPT's defaults (vocab_size comes from `vocab`)
DEFAULTS = {"block_size": 1024, "n_layer": 12, "n_head": 12, "n_embd": 768, "dropout": 0.0,
            "bias": True}


def with_defaults(cfg):
    out = dict(DEFAULTS)
    out.update(cfg)
    return out


def vocab_size(cfg):
    return len(cfg["vocab"])


def pad_id(cfg):
    return cfg["vocab"].index(cfg["pad"])


# ------------------------------------------------------------------- the modules, nanoGPT's way

class LayerNorm(nn.Module):
    """nanoGPT's LayerNorm: weight ones, bias zeros or None (bias=False), eps 1e-5."""

    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, LN_EPS)


class CausalSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        assert c["n_embd"] % c["n_head"] == 0
        self.c_attn = nn.Linear(c["n_embd"], 3 * c["n_embd"], bias=c["bias"])
        self.c_proj = nn.Linear(c["n_embd"], c["n_embd"], bias=c["bias"])
        self.attn_dropout = nn.Dropout(c["dropout"])
        self.resid_dropout = nn.Dropout(c["dropout"])
        self.n_head, self.n_embd = c["n_head"], c["n_embd"]
        # PyTorch < 2.0: the manual path, with the lower-triangular mask as a (persistent) buffer
        assert not hasattr(F, "scaled_dot_product_attention")
        bs = c["block_size"]
        self.register_buffer("bias", torch.tril(torch.ones(bs, bs)).view(1, 1, bs, bs))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c_fc = nn.Linear(c["n_embd"], 4 * c["n_embd"], bias=c["bias"])
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * c["n_embd"], c["n_embd"], bias=c["bias"])
        self.dropout = nn.Dropout(c["dropout"])

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln_1 = LayerNorm(c["n_embd"], bias=c["bias"])
        self.attn = CausalSelfAttention(c)
        self.ln_2 = LayerNorm(c["n_embd"], bias=c["bias"])
        self.mlp = MLP(c)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    """nanoGPT's GPT from a Stepformer config (GPTConfig's fields + `vocab`, `pad`)."""

    def __init__(self, cfg):
        super().__init__()
        c = with_defaults(cfg)
        self.config = c
        V = vocab_size(c)
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(V, c["n_embd"]),
            wpe=nn.Embedding(c["block_size"], c["n_embd"]),
            drop=nn.Dropout(c["dropout"]),
            h=nn.ModuleList([Block(c) for _ in range(c["n_layer"])]),
            ln_f=LayerNorm(c["n_embd"], bias=c["bias"]),
        ))
        self.lm_head = nn.Linear(c["n_embd"], V, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying: one Parameter
        self.apply(self._init_weights)  # children first: lm_head's init is the tied matrix's last
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=INIT_STD / math.sqrt(2 * c["n_layer"]))

    @staticmethod
    def _init_weights(module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=INIT_STD)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=INIT_STD)

    def forward(self, idx, targets=None, ignore_index=-1):
        """nanoGPT's forward; `ignore_index` is -1 as in nanoGPT (the caller maps pad targets to
        -1), or the pad id itself (the same numbers)."""
        b, t = idx.size()
        assert t <= self.config["block_size"]
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        tok_emb = self.transformer.wte(idx)
        pos_emb = self.transformer.wpe(pos)
        x = self.transformer.drop(tok_emb + pos_emb)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        if targets is not None:
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                                   ignore_index=ignore_index)
        else:
            logits = self.lm_head(x[:, [-1], :])
            loss = None
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        """nanoGPT's AdamW (CPU: not fused). Returns the optimizer."""
        return make_adamw(dict(self.named_parameters()), weight_decay, learning_rate, betas)

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None, greedy=True, log=None):
        """nanoGPT's generate. greedy=True takes the argmax of the probabilities instead of
        torch.multinomial (the fixtures' deterministic continuation). `log` (a list) gets, per
        step, (idx_cond, logits [B, V] after the temperature, probs [B, V])."""
        return generate(lambda ic: self(ic)[0], self.config["block_size"], idx, max_new_tokens,
                        temperature, top_k, greedy, log)


def build_gpt(cfg):
    return GPT(cfg)


def make_adamw(named, weight_decay, learning_rate, betas):
    """configure_optimizers' groups from {name: parameter} (named_parameters order, a tied weight
    once): dim >= 2 decays, the rest does not. AdamW's eps is its default 1e-8."""
    params = {n: p for n, p in named.items() if p.requires_grad}
    decay = [p for n, p in params.items() if p.dim() >= 2]
    nodecay = [p for n, p in params.items() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": weight_decay},
              {"params": nodecay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=learning_rate, betas=betas)


def decay_split(named):
    """(names that decay, names that do not), as make_adamw groups them."""
    return ([n for n, p in named.items() if p.dim() >= 2],
            [n for n, p in named.items() if p.dim() < 2])


@torch.no_grad()
def generate(logits_fn, block_size, idx, max_new_tokens, temperature=1.0, top_k=None,
             greedy=True, log=None):
    """nanoGPT's generate loop around `logits_fn(idx_cond) -> [B, 1, V]`."""
    for _ in range(max_new_tokens):
        idx_cond = idx if idx.size(1) <= block_size else idx[:, -block_size:]
        logits = logits_fn(idx_cond)
        logits = logits[:, -1, :] / temperature
        if top_k is not None:
            v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
            logits[logits < v[:, [-1]]] = -float("Inf")
        probs = F.softmax(logits, dim=-1)
        if greedy:
            idx_next = torch.argmax(probs, dim=-1, keepdim=True)
        else:
            idx_next = torch.multinomial(probs, num_samples=1)
        if log is not None:
            log.append((idx_cond.clone(), logits.clone(), probs.clone()))
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


# --------------------------------------------------------------- the step-by-step version

class NoRecorder:
    def __call__(self, name, t):
        return t


TIED = ["transformer.wte.weight", "lm_head.weight"]


def is_buffer(name):
    return name.endswith(".attn.bias")


def make_params(weights, tie=True):
    """Leaf tensors for forward_steps (buffers dropped). tie=True: lm_head.weight is the same leaf
    as transformer.wte.weight (one gradient, the sum of both uses); tie=False: each name its own
    leaf (so each use's gradient can be seen alone)."""
    params = {k: v.detach().clone().requires_grad_(True)
              for k, v in weights.items() if not is_buffer(k)}
    if tie:
        assert torch.equal(weights[TIED[0]], weights[TIED[1]])
        params[TIED[1]] = params[TIED[0]]
    return params


def _opt(params, name):
    return params.get(name)  # None where bias=False


def _ln(params, name, x, C):
    return F.layer_norm(x, (C,), params[name + ".weight"], _opt(params, name + ".bias"), LN_EPS)


def _linear(params, name, x):
    return F.linear(x, params[name + ".weight"], _opt(params, name + ".bias"))


def causal_mask(block_size):
    """nanoGPT's buffer: tril(ones(bs, bs)).view(1, 1, bs, bs), 1 = may attend."""
    return torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size)


def forward_steps(rec, params, cfg, idx, targets=None):
    """nanoGPT's forward, one step per trace name. targets: [B, T] ids, the pad id ignored.
    Returns (logits, loss): with targets logits [B, T, V] and the mean loss; without, nanoGPT's
    inference path: logits [B, 1, V] (lm_head on the last position only), loss None."""
    c = with_defaults(cfg)
    assert c["dropout"] == 0.0  # every dropout is the identity
    B, T = idx.size()
    C, H, bs = c["n_embd"], c["n_head"], c["block_size"]
    hs = C // H
    assert T <= bs and C % H == 0
    mask = causal_mask(bs)
    for i in range(c["n_layer"]):
        buf = params.get("transformer.h.%d.attn.bias" % i)
        assert buf is None or torch.equal(buf, mask)
    tok = rec("transformer.wte.out", F.embedding(idx, params["transformer.wte.weight"]))
    pos = torch.arange(0, T, dtype=torch.long)
    pe = rec("transformer.wpe.out", F.embedding(pos, params["transformer.wpe.weight"]))
    x = rec("transformer.drop.out", tok + pe)
    for i in range(c["n_layer"]):
        L = "transformer.h.%d" % i
        h = rec(L + ".ln_1.out", _ln(params, L + ".ln_1", x, C))
        q, k, v = _linear(params, L + ".attn.c_attn", h).split(C, dim=2)
        q = rec(L + ".attn.q", q.view(B, T, H, hs).transpose(1, 2))
        k = rec(L + ".attn.k", k.view(B, T, H, hs).transpose(1, 2))
        v = rec(L + ".attn.v", v.view(B, T, H, hs).transpose(1, 2))
        s = rec(L + ".attn.scores", (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs)))
        s = rec(L + ".attn.masked_scores", s.masked_fill(mask[:, :, :T, :T] == 0, float("-inf")))
        a = rec(L + ".attn.attn", F.softmax(s, dim=-1))
        y = rec(L + ".attn.y", a @ v)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        o = rec(L + ".attn.c_proj", _linear(params, L + ".attn.c_proj", y))
        x = rec(L + ".resid1", x + o)
        h = rec(L + ".ln_2.out", _ln(params, L + ".ln_2", x, C))
        f = rec(L + ".mlp.c_fc", _linear(params, L + ".mlp.c_fc", h))
        g = rec(L + ".mlp.gelu", F.gelu(f))
        o = rec(L + ".mlp.c_proj", _linear(params, L + ".mlp.c_proj", g))
        x = rec(L + ".resid2", x + o)
    x = rec("transformer.ln_f.out", _ln(params, "transformer.ln_f", x, C))
    if targets is None:
        logits = rec("lm_head.logits", F.linear(x[:, [-1], :], params["lm_head.weight"]))
        rec("lm_head.probs", F.softmax(logits, dim=-1))
        return logits, None
    logits = rec("lm_head.logits", F.linear(x, params["lm_head.weight"]))
    rec("lm_head.probs", F.softmax(logits, dim=-1))
    V = logits.size(-1)
    ign = pad_id(c)
    with torch.no_grad():
        per = F.cross_entropy(logits.view(-1, V), targets.view(-1), ignore_index=ign,
                              reduction="none").view(B, T)
    rec("loss.per_token", per)
    loss = rec("loss", F.cross_entropy(logits.view(-1, V), targets.view(-1), ignore_index=ign))
    return logits, loss


def trace_names(cfg, with_targets=True):
    """The trace names in computation order (the contract the C++ matches)."""
    c = with_defaults(cfg)
    names = ["transformer.wte.out", "transformer.wpe.out", "transformer.drop.out"]
    for i in range(c["n_layer"]):
        L = "transformer.h.%d" % i
        names += [L + ".ln_1.out", L + ".attn.q", L + ".attn.k", L + ".attn.v",
                  L + ".attn.scores", L + ".attn.masked_scores", L + ".attn.attn", L + ".attn.y",
                  L + ".attn.c_proj", L + ".resid1", L + ".ln_2.out", L + ".mlp.c_fc",
                  L + ".mlp.gelu", L + ".mlp.c_proj", L + ".resid2"]
    names += ["transformer.ln_f.out", "lm_head.logits", "lm_head.probs"]
    if with_targets:
        names += ["loss.per_token", "loss"]
    return names
