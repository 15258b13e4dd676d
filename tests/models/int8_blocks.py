"""Writes small models of the int8 and transformer building blocks, seeded random weights,
for the model tests to compare with the ONNX reference evaluator (the integer blocks and
lm_head_q8) or
onnxruntime-node (the others; tests/models.sh section 8):

    python tests/models/int8_blocks.py OUTDIR

  dq_matmul.onnx   x [2, 5, 33] float -> DynamicQuantizeLinear -> MatMulInteger with a
                   constant int8 B [33, 13] (scalar zero point) and a constant uint8 B
                   [33, 13] (per-column zero points): the int32 products and y_scale are
                   outputs (exact), and Cast + Mul as quantize_dynamic writes them
  dq_matmul_rows.onnx  x [1, 3, 201] -> DynamicQuantizeLinear -> MatMulInteger as a decode
                   step's: 3 rows (the int8 GEMV), K odd, N = 330 (not a multiple of the 8-column
                   panels; enough columns for a --threads build to split), an int8 B with a scalar zero point and a uint8 B with per-column
                   zero points 0 and 255 among them; the int32 products are the outputs
  dq_matmul_size.onnx  x [1, 1024] -> DynamicQuantizeLinear -> MatMulInteger with an int8 B
                   [1024, 1024] (1 MiB): the module keeps B at one byte per weight
  dq_conv.onnx     x [1, 3, 17, 15] -> DynamicQuantizeLinear -> ConvInteger 3x3 pad 1 with
                   constant int8 weights [6, 3, 3, 3] (onnxruntime takes only scalar weight
                   zero points here; the kernel test covers per-channel ones), and a
                   stride-2 5x5 one with uint8 weights (scalar zero point): im2col on the
                   int8 GEMM, int32 outputs (exact)
  lm_head_q8.onnx  x [1, 3, 64] -> MatMul by DequantizeLinear(Transpose(a uint8 table
                   [4000, 64]), one scale and zero point), a q8 file's tied lm_head, and by
                   DequantizeLinear of an int8 B [64, 500] with a scale and zero point per
                   column: the module keeps both at one byte per weight (gemm packed-B q8);
                   ids [1, 5] int64 -> Gather of the same table (its rows, and those
                   dequantized), which reads the lm_head's panels: the table held once
  merged_tied.onnx cond [1] bool, x [1, 3, 64], ids [1, 5] -> an If (a merged decoder's on
                   use_cache_branch) whose two branches read the same initializers: a
                   float32 B [64, 1024], an int8 MatMulInteger B [64, 2048], a uint8 table
                   [2000, 64] (Gather + DequantizeLinear, and a q8 lm_head: Transpose then
                   DequantizeLinear in one branch, DequantizeLinear then Transpose in the
                   other) and a float32 table [1000, 64] (Gather, and Transpose -> MatMul);
                   the else branch negates its outputs: each initializer held once
  tied_f16.onnx    x [1, 3, 64], ids [1, 5] -> a float16 file's tied table [3000, 64]: its
                   Gather (rows cast to float32) and its lm_head (Transpose -> MatMul of x
                   cast to float16, logits cast to float32), read once: the Gather from the
                   lm_head's float16 panels
  qdq_bias.onnx    DequantizeLinear of an int32 bias with scale of shape [1] and zero
                   point of shape [], as quantize_static writes for QDQ biases, added to x
  layernorm.onnx   LayerNormalization of x [3, 7, 37] over the last axis (with bias, mean
                   and inverse std outputs) and over axes 1.. (no bias)
  dq_conv1x1.onnx  x [1, 5, 9, 13] -> DynamicQuantizeLinear -> ConvInteger 1x1 with constant
                   int8 weights [10, 5, 1, 1]: the pointwise kernel (pixels in lanes; odd
                   channel count, pixels and channels not multiples of its blocks), int32
                   output (exact)
  qdq_conv.onnx    x [2, 6, 9, 13] -> QuantizeLinear -> DequantizeLinear -> Conv 1x1 (int8
                   weights per output channel, int32 bias) -> Q -> DQ -> Conv 3x3 pad 1 (per
                   tensor, no bias) -> Q -> DQ, as quantize_static writes a QDQ model: both
                   become QLinearConvs (match_qdq.c), the 1x1 on the int8 pointwise kernel,
                   the 3x3 on the exact int8 Winograd
  dq_chain.onnx    x [1, 8, 13, 11] -> quantize_dynamic's chains, each DynamicQuantizeLinear
                   -> ConvInteger -> Cast -> Mul (x_scale * w_scale) [-> Add bias] [-> Relu |
                   Clip] [-> Add residual], on every int8 kernel: 3x3 (Winograd) + Relu,
                   depthwise 3x3 + Clip(0, 6), 1x1 with per-channel scales + the residual x,
                   3x3 stride 2 (im2col), a 2-group 3x3 (int32 direct), a 3x3 stride 2 of 16
                   channels (stride-2 Winograd) without a bias: each becomes one ConvInteger
                   writing float32 and keeping the range its next DynamicQuantizeLinear
                   reads (fuse_qconv_epilogue.c); the quantized tensors, their scales and
                   zero points are outputs too (exact)
Inputs are graph inputs x; same output for the same script (numpy PCG64, seed 0).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)


def save(out, name, nodes, inputs, outputs, inits, opset=17):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, name + ".onnx"))


def vi(name, dt, shape):
    return helper.make_tensor_value_info(name, dt, shape)


def dq_matmul(out):
    b1 = rng.integers(-128, 128, (33, 13)).astype(np.int8)
    b2 = rng.integers(0, 256, (33, 13)).astype(np.uint8)
    inits = [numpy_helper.from_array(b1, "b1"), numpy_helper.from_array(np.int8(-3), "zb1"),
             numpy_helper.from_array(b2, "b2"),
             numpy_helper.from_array(rng.integers(0, 256, 13).astype(np.uint8), "zb2"),
             numpy_helper.from_array(np.float32(0.02), "sb1")]
    nodes = [helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
             helper.make_node("MatMulInteger", ["xq", "b1", "xz", "zb1"], ["p1"]),
             helper.make_node("MatMulInteger", ["xq", "b2", "xz", "zb2"], ["p2"]),
             helper.make_node("Cast", ["p1"], ["p1f"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["xs", "sb1"], ["s"]),
             helper.make_node("Mul", ["p1f", "s"], ["y"])]
    save(out, "dq_matmul", nodes, [vi("x", TensorProto.FLOAT, [2, 5, 33])],
         [vi("p1", TensorProto.INT32, [2, 5, 13]), vi("p2", TensorProto.INT32, [2, 5, 13]),
          vi("xs", TensorProto.FLOAT, []), vi("y", TensorProto.FLOAT, [2, 5, 13])], inits)


def dq_matmul_rows(out):
    zb2 = rng.integers(0, 256, 330).astype(np.uint8)
    zb2[:2] = [0, 255]
    inits = [numpy_helper.from_array(rng.integers(-128, 128, (201, 330)).astype(np.int8), "b1"),
             numpy_helper.from_array(np.int8(-100), "zb1"),
             numpy_helper.from_array(rng.integers(0, 256, (201, 330)).astype(np.uint8), "b2"),
             numpy_helper.from_array(zb2, "zb2")]
    nodes = [helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
             helper.make_node("MatMulInteger", ["xq", "b1", "xz", "zb1"], ["p1"]),
             helper.make_node("MatMulInteger", ["xq", "b2", "xz", "zb2"], ["p2"])]
    save(out, "dq_matmul_rows", nodes, [vi("x", TensorProto.FLOAT, [1, 3, 201])],
         [vi("p1", TensorProto.INT32, [1, 3, 330]), vi("p2", TensorProto.INT32, [1, 3, 330])], inits)


def dq_matmul_size(out):
    inits = [numpy_helper.from_array(rng.integers(-128, 128, (1024, 1024)).astype(np.int8), "b")]
    nodes = [helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
             helper.make_node("MatMulInteger", ["xq", "b", "xz"], ["p"])]
    save(out, "dq_matmul_size", nodes, [vi("x", TensorProto.FLOAT, [1, 1024])],
         [vi("p", TensorProto.INT32, [1, 1024])], inits)


def lm_head_q8(out):
    zc = rng.integers(-128, 128, 500).astype(np.int8)
    zc[:2] = [-128, 127]
    inits = [numpy_helper.from_array(rng.integers(0, 256, (4000, 64)).astype(np.uint8), "table"),
             numpy_helper.from_array(np.float32(0.0123), "s1"), numpy_helper.from_array(np.uint8(131), "z1"),
             numpy_helper.from_array(rng.integers(-128, 128, (64, 500)).astype(np.int8), "b2"),
             numpy_helper.from_array((rng.random(500) * 0.02 + 0.001).astype(np.float32), "s2"),
             numpy_helper.from_array(zc, "z2")]
    nodes = [helper.make_node("Transpose", ["table"], ["tt"], perm=[1, 0]),
             helper.make_node("DequantizeLinear", ["tt", "s1", "z1"], ["w1"]),
             helper.make_node("MatMul", ["x", "w1"], ["y1"]),
             helper.make_node("DequantizeLinear", ["b2", "s2", "z2"], ["w2"], axis=1),
             helper.make_node("MatMul", ["x", "w2"], ["y2"]),
             helper.make_node("Gather", ["table", "ids"], ["rows"]),
             helper.make_node("DequantizeLinear", ["rows", "s1", "z1"], ["emb"])]
    save(out, "lm_head_q8", nodes, [vi("x", TensorProto.FLOAT, [1, 3, 64]), vi("ids", TensorProto.INT64, [1, 5])],
         [vi("y1", TensorProto.FLOAT, [1, 3, 4000]), vi("y2", TensorProto.FLOAT, [1, 3, 500]),
          vi("rows", TensorProto.UINT8, [1, 5, 64]), vi("emb", TensorProto.FLOAT, [1, 5, 64])], inits)


def dq_conv(out):
    inits = [numpy_helper.from_array(rng.integers(-128, 128, (6, 3, 3, 3)).astype(np.int8), "w1"),
             numpy_helper.from_array(np.int8(-7), "zw1"),
             numpy_helper.from_array(rng.integers(0, 256, (4, 3, 5, 5)).astype(np.uint8), "w2"),
             numpy_helper.from_array(np.uint8(131), "zw2")]
    nodes = [helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
             helper.make_node("ConvInteger", ["xq", "w1", "xz", "zw1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("ConvInteger", ["xq", "w2", "xz", "zw2"], ["c2"], strides=[2, 2],
                              pads=[2, 1, 2, 1])]
    save(out, "dq_conv", nodes, [vi("x", TensorProto.FLOAT, [1, 3, 17, 15])],
         [vi("c1", TensorProto.INT32, [1, 6, 17, 15]), vi("c2", TensorProto.INT32, [1, 4, 9, 7])],
         inits)


def qdq_bias(out):
    inits = [numpy_helper.from_array(rng.integers(-5000, 5000, 8).astype(np.int32), "bq"),
             numpy_helper.from_array(np.array([0.001], np.float32), "bs"),
             numpy_helper.from_array(np.array(0, np.int32), "bz")]
    nodes = [helper.make_node("DequantizeLinear", ["bq", "bs", "bz"], ["b"]),
             helper.make_node("Add", ["x", "b"], ["y"])]
    save(out, "qdq_bias", nodes, [vi("x", TensorProto.FLOAT, [3, 8])],
         [vi("y", TensorProto.FLOAT, [3, 8])], inits, opset=13)


def layernorm(out):
    inits = [numpy_helper.from_array(rng.normal(1, 0.3, 37).astype(np.float32), "g"),
             numpy_helper.from_array(rng.normal(0, 0.3, 37).astype(np.float32), "b"),
             numpy_helper.from_array(rng.normal(1, 0.3, (7, 37)).astype(np.float32), "g2")]
    nodes = [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y", "mean", "inv"], axis=-1,
                              epsilon=1e-5),
             helper.make_node("LayerNormalization", ["x", "g2"], ["y2"], axis=1, epsilon=1e-3)]
    save(out, "layernorm", nodes, [vi("x", TensorProto.FLOAT, [3, 7, 37])],
         [vi("y", TensorProto.FLOAT, [3, 7, 37]), vi("mean", TensorProto.FLOAT, [3, 7, 1]),
          vi("inv", TensorProto.FLOAT, [3, 7, 1]), vi("y2", TensorProto.FLOAT, [3, 7, 37])], inits)


def dq_conv1x1(out):
    inits = [numpy_helper.from_array(rng.integers(-128, 128, (10, 5, 1, 1)).astype(np.int8), "w"),
             numpy_helper.from_array(np.int8(3), "zw")]
    nodes = [helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
             helper.make_node("ConvInteger", ["xq", "w", "xz", "zw"], ["c"])]
    save(out, "dq_conv1x1", nodes, [vi("x", TensorProto.FLOAT, [1, 5, 9, 13])],
         [vi("c", TensorProto.INT32, [1, 10, 9, 13])], inits)


def qdq_conv(out):
    f = np.float32
    xs, ys1, ys2 = f(0.02), f(0.03), f(0.04)
    ws1 = rng.uniform(0.005, 0.012, 10).astype(np.float32)
    inits = [numpy_helper.from_array(xs, "xs"), numpy_helper.from_array(np.uint8(128), "xz"),
             numpy_helper.from_array(rng.integers(-127, 128, (10, 6, 1, 1)).astype(np.int8), "w1q"),
             numpy_helper.from_array(ws1, "ws1"), numpy_helper.from_array(np.zeros(10, np.int8), "wz1"),
             numpy_helper.from_array(rng.integers(-3000, 3000, 10).astype(np.int32), "b1q"),
             numpy_helper.from_array((xs * ws1).astype(np.float32), "bs1"),
             numpy_helper.from_array(np.zeros(10, np.int32), "bz1"),
             numpy_helper.from_array(ys1, "ys1"), numpy_helper.from_array(np.uint8(120), "yz1"),
             numpy_helper.from_array(rng.integers(-127, 128, (5, 10, 3, 3)).astype(np.int8), "w2q"),
             numpy_helper.from_array(f(0.004), "ws2"), numpy_helper.from_array(np.int8(0), "wz2"),
             numpy_helper.from_array(ys2, "ys2"), numpy_helper.from_array(np.uint8(131), "yz2")]
    dq, q = "DequantizeLinear", "QuantizeLinear"
    nodes = [helper.make_node(q, ["x", "xs", "xz"], ["xq"]),
             helper.make_node(dq, ["xq", "xs", "xz"], ["xf"]),
             helper.make_node(dq, ["w1q", "ws1", "wz1"], ["w1"], axis=0),
             helper.make_node(dq, ["b1q", "bs1", "bz1"], ["b1"], axis=0),
             helper.make_node("Conv", ["xf", "w1", "b1"], ["c1"]),
             helper.make_node(q, ["c1", "ys1", "yz1"], ["c1q"]),
             helper.make_node(dq, ["c1q", "ys1", "yz1"], ["c1f"]),
             helper.make_node(dq, ["w2q", "ws2", "wz2"], ["w2"]),
             helper.make_node("Conv", ["c1f", "w2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node(q, ["c2", "ys2", "yz2"], ["c2q"]),
             helper.make_node(dq, ["c2q", "ys2", "yz2"], ["y"])]
    save(out, "qdq_conv", nodes, [vi("x", TensorProto.FLOAT, [2, 6, 9, 13])],
         [vi("y", TensorProto.FLOAT, [2, 5, 9, 13])], inits, opset=13)


def dq_chain(out):
    inits, nodes = [], []
    f = np.float32

    def layer(i, x, w, zw, ws, b, act=None, res=None, **attrs):
        """DynamicQuantizeLinear of x, then ConvInteger and its float tail; returns y's name."""
        inits.extend([numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(zw, f"zw{i}"),
                      numpy_helper.from_array(ws, f"ws{i}")])
        nodes.extend([helper.make_node("DynamicQuantizeLinear", [x], [f"q{i}", f"s{i}", f"z{i}"]),
                      helper.make_node("Mul", [f"s{i}", f"ws{i}"], [f"sc{i}"]),
                      helper.make_node("ConvInteger", [f"q{i}", f"w{i}", f"z{i}", f"zw{i}"], [f"c{i}"], **attrs),
                      helper.make_node("Cast", [f"c{i}"], [f"cf{i}"], to=TensorProto.FLOAT),
                      helper.make_node("Mul", [f"cf{i}", f"sc{i}"], [f"m{i}"])])
        y = f"m{i}"
        if b is not None:
            inits.append(numpy_helper.from_array(b, f"b{i}"))
            nodes.append(helper.make_node("Add", [y, f"b{i}"], [f"a{i}"]))
            y = f"a{i}"
        if act == "relu":
            nodes.append(helper.make_node("Relu", [y], [f"r{i}"]))
            y = f"r{i}"
        elif act == "clip":
            inits.extend([numpy_helper.from_array(f(0), f"lo{i}"), numpy_helper.from_array(f(6), f"hi{i}")])
            nodes.append(helper.make_node("Clip", [y, f"lo{i}", f"hi{i}"], [f"r{i}"]))
            y = f"r{i}"
        if res is not None:
            nodes.append(helper.make_node("Add", [res, y], [f"p{i}"]))
            y = f"p{i}"
        return y

    def w8(*shape):
        return rng.integers(-128, 128, shape).astype(np.int8)

    def bias(m):
        return rng.normal(0, 0.5, (1, m, 1, 1)).astype(f)

    y1 = layer(1, "x", w8(16, 8, 3, 3), np.int8(0), f(0.02), bias(16), "relu", pads=[1, 1, 1, 1])
    y2 = layer(2, y1, w8(16, 1, 3, 3), np.int8(0), f(0.03), bias(16), "clip", pads=[1, 1, 1, 1], group=16)
    y3 = layer(3, y2, w8(8, 16, 1, 1), np.int8(0), rng.uniform(0.01, 0.05, (8, 1, 1)).astype(f), bias(8),
               res="x")
    y4 = layer(4, y3, w8(16, 8, 3, 3), np.int8(0), f(0.02), bias(16), "relu", strides=[2, 2], pads=[1, 1, 1, 1])
    y5 = layer(5, y4, w8(16, 8, 3, 3), np.int8(0), f(0.01), bias(16), pads=[1, 1, 1, 1], group=2)
    y6 = layer(6, y5, w8(8, 16, 3, 3), np.int8(0), f(0.04), None, strides=[2, 2], pads=[1, 1, 1, 1])
    outs = [vi(y6, TensorProto.FLOAT, [1, 8, 4, 3])]
    for i, shape in ((2, [1, 16, 13, 11]), (4, [1, 8, 13, 11]), (6, [1, 16, 7, 6])):
        outs += [vi(f"q{i}", TensorProto.UINT8, shape), vi(f"s{i}", TensorProto.FLOAT, []),
                 vi(f"z{i}", TensorProto.UINT8, [])]
    save(out, "dq_chain", nodes, [vi("x", TensorProto.FLOAT, [1, 8, 13, 11])], outs, inits)


