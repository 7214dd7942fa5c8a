#!/usr/bin/env python3
"""Convolutions, depthwise convolutions, pooling and their fused epilogues on
the simulator, against the interpreter (whose kernels check_ops.py checks
against numpy): `neuron-run PROGRAM --check --random-inputs --target=T` per
case and target. The cases sit at the thresholds of the lowering: channel and
output-channel tiles (127/128/129), the PSUM bank (512/513 output columns,
rows x columns around 512), image batching in one bank, padding that only
some taps read, strides, dilations, groups, 1-D, bf16 with f32 results, and
real model shapes (ResNet-50, MobileNetV2).

usage: conv_cases.py --neuron-run BIN --workdir DIR [--targets trn1,trn2]
Prints PASS/FAIL per case and `conv-cases: N cases, M failed`; exits 1 on a
failure.
"""
import argparse
import os
import subprocess
import sys


def T(s, t):
    return "tensor<%sx%s>" % ("x".join(map(str, s)), t)


def L(v):
    return "[" + ", ".join(map(str, v)) + "]"


def window_out(x, k, st, pad, dil):
    n = len(k)
    return [(x[2 + d] + pad[d] + pad[n + d] - dil[d] * (k[d] - 1) - 1) // st[d] + 1
            for d in range(n)]


def dense_hex(shape, ty, seed):
    """A seeded standard-normal constant as MLIR's hex dense literal."""
    import numpy as np
    v = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    if ty == "bf16":
        v = (v.view(np.uint32) >> 16).astype(np.uint16)  # truncated: exact in bf16
    return 'dense<"0x%s">' % v.tobytes().hex().upper()


def conv(x, w, st, pad, dil, g, bias, ty="f32", oty=None, epilogue=False, const_w=False):
    """A convolution case; with `const_w` the weight is a (seeded, non-splat)
    constant, which the lowering packs at compile time (and packs kernel rows
    onto the partitions when the input channels are few)."""
    oty = oty or ty
    y = [x[0], w[0]] + window_out(x, w[2:], st, pad, dil)
    args = [("x", T(x, ty))] + ([] if const_w else [("w", T(w, ty))])
    args += [("b", T([w[0]], oty))] if bias else []
    body = ["%%w = neuron.constant %s : %s" % (dense_hex(w, ty, sum(w)), T(w, ty))] if const_w else []
    body += ["%%y = neuron.conv %%x, %%w%s strides = %s padding = %s dilations = %s groups = %d"
             " : (%s) -> %s" % (" bias %b" if bias else "", L(st), L(pad), L(dil), g,
                                ", ".join([T(x, ty), T(w, ty)] + ([T([w[0]], oty)] if bias else [])),
                                T(y, oty))]
    res = "y"
    if epilogue:  # folded batchnorm (per-channel constants), residual add, relu
        c = [1, w[0]] + [1] * (len(x) - 2)
        args.append(("r", T(y, oty)))
        body += ["%%s = neuron.constant dense<0.75> : %s" % T(c, oty),
                 "%%m = neuron.mul %%y, %%s : %s, %s -> %s" % (T(y, oty), T(c, oty), T(y, oty)),
                 "%%a = neuron.add %%m, %%r : %s, %s -> %s" % (T(y, oty), T(y, oty), T(y, oty)),
                 "%%z = neuron.relu %%a : %s" % T(y, oty)]
        res = "z"
    return func(args, body, res, T(y, oty))


def pool(x, kind, k, st, pad, incl=False, ty="f32"):
    y = [x[0], x[1]] + window_out(x, k, st, pad, [1] * len(k))
    body = ["%%y = neuron.pool %s %%x kernel = %s strides = %s padding = %s%s : %s -> %s" % (
        kind, L(k), L(st), L(pad), " count_include_pad" if incl else "", T(x, ty), T(y, ty))]
    return func([("x", T(x, ty))], body, "y", T(y, ty))


