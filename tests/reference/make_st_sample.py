#!/usr/bin/env python3
"""Writes tests/fixtures/st_python_made.safetensors, an independent reference file
for the C++ safetensors reader (tests/core/test_safetensors.cpp checks its values).

Uses only the standard library (struct + json), so it runs without numpy or the
safetensors package, and follows the format spec directly rather than our code:
  u64 little-endian header length N | N bytes of JSON header | data section.

Every value below is exactly representable in its dtype, so the test can compare
with ==. Run from anywhere:  python3 tests/reference/make_st_sample.py
"""
import json
import os
import struct


def f32(values):
    return struct.pack("<%df" % len(values), *values)


def f16(values):
    return struct.pack("<%de" % len(values), *values)


def bf16(values):
    # bfloat16 is the upper 16 bits of a float32; the values are chosen so that
    # truncation is exact.
    out = b""
    for v in values:
        bits = struct.unpack("<I", struct.pack("<f", v))[0]
        assert bits & 0xFFFF == 0, "value %r is not exact in bfloat16" % v
        out += struct.pack("<H", bits >> 16)
    return out


def u8(values):
    return bytes(values)


def i64(values):
    return struct.pack("<%dq" % len(values), *values)


# (name, dtype, shape, bytes), in data order. Deliberately not alphabetical, so the
# reader's "ordered by data offsets" promise is actually exercised.
TENSORS = [
    ("weight", "F32", [2, 3], f32([0.5, -1.25, 3.0, 1024.0, -0.0078125, 7.0])),
    ("mask", "U8", [4], u8([0, 1, 200, 255])),
    ("ids", "I64", [3], i64([-5, 0, 123456789])),
    ("half", "F16", [2, 2], f16([1.0, -2.5, 65504.0, 2.0 ** -24])),
    ("brain", "BF16", [3], bf16([1.0, -3.140625, 2.0 ** 100])),
    ("scalar", "F32", [], f32([42.0])),
]
METADATA = {"format": "pt", "made_by": "make_st_sample.py"}


def build():
    header = {"__metadata__": METADATA}
    data = b""
    for name, dtype, shape, raw in TENSORS:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # keep the data section 8-byte aligned, as the spec advises
    return struct.pack("<Q", len(text)) + text + data


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "..", "fixtures", "st_python_made.safetensors")
    with open(out, "wb") as f:
        f.write(build())
    print("wrote", os.path.normpath(out))


if __name__ == "__main__":
    main()
