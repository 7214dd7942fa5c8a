#!/usr/bin/env python3
"""Checks the reference interpreter (neuron-run) against numpy, op family by op family.

Every case is one small func.func @main built from neuron ops, inputs drawn
from a fixed-seed numpy generator, and a reference computed independently in
numpy (float64 math). For each case the script writes the program and the
inputs as .npy files into --workdir, runs

    neuron-run case.mlir --entry main --input in0.npy ... --output out0.npy ...

and compares the outputs with the reference: shape, dtype and values.

Tolerances (see `Tol`):
  * f32 results: max |got - ref| <= 1e-5 * max(1, max |ref|) unless a case
    states a looser bound (none currently needs one).
  * bf16 / f16 results: |got - ref| <= 1 ulp of the type at |ref|, elementwise.
    The interpreter computes in f32 and rounds the result once to
    nearest-even, so a correct result is within 0.5 ulp of the f32 value and
    within 1 ulp of the exact one. bf16 results must also be representable in
    bf16 (the low 16 bits of the f32 written to the .npy are zero).
  * int / bool results and pure conversions (casts): exact equality.
NaN positions must match exactly in every mode.

Prints `PASS name maxerr=...` or `FAIL name: reason` per case, then
`numpy-check: N cases, M failed`; exits 1 when any case failed.

Run with a python that has numpy, e.g. /usr/bin/python3.
"""

import argparse
import math
import os
import subprocess
import sys
import zlib

import numpy as np

F64 = np.float64

# ---------------------------------------------------------------------------
# Helpers: types, rounding emulation, ulps
# ---------------------------------------------------------------------------

NP_OUT_DTYPE = {  # what neuron-run writes for a result element type
    "f32": np.dtype("float32"),
    "bf16": np.dtype("float32"),  # bf16 results are written as float32 .npy
    "f16": np.dtype("float16"),
    "i32": np.dtype("int32"),
    "i1": np.dtype("bool"),
}


def T(shape, ty):
    """MLIR tensor type: T((4, 8), 'f32') -> 'tensor<4x8xf32>'."""
    dims = "".join("%dx" % d for d in shape)
    return "tensor<%s%s>" % (dims, ty)


def bf16_rne(x):
    """f32 -> nearest bf16 (ties to even), returned as float32 values.

    Written from the definition: pick the nearer of the two bf16 neighbours
    of x (found by truncating the f32 to its upper 16 bits and stepping one
    bf16 ulp away from zero), comparing distances in float64; on a tie pick
    the one whose last mantissa bit is 0. Values at or past the midpoint
    above the largest bf16 round to infinity. NaN is not handled (not used).
    """
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32)
    sign = np.where(bits >> 31 == 1, -1.0, 1.0)
    mag = bits & np.uint32(0x7FFFFFFF)
    lo_bits = mag & np.uint32(0xFFFF0000)
    lo = lo_bits.view(np.float32).astype(F64)  # |x| truncated to bf16
    exp_field = (lo_bits >> 23).astype(np.int64)
    # Spacing of bf16 numbers at lo: 2^(e - 127 - 7), subnormals use e = 1.
    step = np.ldexp(1.0, np.maximum(exp_field, 1) - 127 - 7)
    hi = lo + step  # next bf16 magnitude (may be 2^128 = overflow)
    ax = np.abs(x.astype(F64))
    d_lo = ax - lo
    d_hi = hi - ax
    lo_odd = ((lo_bits >> 16) & 1) == 1
    take_hi = (d_hi < d_lo) | ((d_hi == d_lo) & lo_odd)
    r = np.where(take_hi, hi, lo)
    r = np.where(r >= 2.0 ** 128, np.inf, r)
    r = np.where(np.isinf(x), np.inf, r)
    return (sign * r).astype(np.float32)


def f16_round(x):
    """f32 -> nearest f16 via numpy's IEEE conversion (ties to even)."""
    return np.asarray(x, dtype=np.float32).astype(np.float16)


def ulp_of(ref, ty):
    """Spacing of `ty` numbers at |ref| (elementwise, float64)."""
    mant, emin = {"bf16": (7, -126), "f16": (10, -14)}[ty]
    a = np.abs(np.asarray(ref, dtype=F64))
    with np.errstate(divide="ignore"):
        e = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    e = np.where(a > 0, np.maximum(e, emin), emin)
    return np.ldexp(1.0, (e - mant).astype(np.int64))


_erf = np.vectorize(math.erf, otypes=[F64])


def erf(x):
    return _erf(np.asarray(x, dtype=F64))


def f64(x):
    return np.asarray(x, dtype=F64)


def wrap_i32(x):
    """Two's-complement wrap of an int64 array into int32."""
    x = np.asarray(x, dtype=np.int64)
    return (((x + 2 ** 31) % 2 ** 32) - 2 ** 31).astype(np.int32)


