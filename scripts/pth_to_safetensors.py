#!/usr/bin/env python3
"""Converts a PyTorch .pth/.pt file into a safetensors file Stepformer opens, with the config in
its metadata. Standard library only: no torch, no numpy."""
import argparse
import collections
import json
import os
import re
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pth_reader import FLOATS, NAMES, InputError, Tensor, load, to_float32  # noqa: E402

PROG = "pth_to_safetensors"
EPILOG = """\
what it reads:
  * torch.save's zip archive (PyTorch >= 1.6: <name>/data.pkl + <name>/data/<key>) and the legacy
    format (_use_new_zipfile_serialization=False);
  * a plain state_dict (name -> tensor), or one nested under "model", "state_dict" or
    "model_state_dict" (anything else in the file is ignored), or a nanoGPT checkpoint
    ({"model": state_dict, "model_args": {...}, "optimizer": ..., "iter_num": ..., ...});
    the prefixes "_orig_mod." (torch.compile) and "module." (DataParallel) are stripped.

what it writes (float32 safetensors, names unchanged, in the state_dict's order):
  * float16 / bfloat16 / float64 tensors are converted to float32 (exactly, except float64);
    integer and bool tensors are skipped; strided views and storage offsets are made contiguous;
  * buffers the app recomputes are dropped: the tutorial's pos_emb.pe, the translation model's
    positional_encoding.pos_embedding, aiayn's position_enc.pos_table, nanoGPT's causal mask
    transformer.h.{i}.attn.bias (checked to be ones on and below the diagonal first);
  * __metadata__["stepformer.config"] = the config JSON (docs/contracts.md, "Config").

the config:
  * --config FILE.json: a Stepformer config; without "architecture" it is the tutorial's;
  * a nanoGPT checkpoint: "architecture": "gpt" with block_size, n_layer, n_head, n_embd,
    dropout and bias from its model_args; the words are not in the checkpoint, so give
    --vocab WORDS.txt (vocab_size words, the pad word first) or a --config with "vocab"
    (and "pad", "bos", "eos" when they are not the first word, "S", "E"); keys in --config
    must agree with model_args;
  * neither: only a tutorial state_dict at the tutorial's own sizes gets its config (the head
    count and the vocabularies are not in the tensors); anything else asks for --config.
  The tensor names and shapes are checked against the config for "tutorial" and "gpt"; for
  "torch" and "aiayn" the app checks them when it opens the file.

safety: unpickling a .pth file can run any code it names. This converter uses a restricted
unpickler that builds only dicts, lists, tuples, numbers, strings and tensors (the few
torch/collections globals a checkpoint needs) and refuses every other global, naming it.
Still, only convert files you trust.

exit codes: 0 written; 1 the output could not be written; 2 bad usage or input (nothing is
written). The output is written atomically (a temporary file in its directory, then renamed)
and an existing file is only replaced with --force.
"""


def note(msg):
    print("%s: note: %s" % (PROG, msg), file=sys.stderr)



PREFIXES = ("_orig_mod.", "module.")
BUFFERS = re.compile(r"(en|de)coder\.pos_emb\.pe|positional_encoding\.pos_embedding|"
                     r"(en|de)coder\.position_enc\.pos_table|transformer\.h\.\d+\.attn\.bias")
SIGNS = {"tutorial": r"(en|de)coder\.(src_emb|tgt_emb)\.weight|projection\.weight|"
                     r"(en|de)coder\.layers\.\d+\.(enc_self_attn|dec_self_attn|dec_enc_attn)\..*",
         "torch": r".*in_proj_weight|(src|tgt)_tok_emb\..*|generator\..*",
         "aiayn": r"(en|de)coder\.(src_word_emb|trg_word_emb|layer_stack)\..*|trg_word_prj\.weight",
         "gpt": r"transformer\.(wte|wpe|h\.\d+|ln_f)\..*|lm_head\.weight"}


def find_state_dict(obj, path):
    def tensors_in(d):
        return isinstance(d, dict) and any(isinstance(v, Tensor) for v in d.values())
    if isinstance(obj, dict):
        if obj and all(isinstance(v, Tensor) for v in obj.values()):
            return obj
        for key in ("model", "state_dict", "model_state_dict"):
            if tensors_in(obj.get(key)):
                return obj[key]
        nested = [k for k, v in obj.items() if tensors_in(v)]
        if len(nested) == 1:
            note("took the state_dict under the key %r" % nested[0])
            return obj[nested[0]]
        raise InputError("%s: no state_dict found (top-level keys: %s)" % (path, ", ".join(map(str, list(obj)[:12]))))
    raise InputError("%s: holds a %s, not a state_dict or checkpoint dict" % (path, type(obj).__name__))


