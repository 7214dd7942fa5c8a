#!/usr/bin/env python3
"""Check the test references of docs/errors.md against the test tree.

Usage: check_errors_doc.py <neuronc source dir>

A test reference is a backticked path relative to test/ (its first
component is one of the test directories below), optionally followed, in
the same table cell or list item and before the next `;`, by backticked
tokens that say what in the file checks the message:

  `PREFIX`        a FileCheck prefix: the file must contain PREFIX: (or
                  PREFIX-NOT:, PREFIX-NEXT:, ...), and a RUN line must
                  enable it (--check-prefix(es)=..., or the default CHECK)
  `:<n>`          (also written `path:<n>`) line <n> of the file holds an
                  expected-error/-remark/-warning/-note or a FileCheck
                  directive
  `@name`         the file defines @name (the function or program whose
                  expected-error it is)
  `Suite.Test`    for unit/*.cpp: the file defines TEST*(Suite, Test)
  `Test`          for unit/*.cpp: the file defines a test named Test

Backticked paths under lib/ or tools/ that are not test files are source
references: the file must exist and have at least <n> lines when a line is
given. Every failure is printed; the exit code is 1 if there is any.
"""

import glob
import os
import re
import sys

TEST_DIRS = ("Conversion", "Dialect", "Interpreter", "Pipelines", "Profile",
             "Transforms", "bench", "fuzz", "tools", "unit")
SOURCE_DIRS = ("lib", "tools", "include", "docs", "scripts")

PATH_RE = re.compile(r"^([A-Za-z0-9_.*/-]+\.(?:mlir|test|cpp|h|py|json|neff))(?::(\d+))?$")
PREFIX_RE = re.compile(r"^[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*$")
LINE_RE = re.compile(r"^:(\d+)$")
FUNC_RE = re.compile(r"^@[A-Za-z_][A-Za-z0-9_.$-]*$")
UNIT_RE = re.compile(r"^([A-Z][A-Za-z0-9_]*)(?:\.([A-Z][A-Za-z0-9_]*))?$")
DIRECTIVE_RE = re.compile(r"expected-(?:error|remark|warning|note)|[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*:")
SUFFIXES = r"(?:-NOT|-NEXT|-SAME|-DAG|-LABEL|-EMPTY|-COUNT-\d+)?"


class Checker:
    def __init__(self, root):
        self.root = root
        self.test = os.path.join(root, "test")
        self.cache = {}
        self.failures = []
        self.references = 0

    def text(self, path):
        if path not in self.cache:
            with open(path, encoding="utf-8", errors="replace") as f:
                self.cache[path] = f.read()
        return self.cache[path]

    def fail(self, lineno, msg):
        self.failures.append("docs/errors.md:%d: %s" % (lineno, msg))

    def enabled_prefixes(self, text):
        enabled = set()
        default = False
        for line in text.splitlines():
            if "FileCheck" not in line:
                continue
            found = re.findall(r"--?check-prefix(?:es)?[= ]([A-Za-z0-9_,-]+)", line)
            for group in found:
                enabled.update(p for p in group.split(",") if p)
            if not found:
                default = True
        if default:
            enabled.add("CHECK")
        return enabled

    def check_token(self, lineno, rel, full, token):
        text = self.text(full)
        m = LINE_RE.match(token)
        if m:
            self.check_line(lineno, rel, full, int(m.group(1)))
            return
        if rel.startswith("unit/"):
            m = UNIT_RE.match(token)
            if not m:
                return
            suite, name = (m.group(1), m.group(2)) if m.group(2) else (None, m.group(1))
            if suite:
                pat = r"TEST(?:_F|_P)?\(\s*%s\s*,\s*%s\s*\)" % (re.escape(suite), re.escape(name))
            else:
                pat = r"TEST(?:_F|_P)?\(\s*\w+\s*,\s*%s\s*\)" % re.escape(name)
            if not re.search(pat, text):
                self.fail(lineno, "%s has no test %s" % (rel, token))
            return
        if FUNC_RE.match(token):
            if not re.search(re.escape(token) + r"(?![A-Za-z0-9_.$-])", text):
                self.fail(lineno, "%s does not define %s" % (rel, token))
            return
        if PREFIX_RE.match(token):
            pat = r"(?<![A-Za-z0-9_-])" + re.escape(token) + SUFFIXES + ":"
            if not re.search(pat, text):
                self.fail(lineno, "%s has no %s: line" % (rel, token))
                return
            base = re.sub(r"-COUNT-\d+$", "", token)
            if base not in self.enabled_prefixes(text):
                self.fail(lineno, "%s never runs FileCheck with prefix %s" % (rel, base))

    def check_line(self, lineno, rel, full, n):
        lines = self.text(full).splitlines()
        if n < 1 or n > len(lines):
            self.fail(lineno, "%s has no line %d" % (rel, n))
        elif not DIRECTIVE_RE.search(lines[n - 1]):
            self.fail(lineno, "%s:%d is no expected-error or CHECK line: %s"
                      % (rel, n, lines[n - 1].strip()))

    def resolve(self, rel):
        """('test', full) for a test file, ('source', full), or (None, None)."""
        first = rel.split("/", 1)[0]
        if "*" in rel:
            if first in TEST_DIRS and glob.glob(os.path.join(self.test, rel)):
                return "glob", None
            return None, None
        full = os.path.join(self.test, rel)
        if first in TEST_DIRS and os.path.isfile(full):
            return "test", full
        full = os.path.join(self.root, rel)
        if first in SOURCE_DIRS and os.path.isfile(full):
            return "source", full
        return None, None

    def check_doc(self, doc):
        with open(doc, encoding="utf-8") as f:
            lines = f.read().splitlines()
        for lineno, line in enumerate(lines, 1):
            self.check_doc_line(lineno, line)

    def check_doc_line(self, lineno, line):
        # Split the line into text and backticked spans (`x` or ``x``).
        parts = re.split(r"(``.+?``|`[^`]+`)", line)
        current = None  # (rel, full) of the test file the tokens belong to
        for i, part in enumerate(parts):
            if i % 2 == 0:
                if "|" in part or ";" in part:
                    current = None
                continue
            span = part.strip("`").strip()
            m = PATH_RE.match(span)
            first = span.split("/", 1)[0]
            if m and "/" in span and first in TEST_DIRS + SOURCE_DIRS:
                rel, n = m.group(1), m.group(2)
                kind, full = self.resolve(rel)
                if kind is None:
                    if first in TEST_DIRS or first in SOURCE_DIRS:
                        self.fail(lineno, "no such file: %s" % rel)
                    current = None
                    continue
                if kind == "test":
                    self.references += 1
                    current = (rel, full)
                    if n:
                        self.check_line(lineno, rel, full, int(n))
                elif kind == "source":
                    current = None
                    if n and int(n) > len(self.text(full).splitlines()):
                        self.fail(lineno, "%s has fewer than %s lines" % (rel, n))
                else:
                    self.references += 1
                    current = None
                continue
            if current is not None:
                self.check_token(lineno, current[0], current[1], span)


def main():
    if len(sys.argv) != 2:
        print("usage: check_errors_doc.py <neuronc source dir>", file=sys.stderr)
        return 2
    root = sys.argv[1]
    checker = Checker(root)
    checker.check_doc(os.path.join(root, "docs", "errors.md"))
    for failure in checker.failures:
        print(failure)
    if checker.failures:
        print("errors.md: %d of the test references are wrong" % len(checker.failures))
        return 1
    print("errors.md: %d test references checked" % checker.references)
    return 0


if __name__ == "__main__":
    sys.exit(main())
