"""Builds small ONNX graphs in which NonZero, Compress, TopK, Unique, NonMaxSuppression,
Slice (starts, ends, steps), Pad (pads), Expand (shape), Tile (repeats), Range and
ConstantOfShape, Resize (sizes, roi) take run-time inputs (so their output sizes are decided by the run: module
ABI 2 "Run-time output dims"; the last five bounded through --dim on the inputs, or
through shape arithmetic that is not a product of symbols) and feed further ops
(Transpose, Cast, Gather, GatherND, elementwise, ReduceSum, Reshape; NonZero also of
inputs whose own sizes are data-dependent or symbolic),
compiles each, runs it on several inputs (empty results among them)
through `wasmgraph run` and compares shapes and values with onnxruntime (rtol 1e-4,
atol 1e-5), and a --threads build of each with the single-threaded one, bit for bit on
1, 2 and 3 threads.

    python data_dependent_ops.py WASMGRAPH WORKDIR [GRAPH_NAME...]
(graph names given: only those graphs)
Prints one line per graph and input; exit status 1 on any mismatch or failure.
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from wg_run import check_graphs, run_module


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def graph_nonzero():
    """NonZero of a mask computed from x, its rows gathered from a table, its indices
    transposed and cast: [nnz, 3] and [nnz, 2] outputs."""
    nodes = [
        helper.make_node("Greater", ["x", "zero"], ["m"]),
        helper.make_node("NonZero", ["m"], ["nz"]),                      # [2, nnz]
        helper.make_node("Transpose", ["nz"], ["nzt"], perm=[1, 0]),     # [nnz, 2]
        helper.make_node("Cast", ["nzt"], ["nzf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["nzf", "half"], ["pos"]),
        helper.make_node("Gather", ["nz", "i0"], ["rows"], axis=0),      # [nnz]
        helper.make_node("Gather", ["table", "rows"], ["g"], axis=0),    # [nnz, 3]
        helper.make_node("Relu", ["g"], ["y"]),
    ]
    rng = np.random.default_rng(3)
    inits = [const("zero", np.float32(0)), const("half", np.float32(0.5)), const("i0", np.int64(0)),
             const("table", rng.standard_normal((4, 3)).astype(np.float32))]
    return helper.make_graph(nodes, "nonzero_chain", [vi("x", TensorProto.FLOAT, [4, 5])],
                             [vi("pos", TensorProto.FLOAT, None), vi("y", TensorProto.FLOAT, None)], inits), 13


def graph_compress():
    """Compress of x's rows by a run-time condition, then a scale, Relu and a row sum."""
    nodes = [
        helper.make_node("Greater", ["s", "zero"], ["c"]),
        helper.make_node("Compress", ["x", "c"], ["k"], axis=0),         # [kept, 3]
        helper.make_node("Mul", ["k", "w"], ["kw"]),
        helper.make_node("Relu", ["kw"], ["r"]),
        helper.make_node("ReduceSum", ["r", "ax1"], ["y"], keepdims=0),  # [kept]
        helper.make_node("Compress", ["x", "c2"], ["flat"]),            # flattened, [kept2]
    ]
    inits = [const("zero", np.float32(0)), const("w", np.array([1.0, -2.0, 0.5], np.float32)),
             const("ax1", np.array([1], np.int64))]
    return helper.make_graph(nodes, "compress_chain",
                             [vi("x", TensorProto.FLOAT, [6, 3]), vi("s", TensorProto.FLOAT, [6]),
                              vi("c2", TensorProto.BOOL, [10])],
                             [vi("r", TensorProto.FLOAT, None), vi("y", TensorProto.FLOAT, None),
                              vi("flat", TensorProto.FLOAT, None)], inits), 13


def graph_topk():
    """TopK with k from the input, its values through Sigmoid, its indices cast and added."""
    nodes = [
        helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1, largest=1),
        helper.make_node("Sigmoid", ["v"], ["sv"]),
        helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["sv", "fi"], ["y"]),
        helper.make_node("TopK", ["x", "k"], ["v2", "i2"], axis=0, largest=0),
    ]
    return helper.make_graph(nodes, "topk_chain",
                             [vi("x", TensorProto.FLOAT, [3, 8]), vi("k", TensorProto.INT64, [1])],
                             [vi("y", TensorProto.FLOAT, None), vi("i", TensorProto.INT64, None),
                              vi("v2", TensorProto.FLOAT, None), vi("i2", TensorProto.INT64, None)], []), 11


def graph_unique():
    """Unique sorted (all four outputs, values cast and scaled) and unsorted along an axis."""
    nodes = [
        helper.make_node("Unique", ["x"], ["u", "idx", "inv", "cnt"], sorted=1),
        helper.make_node("Cast", ["u"], ["uf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["uf", "half"], ["y"]),
        helper.make_node("Unique", ["m"], ["mu", "midx", "minv", "mcnt"], sorted=0, axis=0),
        helper.make_node("Transpose", ["mu"], ["mut"], perm=[1, 0]),
    ]
    inits = [const("half", np.float32(0.5))]
    return helper.make_graph(nodes, "unique_chain",
                             [vi("x", TensorProto.INT64, [10]), vi("m", TensorProto.FLOAT, [5, 2])],
                             [vi("y", TensorProto.FLOAT, None), vi("idx", TensorProto.INT64, None),
                              vi("inv", TensorProto.INT64, None), vi("cnt", TensorProto.INT64, None),
                              vi("mut", TensorProto.FLOAT, None), vi("midx", TensorProto.INT64, None),
                              vi("minv", TensorProto.INT64, None), vi("mcnt", TensorProto.INT64, None)], inits), 11


def graph_nms():
    """NonMaxSuppression on run-time boxes and scores (max_output constant), the selected
    boxes gathered from the boxes by their index column."""
    nodes = [
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "maxo", "iou", "sthr"], ["sel"]),
        helper.make_node("Gather", ["sel", "i2"], ["bi"], axis=1),       # [n]
        helper.make_node("Reshape", ["boxes", "shp"], ["flat"]),          # [6, 4]
        helper.make_node("Gather", ["flat", "bi"], ["picked"], axis=0),  # [n, 4]
        helper.make_node("Mul", ["picked", "two"], ["y"]),
    ]
    inits = [const("maxo", np.array([2], np.int64)), const("iou", np.array([0.5], np.float32)),
             const("sthr", np.array([0.2], np.float32)), const("i2", np.int64(2)),
             const("shp", np.array([6, 4], np.int64)), const("two", np.float32(2))]
    return helper.make_graph(nodes, "nms_chain",
                             [vi("boxes", TensorProto.FLOAT, [1, 6, 4]), vi("scores", TensorProto.FLOAT, [1, 2, 6])],
                             [vi("sel", TensorProto.INT64, None), vi("y", TensorProto.FLOAT, None)], inits), 11