def merged_tied(out):
    """Both branches of an If (as a merged decoder's on use_cache_branch) read the same
    initializers: a float32 weight, an int8 MatMulInteger B, a tied uint8 table (Gather +
    DequantizeLinear, and a q8 lm_head: Transpose -> DequantizeLinear -> MatMul in the then
    branch, DequantizeLinear -> Transpose -> MatMul in the else branch) and a tied float32
    table (Gather, and Transpose -> MatMul); the else branch negates its outputs."""
    inits = [numpy_helper.from_array(rng.integers(0, 256, (2000, 64)).astype(np.uint8), "table"),
             numpy_helper.from_array(np.float32(0.0117), "s1"), numpy_helper.from_array(np.uint8(125), "z1"),
             numpy_helper.from_array((rng.random((1000, 64)) - 0.5).astype(np.float32), "ftable"),
             numpy_helper.from_array((rng.random((64, 1024)) - 0.5).astype(np.float32), "w"),
             numpy_helper.from_array(rng.integers(-128, 128, (64, 2048)).astype(np.int8), "b8"),
             numpy_helper.from_array(np.int8(3), "zb8")]
    outs = [("emb", [1, 5, 64]), ("logits", [1, 3, 2000]), ("femb", [1, 5, 64]), ("flogits", [1, 3, 1000]),
            ("y", [1, 3, 1024]), ("yi", [1, 3, 2048])]

    def branch(tag, sign):
        p = tag + "_"
        nodes = [helper.make_node("Gather", ["table", "ids"], [p + "rows"]),
                 helper.make_node("DequantizeLinear", [p + "rows", "s1", "z1"], [p + "emb"]),
                 *([helper.make_node("Transpose", ["table"], [p + "tt"], perm=[1, 0]),
                    helper.make_node("DequantizeLinear", [p + "tt", "s1", "z1"], [p + "w1"])] if sign > 0 else
                   [helper.make_node("DequantizeLinear", ["table", "s1", "z1"], [p + "dq"]),
                    helper.make_node("Transpose", [p + "dq"], [p + "w1"], perm=[1, 0])]),
                 helper.make_node("MatMul", ["x", p + "w1"], [p + "logits"]),
                 helper.make_node("Gather", ["ftable", "ids"], [p + "femb"]),
                 helper.make_node("Transpose", ["ftable"], [p + "ft"], perm=[1, 0]),
                 helper.make_node("MatMul", ["x", p + "ft"], [p + "flogits"]),
                 helper.make_node("MatMul", ["x", "w"], [p + "y"]),
                 helper.make_node("DynamicQuantizeLinear", ["x"], [p + "xq", p + "xs", p + "xz"]),
                 helper.make_node("MatMulInteger", [p + "xq", "b8", p + "xz", "zb8"], [p + "yi"])]
        names = [p + "emb", p + "logits", p + "femb", p + "flogits", p + "y", p + "yi"]
        if sign < 0:
            nodes += [helper.make_node("Neg", [n], [n + "_neg"]) for n in names]
            names = [n + "_neg" for n in names]
        return helper.make_graph(nodes, tag, [], [vi(n, TensorProto.INT32 if o == "yi" else TensorProto.FLOAT, s)
                                                   for n, (o, s) in zip(names, outs)])

    nodes = [helper.make_node("If", ["cond"], [o for o, _ in outs], then_branch=branch("then", 1),
                              else_branch=branch("else", -1))]
    save(out, "merged_tied", nodes, [vi("cond", TensorProto.BOOL, [1]), vi("x", TensorProto.FLOAT, [1, 3, 64]),
                                     vi("ids", TensorProto.INT64, [1, 5])],
         [vi(o, TensorProto.INT32 if o == "yi" else TensorProto.FLOAT, s) for o, s in outs], inits,
         opset=19)  # the reference evaluator raises no opset inside branches (DequantizeLinear: 19)


