"""Writes a copy of a neuronc executable whose damage the reader cannot see
(the checksums and content hash are recomputed, every field stays in range)
but the simulator meets while running it: damage_neff.py IN OUT MODE.

MODE deadlock: the first wait of the first instruction that waits at all asks
for a count 1000 (no stream ever signals that often). MODE stationary: the
first load_stationary of p0.tensor loads half the partitions it did, so the
multiply_moving after it finds a smaller stationary matrix than its moving one.
The record layout is docs/neff-format.md's; the checksums are corrupt.py's."""

import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "neuron-inspect", "Inputs"))
from corrupt import reseal, sections  # noqa: E402

src, dst, mode = sys.argv[1:4]
b = bytearray(open(src, "rb").read())


def instructions(name):
    """(offset, record) of every instruction of section `name`."""
    for sname, _, off, _ in sections(b):
        if sname != name:
            continue
        count = struct.unpack_from("<I", b, off)[0]
        at = off + 4
        for _ in range(count):
            length = struct.unpack_from("<H", b, at)[0]
            yield at
            at += length


def streams():
    return [s[0] for s in sections(b) if s[0].startswith("p0.") and s[0] not in
            ("p0.dma", "p0.debug", "p0.cost")]


done = False
if mode == "deadlock":
    for name in sorted(streams()):
        for at in instructions(name):
            if b[at + 5] > 0:  # wait count
                struct.pack_into("<I", b, at + 24 + 4, 1000)
                print("deadlock:", name)
                done = True
                break
        if done:
            break
elif mode == "stationary":
    for at in instructions("p0.tensor"):
        if b[at + 2] == 2:  # load_stationary
            operand = at + 24 + 8 * b[at + 5] + 8 * b[at + 6]
            k = struct.unpack_from("<I", b, operand + 12)[0]
            struct.pack_into("<I", b, operand + 12, k // 2)
            print("stationary: K", k, "->", k // 2)
            done = True
            break
if not done:
    sys.exit("nothing to damage for " + mode)
open(dst, "wb").write(bytes(reseal(b)))
