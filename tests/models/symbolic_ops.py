"""Builds small ONNX graphs with symbolic dims (dim_params batch, seq) that exercise the
ops sym_infer.c / sym_emit.c take symbolically, compiles each with --dim, runs it at
several sizes through `wasmgraph run` and compares with onnxruntime (rtol 1e-4, atol 1e-5),
and a --threads build of each with the single-threaded one, bit for bit on 1-3 threads.

    python symbolic_ops.py WASMGRAPH WORKDIR [GRAPH_NAME...]
Prints one line per graph and size; exit status 1 on any mismatch or failure.
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from wg_run import check_graphs

H = 8
SIZES = [(1, 1), (2, 5), (3, 16)]


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def graph_decomposed_layernorm():
    """x [batch, seq, H]: the decomposed LayerNorm of older exporters, then Gelu via Erf."""
    rng = np.random.default_rng(1)
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["m"], axes=[-1], keepdims=1),
        helper.make_node("Sub", ["x", "m"], ["c"]),
        helper.make_node("Pow", ["c", "two"], ["sq"]),
        helper.make_node("ReduceMean", ["sq"], ["v"], axes=[-1], keepdims=1),
        helper.make_node("Add", ["v", "eps"], ["ve"]),
        helper.make_node("Sqrt", ["ve"], ["sd"]),
        helper.make_node("Div", ["c", "sd"], ["n"]),
        helper.make_node("Mul", ["n", "gamma"], ["g"]),
        helper.make_node("Add", ["g", "beta"], ["ln"]),
        helper.make_node("Div", ["ln", "sqrt2"], ["h"]),
        helper.make_node("Erf", ["h"], ["e"]),
        helper.make_node("Add", ["e", "one"], ["e1"]),
        helper.make_node("Mul", ["ln", "e1"], ["t"]),
        helper.make_node("Mul", ["t", "half"], ["y"]),
        helper.make_node("Tanh", ["y"], ["z"]),
    ]
    inits = [const("two", np.float32(2)), const("eps", np.float32(1e-5)), const("sqrt2", np.float32(2 ** 0.5)),
             const("one", np.float32(1)), const("half", np.float32(0.5)),
             const("gamma", rng.standard_normal(H).astype(np.float32)),
             const("beta", rng.standard_normal(H).astype(np.float32))]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", H])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", "seq", H])
    return helper.make_graph(nodes, "decomposed_layernorm", [x], [z], inits), 17


def graph_mask_concat():
    """An attention-style mask from a [batch, seq] int64 mask (Equal, Where, Expand to
    [batch, 1, seq, seq] through Shape/Concat), a Concat along seq, Range positions."""
    nodes = [
        helper.make_node("Equal", ["mask", "zero_i"], ["pad"]),
        helper.make_node("Where", ["pad", "neg", "zero_f"], ["add"]),
        helper.make_node("Unsqueeze", ["add", "ax12"], ["add4"]),           # [batch, 1, 1, seq]
        helper.make_node("Shape", ["mask"], ["ms"]),
        helper.make_node("Gather", ["ms", "i0"], ["b"], axis=0),
        helper.make_node("Gather", ["ms", "i1"], ["s"], axis=0),
        helper.make_node("Unsqueeze", ["b", "ax0"], ["b1"]),
        helper.make_node("Unsqueeze", ["s", "ax0"], ["s1"]),
        helper.make_node("Concat", ["b1", "one_i", "s1", "s1"], ["shp"], axis=0),
        helper.make_node("Expand", ["add4", "shp"], ["full"]),              # [batch, 1, seq, seq]
        helper.make_node("Cast", ["mask"], ["mf"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mf", "ax2"], ["mf3"]),             # [batch, seq, 1]
        helper.make_node("Concat", ["mf3", "mf3"], ["cat"], axis=2),        # [batch, seq, 2]
        helper.make_node("Range", ["zero_s", "s", "one_s"], ["pos"]),       # [seq]
        helper.make_node("Cast", ["pos"], ["posf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["mf", "posf"], ["mp"]),                   # [batch, seq]
        # masked mean pooling over seq, as sentence encoders end
        helper.make_node("ReduceSum", ["mp", "ax1"], ["ps"], keepdims=0),   # [batch]
        helper.make_node("ReduceMean", ["mf3"], ["pm"], axes=[1], keepdims=1),  # [batch, 1, 1]
    ]
    inits = [const("zero_i", np.int64(0)), const("neg", np.float32(-1e4)), const("zero_f", np.float32(0)),
             const("ax12", np.array([1, 2], np.int64)), const("i0", np.int64(0)), const("i1", np.int64(1)),
             const("ax0", np.array([0], np.int64)), const("one_i", np.array([1], np.int64)),
             const("zero_s", np.int64(0)), const("one_s", np.int64(1)), const("ax2", np.array([2], np.int64)),
             const("ax1", np.array([1], np.int64))]
    mask = helper.make_tensor_value_info("mask", TensorProto.INT64, ["batch", "seq"])
    outs = [helper.make_tensor_value_info("full", TensorProto.FLOAT, ["batch", 1, "seq", "seq"]),
            helper.make_tensor_value_info("cat", TensorProto.FLOAT, ["batch", "seq", 2]),
            helper.make_tensor_value_info("mp", TensorProto.FLOAT, ["batch", "seq"]),
            helper.make_tensor_value_info("ps", TensorProto.FLOAT, ["batch"]),
            helper.make_tensor_value_info("pm", TensorProto.FLOAT, ["batch", 1, 1])]
    return helper.make_graph(nodes, "mask_concat", [mask], outs, inits), 17


def graph_padding_index():
    """transformers' masking_utils padding mask over [batch, seq], as its exports write it:
    batch_index * seq + kv_index (a Mul by the symbolic seq), a Gather from the flattened
    mask, GreaterOrEqual / And / Not / Xor / Max on the indices; expand(batch, -1) through
    Equal(shape, -1) and Where (folded: a symbol is never -1), the token-type
    GatherElements; IsNaN after a Softmax, as sdpa's export guards it."""
    nodes = [
        helper.make_node("Shape", ["mask"], ["ms"]),
        helper.make_node("Gather", ["ms", "i0"], ["b"], axis=0),
        helper.make_node("Gather", ["ms", "i1"], ["s"], axis=0),
        helper.make_node("Range", ["zero_s", "b", "one_s"], ["bi"]),         # [batch]
        helper.make_node("Range", ["zero_s", "s", "one_s"], ["kv"]),         # [seq]
        helper.make_node("Unsqueeze", ["bi", "ax1"], ["bi2"]),               # [batch, 1]
        helper.make_node("Mul", ["bi2", "s"], ["off"]),                      # times the symbol
        helper.make_node("Unsqueeze", ["kv", "ax0"], ["kv2"]),               # [1, seq]
        helper.make_node("Add", ["off", "kv2"], ["flat_ix"]),                # [batch, seq]
        helper.make_node("Flatten", ["mask"], ["mflat2"], axis=0),           # [1, batch*seq]
        helper.make_node("Gather", ["mflat2", "flat_ix"], ["picked"], axis=1),  # [1, batch, seq]
        helper.make_node("Cast", ["picked"], ["pb"], to=TensorProto.BOOL),
        helper.make_node("GreaterOrEqual", ["kv2", "zero_s"], ["ge"]),
        helper.make_node("And", ["pb", "ge"], ["keep"]),
        helper.make_node("Not", ["keep"], ["drop"]),
        helper.make_node("Xor", ["keep", "drop"], ["always"]),
        helper.make_node("Max", ["flat_ix", "two_s"], ["mx"]),
        # expand(batch, -1) of a [1, seq] buffer, then the token-type gather by positions
        helper.make_node("Unsqueeze", ["b", "ax0"], ["b1"]),
        helper.make_node("Concat", ["b1", "minus1"], ["want"], axis=0),
        helper.make_node("Equal", ["want", "minus1"], ["is_m1"]),
        helper.make_node("Where", ["is_m1", "ones2", "want"], ["eshape"]),
        helper.make_node("Slice", ["buf", "zero1", "s1", "ax1"], ["bufs"]),   # [1, seq]
        helper.make_node("Unsqueeze", ["s", "ax0"], ["s1"]),
        helper.make_node("Expand", ["kv2", "eshape"], ["pos"]),              # [batch, seq]
        helper.make_node("Expand", ["bufs", "eshape"], ["bufb"]),            # [batch, seq]
        helper.make_node("GatherElements", ["bufb", "pos"], ["tt"], axis=1),
        helper.make_node("Cast", ["mask"], ["mf"], to=TensorProto.FLOAT),
        helper.make_node("Softmax", ["mf"], ["sm"], axis=-1),
        helper.make_node("IsNaN", ["sm"], ["nan"]),
    ]
    inits = [const("i0", np.int64(0)), const("i1", np.int64(1)), const("zero_s", np.int64(0)),
             const("one_s", np.int64(1)), const("two_s", np.int64(2)), const("ax0", np.array([0], np.int64)),
             const("ax1", np.array([1], np.int64)), const("minus1", np.array([-1], np.int64)),
             const("ones2", np.array([1, 1], np.int64)), const("zero1", np.array([0], np.int64)),
             const("buf", (np.arange(32, dtype=np.int64) % 3)[None, :])]
    mask = helper.make_tensor_value_info("mask", TensorProto.INT64, ["batch", "seq"])
    outs = [helper.make_tensor_value_info(nm, dt, None) for nm, dt in
            [("keep", TensorProto.BOOL), ("always", TensorProto.BOOL), ("mx", TensorProto.INT64),
             ("tt", TensorProto.INT64), ("nan", TensorProto.BOOL)]]
    return helper.make_graph(nodes, "padding_index", [mask], outs, inits), 17