def trunc_div(a, b):
    """Integer division truncating toward zero (C semantics), in int64."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


# ---------------------------------------------------------------------------
# Tolerances
# ---------------------------------------------------------------------------


class Tol:
    """How a result is compared. kind: 'rel', 'ulp' or 'exact'."""

    def __init__(self, kind, value=None, ty=None, why=""):
        self.kind, self.value, self.ty, self.why = kind, value, ty, why

    def describe(self):
        if self.kind == "rel":
            return "%.0e*max(1,|ref|)" % self.value
        if self.kind == "ulp":
            return "%g ulp %s" % (self.value, self.ty)
        return "exact"


REL = Tol("rel", 1e-5)
EXACT = Tol("exact")


def ULP(ty, n=1):
    return Tol("ulp", n, ty)


def default_tol(ty):
    if ty == "f32":
        return REL
    if ty in ("bf16", "f16"):
        return ULP(ty)
    return EXACT


# ---------------------------------------------------------------------------
# The case table
# ---------------------------------------------------------------------------


class Case:
    def __init__(self, name, mlir, inputs, ref, out_types, tol=None):
        self.name = name
        self.mlir = mlir
        self.inputs = inputs  # list of numpy arrays, saved as-is
        self.ref = ref  # callable(*inputs) -> array or list of arrays
        self.out_types = out_types  # list of element type names, one per result
        self.tol = tol  # None: default per result type; Tol; or list of Tol


CASES = []


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def add_case(name, mlir, inputs, ref, out_types, tol=None):
    if isinstance(out_types, str):
        out_types = [out_types]
    CASES.append(Case(name, mlir, inputs, ref, out_types, tol))


def func(args, body, results):
    """args: [(name, type)], body: op lines, results: [(value, type)]."""
    sig = ", ".join("%%%s: %s" % (n, t) for n, t in args)
    rtys = ", ".join(t for _, t in results)
    rvals = ", ".join("%" + v for v, _ in results)
    if len(results) > 1:
        rtys_sig = "(%s)" % rtys
    else:
        rtys_sig = rtys
    lines = ["func.func @main(%s) -> %s {" % (sig, rtys_sig)]
    lines += ["  " + l for l in body]
    lines.append("  return %s : %s" % (rvals, rtys))
    lines.append("}")
    return "\n".join(lines) + "\n"


def f32(a):
    return np.asarray(a, dtype=np.float32)


def i32(a):
    return np.asarray(a, dtype=np.int32)


def bshape(a, b):
    return np.broadcast_shapes(tuple(a), tuple(b))


# --- constant ---------------------------------------------------------------


def build_constant():
    vals = [[1.5, -2.0, 0.25], [3.0e-3, 4.0e4, -7.125]]
    add_case(
        "constant_f32_dense",
        func([], ['%%c = neuron.constant dense<%s> : %s' % (
            "[[1.5, -2.0, 0.25], [3.0e-3, 4.0e4, -7.125]]", T((2, 3), "f32"))],
            [("c", T((2, 3), "f32"))]),
        [], lambda: f64(vals), "f32")
    add_case(
        "constant_f32_splat_plus_input",
        func([("x", T((3, 4), "f32"))],
             ["%%c = neuron.constant dense<0.5> : %s" % T((3, 4), "f32"),
              "%%r = neuron.add %%x, %%c : %s, %s -> %s" % (T((3, 4), "f32"), T((3, 4), "f32"),
                                                         T((3, 4), "f32"))],
             [("r", T((3, 4), "f32"))]),
        [f32(rng_for("cs").standard_normal((3, 4)))], lambda x: f64(x) + 0.5, "f32")
    add_case(
        "constant_i32",
        func([], ["%c = neuron.constant dense<[[1, -2], [2147483647, -2147483648]]> : " +
                  T((2, 2), "i32")], [("c", T((2, 2), "i32"))]),
        [], lambda: np.array([[1, -2], [2147483647, -2147483648]], np.int32), "i32")
    add_case(
        "constant_i1",
        func([], ["%c = neuron.constant dense<[true, false, true]> : " + T((3,), "i1")],
             [("c", T((3,), "i1"))]),
        [], lambda: np.array([True, False, True]), "i1")
    add_case(
        "constant_scalar_f32",
        func([], ["%c = neuron.constant dense<-3.25> : tensor<f32>"], [("c", "tensor<f32>")]),
        [], lambda: f64(-3.25), "f32")
    # bf16 constant: the literal is rounded to bf16 (0.1 is not representable).
    add_case(
        "constant_bf16",
        func([], ["%c = neuron.constant dense<[0.1, 1.0, -3.3]> : " + T((3,), "bf16")],
             [("c", T((3,), "bf16"))]),
        [], lambda: bf16_rne(f32([0.1, 1.0, -3.3])).astype(F64), "bf16", EXACT)


# --- binary elementwise -----------------------------------------------------

BINARY_PATTERNS = [
    ("same", (4, 8), (4, 8)),
    ("row", (4, 8), (8,)),          # rank-expanding: [8] against [4,8]
    ("col", (4, 8), (4, 1)),        # [4,1] against [4,8]
    ("both", (1, 8), (3, 4, 1)),    # both operands stretch, lhs has lower rank
    ("scalar", (2, 3, 5), (1,)),
    ("outer4d", (2, 1, 4, 1), (1, 3, 1, 5)),  # every dim stretched on one side
    ("mid", (2, 3, 4), (2, 1, 4)),            # a stretched dim between real ones
    ("ones", (1, 1), (1,)),                   # all-size-1 shapes
]


def binary_inputs(op, rng, sa, sb):
    if op == "pow":
        return f32(rng.uniform(0.25, 3.0, sa)), f32(rng.uniform(-2.5, 2.5, sb))
    a = f32(rng.standard_normal(sa) * 3)
    if op == "div":
        b = f32(rng.choice([-1.0, 1.0], sb) * rng.uniform(0.3, 4.0, sb))
    else:
        b = f32(rng.standard_normal(sb) * 3)
    if op in ("max", "min") and a.size > 1 and b.size > 1:
        b.flat[0] = a.flat[0]  # an exact tie
    return a, b


BINARY_REF = {
    "add": lambda a, b: f64(a) + f64(b),
    "sub": lambda a, b: f64(a) - f64(b),
    "mul": lambda a, b: f64(a) * f64(b),
    "div": lambda a, b: f64(a) / f64(b),
    "max": lambda a, b: np.maximum(f64(a), f64(b)),
    "min": lambda a, b: np.minimum(f64(a), f64(b)),
    "pow": lambda a, b: np.power(f64(a), f64(b)),
}


def binary_case(name, op, sa, sb, ty, a, b, ref, tol=None):
    so = bshape(sa, sb)
    add_case(name,
             func([("a", T(sa, ty)), ("b", T(sb, ty))],
                  ["%%r = neuron.%s %%a, %%b : %s, %s -> %s" % (op, T(sa, ty), T(sb, ty), T(so, ty))],
                  [("r", T(so, ty))]),
             [a, b], ref, ty, tol)


def build_binary():
    for op in ["add", "sub", "mul", "div", "max", "min", "pow"]:
        for pname, sa, sb in BINARY_PATTERNS:
            name = "%s_%s" % (op, pname)
            a, b = binary_inputs(op, rng_for(name), sa, sb)
            binary_case(name, op, sa, sb, "f32", a, b, BINARY_REF[op])
    # NaN propagates through max/min (numpy.maximum/minimum semantics).
    a = f32([1.0, np.nan, 3.0, np.nan])
    b = f32([np.nan, 2.0, -1.0, np.nan])
    for op in ["max", "min"]:
        binary_case("%s_nan" % op, op, (4,), (4,), "f32", a, b, BINARY_REF[op])
    # IEEE division by zero: +-inf and NaN like numpy
    a = f32([1.0, -1.0, 0.0, 2.0, 3.0])
    b = f32([0.0, 0.0, 0.0, -0.0, 4.0])
    binary_case("div_by_zero", "div", (5,), (5,), "f32", a, b, BINARY_REF["div"])
    # pow with a negative base and integral exponents (x^2, x^3, x^-1, x^0)
    rng = rng_for("pow_negative_base")
    a = f32(-rng.uniform(0.5, 3.0, (4, 4)))
    b = f32([2.0, 3.0, -1.0, 0.0])
    binary_case("pow_negative_base_int_exponent", "pow", (4, 4), (4,), "f32", a, b,
                BINARY_REF["pow"])


# --- compare / select -------------------------------------------------------

CMP_REF = {
    "eq": np.equal, "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
}


def build_compare_select():
    for pred, fn in CMP_REF.items():
        for pname, sa, sb in [("row", (4, 8), (8,)), ("col", (4, 8), (4, 1))]:
            name = "compare_%s_%s" % (pred, pname)
            rng = rng_for(name)
            # small integers as floats so that equality actually happens
            a = f32(rng.integers(-3, 4, sa))
            b = f32(rng.integers(-3, 4, sb))
            so = bshape(sa, sb)
            add_case(name,
                     func([("a", T(sa, "f32")), ("b", T(sb, "f32"))],
                          ["%%m = neuron.compare %s, %%a, %%b : %s, %s -> %s" % (
                              pred, T(sa, "f32"), T(sb, "f32"), T(so, "i1"))],
                          [("m", T(so, "i1"))]),
                     [a, b], lambda a, b, fn=fn: fn(f64(a), f64(b)), "i1")
        name = "compare_%s_i32" % pred
        rng = rng_for(name)
        a = i32(rng.integers(-3, 4, (3, 5)))
        b = i32(rng.integers(-3, 4, (5,)))
        add_case(name,
                 func([("a", T((3, 5), "i32")), ("b", T((5,), "i32"))],
                      ["%%m = neuron.compare %s, %%a, %%b : %s, %s -> %s" % (
                          pred, T((3, 5), "i32"), T((5,), "i32"), T((3, 5), "i1"))],
                      [("m", T((3, 5), "i1"))]),
                 [a, b], lambda a, b, fn=fn: fn(a.astype(np.int64), b.astype(np.int64)), "i1")

    def select_case(name, sc, st, sf, ty, gen):
        rng = rng_for(name)
        c = rng.integers(0, 2, sc).astype(bool)
        t, f = gen(rng, st), gen(rng, sf)
        so = bshape(sc, bshape(st, sf))
        add_case(name,
                 func([("c", T(sc, "i1")), ("t", T(st, ty)), ("f", T(sf, ty))],
                      ["%%r = neuron.select %%c, %%t, %%f : %s, %s, %s -> %s" % (
                          T(sc, "i1"), T(st, ty), T(sf, ty), T(so, ty))],
                      [("r", T(so, ty))]),
                 [c, t, f], lambda c, t, f: np.where(c, t, f), ty)

    fgen = lambda rng, s: f32(rng.standard_normal(s))
    igen = lambda rng, s: i32(rng.integers(-100, 100, s))
    select_case("select_same", (4, 8), (4, 8), (4, 8), "f32", fgen)
    select_case("select_bcast_cond_col", (4, 1), (4, 8), (8,), "f32", fgen)
    select_case("select_bcast_cond_row", (8,), (3, 1, 8), (4, 1), "f32", fgen)
    select_case("select_bcast_values", (2, 4, 8), (8,), (1,), "f32", fgen)
    select_case("select_i32", (4, 1), (4, 6), (6,), "i32", igen)

    # compare feeding select: relu written as select(x > 0, x, 0)
    name = "compare_then_select"
    x = f32(rng_for(name).standard_normal((5, 6)))
    add_case(name,
             func([("x", T((5, 6), "f32"))],
                  ["%z = neuron.constant dense<0.0> : " + T((1,), "f32"),
                   "%m = neuron.compare gt, %x, %z : {}, {} -> {}".format(
                       T((5, 6), "f32"), T((1,), "f32"), T((5, 6), "i1")),
                   "%r = neuron.select %m, %x, %z : {}, {}, {} -> {}".format(
                       T((5, 6), "i1"), T((5, 6), "f32"), T((1,), "f32"), T((5, 6), "f32"))],
                  [("r", T((5, 6), "f32"))]),
             [x], lambda x: np.where(f64(x) > 0, f64(x), 0.0), "f32")


# --- unary ------------------------------------------------------------------


def gelu_erf_ref(x):
    x = f64(x)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def gelu_tanh_ref(x):
    x = f64(x)
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def sigmoid_ref(x):
    return 1.0 / (1.0 + np.exp(-f64(x)))


UNARY = {
    # name: (numpy ref, input generator)
    "neg": (lambda x: -f64(x), "normal"),
    "abs": (lambda x: np.abs(f64(x)), "normal"),
    "exp": (lambda x: np.exp(f64(x)), "normal"),
    "log": (lambda x: np.log(f64(x)), "positive"),
    "sqrt": (lambda x: np.sqrt(f64(x)), "positive"),
    "rsqrt": (lambda x: 1.0 / np.sqrt(f64(x)), "positive"),
    "reciprocal": (lambda x: 1.0 / f64(x), "nonzero"),
    "square": (lambda x: f64(x) ** 2, "normal"),
    "tanh": (lambda x: np.tanh(f64(x)), "normal"),
    "sigmoid": (sigmoid_ref, "wide"),
    "erf": (erf, "normal"),
    "silu": (lambda x: f64(x) * sigmoid_ref(x), "wide"),
    "relu": (lambda x: np.maximum(f64(x), 0.0), "normal"),
    # numpy's rint rounds half to even, like TOSA's float-to-int cast
    "round": (lambda x: np.rint(f64(x)), "halves"),
    # RoPE's angles reach thousands of radians
    "sin": (lambda x: np.sin(f64(x)), "angles"),
    "cos": (lambda x: np.cos(f64(x)), "angles"),
}


def unary_input(kind, rng, shape):
    if kind == "halves":  # exact .5 ties in both directions, and others
        return f32(rng.integers(-20, 20, shape) * 0.5 + rng.choice([0.0, 0.25], shape))
    if kind == "positive":
        return f32(rng.uniform(0.05, 20.0, shape))
    if kind == "nonzero":
        return f32(rng.choice([-1.0, 1.0], shape) * rng.uniform(0.1, 10.0, shape))
    if kind == "wide":
        return f32(rng.uniform(-12.0, 12.0, shape))
    if kind == "angles":  # small, around multiples of pi, and up to 10^4
        x = rng.uniform(-4.0, 4.0, shape) * 10.0 ** rng.integers(0, 5, shape)
        x.flat[:4] = [0.0, math.pi, -math.pi / 2, 4095.0]
        return f32(x)
    return f32(rng.standard_normal(shape) * 2.0)


def unary_case(name, text_op, shape, ty, x, ref, tol=None):
    add_case(name,
             func([("x", T(shape, ty))],
                  ["%%r = %s %%x%s : %s" % (text_op[0], text_op[1], T(shape, ty))],
                  [("r", T(shape, ty))]),
             [x], ref, ty, tol)


def build_unary():
    shape = (4, 9)
    for op, (ref, kind) in UNARY.items():
        name = "unary_" + op
        x = unary_input(kind, rng_for(name), shape)
        if op == "relu":
            x.flat[0] = 0.0
            x.flat[1] = -0.0
        unary_case(name, ("neuron." + op, ""), shape, "f32", x, ref)
    for approx, ref in [("erf", gelu_erf_ref), ("tanh", gelu_tanh_ref)]:
        name = "unary_gelu_" + approx
        x = f32(rng_for(name).uniform(-6.0, 6.0, shape))
        unary_case(name, ("neuron.gelu", " approximate = " + approx), shape, "f32", x, ref)
    # integer unaries (two's complement: -INT_MIN and |INT_MIN| wrap to INT_MIN)
    xi = i32([[0, 1, -1, 7, -123456, 2147483647, -2147483648, 46340]])
    for op, ref in [("neg", lambda x: wrap_i32(-x.astype(np.int64))),
                    ("abs", lambda x: wrap_i32(np.abs(x.astype(np.int64)))),
                    ("square", lambda x: wrap_i32(x.astype(np.int64) ** 2)),
                    ("relu", lambda x: np.maximum(x, 0).astype(np.int32))]:
        unary_case("int_" + op, ("neuron." + op, ""), xi.shape, "i32", xi, ref)


# --- reductions -------------------------------------------------------------

RED_REF = {
    "reduce_sum": lambda x, ax, kd: np.sum(f64(x), axis=ax, keepdims=kd),
    "reduce_mean": lambda x, ax, kd: np.mean(f64(x), axis=ax, keepdims=kd),
    "reduce_max": lambda x, ax, kd: np.max(f64(x), axis=ax, keepdims=kd),
    "reduce_min": lambda x, ax, kd: np.min(f64(x), axis=ax, keepdims=kd),
    "reduce_prod": lambda x, ax, kd: np.prod(f64(x), axis=ax, keepdims=kd),
}

RED_PATTERNS = [
    # name, input shape, axes, keepdims
    ("last_keep", (3, 4, 5), [2], True),
    ("last", (3, 4, 5), [2], False),
    ("first", (3, 4, 5), [0], False),
    ("middle_keep", (3, 4, 5), [1], True),
    ("axes02", (2, 3, 4, 5), [0, 2], False),        # several non-trailing axes
    ("axes01_keep", (2, 3, 4, 5), [0, 1], True),
    ("axes13_unsorted", (2, 3, 4, 5), [3, 1], False),
    ("trailing2", (2, 3, 4, 5), [2, 3], False),
    ("all", (3, 4, 5), [0, 1, 2], False),            # rank-0 result
]


def red_mlir(op, shape, axes, keepdims, ty):
    oshape = tuple(1 if i in axes else d for i, d in enumerate(shape)) if keepdims else \
        tuple(d for i, d in enumerate(shape) if i not in axes)
    text = "%%r = neuron.%s %%x axes = [%s]%s : %s -> %s" % (
        op, ", ".join(map(str, axes)), " keepdims" if keepdims else "", T(shape, ty),
        T(oshape, ty))
    return func([("x", T(shape, ty))], [text], [("r", T(oshape, ty))])


def build_reductions():
    for op, ref in RED_REF.items():
        for pname, shape, axes, kd in RED_PATTERNS:
            name = "%s_%s" % (op, pname)
            rng = rng_for(name)
            x = f32(rng.uniform(0.7, 1.3, shape) * rng.choice([-1.0, 1.0], shape)) \
                if op == "reduce_prod" else f32(rng.standard_normal(shape) * 4.0)
            add_case(name, red_mlir(op, shape, axes, kd, "f32"), [x],
                     lambda x, ax=tuple(axes), kd=kd, ref=ref: ref(x, ax, kd), "f32")
    # large-magnitude sum where f32 accumulation would lose the small terms
    name = "reduce_sum_cancellation"
    x = f32(np.concatenate([[1.0e8], np.ones(1000), [-1.0e8]]))[None, :]
    add_case(name, red_mlir("reduce_sum", x.shape, [1], False, "f32"), [x],
             lambda x: np.sum(f64(x), axis=1), "f32")
    # NaN propagates through reduce_max/min like numpy.max/min
    x = f32([[1.0, np.nan, 3.0], [2.0, 5.0, -1.0]])
    for op in ["reduce_max", "reduce_min"]:
        add_case(op + "_nan", red_mlir(op, x.shape, [1], False, "f32"), [x],
                 lambda x, ref=RED_REF[op]: ref(x, 1, False), "f32")


# --- matmul -----------------------------------------------------------------


def mm_ref(a, b, tl=False, tr=False):
    a, b = f64(a), f64(b)
    if tl:
        a = np.swapaxes(a, -1, -2)
    if tr:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


def mm_case(name, sa, sb, tl=False, tr=False, ty="f32", gen=None, ref=None, tol=None):
    rng = rng_for(name)
    gen = gen or (lambda s: f32(rng.standard_normal(s)))
    a, b = gen(sa), gen(sb)
    # output shape from numpy on zeros (independent of the interpreter's rules)
    so = mm_ref(np.zeros(sa), np.zeros(sb), tl, tr).shape
    flags = (" transpose_lhs" if tl else "") + (" transpose_rhs" if tr else "")
    add_case(name,
             func([("a", T(sa, ty)), ("b", T(sb, ty))],
                  ["%%c = neuron.matmul %%a, %%b%s : %s, %s -> %s" % (
                      flags, T(sa, ty), T(sb, ty), T(so, ty))],
                  [("c", T(so, ty))]),
             [a, b], ref or (lambda a, b: mm_ref(a, b, tl, tr)), ty, tol)


def build_matmul():
    # bf16 operands, f32 result: products accumulated in f32 (the auto-cast form)
    name = "matmul_bf16_operands_f32_result"
    rng = rng_for(name)
    a, b = bf16_rne(rng.standard_normal((5, 16))), bf16_rne(rng.standard_normal((16, 3)))
    add_case(name,
             func([("a", T((5, 16), "bf16")), ("b", T((16, 3), "bf16"))],
                  ["%c = neuron.matmul %a, %b : tensor<5x16xbf16>, tensor<16x3xbf16> -> tensor<5x3xf32>"],
                  [("c", T((5, 3), "f32"))]),
             [a, b], lambda a, b: mm_ref(a, b), "f32")
    mm_case("matmul_2d", (5, 7), (7, 3))
    mm_case("matmul_batched_3d", (2, 5, 7), (2, 7, 3))
    mm_case("matmul_rhs_rank2_broadcast", (3, 5, 7), (7, 4))
    mm_case("matmul_lhs_rank2_broadcast", (5, 7), (3, 7, 4))
    mm_case("matmul_batch_broadcast_4d", (2, 1, 5, 7), (3, 7, 4))
    mm_case("matmul_transpose_lhs_2d", (7, 5), (7, 3), tl=True)
    mm_case("matmul_transpose_lhs_batched", (2, 7, 5), (2, 7, 3), tl=True)
    mm_case("matmul_transpose_rhs_2d", (5, 7), (3, 7), tr=True)
    mm_case("matmul_transpose_rhs_rank2_broadcast", (2, 4, 8), (16, 8), tr=True)
    mm_case("matmul_transpose_both", (2, 7, 5), (2, 3, 7), tl=True, tr=True)
    mm_case("matmul_k64", (4, 64), (64, 6))
    rng = rng_for("matmul_i32")
    mm_case("matmul_i32", (3, 5), (5, 4), ty="i32",
            gen=lambda s: i32(rng.integers(-50, 50, s)),
            ref=lambda a, b: np.matmul(a.astype(np.int64), b.astype(np.int64)).astype(np.int32))
    # bf16: inputs given as f32 are rounded to bf16 by neuron-run
    rng = rng_for("matmul_bf16")
    mm_case("matmul_bf16", (2, 4, 16), (16, 5), ty="bf16",
            gen=lambda s: f32(rng.standard_normal(s)),
            ref=lambda a, b: mm_ref(bf16_rne(a), bf16_rne(b)))


# --- data movement ----------------------------------------------------------


def build_data_movement():
    rng = rng_for("transpose")
    for name, shape, perm in [("transpose_2d", (3, 5), [1, 0]),
                              ("transpose_3d", (2, 3, 4), [2, 0, 1]),
                              ("transpose_4d", (2, 3, 4, 5), [0, 2, 1, 3]),
                              ("transpose_4d_reverse", (2, 3, 4, 5), [3, 2, 1, 0])]:
        x = f32(rng.standard_normal(shape))
        oshape = tuple(shape[p] for p in perm)
        add_case(name,
                 func([("x", T(shape, "f32"))],
                      ["%%r = neuron.transpose %%x perm = [%s] : %s -> %s" % (
                          ", ".join(map(str, perm)), T(shape, "f32"), T(oshape, "f32"))],
                      [("r", T(oshape, "f32"))]),
                 [x], lambda x, perm=perm: np.transpose(x, perm), "f32", EXACT)
    xi = i32(rng.integers(-9, 9, (3, 4, 2)))
    add_case("transpose_i32",
             func([("x", T((3, 4, 2), "i32"))],
                  ["%r = neuron.transpose %x perm = [1, 2, 0] : {} -> {}".format(
                      T((3, 4, 2), "i32"), T((4, 2, 3), "i32"))],
                  [("r", T((4, 2, 3), "i32"))]),
             [xi], lambda x: np.transpose(x, [1, 2, 0]), "i32")

    for name, shape, oshape in [("reshape_merge", (2, 3, 4), (6, 4)),
                                ("reshape_flatten", (2, 3, 4), (24,)),
                                ("reshape_split", (2, 3, 4), (4, 1, 6)),
                                ("reshape_to_scalar", (1, 1), ())]:
        x = f32(rng_for(name).standard_normal(shape))
        add_case(name,
                 func([("x", T(shape, "f32"))],
                      ["%%r = neuron.reshape %%x : %s -> %s" % (T(shape, "f32"), T(oshape, "f32"))],
                      [("r", T(oshape, "f32"))]),
                 [x], lambda x, o=oshape: np.reshape(x, o), "f32", EXACT)

    for name, shape, oshape in [("broadcast_to_col", (3, 1), (2, 3, 4)),
                                ("broadcast_to_row", (4,), (3, 4)),
                                ("broadcast_to_one", (1,), (2, 2)),
                                ("broadcast_to_middle", (2, 1, 4), (2, 3, 4))]:
        x = f32(rng_for(name).standard_normal(shape))
        add_case(name,
                 func([("x", T(shape, "f32"))],
                      ["%%r = neuron.broadcast_to %%x : %s -> %s" % (T(shape, "f32"),
                                                                     T(oshape, "f32"))],
                      [("r", T(oshape, "f32"))]),
                 [x], lambda x, o=oshape: np.broadcast_to(x, o), "f32", EXACT)

    def slice_case(name, shape, offsets, sizes, strides, ty="f32"):
        rng = rng_for(name)
        x = f32(rng.standard_normal(shape)) if ty == "f32" else i32(rng.integers(-99, 99, shape))
        idx = tuple(slice(o, o + (n - 1) * s + 1, s) if n > 0 else slice(0, 0)
                    for o, n, s in zip(offsets, sizes, strides))
        j = lambda v: ", ".join(map(str, v))
        add_case(name,
                 func([("x", T(shape, ty))],
                      ["%%r = neuron.slice %%x offsets = [%s] sizes = [%s] strides = [%s] : %s -> %s"
                       % (j(offsets), j(sizes), j(strides), T(shape, ty), T(sizes, ty))],
                      [("r", T(sizes, ty))]),
                 [x], lambda x, idx=idx: x[idx], ty, EXACT)

    slice_case("slice_contiguous", (6, 8), [1, 2], [3, 4], [1, 1])
    slice_case("slice_strided_2d", (6, 8), [1, 0], [3, 3], [2, 3])
    slice_case("slice_strided_3d", (4, 5, 9), [1, 0, 2], [2, 5, 3], [2, 1, 3])
    slice_case("slice_last_element", (5, 7), [4, 6], [1, 1], [1, 1])
    slice_case("slice_strided_i32", (11,), [1], [4], [3], ty="i32")

    def concat_case(name, shapes, axis, ty="f32"):
        rng = rng_for(name)
        xs = [f32(rng.standard_normal(s)) if ty == "f32" else i32(rng.integers(-9, 9, s))
              for s in shapes]
        oshape = np.concatenate([np.zeros(s) for s in shapes], axis=axis).shape
        args = [("x%d" % k, T(s, ty)) for k, s in enumerate(shapes)]
        add_case(name,
                 func(args,
                      ["%%r = neuron.concat %s axis = %d : %s -> %s" % (
                          ", ".join("%" + n for n, _ in args), axis,
                          ", ".join(t for _, t in args), T(oshape, ty))],
                      [("r", T(oshape, ty))]),
                 xs, lambda *xs, axis=axis: np.concatenate(xs, axis=axis), ty, EXACT)

    concat_case("concat_axis0", [(2, 3), (4, 3)], 0)
    concat_case("concat_axis1_three", [(2, 1, 4), (2, 3, 4), (2, 2, 4)], 1)
    concat_case("concat_last_axis", [(3, 2), (3, 5)], 1)
    concat_case("concat_i32", [(2, 2), (2, 3)], 1, ty="i32")

    def gather_case(name, tshape, ishape, axis, ty="f32"):
        rng = rng_for(name)
        table = f32(rng.standard_normal(tshape)) if ty == "f32" else i32(rng.integers(-99, 99, tshape))
        ids = i32(rng.integers(0, tshape[axis], ishape))
        ids.flat[0] = tshape[axis] - 1  # last row
        if ids.size > 1:
            ids.flat[1] = ids.flat[0]  # a repeat
        oshape = tshape[:axis] + ishape + tshape[axis + 1:]
        add_case(name,
                 func([("t", T(tshape, ty)), ("i", T(ishape, "i32"))],
                      ["%%r = neuron.gather %%t[%%i] axis = %d : %s, %s -> %s" % (
                          axis, T(tshape, ty), T(ishape, "i32"), T(oshape, ty))],
                      [("r", T(oshape, ty))]),
                 [table, ids], lambda t, i, axis=axis: np.take(t, i, axis=axis), ty, EXACT)

    gather_case("gather_embedding_axis0", (10, 6), (2, 3), 0)
    gather_case("gather_axis1", (4, 7, 3), (5,), 1)
    gather_case("gather_axis1_2d_ids", (3, 8), (2, 2), 1)
    gather_case("gather_last_axis", (2, 3, 6), (4,), 2)
    gather_case("gather_i32_table", (6, 2), (3,), 0, ty="i32")


# --- cast -------------------------------------------------------------------


def cast_case(name, x, sty, dty, ref, tol=None):
    shape = x.shape
    add_case(name,
             func([("x", T(shape, sty))],
                  ["%%r = neuron.cast %%x : %s -> %s" % (T(shape, sty), T(shape, dty))],
                  [("r", T(shape, dty))]),
             [x], ref, dty, tol if tol is not None else EXACT)


def build_cast():
    # f32 -> i32: truncation toward zero (incl. negatives) and saturation
    x = f32([[0.0, -0.0, 0.4, -0.4, 0.999, -0.999, 1.5, -1.5],
             [2.5, -2.5, 7.9, -7.9, 123456.7, -123456.7, 3.0e9, -3.0e9],
             [2147483520.0, -2147483648.0, 2147483648.0, -2.5e38, 1.0e-30, 16777217.0, 99.0, -100.0]])
    cast_case("cast_f32_to_i32", x, "f32", "i32",
              lambda x: np.clip(np.trunc(f64(x)), -2.0 ** 31, 2.0 ** 31 - 1).astype(np.int32))
    rng = rng_for("cast_f32_to_i32_random")
    x = f32(rng.uniform(-1000, 1000, (4, 8)))
    cast_case("cast_f32_to_i32_random", x, "f32", "i32",
              lambda x: np.trunc(f64(x)).astype(np.int32))
    # i32 -> f32: exact for |v| <= 2^24, otherwise nearest (ties to even)
    xi = i32([[0, 1, -1, 16777216, 16777217, 16777219, -16777217, 2147483647, -2147483648, 123]])
    cast_case("cast_i32_to_f32", xi, "i32", "f32",
              lambda x: x.astype(np.int64).astype(F64).astype(np.float32))
    # f32 -> bf16 / f16: round to nearest, ties to even, including exact ties
    special = f32([1.0, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, -(1.0 + 2.0 ** -8),
                   1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 65504.0, 65519.0, 65520.0, 1.0e5,
                   6.0e-8, 2.0e-8, 3.0e-8, 1.0e-40, 0.0, -0.0,
                   np.uint32(0x7F7F8000).view(np.float32),  # bf16 midpoint -> inf
                   np.uint32(0x7F7F7FFF).view(np.float32),  # just below -> max bf16
                   np.inf, -np.inf])
    rnd = f32(rng_for("cast_round").standard_normal(44) * 100)
    x = np.concatenate([special, rnd]).reshape(4, 16)
    cast_case("cast_f32_to_bf16", x, "f32", "bf16", lambda x: bf16_rne(x))
    cast_case("cast_f32_to_f16", x, "f32", "f16", lambda x: f16_round(x))
    # bf16/f16 -> f32 is exact; the input .npy is f32 (rounded to bf16 on load) / f16
    cast_case("cast_bf16_to_f32", x, "bf16", "f32", lambda x: bf16_rne(x))
    with np.errstate(over="ignore"):
        xh = x.astype(np.float16)
    cast_case("cast_f16_to_f32", xh, "f16", "f32", lambda x: x.astype(np.float32))
    cast_case("cast_f16_to_bf16", xh, "f16", "bf16", lambda x: bf16_rne(x.astype(np.float32)))
    # -> i1 is x != 0
    x = f32([[0.0, -0.0, 1.0e-45, -2.0, 0.5, np.inf, 3.0, 0.0]])
    cast_case("cast_f32_to_i1", x, "f32", "i1", lambda x: f64(x) != 0.0)
    xi = i32([[0, 1, -1, 2, 0, 2147483647, -2147483648, 0]])
    cast_case("cast_i32_to_i1", xi, "i32", "i1", lambda x: x != 0)
    xb = np.array([[True, False, True, True]])
    cast_case("cast_i1_to_f32", xb, "i1", "f32", lambda x: x.astype(F64))
    cast_case("cast_i1_to_i32", xb, "i1", "i32", lambda x: x.astype(np.int32))


# --- named kernels ----------------------------------------------------------


def rmsnorm_ref(x, w, axes, eps):
    x = f64(x)
    ms = np.mean(x * x, axis=tuple(axes), keepdims=True)
    y = x / np.sqrt(ms + F64(np.float32(eps)))
    return y * f64(w) if w is not None else y


def layernorm_ref(x, w, b, axes, eps):
    x = f64(x)
    mu = np.mean(x, axis=tuple(axes), keepdims=True)
    var = np.mean((x - mu) ** 2, axis=tuple(axes), keepdims=True)  # population variance
    y = (x - mu) / np.sqrt(var + F64(np.float32(eps)))
    if w is not None:
        y = y * f64(w)
    if b is not None:
        y = y + f64(b)
    return y


def norm_case(name, kind, shape, axes, eps, wshape=None, bshape_=None, ty="f32"):
    rng = rng_for(name)
    x = f32(rng.standard_normal(shape) * 2.0 + 0.5)
    ins, args = [x], [("x", T(shape, ty))]
    opnds = "%x"
    if wshape is not None:
        ins.append(f32(rng.uniform(0.5, 1.5, wshape)))
        args.append(("w", T(wshape, ty)))
        opnds += " weight %w"
    if bshape_ is not None:
        ins.append(f32(rng.standard_normal(bshape_)))
        args.append(("b", T(bshape_, ty)))
        opnds += " bias %b"
    types = ", ".join(t for _, t in args)
    text = "%%y = neuron.%s %s axes = [%s] epsilon = %s : (%s) -> %s" % (
        kind, opnds, ", ".join(map(str, axes)), eps, types, T(shape, ty))
    has_w, has_b = wshape is not None, bshape_ is not None

    def ref(*a):
        a = list(a)
        if ty == "bf16":
            a = [bf16_rne(v) for v in a]
        x = a[0]
        w = a[1] if has_w else None
        b = a[1 + has_w] if has_b else None
        if kind == "rmsnorm":
            return rmsnorm_ref(x, w, axes, float(eps))
        return layernorm_ref(x, w, b, axes, float(eps))

    add_case(name, func(args, [text], [("y", T(shape, ty))]), ins, ref, ty)


def softmax_case(name, shape, axis, log, ty="f32", scale=3.0):
    x = f32(rng_for(name).standard_normal(shape) * scale)
    text = "%%y = neuron.softmax %%x axis = %d%s : %s" % (axis, " log" if log else "", T(shape, ty))

    def ref(x):
        if ty == "bf16":
            x = bf16_rne(x)
        x = f64(x)
        z = x - np.max(x, axis=axis, keepdims=True)
        lse = np.log(np.sum(np.exp(z), axis=axis, keepdims=True))
        return z - lse if log else np.exp(z - lse)

    add_case(name, func([("x", T(shape, ty))], [text], [("y", T(shape, ty))]), [x], ref, ty)


def build_named():
    norm_case("rmsnorm_last_weight", "rmsnorm", (2, 4, 16), [2], "1.0e-06", wshape=(16,))
    norm_case("rmsnorm_last_noweight", "rmsnorm", (2, 4, 16), [2], "1.0e-05")
    norm_case("rmsnorm_middle_weight", "rmsnorm", (2, 6, 3), [1], "1.0e-06", wshape=(6, 1))
    norm_case("rmsnorm_middle_noweight", "rmsnorm", (2, 6, 3), [1], "1.0e-06")
    norm_case("rmsnorm_first_weight_full", "rmsnorm", (5, 3, 4), [0], "1.0e-06",
              wshape=(5, 3, 4))
    norm_case("rmsnorm_two_trailing_axes", "rmsnorm", (3, 4, 5), [1, 2], "1.0e-06",
              wshape=(4, 5))
    norm_case("rmsnorm_weight_bcast_rows", "rmsnorm", (3, 4, 8), [2], "1.0e-06",
              wshape=(4, 1))
    norm_case("rmsnorm_large_eps", "rmsnorm", (4, 8), [1], "0.5", wshape=(8,))
    norm_case("layernorm_last_weight_bias", "layernorm", (2, 5, 12), [2], "1.0e-05",
              wshape=(12,), bshape_=(12,))
    norm_case("layernorm_last_plain", "layernorm", (3, 10), [1], "1.0e-05")
    norm_case("layernorm_two_axes_weight_bias", "layernorm", (2, 3, 4), [1, 2], "1.0e-05",
              wshape=(3, 4), bshape_=(4,))
    norm_case("layernorm_middle_weight_bias", "layernorm", (2, 6, 3), [1], "1.0e-05",
              wshape=(6, 1), bshape_=(6, 1))
    norm_case("layernorm_weight_only", "layernorm", (4, 9), [1], "1.0e-05", wshape=(9,))
    norm_case("layernorm_bias_only", "layernorm", (4, 9), [1], "1.0e-05", bshape_=(9,))
    norm_case("layernorm_large_eps", "layernorm", (4, 6), [1], "0.5", wshape=(6,),
              bshape_=(6,))

    softmax_case("softmax_last", (3, 4, 10), 2, False)
    softmax_case("softmax_middle", (3, 7, 4), 1, False)
    softmax_case("softmax_first", (5, 6), 0, False)
    softmax_case("softmax_large_logits", (2, 8), 1, False, scale=40.0)
    softmax_case("log_softmax_last", (3, 4, 10), 2, True)
    softmax_case("log_softmax_middle", (3, 7, 4), 1, True)
    softmax_case("log_softmax_large_logits", (2, 8), 1, True, scale=40.0)
    attention_case("attention_plain", 1, 2, 2, 5, 7, 4, 3)
    attention_case("attention_gqa_mask", 2, 4, 2, 3, 6, 8, 8, mask=(3, 6))
    attention_case("attention_mask_per_head", 1, 2, 1, 4, 4, 4, 4, mask=(1, 2, 4, 4))
    attention_case("attention_causal", 1, 2, 2, 5, 5, 4, 4, causal=0)
    attention_case("attention_causal_cache", 1, 3, 1, 2, 6, 4, 5, causal=4)


# --- integers ---------------------------------------------------------------


def attention_case(name, b, h, g, m, n, d, dv, mask=None, causal=None, scale=0.3):
    rng = rng_for(name)
    q = f32(rng.standard_normal((b, h, m, d)))
    k = f32(rng.standard_normal((b, g, n, d)))
    v = f32(rng.standard_normal((b, g, n, dv)))
    ins = [q, k, v]
    args = [("q", T(q.shape, "f32")), ("k", T(k.shape, "f32")), ("v", T(v.shape, "f32"))]
    types = ", ".join(t for _, t in args)
    opnds = "%q, %k, %v"
    if mask is not None:
        ins.append(f32(rng.uniform(-3, 0, mask)))
        args.append(("m", T(mask, "f32")))
        opnds += " mask %m"
        types += ", " + T(mask, "f32")
    out = T((b, h, m, dv), "f32")
    text = "%%y = neuron.attention %s scale = %r%s : (%s) -> %s" % (
        opnds, scale, "" if causal is None else " causal_offset = %d" % causal, types, out)

    def ref(q, k, v, *rest):
        r = h // g
        s = np.einsum("bhmd,bhnd->bhmn", f64(q), np.repeat(f64(k), r, axis=1)) * scale
        if rest:
            s = s + f64(rest[0])
        if causal is not None:
            s = np.where(np.arange(n)[None, :] <= np.arange(m)[:, None] + causal, s, -np.inf)
        s = np.exp(s - s.max(axis=-1, keepdims=True))
        s /= s.sum(axis=-1, keepdims=True)
        return np.einsum("bhmn,bhnd->bhmd", s, np.repeat(f64(v), r, axis=1))

    add_case(name, func(args, [text], [("y", out)]), ins, ref, "f32")


def build_int():
    rng = rng_for("int")
    a = i32(rng.integers(-1000, 1000, (4, 6)))
    b = i32(rng.integers(-1000, 1000, (6,)))
    i64 = lambda v: np.asarray(v, dtype=np.int64)
    for op, ref in [("add", lambda a, b: wrap_i32(i64(a) + i64(b))),
                    ("sub", lambda a, b: wrap_i32(i64(a) - i64(b))),
                    ("mul", lambda a, b: wrap_i32(i64(a) * i64(b))),
                    ("max", lambda a, b: np.maximum(a, b)),
                    ("min", lambda a, b: np.minimum(a, b))]:
        binary_case("int_%s_bcast" % op, op, (4, 6), (6,), "i32", a, b, ref)
    # wraparound on overflow (two's complement)
    a = i32([2147483647, -2147483648, 2147483000, 65536])
    b = i32([1, -1, 1000, 65536])
    binary_case("int_add_wraps", "add", (4,), (4,), "i32", a, b,
                lambda a, b: wrap_i32(i64(a) + i64(b)))
    binary_case("int_mul_wraps", "mul", (4,), (4,), "i32", a, b,
                lambda a, b: wrap_i32(i64(a) * i64(b)))
    # division truncates toward zero for every sign combination
    a = i32([[7, -7, 7, -7, 6, -6, 0, 1, -1, 2147483647, -2147483648, -2147483648]])
    b = i32([[2, 2, -2, -2, 3, -4, 5, 3, 3, -1, -1, 7]])
    binary_case("int_div_trunc", "div", a.shape, b.shape, "i32", a, b,
                lambda a, b: wrap_i32(trunc_div(a, b)))
    a = i32(rng.integers(-500, 500, (3, 5)))
    b = i32([[3], [-4], [7]])
    binary_case("int_div_trunc_bcast", "div", (3, 5), (3, 1), "i32", a, b,
                lambda a, b: wrap_i32(trunc_div(a, b)))
    x = i32(rng.integers(-1000, 1000, (3, 4, 5)))
    for pname, axes, kd in [("last", [2], False), ("axes02_keep", [0, 2], True), ("all", [0, 1, 2], False)]:
        add_case("int_reduce_sum_" + pname, red_mlir("reduce_sum", x.shape, axes, kd, "i32"), [x],
                 lambda x, ax=tuple(axes), kd=kd: np.sum(i64(x), axis=ax, keepdims=kd).astype(np.int32),
                 "i32")
    for op, fn in [("reduce_max", np.max), ("reduce_min", np.min)]:
        add_case("int_%s_middle" % op, red_mlir(op, x.shape, [1], False, "i32"), [x],
                 lambda x, fn=fn: fn(x, axis=1), "i32")
    # reduce_sum wraps like the elementwise ops
    x = i32([[2147483647, 1, 5], [-2147483648, -1, 0]])
    add_case("int_reduce_sum_wraps", red_mlir("reduce_sum", x.shape, [1], False, "i32"), [x],
             lambda x: wrap_i32(np.sum(i64(x), axis=1)), "i32")


# --- bf16 / f16 -------------------------------------------------------------


def build_low_precision():
    for op in ["add", "mul", "sub", "div", "max"]:
        for pname, sa, sb in [("same", (4, 8), (4, 8)), ("row", (4, 8), (8,))]:
            # bf16: f32 inputs, rounded to bf16 by neuron-run; emulate that
            name = "bf16_%s_%s" % (op, pname)
            a, b = binary_inputs(op, rng_for(name), sa, sb)
            binary_case(name, op, sa, sb, "bf16", a, b,
                        lambda a, b, op=op: BINARY_REF[op](bf16_rne(a), bf16_rne(b)))
            # f16: f16 inputs
            name = "f16_%s_%s" % (op, pname)
            a, b = binary_inputs(op, rng_for(name), sa, sb)
            a, b = a.astype(np.float16), b.astype(np.float16)
            binary_case(name, op, sa, sb, "f16", a, b, BINARY_REF[op])
    # f16 overflow: 300 * 300 = 90000 > 65504 -> inf
    a = np.array([300.0, -300.0, 200.0, 1.0e-4], np.float16)
    b = np.array([300.0, 300.0, 300.0, 1.0e-4], np.float16)
    binary_case("f16_mul_overflow_underflow", "mul", (4,), (4,), "f16", a, b,
                lambda a, b: f64(a) * f64(b))
    for op in ["exp", "tanh", "sqrt", "sin"]:
        ref, kind = UNARY[op]
        for ty in ["bf16", "f16"]:
            name = "%s_unary_%s" % (ty, op)
            x = unary_input(kind, rng_for(name), (3, 8))
            if ty == "f16":
                x = x.astype(np.float16)
                r = ref
            else:
                r = lambda x, ref=ref: ref(bf16_rne(x))
            unary_case(name, ("neuron." + op, ""), (3, 8), ty, x, r)
    name = "bf16_reduce_sum"
    x = f32(rng_for(name).standard_normal((3, 40)))
    add_case(name, red_mlir("reduce_sum", x.shape, [1], False, "bf16"), [x],
             lambda x: np.sum(f64(bf16_rne(x)), axis=1), "bf16")
    name = "f16_reduce_mean_keep"
    x = rng_for(name).standard_normal((3, 40)).astype(np.float16)
    add_case(name, red_mlir("reduce_mean", x.shape, [1], True, "f16"), [x],
             lambda x: np.mean(f64(x), axis=1, keepdims=True), "f16")
    norm_case("bf16_rmsnorm_weight", "rmsnorm", (2, 3, 32), [2], "1.0e-06", wshape=(32,),
              ty="bf16")
    softmax_case("bf16_softmax_last", (4, 16), 1, False, ty="bf16")


def build_programs():
    """Small multi-op programs: value reuse, several results, dynamic dims."""
    # The naive RMSNorm of examples/rmsnorm_naive.mlir, at a small size.
    name = "program_rmsnorm_naive"
    rng = rng_for(name)
    x = f32(rng.standard_normal((1, 8, 64)))
    w = f32(rng.uniform(0.5, 1.5, (64,)))
    X, W, S = T((1, 8, 64), "f32"), T((64,), "f32"), T((1, 8, 1), "f32")
    C = T((1,), "f32")
    add_case(name,
             func([("x", X), ("w", W)],
                  ["%%sq = neuron.mul %%x, %%x : %s, %s -> %s" % (X, X, X),
                   "%%sum = neuron.reduce_sum %%sq axes = [2] keepdims : %s -> %s" % (X, S),
                   "%%n = neuron.constant dense<1.5625e-02> : %s" % C,
                   "%%mean = neuron.mul %%sum, %%n : %s, %s -> %s" % (S, C, S),
                   "%%eps = neuron.constant dense<1.0e-06> : %s" % C,
                   "%%var = neuron.add %%mean, %%eps : %s, %s -> %s" % (S, C, S),
                   "%%r = neuron.rsqrt %%var : %s" % S,
                   "%%xn = neuron.mul %%x, %%r : %s, %s -> %s" % (X, S, X),
                   "%%y = neuron.mul %%xn, %%w : %s, %s -> %s" % (X, W, X)],
                  [("y", X)]),
             [x, w], lambda x, w: rmsnorm_ref(x, w, [2], 1.0e-6), "f32")
    # Two results, one of them also used by the other (liveness of reused values).
    name = "program_two_results_reuse"
    x = f32(rng_for(name).standard_normal((3, 5)))
    X = T((3, 5), "f32")
    add_case(name,
             func([("x", X)],
                  ["%%e = neuron.exp %%x : %s" % X,
                   "%%s = neuron.add %%e, %%e : %s, %s -> %s" % (X, X, X),
                   "%%m = neuron.mul %%s, %%x : %s, %s -> %s" % (X, X, X)],
                  [("m", X), ("e", X)]),
             [x], lambda x: [2.0 * np.exp(f64(x)) * f64(x), np.exp(f64(x))], ["f32", "f32"])
    # Dynamic leading dim: the argument is tensor<?x4xf32>, the run-time input 3x4.
    name = "program_dynamic_dims"
    rng = rng_for(name)
    x = f32(rng.standard_normal((3, 4)))
    b = f32(rng.standard_normal((4,)))
    D, B = "tensor<?x4xf32>", T((4,), "f32")
    add_case(name,
             func([("x", D), ("b", B)],
                  ["%%a = neuron.add %%x, %%b : %s, %s -> %s" % (D, B, D),
                   "%%r = neuron.reshape %%a : %s -> tensor<?xf32>" % D],
                  [("r", "tensor<?xf32>")]),
             [x, b], lambda x, b: (f64(x) + f64(b)).reshape(-1), "f32")
    # Attention-style masked softmax: -inf logits get probability 0 (log: -inf).
    name = "softmax_masked_neg_inf"
    x = f32(rng_for(name).standard_normal((3, 6)))
    x[0, 4:] = -np.inf
    x[2, 0] = -np.inf
    for log in [False, True]:
        nm = ("log_" if log else "") + name
        add_case(nm,
                 func([("x", T((3, 6), "f32"))],
                      ["%%y = neuron.softmax %%x axis = 1%s : %s" % (" log" if log else "",
                                                                   T((3, 6), "f32"))],
                      [("y", T((3, 6), "f32"))]),
                 [x], lambda x, log=log: _softmax_ref(x, 1, log), "f32")
    # rmsnorm with a 2-D weight that is not just the normalized row
    norm_case("rmsnorm_weight_per_row_and_col", "rmsnorm", (2, 4, 8), [2], "1.0e-06",
              wshape=(4, 8))
    norm_case("rmsnorm_unsorted_trailing_axes", "rmsnorm", (3, 4, 5), [2, 1], "1.0e-06",
              wshape=(4, 5))


def _softmax_ref(x, axis, log):
    x = f64(x)
    z = x - np.max(x, axis=axis, keepdims=True)
    lse = np.log(np.sum(np.exp(z), axis=axis, keepdims=True))
    return z - lse if log else np.exp(z - lse)


def build_all():
    build_constant()
    build_binary()
    build_compare_select()
    build_unary()
    build_reductions()
    build_matmul()
    build_data_movement()
    build_cast()
    build_named()
    build_window()
    build_int()
    build_low_precision()
    build_programs()


# ---------------------------------------------------------------------------
# Running and comparing
# ---------------------------------------------------------------------------


def compare(got, ref, ty, tol):
    """Returns (ok, maxerr, message)."""
    want_dtype = NP_OUT_DTYPE[ty]
    if got.dtype != want_dtype:
        return False, None, "dtype %s, expected %s" % (got.dtype, want_dtype)
    ref = np.asarray(ref)
    if got.shape != ref.shape:
        return False, None, "shape %s, expected %s" % (got.shape, ref.shape)

    if ty == "bf16":
        lowbits = got.view(np.uint32) & np.uint32(0xFFFF)
        if np.any((lowbits != 0) & ~np.isnan(got)):
            return False, None, "bf16 result has values not representable in bf16"

    if ty in ("i32", "i1") or tol.kind == "exact":
        if ty in ("i32", "i1"):
            if ty == "i1":
                refc = ref.astype(bool)
            else:
                ref64 = ref.astype(np.int64)
                if ref64.size and (ref64.min() < -2 ** 31 or ref64.max() > 2 ** 31 - 1):
                    return False, None, "reference out of i32 range (bad case)"
                refc = ref64.astype(np.int32)
            bad = got != refc
        else:
            g, r = f64(got), f64(ref)
            bad = ~((g == r) | (np.isnan(g) & np.isnan(r)))
            # -0.0 vs 0.0 counts as equal here
        n = int(np.count_nonzero(bad))
        if n:
            k = int(np.flatnonzero(bad)[0])
            return False, None, "%d of %d elements differ; first at flat index %d: got %r, expected %r" % (
                n, bad.size, k, got.flat[k], ref.flat[k])
        return True, 0.0, ""

    g, r = f64(got), f64(ref)
    if tol.kind == "ulp":
        # Round-to-nearest overflows to inf at and beyond the midpoint between the
        # largest finite value of the type and the next power of two.
        big = {"bf16": 2.0 ** 128 * (1 - 2.0 ** -9), "f16": 65520.0}[tol.ty]
        with np.errstate(invalid="ignore"):
            r = np.where(np.abs(r) >= big, np.sign(r) * np.inf, r)
    nan_g, nan_r = np.isnan(g), np.isnan(r)
    if np.any(nan_g != nan_r):
        k = int(np.flatnonzero(nan_g != nan_r)[0])
        return False, None, "NaN mismatch at flat index %d: got %r, expected %r" % (k, g.flat[k], r.flat[k])
    inf_r = np.isinf(r) & ~nan_r
    if np.any(inf_r & (g != r)):
        k = int(np.flatnonzero(inf_r & (g != r))[0])
        return False, None, "infinity mismatch at flat index %d: got %r, expected %r" % (k, g.flat[k], r.flat[k])
    if np.any(np.isinf(g) & ~inf_r):
        k = int(np.flatnonzero(np.isinf(g) & ~inf_r)[0])
        return False, None, "unexpected infinity at flat index %d: got %r, expected %r" % (k, g.flat[k], r.flat[k])
    fin = ~(nan_r | inf_r)
    with np.errstate(invalid="ignore"):
        err = np.where(fin, np.abs(g - r), 0.0)
    maxerr = float(err.max()) if err.size else 0.0

    if tol.kind == "rel":
        scale = max(1.0, float(np.max(np.abs(np.where(fin, r, 0.0)))) if r.size else 1.0)
        bound = tol.value * scale
        if maxerr > bound:
            k = int(np.argmax(err))
            return False, maxerr, "max abs error %.3g > %.3g at flat index %d: got %r, expected %r" % (
                maxerr, bound, k, g.flat[k], r.flat[k])
        return True, maxerr, ""
    if tol.kind == "ulp":
        u = ulp_of(np.where(fin, r, 0.0), tol.ty)
        ratio = np.where(fin, err / u, 0.0)
        worst = float(ratio.max()) if ratio.size else 0.0
        if worst > tol.value:
            k = int(np.argmax(ratio))
            return False, maxerr, "error %.3g ulp %s > %g at flat index %d: got %r, expected %r" % (
                worst, tol.ty, tol.value, k, g.flat[k], r.flat[k])
        return True, maxerr, ""
    raise ValueError(tol.kind)


def run_case(case, neuron_run, workdir):
    cdir = os.path.join(workdir, case.name)
    os.makedirs(cdir, exist_ok=True)
    prog = os.path.join(cdir, "case.mlir")
    with open(prog, "w") as f:
        f.write(case.mlir)
    cmd = [neuron_run, prog, "--entry", "main"]
    for k, x in enumerate(case.inputs):
        p = os.path.join(cdir, "in%d.npy" % k)
        np.save(p, np.ascontiguousarray(x))
        cmd += ["--input", p]
    outs = [os.path.join(cdir, "out%d.npy" % k) for k in range(len(case.out_types))]
    for p in outs:
        if os.path.exists(p):
            os.remove(p)
        cmd += ["--output", p]
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, None, "could not run neuron-run: %s" % e
    if proc.returncode != 0:
        msg = " | ".join(l.strip() for l in proc.stderr.strip().splitlines()[:3])
        return False, None, "neuron-run exited with %d: %s" % (proc.returncode, msg)

    with np.errstate(all="ignore"):
        refs = case.ref(*case.inputs)
    if not isinstance(refs, (list, tuple)):
        refs = [refs]
    tols = case.tol if isinstance(case.tol, (list, tuple)) else [case.tol] * len(refs)
    worst = 0.0
    for k, (path, ref, ty, tol) in enumerate(zip(outs, refs, case.out_types, tols)):
        try:
            got = np.load(path)
        except Exception as e:  # noqa: BLE001 - report any load problem
            return False, None, "cannot load output #%d: %s" % (k, e)
        ok, err, msg = compare(got, ref, ty, tol or default_tol(ty))
        if not ok:
            return False, err, "output #%d: %s" % (k, msg)
        worst = max(worst, err or 0.0)
    return True, worst, ""



# --- convolution and pooling -------------------------------------------------


def np_pad(x, pads, value):
    k = len(pads) // 2
    width = [(0, 0), (0, 0)] + [(pads[d], pads[k + d]) for d in range(k)]
    return np.pad(x, width, constant_values=value)


def windows(xp, kernel, strides, dilations, out):
    """Yields (tap index tuple, strided view [N, C, out...]) for each tap."""
    for tap in np.ndindex(*kernel):
        idx = [slice(None), slice(None)]
        for d, t in enumerate(tap):
            start = t * dilations[d]
            idx.append(slice(start, start + (out[d] - 1) * strides[d] + 1, strides[d]))
        yield tap, xp[tuple(idx)]


def conv_ref(x, w, b, strides, pads, dils, groups):
    x, w = f64(x), f64(w)
    k = x.ndim - 2
    xp = np_pad(x, pads, 0.0)
    out = [(xp.shape[2 + d] - dils[d] * (w.shape[2 + d] - 1) - 1) // strides[d] + 1
           for d in range(k)]
    n, c = x.shape[:2]
    f, cg = w.shape[:2]
    fg = f // groups
    y = np.zeros([n, f] + out)
    for tap, view in windows(xp, w.shape[2:], strides, dils, out):
        for g in range(groups):
            xs = view[:, g * cg:(g + 1) * cg]  # [N, cg, out...]
            ws = w[g * fg:(g + 1) * fg, :, *tap]  # [fg, cg]
            y[:, g * fg:(g + 1) * fg] += np.tensordot(xs, ws, axes=([1], [1])).transpose(
                [0, k + 1] + list(range(1, k + 1)))
    if b is not None:
        y += f64(b).reshape([1, f] + [1] * k)
    return y


def pool_ref(x, kind, kernel, strides, pads, include_pad):
    x = f64(x)
    k = x.ndim - 2
    fill = -np.inf if kind == "max" else 0.0
    xp = np_pad(x, pads, fill)
    ones = np_pad(np.ones_like(x), pads, 0.0)
    out = [(xp.shape[2 + d] - kernel[d]) // strides[d] + 1 for d in range(k)]
    acc = np.full([x.shape[0], x.shape[1]] + out, fill)
    cnt = np.zeros_like(acc)
    for (tap, view), (_, ov) in zip(windows(xp, kernel, strides, [1] * k, out),
                                    windows(ones, kernel, strides, [1] * k, out)):
        acc = np.maximum(acc, view) if kind == "max" else acc + view
        cnt += ov
    if kind == "avg":
        acc = acc / (np.prod(kernel) if include_pad else cnt)
    return acc


def conv_case(name, sx, sw, strides, pads, dils, groups, bias=False, ty="f32", out_ty=None):
    out_ty = out_ty or ty
    rng = rng_for(name)
    x = f32(rng.standard_normal(sx))
    w = f32(rng.standard_normal(sw))
    if ty == "bf16":
        x, w = bf16_rne(x), bf16_rne(w)
    ins = [x, w]
    args = [("x", T(sx, ty)), ("w", T(sw, ty))]
    if bias:
        ins.append(f32(rng.standard_normal(sw[0])))
        args.append(("b", T([sw[0]], out_ty)))
    so = conv_ref(np.zeros(sx), np.zeros(sw), None, strides, pads, dils, groups).shape
    lst = lambda v: "[" + ", ".join(str(i) for i in v) + "]"
    op = ("%%y = neuron.conv %%x, %%w%s strides = %s padding = %s dilations = %s groups = %d"
          " : (%s) -> %s" % (" bias %b" if bias else "", lst(strides), lst(pads), lst(dils),
                             groups, ", ".join(t for _, t in args), T(so, out_ty)))
    add_case(name, func(args, [op], [("y", T(so, out_ty))]), ins,
             lambda x, w, b=None: conv_ref(x, w, b, strides, pads, dils, groups), out_ty)


def pool_case(name, sx, kind, kernel, strides, pads, include_pad=False, ty="f32"):
    rng = rng_for(name)
    x = f32(rng.standard_normal(sx))
    so = pool_ref(np.zeros(sx), kind, kernel, strides, pads, include_pad).shape
    lst = lambda v: "[" + ", ".join(str(i) for i in v) + "]"
    op = "%%y = neuron.pool %s %%x kernel = %s strides = %s padding = %s%s : %s -> %s" % (
        kind, lst(kernel), lst(strides), lst(pads), " count_include_pad" if include_pad else "",
        T(sx, ty), T(so, ty))
    add_case(name, func([("x", T(sx, ty))], [op], [("y", T(so, ty))]), [x],
             lambda x: pool_ref(x, kind, kernel, strides, pads, include_pad), ty)


def build_window():
    conv_case("conv2d_3x3_pad1", (2, 3, 7, 6), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1)
    conv_case("conv2d_stride2_bias", (1, 4, 9, 8), (5, 4, 3, 3), (2, 2), (1, 0, 1, 2), (1, 1), 1,
              bias=True)
    conv_case("conv2d_dilation2", (1, 2, 9, 9), (3, 2, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 1)
    conv_case("conv2d_groups2", (1, 4, 6, 6), (6, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2)
    conv_case("conv2d_depthwise", (2, 5, 7, 7), (5, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 5,
              bias=True)
    conv_case("conv2d_1x1", (2, 16, 5, 5), (8, 16, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1)
    conv_case("conv1d", (2, 3, 11), (4, 3, 5), (2,), (2, 1), (1,), 1, bias=True)
    conv_case("conv3d", (1, 2, 4, 5, 5), (3, 2, 2, 3, 3), (1, 2, 1), (0, 1, 1, 1, 0, 1),
              (1, 1, 2), 1)
    conv_case("conv2d_bf16_f32", (1, 3, 6, 6), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1,
              ty="bf16", out_ty="f32")
    pool_case("maxpool2d_3x3_s2_pad1", (2, 3, 9, 8), "max", (3, 3), (2, 2), (1, 1, 1, 1))
    pool_case("avgpool2d_pad_excluded", (1, 3, 7, 7), "avg", (3, 3), (2, 2), (1, 1, 1, 1))
    pool_case("avgpool2d_pad_included", (1, 3, 7, 7), "avg", (3, 3), (2, 2), (1, 1, 1, 1), True)
    pool_case("avgpool2d_2x2", (2, 4, 6, 6), "avg", (2, 2), (2, 2), (0, 0, 0, 0))
    pool_case("maxpool1d", (2, 3, 10), "max", (3,), (1,), (1, 1))
    pool_case("avgpool3d", (1, 2, 4, 4, 4), "avg", (2, 2, 2), (2, 2, 2), (0, 0, 0, 0, 0, 0))

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--neuron-run", default="neuron-run", help="neuron-run binary")
    ap.add_argument("--workdir", required=True, help="directory for programs and .npy files")
    ap.add_argument("--filter", default="", help="only run cases whose name contains this")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--jobs", type=int, default=1,
                    help="neuron-run processes at a time (default 1; lit already runs "
                         "tests in parallel)")
    args = ap.parse_args()

    build_all()
    names = [c.name for c in CASES]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        print("internal error: duplicate case names: %s" % sorted(dup))
        return 2
    cases = [c for c in CASES if args.filter in c.name]
    if args.list:
        for c in cases:
            print(c.name)
        return 0
    os.makedirs(args.workdir, exist_ok=True)

    failed = 0
    run = lambda c: run_case(c, args.neuron_run, args.workdir)
    if args.jobs > 1:
        from concurrent.futures import ThreadPoolExecutor
        pool = ThreadPoolExecutor(max_workers=args.jobs)
        results = pool.map(run, cases)  # in case order
    else:
        results = map(run, cases)
    for case, (ok, err, msg) in zip(cases, results):
        if ok:
            tol = case.tol if isinstance(case.tol, Tol) else default_tol(case.out_types[0])
            print("PASS %s maxerr=%.3g tol=%s" % (case.name, err, tol.describe()))
        else:
            failed += 1
            print("FAIL %s: %s" % (case.name, msg))
        sys.stdout.flush()
    print("numpy-check: %d cases, %d failed" % (len(cases), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
