"""Builds small CNN graphs whose input has a symbolic batch (dim_param `batch`, compiled
with --dim batch=1..4; `spatial` also a symbolic height and width, sym_window.c) and
exercises every op sym_batch.c runs per sample: Conv on each
kernel family (Winograd 3x3, 1x1, depthwise, strided, grouped, with a folded
BatchNormalization, a fused Relu and a residual Add), ConvTranspose, MaxPool,
AveragePool, LpPool, GlobalAveragePool, GlobalMaxPool, BatchNormalization,
InstanceNormalization, GroupNormalization, LRN, LpNormalization, DepthToSpace,
SpaceToDepth, ConvInteger and QLinearConv, the reductions, ArgMax, LogSoftmax and
Hardmax along axes other than the batch; an older exporter's Upsample whose scales are a
ratio of Cast shapes (constant for even sizes, --dim h=2..64:2), and a mean over a
symbolic length divided by its Cast; followed by the batch-symbolic ops that end a
classifier (Flatten, Gemm, Softmax). Each is run at batch 1, 2, 3 and 4 (spatial: at
five batch x height x width sizes) through
`wasmgraph run` and compared with onnxruntime (rtol 1e-4, atol 1e-5), and a --threads
build of each with the single-threaded one, bit for bit on 1, 2 and 3 threads.

    python batched_cnn.py WASMGRAPH WORKDIR [GRAPH_NAME...]
Prints one line per graph and batch; exit status 1 on any mismatch or failure.
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from wg_run import check_graphs

BATCHES = [1, 2, 3, 4]


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def weights(rng, *shape, scale=0.2):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def graph_resnet_block():
    """x [batch, 16, 20, 20]: a stem conv with BatchNormalization and Relu (folded and
    fused), a residual block of 3x3 convs (Winograd at this size), a 1x1 projection, a
    strided 3x3, a depthwise 3x3, a grouped conv, MaxPool, GlobalAveragePool, Flatten,
    Gemm and Softmax."""
    rng = np.random.default_rng(1)
    c = 16
    nodes = [
        helper.make_node("Conv", ["x", "w0"], ["c0"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c0", "bs", "bb", "bm", "bv"], ["b0"]),
        helper.make_node("Relu", ["b0"], ["r0"]),
        helper.make_node("Conv", ["r0", "w1", "k1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2", "k2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c2", "r0"], ["a2"]),
        helper.make_node("Relu", ["a2"], ["r2"]),
        helper.make_node("Conv", ["r2", "w3"], ["c3"]),                             # 1x1, 32
        helper.make_node("Conv", ["c3", "w4"], ["c4"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Conv", ["c4", "w5"], ["c5"], pads=[1, 1, 1, 1], group=32),  # depthwise
        helper.make_node("Conv", ["c5", "w6"], ["c6"], pads=[1, 1, 1, 1], group=4),
        helper.make_node("MaxPool", ["c6"], ["p6"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["p6"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "fw", "fb"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["y"], axis=1),
    ]
    inits = [const("w0", weights(rng, c, 16, 3, 3, scale=0.1)), const("bs", 1 + weights(rng, c)),
             const("bb", weights(rng, c)), const("bm", weights(rng, c)),
             const("bv", (1 + np.abs(weights(rng, c))).astype(np.float32)),
             const("w1", weights(rng, c, c, 3, 3, scale=0.1)), const("k1", weights(rng, c)),
             const("w2", weights(rng, c, c, 3, 3, scale=0.1)), const("k2", weights(rng, c)),
             const("w3", weights(rng, 32, c, 1, 1)), const("w4", weights(rng, 32, 32, 3, 3, scale=0.1)),
             const("w5", weights(rng, 32, 1, 3, 3)), const("w6", weights(rng, 32, 8, 3, 3)),
             const("fw", weights(rng, 10, 32)), const("fb", weights(rng, 10))]
    return helper.make_graph(nodes, "resnet_block", [vi("x", TensorProto.FLOAT, ["batch", 16, 20, 20])],
                             [vi("y", TensorProto.FLOAT, ["batch", 10]), vi("r2", TensorProto.FLOAT, None)],
                             inits), 13


def graph_pools_norms():
    """x [batch, 8, 12, 12]: BatchNormalization of the input itself (nothing to fold it
    into), AveragePool (padded, count_include_pad 0), LpPool, LRN, InstanceNormalization,
    LpNormalization over the channels, GlobalMaxPool, and a ConvTranspose back up."""
    rng = np.random.default_rng(2)
    nodes = [
        helper.make_node("BatchNormalization", ["x", "bs", "bb", "bm", "bv"], ["b"]),
        helper.make_node("AveragePool", ["b"], ["ap"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("LpPool", ["ap"], ["lp"], kernel_shape=[2, 2], strides=[2, 2], p=2),
        helper.make_node("LRN", ["lp"], ["lrn"], size=3, alpha=1e-2, beta=0.75, bias=1.0),
        helper.make_node("InstanceNormalization", ["lrn", "is", "ib"], ["inorm"], epsilon=1e-5),
        helper.make_node("LpNormalization", ["inorm"], ["ln"], axis=1, p=2),
        helper.make_node("ConvTranspose", ["ln", "wt", "bt"], ["ct"], strides=[2, 2]),
        helper.make_node("GlobalMaxPool", ["ct"], ["y"]),
    ]
    inits = [const("bs", 1 + weights(rng, 8)), const("bb", weights(rng, 8)), const("bm", weights(rng, 8)),
             const("bv", (1 + np.abs(weights(rng, 8))).astype(np.float32)),
             const("is", 1 + weights(rng, 8)), const("ib", weights(rng, 8)),
             const("wt", weights(rng, 8, 4, 2, 2)), const("bt", weights(rng, 4))]
    return helper.make_graph(nodes, "pools_norms", [vi("x", TensorProto.FLOAT, ["batch", 8, 12, 12])],
                             [vi("y", TensorProto.FLOAT, None), vi("ct", TensorProto.FLOAT, None)], inits), 13


def graph_space_group():
    """x [batch, 8, 6, 6]: SpaceToDepth, GroupNormalization (opset 21), DepthToSpace."""
    rng = np.random.default_rng(3)
    nodes = [
        helper.make_node("SpaceToDepth", ["x"], ["s"], blocksize=2),                  # 32 x 3 x 3
        helper.make_node("GroupNormalization", ["s", "gs", "gb"], ["gn"], num_groups=4, epsilon=1e-5),
        helper.make_node("DepthToSpace", ["gn"], ["y"], blocksize=2, mode="CRD"),
    ]
    inits = [const("gs", 1 + weights(rng, 32)), const("gb", weights(rng, 32))]
    return helper.make_graph(nodes, "space_group", [vi("x", TensorProto.FLOAT, ["batch", 8, 6, 6])],
                             [vi("y", TensorProto.FLOAT, None)], inits), 21


def graph_int8_convs():
    """x [batch, 4, 10, 10] uint8: ConvInteger and QLinearConv with zero points, the
    int32 result cast to float."""
    rng = np.random.default_rng(4)
    nodes = [
        helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["ci"], pads=[1, 1, 1, 1]),
        helper.make_node("Cast", ["ci"], ["y"], to=TensorProto.FLOAT),
        helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "qb"], ["q"],
                         pads=[0, 0, 0, 0], strides=[2, 2]),
    ]
    inits = [const("w", rng.integers(0, 255, (6, 4, 3, 3)).astype(np.uint8)), const("xz", np.uint8(128)),
             const("wz", np.uint8(120)), const("xs", np.float32(0.02)), const("ws", np.float32(0.01)),
             const("ys", np.float32(0.5)), const("yz", np.uint8(100)),
             const("qb", rng.integers(-500, 500, 6).astype(np.int32))]
    return helper.make_graph(nodes, "int8_convs", [vi("x", TensorProto.UINT8, ["batch", 4, 10, 10])],
                             [vi("y", TensorProto.FLOAT, None), vi("q", TensorProto.UINT8, None)], inits), 13


def graph_reductions():
    """x [batch, 6, 5, 4]: ShuffleNet's mean over (2, 3), ReduceMax over the channels
    without keepdims, ReduceL2 and ReduceLogSumExp over (1, 3), ArgMax along axis 2,
    LogSoftmax along axis 1 and Hardmax along the last."""
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["mean"], axes=[2, 3], keepdims=0),
        helper.make_node("ReduceMax", ["x"], ["mx"], axes=[1], keepdims=0),
        helper.make_node("ReduceL2", ["x"], ["l2"], axes=[1, 3]),
        helper.make_node("ReduceLogSumExp", ["x"], ["lse"], axes=[-1, 1], keepdims=0),
        helper.make_node("ArgMax", ["x"], ["am"], axis=2),
        helper.make_node("LogSoftmax", ["x"], ["ls"], axis=1),
        helper.make_node("Hardmax", ["x"], ["hm"], axis=-1),
    ]
    outs = [vi(k, TensorProto.INT64 if k == "am" else TensorProto.FLOAT, None)
            for k in ("mean", "mx", "l2", "lse", "am", "ls", "hm")]
    return helper.make_graph(nodes, "reductions", [vi("x", TensorProto.FLOAT, ["batch", 6, 5, 4])], outs), 13


def graph_spatial():
    """x [batch, 3, h, w], h and w symbolic too (--dim h=20..40 --dim w=20..40): the
    residual block again, a strided 3x3 beside a strided 1x1 added together (their one
    derived size), a depthwise and a grouped conv, MaxPool 3x3 stride 2 padded, a
    ceil_mode AveragePool, an unpadded 3x3 (h - 2 of a derived size), BatchNormalization of
    its output, GlobalAveragePool and Flatten; run at even, odd and mixed sizes."""
    rng = np.random.default_rng(5)
    c = 16
    nodes = [
        helper.make_node("Conv", ["x", "w0"], ["c0"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c0"], ["r0"]),
        helper.make_node("Conv", ["r0", "w1", "k1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2", "k2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c2", "r0"], ["a2"]),
        helper.make_node("Relu", ["a2"], ["r2"]),
        helper.make_node("Conv", ["r2", "w3"], ["c3"]),
        helper.make_node("Conv", ["c3", "w4"], ["c4"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Conv", ["r2", "w4b"], ["c4b"], strides=[2, 2]),
        helper.make_node("Add", ["c4", "c4b"], ["a4"]),
        helper.make_node("Conv", ["a4", "w5"], ["c5"], pads=[1, 1, 1, 1], group=32),
        helper.make_node("Conv", ["c5", "w6"], ["c6"], pads=[1, 1, 1, 1], group=4),
        helper.make_node("MaxPool", ["c6"], ["p6"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("AveragePool", ["p6"], ["ap"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
        helper.make_node("Conv", ["ap", "w7"], ["c7"]),
        helper.make_node("BatchNormalization", ["c7", "bs", "bb", "bm", "bv"], ["b7"]),
        helper.make_node("GlobalAveragePool", ["b7"], ["g"]),
        helper.make_node("Flatten", ["g"], ["y"]),
    ]
    inits = [const("w0", weights(rng, c, 3, 3, 3, scale=0.1)), const("w1", weights(rng, c, c, 3, 3, scale=0.1)),
             const("k1", weights(rng, c)), const("w2", weights(rng, c, c, 3, 3, scale=0.1)),
             const("k2", weights(rng, c)), const("w3", weights(rng, 32, c, 1, 1)),
             const("w4", weights(rng, 32, 32, 3, 3, scale=0.1)), const("w4b", weights(rng, 32, c, 1, 1)),
             const("w5", weights(rng, 32, 1, 3, 3)), const("w6", weights(rng, 32, 8, 3, 3, scale=0.1)),
             const("w7", weights(rng, 8, 32, 3, 3, scale=0.1)), const("bs", 1 + weights(rng, 8)),
             const("bb", weights(rng, 8)), const("bm", weights(rng, 8)),
             const("bv", (1 + np.abs(weights(rng, 8))).astype(np.float32))]
    return helper.make_graph(nodes, "spatial", [vi("x", TensorProto.FLOAT, ["batch", 3, "h", "w"])],
                             [vi("y", TensorProto.FLOAT, None), vi("r2", TensorProto.FLOAT, None),
                              vi("p6", TensorProto.FLOAT, None)], inits), 13


def graph_spatial_norms():
    """x [batch, 4, h, w], h and w symbolic: InstanceNormalization, LRN and a padded 3x3
    conv after them (a style-transfer block's ops), over the actual planes."""
    rng = np.random.default_rng(6)
    nodes = [helper.make_node("InstanceNormalization", ["x", "is", "ib"], ["i"], epsilon=1e-5),
             helper.make_node("LRN", ["i"], ["l"], size=3, alpha=1e-2, beta=0.75, bias=1.0),
             helper.make_node("Conv", ["l", "w"], ["y"], pads=[1, 1, 1, 1])]
    inits = [const("is", 1 + weights(rng, 4)), const("ib", weights(rng, 4)), const("w", weights(rng, 3, 4, 3, 3))]
    return helper.make_graph(nodes, "spatial_norms", [vi("x", TensorProto.FLOAT, ["batch", 4, "h", "w"])],
                             [vi("y", TensorProto.FLOAT, None), vi("i", TensorProto.FLOAT, None)], inits), 13


def graph_style_block():
    """x [batch, 4, h, w], h and w symbolic: a style-transfer net's residual block
    (reflection Pad, 3x3 conv, InstanceNormalization, Relu, twice, added to x: the padded
    conv of a padded map is x's size again, one symbol) and its upsampling (nearest x2,
    reflection Pad, 3x3 conv)."""
    rng = np.random.default_rng(7)
    pads = const("p1", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64))
    nodes = [helper.make_node("Pad", ["x", "p1"], ["xp"], mode="reflect"),
             helper.make_node("Conv", ["xp", "w1"], ["c1"]),
             helper.make_node("InstanceNormalization", ["c1", "s1", "b1"], ["n1"]),
             helper.make_node("Relu", ["n1"], ["r1"]),
             helper.make_node("Pad", ["r1", "p1"], ["rp"], mode="reflect"),
             helper.make_node("Conv", ["rp", "w2"], ["c2"]),
             helper.make_node("InstanceNormalization", ["c2", "s2", "b2"], ["n2"]),
             helper.make_node("Add", ["x", "n2"], ["res"]),
             helper.make_node("Resize", ["res", "", "sc"], ["up"], mode="nearest"),
             helper.make_node("Pad", ["up", "p1"], ["upp"], mode="reflect"),
             helper.make_node("Conv", ["upp", "w3"], ["y"])]
    inits = [pads, const("w1", weights(rng, 4, 4, 3, 3)), const("w2", weights(rng, 4, 4, 3, 3)),
             const("w3", weights(rng, 3, 4, 3, 3)), const("s1", 1 + weights(rng, 4)), const("b1", weights(rng, 4)),
             const("s2", 1 + weights(rng, 4)), const("b2", weights(rng, 4)),
             const("sc", np.array([1, 1, 2, 2], np.float32))]
    return helper.make_graph(nodes, "style_block", [vi("x", TensorProto.FLOAT, ["batch", 4, "h", "w"])],
                             [vi("y", TensorProto.FLOAT, None), vi("res", TensorProto.FLOAT, None)], inits), 13


