#!/usr/bin/env python3
"""Writes corrupted copies of a neuronc executable, one per kind of damage.

Usage: corrupt.py IN.neff OUTDIR

The layout (docs/neff-format.md): a 128-byte header (magic at 0, major u16
at 8, minor u16 at 10, header size u32 at 12, required features u64 at 16,
optional u64 at 24, target char[16] at 32, compiler char[32] at 48, content
hash u64 at 80, section count u32 at 88, section table offset u64 at 96, file
size u64 at 104, header CRC-32 u32 at 124 over bytes 0..123), then the
section table (40 bytes each: name char[16], offset u64, size u64, CRC-32
u32, flags u32), then the sections. The content hash is XXH64 (seed 0) of
the sections' bytes in table order. This script re-implements both checksums
so that some copies are damaged *inside* consistent checksums, which only
the reader's semantic checks can catch.
"""
import os
import struct
import sys
import zlib

MASK = (1 << 64) - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                      0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & MASK


def xxh64(data, seed=0):
    """XXH64, as llvm::xxHash64 computes it."""
    n = len(data)
    i = 0
    if n >= 32:
        v = [(seed + P1 + P2) & MASK, (seed + P2) & MASK, seed, (seed - P1) & MASK]
        while i + 32 <= n:
            for k in range(4):
                lane = struct.unpack_from('<Q', data, i + 8 * k)[0]
                v[k] = (rotl((v[k] + lane * P2) & MASK, 31) * P1) & MASK
            i += 32
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & MASK
        for k in range(4):
            h ^= (rotl((v[k] * P2) & MASK, 31) * P1) & MASK
            h = (h * P1 + P4) & MASK
    else:
        h = (seed + P5) & MASK
    h = (h + n) & MASK
    while i + 8 <= n:
        lane = struct.unpack_from('<Q', data, i)[0]
        h ^= (rotl((lane * P2) & MASK, 31) * P1) & MASK
        h = (rotl(h, 27) * P1 + P4) & MASK
        i += 8
    if i + 4 <= n:
        h ^= (struct.unpack_from('<I', data, i)[0] * P1) & MASK
        h = (rotl(h, 23) * P2 + P3) & MASK
        i += 4
    while i < n:
        h ^= (data[i] * P5) & MASK
        h = (rotl(h, 11) * P1) & MASK
        i += 1
    h ^= h >> 33
    h = (h * P2) & MASK
    h ^= h >> 29
    h = (h * P3) & MASK
    h ^= h >> 32
    return h


def sections(b):
    count = struct.unpack_from('<I', b, 88)[0]
    table = struct.unpack_from('<Q', b, 96)[0]
    out = []
    for k in range(count):
        at = table + 40 * k
        name = b[at:at + 16].split(b'\0')[0].decode()
        off, size = struct.unpack_from('<QQ', b, at + 16)
        out.append((name, at, off, size))
    return out


def reseal(b):
    """Recomputes every section CRC, the content hash and the header CRC."""
    hashed = bytearray()
    for name, at, off, size in sections(b):
        struct.pack_into('<I', b, at + 32, zlib.crc32(bytes(b[off:off + size])))
        hashed += b[off:off + size]
    struct.pack_into('<Q', b, 80, xxh64(bytes(hashed)))
    struct.pack_into('<I', b, 124, zlib.crc32(bytes(b[:124])))
    return b


def section(b, name):
    for s in sections(b):
        if s[0] == name:
            return s
    raise SystemExit('no section ' + name)


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    data = open(src, 'rb').read()
    os.makedirs(outdir, exist_ok=True)

    def write(name, b):
        open(os.path.join(outdir, name + '.neff'), 'wb').write(bytes(b))

    # The untouched file resealed must stay valid (the checksums agree with
    # the reader's).
    write('resealed', reseal(bytearray(data)))
    write('tiny', data[:100])
    write('truncated', data[:len(data) // 2])
    b = bytearray(data)
    b[0] ^= 0xFF
    write('magic', b)
    b = bytearray(data)
    b[33] ^= 0x01  # the target name, inside the header CRC
    write('header', b)
    b = bytearray(data)
    _, _, off, size = section(b, 'p0.dma')
    b[off + size // 2] ^= 0x40
    write('flipped', b)
    b = bytearray(data)
    struct.pack_into('<H', b, 8, 2)
    struct.pack_into('<I', b, 124, zlib.crc32(bytes(b[:124])))
    write('version', b)
    b = bytearray(data)
    struct.pack_into('<Q', b, 16, struct.unpack_from('<Q', b, 16)[0] | (1 << 40))
    struct.pack_into('<I', b, 124, zlib.crc32(bytes(b[:124])))
    write('feature', b)
    b = bytearray(data)
    _, at, off, size = section(b, 'p0.dma')
    struct.pack_into('<QQ', b, at + 16, len(b) - 10, 900)
    write('offset', b)
    b = bytearray(data)
    _, _, off, size = section(b, 'strings')
    b[off] ^= 0x20
    struct.pack_into('<I', b, section(b, 'strings')[1] + 32, zlib.crc32(bytes(b[off:off + size])))
    write('hash', b)
    # Damage under consistent checksums: the first variable's element type
    # (meta: entry count u32, per entry name u32, the signature (symbol count
    # u32 + names u32, inputs and outputs: count u32 + per value rank u32 +
    # dims i64, mask count u32 + symbols u32, work term count u32 + per term
    # f64 + an exponent u32 per symbol), bucket count u32 + per bucket
    # program u32 + dims u32 [+ dims]; program count u32; then name,
    # target u32, scratch i64, variable count u32, then name u32, kind u8,
    # dtype u8 ...).
    b = bytearray(data)
    _, _, off, size = section(b, 'meta')
    at = off
    entries = struct.unpack_from('<I', b, at)[0]
    at += 4
    def u32():
        nonlocal at
        v = struct.unpack_from('<I', b, at)[0]
        at += 4
        return v
    for _ in range(entries):
        u32()  # name
        symbols = u32()
        at += 4 * symbols
        for _ in range(2):  # inputs, outputs
            for _ in range(u32()):
                rank = u32()
                at += 8 * rank
        masks = u32()
        at += 4 * masks
        terms = u32()
        at += (8 + 4 * symbols) * terms
        buckets = u32()
        for _ in range(buckets):
            dims = struct.unpack_from('<I', b, at + 4)[0]
            at += 8 + 8 * dims
    at += 4 + 4 + 4 + 8 + 4  # program count, name, target, scratch, variable count
    b[at + 5] = 9  # dtype of variable 0
    write('dtype', reseal(b))
    # An operand reaching past SBUF: the partition count of the first
    # operand of the first instruction of the scalar stream (count u32, then
    # the 24-byte record header, waits (8 each), params (8 each), then the
    # operand: space u8, dtype u8, rank u8, pad u8, var u32, partStart u32,
    # partCount u32 ...).
    b = bytearray(data)
    _, _, off, size = section(b, 'p0.scalar')
    rec = off + 4
    waits, params = b[rec + 5], b[rec + 6]
    operand = rec + 24 + 8 * waits + 8 * params
    struct.pack_into('<I', b, operand + 12, 200)
    write('partitions', reseal(b))


if __name__ == '__main__':
    main()