def graph_nonzero_of_sized():
    """NonZero of tensors whose sizes are decided at run time: of a Compress result (a
    data-dependent size) and of a [batch, seq] mask (symbolic dims, --dim)."""
    nodes = [
        helper.make_node("Greater", ["s", "zero"], ["c"]),
        helper.make_node("Compress", ["x", "c"], ["k"], axis=0),         # [kept, 3]
        helper.make_node("Greater", ["k", "zero"], ["km"]),
        helper.make_node("NonZero", ["km"], ["nz"]),                     # [2, nnz]
        helper.make_node("Transpose", ["nz"], ["y"], perm=[1, 0]),
        helper.make_node("Equal", ["mask", "one"], ["mb"]),
        helper.make_node("NonZero", ["mb"], ["mz"]),                     # [2, nnz2]
    ]
    inits = [const("zero", np.float32(0)), const("one", np.int64(1))]
    return helper.make_graph(nodes, "nonzero_of_sized",
                             [vi("x", TensorProto.FLOAT, [6, 3]), vi("s", TensorProto.FLOAT, [6]),
                              vi("mask", TensorProto.INT64, ["batch", "seq"])],
                             [vi("y", TensorProto.INT64, None), vi("mz", TensorProto.INT64, None)], inits), 13


def graph_topk_of_sized():
    """TopK over sizes decided at run time: a constant k along the fixed last axis of
    [batch, seq, 6] logits (--dim), only its indices read, and a run-time k over the kept rows of
    a Compress (a data-dependent axis)."""
    nodes = [
        helper.make_node("TopK", ["logits", "k3"], ["lv", "li"], axis=-1),
        helper.make_node("Greater", ["s", "zero"], ["c"]),
        helper.make_node("Compress", ["x", "c"], ["kept"], axis=0),      # [kept]
        helper.make_node("TopK", ["kept", "k"], ["v", "i"], axis=0, largest=0),
    ]
    inits = [const("k3", np.array([3], np.int64)), const("zero", np.float32(0))]
    return helper.make_graph(nodes, "topk_of_sized",
                             [vi("logits", TensorProto.FLOAT, ["batch", "seq", 6]), vi("x", TensorProto.FLOAT, [8]),
                              vi("s", TensorProto.FLOAT, [8]), vi("k", TensorProto.INT64, [1])],
                             [vi("li", TensorProto.INT64, None), vi("v", TensorProto.FLOAT, None),
                              vi("i", TensorProto.INT64, None)], inits), 11


def graph_compress_of_sized():
    """Compress over sizes decided at run time: the seq axis of [batch, seq, 4] (--dim) by a
    run-time [seq] condition, then the flattened result by a condition on its own values."""
    nodes = [
        helper.make_node("Greater", ["w", "zero"], ["c"]),
        helper.make_node("Compress", ["x", "c"], ["k"], axis=1),         # [batch, kept, 4]
        helper.make_node("Relu", ["k"], ["y"]),
        helper.make_node("Reshape", ["k", "flat"], ["kf"]),              # [batch * kept * 4]
        helper.make_node("Greater", ["kf", "zero"], ["c2"]),
        helper.make_node("Compress", ["kf", "c2"], ["pos"]),             # [positives]
    ]
    inits = [const("zero", np.float32(0)), const("flat", np.array([-1], np.int64))]
    return helper.make_graph(nodes, "compress_of_sized",
                             [vi("x", TensorProto.FLOAT, ["batch", "seq", 4]), vi("w", TensorProto.FLOAT, ["seq"])],
                             [vi("y", TensorProto.FLOAT, None), vi("pos", TensorProto.FLOAT, None)], inits), 13


def graph_unique_of_sized():
    """Unique over sizes decided at run time (--dim): the flattened [batch, seq] ids (all four
    outputs, the inverse indices reshaped to [batch, seq]) and the seq slices of [batch, seq, 2]
    (axis 1, unsorted)."""
    nodes = [
        helper.make_node("Unique", ["ids"], ["u", "idx", "inv", "cnt"], sorted=1),
        helper.make_node("Unique", ["p"], ["pu", "pidx", "pinv", "pcnt"], sorted=0, axis=1),
        helper.make_node("Relu", ["pu"], ["y"]),
        helper.make_node("Shape", ["ids"], ["ishape"]),
        helper.make_node("Reshape", ["inv", "ishape"], ["inv2"]),     # [batch * seq] -> [batch, seq]
    ]
    return helper.make_graph(nodes, "unique_of_sized",
                             [vi("ids", TensorProto.INT64, ["batch", "seq"]), vi("p", TensorProto.FLOAT, ["batch", "seq", 2])],
                             [vi("u", TensorProto.INT64, None), vi("idx", TensorProto.INT64, None),
                              vi("inv2", TensorProto.INT64, None), vi("cnt", TensorProto.INT64, None),
                              vi("y", TensorProto.FLOAT, None), vi("pinv", TensorProto.INT64, None),
                              vi("pcnt", TensorProto.INT64, None)], []), 11


