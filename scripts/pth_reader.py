"""Reads the files torch.save writes -- its zip archive (PyTorch >= 1.6) and the legacy format --
with the standard library only (no torch, no numpy), through a restricted unpickler.

Unpickling runs whatever code the file names; RestrictedUnpickler builds only dicts, lists,
tuples, numbers, strings and tensors (the few torch/collections globals a checkpoint needs) and
refuses every other global with an InputError naming it. `load(path)` returns the saved object
with every tensor as a `Tensor` (storage bytes, offset, shape, stride); `to_float32(t)` gives a
float tensor's elements as contiguous little-endian float32 bytes.
"""
import collections
import io
import itertools
import pickle
import re
import struct
import sys
import zipfile
import zlib
from array import array


class InputError(Exception):
    """A usage or input problem (exit code 2)."""


STORAGES = {"FloatStorage": ("F32", 4), "HalfStorage": ("F16", 2), "BFloat16Storage": ("BF16", 2),
            "DoubleStorage": ("F64", 8), "LongStorage": ("I64", 8), "IntStorage": ("I32", 4),
            "ShortStorage": ("I16", 2), "CharStorage": ("I8", 1), "ByteStorage": ("U8", 1),
            "BoolStorage": ("BOOL", 1)}
FLOATS = ("F32", "F16", "BF16", "F64")
NAMES = {"F32": "float32", "F16": "float16", "BF16": "bfloat16", "F64": "float64"}


class StorageType:
    def __init__(self, name):
        self.name, (self.dtype, self.itemsize) = name, STORAGES[name]


class Storage:
    """Raw bytes of one storage (filled later in the legacy format); `base`/`shift`: a view."""

    def __init__(self, stype, data=None, big=False, base=None, shift=0):
        self.dtype, self.itemsize, self.data, self.big = stype.dtype, stype.itemsize, data, big
        self.base, self.shift = base, shift

    def ident(self):  # the root storage and the element this one starts at
        return (id(self), 0) if self.base is None else (self.base.ident()[0], self.base.ident()[1] + self.shift)

    def raw(self):
        if self.base is not None:
            return memoryview(self.base.raw())[self.shift * self.itemsize:]
        return self.data


class Tensor:
    def __init__(self, storage, offset, shape, stride):
        self.storage, self.offset, self.shape, self.stride = storage, offset, tuple(shape), tuple(stride)
        self.numel = 1
        for d in self.shape:
            self.numel *= d

    def contiguous(self):
        """The elements in C order, still in the storage's dtype and byte order."""
        s, data, n = self.storage.itemsize, self.storage.raw(), self.numel
        if n == 0:
            return b""
        last = self.offset + sum((d - 1) * st for d, st in zip(self.shape, self.stride))
        if self.offset < 0 or min(self.stride, default=0) < 0 or (last + 1) * s > len(data):
            raise InputError("a tensor reaches past the end of its storage (damaged file?)")
        want, acc = [], 1
        for d in reversed(self.shape):
            want.insert(0, acc)
            acc *= d
        if all(d == 1 or st == w for d, st, w in zip(self.shape, self.stride, want)):
            return bytes(data[self.offset * s:(self.offset + n) * s])
        shape, stride = self.shape or (1,), self.stride or (1,)
        inner, istep = shape[-1], stride[-1] * s
        out, pos = bytearray(n * s), 0
        for idx in itertools.product(*(range(d) for d in shape[:-1])):
            start = (self.offset + sum(i * st for i, st in zip(idx, stride))) * s
            for b in range(s):  # byte b of every element of the row
                out[pos + b:pos + inner * s:s] = data[start + b:start + b + (inner - 1) * istep + 1:istep]
            pos += inner * s
        return bytes(out)


def _rebuild_tensor_v2(storage, offset, size, stride, requires_grad=False, hooks=None, metadata=None):
    if not isinstance(storage, Storage):
        raise InputError("a tensor without a storage (damaged file?)")
    return Tensor(storage, offset, size, stride)


def _rebuild_parameter(data, requires_grad=False, hooks=None, state=None):
    return data


def _rebuild_from_type_v2(func, new_type, args, state):
    return func(*args)


def _codecs_encode(text, encoding="utf-8"):  # how protocol-2 pickles spell bytes objects
    if encoding not in ("latin1", "latin-1"):
        raise InputError("refusing _codecs.encode with encoding %r" % encoding)
    return text.encode("latin1")


class Namespace:
    """Stands in for argparse.Namespace (a bag of attributes)."""


TENSOR_TYPE = object()
ALLOWED = {("collections", "OrderedDict"): collections.OrderedDict,
           ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
           ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
           ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
           ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type_v2,
           ("torch", "Tensor"): TENSOR_TYPE, ("torch.nn.parameter", "Parameter"): TENSOR_TYPE,
           ("torch", "Size"): tuple, ("argparse", "Namespace"): Namespace,
           ("_codecs", "encode"): _codecs_encode, ("builtins", "set"): set,
           ("builtins", "frozenset"): frozenset, ("builtins", "slice"): slice,
           ("builtins", "complex"): complex, ("builtins", "bytearray"): bytearray}
