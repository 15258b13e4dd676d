"""Writes a chain of 2-D convolutions with seeded random weights, one of each lowering the
compiler chooses (src/ops/conv.c), for the model tests to compare against onnxruntime-node:

    python tests/models/conv_chain.py OUT.onnx

  5x5, pad 2                        Winograd F(2x2, 5x5)
  5x5, 2 groups, asymmetric pads    Winograd F(2x2, 5x5), group by group
  3x3, 26x27 output                Winograd F(4x4, 3x3)
  3x3, pad 1, 6x6 output            Winograd F(2x2, 3x3); first run direct (packed GEMM)
  5x5, 2 groups, 6x6 output         Winograd F(2x2, 5x5) by group; first run direct
  3x3 stride 2                      Winograd-style stride-2 transform (25 products per 2x2 tile)
  7x7, pad 3                        packed GEMM, padded im2col copy
  3x3 dilation 2                    packed GEMM, dilated taps
  1x1                               packed GEMM, B read in place
  11x11 stride 4 (first layer)      packed GEMM, gathered im2col
  7x7 / 8x8 stride 2 (2 branches)   phase split + Winograd F(3x3, 4x4), asymmetric pads; each
                                    branch is a graph output of its own

Odd image sizes leave partial tiles everywhere. Weights are normal / sqrt(fan-in) so the
activations stay near 1 through the chain, and every conv but the last has a bias and
a Relu. Same output for the same script: numpy's PCG64 seeded with 0.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)
nodes, inits = [], []


def conv(x, c_in, c_out, k, stride=1, pads=None, dilation=1, group=1, relu=True):
    i = len(nodes)
    w = rng.standard_normal((c_out, c_in // group, k, k)).astype(np.float32)
    w *= np.float32(1.0 / np.sqrt(c_in // group * k * k))
    b = (0.1 * rng.standard_normal(c_out)).astype(np.float32)
    inits.extend([numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")])
    pads = pads if pads is not None else [(k - 1) * dilation // 2] * 4
    y = f"c{i}"
    nodes.append(helper.make_node("Conv", [x, f"w{i}", f"b{i}"], [y], name=f"conv{i}", kernel_shape=[k, k],
                                  strides=[stride, stride], pads=pads, dilations=[dilation, dilation],
                                  group=group))
    if not relu:
        return y
    nodes.append(helper.make_node("Relu", [y], [y + "r"], name=f"relu{i}"))
    return y + "r"


x = conv("x", 3, 24, 11, stride=4, pads=[0, 0, 0, 0])   # 115 -> 27
b8 = conv(x, 24, 16, 8, stride=2, pads=[3, 3, 4, 4], relu=False)  # phase split, 8x8: 14x14
x = conv(x, 24, 32, 5)                                    # F(2x2, 5x5)
x = conv(x, 32, 32, 5, pads=[1, 2, 3, 2], group=2)        # grouped, asymmetric pads: 27x27
x = conv(x, 32, 32, 3, pads=[1, 1, 0, 1])                 # F(4x4, 3x3): 26x27
x = conv(x, 32, 40, 3, stride=2)                          # stride 2: 13x14
x = conv(x, 40, 24, 7)                                    # 7x7 padded
b7 = conv(x, 24, 16, 7, stride=2, pads=[3, 2, 4, 3], relu=False)  # phase split, 7x7: 7x7
x = conv(x, 24, 20, 3, dilation=2)                        # dilated
x = conv(x, 20, 16, 3, stride=2, pads=[0, 0, 0, 0])       # 6x6
x = conv(x, 16, 32, 3)                                    # F(2x2, 3x3) on 6x6
x = conv(x, 32, 32, 5, group=2)                           # F(2x2, 5x5) grouped on 6x6
x = conv(x, 32, 10, 1, relu=False)                        # 1x1

graph = helper.make_graph(nodes, "conv_chain",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 115, 115])],
                          [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 10, 6, 6]),
                           helper.make_tensor_value_info(b8, TensorProto.FLOAT, [1, 16, 14, 14]),
                           helper.make_tensor_value_info(b7, TensorProto.FLOAT, [1, 16, 7, 7])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="conv_chain.py",
                          ir_version=8)  # onnxruntime 1.30 reads IR <= 13
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
