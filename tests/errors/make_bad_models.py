"""Writes small ONNX models that must be refused cleanly: make_bad_models.py OUTDIR."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(model, path):
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    # An operator wasmgraph does not know (as from a newer opset or a typo).
    g = helper.make_graph([helper.make_node("Hardmux", ["x"], ["y"], name="the_hardmux")], "g", [x], [y])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/unsupported_op.onnx")
    # A custom-domain op.
    g = helper.make_graph([helper.make_node("Frobnicate", ["x"], ["y"], name="custom", domain="com.example")],
                          "g", [x], [y])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)]),
         f"{out}/custom_domain.onnx")
    # A node reading a tensor nobody produces.
    g = helper.make_graph([helper.make_node("Relu", ["nowhere"], ["y"], name="orphan")], "g", [x], [y])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/dangling_input.onnx")
    # A dynamic batch dimension without --shape.
    xd = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "g", [xd], [y])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/dynamic.onnx")
    # A symbolic dim (--dim N=..) reaching an op that cannot take it yet (EyeLike).
    g = helper.make_graph([helper.make_node("EyeLike", ["x"], ["y"], name="eye")], "g", [xd], [y])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]), f"{out}/dynamic_eyelike.onnx")
    # A data-dependent size (NonZero of a run-time input) reaching an op that cannot take it
    # (EyeLike), and TopK with a run-time k (a k past the axis is status 2 when run).
    xf = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])
    yn = helper.make_tensor_value_info("y", TensorProto.INT64, None)
    g = helper.make_graph([helper.make_node("NonZero", ["x"], ["nz"], name="nonzero"),
                           helper.make_node("EyeLike", ["nz"], ["y"], name="eye_nz")], "g", [xf], [yn])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]), f"{out}/nonzero_eyelike.onnx")
    kin = helper.make_tensor_value_info("k", TensorProto.INT64, [1])
    yv = helper.make_tensor_value_info("v", TensorProto.FLOAT, None)
    yi = helper.make_tensor_value_info("i", TensorProto.INT64, None)
    g = helper.make_graph([helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk")], "g", [xf, kin], [yv, yi])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)]), f"{out}/topk_k.onnx")
    # Slice with run-time starts, ends and steps (a step of 0 is status 2 when run), and one
    # whose axes are computed at run time too (refused: the axes decide which dims vary).
    se = [helper.make_tensor_value_info(nm, TensorProto.INT64, [1]) for nm in ("starts", "ends", "steps", "axes")]
    ys = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph([helper.make_node("Slice", ["x", "starts", "ends", "ax", "steps"], ["y"], name="slice")],
                          "g", [xf] + se[:3], [ys], [numpy_helper.from_array(np.array([1], np.int64), "ax")])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/slice_rt.onnx")
    g = helper.make_graph([helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["y"], name="slice_axes")],
                          "g", [xf, se[0], se[1], se[3]], [ys])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/slice_rt_axes.onnx")
    # Pad whose pads are a graph input: nothing bounds them without --dim p=MIN..MAX (with
    # it, pads past the range that make a size past its bound are status 13 when run).
    pin = helper.make_tensor_value_info("p", TensorProto.INT64, [4])
    g = helper.make_graph([helper.make_node("Pad", ["x", "p"], ["y"], name="pad_p")], "g", [xf, pin], [ys])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/pad_rt.onnx")
    xp = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["p", 4])  # a dim named like the input
    g = helper.make_graph([helper.make_node("Pad", ["x", "p"], ["y"], name="pad_p")], "g", [xp, pin], [ys])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/pad_rt_named.onnx")
    # Resize with sizes from a graph input (bounded by --dim sz=MIN..MAX, else refused; past
    # the bound status 13, below 1 status 2 when run), and with run-time scales (refused).
    x4 = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 3, 4])
    szin = helper.make_tensor_value_info("sz", TensorProto.INT64, [4])
    scin = helper.make_tensor_value_info("sc", TensorProto.FLOAT, [4])
    g = helper.make_graph([helper.make_node("Resize", ["x", "", "", "sz"], ["y"], name="resize_sz", mode="linear")],
                          "g", [x4, szin], [ys])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/resize_rt.onnx")
    g = helper.make_graph([helper.make_node("Resize", ["x", "", "sc"], ["y"], name="resize_sc", mode="linear")],
                          "g", [x4, scin], [ys])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/resize_rt_scales.onnx")
    # Symbolic dims through the image ops: an LpPool of symbolic height (refused: it takes
    # a symbolic batch only), an unpadded 3x3 Conv of symbolic height
    # (refused when its output may be empty at the --dim minimum), a MaxPool with its
    # Indices output (refused: they count across the batch) and a Conv of a symbolic batch
    # (compiles; a batch past --dim fails to run).
    xs = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 2, "h", 5])
    xn = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 2, 4, 5])
    wc = numpy_helper.from_array(np.ones((3, 2, 3, 3), np.float32), "w")
    g = helper.make_graph([helper.make_node("LpPool", ["x"], ["y"], name="lppool_h", kernel_shape=[2, 2])],
                          "g", [xs], [ys])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/lppool_sym_h.onnx")
    g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], name="conv_h")], "g", [xs], [ys], [wc])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/conv_sym_h.onnx")
    g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], name="conv_n", pads=[1, 1, 1, 1])],
                          "g", [xn], [ys], [wc])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/conv_sym_n.onnx")
    g = helper.make_graph([helper.make_node("MaxPool", ["x"], ["y", "idx"], name="pool_idx", kernel_shape=[2, 2])],
                          "g", [xn], [ys, helper.make_tensor_value_info("idx", TensorProto.INT64, None)])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/maxpool_idx_sym_n.onnx")
    # Shape arithmetic through an opset-9 Slice (starts and ends as attributes) of a
    # symbolic shape: it compiled to a crash before (sym_infer.c read its absent inputs).
    x9 = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])
    g = helper.make_graph([helper.make_node("Shape", ["x"], ["s"]),
                           helper.make_node("Slice", ["s"], ["s1"], starts=[1], ends=[2]),
                           helper.make_node("Concat", ["m1", "s1"], ["sh"], axis=0),
                           helper.make_node("Reshape", ["x", "sh"], ["y"])], "g", [x9], [ys],
                          [numpy_helper.from_array(np.array([-1], np.int64), "m1")])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 9)]), f"{out}/slice9_shape.onnx")
    # A Loop whose body decides a size at run time: its carried [1] takes x[i : i + k]
    # (k an input), so k = 2 gives it two elements (status WGK_ERR_LOOP_SHAPE when run);
    # and a Scan whose scan rows have such a size (refused: they keep one per compile).
    i64 = lambda nm, v: numpy_helper.from_array(np.array(v, np.int64), nm)
    body = helper.make_graph([
        helper.make_node("Identity", ["ci"], ["co"]),
        helper.make_node("Unsqueeze", ["i", "ax0"], ["st"]),
        helper.make_node("Add", ["st", "k"], ["en"]),
        helper.make_node("Slice", ["x4", "st", "en"], ["s"]),
        helper.make_node("Add", ["c_in", "s"], ["c_out"])], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("ci", TensorProto.BOOL, []),
         helper.make_tensor_value_info("c_in", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("co", TensorProto.BOOL, []), helper.make_tensor_value_info("c_out", TensorProto.FLOAT, [1])],
        [i64("ax0", [0])])
    g = helper.make_graph([helper.make_node("Loop", ["m", "", "c0"], ["c"], name="loop_k", body=body)], "g",
                          [helper.make_tensor_value_info("x4", TensorProto.FLOAT, [4]), kin],
                          [helper.make_tensor_value_info("c", TensorProto.FLOAT, [1])],
                          [i64("m", 3), numpy_helper.from_array(np.zeros(1, np.float32), "c0")])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/loop_carried_size.onnx")
    sbody = helper.make_graph([
        helper.make_node("Identity", ["st_in"], ["st_out"]),
        helper.make_node("Slice", ["row", "zero", "k"], ["part"])], "sbody",
        [helper.make_tensor_value_info("st_in", TensorProto.FLOAT, [1]), helper.make_tensor_value_info("row", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("st_out", TensorProto.FLOAT, [1]), helper.make_tensor_value_info("part", TensorProto.FLOAT, None)],
        [i64("zero", [0])])
    g = helper.make_graph([helper.make_node("Scan", ["s0", "x"], ["s", "parts"], name="scan_k", body=sbody, num_scan_inputs=1)],
                          "g", [x, kin], [helper.make_tensor_value_info("s", TensorProto.FLOAT, [1]),
                                          helper.make_tensor_value_info("parts", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(np.zeros(1, np.float32), "s0")])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/scan_rows_size.onnx")
    # A Scan whose scan rows read a symbolic outer value (--dim N=..): compiles (its rows
    # are stored at their actual size; tests/models/symbolic_ops.py checks the values).
    xs = helper.make_tensor_value_info("xs", TensorProto.FLOAT, ["N"])
    sbody = helper.make_graph([helper.make_node("Identity", ["st_in"], ["st_out"]),
                               helper.make_node("Add", ["row", "xs"], ["o"])], "sbody",
                              [helper.make_tensor_value_info("st_in", TensorProto.FLOAT, [1]),
                               helper.make_tensor_value_info("row", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("st_out", TensorProto.FLOAT, [1]),
                               helper.make_tensor_value_info("o", TensorProto.FLOAT, None)])
    g = helper.make_graph([helper.make_node("Scan", ["s0", "rows"], ["s", "os"], name="scan_sym", body=sbody,
                                            num_scan_inputs=1)], "g",
                          [xs, helper.make_tensor_value_info("rows", TensorProto.FLOAT, [3, 1])],
                          [helper.make_tensor_value_info("s", TensorProto.FLOAT, [1]),
                           helper.make_tensor_value_info("os", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(np.zeros(1, np.float32), "s0")])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/scan_rows_symbolic.onnx")
    # A Reshape whose shape is computed from an int64 graph input: the message names that
    # input and the --const that would bind it.
    sin = helper.make_tensor_value_info("s", TensorProto.INT64, [2])
    g = helper.make_graph([helper.make_node("Add", ["s", "zero2"], ["s2"], name="shift"),
                           helper.make_node("Reshape", ["x", "s2"], ["y"], name="reshape_s")], "g", [x, sin],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [i64("zero2", [0, 0])])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/reshape_shape_derived.onnx")
    # Expand of x [1, s] to [1, s + p] (shape arithmetic; s is 1 or p is 0 where it
    # broadcasts: status 2 where neither), to [1, p] (nothing proves p at least s: refused,
    # naming the node), and a Slice x[:, -p:] (refused where p may be 0: that is the whole
    # axis, not p elements).
    xsym = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "s"])
    psym = helper.make_tensor_value_info("p", TensorProto.FLOAT, ["p"])
    ysym = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    shape_nodes = [helper.make_node("Shape", ["x"], ["xs"], name="xs"),
                   helper.make_node("Gather", ["xs", "one"], ["sv"], name="sv", axis=0),
                   helper.make_node("Shape", ["p"], ["pv"], name="pv"),
                   helper.make_node("Add", ["sv", "pv"], ["tot"], name="tot")]
    inits = [i64("one", 1), i64("one_v", [1]), i64("big", [2 ** 62]), i64("ax1", [1])]
    g = helper.make_graph(shape_nodes + [helper.make_node("Concat", ["one_v", "tot"], ["want"], name="want", axis=0),
                                         helper.make_node("Expand", ["x", "want"], ["y"], name="expand_sp")],
                          "g", [xsym, psym], [ysym], inits)
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/expand_s_sp.onnx")
    g = helper.make_graph(shape_nodes + [helper.make_node("Concat", ["one_v", "pv"], ["want"], name="want", axis=0),
                                         helper.make_node("Expand", ["x", "want"], ["y"], name="expand_p")],
                          "g", [xsym, psym], [ysym], inits)
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/expand_s_p.onnx")
    g = helper.make_graph(shape_nodes + [helper.make_node("Neg", ["pv"], ["start"], name="neg"),
                                         helper.make_node("Slice", ["x", "start", "big", "ax1"], ["y"],
                                                          name="slice_last_p")],
                          "g", [xsym, psym], [ysym], inits)
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/slice_last_p.onnx")
    # Unsupported attribute value: Pad's mode 'wrap' (opset 19).
    pads = numpy_helper.from_array(np.array([0, 1, 0, 1], np.int64), "pads")
    y6 = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph([helper.make_node("Pad", ["x", "pads"], ["y"], name="pad_wrap", mode="wrap")],
                          "g", [x], [y6], [pads])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)]), f"{out}/pad_wrap.onnx")
    # Initializer whose data does not match its shape.
    bad = numpy_helper.from_array(np.ones((2,), np.float32), "b")
    bad.dims[:] = [3]
    g = helper.make_graph([helper.make_node("Add", ["x", "b"], ["y"], name="add")], "g", [x], [y], [bad])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/short_initializer.onnx")
    # More outputs than the module ABI allows (1024): 1025 Identity copies of one input.
    xs = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    ys = [helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, [1]) for i in range(1025)]
    nodes = [helper.make_node("Relu", ["x"], [f"y{i}"], name=f"r{i}") for i in range(1025)]
    g = helper.make_graph(nodes, "g", [xs], ys)
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/too_many_outputs.onnx")
    # A sequence read at a position computed at run time (run with one out of range), and an
    # optional input that GetElement reads (run with an empty one).
    p = helper.make_tensor_value_info("p", TensorProto.INT64, [])
    g = helper.make_graph([helper.make_node("SequenceConstruct", ["x", "x"], ["s"], name="make"),
                           helper.make_node("SequenceAt", ["s", "p"], ["y"], name="at")], "g", [x, p], [y])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/seq_at.onnx")
    with open(f"{out}/pos_7.pb", "wb") as f:
        f.write(numpy_helper.from_array(np.array(7, np.int64), "p").SerializeToString())
    with open(f"{out}/x.pb", "wb") as f:
        f.write(numpy_helper.from_array(np.ones((1, 4), np.float32), "x").SerializeToString())
    # CumSum with its axis computed at run time (run with one out of range: WGK_ERR_INDEX).
    ax = helper.make_tensor_value_info("ax", TensorProto.INT64, [])
    g = helper.make_graph([helper.make_node("CumSum", ["x", "ax"], ["y"], name="cs")], "g", [x, ax], [y])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]), f"{out}/cumsum_axis.onnx")
    ox = helper.make_value_info("ox", helper.make_optional_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, [1, 4])))
    g = helper.make_graph([helper.make_node("OptionalGetElement", ["ox"], ["y"], name="get")], "g", [ox], [y])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]), f"{out}/opt_get.onnx")
    with open(f"{out}/opt_empty.pb", "wb") as f:
        f.write(onnx.OptionalProto(name="ox", elem_type=0).SerializeToString())


if __name__ == "__main__":
    main()
