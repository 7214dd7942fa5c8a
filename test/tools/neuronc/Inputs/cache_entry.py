#!/usr/bin/env python3
"""Damage the shared compile cache's files in a WebDAV root, for the lit tests.

Usage (ROOT is the cache's directory in the server's root, holding ac/ and cas/):
  cache_entry.py flip-blob ROOT        flip one byte in the middle of the only blob
                                       (its SHA-256 no longer matches its name)
  cache_entry.py resealed-blob ROOT    store a damaged copy of the blob under its own,
                                       correct SHA-256 and point the only action-cache
                                       entry at it (only the executable's checks see it)
  cache_entry.py garbage-entry ROOT    overwrite the only action-cache entry with bytes
                                       that are no ActionResult
  cache_entry.py decode ROOT           print the only action-cache entry as protoc decodes it

Entries are encoded and decoded by protoc against Inputs/remote_execution.proto,
independently of neuronc's own encoder.
"""

import glob
import hashlib
import os
import subprocess
import sys

PROTO_DIR = os.path.dirname(os.path.abspath(__file__))
MESSAGE = "build.bazel.remote.execution.v2.ActionResult"


def only(pattern):
    found = glob.glob(pattern)
    if len(found) != 1:
        sys.exit("cache_entry.py: expected one file %s, found %d" % (pattern, len(found)))
    return found[0]


def protoc(mode, data):
    return subprocess.run(["protoc", "-I", PROTO_DIR, "--%s=%s" % (mode, MESSAGE),
                           "remote_execution.proto"], input=data, check=True,
                          stdout=subprocess.PIPE).stdout


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cmd, root = sys.argv[1], sys.argv[2]
    if cmd == "decode":
        with open(only(root + "/ac/*"), "rb") as f:
            sys.stdout.write(protoc("decode", f.read()).decode())
    elif cmd == "flip-blob":
        blob = only(root + "/cas/*")
        with open(blob, "r+b") as f:
            data = bytearray(f.read())
            data[len(data) // 2] ^= 0xFF
            f.seek(0)
            f.write(data)
    elif cmd == "resealed-blob":
        with open(only(root + "/cas/*"), "rb") as f:
            data = bytearray(f.read())
        data[len(data) // 2] ^= 0xFF
        digest = hashlib.sha256(data).hexdigest()
        with open(root + "/cas/" + digest, "wb") as f:
            f.write(data)
        text = ('output_files { path: "executable.neff" digest { hash: "%s" size_bytes: %d } }'
                % (digest, len(data)))
        with open(only(root + "/ac/*"), "wb") as f:
            f.write(protoc("encode", text.encode()))
        print(digest)
    elif cmd == "garbage-entry":
        with open(only(root + "/ac/*"), "wb") as f:
            f.write(b"this is not an ActionResult\n")
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
