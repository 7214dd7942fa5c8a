"""rehash_profile.py EXE.neff IN.json OUT.json: IN.json with its content_hash
replaced by EXE's (header bytes 80..87), so that a profile saved by a fuzz
run stays about the executable it is replayed against."""
import struct
import sys

exe, src, dst = sys.argv[1:4]
with open(exe, "rb") as f:
    digest = struct.unpack_from("<Q", f.read(128), 80)[0]
text = open(src, encoding="utf-8", errors="surrogateescape").read()
start = text.index('"content_hash":"') + len('"content_hash":"')
end = text.index('"', start)
open(dst, "w", encoding="utf-8", errors="surrogateescape").write(
    text[:start] + "0x%016x" % digest + text[end:])