def graph_nms_of_sized():
    """A detector's post-processing: the candidates above a score threshold (NonZero, a
    data-dependent count) gathered into boxes [1, k, 4] and scores [1, 1, k], then
    NonMaxSuppression over them and the kept boxes gathered back."""
    nodes = [
        helper.make_node("Greater", ["s", "thr"], ["m"]),
        helper.make_node("NonZero", ["m"], ["nz"]),                       # [1, k]
        helper.make_node("Squeeze", ["nz", "ax0"], ["idx"]),             # [k]
        helper.make_node("Gather", ["b", "idx"], ["cb"], axis=0),        # [k, 4]
        helper.make_node("Unsqueeze", ["cb", "ax0"], ["boxes"]),         # [1, k, 4]
        helper.make_node("Gather", ["s", "idx"], ["cs"], axis=0),        # [k]
        helper.make_node("Unsqueeze", ["cs", "ax01"], ["scores"]),       # [1, 1, k]
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "maxo", "iou"], ["sel"]),
        helper.make_node("Gather", ["sel", "i2"], ["bi"], axis=1),       # [n]
        helper.make_node("Gather", ["cb", "bi"], ["y"], axis=0),         # [n, 4]
    ]
    inits = [const("thr", np.float32(0.3)), const("ax0", np.array([0], np.int64)),
             const("ax01", np.array([0, 1], np.int64)), const("maxo", np.array([3], np.int64)),
             const("iou", np.array([0.4], np.float32)), const("i2", np.int64(2))]
    return helper.make_graph(nodes, "nms_of_sized", [vi("b", TensorProto.FLOAT, [8, 4]), vi("s", TensorProto.FLOAT, [8])],
                             [vi("sel", TensorProto.INT64, None), vi("y", TensorProto.FLOAT, None)], inits), 13


def graph_mask_index():
    """x[mask] as torch exports boolean indexing: NonZero of a mask, transposed to index
    tuples, GatherND, here of a [6, 3] by a [6] mask (rows) and of a [4, 5, 2] by a [4, 5]
    mask (pairs), then Relu and a scale."""
    nodes = [
        helper.make_node("Greater", ["s", "zero"], ["m1"]),
        helper.make_node("NonZero", ["m1"], ["nz1"]),                    # [1, k]
        helper.make_node("Transpose", ["nz1"], ["ix1"], perm=[1, 0]),    # [k, 1]
        helper.make_node("GatherND", ["x", "ix1"], ["rows"]),           # [k, 3]
        helper.make_node("Relu", ["rows"], ["y"]),
        helper.make_node("NonZero", ["m2"], ["nz2"]),                    # [2, k2]
        helper.make_node("Transpose", ["nz2"], ["ix2"], perm=[1, 0]),    # [k2, 2]
        helper.make_node("GatherND", ["p", "ix2"], ["pairs"]),          # [k2, 2]
        helper.make_node("Mul", ["pairs", "half"], ["z"]),
    ]
    inits = [const("zero", np.float32(0)), const("half", np.float32(0.5))]
    return helper.make_graph(nodes, "mask_index",
                             [vi("x", TensorProto.FLOAT, [6, 3]), vi("s", TensorProto.FLOAT, [6]),
                              vi("p", TensorProto.FLOAT, [4, 5, 2]), vi("m2", TensorProto.BOOL, [4, 5])],
                             [vi("y", TensorProto.FLOAT, None), vi("z", TensorProto.FLOAT, None)], inits), 13


def graph_mask_index_of_sized():
    """x[mask] over symbolic sizes (--dim): [batch, seq, 3] gathered at the true positions of
    a run-time [batch, seq] mask, then Sigmoid."""
    nodes = [
        helper.make_node("Greater", ["w", "zero"], ["m"]),
        helper.make_node("NonZero", ["m"], ["nz"]),                      # [2, k]
        helper.make_node("Transpose", ["nz"], ["ix"], perm=[1, 0]),      # [k, 2]
        helper.make_node("GatherND", ["x", "ix"], ["g"]),               # [k, 3]
        helper.make_node("Sigmoid", ["g"], ["y"]),
    ]
    return helper.make_graph(nodes, "mask_index_of_sized",
                             [vi("x", TensorProto.FLOAT, ["batch", "seq", 3]), vi("w", TensorProto.FLOAT, ["batch", "seq"])],
                             [vi("y", TensorProto.FLOAT, None)], [const("zero", np.float32(0))]), 13


def graph_if_sizes():
    """An If whose branches give different sizes, decided at run time, as torchvision's
    batched_nms is exported: x[x > t] (NonZero, GatherND), then If(numel == 0) with an
    empty [0] tensor in one branch and, in the other, a size its own NonZero decides
    (Relu, a second mask) - also when nothing passes (the empty branch runs)."""
    then_g = helper.make_graph([helper.make_node("Constant", [], ["empty"],
                                                 value=numpy_helper.from_array(np.zeros(0, np.float32)))],
                               "then", [], [vi("empty", TensorProto.FLOAT, [0])])
    else_nodes = [
        helper.make_node("Relu", ["v"], ["r"]),
        helper.make_node("Greater", ["r", "half"], ["m2"]),
        helper.make_node("NonZero", ["m2"], ["nz2"]),
        helper.make_node("Transpose", ["nz2"], ["ix2"], perm=[1, 0]),
        helper.make_node("GatherND", ["r", "ix2"], ["big"]),
        helper.make_node("ReduceMax", ["v"], ["vmax"], keepdims=0),
        helper.make_node("Div", ["big", "vmax"], ["scaled"]),
    ]
    else_g = helper.make_graph(else_nodes, "else", [], [vi("scaled", TensorProto.FLOAT, None)])
    nodes = [
        helper.make_node("Greater", ["x", "t"], ["m"]),
        helper.make_node("NonZero", ["m"], ["nz"]),
        helper.make_node("Transpose", ["nz"], ["ix"], perm=[1, 0]),
        helper.make_node("GatherND", ["x", "ix"], ["v"]),               # [k]
        helper.make_node("Shape", ["v"], ["vs"]),
        helper.make_node("ReduceProd", ["vs"], ["numel"], keepdims=0),
        helper.make_node("Equal", ["numel", "zero_i"], ["none"]),
        helper.make_node("If", ["none"], ["y"], then_branch=then_g, else_branch=else_g),
    ]
    inits = [const("t", np.float32(0.2)), const("zero_i", np.int64(0)), const("half", np.float32(0.5))]
    return helper.make_graph(nodes, "if_sizes", [vi("x", TensorProto.FLOAT, [9])],
                             [vi("y", TensorProto.FLOAT, None)], inits), 13