for _dt in ("float32", "float16", "bfloat16", "float64", "int64", "int32", "int16", "int8", "uint8", "bool"):
    ALLOWED[("torch", _dt)] = "torch." + _dt


class RestrictedUnpickler(pickle.Unpickler):
    def __init__(self, f, storage_loader=None):
        super().__init__(f)
        self.storage_loader = storage_loader

    def find_class(self, module, name):
        if module == "torch" and name.endswith("Storage"):
            if name in STORAGES:
                return StorageType(name)
            raise InputError("unsupported tensor dtype torch.%s (float and integer tensors only)" % name)
        if (module, name) in ALLOWED:
            return ALLOWED[(module, name)]
        hint = ""
        if module == "__main__" or module.startswith("torch.nn") or module.startswith("__torch__"):
            hint = " (a whole module or TorchScript was saved: save model.state_dict() instead)"
        raise InputError("refusing to unpickle the global %s.%s: it is not on the list of the few a "
                         "checkpoint needs, and unpickling it could run code%s" % (module, name, hint))

    def persistent_load(self, pid):
        if self.storage_loader is None or not isinstance(pid, tuple) or not pid or pid[0] != "storage" \
                or len(pid) < 5 or not isinstance(pid[1], StorageType):
            raise InputError("unexpected persistent id %r (not a tensor storage)" % (pid[:2],))
        return self.storage_loader(pid)


def unpickle(f, path, loader=None):
    try:
        return RestrictedUnpickler(f, loader).load()
    except InputError as e:
        raise InputError("%s: %s" % (path, e)) from None
    except Exception as e:  # noqa: BLE001  (pickle reports damage with many exception types)
        raise InputError("%s: not a PyTorch file (%s: %s)" % (path, type(e).__name__, e)) from None


def load_zip(path):
    with zipfile.ZipFile(path) as z:
        pkls = [n for n in z.namelist() if re.fullmatch(r"[^/]+/data\.pkl", n)]
        if len(pkls) != 1:
            raise InputError("%s: a zip file without a PyTorch <name>/data.pkl (not torch.save's format)" % path)
        prefix = pkls[0][:-len("data.pkl")]
        big = prefix + "byteorder" in z.namelist() and z.read(prefix + "byteorder").strip() == b"big"
        storages = {}  # (key, dtype) -> Storage: tensors of two dtypes may share one storage

        def load_storage(pid):
            key = (str(pid[2]), pid[1].dtype)
            if key not in storages:
                try:
                    storages[key] = Storage(pid[1], z.read(prefix + "data/" + key[0]), big)
                except KeyError:
                    raise InputError("tensor data %sdata/%s is missing" % (prefix, key[0])) from None
            return storages[key]

        return unpickle(io.BytesIO(z.read(pkls[0])), path, load_storage)


def load_legacy(path):
    with open(path, "rb") as f:
        if f.peek(1)[:1] != b"\x80" or unpickle(f, path) != 0x1950a86a20f9469cfc6c or unpickle(f, path) != 1001:
            raise InputError("%s: not a PyTorch file (neither a torch.save zip nor the legacy format)" % path)
        info = unpickle(f, path)
        big = isinstance(info, dict) and info.get("little_endian") is False
        storages = {}

        def load_storage(pid):
            stype, key, view = pid[1], str(pid[2]), (pid[5] if len(pid) > 5 else None)
            if key not in storages:
                storages[key] = Storage(stype, None, big)
            if view:
                return Storage(stype, None, big, base=storages[key], shift=int(view[1]))
            return storages[key]

        obj = unpickle(f, path, load_storage)
        for key in unpickle(f, path):
            st = storages.get(str(key))
            head = f.read(8)
            if st is None or len(head) != 8:
                raise InputError("%s: damaged legacy file (storage %s)" % (path, key))
            count = struct.unpack(">q" if big else "<q", head)[0]
            st.data = f.read(count * st.itemsize)
            if len(st.data) != count * st.itemsize:
                raise InputError("%s: truncated (storage %s)" % (path, key))
        return obj


def to_float32(t):
    """Little-endian float32 bytes of a float tensor."""
    raw, size = t.contiguous(), t.storage.itemsize
    if t.storage.big and size > 1:
        swapped = bytearray(len(raw))
        for b in range(size):
            swapped[b::size] = raw[size - 1 - b::size]
        raw = bytes(swapped)
    dtype = t.storage.dtype
    if dtype == "F32":
        return raw
    if dtype == "BF16":  # the upper half of a float32
        out = bytearray(2 * len(raw))
        out[2::4], out[3::4] = raw[0::2], raw[1::2]
        return bytes(out)
    if dtype == "F16":
        a = array("f", struct.unpack("<%de" % (len(raw) // 2), raw))
    else:
        d = array("d")
        d.frombytes(raw)
        if sys.byteorder == "big":
            d.byteswap()
        a = array("f", d)
    if sys.byteorder == "big":
        a.byteswap()
    return a.tobytes()


def load(path):
    """The object torch.save wrote to `path` (zip or legacy format); InputError on bad input."""
    try:
        return load_zip(path) if zipfile.is_zipfile(path) else load_legacy(path)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, OSError) as e:
        raise InputError("%s: cannot read it (%s)" % (path, e)) from None
