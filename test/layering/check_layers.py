#!/usr/bin/env python3
"""Checks the library graph against the layering rule of docs/architecture.md.

Usage: check_layers.py LIBRARIES ARCHITECTURE_MD [--graph]

LIBRARIES is the file CMake writes (build/neuronc-libraries.txt): one line
per neuronc library, `Name: dep dep ...` with its direct link dependencies.
The rule is the table between `<!-- layers:begin -->` and `<!-- layers:end -->`
in docs/architecture.md: `| layer | library | MLIR | ... |`. It fails when
  - a library is missing from the table (a new library must be placed),
  - an edge points to the same or a higher layer (upward or cyclic),
  - a library whose MLIR column says `no` reaches MLIR through any path.
With --graph it prints the graph as a Mermaid flowchart instead.
"""
import re
import sys


def read_libraries(path):
    deps = {}
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, rest = line.partition(":")
        deps.setdefault(name.strip(), [])
        deps[name.strip()] += rest.split()
    return deps


def read_rule(path):
    text = open(path).read()
    m = re.search(r"<!-- layers:begin -->(.*?)<!-- layers:end -->", text, re.S)
    if not m:
        sys.exit("%s: no <!-- layers:begin --> ... <!-- layers:end --> table" % path)
    layers, mlir = {}, {}
    for row in m.group(1).splitlines():
        cells = [c.strip().strip("`") for c in row.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].isdigit():
            continue
        layers[cells[1]] = int(cells[0])
        mlir[cells[1]] = cells[2] != "no"
    return layers, mlir


def is_mlir(dep):
    return dep == "MLIR" or dep.startswith("MLIR") or "libMLIR" in dep


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    deps = read_libraries(args[0])
    layers, allows_mlir = read_rule(args[1])
    if "--graph" in sys.argv:
        print("```mermaid\nflowchart BT")
        for lib in sorted(deps, key=lambda l: (layers.get(l, 99), l)):
            for d in deps[lib]:
                if d in deps:
                    print("  %s --> %s" % (lib, d))
        print("```")
        return 0
    errors = []
    for lib in sorted(deps):
        if lib not in layers:
            errors.append("%s is not in the layer table of docs/architecture.md: "
                          "give it a layer" % lib)
    edges = 0
    for lib, ds in sorted(deps.items()):
        for d in ds:
            if d not in deps or lib not in layers or d not in layers:
                continue
            edges += 1
            if layers[d] >= layers[lib]:
                errors.append("%s (layer %d) -> %s (layer %d) points %s: a library may "
                              "depend only on lower layers" %
                              (lib, layers[lib], d, layers[d],
                               "up" if layers[d] > layers[lib] else "sideways"))

    def mlir_path(lib, seen):
        for d in deps.get(lib, []):
            if is_mlir(d):
                return [lib, d]
            if d in deps and d not in seen:
                seen.add(d)
                p = mlir_path(d, seen)
                if p:
                    return [lib] + p
        return None

    free = 0
    for lib in sorted(deps):
        if lib in allows_mlir and not allows_mlir[lib]:
            free += 1
            p = mlir_path(lib, set())
            if p:
                errors.append("%s must not link MLIR, but does: %s" % (lib, " -> ".join(p)))
    for e in errors:
        print("layering: error: " + e)
    if errors:
        print("layering: %d error(s)" % len(errors))
        return 1
    print("layering: %d libraries, %d edges between them, %d without MLIR: ok" %
          (len(deps), edges, free))
    return 0


if __name__ == "__main__":
    sys.exit(main())