def graph_loop_sizes():
    """A Loop (3 iterations) whose body decides sizes at run time, as ONNX's test_loop11:
    each iteration slices x[i : i + n] (n an input), so its scan rows 2 * relu(slice) have
    n elements; a carried sum takes the slice's ReduceSum, and a second carried value adds
    the one-element x[i : i + 1] (a run-time size that must stay the carried [1])."""
    body = helper.make_graph([
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        helper.make_node("Unsqueeze", ["i", "ax0"], ["start"]),
        helper.make_node("Add", ["start", "n"], ["end"]),
        helper.make_node("Slice", ["x", "start", "end"], ["s"]),          # [<=8], n elements
        helper.make_node("Relu", ["s"], ["r"]),
        helper.make_node("ReduceSum", ["r", "ax0"], ["rs"], keepdims=1),  # [1]
        helper.make_node("Add", ["acc_in", "rs"], ["acc_out"]),
        helper.make_node("Add", ["start", "one"], ["end1"]),
        helper.make_node("Slice", ["x", "start", "end1"], ["s1"]),        # [<=1]
        helper.make_node("Add", ["c_in", "s1"], ["c_out"]),               # must stay [1]
        helper.make_node("Mul", ["r", "two"], ["row"]),                   # scan row [n]
    ], "body", [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
                vi("acc_in", TensorProto.FLOAT, [1]), vi("c_in", TensorProto.FLOAT, [1])],
        [vi("cond_out", TensorProto.BOOL, []), vi("acc_out", TensorProto.FLOAT, [1]),
         vi("c_out", TensorProto.FLOAT, [1]), vi("row", TensorProto.FLOAT, None)],
        [const("ax0", np.array([0], np.int64)), const("one", np.array([1], np.int64)),
         const("two", np.array([2], np.float32))])
    nodes = [helper.make_node("Loop", ["M", "go", "acc0", "c0"], ["acc", "c", "rows"], body=body)]
    inits = [const("M", np.int64(3)), const("go", np.bool_(True)), const("acc0", np.zeros(1, np.float32)),
             const("c0", np.array([0.5], np.float32))]
    return helper.make_graph(nodes, "loop_sizes", [vi("x", TensorProto.FLOAT, [8]), vi("n", TensorProto.INT64, [1])],
                             [vi("acc", TensorProto.FLOAT, [1]), vi("c", TensorProto.FLOAT, [1]),
                              vi("rows", TensorProto.FLOAT, None)], inits), 13


def graph_slice():
    """Slice of [5, 6, 4] with run-time starts, ends and steps over axes (0, -1), its result
    scaled and through Relu, summed over axis 1; and a second Slice of the first (int32
    starts and ends, default steps, axis 1)."""
    nodes = [
        helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["s"]),    # [<=5, 6, <=4]
        helper.make_node("Mul", ["s", "w"], ["sw"]),
        helper.make_node("Relu", ["sw"], ["y"]),
        helper.make_node("ReduceSum", ["y", "ax1"], ["sum"], keepdims=0),              # [<=5, <=4]
        helper.make_node("Slice", ["s", "s2", "e2", "ax1i"], ["t"]),                      # [<=5, <=6, <=4]
    ]
    inits = [const("axes", np.array([0, -1], np.int64)), const("ax1", np.array([1], np.int64)),
             const("ax1i", np.array([1], np.int32)), const("w", np.array([1.5], np.float32))]
    return helper.make_graph(nodes, "slice_chain",
                             [vi("x", TensorProto.FLOAT, [5, 6, 4]), vi("starts", TensorProto.INT64, [2]),
                              vi("ends", TensorProto.INT64, [2]), vi("steps", TensorProto.INT64, [2]),
                              vi("s2", TensorProto.INT32, [1]), vi("e2", TensorProto.INT32, [1])],
                             [vi("y", TensorProto.FLOAT, None), vi("sum", TensorProto.FLOAT, None),
                              vi("t", TensorProto.FLOAT, None)], inits), 13


def graph_slice_of_sized():
    """Slice of [batch, seq, 3] (--dim) along seq from the position of the largest score
    (ArgMax -> starts, starts + 2 -> ends): a run-time slice of a symbolic axis, then Tanh."""
    nodes = [
        helper.make_node("ArgMax", ["score"], ["am"], axis=0, keepdims=1),   # [1]
        helper.make_node("Add", ["am", "two"], ["end"]),
        helper.make_node("Slice", ["x", "am", "end", "ax1"], ["s"]),          # [batch, <=seq, 3]
        helper.make_node("Tanh", ["s"], ["y"]),
    ]
    inits = [const("two", np.array([2], np.int64)), const("ax1", np.array([1], np.int64))]
    return helper.make_graph(nodes, "slice_of_sized",
                             [vi("x", TensorProto.FLOAT, ["batch", "seq", 3]), vi("score", TensorProto.FLOAT, [6])],
                             [vi("y", TensorProto.FLOAT, None)], inits), 13


