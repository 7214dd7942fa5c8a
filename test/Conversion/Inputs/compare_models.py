#!/usr/bin/env python3
"""Runs every shared model two ways and compares: upstream MLIR 22 vs neuron-run.

(a) Reference. A wrapper module (the variant below plus a generated
    `@__neuronc_ref_main` that builds the inputs, calls the function and
    prints its results) is lowered by upstream `mlir-opt` with upstream passes
    only (TOSA -> linalg -> loops -> LLVM, see LOWERING) and executed by
    upstream `mlir-runner`. Nobody on this project wrote that code, so it is
    an independent oracle. The wrapper drops the attributes of an explicit
    `module` op (IREE's #hal target descriptions, which mlir-runner cannot
    parse and which do not change what is computed).
(b) Ours. `neuron-run` imports the same text into the neuron dialect and
    interprets it:
        neuron-run VARIANT.mlir --entry FN --drop-host-calls \
                   --input in0.npy ... --output out0.npy ...

The models live in ./models (copies of third-party files, attribution on
their first line). CASES below lists every function that is compared.

Comparable variant (written to --workdir as <model>.variant.mlir). Both (a)
and (b) run the same variant, made from the copy by these text edits only:
  * the host driver `func.func @main` is removed: it only builds constant
    inputs for the kernel (the harness supplies its own) and, for kernels whose
    signature changes below, would no longer verify;
  * `call @printMemrefF32(...)` lines are removed (the value is returned
    instead, and printing megabytes of text is not what is measured);
  * a function that only prints or drops its result (`ret=` in the table) is
    made to return it: `-> T` is added to its signature and its bare `return`
    becomes `return %value : T`;
  * IREE golden functions (`golden=True`) end with
    `"check.expect_almost_eq_const"(%r) {expected = dense<...> : T}` (or
    `expect_eq_const`): that line becomes `return %r : T` (the bare `return`
    after it is removed) and `expected` is kept as a third reference.
Host timing calls (`rtclock`, `vector.print`) stay; the reference run prints
their lines and the parser ignores them, neuron-run drops them.

Inputs. Argument number a (0-based), element i in row-major order:
  float: f32((i * 7919 + 13 * a) % 2001) / f32(1000) - f32(1)
  int:   (i * 7919 + 13 * a) % D,  D = the gathered dimension (vocabulary)
                                   where the table says so, else 1000
computed in int64, converted to f32 exactly, then one f32 divide and one f32
subtract: correctly rounded, so numpy and MLIR produce the same bits. The
reference builds them in MLIR with tensor.generate; numpy writes them as .npy
for neuron-run. As a self-check, the reference also prints a checksum of every
input it built (sum over i of bits(x_i) * (i + 1), modulo 2^64) and the
harness compares it with the same checksum of the numpy arrays.

Results. The reference bitcasts every f32 result to i32 and prints it with
printMemrefI32 (printMemrefF32 keeps only 6 digits), so the values parsed
back are exact. i1 results are printed as i32 0/1, i64 with printMemrefI64.

Tolerances:
  * f32: max |ours - ref| <= 1e-4 * max(1, max |ref|); inf/NaN must be in the
    same places with the same values. Reference values of magnitude >= 1e30
    (masks use -FLT_MAX as minus infinity) are left out of max |ref| and must
    agree within 1e-4 relative to themselves;
  * integer and bool results: exact (i64 results are compared as values,
    neuron-run computes them as i32);
  * IREE golden functions: both the reference and ours are also compared with
    `expected`: `expect_almost_eq_const` with IREE's own tolerance
    (atol 1e-4, rtol 0), `expect_eq_const` exactly.

Files in --workdir, per model: <model>.variant.mlir; per function:
<model>.<fn>.ref.mlir (wrapper), .ref.llvm.mlir (lowered), .transform.mlir,
.ref<k>.npy (reference results), .out<k>.npy (neuron-run results). The
.in<k>.npy inputs (up to 1.6 GB) are deleted after each function.

Output: one line per compared function,
  PASS file:@fn shape maxerr=... (ref Ns, ours Ns)
  FAIL file:@fn: reason          (a neuron-run failure prints its stderr)
and finally `models: N compared, M failed`; exit status 1 when any failed.
With --reference-only, (b) is skipped and each line shows the reference
output (shape, min, max), whether the inputs matched numpy and, for IREE
golden functions, whether the reference matches `expected`.

Run with a python that has numpy, e.g. Debian's /usr/bin/python3:
  /usr/bin/python3 test/Conversion/Inputs/compare_models.py \
      --neuron-run build/bin/neuron-run \
      --mlir-opt /usr/lib/llvm-22/bin/mlir-opt \
      --mlir-runner /usr/lib/llvm-22/bin/mlir-runner \
      --runner-utils-dir /usr/lib/llvm-22/lib --workdir /tmp/models
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "models")

# ---------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------


class Case:
    """One compared function.

    file:        model file, relative to ./models
    fn:          the function compared
    ret:         None when `fn` already returns the compared value(s); else
                 (ssa value, tensor type) that `fn` prints or drops and the
                 variant makes it return
    golden:      `fn` ends with an IREE check op holding the expected value
    interchange: lower linalg.matmul / batch_matmul with the reduction loop
                 outside the innermost output loop (see INTERCHANGE): same
                 summation order for every element (bit-identical results),
                 faster for big matmuls whose B operand is (k, n): the naive
                 k-innermost loops stride through B (mhsa-core: 15 s -> 6 s)
    int_range:   {argument number: D} for integer arguments indexing a
                 dimension of size D (others use 1000)
    """

    def __init__(self, file, fn, ret=None, golden=False, interchange=False, int_range=None):
        self.file, self.fn, self.ret, self.golden = file, fn, ret, golden
        self.interchange = interchange
        self.int_range = int_range or {}

    @property
    def name(self):
        return "%s:@%s" % (self.file, self.fn)


def golden(file, *fns):
    return [Case("iree-golden/" + file, fn, golden=True) for fn in fns]


CASES = [
    # Prints its result with printMemrefF32 and returns nothing.
    Case("buddy_next-attention.mlir", "kernel", ret=("%18", "tensor<32x40x128xf32>"),
         interchange=True),
    # Gathers rows of a 151936x1536 table with i64 token ids.
    Case("buddy_next-embedding.mlir", "kernel", int_range={1: 151936}),
    Case("buddy_next-ffn.mlir", "kernel", interchange=True),
    # B is (n, k): with k innermost the naive loops already stream B rows.
    Case("buddy_next-lm-head.mlir", "kernel"),
    # Computes %softmax and drops it (its print is commented out).
    Case("buddy_next-log-softmax.mlir", "softmax_kernel",
         ret=("%softmax", "tensor<1x40x151936xf32>")),
    # Takes no arguments; prints its result with printMemrefF32.
    Case("buddy_next-mask.mlir", "kernel", ret=("%29", "tensor<1x1x40x40xf32>")),
    Case("buddy_next-mhsa-core.mlir", "kernel", interchange=True),
    Case("buddy_next-norm.mlir", "kernel"),
    # Returns its result and also prints it (the print is removed).
    Case("buddy_next-silu-fusion-test.mlir", "test_silu_fusion"),
    Case("buddy_next-silu-fusion-test.mlir", "test_silu_fusion_reverse"),
    Case("buddy_next-silu-fusion-test.mlir", "test_no_fusion_multiple_uses"),
    # Module with IREE #hal target attributes (see make_reference_module).
    Case("iree_sample_mlp_tosa.mlir", "mlp_invocation"),
    *golden("iree_linalg_softmax.mlir",
            "softmax_static_10x256x256xf32", "softmax_dynamic_10x256x256xf32"),
    *golden("iree_regression_softmax.tosa_from_comment.mlir", "softmax"),
    *golden("iree_tosa_ops_exp.mlir", "tensor_float"),
    *golden("iree_tosa_ops_matmul.mlir", "tensor_float", "tensor_int"),
    *golden("iree_tosa_ops_mul.mlir", "tensor_float", "tensor_int"),
    *golden("iree_tosa_ops_reciprocal.mlir", "tensor_float"),
    *golden("iree_tosa_ops_reduce.mlir",
            "reduce_max_float", "reduce_max_int", "reduce_min_float", "reduce_min_int",
            "reduce_prod_float", "reduce_sum_float", "reduce_sum_int",
            "reduce_sum_float_axis_1"),
    *golden("iree_tosa_ops_reshape.mlir", "tensor_downrank", "tensor_uprank",
            "tensor_crossrank"),
    *golden("iree_tosa_ops_rsqrt.mlir", "tensor_float"),
    *golden("iree_tosa_ops_sigmoid.mlir", "tensor_float"),
    *golden("iree_tosa_ops_tanh.mlir", "tensor_float"),
    *golden("iree_tosa_ops_transpose.mlir", "test_transpose"),
]

F32_REL_TOL = 1e-4   # f32: max abs error <= F32_REL_TOL * max(1, max |ref|)
F16_REL_TOL = 2e-2   # f16 results: the same, with f16's precision
SENTINEL = 1e30      # f32 |ref| >= this: a mask value, compared relative to itself
IREE_ATOL = 1e-4     # check.expect_almost_eq_const: atol 1e-4, rtol 0
TIMEOUT = 1800       # seconds per tool run: a hang fails instead of stalling CI

# The lowering checked for every shared model (shared reference notes on
# MLIR 22), plus the transform-dialect step (after TOSA has become linalg):
# linalg.softmax has no loop lowering and must be decomposed first, and the
# optional matmul loop interchange. {lib} is the transform library file.
LOWERING = ",".join([
    "symbol-dce",
    "func.func({decompose}tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,"
    "convert-elementwise-to-linalg)",
    "transform-preload-library{transform-library-paths={lib}}",
    "transform-interpreter",
    "canonicalize",
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}",
    "canonicalize", "convert-linalg-to-loops", "lower-affine", "expand-strided-metadata",
    "lower-affine", "convert-scf-to-cf", "convert-vector-to-llvm", "arith-expand",
    "memref-expand", "convert-math-to-llvm", "convert-math-to-libm", "convert-arith-to-llvm",
    "convert-index-to-llvm", "finalize-memref-to-llvm", "convert-func-to-llvm",
    "convert-cf-to-llvm", "convert-ub-to-llvm", "reconcile-unrealized-casts",
])

TRANSFORM_LIBRARY = """\
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %softmax = transform.structured.match ops{["linalg.softmax"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %decomposed = transform.structured.decompose_interface %softmax
        : (!transform.any_op) -> !transform.any_op
{interchange}    transform.yield
  }
}
"""

# (m, n, k) -> (m, k, n) and (b, m, n, k) -> (b, m, k, n): k leaves the
# innermost loop, but each output element still sums k = 0, 1, ... in order.
INTERCHANGE = """\
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %mm_g = transform.structured.generalize %mm : (!transform.any_op) -> !transform.any_op
    %mm_i = transform.structured.interchange %mm_g iterator_interchange = [0, 2, 1]
        : (!transform.any_op) -> !transform.any_op
    %bmm = transform.structured.match ops{["linalg.batch_matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %bmm_g = transform.structured.generalize %bmm : (!transform.any_op) -> !transform.any_op
    %bmm_i = transform.structured.interchange %bmm_g iterator_interchange = [0, 1, 3, 2]
        : (!transform.any_op) -> !transform.any_op
"""


class HarnessError(Exception):
    """A problem of the harness or the reference, not of neuron-run."""


class OursError(Exception):
    """neuron-run failed or produced something unusable."""


# ---------------------------------------------------------------------------
# Types and tensors
# ---------------------------------------------------------------------------

TENSOR_RE = re.compile(r"tensor<((?:\d+x)*)([a-z]\w*)>")
FLOAT_TYPES = {"f32", "f16"}
INT_TYPES = {"i1", "i8", "i16", "i32", "i64"}
BITS = {"f32": 32, "f16": 16, "i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64}


class TType:
    """A static ranked tensor type."""

    def __init__(self, text):
        m = TENSOR_RE.fullmatch(text.strip())
        if not m:
            raise HarnessError("unsupported type %r (static ranked tensors only)" % text)
        self.shape = tuple(int(d) for d in m.group(1).split("x") if d)
        self.elem = m.group(2)
        if self.elem not in FLOAT_TYPES | INT_TYPES:
            raise HarnessError("unsupported element type in %r" % text)

    @property
    def is_float(self):
        return self.elem in FLOAT_TYPES

    @property
    def numel(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def mlir(self, elem=None):
        return "tensor<%s%s>" % ("".join("%dx" % d for d in self.shape), elem or self.elem)

    def __str__(self):
        return self.mlir()


def tensor_types(text):
    return [TType(m.group(0)) for m in TENSOR_RE.finditer(text)]


# ---------------------------------------------------------------------------
# Text surgery on the model copies
# ---------------------------------------------------------------------------


def match_bracket(text, pos, open_ch, close_ch):
    """Index of the bracket closing the one at text[pos]; skips // comments."""
    depth = 0
    i = pos
    while i < len(text):
        if text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                break
            continue
        c = text[i]
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise HarnessError("unbalanced %s%s at offset %d" % (open_ch, close_ch, pos))


class Func:
    """Where a func.func sits in a text: start, signature, body."""

    def __init__(self, text, fn):
        m = re.search(r"^[ \t]*func\.func\s+(?:public\s+)?@%s\(" % re.escape(fn), text, re.M)
        if not m:
            raise HarnessError("no public func.func @%s" % fn)
        self.start = m.start()
        self.args_open = m.end() - 1
        self.args_close = match_bracket(text, self.args_open, "(", ")")
        self.body_open = text.index("{", self.args_close)
        self.body_close = match_bracket(text, self.body_open, "{", "}")
        self.args_text = text[self.args_open + 1:self.args_close]
        self.results_text = text[self.args_close + 1:self.body_open]
        self.body = text[self.body_open + 1:self.body_close]

    def arg_types(self):
        return tensor_types(self.args_text)

    def result_types(self):
        return tensor_types(self.results_text)


def public_functions(text):
    """Names of the non-private functions defined in a model text."""
    return re.findall(r"^[ \t]*func\.func\s+(?:public\s+)?@([\w$.]+)\(", text, re.M)


def drop_function(text, fn):
    f = Func(text, fn)
    end = f.body_close + 1
    if text.startswith("\n", end):
        end += 1
    return text[:f.start] + text[end:]


def make_returning(text, fn, type_text, body):
    """Replaces the body of void `fn` and gives it the result type."""
    f = Func(text, fn)
    if "->" in f.results_text:
        raise HarnessError("@%s already has results" % fn)
    return (text[:f.args_close + 1] + " -> %s " % type_text + text[f.body_open:f.body_open + 1]
            + body + text[f.body_close:])


def return_value(text, fn, value, type_text):
    """Makes void `fn` return `value` (its last bare `return` returns it)."""
    body = Func(text, fn).body
    returns = list(re.finditer(r"^([ \t]*)return[ \t]*$", body, re.M))
    if not returns:
        raise HarnessError("@%s: no bare `return` to replace" % fn)
    r = returns[-1]
    body = body[:r.start()] + "%sreturn %s : %s" % (r.group(1), value, type_text) + body[r.end():]
    return make_returning(text, fn, type_text, body)


CHECK_RE = re.compile(
    r'^([ \t]*)"check\.(expect_almost_eq_const|expect_eq_const)"\((%[\w$.]+(?:#\d+)?)\)\s*'
    r'\{expected = dense<(.*?)>\s*:\s*(tensor<[^>]*>)\}\s*:\s*\((tensor<[^>]*>)\)\s*->\s*\(\)[ \t]*\n?',
    re.M)
# Two-operand checks (`expect_almost_eq(%a, %b)`, `expect_eq`): both values
# become results, each compared with the reference.
CHECK2_RE = re.compile(
    r'^([ \t]*)"check\.(expect_almost_eq|expect_eq)"\((%[\w$.]+(?:#\d+)?), (%[\w$.]+(?:#\d+)?)\)'
    r'(?:\s*\{[^}\n]*\})?\s*:\s*'
    r'\((tensor<[^>]*>), (tensor<[^>]*>)\)\s*->\s*\(\)[ \t]*\n?', re.M)


def return_checked(text, fn):
    """Turns the check ops of golden `fn` into a return of the checked values.

    Returns (new text, [(result index, expected array, exact?)] for the
    `_const` checks)."""
    body = Func(text, fn).body
    found = sorted([(m.start(), "const", m) for m in CHECK_RE.finditer(body)] +
                   [(m.start(), "pair", m) for m in CHECK2_RE.finditer(body)],
                   key=lambda t: t[0])
    if not found:
        raise HarnessError("@%s: no check.expect_* op to turn into results" % fn)
    values, types, goldens = [], [], []
    for _, how, m in found:
        if how == "const":
            _, kind, value, literal, expected_type, type_text = m.groups()
            goldens.append((len(values), parse_dense(literal, TType(expected_type)),
                            kind == "expect_eq_const"))
            values.append(value)
            types.append(type_text)
        else:
            _, _, a, b, ta, tb = m.groups()
            values += [a, b]
            types += [ta, tb]
    indent = found[-1][2].group(1)
    for _, _, m in reversed(found):
        body = body[:m.start()] + body[m.end():]
    returns = list(re.finditer(r"^([ \t]*)return[ \t]*$", body, re.M))
    if not returns:
        raise HarnessError("@%s: no bare `return` after its checks" % fn)
    r = returns[-1]
    type_text = ", ".join(types)
    body = body[:r.start()] + "%sreturn %s : %s" % (indent, ", ".join(values), type_text) + \
        body[r.end():]
    result_text = type_text if len(types) == 1 else "(%s)" % type_text
    return make_returning(text, fn, result_text, body), goldens


def parse_dense(literal, ttype):
    """The values of a `dense<...>` literal (nested lists or a splat)."""
    words = literal.replace("[", " ").replace("]", " ").replace(",", " ").split()
    words = [{"true": "1", "false": "0"}.get(w, w) for w in words]
    if ttype.is_float:
        vals = np.array([float(w) for w in words], dtype=np.float64).astype(NP_DTYPE[ttype.elem])
    else:
        vals = np.array([int(w, 0) for w in words], dtype=np.int64)
        bits = BITS[ttype.elem]
        if 1 < bits < 64:  # MLIR reads `dense<128> : tensor<...xi8>` as the bits: -128
            vals = (vals + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))
    if vals.size == 1:
        return np.full(ttype.shape, vals[0], dtype=vals.dtype)
    if vals.size != ttype.numel:
        raise HarnessError("dense literal has %d values, %s needs %d"
                           % (vals.size, ttype, ttype.numel))
    return vals.reshape(ttype.shape)


PRINT_CALL_RE = re.compile(r"^[ \t]*(?:func\.)?call @printMemrefF32\(.*\n", re.M)


def make_variant(text, cases):
    """The comparable variant of one model file (see the module docstring).

    Returns (variant text, {fn: (expected, exact)} for golden functions)."""
    entries = {c.fn for c in cases}
    if "main" in public_functions(text) and "main" not in entries:
        text = drop_function(text, "main")
    text = PRINT_CALL_RE.sub("", text)
    goldens = {}
    for c in cases:
        if c.ret:
            text = return_value(text, c.fn, *c.ret)
        elif c.golden:
            text, goldens[c.fn] = return_checked(text, c.fn)
    return text, goldens


# ---------------------------------------------------------------------------
# Inputs (numpy side)
# ---------------------------------------------------------------------------

CHUNK = 1 << 24  # elements per checksum step: bounds the temporaries for big inputs
NP_DTYPE = {"f32": np.float32, "f16": np.float16, "i1": np.bool_, "i8": np.int8,
            "i16": np.int16, "i32": np.int32, "i64": np.int64}


def input_formula(a, ttype, int_range, i):
    """Argument `a` at the row-major linear indices `i` (int64 array)."""
    if ttype.is_float:
        k = (i * 7919 + 13 * a) % 2001
        x = k.astype(np.float32) / np.float32(1000) - np.float32(1)
        return x.astype(NP_DTYPE[ttype.elem])  # f16: rounded to nearest even, as arith.truncf
    k = (i * 7919 + 13 * a) % int_range.get(a, 1000)
    return k.astype(NP_DTYPE[ttype.elem])


def make_input(a, ttype, int_range):
    """Argument `a` as a numpy array, and its checksum (see module docstring)."""
    n = ttype.numel
    # (i * 7919 + 13 * a) % m only depends on i % m: compute one period with
    # the formula and repeat it (3x faster than the formula on 400M elements).
    period = 2001 if ttype.is_float else int_range.get(a, 1000)
    one = input_formula(a, ttype, int_range, np.arange(min(n, period), dtype=np.int64))
    x = np.resize(one, n)
    return x.reshape(ttype.shape), checksum(x)


def checksum(x):
    """sum(bits(x_i) * (i + 1)) modulo 2^64 over the flat array, chunk by chunk:
    sum over a chunk starting at s = dot(bits, 1..m) + s * sum(bits)."""
    weight = np.arange(1, min(x.size, CHUNK) + 1, dtype=np.uint64)
    total = np.uint64(0)
    with np.errstate(over="ignore"):  # wraps modulo 2^64 on purpose
        for s in range(0, x.size, CHUNK):
            bits = as_u64_bits(x[s:s + CHUNK])
            total += np.dot(bits, weight[:bits.size]) + np.uint64(s) * np.sum(bits, dtype=np.uint64)
    return int(total)


def as_u64_bits(x):
    """What the checksum sums: the float bit pattern or the integer value."""
    if x.dtype == np.float32:
        return x.view(np.uint32).astype(np.uint64)
    if x.dtype == np.float16:
        return x.view(np.uint16).astype(np.uint64)
    return x.astype(np.int64).view(np.uint64)


# ---------------------------------------------------------------------------
# The reference: wrapper module, lowering, run, parsing
# ---------------------------------------------------------------------------


class Emitter:
    """Builds MLIR text with unique SSA names."""

    def __init__(self):
        self.lines = []
        self.count = 0

    def fresh(self, hint):
        self.count += 1
        return "%%%s%d" % (hint, self.count)

    def emit(self, line, indent=2):
        self.lines.append(" " * indent + line)

    def op(self, text, hint="v", indent=2):
        name = self.fresh(hint)
        self.emit("%s = %s" % (name, text), indent)
        return name

    def const(self, value, ty, indent):
        return self.op("arith.constant %s : %s" % (value, ty), "c", indent)

    def linear_index(self, idx, shape, indent):
        """Row-major linear index (as i64) of the index values `idx`."""
        if not shape:
            return self.const(0, "i64", indent)
        lin = idx[0]
        for d, i in zip(shape[1:], idx[1:]):
            size = self.const(d, "index", indent)
            lin = self.op("arith.muli %s, %s : index" % (lin, size), "l", indent)
            lin = self.op("arith.addi %s, %s : index" % (lin, i), "l", indent)
        return self.op("arith.index_cast %s : index to i64" % lin, "l", indent)


def emit_input(e, a, ttype, int_range):
    """tensor.generate computing argument `a` with the input formula."""
    name = e.fresh("in")
    idx = [e.fresh("i") for _ in ttype.shape]
    e.emit("%s = tensor.generate {" % name)
    e.emit("^bb0(%s):" % ", ".join("%s: index" % i for i in idx))
    ind = 4
    lin = e.linear_index(idx, ttype.shape, ind)
    k = e.op("arith.muli %s, %s : i64" % (lin, e.const(7919, "i64", ind)), "k", ind)
    k = e.op("arith.addi %s, %s : i64" % (k, e.const(13 * a, "i64", ind)), "k", ind)
    modulus = 2001 if ttype.is_float else int_range.get(a, 1000)
    k = e.op("arith.remui %s, %s : i64" % (k, e.const(modulus, "i64", ind)), "k", ind)
    if ttype.is_float:
        x = e.op("arith.sitofp %s : i64 to f32" % k, "x", ind)
        x = e.op("arith.divf %s, %s : f32" % (x, e.const("1000.0", "f32", ind)), "x", ind)
        x = e.op("arith.subf %s, %s : f32" % (x, e.const("1.0", "f32", ind)), "x", ind)
        if ttype.elem != "f32":
            x = e.op("arith.truncf %s : f32 to %s" % (x, ttype.elem), "x", ind)
    elif ttype.elem == "i64":
        x = k
    else:
        x = e.op("arith.trunci %s : i64 to %s" % (k, ttype.elem), "x", ind)
    e.emit("tensor.yield %s : %s" % (x, ttype.elem), ind)
    e.emit("} : %s" % ttype)
    return name


def emit_checksum(e, value, ttype):
    """Prints sum(bits(x_i) * (i + 1)) mod 2^64 of a tensor (printMemrefI64)."""
    dims = ["d%d" % k for k in range(len(ttype.shape))]
    maps = "affine_map<(%s) -> (%s)>, affine_map<(%s) -> ()>" % (
        ", ".join(dims), ", ".join(dims), ", ".join(dims))
    iters = ", ".join(['"reduction"'] * len(dims))
    empty = e.op("tensor.empty() : tensor<i64>", "cs")
    zero = e.const(0, "i64", 2)
    init = e.op("linalg.fill ins(%s : i64) outs(%s : tensor<i64>) -> tensor<i64>"
                % (zero, empty), "cs")
    x, acc = e.fresh("x"), e.fresh("acc")
    cs = e.fresh("cs")
    e.emit("%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} "
           "ins(%s : %s) outs(%s : tensor<i64>) {" % (cs, maps, iters, value, ttype, init))
    e.emit("^bb0(%s: %s, %s: i64):" % (x, ttype.elem, acc))
    ind = 4
    idx = [e.op("linalg.index %d : index" % k, "i", ind) for k in range(len(dims))]
    lin = e.linear_index(idx, ttype.shape, ind)
    w = e.op("arith.addi %s, %s : i64" % (lin, e.const(1, "i64", ind)), "w", ind)
    if ttype.is_float:
        ity = "i%d" % BITS[ttype.elem]
        bits = e.op("arith.bitcast %s : %s to %s" % (x, ttype.elem, ity), "b", ind)
        bits = e.op("arith.extui %s : %s to i64" % (bits, ity), "b", ind)
    elif ttype.elem == "i64":
        bits = x
    elif ttype.elem == "i1":
        bits = e.op("arith.extui %s : %s to i64" % (x, ttype.elem), "b", ind)
    else:  # numpy's astype(int64): sign-extended
        bits = e.op("arith.extsi %s : %s to i64" % (x, ttype.elem), "b", ind)
    p = e.op("arith.muli %s, %s : i64" % (bits, w), "p", ind)
    s = e.op("arith.addi %s, %s : i64" % (acc, p), "s", ind)
    e.emit("linalg.yield %s : i64" % s, ind)
    e.emit("} -> tensor<i64>")
    u = e.op("tensor.cast %s : tensor<i64> to tensor<*xi64>" % cs, "u")
    e.emit("call @printMemrefI64(%s) : (tensor<*xi64>) -> ()" % u)


def emit_print(e, value, ttype):
    """Prints a result exactly: f32 bits as i32, i1 as i32, others as they are."""
    if ttype.elem == "f32":
        value = e.op("arith.bitcast %s : %s to %s" % (value, ttype, ttype.mlir("i32")), "o")
        elem = "i32"
    elif ttype.is_float:  # f16: its bits, zero-extended
        ity = "i%d" % BITS[ttype.elem]
        value = e.op("arith.bitcast %s : %s to %s" % (value, ttype, ttype.mlir(ity)), "o")
        value = e.op("arith.extui %s : %s to %s" % (value, ttype.mlir(ity), ttype.mlir("i32")),
                     "o")
        elem = "i32"
    elif ttype.elem == "i1":
        value = e.op("arith.extui %s : %s to %s" % (value, ttype, ttype.mlir("i32")), "o")
        elem = "i32"
    elif ttype.elem in ("i8", "i16"):
        value = e.op("arith.extsi %s : %s to %s" % (value, ttype, ttype.mlir("i32")), "o")
        elem = "i32"
    else:
        elem = ttype.elem
    u = e.op("tensor.cast %s : %s to tensor<*x%s>" % (value, ttype.mlir(elem), elem), "u")
    e.emit("call @printMemref%s(%s) : (tensor<*x%s>) -> ()" % (elem.upper(), u, elem))


def make_reference_module(variant, case):
    """The variant plus @__neuronc_ref_main: build inputs, checksum them, call,
    print the results."""
    f = Func(variant, case.fn)
    args, results = f.arg_types(), f.result_types()
    e = Emitter()
    e.emit("func.func @__neuronc_ref_main() {", 0)
    ins = [emit_input(e, a, t, case.int_range) for a, t in enumerate(args)]
    for v, t in zip(ins, args):
        emit_checksum(e, v, t)
    outs = [e.fresh("r") for _ in results]
    call = "call @%s(%s) : (%s) -> (%s)" % (
        case.fn, ", ".join(ins), ", ".join(map(str, args)), ", ".join(map(str, results)))
    e.emit(("%s = " % ", ".join(outs) if outs else "") + call)
    for v, t in zip(outs, results):
        emit_print(e, v, t)
    e.emit("return")
    e.emit("}", 0)
    for elem in ("I32", "I64"):
        if not re.search(r"@printMemref%s\b" % elem, variant):
            e.emit("func.func private @printMemref%s(tensor<*x%s>)" % (elem, elem.lower()), 0)
    main = "\n".join(e.lines) + "\n"

    # A model wrapped in an explicit `module ... {}` gets the driver inside it.
    # Its attributes (IREE's #hal target descriptions) are dropped here:
    # mlir-runner cannot parse unregistered attributes, and they do not change
    # what the program computes.
    m = re.search(r"^module\b[^{\n]*?(?:(\s+attributes\s*)\{|\{)", variant, re.M)
    if not m:
        return variant + "\n" + main
    text = variant
    if m.group(1):
        attrs_close = match_bracket(text, m.end() - 1, "{", "}")
        text = text[:m.start(1)] + text[attrs_close + 1:]
    module_open = text.index("{", m.start())
    module_close = match_bracket(text, module_open, "{", "}")
    return text[:module_close] + main + text[module_close:]


HEADER_RE = re.compile(r"Unranked Memref base@ = \S+ rank = (\d+) offset = \d+ "
                       r"sizes = \[([\d, ]*)\] strides = \[[\d, ]*\] data =")
BRACKETS = str.maketrans("[],", "   ")


def parse_memrefs(stdout):
    """Every printMemref{I32,I64} block in mlir-runner's output, as int64 arrays.

    Other lines (the models' own timing prints) are ignored."""
    arrays = []
    for m in HEADER_RE.finditer(stdout):
        rank = int(m.group(1))
        shape = tuple(int(s) for s in m.group(2).split(",") if s.strip())
        # Only the last element closes `rank` brackets at once.
        closing = "]" * max(rank, 1)
        end = stdout.find(closing, m.end())
        if end < 0:
            raise HarnessError("truncated memref print in mlir-runner output")
        words = stdout[m.end():end].translate(BRACKETS).split()
        data = np.array(words, dtype=np.int64)
        if data.size != int(np.prod(shape, dtype=np.int64)):
            raise HarnessError("memref print of shape %s has %d values" % (shape, data.size))
        arrays.append(data.reshape(shape))
    return arrays


def decode_result(raw, ttype):
    if ttype.elem == "f32":
        return raw.astype(np.int32).view(np.float32)
    if ttype.elem == "f16":
        return raw.astype(np.uint16).view(np.float16)
    return raw.astype(NP_DTYPE[ttype.elem])


def run_tool(cmd, what):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise HarnessError("%s timed out after %ds" % (what, TIMEOUT))
    if p.returncode != 0:
        raise HarnessError("%s failed (exit %d):\n%s" % (what, p.returncode, p.stderr.strip()))
    return p.stdout, time.time() - t0


def run_reference(case, variant, tools, workdir):
    """Lowers and runs the reference; returns (results, input checksums, seconds)."""
    stem = case_stem(case)
    lib = os.path.join(workdir, stem + ".transform.mlir")
    with open(lib, "w") as f:
        f.write(TRANSFORM_LIBRARY.replace("{interchange}",
                                          INTERCHANGE if case.interchange else ""))
    wrapper = os.path.join(workdir, stem + ".ref.mlir")
    with open(wrapper, "w") as f:
        f.write(make_reference_module(variant, case))
    lowered = os.path.join(workdir, stem + ".ref.llvm.mlir")
    # tosa.transpose_conv2d has no linalg lowering but TOSA's optional
    # decomposition; only programs that need it run it (it also rewrites
    # other ops: buddy_next-mask's bool arithmetic then computes otherwise).
    with open(wrapper) as f:
        decompose = ("tosa-optional-decompositions,"
                     if "tosa.transpose_conv2d" in f.read() else "")
    pipeline = "builtin.module(%s)" % LOWERING.replace("{lib}", lib).replace(
        "{decompose}", decompose)
    _, t_lower = run_tool([tools.mlir_opt, "--allow-unregistered-dialect", wrapper,
                           "--pass-pipeline=" + pipeline, "-o", lowered],
                          "mlir-opt (lowering %s)" % wrapper)
    stdout, t_run = run_tool([tools.mlir_runner, lowered, "-e", "__neuronc_ref_main",
                              "-entry-point-result=void",
                              "-shared-libs=" + tools.runner_utils,
                              "-shared-libs=" + tools.c_runner_utils],
                             "mlir-runner (%s)" % lowered)
    f = Func(variant, case.fn)
    args, results = f.arg_types(), f.result_types()
    blocks = parse_memrefs(stdout)
    if len(blocks) != len(args) + len(results):
        raise HarnessError("mlir-runner printed %d memrefs, expected %d checksums + %d results"
                           % (len(blocks), len(args), len(results)))
    checksums = [int(b.reshape(-1)[0]) & (2 ** 64 - 1) for b in blocks[:len(args)]]
    outs = [decode_result(b, t) for b, t in zip(blocks[len(args):], results)]
    for o, t in zip(outs, results):
        if o.shape != t.shape:
            raise HarnessError("reference result shape %s, %s declared" % (o.shape, t))
    return outs, checksums, t_lower + t_run


# ---------------------------------------------------------------------------
# Ours: neuron-run
# ---------------------------------------------------------------------------


def run_ours(case, variant_path, in_paths, tools, workdir, n_results, extra=(),
             program_is_neff=False):
    """Runs neuron-run on the variant (or an executable); returns (outputs,
    seconds) or raises OursError with neuron-run's stderr."""
    out_paths = [os.path.join(workdir, "%s.out%d.npy" % (case_stem(case), k))
                 for k in range(n_results)]
    for path in out_paths:  # never compare a stale output of an earlier run
        if os.path.exists(path):
            os.remove(path)
    cmd = [tools.neuron_run, variant_path, "--entry", case.fn] + \
        ([] if program_is_neff else ["--drop-host-calls"]) + list(extra)
    for path in in_paths:
        cmd += ["--input", path]
    for path in out_paths:
        cmd += ["--output", path]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise OursError("neuron-run timed out after %ds: %s" % (TIMEOUT, " ".join(cmd)))
    seconds = time.time() - t0
    if p.returncode != 0:
        raise OursError("neuron-run failed (exit %d): %s\n%s"
                        % (p.returncode, " ".join(cmd), p.stderr.rstrip()))
    outs = []
    for path in out_paths:
        if not os.path.exists(path):
            raise OursError("neuron-run wrote no %s" % path)
        outs.append(np.load(path))
    return outs, seconds


# ---------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------


def compare(got, ref, ttype, what):
    """Returns (max abs error, problem or None) under the f32/int tolerance."""
    got = np.asarray(got)
    if got.shape != ref.shape:
        return None, "%s: shape %s, reference %s" % (what, got.shape, ref.shape)
    if not ttype.is_float:
        if got.dtype.kind not in "iub":
            return None, "%s: dtype %s for an %s result" % (what, got.dtype, ttype.elem)
        bad = np.count_nonzero(got.astype(np.int64) != ref.astype(np.int64))
        return 0.0, ("%s: %d of %d elements differ" % (what, bad, ref.size) if bad else None)
    if got.dtype != NP_DTYPE[ttype.elem]:
        return None, "%s: dtype %s for an %s result" % (what, got.dtype, ttype.elem)
    # Masks use -FLT_MAX for "minus infinity". Counted in max |ref|, it would
    # make the tolerance 3e34 and hide any error (buddy_next-mask: 0 vs 2
    # would pass). Values beyond SENTINEL are checked relative to themselves
    # and left out of the scale.
    r = np.abs(ref.astype(np.float64))
    huge = np.isfinite(r) & (r >= SENTINEL)
    normal = np.isfinite(r) & ~huge
    scale = max(1.0, float(r[normal].max()) if normal.any() else 0.0)
    tol = F32_REL_TOL if ttype.elem == "f32" else F16_REL_TOL
    return compare_float(got, ref, tol * scale, what, huge)


def compare_float(got, ref, tol, what, huge=None):
    """Max |got - ref| over finite reference values, which must be <= tol;
    inf/NaN must match exactly; `huge` elements within F32_REL_TOL relative."""
    g, r = got.astype(np.float64), ref.astype(np.float64)
    fin = np.isfinite(r)
    bad = np.count_nonzero(~fin & ~((g == r) | (np.isnan(g) & np.isnan(r))))
    if bad:
        return float("inf"), "%s: %d inf/NaN elements differ" % (what, bad)
    with np.errstate(invalid="ignore"):
        diff = np.where(fin, np.abs(g - r), 0.0)
    diff[np.isnan(diff)] = np.inf  # NaN where the reference is finite
    if huge is not None and huge.any():
        bad = np.count_nonzero(huge & ~(diff <= F32_REL_TOL * np.abs(r)))
        if bad:
            return float("inf"), "%s: %d of the %d elements beyond %g differ by more than " \
                "%g relative" % (what, bad, np.count_nonzero(huge), SENTINEL, F32_REL_TOL)
        diff[huge] = 0.0
    err = float(diff.max()) if diff.size else 0.0
    if err > tol:
        i = np.unravel_index(np.argmax(diff), r.shape)
        return err, "%s: maxerr=%.3g > tol=%.3g (at %s: got %r, want %r)" % (
            what, err, tol, list(i), float(got[i]), float(ref[i]))
    return err, None


def compare_golden(got, expected, exact, ttype, what):
    """IREE semantics: expect_eq_const exact, expect_almost_eq_const atol 1e-4."""
    got = np.asarray(got)
    if got.shape != expected.shape:
        return "%s: shape %s, expected %s" % (what, got.shape, expected.shape)
    if exact or not ttype.is_float:
        bad = np.count_nonzero(got.astype(np.float64) != expected.astype(np.float64))
        return "%s: %d elements differ from expected" % (what, bad) if bad else None
    return compare_float(got, expected, IREE_ATOL, what)[1]


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------


def case_stem(case):
    return "%s.%s" % (os.path.basename(case.file)[:-len(".mlir")], case.fn)


def describe(x):
    x = np.asarray(x)
    if x.size == 0:
        return "empty"
    return "min=%.6g max=%.6g" % (float(np.min(x)), float(np.max(x)))


def shape_str(outs):
    return ",".join("x".join(map(str, o.shape)) or "scalar" for o in outs)


def golden_problems(outs, golden, results, what):
    """Each `_const` check's value against IREE's expected value."""
    problems = []
    for index, expected, exact in golden or []:
        p = compare_golden(outs[index], expected, exact, results[index], what)
        problems += [p] if p else []
    return problems


def compiled_run(case, variant_path, in_paths, tools, workdir, n_results, level, target):
    """Compiles the function with neuronc at -O`level` for `target` and runs the
    executable on the simulator; returns (outputs, seconds) or raises OursError."""
    neff = os.path.join(workdir, "%s.O%d.%s.neff" % (case_stem(case), level, target))
    cmd = [tools.neuronc, variant_path, "--entry", case.fn, "--drop-host-calls", "-O%d" % level,
           "--target=" + target, "--no-cache", "-o", neff]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise OursError("neuronc timed out after %ds: %s" % (TIMEOUT, " ".join(cmd)))
    if p.returncode != 0:
        raise OursError("neuronc failed (exit %d): %s\n%s"
                        % (p.returncode, " ".join(cmd), p.stderr.rstrip()))
    try:
        return run_ours(case, neff, in_paths, tools, workdir, n_results, program_is_neff=True)
    finally:
        if os.path.exists(neff):
            os.remove(neff)


def first_error(text):
    """The first `error:` line of a tool's output, without the file prefix."""
    for line in text.splitlines():
        if "error:" in line:
            return line[line.index("error:") + len("error:"):].strip()
    return text.strip().splitlines()[-1] if text.strip() else "failed"


def run_case(case, variant, variant_path, goldens, tools, workdir, reference_only, row=None):
    """Runs one case; returns (ok, line). `row` (a dict) receives one cell per
    column of the corpus table."""
    row = {} if row is None else row
    f = Func(variant, case.fn)
    args, results = f.arg_types(), f.result_types()
    if not results:
        raise HarnessError("@%s returns nothing in the variant" % case.fn)
    in_paths = []
    try:
        # One input in memory at a time; the .npy files live until the case ends.
        checksums = []
        for a, t in enumerate(args):
            x, cs = make_input(a, t, case.int_range)
            checksums.append(cs)
            if not reference_only:
                in_paths.append(os.path.join(workdir, "%s.in%d.npy" % (case_stem(case), a)))
                np.save(in_paths[-1], x)
            del x
        ref, ref_checksums, t_ref = run_reference(case, variant, tools, workdir)
        for k, (mine, theirs) in enumerate(zip(checksums, ref_checksums)):
            if mine != theirs:
                raise HarnessError("input #%d differs between numpy and MLIR (checksum %d vs %d)"
                                   % (k, mine, theirs))
        for k, r in enumerate(ref):  # kept for inspection
            np.save(os.path.join(workdir, "%s.ref%d.npy" % (case_stem(case), k)), r)
        golden = goldens.get(case.fn)
        problems = golden_problems(ref, golden, results, "mlir-runner vs expected")
        row["reference"] = "MISMATCH" if problems else ("golden ok" if golden else "ok")
        if reference_only:
            return reference_line(case, ref, bool(args), golden, problems, t_ref)
        try:
            ours, t_ours = run_ours(case, variant_path, in_paths, tools, workdir, len(results))
        except OursError as e:
            row["interpreter"] = "import: " + first_error(str(e))
            return False, "FAIL %s: %s" % (case.name, e)
        ok, line = compare_line(case, ours, ref, results, golden, list(problems), t_ref, t_ours)
        row["interpreter"] = cell(ours, ref, results, ok)
        # The fused program, and the compiled executables run by the
        # simulator, must agree with the same reference.
        variants = []
        if tools.also_fused:
            variants.append(("fused", ["--fuse"]))
        if tools.also_simulated:
            variants += [("simulated -O0", ["--sim"]), ("simulated", ["--sim", "--fuse"])]
        for target in tools.targets:
            for level in tools.levels:
                variants.append(("-O%d %s" % (level, target), (level, target)))
        for label, how in variants:
            try:
                if isinstance(how, tuple):
                    other, _ = compiled_run(case, variant_path, in_paths, tools, workdir,
                                            len(results), *how)
                else:
                    other, _ = run_ours(case, variant_path, in_paths, tools, workdir,
                                        len(results), how)
            except OursError as e:
                row[label] = "error: " + first_error(str(e))
                if ok:
                    ok, line = False, "FAIL (%s) %s: %s" % (label, case.name, e)
                continue
            vok, vline = compare_line(case, other, ref, results, golden, list(problems), t_ref,
                                      t_ours)
            row[label] = cell(other, ref, results, vok)
            if ok and not vok:
                ok, line = False, vline.replace("FAIL ", "FAIL (%s) " % label, 1)
        return ok, line
    finally:
        for path in in_paths:  # the big inputs (up to 1.6 GB) do not outlive the case
            if os.path.exists(path):
                os.remove(path)


def cell(outs, ref, results, ok):
    """A table cell: the largest error over the results, WRONG when outside."""
    errs = []
    for o, r, t in zip(outs, ref, results):
        err, _ = compare(o, r, t, "")
        errs.append(float("inf") if err is None else err)
    e = max(errs) if errs else 0.0
    return ("%.2g" % e if ok else "WRONG %.2g" % e)


def reference_line(case, ref, has_inputs, golden, problems, t_ref):
    line = "%s %s %s inputs=%s" % (case.name, shape_str(ref),
                                   " ".join(describe(r) for r in ref),
                                   "numpy-identical" if has_inputs else "none")
    if golden:
        line += " expected=%s" % ("MISMATCH" if problems else "match")
    line += " (ref %.2fs)" % t_ref
    if problems:
        return False, "FAIL " + line + "".join("\n  " + p for p in problems)
    return True, "REF " + line


def compare_line(case, ours, ref, results, golden, problems, t_ref, t_ours):
    errs = []
    for k, (o, r, t) in enumerate(zip(ours, ref, results)):
        err, p = compare(o, r, t, "result #%d" % k)
        errs.append(err or 0.0)
        problems += [p] if p else []
    if not problems:
        problems += golden_problems(ours, golden, results, "neuron-run vs expected")
    if problems:
        return False, "FAIL %s: %s" % (case.name, "; ".join(problems))
    return True, "PASS %s %s maxerr=%.3g (ref %.2fs, ours %.2fs)" % (
        case.name, shape_str(ref), max(errs), t_ref, t_ours)


class Tools:
    """The external programs, checked up front so nothing passes by accident."""

    def __init__(self, args):
        self.mlir_opt = find_program(args.mlir_opt, "--mlir-opt")
        self.mlir_runner = find_program(args.mlir_runner, "--mlir-runner")
        self.runner_utils = find_library(args.runner_utils_dir, "libmlir_runner_utils.so")
        self.c_runner_utils = find_library(args.runner_utils_dir, "libmlir_c_runner_utils.so")
        self.neuron_run = None if args.reference_only else \
            find_program(args.neuron_run, "--neuron-run")
        self.also_fused = args.also_fused
        self.also_simulated = args.also_simulated
        self.levels = [int(x) for x in args.levels.split(",")] if args.levels else []
        self.targets = args.targets.split(",") if args.levels else []
        self.neuronc = None
        if self.levels and not args.reference_only:
            self.neuronc = find_program(os.path.join(os.path.dirname(self.neuron_run), "neuronc"),
                                        "--neuron-run's directory")


def find_program(name, flag):
    path = shutil.which(name)
    if not path:
        raise HarnessError("%s %s: no such executable" % (flag, name))
    return path


def find_library(directory, name):
    path = os.path.join(directory, name)
    if not os.path.isfile(path):
        raise HarnessError("--runner-utils-dir %s: %s is missing" % (directory, name))
    return path


def not_comparable(dirpath, name):
    """Why a file of the models directory is not compared, or None."""
    if name.endswith(".mlir") and not name.endswith(".adapted.mlir") and \
            os.path.exists(os.path.join(dirpath, name[:-len(".mlir")] + ".adapted.mlir")):
        return "IREE's own syntax (util/check/flow ops); its .adapted.mlir copy is compared"
    return None


PRINTED_RE = re.compile(r"(%[\w$.]+) = tensor\.cast (%[\w$.]+) : (tensor<[^>]*>) to tensor<\*xf32>")


def printed_value(body):
    """(value, type) a function that returns nothing prints with
    printMemrefF32 (through a tensor.cast to tensor<*xf32>), or None."""
    for m in PRINTED_RE.finditer(body):
        if re.search(r"call @printMemrefF32\(%s\)" % re.escape(m.group(1)), body):
            return m.group(2), m.group(3)
    return None


def discover_cases(models):
    """CASES, plus a case for every other public function of the models
    directory (golden when it ends in IREE check ops); and the files left out
    with the reason."""
    cases = list(CASES)
    known = {(c.file, c.fn) for c in CASES}
    skipped = []
    for dirpath, _, files in sorted(os.walk(models)):
        for name in sorted(files):
            if not name.endswith(".mlir"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), models)
            why = not_comparable(dirpath, name)
            if why:
                skipped.append((rel, why))
                continue
            with open(os.path.join(dirpath, name)) as f:
                text = f.read()
            for fn in public_functions(text):
                if fn == "main" or (rel, fn) in known:
                    continue
                try:
                    f = Func(text, fn)
                    body, results = f.body, f.results_text
                except HarnessError:
                    body, results = "", ""
                ret = None
                if '"check.expect' not in body and "->" not in results:
                    ret = printed_value(body)
                cases.append(Case(rel, fn, ret=ret, golden='"check.expect' in body))
    return cases, skipped