def upsample_ratio(opset):
    """skip [batch, 2, h, w], h and w even (--dim h=2..64:2): an older exporter's FPN
    upsampling of x = MaxPool(skip) back to skip's size, its scales computed in the graph
    as Cast(Shape(skip)[2:]) / Cast(Shape(x)[2:]) (Slice with attributes at opset 9), a
    ratio constant at every size; the upsampled map added to skip."""
    if opset < 10:
        sl = [helper.make_node("Slice", ["ss"], ["ss2"], starts=[2], ends=[4]),
              helper.make_node("Slice", ["xs"], ["xs2"], starts=[2], ends=[4])]
    else:
        sl = [helper.make_node("Slice", ["ss", "s2", "s4"], ["ss2"]), helper.make_node("Slice", ["xs", "s2", "s4"], ["xs2"])]
    resize = (helper.make_node("Upsample", ["x", "scales"], ["u"], mode="nearest") if opset < 10 else
              helper.make_node("Resize", ["x", "", "scales"], ["u"], mode="nearest"))
    nodes = [helper.make_node("MaxPool", ["skip"], ["x"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Shape", ["skip"], ["ss"]), helper.make_node("Shape", ["x"], ["xs"]), *sl,
             helper.make_node("Cast", ["ss2"], ["ssf"], to=TensorProto.FLOAT),
             helper.make_node("Cast", ["xs2"], ["xsf"], to=TensorProto.FLOAT),
             helper.make_node("Div", ["ssf", "xsf"], ["r"]),
             helper.make_node("Concat", ["ones", "r"], ["scales"], axis=0), resize,
             helper.make_node("Add", ["u", "skip"], ["y"])]
    inits = [const("ones", np.array([1, 1], np.float32))]
    if opset >= 10:
        inits += [const("s2", np.array([2], np.int64)), const("s4", np.array([4], np.int64))]
    return helper.make_graph(nodes, f"upsample_ratio_{opset}", [vi("skip", TensorProto.FLOAT, ["batch", 2, "h", "w"])],
                             [vi("y", TensorProto.FLOAT, None)], inits), opset


def graph_mean_pool():
    """x [batch, 6, 4, w]: the sum over w divided by Cast(Shape(x)[3]) and a half of that
    length added: float values of shape arithmetic computed where they run."""
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "three"], ["len"], axis=0),
             helper.make_node("Cast", ["len"], ["lenf"], to=TensorProto.FLOAT),
             helper.make_node("ReduceSum", ["x", "ax"], ["sum"], keepdims=0),
             helper.make_node("Div", ["sum", "lenf"], ["mean"]),
             helper.make_node("Mul", ["lenf", "half"], ["hl"]),
             helper.make_node("Add", ["mean", "hl"], ["y"])]
    inits = [const("three", np.array(3, np.int64)), const("ax", np.array([3], np.int64)),
             const("half", np.array(0.5, np.float32))]
    return helper.make_graph(nodes, "mean_pool", [vi("x", TensorProto.FLOAT, ["batch", 6, 4, "w"])],
                             [vi("y", TensorProto.FLOAT, None)], inits), 13


