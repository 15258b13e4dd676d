"""Writes a small int8 CNN of the convolutions U^2-Net / ISNet and quantized ResNets are made
of, for tests/models.sh section 8 to compare with onnxruntime-node exactly:

    python tests/models/int8_cnn.py OUTDIR

  int8_cnn.onnx   x uint8 [1, 8, 24, 28] -> QLinearConv 3x3 pad 1 -> 3x3 dilation 2 ->
                  dilation 4 -> dilation 8 (pads = dilation) -> 3x3 stride 2, 16 channels
                  (uint8 and int8 weights, scalar and per-channel scales, int32 biases), each
                  layer's uint8 output an output; and a ConvInteger beside each (on x and on
                  each QLinearConv's output: 3x3, the three dilations, stride 2; int32
                  outputs); then depthwise QLinearConv 3x3 stride 1 and 5x5 stride 2 (16
                  groups) with a depthwise ConvInteger of 2 outputs per group beside each;
                  and a ConvInteger of 1000 input channels (x2 uint8 [1, 1000, 6, 7]: two
                  blocks of the exact Winograd's reduction).
                  The 3x3 stride-1 ones run on the int8 Winograd, the stride-2 ones on its
                  stride-2 form, the depthwise ones on the int8 depthwise kernel.

Why exact equality holds with onnxruntime: the int32 outputs are sums of integer
products, which both compute exactly (int8 weights lie in [-63, 63], so onnxruntime's u8 x
s8 kernels on AVX2 machines without VNNI, which add pairs of products in saturating
int16, cannot saturate: 2 x 255 x 63 < 32767). The QLinearConv layers requantize with
power-of-two scales (x 2^-4, w 2^-5 to 2^-7, y 2^2 or 2^3): their multiplier is a power
of two, so acc x multiplier is exact in float32 as in double while |acc| < 2^24 (it stays
far below), and both round halves to even: the same bytes whatever the arithmetic.
Same output for the same script (numpy PCG64, seed 0).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)


def weights(name, shape, dtype, inits):
    """uint8 weights over the full range, or int8 within [-63, 63] (see the top)."""
    if dtype == np.uint8:
        w = rng.integers(0, 256, shape).astype(np.uint8)
    else:
        w = rng.integers(-63, 64, shape).astype(np.int8)
    inits.append(numpy_helper.from_array(w, name))
    return name


def const(name, value, inits):
    inits.append(numpy_helper.from_array(value, name))
    return name


def int8_cnn(out):
    f = np.float32
    C, M = 8, 16
    inits, nodes, outputs = [], [], []
    const("xs", f(2.0 ** -4), inits)
    const("xz", np.uint8(120), inits)
    # layer: (dilation, stride, weight dtype, per-channel scale, y scale, y zero point)
    layers = [(1, 1, np.uint8, False, 2.0 ** 3, 128), (2, 1, np.int8, True, 2.0 ** 2, 100),
              (4, 1, np.uint8, True, 2.0 ** 3, 140), (8, 1, np.int8, False, 2.0 ** 2, 128),
              (1, 2, np.uint8, True, 2.0 ** 3, 125)]
    x, xs, xz, cin = "x", "xs", "xz", C
    for i, (d, s, wdt, per_channel, ys, yz) in enumerate(layers, 1):
        w = weights(f"w{i}", (M, cin, 3, 3), wdt, inits)
        wz = const(f"wz{i}", np.uint8(131) if wdt == np.uint8 else np.int8(0), inits)
        scales = (2.0 ** -rng.integers(5, 8, M)) if per_channel else 2.0 ** -6
        ws = const(f"ws{i}", np.asarray(scales, np.float32), inits)
        const(f"ys{i}", f(ys), inits)
        const(f"yz{i}", np.uint8(yz), inits)
        b = const(f"b{i}", rng.integers(-20000, 20000, M).astype(np.int32), inits)
        pads = [d, d, d, d]
        nodes.append(helper.make_node("QLinearConv", [x, xs, xz, w, ws, wz, f"ys{i}", f"yz{i}", b], [f"q{i}"],
                                      pads=pads, dilations=[d, d], strides=[s, s]))
        # a ConvInteger on the same input: another weight, scalar zero points
        wc = weights(f"wc{i}", (M - 3, cin, 3, 3), wdt, inits)
        wcz = const(f"wcz{i}", np.uint8(7) if wdt == np.uint8 else np.int8(0), inits)
        nodes.append(helper.make_node("ConvInteger", [x, wc, xz, wcz], [f"c{i}"], pads=pads, dilations=[d, d],
                                      strides=[s, s]))
        oh = (24 + s - 1) // s if i == 5 else 24
        ow = (28 + s - 1) // s if i == 5 else 28
        outputs += [helper.make_tensor_value_info(f"q{i}", TensorProto.UINT8, [1, M, oh, ow]),
                    helper.make_tensor_value_info(f"c{i}", TensorProto.INT32, [1, M - 3, oh, ow])]
        x, xs, xz, cin = f"q{i}", f"ys{i}", f"yz{i}", M
    # depthwise: 3x3 stride 1 and 5x5 stride 2 (16 groups), QLinearConv and ConvInteger
    for i, (k, st, wdt) in enumerate([(3, 1, np.int8), (5, 2, np.uint8)], 6):
        p = k // 2
        w = weights(f"w{i}", (M, 1, k, k), wdt, inits)
        wz = const(f"wz{i}", np.uint8(128) if wdt == np.uint8 else np.int8(0), inits)
        const(f"ws{i}", np.asarray(2.0 ** -rng.integers(4, 7, M), np.float32), inits)
        const(f"ys{i}", f(2.0 ** -2), inits)
        const(f"yz{i}", np.uint8(128), inits)
        b = const(f"b{i}", rng.integers(-3000, 3000, M).astype(np.int32), inits)
        nodes.append(helper.make_node("QLinearConv", [x, xs, xz, w, f"ws{i}", wz, f"ys{i}", f"yz{i}", b], [f"q{i}"],
                                      pads=[p] * 4, strides=[st, st], group=M))
        wc = weights(f"wc{i}", (2 * M, 1, k, k), wdt, inits)
        nodes.append(helper.make_node("ConvInteger", [x, wc, xz, wz], [f"c{i}"], pads=[p] * 4, strides=[st, st],
                                      group=M))
        oh, ow = (12 + st - 1) // st, (14 + st - 1) // st
        outputs += [helper.make_tensor_value_info(f"q{i}", TensorProto.UINT8, [1, M, oh, ow]),
                    helper.make_tensor_value_info(f"c{i}", TensorProto.INT32, [1, 2 * M, oh, ow])]
        x, xs, xz = f"q{i}", f"ys{i}", f"yz{i}"
    # 1000 input channels: the Winograd's reduction in two blocks
    wb = weights("wbig", (6, 1000, 3, 3), np.uint8, inits)
    const("x2z", np.uint8(77), inits)
    const("wbigz", np.uint8(200), inits)
    nodes.append(helper.make_node("ConvInteger", ["x2", wb, "x2z", "wbigz"], ["cbig"], pads=[1, 1, 1, 1]))
    outputs.append(helper.make_tensor_value_info("cbig", TensorProto.INT32, [1, 6, 6, 7]))
    inputs = [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, C, 24, 28]),
              helper.make_tensor_value_info("x2", TensorProto.UINT8, [1, 1000, 6, 7])]
    g = helper.make_graph(nodes, "int8_cnn", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, "int8_cnn.onnx"))


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    int8_cnn(out)