def check_coverage():
    """Every public function of every model file is a case (except host
    drivers @main): a model added to ./models cannot be silently skipped."""
    known = {(c.file, c.fn) for c in CASES}
    missing = []
    for dirpath, _, files in os.walk(MODELS):
        for name in sorted(files):
            if not name.endswith(".mlir"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), MODELS)
            with open(os.path.join(dirpath, name)) as f:
                fns = public_functions(f.read())
            missing += ["%s:@%s" % (rel, fn) for fn in fns
                        if fn != "main" and (rel, fn) not in known]
    if missing:
        raise HarnessError("functions not in the case table: %s" % ", ".join(missing))


def write_table(path, columns, rows, skipped, models):
    """The corpus table (markdown): program x column -> max error or why not."""
    reasons = {}
    def short(c):
        if c.startswith("import: ") or c.startswith("error: "):
            kind, why = c.split(": ", 1)
            key = why[:200]
            if key not in reasons:
                reasons[key] = len(reasons) + 1
            return "%s [%d]" % (kind, reasons[key])
        return c
    lines = ["| program | reference | " + " | ".join(columns) + " |",
             "|---|---|" + "---|" * len(columns)]
    for name, row in rows:
        lines.append("| `%s` | %s | " % (name, row.get("reference", "-")) +
                     " | ".join(short(row.get(c, "-")) for c in columns) + " |")
    lines.append("")
    for why, n in sorted(reasons.items(), key=lambda kv: kv[1]):
        lines.append("[%d] %s  " % (n, why.replace("|", "\\|")))
    by_reason = {}
    for rel, why in skipped:
        by_reason.setdefault(why, []).append("`%s`" % os.path.basename(rel))
    for why, files in by_reason.items():
        lines.append("")
        lines.append("Not compared (%s): %s" % (why, ", ".join(files)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--neuron-run", default="neuron-run", help="neuron-run binary")
    ap.add_argument("--mlir-opt", required=True, help="upstream mlir-opt (LLVM 22)")
    ap.add_argument("--mlir-runner", required=True, help="upstream mlir-runner (LLVM 22)")
    ap.add_argument("--runner-utils-dir", required=True,
                    help="directory holding libmlir_runner_utils.so and "
                         "libmlir_c_runner_utils.so")
    ap.add_argument("--workdir", required=True, help="directory for generated files")
    ap.add_argument("--filter", default="", help="only cases whose file:@fn contains this")
    ap.add_argument("--also-simulated", action="store_true",
                    help="also compile each function for trn1 (unfused and fused) and run the "
                         "executable on the simulator (neuron-run --sim)")
    ap.add_argument("--also-fused", action="store_true",
                    help="also run neuron-run --fuse and compare it with the same reference")
    ap.add_argument("--reference-only", action="store_true",
                    help="run only the mlir-runner reference (no neuron-run)")
    ap.add_argument("--models", default="",
                    help="models directory (default ./models, every function in CASES); "
                         "another directory adds a case for every public function")
    ap.add_argument("--levels", default="",
                    help="also compile with neuronc at these -O levels (e.g. 0,1,2,3) and "
                         "run the executables on the simulator")
    ap.add_argument("--targets", default="trn1,trn2", help="targets for --levels")
    ap.add_argument("--table", default="", help="write the corpus table (markdown) here")
    args = ap.parse_args()

    global MODELS
    try:
        tools = Tools(args)
        if args.models:
            MODELS = os.path.abspath(args.models)
            all_cases, skipped = discover_cases(MODELS)
        else:
            check_coverage()
            all_cases, skipped = CASES, []
    except HarnessError as e:
        print("compare_models: error: %s" % e)
        return 2
    os.makedirs(args.workdir, exist_ok=True)
    cases = [c for c in all_cases if args.filter in c.name]
    if not cases:
        print("compare_models: error: no case matches --filter %r" % args.filter)
        return 2

    failed = 0
    t_start = time.time()
    variants = {}  # model file -> (text, path, goldens): one variant per file
    rows = []
    for case in cases:
        row = {}
        rows.append((case.name, row))
        try:
            if case.file not in variants:
                same_file = [c for c in all_cases if c.file == case.file]
                with open(os.path.join(MODELS, case.file)) as f:
                    text, goldens = make_variant(f.read(), same_file)
                path = os.path.join(args.workdir,
                                    os.path.basename(case.file)[:-5] + ".variant.mlir")
                with open(path, "w") as f:
                    f.write(text)
                variants[case.file] = (text, path, goldens)
            text, path, goldens = variants[case.file]
            ok, line = run_case(case, text, path, goldens, tools, args.workdir,
                                args.reference_only, row)
        except HarnessError as e:
            ok, line = False, "FAIL %s: %s" % (case.name, e)
            row.setdefault("reference", "error: " + first_error(str(e)))
        except Exception as e:  # a harness bug must not hide the other cases
            ok, line = False, "FAIL %s: harness: %s: %s" % (case.name, type(e).__name__, e)
            row.setdefault("reference", "error: harness: %s" % e)
        failed += 0 if ok else 1
        print(line)
        sys.stdout.flush()
    total = time.time() - t_start
    if args.table:
        columns = ["interpreter"] + ["-O%d %s" % (l, t) for t in tools.targets
                                     for l in tools.levels]
        write_table(args.table, columns, rows, skipped, MODELS)
    if args.reference_only:
        print("models: %d reference runs, %d failed (%.1fs)" % (len(cases), failed, total))
    else:
        print("models: %d compared, %d failed (%.1fs)" % (len(cases), failed, total))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