# outputs straight from a Winograd conv (the residual block's 3x3 convs at 20x20)
WINOGRAD_OUTPUTS = {"r2"}
GRAPHS = [graph_resnet_block, graph_pools_norms, graph_space_group, graph_int8_convs, graph_reductions,
          graph_spatial, graph_spatial_norms, graph_style_block, lambda: upsample_ratio(9), lambda: upsample_ratio(13), graph_mean_pool]
# the graphs with symbolic dims past the batch: their --dim flags and (batch, h, w) sizes
EVEN = (["--dim", "h=2..64:2", "--dim", "w=2..64:2"], [(1, 8, 6), (3, 64, 2), (2, 10, 30)])
SPATIAL = {"spatial": (["--dim", "h=20..40", "--dim", "w=20..40"],
                       [(1, 20, 20), (1, 21, 23), (2, 40, 40), (1, 33, 27), (2, 25, 38)]),
           "spatial_norms": (["--dim", "h=3..20", "--dim", "w=3..20"], [(1, 3, 3), (2, 20, 7), (3, 11, 20)]),
           "style_block": (["--dim", "h=2..20", "--dim", "w=2..20"], [(1, 2, 2), (2, 20, 7), (1, 13, 20)]),
           "upsample_ratio_9": EVEN, "upsample_ratio_13": EVEN,
           "mean_pool": (["--dim", "w=1..20"], [(1, 4, 1), (2, 4, 7), (3, 4, 20)])}


