"""Writes a pathological TOSA program: pathological.py KIND N

chain   N dependent elementwise ops (fusion and lowering walk a long path)
fanout  one value feeding N consumers with distinct constants (no CSE),
        folded back by a balanced tree of maxima (a wide DAG)
bcast   a [1]-shaped value broadcast up a rank-6 ladder of N adds
"""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
T = "tensor<128x64xf32>"
out = [f"func.func @f(%x: {T}, %y: {T}) -> {T} {{"]
if kind == "chain":
    out.append('  %s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>')
    prev = "%x"
    for i in range(n):
        op = ["add", "mul", "sub", "maximum"][i % 4]
        extra, types = (", %s", f"{T}, {T}, tensor<1xi8>") if op == "mul" else ("", f"{T}, {T}")
        out.append(f"  %v{i} = tosa.{op} {prev}, %y{extra} : ({types}) -> {T}")
        prev = f"%v{i}"
    out.append(f"  return {prev} : {T}")
elif kind == "fanout":
    out.append(f"  %e = tosa.exp %x : ({T}) -> {T}")
    vals = []
    for i in range(n):
        out.append(f'  %c{i} = "tosa.const"() <{{values = dense<{i}.0> : tensor<1x1xf32>}}> : () -> tensor<1x1xf32>')
        out.append(f"  %u{i} = tosa.add %e, %c{i} : ({T}, tensor<1x1xf32>) -> {T}")
        vals.append(f"%u{i}")
    k = 0
    while len(vals) > 1:
        a, b = vals.pop(0), vals.pop(0)
        out.append(f"  %m{k} = tosa.maximum {a}, {b} : ({T}, {T}) -> {T}")
        vals.append(f"%m{k}")
        k += 1
    out.append(f"  return {vals[0]} : {T}")
elif kind == "bcast":
    out = ["func.func @f(%x: tensor<1x1x1x1x1x1xf32>, %y: tensor<2x2x2x2x4x64xf32>) -> tensor<2x2x2x2x4x64xf32> {"]
    prev, shape = "%x", [1] * 6
    full = [2, 2, 2, 2, 4, 64]
    for i in range(n):
        d = i % 6
        new = list(shape)
        new[d] = full[d]
        t_in = "tensor<" + "x".join(map(str, shape)) + "xf32>"
        t_out = "tensor<" + "x".join(map(str, new)) + "xf32>"
        # add a value of the target shape sliced down: keep it simple, add %x-shaped ones
        out.append(f'  %k{i} = "tosa.const"() <{{values = dense<1.0> : {t_out}}}> : () -> {t_out}')
        out.append(f"  %b{i} = tosa.add {prev}, %k{i} : ({t_in}, {t_out}) -> {t_out}")
        prev, shape = f"%b{i}", new
    t = "tensor<" + "x".join(map(str, shape)) + "xf32>"
    out.append(f"  %r = tosa.add {prev}, %y : ({t}, tensor<2x2x2x2x4x64xf32>) -> tensor<2x2x2x2x4x64xf32>")
    out.append("  return %r : tensor<2x2x2x2x4x64xf32>")
else:
    sys.exit(f"unknown kind {kind}")
out.append("}")
print("\n".join(out))