def graph_pad_runtime():
    """Pads from a graph input p (--dim p=0..3 bounds its values): a constant-mode Pad with a
    constant_value, and reflect and edge Pads of pads min(p, 2) (reflect pads stay below the
    dims); each output dim a run-time size."""
    nodes = [
        helper.make_node("Pad", ["x", "p", "cv"], ["y"]),
        helper.make_node("Min", ["p", "two"], ["p2"]),
        helper.make_node("Pad", ["x", "p2"], ["z"], mode="reflect"),
        helper.make_node("Pad", ["x", "p2"], ["w"], mode="edge"),
        helper.make_node("ReduceSum", ["w", "ax1"], ["ws"], keepdims=0),
    ]
    inits = [const("cv", np.float32(0.5)), const("two", np.array([2], np.int64)), const("ax1", np.array([1], np.int64))]
    return helper.make_graph(nodes, "pad_runtime", [vi("x", TensorProto.FLOAT, [3, 4]), vi("p", TensorProto.INT64, [4])],
                             [vi("y", TensorProto.FLOAT, None), vi("z", TensorProto.FLOAT, None),
                              vi("ws", TensorProto.FLOAT, None)], inits), 13


def graph_pad_of_sized():
    """Pads of a [batch, seq] input (--dim): constant pads on the symbolic axis (seq + 3, a
    run-time size), then pads [0, 0, 0, r] from the Shape of that (r the run-time size), and
    pads to a multiple of 4 computed as (4 - seq % 4) % 4 (not a product of symbols: it runs
    in the module); an Expand to [batch, seq + 1] of a [1, 1] value."""
    nodes = [
        helper.make_node("Pad", ["x", "pc"], ["y"]),                                 # [batch, seq + 3]
        helper.make_node("Shape", ["y"], ["sy"]),
        helper.make_node("Gather", ["sy", "one"], ["r"]),
        helper.make_node("Concat", ["z3", "r"], ["p2"], axis=0),
        helper.make_node("Pad", ["y", "p2"], ["y2"]),                                # [batch, 2 (seq + 3)]
        helper.make_node("Tanh", ["y2"], ["t"]),
        helper.make_node("Shape", ["x"], ["sx"]),
        helper.make_node("Gather", ["sx", "one"], ["seq"]),
        helper.make_node("Gather", ["sx", "zero"], ["bat"]),
        helper.make_node("Mod", ["seq", "four"], ["m"]),
        helper.make_node("Sub", ["four", "m"], ["rest"]),
        helper.make_node("Mod", ["rest", "four"], ["pad"]),
        helper.make_node("Concat", ["z3", "pad"], ["pads"], axis=0),
        helper.make_node("Pad", ["x", "pads"], ["q"]),                               # [batch, 4 ceil(seq / 4)]
        helper.make_node("Add", ["seq", "one"], ["s1"]),
        helper.make_node("Concat", ["bat", "s1"], ["shp"], axis=0),
        helper.make_node("Expand", ["v", "shp"], ["e"]),                             # [batch, seq + 1]
    ]
    inits = [const("pc", np.array([0, 1, 0, 2], np.int64)), const("one", np.array([1], np.int64)),
             const("zero", np.array([0], np.int64)), const("four", np.array([4], np.int64)),
             const("z3", np.zeros(3, np.int64)), const("v", np.array([[2.5]], np.float32))]
    return helper.make_graph(nodes, "pad_of_sized", [vi("x", TensorProto.FLOAT, ["batch", "seq"])],
                             [vi("y", TensorProto.FLOAT, None), vi("t", TensorProto.FLOAT, None),
                              vi("q", TensorProto.FLOAT, None), vi("e", TensorProto.FLOAT, None)], inits), 13


def graph_expand_tile_runtime():
    """Expand of a [3, 1] input to a run-time shape s (--dim s=1..5: rank 3, dims 0 and 2
    run-time sizes, dim 1 stays 3) and Tile of it by run-time repeats r (--dim r=0..3,
    empty results among them), then Sigmoid."""
    nodes = [
        helper.make_node("Expand", ["x", "s"], ["y"]),
        helper.make_node("Tile", ["x", "r"], ["t"]),
        helper.make_node("Sigmoid", ["t"], ["u"]),
    ]
    return helper.make_graph(nodes, "expand_tile_runtime",
                             [vi("x", TensorProto.FLOAT, [3, 1]), vi("s", TensorProto.INT64, [3]),
                              vi("r", TensorProto.INT64, [2])],
                             [vi("y", TensorProto.FLOAT, None), vi("u", TensorProto.FLOAT, None)], []), 13


def graph_range_runtime():
    """Position ids arange(past, past + seq) (past and seq the symbolic lengths of a cache
    and of x: their sum is no product of symbols, so the Range runs in the module) into a
    Gather of an embedding table; arange(0, n, 2) of a scalar input n (--dim n=0..9); a
    ConstantOfShape of [n, n] (1.5), empty for n = 0."""
    nodes = [
        helper.make_node("Shape", ["cache"], ["sc"]), helper.make_node("Gather", ["sc", "one"], ["past"], axis=0),
        helper.make_node("Shape", ["x"], ["sx"]), helper.make_node("Gather", ["sx", "one"], ["seq"], axis=0),
        helper.make_node("Add", ["past", "seq"], ["end"]),
        helper.make_node("Range", ["past", "end", "step"], ["pos"]),                 # [seq]
        helper.make_node("Gather", ["table", "pos"], ["emb"], axis=0),               # [seq, 4]
        helper.make_node("Range", ["zero", "n", "two"], ["r2"]),                     # [ceil(n / 2)]
        helper.make_node("Unsqueeze", ["n", "ax0"], ["n1"]),
        helper.make_node("Concat", ["n1", "n1"], ["cs"], axis=0),
        helper.make_node("ConstantOfShape", ["cs"], ["z"], value=numpy_helper.from_array(np.array([1.5], np.float32))),
    ]
    inits = [const("one", np.int64(1)), const("step", np.int64(1)), const("zero", np.int64(0)),
             const("two", np.int64(2)), const("ax0", np.array([0], np.int64)),
             const("table", np.random.default_rng(5).standard_normal((40, 4)).astype(np.float32))]
    return helper.make_graph(nodes, "range_runtime",
                             [vi("cache", TensorProto.FLOAT, [1, "past", 4]), vi("x", TensorProto.FLOAT, [1, "seq", 4]),
                              vi("n", TensorProto.INT64, [])],
                             [vi("emb", TensorProto.FLOAT, None), vi("r2", TensorProto.INT64, None),
                              vi("z", TensorProto.FLOAT, None)], inits), 13


