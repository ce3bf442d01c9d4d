"""Minimal hand-written safetensors reader/writer (no `safetensors` package needed).

Format: 8-byte little-endian u64 header length N, N bytes of UTF-8 JSON header
  {"__metadata__": {str: str}, "name": {"dtype": "F32", "shape": [...], "data_offsets": [b, e]}, ...}
padded with spaces to a multiple of 8, then the raw little-endian tensor data.
Offsets are relative to the start of the data section; tensors are laid out
contiguously with no gaps (as the reference implementation requires), sorted by
element size descending (I64, F32, U8) so every tensor is naturally aligned.
Within one element size the caller's insertion order is kept, and the header
JSON lists tensors in data order.
"""
import json
import struct

import numpy as np

_DTYPES = {
    "F64": np.dtype("<f8"),
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "I64": np.dtype("<i8"),
    "I32": np.dtype("<i4"),
    "I16": np.dtype("<i2"),
    "I8": np.dtype("i1"),
    "U8": np.dtype("u1"),
    "BOOL": np.dtype("?"),
}


def _dtype_name(arr):
    dt = arr.dtype
    if dt == np.bool_:
        return "U8"  # masks are stored as U8 (1 = masked)
    for name, npdt in _DTYPES.items():
        if dt.kind == npdt.kind and dt.itemsize == npdt.itemsize:
            return name
    raise TypeError("unsupported dtype %s" % dt)


def _to_numpy(t):
    try:
        import torch  # noqa: F401
        if isinstance(t, torch.Tensor):
            t = t.detach().cpu().contiguous()
            if t.dtype == torch.bool:
                t = t.to(torch.uint8)
            return t.numpy()
    except ImportError:
        pass
    return np.asarray(t)


def save(path, tensors, metadata=None):
    """tensors: ordered mapping name -> torch.Tensor / numpy array.
    metadata: optional dict str -> str (omitted from the header when None)."""
    items = []
    for name, t in tensors.items():
        if name == "__metadata__":
            raise ValueError("reserved name")
        arr = _to_numpy(t)
        dname = _dtype_name(arr)
        if arr.dtype == np.bool_:
            arr = arr.astype(np.uint8)
        arr = np.array(arr, dtype=_DTYPES[dname], order="C", copy=True)  # keeps 0-d shape
        items.append((name, dname, arr))
    # stable sort by element size, largest first -> natural alignment, no gaps
    items.sort(key=lambda it: -_DTYPES[it[1]].itemsize)
    header = {}
    if metadata is not None:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    blobs = []
    off = 0
    for name, dname, arr in items:
        b = arr.tobytes(order="C")
        header[name] = {"dtype": dname, "shape": list(arr.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    hjson = json.dumps(header, separators=(",", ":")).encode("utf-8")
    pad = (-len(hjson)) % 8
    hjson += b" " * pad
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hjson)))
        f.write(hjson)
        for b in blobs:
            f.write(b)


def load(path):
    """Returns (tensors: dict name -> numpy array (in header order), metadata: dict or None).
    Validates offsets (contiguous, in range, size == prod(shape)*itemsize)."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ValueError("%s: too short" % path)
    (n,) = struct.unpack("<Q", raw[:8])
    if 8 + n > len(raw):
        raise ValueError("%s: header length out of range" % path)
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    data = raw[8 + n:]
    meta = header.pop("__metadata__", None)
    out = {}
    spans = []
    for name, info in header.items():
        dt = _DTYPES[info["dtype"]]
        shape = tuple(int(s) for s in info["shape"])
        b, e = info["data_offsets"]
        count = int(np.prod(shape)) if shape else 1
        if e - b != count * dt.itemsize or b < 0 or e > len(data):
            raise ValueError("%s: bad offsets for %s" % (path, name))
        out[name] = np.frombuffer(data[b:e], dtype=dt).reshape(shape).copy()
        spans.append((b, e))
    spans.sort()
    pos = 0
    for b, e in spans:
        if b != pos:
            raise ValueError("%s: data section has gaps/overlaps" % path)
        pos = e
    if pos != len(data):
        raise ValueError("%s: trailing bytes in data section" % path)
    return out, meta


def load_torch(path):
    import torch
    t, meta = load(path)
    return {k: torch.from_numpy(v) for k, v in t.items()}, meta


if __name__ == "__main__":
    import sys
    for p in sys.argv[1:]:
        ts, meta = load(p)
        print("%s: %d tensors, metadata keys %s" % (p, len(ts), sorted(meta) if meta else None))
        for k, v in ts.items():
            print("  %-60s %-4s %s" % (k, _dtype_name(v), list(v.shape)))
