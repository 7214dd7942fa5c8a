#!/usr/bin/env python3
"""Finds function definitions longer than a limit.

Usage: check_function_length.py LIMIT FILE_OR_DIR ...

Counts the lines of every function body (free functions, member functions
defined in or out of their class, lambdas excluded) in the .cpp and .h files
given, by matching braces outside comments and string literals. Prints each
body over LIMIT lines and exits 1 when there is one.
"""
import os
import re
import sys

CONTROL = re.compile(r"\b(if|for|while|switch|catch|do|else)\b")
SIGNATURE_END = re.compile(r"\)\s*(const)?\s*(override)?\s*(noexcept)?\s*(->\s*[\w:<>&*, ]+)?\s*$")


def strip(line):
    line = re.sub(r'"([^"\\]|\\.)*"', '""', line)
    line = re.sub(r"'([^'\\]|\\.)*'", "''", line)
    return line.split("//")[0]


def long_functions(path, limit):
    lines = open(path, encoding="utf-8").read().split("\n")
    stack = []
    found = []
    for i, raw in enumerate(lines):
        code = strip(raw)
        for pos, ch in enumerate(code):
            if ch == "{":
                before = code[:pos]
                head = before if before.strip() else strip(lines[i - 1]) if i else ""
                is_fn = (SIGNATURE_END.search(head.rstrip()) is not None and
                         not CONTROL.search(head) and "[" not in head.split("(")[0][-3:] and
                         "= [" not in head and "](" not in head)
                stack.append((i, is_fn))
            elif ch == "}" and stack:
                start, is_fn = stack.pop()
                if is_fn and i - start + 1 > limit:
                    found.append((i - start + 1, start + 1, lines[start].strip()))
    return found


def main():
    limit = int(sys.argv[1])
    files = []
    for arg in sys.argv[2:]:
        if os.path.isdir(arg):
            for d, _, names in sorted(os.walk(arg)):
                files += [os.path.join(d, n) for n in sorted(names) if n.endswith((".cpp", ".h"))]
        else:
            files.append(arg)
    bad = 0
    for f in files:
        for n, line, text in long_functions(f, limit):
            print("%s:%d: a function of %d lines (at most %d): %s" % (f, line, n, limit, text[:80]))
            bad += 1
    if bad:
        print("function length: %d over %d lines" % (bad, limit))
        return 1
    print("function length: %d files, none over %d lines" % (len(files), limit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