def inputs_for(graph, size, rng):
    x = graph.input[0]
    shape = [size[0]] + [d.dim_value for d in x.type.tensor_type.shape.dim[1:]]
    if len(size) == 3:
        shape[2:4] = size[1:]
    if x.type.tensor_type.elem_type == TensorProto.UINT8:
        return {x.name: rng.integers(0, 255, shape).astype(np.uint8)}
    return {x.name: rng.standard_normal(shape).astype(np.float32)}


def dims_of(graph):
    return ["--dim", "batch=1..4", *SPATIAL.get(graph.name, ([], None))[0]]


def cases_of(graph, rng):
    """(label, feeds) at each batch, or at each (batch, h, w) of a graph in SPATIAL."""
    for size in SPATIAL.get(graph.name, (None, [(b,) for b in BATCHES]))[1]:
        batch = f"batch {size[0]}" if len(size) == 1 else "size " + "x".join(str(v) for v in size)
        yield batch, inputs_for(graph, size, rng)


def compare(graph, want, gots):
    ok = True
    for out, w, got in zip(graph.output, want, gots):
        if w.dtype in (np.uint8, np.int64):  # QLinearConv rounds half to even; ArgMax: exact
            ok &= got.shape == w.shape and np.array_equal(got, w)
            continue
        # Winograd F(4x4,3x3)'s transforms round at the scale of a tile's largest
        # value, not of each output: its outputs take atol 1e-5 of their largest
        atol = 1e-5 * max(1.0, float(np.abs(w).max())) if out.name in WINOGRAD_OUTPUTS else 1e-5
        close = got.shape == w.shape and np.allclose(got, w, rtol=1e-4, atol=atol)
        if not close and got.shape == w.shape:
            print(f"  {out.name}: largest difference {np.abs(got - w).max():.3g}")
        ok &= close
    return ok, ""


if __name__ == "__main__":
    sys.exit(check_graphs(GRAPHS, dims_of, cases_of, compare))