def graph_split_cumsum():
    """x [batch, seq, H]: Split along the fixed last axis (GPT-2's qkv), CumSum along the
    symbolic seq (RoBERTa's position ids; reverse and exclusive too) of int64 and float."""
    nodes = [
        helper.make_node("Split", ["x", "parts"], ["a", "b"], axis=2),
        helper.make_node("CumSum", ["a", "ax1"], ["ca"], reverse=1),
        helper.make_node("Greater", ["b", "zero_f"], ["pos"]),
        helper.make_node("Cast", ["pos"], ["pi"], to=TensorProto.INT64),
        helper.make_node("CumSum", ["pi", "ax1"], ["cb"], exclusive=1),
    ]
    inits = [const("parts", np.array([3, H - 3], np.int64)), const("ax1", np.int64(1)),
             const("zero_f", np.float32(0))]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", H])
    outs = [helper.make_tensor_value_info("ca", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("cb", TensorProto.INT64, None)]
    return helper.make_graph(nodes, "split_cumsum", [x], outs, inits), 14


def graph_gemm():
    """x [batch, seq*H flattened away: batch, H]: Gemm (transB, bias row) + Relu, then Gemm
    (alpha, beta, a scalar C): Linear layers as the TorchScript exporter writes them."""
    rng = np.random.default_rng(2)
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Gemm", ["r", "w2", "c2"], ["y"], alpha=0.5, beta=2.0),
    ]
    inits = [const("w1", rng.standard_normal((6, H)).astype(np.float32)),
             const("b1", rng.standard_normal(6).astype(np.float32)),
             const("w2", rng.standard_normal((6, 5)).astype(np.float32)),
             const("c2", np.float32(0.25))]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", H])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 5])
    return helper.make_graph(nodes, "gemm", [x], [y], inits), 13


