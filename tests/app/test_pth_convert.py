#!/usr/bin/env python3
"""scripts/pth_to_safetensors.py on the committed torch.save files of tests/fixtures/pth (made by
tests/reference/make_pth_fixtures.py): every tensor bit for bit against the expected file, the
config in the metadata, the refusals (nothing written), and, when the CLI is built, that
stepformer-cli opens and runs the converted files. Standard library only (no torch).

Usage: python3 tests/app/test_pth_convert.py BIN_DIR   (BIN_DIR holds stepformer-cli, if built)
"""
import json
import os
import pickle
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import zipfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "pth_to_safetensors.py")
FIX = os.path.join(ROOT, "tests", "fixtures", "pth")
BIN_DIR = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin")
CLI = os.path.join(BIN_DIR, "stepformer-cli")


def fix(name):
    return os.path.join(FIX, name)


def read_safetensors(path):
    """(list of (name, dtype, shape, bytes) in data order, metadata dict)."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {})
    data = raw[8 + n:]
    items = sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0])
    out, pos = [], 0
    for name, info in items:
        b, e = info["data_offsets"]
        assert b == pos, "%s: a gap before %s" % (path, name)
        out.append((name, info["dtype"], info["shape"], data[b:e]))
        pos = e
    assert pos == len(data), "%s: trailing bytes" % path
    return out, meta


def run(*args):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")  # no __pycache__ in scripts/
    return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True, env=env)


# fixture, converter options, expected file, architecture, notes the converter must print
CASES = [
    ("tutorial.pth", ["--config", fix("tutorial.config.json")], "tutorial.expected.safetensors", "tutorial",
     ["dropped 2 buffers the app recomputes: encoder.pos_emb.pe, decoder.pos_emb.pe"]),
    ("tutorial_fp16.pth", ["--config", fix("tutorial.config.json")], "tutorial_fp16.expected.safetensors",
     "tutorial", ["converted 19 float16 tensors to float32", "encoder.step_count (I64)"]),
    ("nanogpt_ckpt.pt", ["--vocab", fix("nanogpt.vocab.txt")], "nanogpt_ckpt.expected.safetensors", "gpt",
     ["stripped the prefix _orig_mod. from 18 names", "dropped 1 buffer the app recomputes: "
      "transformer.h.0.attn.bias"]),
    ("gpt_bf16_legacy.pth", ["--config", fix("gpt_bf16.config.json")], "gpt_bf16_legacy.expected.safetensors",
     "gpt", ["converted 10 bfloat16 tensors to float32"]),
]


class PthConvert(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="pth_convert.")
        self.addCleanup(shutil.rmtree, self.dir)

    def out(self, name):
        return os.path.join(self.dir, name)

    def convert(self, case):
        src, opts, expected, arch, notes = case
        out = self.out(src + ".safetensors")
        r = run(fix(src), out, *opts)
        self.assertEqual(r.returncode, 0, r.stderr)
        return out, r

    def test_conversions_bit_for_bit(self):
        for case in CASES:
            src, opts, expected, arch, notes = case
            with self.subTest(src):
                out, r = self.convert(case)
                got, meta = read_safetensors(out)
                want, want_meta = read_safetensors(fix(expected))
                self.assertEqual([t[0] for t in got], [t[0] for t in want])  # names, in order
                for (name, dtype, shape, data), (_, wdtype, wshape, wdata) in zip(got, want):
                    self.assertEqual((dtype, shape), ("F32", wshape), name)
                    self.assertEqual(wdtype, "F32")
                    self.assertTrue(data == wdata, "%s: %s differs" % (src, name))
                cfg = json.loads(meta["stepformer.config"])
                self.assertEqual(cfg.get("architecture", "tutorial"), arch)
                self.assertEqual(cfg, json.loads(want_meta["stepformer.config"]))
                summary = r.stdout.strip().splitlines()
                self.assertEqual(len(summary), 1, r.stdout)
                self.assertIn(": %d tensors, architecture %s, " % (len(want), arch), summary[0])
                self.assertRegex(summary[0], r" \d+ parameters$")
                for n in notes:
                    self.assertIn(n, r.stderr)
                self.assertEqual(sorted(os.listdir(self.dir)), sorted(
                    f for f in os.listdir(self.dir) if not f.endswith(".tmp")))  # no temporary file left

    def test_parameter_count_counts_tied_weights_once(self):
        _, r = self.convert(CASES[2])
        # nanoGPT's get_num_params() with non_embedding=False: wte (= lm_head) once
        C, V, L = 8, 13, 8
        block = 2 * 2 * C + (3 * C * C + 3 * C) + (C * C + C) + (4 * C * C + 4 * C) + (4 * C * C + C)
        self.assertIn(" %d parameters" % (V * C + L * C + block + 2 * C), r.stdout)

    def refused(self, args, fragment, out=None):
        out = out or self.out("refused.safetensors")
        r = run(*(list(args) + [out] if args and not args[0].startswith("-") else args))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertTrue(lines[0].startswith("pth_to_safetensors: error: "), lines[0])
        self.assertIn(fragment, lines[0])
        self.assertEqual(r.stdout, "")
        self.assertEqual([f for f in os.listdir(self.dir) if f.startswith(".") or f == "refused.safetensors"], [])
        return lines[0]

    def test_refuses_bad_input_and_writes_nothing(self):
        junk = self.out("junk.pth")
        with open(junk, "w") as f:
            f.write("this is not a checkpoint\n")
        self.refused([junk], "not a PyTorch file")
        with open(self.out("empty.pth"), "wb"):
            pass
        self.refused([self.out("empty.pth")], "not a PyTorch file")
        nodata = self.out("nodata.pth")
        with zipfile.ZipFile(nodata, "w") as z:
            z.writestr("nodata/version", "3\n")
        self.refused([nodata], "data.pkl")
        self.refused([self.out("missing.pth")], "no such file")
        self.refused([fix("bad_complex.pth")], "unsupported tensor dtype torch.ComplexFloatStorage")
        self.refused([fix("bad_module.pth")], "torch.nn.modules.linear.Linear")

    def test_refuses_a_forbidden_global_without_running_it(self):
        marker = self.out("ran")

        class Evil:
            def __reduce__(self):
                return (os.system, ("touch '%s'" % marker,))

        payload = pickle.dumps({"w": Evil()}, protocol=2)
        zipped = self.out("evil.pth")
        with zipfile.ZipFile(zipped, "w") as z:
            z.writestr("evil/data.pkl", payload)
        raw = self.out("evil_raw.pth")
        with open(raw, "wb") as f:
            f.write(pickle.dumps(Evil(), protocol=2))
        for path in (zipped, raw):
            msg = self.refused([path], "refusing to unpickle the global ")
            self.assertIn(os.system.__module__ + ".system", msg)
            self.assertFalse(os.path.exists(marker))

    def test_refuses_a_missing_or_wrong_config(self):
        self.refused([fix("tutorial.pth")], "give --config")
        self.refused([fix("nanogpt_ckpt.pt")], "give --vocab")
        self.refused([fix("tutorial.pth"), "--config", fix("gpt_bf16.config.json")], '"architecture": "gpt"')
        self.refused([fix("tutorial.pth"), "--vocab", fix("nanogpt.vocab.txt"), "--config",
                      fix("tutorial.config.json")], "--vocab is for gpt models")
        short = self.out("short.txt")
        with open(short, "w") as f:
            f.write("P S E i want\n")
        self.refused([fix("nanogpt_ckpt.pt"), "--vocab", short], "vocab_size is 13")
        wrong = self.out("wrong.json")
        with open(fix("gpt_bf16.config.json")) as f:
            cfg = json.load(f)
        with open(wrong, "w") as f:
            json.dump(dict(cfg, n_embd=16, n_head=4), f)
        self.refused([fix("gpt_bf16_legacy.pth"), "--config", wrong], "transformer.wte.weight has shape [13, 8]")
        with open(wrong, "w") as f:
            json.dump({"architecture": "gpt", "n_layer": 2}, f)
        self.refused([fix("nanogpt_ckpt.pt"), "--config", wrong, "--vocab", fix("nanogpt.vocab.txt")],
                     "n_layer 2, the checkpoint's model_args 1")

    def test_existing_output_needs_force(self):
        out = self.out("exists.safetensors")
        with open(out, "w") as f:
            f.write("keep me")
        args = [fix("tutorial.pth"), out, "--config", fix("tutorial.config.json")]
        r = run(*args)
        self.assertEqual(r.returncode, 2)
        self.assertIn("exists (use --force to replace it)", r.stderr)
        with open(out) as f:
            self.assertEqual(f.read(), "keep me")
        r = run(*(args + ["--force"]))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(read_safetensors(out)[0]), 19)
        self.assertEqual(sorted(os.listdir(self.dir)), ["exists.safetensors"])

    def test_default_output_name_and_help(self):
        src = self.out("model.pth")
        shutil.copy(fix("tutorial.pth"), src)
        r = run(src, "--config", fix("tutorial.config.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(self.out("model.safetensors")))
        r = run("--help")
        self.assertEqual(r.returncode, 0)
        for word in ("--config", "--vocab", "--force", "model_args", "restricted", "exit codes"):
            self.assertIn(word, r.stdout)
        self.assertEqual(run().returncode, 2)  # no input: a usage error

    @unittest.skipUnless(os.access(CLI, os.X_OK), "stepformer-cli is not built")
    def test_stepformer_cli_opens_the_converted_files(self):
        outs = {case[0]: self.convert(case)[0] for case in CASES}
        for out in outs.values():
            r = subprocess.run([CLI, "info", out], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("tensors", r.stdout)
        runs = [["forward", "--weights", outs["tutorial.pth"]],
                ["forward", "--weights", outs["tutorial_fp16.pth"], "--src", "ich mochte ein bier P",
                 "--tgt", "S i want a beer ."],
                ["forward", "--weights", outs["nanogpt_ckpt.pt"], "--text", "S i want a beer ."],
                ["generate", "--weights", outs["gpt_bf16_legacy.pth"], "--prompt", "S i", "--max-new-tokens", "3"]]
        for args in runs:
            r = subprocess.run([CLI] + args + ["--backend", "cpu"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, " ".join(args) + "\n" + r.stdout + r.stderr)
            self.assertNotIn("config was assumed", r.stderr)  # the metadata's config was used


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
