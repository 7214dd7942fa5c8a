#!/usr/bin/env python3
"""Finds hardware numbers written as literals outside the hardware table.

Usage: check_literals.py ROOT [DIR ...]

Scans the C++ sources under ROOT/lib, ROOT/include and ROOT/tools (or the
given directories) for the
numbers the hardware table defines (partitions 128, PSUM bank 2048 bytes or
512 fp32, PSUM 16384 bytes per partition, SBUF 196608/229376 bytes per
partition, quadrant 32 ...) written as integer literals in code. Comments and
string literals are ignored; lib/ISA/HardwareModel.cpp is the table itself. A
line may keep such a number when it says why: `// heuristic:` (a tuning choice
that happens to equal a hardware number) or `// format:` (a size of the
executable format).
"""
import os
import re
import sys

NUMBERS = {"127", "128", "129", "511", "512", "2048", "16384", "196608", "229376"}
TABLE = os.path.join("lib", "ISA", "HardwareModel.cpp")


def code_of(line):
    """The line without string/char literals and // comments."""
    out, i, quote = [], 0, None
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
            i += 1
            continue
        if ch in "\"'":
            quote = ch
            out.append(" ")
        elif line.startswith("//", i):
            break
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def main():
    root = sys.argv[1]
    dirs = sys.argv[2:] or [os.path.join(root, d) for d in ("lib", "include", "tools")]
    found = 0
    files = 0
    for d in dirs:
        for dirpath, _, names in sorted(os.walk(d)):
            for name in sorted(names):
                if not name.endswith((".cpp", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                if rel == TABLE:
                    continue
                files += 1
                in_block = False
                for n, line in enumerate(open(path, encoding="utf-8"), 1):
                    if "// heuristic:" in line or "// format:" in line:
                        continue
                    stripped = line.strip()
                    if in_block:
                        if "*/" in stripped:
                            in_block = False
                        continue
                    if stripped.startswith("/*"):
                        in_block = "*/" not in stripped
                        continue
                    for tok in re.findall(r"(?<![\w.])\d+(?![\w.])", code_of(line)):
                        if tok in NUMBERS:
                            print("%s:%d: hardware number %s as a literal; read it from the "
                                  "HardwareModel table: %s" % (rel, n, tok, stripped))
                            found += 1
    if found:
        print("hardware literals: %d found" % found)
        return 1
    print("hardware literals: none in %d files" % files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