def graph_loop_rows():
    """x [batch, seq, H]: a Loop (3 iterations) whose body reads x from the outer scope,
    so each scan row has x's symbolic shape: rows x * i + i and a carried sum of their
    maxima; the scan output [3, batch, seq, H] is stored at the actual sizes."""
    body = helper.make_graph([
        helper.make_node("Identity", ["c"], ["co"]),
        helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["x", "fi"], ["xi"]),
        helper.make_node("Add", ["xi", "fi"], ["row"]),
        helper.make_node("ReduceMax", ["row"], ["rs"], keepdims=0),
        helper.make_node("Add", ["acc", "rs"], ["acc_out"]),
    ], "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                helper.make_tensor_value_info("acc", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("co", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("row", TensorProto.FLOAT, None)])
    nodes = [helper.make_node("Loop", ["m", "go", "acc0"], ["total", "rows"], body=body)]
    inits = [const("m", np.int64(3)), const("go", np.bool_(True)), const("acc0", np.float32(0))]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", H])
    outs = [helper.make_tensor_value_info("total", TensorProto.FLOAT, []),
            helper.make_tensor_value_info("rows", TensorProto.FLOAT, None)]
    return helper.make_graph(nodes, "loop_rows", [x], outs, inits), 13


def graph_loop_over_seq():
    """x [seq, batch, H], h0 [batch, H]: a Loop of seq iterations (its trip count the
    symbolic Shape(x)[0]) carrying h [batch, H] = tanh(h + x[i]) (a carried value of
    symbolic dims), with scan outputs per step: sum over the batch [seq, H] and the
    pre-activation [seq, batch, H]."""
    body = helper.make_graph([
        helper.make_node("Gather", ["x", "i"], ["xi"], axis=0),
        helper.make_node("Add", ["h_in", "xi"], ["a"]),
        helper.make_node("Tanh", ["a"], ["h_out"]),
        helper.make_node("ReduceSum", ["h_out", "ax0"], ["r"], keepdims=0),
        helper.make_node("Identity", ["c"], ["co"]),
    ], "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                helper.make_tensor_value_info("h_in", TensorProto.FLOAT, ["batch", H])],
        [helper.make_tensor_value_info("co", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_out", TensorProto.FLOAT, ["batch", H]),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, [H]),
         helper.make_tensor_value_info("a", TensorProto.FLOAT, ["batch", H])],
        [const("ax0", np.array([0], np.int64))])
    nodes = [helper.make_node("Shape", ["x"], ["sx"]), helper.make_node("Gather", ["sx", "zero"], ["n"], axis=0),
             helper.make_node("Loop", ["n", "", "h0"], ["h", "rs", "pre"], body=body)]
    inits = [const("zero", np.int64(0))]
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["seq", "batch", H]),
           helper.make_tensor_value_info("h0", TensorProto.FLOAT, ["batch", H])]
    outs = [helper.make_tensor_value_info(nm, TensorProto.FLOAT, None) for nm in ("h", "rs", "pre")]
    return helper.make_graph(nodes, "loop_over_seq", ins, outs, inits), 16