def tied_f16(out):
    """A float16 file's tied embedding: one table read by a Gather and, transposed, by the
    lm_head's MatMul (the module keeps it once, as the lm_head's float16 panels)."""
    table = ((rng.random((3000, 64)) - 0.5) * 0.5).astype(np.float16)
    nodes = [helper.make_node("Gather", ["htable", "ids"], ["rows"]),
             helper.make_node("Cast", ["rows"], ["emb"], to=TensorProto.FLOAT),
             helper.make_node("Cast", ["x"], ["xh"], to=TensorProto.FLOAT16),
             helper.make_node("Transpose", ["htable"], ["ht"], perm=[1, 0]),
             helper.make_node("MatMul", ["xh", "ht"], ["hl"]),
             helper.make_node("Cast", ["hl"], ["logits"], to=TensorProto.FLOAT)]
    save(out, "tied_f16", nodes, [vi("x", TensorProto.FLOAT, [1, 3, 64]), vi("ids", TensorProto.INT64, [1, 5])],
         [vi("emb", TensorProto.FLOAT, [1, 5, 64]), vi("logits", TensorProto.FLOAT, [1, 3, 3000])],
         [numpy_helper.from_array(table, "htable")])


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    dq_matmul(out)
    dq_matmul_rows(out)
    dq_matmul_size(out)
    lm_head_q8(out)
    dq_conv(out)
    qdq_bias(out)
    layernorm(out)
    dq_conv1x1(out)
    qdq_conv(out)
    dq_chain(out)
    merged_tied(out)
    tied_f16(out)
