"""What every fixture script shares: writing its files (JSON, and safetensors checked by reading
them back: names, shapes, dtypes, bytes and metadata), remembering what it wrote, and recording
a step-by-step forward's intermediates with their gradients."""
import json
import os

import torch

import st_io


class Fixtures:
    """The files one script writes into `out`; `written` lists them in order."""

    def __init__(self, out):
        self.out = out
        self.written = []

    def path(self, name):
        return os.path.join(self.out, name)

    def write_json(self, name, obj):
        with open(self.path(name), "w") as f:
            json.dump(obj, f, indent=1)
            f.write("\n")
        self.written.append(name)

    def write_st(self, name, tensors, metadata=None):
        p = self.path(name)
        st_io.save(p, tensors, metadata)
        back, meta = st_io.load(p)  # round-trip self-check
        assert sorted(back) == sorted(tensors), name
        for k, v in tensors.items():
            a = v.detach().contiguous()
            if a.dtype == torch.bool:
                a = a.to(torch.uint8)
            a = a.numpy()
            assert back[k].shape == a.shape and back[k].dtype == a.dtype, (name, k)
            assert back[k].tobytes() == a.tobytes(), (name, k)
        assert meta == ({str(k): str(v) for k, v in metadata.items()} if metadata is not None else None)
        self.written.append(name)


class Recorder:
    """name -> tensor in computation order; keeps the gradients of the float ones."""

    def __init__(self):
        self.items = []

    def __call__(self, name, t):
        assert all(n != name for n, _ in self.items), name
        if t.requires_grad:
            t.retain_grad()
        self.items.append((name, t))
        return t

    def trace(self):
        return {n: t.detach().contiguous().clone() for n, t in self.items}

    def grads(self, skip=()):
        out = {}
        for n, t in self.items:
            if n in skip or not t.is_floating_point():
                continue
            assert t.grad is not None, n
            out["grad." + n] = t.grad.detach().contiguous().clone()
        return out
