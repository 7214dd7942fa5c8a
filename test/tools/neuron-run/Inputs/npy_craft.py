"""Writes hand-crafted .npy files, one per way a header or its data can be
wrong, into DIR. Plain python (no numpy): the bytes are the .npy format itself,
magic \\x93NUMPY, major and minor version, the header length (u16 little-endian
for 1.x, u32 for 2.x and 3.x), then a python dict literal padded with spaces
and a newline. Usage: npy_craft.py DIR"""

import os
import struct
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def npy(header, data=b"", major=1, length=None):
    text = header.encode("latin1")
    text += b" " * (-(len(text) + 11) % 64) + b"\n"
    if major == 1:
        size = struct.pack("<H", len(text) if length is None else length)
    else:
        size = struct.pack("<I", len(text) if length is None else length)
    return b"\x93NUMPY" + bytes([major, 0]) + size + text + data


def ok(descr="'<f4'", order="False", shape="(3,)"):
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (descr, order, shape)


f32x3 = struct.pack("<3f", 1.0, 2.0, 3.0)
files = {
    # the dict lacks a key, or a key is not followed by ':'
    "nodescr": npy("{'fortran_order': False, 'shape': (3,), }", f32x3),
    "noshape": npy("{'descr': '<f4', 'fortran_order': False, }", f32x3),
    "nocolon": npy("{'descr' '<f4', 'fortran_order': False, 'shape': (3,), }", f32x3),
    # version 2.0 needs a u32 header length: 11 bytes cannot hold it
    "trunc2": b"\x93NUMPY\x02\x00\x10\x00\x00",
    # the header length runs past the end of the file
    "trunc1": npy(ok(), length=4000),
    "version": npy(ok(), f32x3, major=4),
    "structured": npy(ok(descr="[('a', '<f4')]"), f32x3),
    "order": npy(ok(order="0"), f32x3),
    "shapelist": npy(ok(shape="[3]"), f32x3),
    "dimword": npy(ok(shape="(3, x)"), f32x3),
    "dimneg": npy(ok(shape="(-3,)"), f32x3),
    "uint32": npy(ok(descr="'<u4'"), struct.pack("<3I", 1, 2, 3)),
    "short": npy(ok(shape="(4,)"), f32x3),
    # well-formed: i32 operands for a division by zero
    "ones_i32": npy(ok(descr="'<i4'", shape="(4, 8)"), struct.pack("<32i", *[1] * 32)),
    "zeros_i32": npy(ok(descr="'<i4'", shape="(4, 8)"), bytes(128)),
    "big_i64": npy(ok(descr="'<i8'"), struct.pack("<3q", 1, 2**40, 3)),
}
for name, data in files.items():
    with open(os.path.join(out, name + ".npy"), "wb") as f:
        f.write(data)