def conv_pool(x, w, st, pad, bias, epi, kind, k, pst, ppad, incl=False, ty="f32", const_w=False,
              groups=1):
    """A convolution (with `epi`: None, "relu", or "bn_res_relu" - a folded
    batchnorm scale, a residual add and a relu) feeding a pooling: with
    --fuse, one conv-pool kernel that pools the convolution's planes in SBUF
    (or, where it cannot, the refusal's fallback of two kernels)."""
    n = len(k)
    y = [x[0], w[0]] + window_out(x, w[2:], st, pad, [1] * n)
    z = [x[0], w[0]] + window_out(y, k, pst, ppad, [1] * n)
    args = [("x", T(x, ty))] + ([] if const_w else [("w", T(w, ty))])
    args += [("b", T([w[0]], ty))] if bias else []
    body = ["%%w = neuron.constant %s : %s" % (dense_hex(w, ty, sum(w)), T(w, ty))] if const_w else []
    body += ["%%y = neuron.conv %%x, %%w%s strides = %s padding = %s dilations = %s groups = %d"
             " : (%s) -> %s" % (" bias %b" if bias else "", L(st), L(pad), L([1] * n), groups,
                                ", ".join([T(x, ty), T(w, ty)] + ([T([w[0]], ty)] if bias else [])),
                                T(y, ty))]
    v = "y"
    if epi == "bn_res_relu":
        c = [1, w[0]] + [1] * n
        args.append(("r", T(y, ty)))
        body += ["%%s = neuron.constant dense<0.75> : %s" % T(c, ty),
                 "%%m = neuron.mul %%y, %%s : %s, %s -> %s" % (T(y, ty), T(c, ty), T(y, ty)),
                 "%%a = neuron.add %%m, %%r : %s, %s -> %s" % (T(y, ty), T(y, ty), T(y, ty))]
        v = "a"
    if epi:
        body.append("%%z = neuron.relu %%%s : %s" % (v, T(y, ty)))
        v = "z"
    body.append("%%p = neuron.pool %s %%%s kernel = %s strides = %s padding = %s%s : %s -> %s" % (
        kind, v, L(k), L(pst), L(ppad), " count_include_pad" if incl else "", T(y, ty), T(z, ty)))
    return func(args, body, "p", T(z, ty))


def inverted_residual(n, c, e, hw, ty="f32"):
    """MobileNetV2's block: 1x1 expansion + ReLU, 3x3 depthwise + ReLU, 1x1
    projection, residual add: four kernels whose activations stay in SBUF."""
    x, we, wd, wp = (n, c, hw, hw), (e, c, 1, 1), (e, 1, 3, 3), (c, e, 1, 1)
    y = (n, e, hw, hw)
    return func(
        [("x", T(x, ty)), ("we", T(we, ty)), ("wd", T(wd, ty)), ("wp", T(wp, ty))],
        ["%%a = neuron.conv %%x, %%we strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1]"
         " groups = 1 : (%s, %s) -> %s" % (T(x, ty), T(we, ty), T(y, ty)),
         "%%b = neuron.relu %%a : %s" % T(y, ty),
         "%%c = neuron.conv %%b, %%wd strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1]"
         " groups = %d : (%s, %s) -> %s" % (e, T(y, ty), T(wd, ty), T(y, ty)),
         "%%d = neuron.relu %%c : %s" % T(y, ty),
         "%%f = neuron.conv %%d, %%wp strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1]"
         " groups = 1 : (%s, %s) -> %s" % (T(y, ty), T(wp, ty), T(x, ty)),
         "%%g = neuron.add %%f, %%x : %s, %s -> %s" % (T(x, ty), T(x, ty), T(x, ty))], "g", T(x, ty))


def func(args, body, res, rty):
    sig = ", ".join("%%%s: %s" % a for a in args)
    lines = ["func.func @main(%s) -> %s {" % (sig, rty)]
    lines += ["  " + b for b in body]
    lines += ["  return %%%s : %s" % (res, rty), "}"]
    return "\n".join(lines) + "\n"