def graph_resize_of_sized():
    """Resizes of an [n, 2, h, w] input (--dim) as a U-Net decoder does them: nearest and
    linear upsampling by 2 (2h x 2w; outputs only after a linear or cubic downsampling by
    0.5 back to h x w, or a sum, as an output's dims must be single symbols), a
    cubic resize by 1.5 x 0.75 (run-time sizes floor(1.5 h), floor(0.75 w)), and sizes taken
    from a skip connection's Shape (Concat of Shape(x)[:2] and Shape(skip)[2:]), concatenated
    with the skip along the channels."""
    nodes = [
        helper.make_node("Resize", ["x", "", "up2"], ["up"], mode="nearest"),
        helper.make_node("Resize", ["x", "", "up2"], ["lin"], mode="linear"),
        helper.make_node("Resize", ["up", "", "down2"], ["down"], mode="linear"),
        helper.make_node("Sub", ["down", "x"], ["back"]),
        helper.make_node("Resize", ["lin", "", "down2"], ["linback"], mode="cubic"),
        helper.make_node("ReduceSum", ["lin", "ax3"], ["lin3"], keepdims=0),
        helper.make_node("ReduceSum", ["lin3", "ax2"], ["linsum"], keepdims=0),
        helper.make_node("Resize", ["x", "", "odd"], ["cub"], mode="cubic"),
        helper.make_node("Shape", ["x"], ["sx"]),
        helper.make_node("Slice", ["sx", "s0", "s2"], ["nc"]),
        helper.make_node("Shape", ["skip"], ["ss"]),
        helper.make_node("Slice", ["ss", "s2", "s4"], ["hw"]),
        helper.make_node("Concat", ["nc", "hw"], ["sizes"], axis=0),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["u"], mode="linear"),
        helper.make_node("Concat", ["u", "skip"], ["cat"], axis=1),
        helper.make_node("Relu", ["cat"], ["y"]),
    ]
    inits = [const("up2", np.array([1, 1, 2, 2], np.float32)), const("down2", np.array([1, 1, 0.5, 0.5], np.float32)),
             const("odd", np.array([1, 1, 1.5, 0.75], np.float32)), const("s0", np.array([0], np.int64)),
             const("s2", np.array([2], np.int64)), const("s4", np.array([4], np.int64)),
             const("ax3", np.array([3], np.int64)), const("ax2", np.array([2], np.int64))]
    return helper.make_graph(nodes, "resize_of_sized",
                             [vi("x", TensorProto.FLOAT, ["n", 2, "h", "w"]),
                              vi("skip", TensorProto.FLOAT, ["n", 3, "hs", "ws"])],
                             [vi("linback", TensorProto.FLOAT, None), vi("linsum", TensorProto.FLOAT, None),
                              vi("back", TensorProto.FLOAT, None), vi("cub", TensorProto.FLOAT, None),
                              vi("y", TensorProto.FLOAT, None)], inits), 13


def graph_resize_runtime():
    """Resize-18 of a fixed [1, 2, 6, 5] input with run-time parameters: sizes from a graph
    input sz (--dim sz=1..16 bounds its values) along axes 2, 3, linear with antialias (a
    downsampling to 1 takes every input row) and nearest with keep_aspect_ratio_policy
    not_larger; and tf_crop_and_resize to a constant 4 x 3 by a run-time roi."""
    nodes = [
        helper.make_node("Resize", ["x", "", "", "sz"], ["a"], mode="linear", antialias=1, axes=[2, 3]),
        helper.make_node("Resize", ["x", "", "", "sz"], ["k"], mode="nearest", axes=[2, 3],
                         keep_aspect_ratio_policy="not_larger"),
        helper.make_node("Resize", ["x", "roi", "", "c43"], ["c"], mode="linear", axes=[2, 3],
                         coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-1.0),
        helper.make_node("Tanh", ["c"], ["t"]),
    ]
    inits = [const("c43", np.array([4, 3], np.int64))]
    return helper.make_graph(nodes, "resize_runtime",
                             [vi("x", TensorProto.FLOAT, [1, 2, 6, 5]), vi("sz", TensorProto.INT64, [2]),
                              vi("roi", TensorProto.FLOAT, [4])],
                             [vi("a", TensorProto.FLOAT, None), vi("k", TensorProto.FLOAT, None),
                              vi("t", TensorProto.FLOAT, None)], inits), 18



def graph_resize_keep_antialias():
    """Resize-18 of a [1, 1, 8, 40] input to run-time sizes (--dim sz=1..4), linear with
    antialias under keep_aspect_ratio_policy not_larger: the shared ratio comes from the
    long axis (1/40 and less), so the short axis takes many taps, and may become empty."""
    nodes = [helper.make_node("Resize", ["x", "", "", "sz"], ["y"], mode="linear", antialias=1, axes=[2, 3],
                              keep_aspect_ratio_policy="not_larger")]
    return helper.make_graph(nodes, "resize_keep_antialias",
                             [vi("x", TensorProto.FLOAT, [1, 1, 8, 40]), vi("sz", TensorProto.INT64, [2])],
                             [vi("y", TensorProto.FLOAT, None)], []), 18

