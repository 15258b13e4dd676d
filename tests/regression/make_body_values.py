#!/usr/bin/env python3
"""Writes the body_values-* cases of tests/regression/ (ONNX's backend-test layout, like
make_answers.py): sequences and optionals crossing If, Loop and SequenceMap bodies in the
forms ONNX's node tests leave out (the else branch of a run-time If of sequences, optionals
whose presence the branch taken decides, a Loop carrying a tensor and a growing sequence
through a nested If, one with a scan output, a SequenceMap whose body holds an If and a
Loop). Every expected output is computed here by numpy, independently of the compiler. The folders are committed; run
this only to change a case:

    $WG_PYTHON tests/regression/make_body_values.py

tests/regression/run.sh runs every such folder through tests/conformance/one.sh.
"""
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F = TensorProto.FLOAT


def seq(name):
    return helper.make_tensor_sequence_value_info(name, F, None)


def tensor(name, dims=None, dtype=F):
    return helper.make_tensor_value_info(name, dtype, dims)


def opt(name, dims):
    return helper.make_value_info(name, helper.make_optional_type_proto(helper.make_tensor_type_proto(F, dims)))


def proto(vi, value):
    """The .pb message of value for graph value vi: a tensor, a list (sequence), or for an
    optional a tensor or None."""
    kind = vi.type.WhichOneof("value")
    if kind == "sequence_type":
        return numpy_helper.from_list(value, vi.name)
    if kind == "optional_type":
        return numpy_helper.from_optional(value, vi.name, dtype=None if value is not None else 1)
    return numpy_helper.from_array(value, vi.name)


def write(name, graph, opset, data_sets):
    """data_sets: [(inputs, outputs)], each a list of values in the graph's order."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="wasmgraph tests/regression/make_body_values.py")
    model.ir_version = 8
    d = os.path.join(HERE, f"body_values-{name}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for k, (ins, outs) in enumerate(data_sets):
        ds = os.path.join(d, f"test_data_set_{k}")
        os.makedirs(ds)
        for kind, vis, vals in (("input", graph.input, ins), ("output", graph.output, outs)):
            for j, (vi, v) in enumerate(zip(vis, vals)):
                with open(os.path.join(ds, f"{kind}_{j}.pb"), "wb") as f:
                    f.write(proto(vi, v).SerializeToString())


X = np.arange(-3, 3, dtype=np.float32).reshape(2, 3)


def if_sequence():
    """then: [Relu(x), x]; else: [x, -x]; y = their concatenation along axis 0."""
    th = helper.make_graph([helper.make_node("Relu", ["x"], ["r"]),
                            helper.make_node("SequenceConstruct", ["r", "x"], ["ts"])], "then", [], [seq("ts")])
    el = helper.make_graph([helper.make_node("Neg", ["x"], ["n"]),
                            helper.make_node("SequenceConstruct", ["x", "n"], ["es"])], "else", [], [seq("es")])
    g = helper.make_graph([helper.make_node("If", ["b"], ["s"], then_branch=th, else_branch=el),
                           helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0)], "g",
                          [tensor("x", [2, 3]), tensor("b", [], TensorProto.BOOL)], [tensor("y"), seq("s")])
    sets = []
    for b in (False, True):
        s = [np.maximum(X, 0), X] if b else [X, -X]
        sets.append(([X, np.array(b)], [np.concatenate(s, axis=0), s]))
    write("if-sequence", g, 16, sets)


def if_optional():
    """then: the input optional (its presence read at run time); else: Optional(x)."""
    th = helper.make_graph([helper.make_node("Identity", ["ot"], ["o1"])], "then", [], [opt("o1", [2, 3])])
    el = helper.make_graph([helper.make_node("Optional", ["x"], ["o2"])], "else", [], [opt("o2", [2, 3])])
    g = helper.make_graph([helper.make_node("If", ["b"], ["o"], then_branch=th, else_branch=el),
                           helper.make_node("OptionalHasElement", ["o"], ["has"])], "g",
                          [tensor("x", [2, 3]), tensor("b", [], TensorProto.BOOL), opt("ot", [2, 3])],
                          [tensor("has", [], TensorProto.BOOL), opt("o", [2, 3])])
    sets = []
    for b, present in ((True, False), (True, True), (False, False)):
        ot = X * 2 if present else None
        o = (ot if present else None) if b else X
        sets.append(([X, np.array(b), ot], [np.array(o is not None), o]))
    write("if-optional", g, 18, sets)


def loop_tensor_and_sequence():
    """acc = x; for i < M: acc = acc + x (i even) or acc * x (i odd), appended to a sequence."""
    two = numpy_helper.from_array(np.array(2, np.int64), "two")
    zero = numpy_helper.from_array(np.array(0, np.int64), "zero")
    add = helper.make_graph([helper.make_node("Add", ["acc", "x"], ["a1"])], "even", [], [tensor("a1")])
    mul = helper.make_graph([helper.make_node("Mul", ["acc", "x"], ["a2"])], "odd", [], [tensor("a2")])
    body = helper.make_graph(
        [helper.make_node("Identity", ["ci"], ["co"]), helper.make_node("Mod", ["i", "two"], ["par"]),
         helper.make_node("Equal", ["par", "zero"], ["even"]),
         helper.make_node("If", ["even"], ["acc2"], then_branch=add, else_branch=mul),
         helper.make_node("SequenceInsert", ["sv", "acc2"], ["sv2"])], "body",
        [tensor("i", [], TensorProto.INT64), tensor("ci", [], TensorProto.BOOL), tensor("acc", [2, 3]), seq("sv")],
        [tensor("co", [], TensorProto.BOOL), tensor("acc2", [2, 3]), seq("sv2")], [two, zero])
    g = helper.make_graph([helper.make_node("SequenceEmpty", [], ["s0"], dtype=F),
                           helper.make_node("Loop", ["M", "", "x", "s0"], ["accf", "sf"], body=body)], "g",
                          [tensor("x", [2, 3]), tensor("M", [], TensorProto.INT64)], [tensor("accf"), seq("sf")])
    acc, s = X.astype(np.float64), []
    for i in range(4):
        acc = acc + X if i % 2 == 0 else acc * X
        s.append(acc.astype(np.float32))
    write("loop-tensor-and-sequence", g, 16, [([X, np.array(4, np.int64)], [acc.astype(np.float32), s])])


def loop_scan_and_sequence():
    """A Loop carrying a growing sequence whose scan output is x times the sequence's length."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["ci"], ["co"]), helper.make_node("SequenceInsert", ["sv", "x"], ["sv2"]),
         helper.make_node("SequenceLength", ["sv2"], ["len"]), helper.make_node("Cast", ["len"], ["lenf"], to=F),
         helper.make_node("Mul", ["x", "lenf"], ["sc"])], "body",
        [tensor("i", [], TensorProto.INT64), tensor("ci", [], TensorProto.BOOL), seq("sv")],
        [tensor("co", [], TensorProto.BOOL), seq("sv2"), tensor("sc", [2, 3])])
    m = numpy_helper.from_array(np.array(3, np.int64), "M")
    g = helper.make_graph([helper.make_node("SequenceEmpty", [], ["s0"], dtype=F),
                           helper.make_node("Loop", ["M", "", "s0"], ["sf", "scan"], body=body)], "g",
                          [tensor("x", [2, 3])], [seq("sf"), tensor("scan")], [m])
    write("loop-scan-and-sequence", g, 16, [([X], [[X] * 3, np.stack([X * n for n in (1, 2, 3)])])])


