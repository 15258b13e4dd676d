"""control_flow.py OUTDIR: writes small If/Loop/Scan models that ONNX's node tests leave out,
each as OUTDIR/<case>/model.onnx with input_K.pb (tests/models.sh compiles and runs them and
compares with onnxruntime-node, tools/ort_run.js; ONNX's reference evaluator concatenates a
Loop's scan outputs instead of stacking them):
  loop_scan        constant trip count, a carried value reading an outer value and the
                   iteration number, a scan output
  loop_early_exit  the body computes the condition (stops before M); no scan outputs
  loop_swap        two carried values that the body swaps (the next value of one is the
                   other's input: the module stages the copies)
  loop_nested_if   an If on a condition computed at run time inside the Loop's body
  scan_axes        Scan-16 with two scan inputs, one reversed and along axis 1, and a scan
                   output along axis 1
  stack_axes       ConcatFromSequence with new_axis=1 (stacking) at axes 0, 1 and -1 (a new
                   last axis: the elements interleave), beside a plain one along axis 1
Run with the project venv python (onnx, numpy). Deterministic.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def vi(name, dims, t=F):
    return helper.make_tensor_value_info(name, t, dims)


def scalar(name, t):
    return helper.make_tensor_value_info(name, t, [])


def const(name, value):
    return helper.make_node("Constant", [], [name], name=name + "_c", value=numpy_helper.from_array(value, name))


def save(out, case, graph, feeds, opset=16):
    d = os.path.join(out, case)
    os.makedirs(d, exist_ok=True)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, os.path.join(d, "model.onnx"))
    for k, (name, v) in enumerate(feeds.items()):
        onnx.save_tensor(numpy_helper.from_array(v, name), os.path.join(d, f"input_{k}.pb"))


def loop_body(nodes, extra_in, outs):
    ins = [scalar("i", TensorProto.INT64), scalar("c", TensorProto.BOOL)] + extra_in
    return helper.make_graph(nodes, "body", ins, outs)


def main(out):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    m4 = numpy_helper.from_array(np.array(4, np.int64), "m")

    # a_out = a_in * 0.5 + x + float(i); scan = a_out
    body = loop_body([const("half", np.array(0.5, np.float32)),
                      helper.make_node("Cast", ["i"], ["fi"], name="cast", to=F),
                      helper.make_node("Mul", ["a", "half"], ["ah"], name="mul"),
                      helper.make_node("Add", ["ah", "x"], ["ax"], name="add"),
                      helper.make_node("Add", ["ax", "fi"], ["a2"], name="add_i"),
                      helper.make_node("Identity", ["c"], ["c2"], name="cond")],
                     [vi("a", [2, 3])], [scalar("c2", TensorProto.BOOL), vi("a2", [2, 3]), vi("a2", [2, 3])])
    g = helper.make_graph([helper.make_node("Loop", ["m", "", "a0"], ["y", "scan"], name="loop", body=body)],
                          "loop_scan", [vi("x", [2, 3]), vi("a0", [2, 3])], [vi("y", [2, 3]), vi("scan", [4, 2, 3])],
                          [m4])
    save(out, "loop_scan", g, {"x": x, "a0": np.ones((2, 3), np.float32)})

    # s += x while sum(s) < 20, at most 10 times
    body = loop_body([helper.make_node("Add", ["s", "x"], ["s2"], name="add"),
                      helper.make_node("ReduceSum", ["s2"], ["tot"], name="sum", keepdims=0),
                      const("lim", np.array(20, np.float32)),
                      helper.make_node("Less", ["tot", "lim"], ["c2"], name="less")],
                     [vi("s", [3])], [scalar("c2", TensorProto.BOOL), vi("s2", [3])])
    m10 = numpy_helper.from_array(np.array(10, np.int64), "m")
    g = helper.make_graph([helper.make_node("Loop", ["m", "go", "s0"], ["y"], name="loop", body=body)],
                          "loop_early_exit", [vi("x", [3]), vi("s0", [3]), scalar("go", TensorProto.BOOL)],
                          [vi("y", [3])], [m10])
    save(out, "loop_early_exit", g, {"x": np.array([1.5, 2.0, 0.5], np.float32),
                                     "s0": np.zeros(3, np.float32), "go": np.array(True)})

    # (p, q) -> (q, p + q)
    body = loop_body([helper.make_node("Identity", ["q"], ["p2"], name="keep"),
                      helper.make_node("Add", ["p", "q"], ["q2"], name="add"),
                      helper.make_node("Identity", ["c"], ["c2"], name="cond")],
                     [vi("p", [2]), vi("q", [2])], [scalar("c2", TensorProto.BOOL), vi("p2", [2]), vi("q2", [2])])
    g = helper.make_graph([helper.make_node("Loop", ["m", "", "p0", "q0"], ["p", "q"], name="loop", body=body)],
                          "loop_swap", [vi("p0", [2]), vi("q0", [2])], [vi("p", [2]), vi("q", [2])],
                          [numpy_helper.from_array(np.array(6, np.int64), "m")])
    save(out, "loop_swap", g, {"p0": np.array([0, 1], np.float32), "q0": np.array([1, 2], np.float32)})

    # v = i even ? v + x : v - x (an If on a value computed at run time, inside the body)
    then_g = helper.make_graph([helper.make_node("Add", ["v", "x"], ["t"], name="then_add")], "then", [], [vi("t", [2, 3])])
    else_g = helper.make_graph([helper.make_node("Sub", ["v", "x"], ["e"], name="else_sub")], "else", [], [vi("e", [2, 3])])
    body = loop_body([const("two", np.array(2, np.int64)), const("zero", np.array(0, np.int64)),
                      helper.make_node("Mod", ["i", "two"], ["r"], name="mod"),
                      helper.make_node("Equal", ["r", "zero"], ["even"], name="even"),
                      helper.make_node("If", ["even"], ["v2"], name="if", then_branch=then_g, else_branch=else_g),
                      helper.make_node("Identity", ["c"], ["c2"], name="cond")],
                     [vi("v", [2, 3])], [scalar("c2", TensorProto.BOOL), vi("v2", [2, 3]), vi("v2", [2, 3])])
    g = helper.make_graph([helper.make_node("Loop", ["m", "", "v0"], ["y", "scan"], name="loop", body=body)],
                          "loop_nested_if", [vi("x", [2, 3]), vi("v0", [2, 3])],
                          [vi("y", [2, 3]), vi("scan", [5, 2, 3])], [numpy_helper.from_array(np.array(5, np.int64), "m")])
    save(out, "loop_nested_if", g, {"x": x, "v0": rng.standard_normal((2, 3)).astype(np.float32)})

    # state += a_t * b_t; out_t = state (scan output along axis 1); b reversed, along axis 1
    sbody = helper.make_graph([helper.make_node("Mul", ["a", "b"], ["ab"], name="mul"),
                               helper.make_node("Add", ["s", "ab"], ["s2"], name="add"),
                               helper.make_node("Identity", ["s2"], ["o"], name="out")], "sbody",
                              [vi("s", [2]), vi("a", [2]), vi("b", [2])], [vi("s2", [2]), vi("o", [2])])
    g = helper.make_graph([helper.make_node("Scan", ["s0", "a", "b"], ["s", "o"], name="scan", body=sbody,
                                            num_scan_inputs=2, scan_input_axes=[0, 1], scan_input_directions=[0, 1],
                                            scan_output_axes=[1])],
                          "scan_axes", [vi("s0", [2]), vi("a", [4, 2]), vi("b", [2, 4])], [vi("s", [2]), vi("o", [2, 4])])
    save(out, "scan_axes", g, {"s0": np.array([1, -1], np.float32), "a": rng.standard_normal((4, 2)).astype(np.float32),
                               "b": rng.standard_normal((2, 4)).astype(np.float32)})

    # three [2, 3] tensors stacked into [3, 2, 3], [2, 3, 3] and [2, 3, 3] (axis -1), and
    # concatenated into [2, 9]
    seq_nodes = [helper.make_node("SequenceConstruct", ["p", "q", "r"], ["sq"], name="construct")]
    for out_name, axis, new_axis in (("s0", 0, 1), ("s1", 1, 1), ("s_last", -1, 1), ("c1", 1, 0)):
        seq_nodes.append(helper.make_node("ConcatFromSequence", ["sq"], [out_name], name="cat_" + out_name,
                                          axis=axis, new_axis=new_axis))
    g = helper.make_graph(seq_nodes, "stack_axes", [vi("p", [2, 3]), vi("q", [2, 3]), vi("r", [2, 3])],
                          [vi("s0", [3, 2, 3]), vi("s1", [2, 3, 3]), vi("s_last", [2, 3, 3]), vi("c1", [2, 9])])
    save(out, "stack_axes", g, {k: rng.standard_normal((2, 3)).astype(np.float32) for k in "pqr"})


if __name__ == "__main__":
    main(sys.argv[1])