DIMS = {"pad_runtime": ["--dim", "p=0..3"],
        "resize_of_sized": ["--dim", "n=1..2", "--dim", "h=1..7", "--dim", "w=1..6", "--dim", "hs=1..9",
                            "--dim", "ws=1..8"],
        "resize_runtime": ["--dim", "sz=1..16"],
        "resize_keep_antialias": ["--dim", "sz=1..4"],
        "range_runtime": ["--dim", "past=1..16", "--dim", "seq=1..16", "--dim", "n=0..9"],
        "pad_of_sized": ["--dim", "batch=1..3", "--dim", "seq=1..9"],
        "expand_tile_runtime": ["--dim", "s=1..5", "--dim", "r=0..3"],
        "mask_index_of_sized": ["--dim", "batch=1..3", "--dim", "seq=1..7"],
        "slice_of_sized": ["--dim", "batch=1..3", "--dim", "seq=1..7"],
        "unique_of_sized": ["--dim", "batch=1..3", "--dim", "seq=1..7"],
        "compress_of_sized": ["--dim", "batch=1..3", "--dim", "seq=1..7"],
        "nonzero_of_sized": ["--dim", "batch=1..3", "--dim", "seq=1..7"],
        "topk_of_sized": ["--dim", "batch=1..3", "--dim", "seq=1..7"]}


def inputs_for(name, case, rng):
    """Input set `case` (0..3) of graph `name`; case 3 gives an empty result where it can."""
    if name == "range_runtime":
        p, q, k = [(1, 1, 0), (5, 3, 4), (16, 16, 9), (2, 7, 1)][case]
        return {"cache": np.zeros((1, p, 4), np.float32), "x": np.zeros((1, q, 4), np.float32),
                "n": np.array(k, np.int64)}
    if name == "resize_of_sized":
        n, h, w, hs, ws = [(1, 1, 1, 1, 1), (2, 3, 4, 9, 2), (1, 7, 6, 5, 8), (2, 2, 5, 4, 4)][case]
        return {"x": rng.standard_normal((n, 2, h, w)).astype(np.float32),
                "skip": rng.standard_normal((n, 3, hs, ws)).astype(np.float32)}
    if name == "resize_keep_antialias":
        return {"x": rng.standard_normal((1, 1, 8, 40)).astype(np.float32),
                "sz": np.array([[2, 1], [4, 4], [1, 3], [2, 4]][case], np.int64)}
    if name == "resize_runtime":
        sz, roi = [([3, 4], [0, 0, 1, 1]), ([1, 1], [0.2, -0.3, 0.9, 1.2]), ([16, 16], [0.5, 0.5, 0.5, 0.5]),
                   ([6, 5], [1, 0.8, 0, 0.1])][case]
        return {"x": rng.standard_normal((1, 2, 6, 5)).astype(np.float32), "sz": np.array(sz, np.int64),
                "roi": np.array(roi, np.float32)}
    if name == "pad_runtime":
        p = [[1, 0, 2, 3], [0, 0, 0, 0], [3, 3, 3, 3], [2, 1, 0, 1]][case]
        return {"x": rng.standard_normal((3, 4)).astype(np.float32), "p": np.array(p, np.int64)}
    if name == "pad_of_sized":
        return {"x": rng.standard_normal([(1, 1), (2, 4), (3, 9), (1, 6)][case]).astype(np.float32)}
    if name == "expand_tile_runtime":
        s, r = [([2, 3, 4], [1, 1]), ([1, 1, 5], [3, 2]), ([5, 3, 1], [0, 3]), ([1, 3, 2], [2, 0])][case]
        return {"x": rng.standard_normal((3, 1)).astype(np.float32), "s": np.array(s, np.int64),
                "r": np.array(r, np.int64)}
    if name == "if_sizes":
        x = rng.standard_normal(9).astype(np.float32)
        if case == 2:  # all pass the first mask, none the branch's second: the branch's [0]
            x = rng.uniform(0.25, 0.45, 9).astype(np.float32)
        return {"x": -np.abs(x) if case == 3 else x}
    if name == "loop_sizes":  # rows of 3, 1, 6 and 0 elements
        return {"x": rng.standard_normal(8).astype(np.float32), "n": np.array([[3, 1, 6, 0][case]], np.int64)}
    if name == "mask_index":
        s, m2 = rng.standard_normal(6).astype(np.float32), rng.random((4, 5)) > 0.5
        return {"x": rng.standard_normal((6, 3)).astype(np.float32), "s": -np.abs(s) if case == 3 else s,
                "p": rng.standard_normal((4, 5, 2)).astype(np.float32), "m2": m2 & (case != 3)}
    if name == "mask_index_of_sized":
        b, q = [1, 2, 3, 3][case], [7, 3, 1, 5][case]
        w = rng.standard_normal((b, q)).astype(np.float32)
        return {"x": rng.standard_normal((b, q, 3)).astype(np.float32), "w": -np.abs(w) if case == 3 else w}
    if name == "slice_chain":
        big = np.iinfo(np.int64).max
        starts, ends, steps = [([1, 0], [4, 3], [1, 1]),        # plain
                               ([-1, 3], [-big, -5], [-2, -1]),  # negative steps and indices past the ends
                               ([0, 1], [big, big], [2, 2]),     # to the end in steps of 2
                               ([3, 2], [3, 4], [1, 1])][case]   # an empty axis 0
        return {"x": rng.standard_normal((5, 6, 4)).astype(np.float32), "starts": np.array(starts, np.int64),
                "ends": np.array(ends, np.int64), "steps": np.array(steps, np.int64),
                "s2": np.array([[1, -4, 0, 2][case]], np.int32), "e2": np.array([[5, -1, 100, 3][case]], np.int32)}
    if name == "slice_of_sized":
        b, q = [1, 2, 3, 3][case], [7, 3, 1, 5][case]
        return {"x": rng.standard_normal((b, q, 3)).astype(np.float32), "score": rng.standard_normal(6).astype(np.float32)}
    if name == "nonzero_chain":
        x = rng.standard_normal((4, 5)).astype(np.float32)
        return {"x": -np.abs(x) if case == 3 else x}
    if name == "nonzero_of_sized":
        s = rng.standard_normal(6).astype(np.float32)
        return {"x": rng.standard_normal((6, 3)).astype(np.float32), "s": -np.abs(s) if case == 3 else s,
                "mask": rng.integers(0, 2, ([1, 2, 3, 3][case], [7, 3, 1, 5][case])).astype(np.int64)}
    if name == "nms_of_sized":
        b = rng.random((8, 4)).astype(np.float32)
        b[:, 2:] += b[:, :2]
        s = rng.random(8).astype(np.float32)
        return {"b": b, "s": s * 0.2 if case == 3 else s}
    if name == "unique_of_sized":
        b, q = [1, 2, 3, 3][case], [7, 3, 1, 5][case]
        return {"ids": rng.integers(0, 4, (b, q)).astype(np.int64),
                "p": rng.integers(0, 2, (b, q, 2)).astype(np.float32)}
    if name == "compress_of_sized":
        b, q = [1, 2, 3, 3][case], [7, 3, 1, 5][case]
        w = rng.standard_normal(q).astype(np.float32)
        return {"x": rng.standard_normal((b, q, 4)).astype(np.float32), "w": -np.abs(w) if case == 3 else w}
    if name == "topk_of_sized":
        s = rng.standard_normal(8).astype(np.float32)
        s[:3] = np.abs(s[:3])  # at least 3 rows kept, so k = 0..3 fits the axis
        return {"logits": rng.standard_normal(([1, 2, 3, 3][case], [7, 3, 1, 5][case], 6)).astype(np.float32),
                "x": rng.standard_normal(8).astype(np.float32), "s": s, "k": np.array([[2, 3, 1, 0][case]], np.int64)}
    if name == "compress_chain":
        s = rng.standard_normal(6).astype(np.float32)
        return {"x": rng.standard_normal((6, 3)).astype(np.float32), "s": -np.abs(s) if case == 3 else s,
                "c2": (rng.random(10) > (1.0 if case == 3 else 0.5))}
    if name == "topk_chain":
        x = rng.standard_normal((3, 8)).astype(np.float32)
        if case == 1:
            x = np.round(x)  # ties: the lower index first
        return {"x": x, "k": np.array([[2, 3, 3, 0][case]], np.int64)}
    if name == "unique_chain":
        m = rng.integers(0, 3, (5, 2)).astype(np.float32)
        return {"x": rng.integers(-3, 4, 10).astype(np.int64), "m": m}
    boxes = rng.random((1, 6, 4)).astype(np.float32)
    boxes[..., 2:] += boxes[..., :2]
    scores = rng.random((1, 2, 6)).astype(np.float32)
    return {"boxes": boxes, "scores": scores * 0.1 if case == 3 else scores}