CASES = {
    # TensorE implicit GEMM
    "conv3x3_pad1_batch2": conv((2, 3, 7, 6), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, False),
    "conv_stride2_asym_pad": conv((2, 3, 9, 8), (5, 3, 3, 3), (2, 2), (1, 0, 1, 2), (1, 1), 1, True),
    "conv_dilation2": conv((1, 2, 9, 9), (3, 2, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 1, False),
    "conv_groups2": conv((1, 4, 6, 6), (6, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2, True),
    "conv_groups4_32ch": conv((1, 32, 10, 10), (64, 8, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 4, True),
    "conv1d": conv((2, 3, 11), (4, 3, 5), (2,), (2, 1), (1,), 1, True),
    "conv_bf16_f32": conv((1, 3, 6, 6), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, False,
                          ty="bf16", oty="f32"),
    "conv_c127": conv((1, 127, 5, 5), (64, 127, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True),
    "conv_c128_f129": conv((1, 128, 5, 5), (129, 128, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True),
    "conv_c129_f127": conv((1, 129, 5, 5), (127, 129, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True),
    "conv_ow512": conv((1, 4, 2, 512), (8, 4, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, False),
    "conv_ow513": conv((1, 4, 1, 513), (8, 4, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, False),
    "conv_ow1029_chunks": conv((1, 4, 2, 1030), (8, 4, 1, 3), (1, 1), (0, 0, 1, 1), (1, 1), 1, False),
    "conv_rows_23x23_batch3": conv((3, 8, 23, 23), (16, 8, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True),
    "conv_images_per_bank": conv((12, 8, 6, 7), (16, 8, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True),
    "conv_stem_7x7s2": conv((1, 3, 64, 64), (16, 3, 7, 7), (2, 2), (3, 3, 3, 3), (1, 1), 1, False),
    "conv_pad_beyond_kernel": conv((1, 4, 6, 6), (4, 4, 3, 3), (1, 1), (3, 3, 3, 3), (1, 1), 1, True),
    "resnet50_1x1_256to64_56": conv((1, 256, 56, 56), (64, 256, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, True),
    "resnet50_3x3_512_7_batch2": conv((2, 512, 7, 7), (512, 512, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True,
                                      ty="bf16", oty="f32"),
    "resnet50_3x3s2_128_56": conv((1, 128, 56, 56), (128, 128, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1, True),
    "fused_conv_bn_residual_relu": conv((2, 16, 9, 9), (32, 16, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True,
                                        epilogue=True),
    # Constant weights: packed at compile time; few input channels also pack
    # kernel rows onto the partitions (all rows, two of three, a partial last
    # group; with stride, dilation, padding, groups, bf16).
    "const_stem_7x7s2_c3": conv((2, 3, 32, 32), (16, 3, 7, 7), (2, 2), (3, 3, 3, 3), (1, 1), 1, True,
                                const_w=True),
    # ... and, at column stride 1 with partitions to spare, kernel columns
    # too (every column in one group; three groups, the last partial, with
    # asymmetric padding).
    "const_3x3_c3_cols_packed": conv((2, 3, 40, 40), (16, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1,
                                     True, const_w=True),
    "const_7x7_c3_cols_groups": conv((1, 3, 30, 33), (8, 3, 7, 7), (1, 1), (3, 2, 3, 4), (1, 1),
                                     1, False, const_w=True),
    "const_3x3_c16_rows_packed": conv((1, 16, 12, 12), (24, 16, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1,
                                      False, const_w=True),
    "const_3x3_c64": conv((1, 64, 10, 10), (32, 64, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1,
                          True, const_w=True),
    "const_3x3_c40_three_rows": conv((1, 40, 10, 10), (32, 40, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1,
                                     True, const_w=True),
    "const_5x5_c32_partial_group": conv((1, 32, 11, 11), (20, 32, 5, 5), (2, 1), (2, 1, 2, 3), (1, 1),
                                        1, True, const_w=True),
    "const_3x3_c8_dilation2": conv((2, 8, 13, 13), (8, 8, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 1, False,
                                   const_w=True),
    "const_3x3_c130": conv((1, 130, 6, 6), (40, 130, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True,
                           const_w=True),
    "const_groups4": conv((1, 32, 9, 9), (64, 8, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 4, True,
                          const_w=True),
    "const_stem_bf16_f32": conv((1, 3, 40, 40), (32, 3, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1, True,
                                ty="bf16", oty="f32", const_w=True),
    # 160 output channels whose weights fit: one chunk (two output tiles),
    # not 128 + 32 with the input loaded once per chunk (MobileNetV2's
    # projections).
    "const_1x1_960_to_160": conv((1, 960, 2, 2), (160, 960, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, False,
                                 const_w=True),
    "const_fused_bn": conv((2, 16, 9, 9), (32, 16, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True,
                           epilogue=True, const_w=True),
    # VectorE/GpSimdE windows
    "depthwise_3x3_96ch_batch4": conv((4, 96, 15, 15), (96, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 96, True),
    "depthwise_160ch_stride2": conv((2, 160, 14, 14), (160, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 160, True),
    "depthwise_5x5_dilation2": conv((1, 32, 17, 17), (32, 1, 5, 5), (1, 1), (4, 4, 4, 4), (2, 2), 32, False),
    "depthwise_bf16_f32": conv((2, 64, 9, 9), (64, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 64, True,
                               ty="bf16", oty="f32"),
    "depthwise_multiplier2_tensore": conv((1, 8, 9, 9), (16, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 8, True),
    "depthwise_1d": conv((2, 40, 33), (40, 1, 5), (2,), (2, 2), (1,), 40, True),
    "depthwise_fused": conv((2, 96, 15, 15), (96, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 96, False,
                            epilogue=True),
    "mobilenetv2_dw_144_56": conv((1, 144, 56, 56), (144, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 144, True),
    # Small maps with many planes: the plane tiles fold onto the free axis
    # (one instruction per tap over all of them), per-tile weights (960
    # channels: 7 full tiles and a partial one alone) or one shared set
    # (16 images x 64 channels), middle tap reading no padding (stride 1) or
    # padded rows (stride 2), fused epilogue, bf16 input converted on chip.
    "depthwise_fold_960ch_2x2": conv((1, 960, 2, 2), (960, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 960, True),
    "depthwise_fold_shared_b16": conv((16, 64, 3, 3), (64, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 64, False),
    "depthwise_fold_5x5_fused": conv((1, 768, 2, 2), (768, 1, 5, 5), (1, 1), (2, 2, 2, 2), (1, 1), 768, True,
                                     epilogue=True),
    "depthwise_fold_bf16_f32": conv((2, 320, 2, 2), (320, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 320, True,
                                    ty="bf16", oty="f32"),
    # Few planes of many rows: the planes are cut into bands of output rows,
    # each band on partitions of its own (MnasNet/MobileNet's 16 channels at
    # 112x112: 8 bands; 48 channels, stride 2, with a per-channel scale, a
    # residual and a relu fused: 2 bands; 5x5 with padding 2, 24 channels in
    # bf16: 5 bands, the first and last with padding rows; two images with
    # dilation; pools with -inf fill and excluded-padding divisors).
    "depthwise_bands_16ch_112": conv((1, 16, 112, 112), (16, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 16,
                                     True),
    "depthwise_bands_48ch_stride2_fused": conv((1, 48, 112, 112), (48, 1, 3, 3), (2, 2), (1, 1, 1, 1),
                                               (1, 1), 48, False, epilogue=True),
    "depthwise_bands_5x5_bf16": conv((1, 24, 30, 30), (24, 1, 5, 5), (1, 1), (2, 2, 2, 2), (1, 1), 24,
                                     True, ty="bf16", oty="f32"),
    "depthwise_bands_batch2_dilation2": conv((2, 8, 64, 64), (8, 1, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2),
                                             8, True),
    "maxpool_bands_resnet_stem": pool((1, 64, 112, 112), "max", (3, 3), (2, 2), (1, 1, 1, 1)),
    "avgpool_bands_pad_excluded": pool((1, 8, 60, 60), "avg", (3, 3), (1, 1), (1, 1, 1, 1)),
    # A reduction in the epilogue (global average pooling): the epilogue runs
    # as its own kernel after the convolution.
    "conv_relu_global_avgpool": func(
        [("x", T((2, 16, 9, 9), "f32")), ("w", T((32, 16, 3, 3), "f32"))],
        ["%y = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1]"
         " groups = 1 : (tensor<2x16x9x9xf32>, tensor<32x16x3x3xf32>) -> tensor<2x32x9x9xf32>",
         "%z = neuron.relu %y : tensor<2x32x9x9xf32>",
         "%m = neuron.reduce_mean %z axes = [2, 3] keepdims : tensor<2x32x9x9xf32> -> "
         "tensor<2x32x1x1xf32>"], "m", T((2, 32, 1, 1), "f32")),
    # Kernel chains compiled with fusion, where later kernels read earlier
    # kernels' results from SBUF (nisa-forward-stores): a MobileNetV2 block
    # on a 4x4 map (every activation stays on chip), in bf16, with 160
    # expanded channels (two partition tiles), and at 28x28 where the
    # depthwise kernel streams row blocks and only the last ones are still
    # in SBUF when the projection runs.
    "chain_inverted_residual_4x4": inverted_residual(1, 32, 96, 4),
    "chain_inverted_residual_bf16": inverted_residual(1, 24, 144, 3, ty="bf16"),
    "chain_inverted_residual_160ch": inverted_residual(1, 40, 160, 2),
    "chain_inverted_residual_28x28": inverted_residual(1, 32, 192, 28),
    "maxpool_3x3s2_pad1": pool((2, 3, 9, 8), "max", (3, 3), (2, 2), (1, 1, 1, 1)),
    "avgpool_pad_excluded": pool((1, 3, 7, 7), "avg", (3, 3), (2, 2), (1, 1, 1, 1)),
    "avgpool_pad_included": pool((1, 3, 7, 7), "avg", (3, 3), (2, 2), (1, 1, 1, 1), True),
    "avgpool_2x2": pool((2, 4, 6, 6), "avg", (2, 2), (2, 2), (0, 0, 0, 0)),
    "maxpool1d": pool((2, 3, 10), "max", (3,), (1,), (1, 1)),
    "maxpool_resnet_stem_batch2": pool((2, 64, 112, 112), "max", (3, 3), (2, 2), (1, 1, 1, 1)),
    "maxpool_129_planes_bf16": pool((1, 129, 11, 11), "max", (3, 3), (2, 2), (1, 1, 1, 1), ty="bf16"),
    "maxpool_fold_512_planes": pool((1, 512, 7, 7), "max", (3, 3), (2, 2), (1, 1, 1, 1)),
    "avgpool_fold_pad_excluded": pool((2, 200, 5, 5), "avg", (3, 3), (2, 2), (1, 1, 1, 1)),
    # Three and four spatial dims: neuron-decompose-windows splits them into
    # the 2-D windows above (depth taps as 2-D convolutions over planes moved
    # into the batch; pooling separably).
    "conv3d_3x3x3_pad1_batch2": conv((2, 4, 5, 6, 6), (8, 4, 3, 3, 3), (1, 1, 1), (1, 1, 1, 1, 1, 1),
                                     (1, 1, 1), 1, True),
    "conv3d_strided_dilated_groups": conv((1, 4, 9, 7, 8), (6, 2, 3, 2, 3), (2, 1, 2),
                                          (2, 0, 1, 1, 1, 0), (2, 1, 1), 2, True),
    "conv3d_pad_beyond_depth": conv((1, 2, 2, 5, 5), (3, 2, 3, 3, 3), (1, 1, 1), (3, 1, 1, 3, 1, 1),
                                    (1, 1, 1), 1, False),
    "conv3d_depthwise": conv((1, 16, 6, 9, 9), (16, 1, 3, 3, 3), (1, 2, 2), (1, 1, 1, 1, 1, 1),
                             (1, 1, 1), 16, True),
    "conv3d_const_bf16_fused": conv((1, 8, 4, 8, 8), (16, 8, 3, 3, 3), (1, 1, 1), (1, 1, 1, 1, 1, 1),
                                    (1, 1, 1), 1, True, ty="bf16", oty="f32", epilogue=True,
                                    const_w=True),
    "c3d_3x3x3_64ch_4x28x28": conv((1, 64, 4, 28, 28), (64, 64, 3, 3, 3), (1, 1, 1),
                                   (1, 1, 1, 1, 1, 1), (1, 1, 1), 1, True, const_w=True),
    "conv4d": conv((1, 2, 3, 4, 3, 4), (3, 2, 2, 2, 2, 2), (1, 1, 1, 1), (1, 0, 0, 1, 0, 1, 1, 0),
                   (1, 1, 1, 1), 1, True),
    "maxpool3d_pad": pool((1, 3, 7, 6, 5), "max", (3, 2, 3), (2, 2, 2), (1, 0, 1, 1, 0, 1)),
    "avgpool3d_pad_excluded": pool((2, 3, 7, 6, 5), "avg", (3, 2, 3), (2, 2, 2), (1, 0, 1, 1, 0, 1)),
    "avgpool3d_pad_included": pool((2, 3, 7, 6, 5), "avg", (3, 2, 3), (2, 2, 2), (1, 0, 1, 1, 0, 1), True),
    "maxpool3d_video_batch2": pool((2, 64, 8, 28, 28), "max", (2, 2, 2), (2, 2, 2), (0, 0, 0, 0, 0, 0)),
    "avgpool4d": pool((1, 2, 4, 5, 4, 6), "avg", (2, 3, 2, 3), (1, 1, 2, 2), (1, 0, 0, 1, 0, 1, 1, 0)),
    # Pooling fused into the convolution (conv-pool, run with --fuse): the
    # planes kept in SBUF, only the rows and columns the windows read
    # written, pooled blocks as rows arrive.
    "conv_pool_stem_bias_relu": conv_pool((2, 3, 40, 40), (16, 3, 7, 7), (2, 2), (3, 3, 3, 3), True,
                                          "relu", "max", (3, 3), (2, 2), (1, 1, 1, 1), const_w=True),
    "conv_pool_resnet_stem_224": conv_pool((1, 3, 224, 224), (64, 3, 7, 7), (2, 2), (3, 3, 3, 3),
                                           True, "relu", "max", (3, 3), (2, 2), (1, 1, 1, 1),
                                           const_w=True),
    "conv_pool_bias_avg_excluded": conv_pool((1, 8, 9, 9), (16, 8, 3, 3), (1, 1), (1, 1, 1, 1), True,
                                             None, "avg", (3, 3), (2, 2), (1, 1, 1, 1)),
    "conv_pool_residual_avg_included_s1": conv_pool((2, 8, 9, 9), (16, 8, 3, 3), (1, 1),
                                                    (1, 1, 1, 1), False, "bn_res_relu", "avg",
                                                    (3, 3), (1, 1), (1, 1, 1, 1), incl=True),
    "conv_pool_2x2_odd_images_per_bank": conv_pool((2, 8, 7, 7), (8, 8, 3, 3), (1, 1), (1, 1, 1, 1),
                                                   False, "relu", "max", (2, 2), (2, 2), (0, 0, 0, 0)),
    "conv_pool_f130": conv_pool((1, 16, 10, 10), (130, 16, 3, 3), (1, 1), (1, 1, 1, 1), True, "relu",
                                "max", (3, 3), (2, 2), (1, 1, 1, 1)),
    "conv_pool_ow520_row_chunks": conv_pool((1, 4, 4, 520), (8, 4, 3, 3), (1, 1), (1, 1, 1, 1), False,
                                            "relu", "max", (2, 2), (2, 2), (0, 0, 0, 0)),
    "conv_pool_rows_30_s1": conv_pool((1, 8, 30, 30), (16, 8, 3, 3), (1, 1), (1, 1, 1, 1), False,
                                      "relu", "max", (3, 3), (1, 1), (1, 1, 1, 1)),
    "conv_pool_1d": conv_pool((2, 8, 50), (16, 8, 3), (1,), (1, 1), True, "relu", "max", (3,), (2,),
                              (1, 1)),
    "conv_pool_bf16": conv_pool((1, 8, 12, 12), (16, 8, 3, 3), (1, 1), (1, 1, 1, 1), False, "relu",
                                "max", (3, 3), (2, 2), (1, 1, 1, 1), ty="bf16"),
    # Refused at lowering (a stride over the window skips rows the
    # convolution writes; a depthwise convolution keeps no planes): two
    # kernels.
    "conv_pool_stride_over_window": conv_pool((1, 8, 9, 9), (8, 8, 3, 3), (1, 1), (1, 1, 1, 1), False,
                                              "relu", "max", (1, 1), (2, 2), (0, 0, 0, 0)),
    "conv_pool_depthwise": conv_pool((1, 8, 9, 9), (8, 1, 3, 3), (1, 1), (1, 1, 1, 1), False, "relu",
                                     "max", (3, 3), (2, 2), (1, 1, 1, 1), groups=8),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--neuron-run", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--targets", default="trn1,trn2")
    ap.add_argument("--only", default="", help="comma-separated case names")
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    names = [n for n in CASES if not args.only or n in args.only.split(",")]
    failed = 0
    count = 0
    for name in names:
        path = os.path.join(args.workdir, name + ".mlir")
        with open(path, "w") as f:
            f.write(CASES[name])
        for target in args.targets.split(","):
            count += 1
            fuse = ["--fuse"] if name.startswith(("conv_pool_", "chain_")) else []
            r = subprocess.run([args.neuron_run, path, "--check", "--random-inputs",
                                "--target=" + target] + fuse, capture_output=True, text=True)
            if r.returncode == 0:
                print("PASS %s %s" % (name, target))
            else:
                failed += 1
                print("FAIL %s %s: %s" % (name, target, (r.stdout + r.stderr).strip()[-600:]))
            sys.stdout.flush()
    print("conv-cases: %d cases, %d failed" % (count, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