def detect(names):
    found = {}
    for arch, sign in SIGNS.items():
        hit = next((n for n in names if re.fullmatch(sign, n)), None)
        if hit:
            found[arch] = hit
    if len(found) != 1:
        what = ", ".join("%s (%s)" % kv for kv in found.items()) or "none (e.g. %s)" % ", ".join(names[:3])
        raise InputError("cannot tell the architecture from the tensor names: %s matches; give --config" % what)
    return next(iter(found.items()))


TUTORIAL = {"d_model": 512, "d_ff": 2048, "d_k": 64, "d_v": 64, "n_layers": 6, "n_heads": 8,
            "src_vocab": ["P", "ich", "mochte", "ein", "bier", "cola"],
            "tgt_vocab": ["P", "i", "want", "a", "beer", "coke", "S", "E", "."],
            "src_len": 5, "tgt_len": 6, "pad": "P", "bos": "S", "eos": "E"}


def expected_shapes(cfg, arch):
    """(required, optional) name -> shape for the config, or None where the app checks."""
    req, opt = {}, {}
    if arch == "tutorial":
        g = {k: cfg.get(k, v) for k, v in TUTORIAL.items()}
        D, F, qk, v = g["d_model"], g["d_ff"], g["n_heads"] * g["d_k"], g["n_heads"] * g["d_v"]
        req["encoder.src_emb.weight"] = [len(g["src_vocab"]), D]
        req["decoder.tgt_emb.weight"] = [len(g["tgt_vocab"]), D]
        for i in range(g["n_layers"]):
            for side, blocks in (("encoder", ["enc_self_attn"]), ("decoder", ["dec_self_attn", "dec_enc_attn"])):
                p = "%s.layers.%d." % (side, i)
                for b in blocks:
                    req.update({p + b + ".W_Q.weight": [qk, D], p + b + ".W_K.weight": [qk, D],
                                p + b + ".W_V.weight": [v, D], p + b + ".fc.weight": [D, v]})
                    opt.update({p + b + ".layer_norm.weight": [D], p + b + ".layer_norm.bias": [D]})
                req.update({p + "pos_ffn.fc.0.weight": [F, D], p + "pos_ffn.fc.2.weight": [D, F]})
                opt.update({p + "pos_ffn.layer_norm.weight": [D], p + "pos_ffn.layer_norm.bias": [D]})
        req["projection.weight"] = [len(g["tgt_vocab"]), D]
    elif arch == "gpt":
        C, L, bias = cfg.get("n_embd", 768), cfg.get("block_size", 1024), cfg.get("bias", True)
        V = len(cfg.get("vocab", TUTORIAL["tgt_vocab"]))
        req.update({"transformer.wte.weight": [V, C], "transformer.wpe.weight": [L, C]})
        for i in range(cfg.get("n_layer", 12)):
            p = "transformer.h.%d." % i
            for leaf, shape in (("ln_1", [C]), ("attn.c_attn", [3 * C, C]), ("attn.c_proj", [C, C]),
                                ("ln_2", [C]), ("mlp.c_fc", [4 * C, C]), ("mlp.c_proj", [C, 4 * C])):
                req[p + leaf + ".weight"] = shape
                if bias:
                    req[p + leaf + ".bias"] = shape[:1]
        req["transformer.ln_f.weight"] = [C]
        if bias:
            req["transformer.ln_f.bias"] = [C]
        opt["lm_head.weight"] = [V, C]
    else:
        return None
    return req, opt


def check_shapes(shapes, cfg, arch):
    """The first tensor that does not fit the config, as a message; None when all fit."""
    exp = expected_shapes(cfg, arch)
    if exp is None:
        return None
    req, opt = exp
    for name, shape in shapes.items():
        want = req.get(name, opt.get(name))
        if want is None:
            return "tensor %s is not a parameter of this %s config" % (name, arch)
        if list(shape) != want:
            return "tensor %s has shape %s, the config implies %s" % (name, list(shape), want)
    missing = [n for n in req if n not in shapes]
    return "tensor %s %s is missing" % (missing[0], req[missing[0]]) if missing else None