def graph_scan_over_seq():
    """x [3, seq, H]: a Scan of seq steps (a symbolic scan length) over two scan inputs,
    both x along axis 1, one in reverse: state s [3, H] = s * x_t + z_t, scan output
    tanh(s) stacked along axis 1: [3, seq, H]."""
    body = helper.make_graph([
        helper.make_node("Mul", ["s_in", "x_t"], ["m"]),
        helper.make_node("Add", ["m", "z_t"], ["s_out"]),
        helper.make_node("Tanh", ["s_out"], ["y_t"]),
    ], "body", [helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [3, H]),
                helper.make_tensor_value_info("x_t", TensorProto.FLOAT, [3, H]),
                helper.make_tensor_value_info("z_t", TensorProto.FLOAT, [3, H])],
        [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [3, H]),
         helper.make_tensor_value_info("y_t", TensorProto.FLOAT, [3, H])])
    nodes = [helper.make_node("Scan", ["s0", "x", "x"], ["s", "ys"], body=body, num_scan_inputs=2,
                              scan_input_axes=[1, 1], scan_input_directions=[1, 0], scan_output_axes=[1])]
    inits = [const("s0", np.full((3, H), 0.5, np.float32))]
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, "seq", H])]
    outs = [helper.make_tensor_value_info(nm, TensorProto.FLOAT, None) for nm in ("s", "ys")]
    return helper.make_graph(nodes, "scan_over_seq", ins, outs, inits), 16