def loop_rows_differ_fails(wasmgraph, module, work, rng):
    """n = 7: the third iteration's slice x[2:9] has 6 elements, not the first's 7, so the
    Loop's scan rows differ; the run must stop with WGK_ERR_LOOP_SHAPE (onnxruntime refuses
    the same input too), not write rows of two sizes."""
    feeds = {"x": rng.standard_normal(8).astype(np.float32), "n": np.array([7], np.int64)}
    _, err = run_module(wasmgraph, module, feeds, work, 3)
    ok = bool(err) and "WGK_ERR_LOOP_SHAPE" in err
    print(f"loop_sizes rows of two sizes: {'refused' if ok else 'NOT REFUSED: ' + str(err)}")
    return ok


GRAPHS = (graph_nonzero, graph_compress, graph_topk, graph_unique, graph_nms, graph_nonzero_of_sized,
          graph_topk_of_sized, graph_compress_of_sized, graph_unique_of_sized,
          graph_nms_of_sized, graph_slice, graph_slice_of_sized, graph_mask_index, graph_mask_index_of_sized,
          graph_if_sizes, graph_loop_sizes, graph_pad_runtime, graph_pad_of_sized, graph_expand_tile_runtime,
          graph_range_runtime, graph_resize_of_sized, graph_resize_runtime,
          graph_resize_keep_antialias)


def dims_of(graph):
    return DIMS.get(graph.name, [])


def cases_of(graph, rng):
    for case in range(4):
        yield f"case {case}", inputs_for(graph.name, case, rng)


def compare(graph, want, gots):
    """Shapes, dtypes and values; the note lists the output shapes."""
    ok, shapes = True, []
    for i, (w, got) in enumerate(zip(want, gots)):
        same = got.shape == w.shape and got.dtype == w.dtype and np.allclose(got, w, rtol=1e-4, atol=1e-5)
        if not same:
            print(f"  output {i}: got {got.dtype}{list(got.shape)} {got.ravel()[:8]}, "
                  f"want {w.dtype}{list(w.shape)} {w.ravel()[:8]}")
        ok &= same
        shapes.append("x".join(map(str, w.shape)) or "scalar")
    return ok, f" ({' '.join(shapes)})"


def extra(graph, wasmgraph, module, work, rng):
    """loop_sizes: rows of two sizes are refused."""
    return graph.name != "loop_sizes" or loop_rows_differ_fails(wasmgraph, module, work, rng)


if __name__ == "__main__":
    sys.exit(check_graphs(GRAPHS, dims_of, cases_of, compare, extra))