def read_vocab(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise InputError("--vocab: %s" % e) from None
    words = json.loads(text) if text.lstrip().startswith("[") else text.split()
    if not words or not all(isinstance(w, str) for w in words):
        raise InputError("--vocab %s: no words (give them whitespace-separated, or as a JSON list)" % path)
    return words


def make_config(args, shapes, arch, example, top):
    user = None
    if args.config:
        try:
            with open(args.config, encoding="utf-8") as f:
                user = json.load(f)
        except (OSError, ValueError) as e:
            raise InputError("--config %s: %s" % (args.config, e)) from None
        if not isinstance(user, dict):
            raise InputError("--config %s: not a JSON object" % args.config)
        said = user.get("architecture", "tutorial")
        if said != arch:
            raise InputError("--config %s is for \"architecture\": \"%s\", but the tensors are a %s model's "
                             "(e.g. %s)" % (args.config, said, arch, example))
    if args.vocab and arch != "gpt":
        raise InputError("--vocab is for gpt models; give %s's vocabularies in --config" % arch)
    margs = top.get("model_args") if isinstance(top, dict) and isinstance(top.get("model_args"), dict) else None
    if arch != "gpt":
        lacking = [k for k in TUTORIAL if k not in user] if arch == "tutorial" and user is not None else []
        if lacking:
            raise InputError("--config %s lacks %s (the tutorial's config needs every key of docs/contracts.md's "
                             "table)" % (args.config, ", ".join(lacking)))
        if user is not None:
            return user
        if not check_shapes(shapes, TUTORIAL, "tutorial") and arch == "tutorial":
            note("no --config: the tensors are the tutorial's at its own sizes; its config is written")
            return dict(TUTORIAL)
        raise InputError("the file holds a %s model's state_dict (e.g. %s) and no config; its head count and "
                         "vocabulary are not in the tensors: give --config FILE.json (docs/contracts.md, "
                         "\"Config\")" % (arch, example))
    cfg, vocab_size = {"architecture": "gpt"}, None
    if margs is not None:
        for k in ("block_size", "n_layer", "n_head", "n_embd", "dropout", "bias"):
            if k in margs:
                cfg[k] = margs[k]
        vocab_size = margs.get("vocab_size")
        for k, v in (user or {}).items():
            if k in cfg and cfg[k] != v:
                raise InputError("--config says %s %r, the checkpoint's model_args %r" % (k, v, cfg[k]))
    elif user is None:
        C = shapes.get("transformer.wte.weight", [0, 0])
        raise InputError("the file holds a gpt state_dict without model_args (n_embd %d, vocab_size %d): give "
                         "--config FILE.json with \"architecture\": \"gpt\", n_head and vocab" % (C[1], C[0]))
    cfg.update(user or {})
    if args.vocab:
        if "vocab" in cfg:
            raise InputError("give the vocabulary once: --vocab or the \"vocab\" of --config")
        cfg["vocab"] = read_vocab(args.vocab)
        cfg.setdefault("pad", cfg["vocab"][0])
    if "vocab" not in cfg and margs is not None:
        raise InputError("the checkpoint has no vocabulary (model_args has vocab_size %s only): give --vocab "
                         "WORDS.txt (its words, the pad word first) or --config with \"vocab\"" % vocab_size)
    vocab = cfg.get("vocab", TUTORIAL["tgt_vocab"])
    if vocab_size is not None and len(vocab) != vocab_size:
        raise InputError("the vocabulary has %d words, the checkpoint's vocab_size is %d" % (len(vocab), vocab_size))
    for key, word in (("pad", "P"), ("bos", "S"), ("eos", "E")):
        if cfg.get(key, word) not in vocab or (key == "pad" and vocab[0] != cfg.get(key, word)):
            raise InputError("the %s word %r is not %s the vocabulary: name it with --config's \"%s\""
                             % (key, cfg.get(key, word), "first in" if key == "pad" else "in", key))
    if cfg.get("n_embd", 768) % cfg.get("n_head", 12):
        raise InputError("n_head %s does not divide n_embd %s" % (cfg.get("n_head", 12), cfg.get("n_embd", 768)))
    return cfg


# ------------------------------------------------------------------------------- writing

def write_safetensors(path, tensors, metadata):
    """tensors: (name, Tensor), converted to float32 one at a time while writing; a temporary file
    beside `path`, then a rename."""
    header, offset = {"__metadata__": metadata}, 0
    for name, t in tensors:
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + 4 * t.numel]}
        offset += 4 * t.numel
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                               dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text)
            for name, t in tensors:
                try:
                    f.write(to_float32(t))
                except InputError as e:
                    raise InputError("%s: %s" % (name, e)) from None
            f.flush()
            os.fsync(f.fileno())
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def convert(args):
    src, out = args.input, args.output or os.path.splitext(args.input)[0] + ".safetensors"
    if not os.path.isfile(src):
        raise InputError("%s: no such file" % src)
    if os.path.abspath(src) == os.path.abspath(out):
        raise InputError("the output would replace the input %s" % src)
    if os.path.isdir(out) or (os.path.exists(out) and not args.force):
        raise InputError("%s exists (use --force to replace it)" % out)
    top = load(src)
    sd = find_state_dict(top, src)
    items, stripped, skipped = collections.OrderedDict(), collections.Counter(), []
    for name, value in sd.items():
        name = str(name)
        while name.startswith(PREFIXES):
            prefix, name = name.split(".", 1)
            stripped[prefix + "."] += 1
        if name in items:
            raise InputError("two tensors are named %s (after stripping %s)" % (name, " / ".join(PREFIXES)))
        if not isinstance(value, Tensor):
            skipped.append("%s (a %s)" % (name, type(value).__name__))
        elif value.storage.dtype not in FLOATS:
            skipped.append("%s (%s)" % (name, value.storage.dtype))
        else:
            items[name] = value
    if not items:
        raise InputError("%s: the state_dict holds no float tensors" % src)
    arch, example = detect(list(items))
    dropped = [n for n in items if BUFFERS.fullmatch(n)]
    for n in dropped:
        t = items.pop(n)
        shape = t.shape
        if arch == "gpt" and len(shape) == 4 and shape[:2] == (1, 1) and shape[2] == shape[3]:
            L, one, zero = shape[2], struct.pack("<f", 1.0), bytes(4)
            if to_float32(t) != b"".join(one * (q + 1) + zero * (L - q - 1) for q in range(L)):
                raise InputError("%s is not a causal mask (ones on and below the diagonal); the app makes its "
                                 "own causal mask, so it would compute something else" % n)
    shapes = collections.OrderedDict((n, t.shape) for n, t in items.items())
    try:
        cfg = make_config(args, shapes, arch, example, top)
        problem = check_shapes(shapes, cfg, arch)
    except (TypeError, ValueError, AttributeError) as e:
        raise InputError("the config has a value of the wrong type (%s)" % e) from None
    if problem:
        raise InputError("%s (does the config fit the file?)" % problem)
    converted, seen, params = collections.Counter(), set(), 0
    for name, t in items.items():
        if t.storage.dtype != "F32":
            converted[t.storage.dtype] += 1
        key = (t.storage.ident(), t.offset, t.shape, t.stride)
        if key not in seen:
            seen.add(key)
            params += t.numel
    for prefix, count in stripped.items():
        note("stripped the prefix %s from %d names" % (prefix, count))
    for dtype, count in sorted(converted.items()):
        note("converted %d %s tensor%s to float32" % (count, NAMES[dtype], "s" * (count != 1)))
    if dropped:
        note("dropped %d buffer%s the app recomputes: %s" % (len(dropped), "s" * (len(dropped) != 1),
                                                               ", ".join(dropped)))
    if skipped:
        note("skipped what is not a float tensor: %s" % ", ".join(skipped))
    if expected_shapes(cfg, arch) is None:
        note("architecture %s: the tensor shapes are checked when the app opens the file" % arch)
    write_safetensors(out, list(items.items()), {"stepformer.config": json.dumps(cfg, separators=(",", ":"))})
    print("%s: %d tensors, architecture %s, %d parameters" % (out, len(items), arch, params))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
                                 description="Convert a PyTorch .pth/.pt state_dict or nanoGPT checkpoint into a "
                                             "safetensors file Stepformer opens, its config in the metadata.")
    ap.add_argument("input", metavar="INPUT.pth", help="the file torch.save wrote")
    ap.add_argument("output", metavar="OUTPUT.safetensors", nargs="?",
                    help="where to write (default: INPUT with the suffix .safetensors)")
    ap.add_argument("--config", metavar="FILE.json", help="the Stepformer config of the model")
    ap.add_argument("--vocab", metavar="WORDS.txt", help="gpt: the vocabulary, whitespace-separated words or a "
                                                         "JSON list, the pad word first (vocab_size words)")
    ap.add_argument("--force", action="store_true", help="replace OUTPUT if it exists")
    args = ap.parse_intermixed_args(argv)
    try:
        return convert(args)
    except InputError as e:
        print("%s: error: %s" % (PROG, e), file=sys.stderr)
        return 2
    except OSError as e:
        print("%s: error: %s" % (PROG, e), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