def graph_scan_batched():
    """x [batch, seq, H], h0 [batch, H]: a Scan of seq steps along axis 1 whose state and
    elements [batch, H] have the symbolic batch: h = tanh(h * 0.5 + x_t), the states stacked
    along axis 1 ([batch, seq, H])."""
    body = helper.make_graph([
        helper.make_node("Mul", ["h_in", "half"], ["m"]),
        helper.make_node("Add", ["m", "x_t"], ["a"]),
        helper.make_node("Tanh", ["a"], ["h_out"]),
        helper.make_node("Identity", ["h_out"], ["y_t"]),
    ], "body", [helper.make_tensor_value_info("h_in", TensorProto.FLOAT, ["batch", H]),
                helper.make_tensor_value_info("x_t", TensorProto.FLOAT, ["batch", H])],
        [helper.make_tensor_value_info("h_out", TensorProto.FLOAT, ["batch", H]),
         helper.make_tensor_value_info("y_t", TensorProto.FLOAT, ["batch", H])],
        [const("half", np.float32(0.5))])
    nodes = [helper.make_node("Scan", ["h0", "x"], ["h", "ys"], body=body, num_scan_inputs=1,
                              scan_input_axes=[1], scan_output_axes=[1])]
    ins = [helper.make_tensor_value_info("h0", TensorProto.FLOAT, ["batch", H]),
           helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", H])]
    outs = [helper.make_tensor_value_info(nm, TensorProto.FLOAT, None) for nm in ("h", "ys")]
    return helper.make_graph(nodes, "scan_batched", ins, outs), 16


def inputs_for(name, batch, seq, rng):
    if name == "scan_batched":
        return {"h0": rng.standard_normal((batch, H)).astype(np.float32),
                "x": rng.standard_normal((batch, seq, H)).astype(np.float32)}
    if name == "loop_over_seq":
        return {"x": rng.standard_normal((seq, batch, H)).astype(np.float32),
                "h0": rng.standard_normal((batch, H)).astype(np.float32)}
    if name == "scan_over_seq":
        return {"x": rng.standard_normal((3, seq, H)).astype(np.float32)}
    if name == "gemm":
        return {"x": rng.standard_normal((batch * seq, H)).astype(np.float32)}
    if name in ("mask_concat", "padding_index"):
        m = np.ones((batch, seq), np.int64)
        m[-1, max(1, seq // 2):] = 0
        return {"mask": m}
    return {"x": rng.standard_normal((batch, seq, H)).astype(np.float32)}


GRAPHS = (graph_decomposed_layernorm, graph_mask_concat, graph_gemm, graph_padding_index, graph_split_cumsum,
          graph_loop_rows, graph_loop_over_seq, graph_scan_over_seq, graph_scan_batched)


def dims_of(graph):
    return (["--dim", "batch=1..64"] if graph.name == "gemm" else ["--dim", "seq=1..32"]
            if graph.name == "scan_over_seq" else ["--dim", "batch=1..4", "--dim", "seq=1..32"])


def cases_of(graph, rng):
    for batch, seq in SIZES:
        yield f"batch {batch} seq {seq}", inputs_for(graph.name, batch, seq, rng)


def compare(graph, want, gots):
    ok = True
    for w, got in zip(want, gots):
        ok &= got.shape == w.shape and np.allclose(got, w, rtol=1e-4, atol=1e-5)
    return ok, ""


if __name__ == "__main__":
    sys.exit(check_graphs(GRAPHS, dims_of, cases_of, compare))