def sequence_map_nested():
    """Each element e: b ? e + e + e + e (a Loop adding e three times) : -e."""
    three = numpy_helper.from_array(np.array(3, np.int64), "three")
    lb = helper.make_graph([helper.make_node("Identity", ["lc"], ["lco"]), helper.make_node("Add", ["la", "e"], ["la2"])],
                           "lb", [tensor("li", [], TensorProto.INT64), tensor("lc", [], TensorProto.BOOL), tensor("la")],
                           [tensor("lco", [], TensorProto.BOOL), tensor("la2")])
    th = helper.make_graph([helper.make_node("Loop", ["three", "", "e"], ["lsum"], body=lb)], "then", [], [tensor("lsum")])
    el = helper.make_graph([helper.make_node("Neg", ["e"], ["ne"])], "else", [], [tensor("ne")])
    mb = helper.make_graph([helper.make_node("If", ["bb"], ["o"], then_branch=th, else_branch=el)], "mb",
                           [tensor("e"), tensor("bb", [], TensorProto.BOOL)], [tensor("o")], [three])
    g = helper.make_graph([helper.make_node("SequenceMap", ["sx", "b"], ["so"], body=mb)], "g",
                          [seq("sx"), tensor("b", [], TensorProto.BOOL)], [seq("so")])
    sx = [np.ones(2, np.float32), np.arange(3, dtype=np.float32)]
    write("sequence-map-nested", g, 17,
          [([sx, np.array(b)], [[e * 4 if b else -e for e in sx]]) for b in (True, False)])


if __name__ == "__main__":
    if_sequence()
    if_optional()
    loop_tensor_and_sequence()
    loop_scan_and_sequence()
    sequence_map_nested()
