"""make_cases.py OUTDIR: writes the malformed-input corpus (tests/malformed/cases.tsv names
every file and what the CLI must answer). Run with the project venv python (onnx, numpy)
and wat2wasm (Debian's wabt) on PATH. Every file is small and fully determined by this
script, so the corpus is rebuilt on each run and nothing binary is committed.

ONNX cases are built with onnx.helper where the mistake survives it, otherwise by hand at
the protobuf wire level (w_* helpers). Wasm cases start from a hand-written module that
follows the ABI (BASE_WAT) plus a `wasmgraph` metadata section, and break one thing each.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from wasm_bytes import custom, leb, section  # noqa: E402

OUT = None


def put(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


# --- protobuf wire helpers -------------------------------------------------------------
def w_varint(n):
    return leb(n & ((1 << 64) - 1))  # negative int64 values are 10-byte varints


def w_key(field, wire):
    return w_varint(field << 3 | wire)


def w_int(field, n):
    return w_key(field, 0) + w_varint(n)


def w_bytes(field, data):
    if isinstance(data, str):
        data = data.encode()
    return w_key(field, 2) + w_varint(len(data)) + data


def opset(version=13, domain=""):
    return w_bytes(8, w_bytes(1, domain) + w_int(2, version))


def w_model(graph, ir=7, opsets=None):
    """A ModelProto around serialized GraphProto bytes."""
    ops = opset() if opsets is None else opsets
    return w_int(1, ir) + ops + w_bytes(7, graph)


def vi(name, dims, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, dims)


X = vi("x", [1, 4])
Y = vi("y", [1, 4])


def model(nodes, inputs=None, outputs=None, inits=None, opsets=None, ir=7):
    g = helper.make_graph(nodes, "g", [X] if inputs is None else inputs,
                          [Y] if outputs is None else outputs, inits or [])
    m = helper.make_model(g, opset_imports=opsets or [helper.make_opsetid("", 13)])
    m.ir_version = ir
    return m.SerializeToString()


def tiny():
    """y = relu(x + w), the base that truncation and wire mutations start from."""
    w = numpy_helper.from_array(np.arange(4, dtype=np.float32).reshape(1, 4), "w")
    return model([helper.make_node("Add", ["x", "w"], ["s"], name="add"),
                  helper.make_node("Relu", ["s"], ["y"], name="relu")], inits=[w])


def graph_bytes(nodes=b"", inits=b"", inputs=None, outputs=None):
    """A GraphProto by hand: x [1,4] in, y out, plus the given raw node/initializer bytes."""
    xin = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4]).SerializeToString()
    yout = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4]).SerializeToString()
    return (nodes + w_bytes(2, "g") + inits + w_bytes(11, xin if inputs is None else inputs) +
            w_bytes(12, yout if outputs is None else outputs))


def w_node(op, ins, outs, name="n", extra=b""):
    b = b"".join(w_bytes(1, i) for i in ins) + b"".join(w_bytes(2, o) for o in outs)
    return w_bytes(1, b + w_bytes(3, name) + w_bytes(4, op) + extra)


def w_tensor(name, dims, dtype=1, raw=None, extra=b""):
    b = b"".join(w_int(1, d) for d in dims) + w_int(2, dtype) + w_bytes(8, name)
    if raw is not None:
        b += w_bytes(9, raw)
    return b + extra


def add_w(tensor_bytes):
    """A model computing y = x + w with the given serialized initializer `w`."""
    return w_model(graph_bytes(nodes=w_node("Add", ["x", "w"], ["y"], "add"),
                               inits=w_bytes(5, tensor_bytes)))


def int64_count_lie():
    t = helper.make_tensor("shape", TensorProto.INT64, [2], [1, 4])
    t.dims[:] = [3]  # onnx.helper checks the count; the mistake goes in afterwards
    return t


# --- ONNX cases --------------------------------------------------------------------------
def onnx_cases():
    base = tiny()
    put("tiny.onnx", base)  # the control: must compile
    # Truncated at many offsets: inside a key, a length, a string, the float data.
    for off in (1, 2, 3, 8, 20, 40, 60, 80, 100, len(base) - 1):
        put(f"trunc_{off:03d}.onnx", base[:off])

    # Wrong wire types.
    put("wire_graph_varint.onnx", w_int(1, 7) + opset() + w_int(7, 5))
    put("wire_irversion_bytes.onnx", w_bytes(1, "seven") + opset() + w_bytes(7, graph_bytes()))
    put("wire_optype_varint.onnx",
        w_model(graph_bytes(nodes=w_bytes(1, w_bytes(1, "x") + w_bytes(2, "y") + w_int(4, 3)))))
    put("wire_dims_fixed64.onnx",
        add_w(w_key(1, 1) + (4).to_bytes(8, "little") + w_int(2, 1) + w_bytes(8, "w") +
              w_bytes(9, bytes(16))))
    put("wire_type_7.onnx", w_int(1, 7) + bytes([0x0F]) + b"\x00" * 8)  # wire type 7 does not exist
    put("wire_group.onnx", w_int(1, 7) + w_key(5, 3) + w_key(5, 4) + w_bytes(7, graph_bytes()))

    # Varints that overflow or lie.
    put("varint_11_bytes.onnx", w_key(1, 0) + b"\xff" * 10 + b"\x01" + opset())
    put("varint_10th_byte_big.onnx", w_key(1, 0) + b"\xff" * 9 + b"\x7f" + opset())
    put("length_past_end.onnx", w_int(1, 7) + w_key(7, 2) + w_varint(1000) + b"\x0a\x00")
    put("length_2_pow_63.onnx", w_int(1, 7) + w_key(7, 2) + w_varint(1 << 63) + b"\x0a\x00")
    put("length_2_pow_64_minus_1.onnx", w_int(1, 7) + w_key(7, 2) + w_varint((1 << 64) - 1) + b"\x00")
    put("field_number_zero.onnx", w_key(0, 0) + b"\x01" + w_bytes(7, graph_bytes()))

    # Dimensions: negative, and products that overflow 32 and 64 bits.
    put("init_dim_negative.onnx", add_w(w_tensor("w", [-1, 4], raw=bytes(16))))
    put("init_dims_overflow32.onnx", add_w(w_tensor("w", [65536, 65536], raw=bytes(16))))
    put("init_dims_overflow64.onnx", add_w(w_tensor("w", [1 << 32, 1 << 32, 1 << 32], raw=bytes(16))))
    put("init_dims_int64_max.onnx", add_w(w_tensor("w", [(1 << 63) - 1, 2], raw=bytes(16))))
    put("init_rank_9.onnx", add_w(w_tensor("w", [1] * 9, raw=bytes(4))))
    put("input_dims_overflow64.onnx",
        model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
              inputs=[vi("x", [1 << 31, 1 << 31, 1 << 31])], outputs=[vi("y", None)]))
    put("input_dims_over_4gib.onnx",
        model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
              inputs=[vi("x", [1 << 20, 1 << 11])], outputs=[vi("y", None)]))
    put("input_dim_negative.onnx",
        model([helper.make_node("Relu", ["x"], ["y"], name="relu")], inputs=[vi("x", [1, -4])]))
    put("reshape_to_huge.onnx",
        model([helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
              outputs=[vi("y", None)],
              inits=[numpy_helper.from_array(np.array([1 << 40, 1 << 30], np.int64), "shape")]))
    put("constant_of_shape_huge.onnx",
        model([helper.make_node("ConstantOfShape", ["shape"], ["c"], name="cos"),
               helper.make_node("Add", ["x", "c"], ["y"], name="add")], outputs=[vi("y", None)],
              inits=[numpy_helper.from_array(np.array([1 << 20, 1 << 20], np.int64), "shape")]))

    # Initializers whose byte size does not match their shape.
    put("init_raw_short.onnx", add_w(w_tensor("w", [1, 4], raw=bytes(12))))
    put("init_raw_long.onnx", add_w(w_tensor("w", [1, 4], raw=bytes(20))))
    put("init_raw_odd.onnx", add_w(w_tensor("w", [1, 4], raw=bytes(15))))
    put("init_float_data_short.onnx",
        add_w(w_tensor("w", [1, 4], extra=w_bytes(4, np.ones(3, np.float32).tobytes()))))
    put("init_no_data.onnx", add_w(w_tensor("w", [1, 4])))
    put("init_int64_count.onnx",
        model([helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
              inits=[int64_count_lie()]))
    put("init_no_dtype.onnx", add_w(b"".join(w_int(1, d) for d in (1, 4)) + w_bytes(8, "w") +
                                    w_bytes(9, bytes(16))))
    put("init_dtype_999.onnx", add_w(w_tensor("w", [1, 4], dtype=999, raw=bytes(16))))

    # Graph structure.
    put("cycle.onnx", model([helper.make_node("Relu", ["b"], ["a"], name="first"),
                             helper.make_node("Relu", ["a"], ["b"], name="second"),
                             helper.make_node("Add", ["x", "b"], ["y"], name="add")]))
    put("self_loop.onnx", model([helper.make_node("Add", ["x", "y"], ["y"], name="loop")]))
    put("unproduced_input.onnx", model([helper.make_node("Add", ["x", "ghost"], ["y"], name="add")]))
    put("unproduced_output.onnx", model([helper.make_node("Relu", ["x"], ["s"], name="relu")]))
    put("dup_producer.onnx", model([helper.make_node("Relu", ["x"], ["y"], name="r1"),
                                    helper.make_node("Sigmoid", ["x"], ["y"], name="r2")]))
    put("dup_initializer.onnx",
        model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
              inits=[numpy_helper.from_array(np.ones((1, 4), np.float32), "w"),
                     numpy_helper.from_array(np.zeros((1, 4), np.float32), "w")]))
    put("dup_graph_input.onnx", model([helper.make_node("Add", ["x", "x"], ["y"], name="add")],
                                      inputs=[X, vi("x", [1, 4])]))
    put("output_is_initializer_overwritten.onnx",
        model([helper.make_node("Relu", ["x"], ["w"], name="relu"),
               helper.make_node("Relu", ["w"], ["y"], name="relu2")],
              inits=[numpy_helper.from_array(np.ones((1, 4), np.float32), "w")]))
    put("no_graph.onnx", w_int(1, 7) + opset())
    put("node_no_outputs.onnx", model([helper.make_node("Relu", ["x"], [], name="relu"),
                                       helper.make_node("Relu", ["x"], ["y"], name="relu2")]))
    # Required inputs missing (ops/arity.c): too few, or an empty name in a required place.
    put("node_required_input_cut.onnx", model([helper.make_node("Expand", ["x"], ["y"], name="expand")]))
    put("node_required_input_empty.onnx",
        model([helper.make_node("Where", ["x", "", "x"], ["y"], name="where")]))

    # Domains and opsets.
    relu = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    put("unknown_domain.onnx", model([helper.make_node("Relu", ["x"], ["y"], name="r", domain="com.nowhere")],
                                     opsets=[helper.make_opsetid("", 13), helper.make_opsetid("com.nowhere", 1)]))
    put("domain_not_imported.onnx", model([helper.make_node("Relu", ["x"], ["y"], name="r", domain="ai.onnx.ml")]))
    put("opset_999.onnx", model(relu, opsets=[helper.make_opsetid("", 999)]))
    put("opset_0.onnx", model(relu, opsets=[helper.make_opsetid("", 0)]))
    put("opset_missing.onnx", w_int(1, 7) + w_bytes(7, graph_bytes(nodes=w_node("Relu", ["x"], ["y"]))))
    put("unknown_op.onnx", model([helper.make_node("NoSuchOp", ["x"], ["y"], name="mystery")]))

    # Attributes of the wrong type.
    x4 = vi("x", [1, 1, 4, 4])
    cw = numpy_helper.from_array(np.ones((1, 1, 1, 1), np.float32), "cw")

    def conv(**attrs):
        return model([helper.make_node("Conv", ["x", "cw"], ["y"], name="conv", **attrs)],
                     inputs=[x4], outputs=[vi("y", None)], inits=[cw])

    put("conv_strides_float.onnx", conv(strides=2.0))
    put("conv_strides_string.onnx", conv(strides="2,2"))
    put("conv_strides_zero.onnx", conv(strides=[0, 0]))
    put("conv_pads_negative.onnx", conv(pads=[-5, -5, -5, -5]))
    put("conv_kernel_shape_lies.onnx", conv(kernel_shape=[3, 3]))
    put("conv_dilations_huge.onnx", conv(dilations=[1 << 40, 1 << 40]))
    put("gemm_alpha_ints.onnx",
        model([helper.make_node("Gemm", ["x", "gw"], ["y"], name="gemm", alpha=[1, 2])],
              outputs=[vi("y", None)], inits=[numpy_helper.from_array(np.ones((4, 4), np.float32), "gw")]))
    attr_lie = w_bytes(1, "alpha") + w_int(20, 7) + w_key(2, 5) + np.float32(1).tobytes()
    put("attr_type_lies.onnx", w_model(graph_bytes(
        nodes=w_node("Gemm", ["x", "gw"], ["y"], "gemm", extra=w_bytes(5, attr_lie)),
        inits=w_bytes(5, w_tensor("gw", [4, 4], raw=bytes(64))))))
    put("softmax_axis_out_of_range.onnx",
        model([helper.make_node("Softmax", ["x"], ["y"], name="softmax", axis=7)]))
    put("transpose_perm_bad.onnx",
        model([helper.make_node("Transpose", ["x"], ["y"], name="t", perm=[0, 0])], outputs=[vi("y", None)]))

    # Control flow (If, Loop, Scan): a missing body, bodies whose inputs or outputs do not
    # match their node, a body reading another body's value, a trip count too large to size
    # the scan outputs, a graph attribute where no op takes one.
    b = helper.make_tensor_value_info("b", TensorProto.BOOL, [])
    one = helper.make_node("Identity", ["x"], ["t"], name="then_id")

    def branch(name, outs, nodes=None):
        return helper.make_graph(nodes if nodes is not None else [one], name, [], outs)

    t_out = [vi("t", [1, 4])]
    put("cf_if_ok.onnx", model([helper.make_node("If", ["b"], ["y"], name="if", then_branch=branch("then", t_out),
                                                 else_branch=branch("else", [vi("x", [1, 4])], []))],
                               inputs=[X, b]))  # the control: must compile
    # a branch output whose ValueInfo has an empty TypeProto (Silero VAD's inlined branches
    # have them): a tensor to infer, the control must compile
    untyped = onnx.ValueInfoProto(name="t")
    untyped.type.SetInParent()
    put("cf_if_untyped_output.onnx", model([helper.make_node("If", ["b"], ["y"], name="if",
                                                             then_branch=branch("then", [untyped]),
                                                             else_branch=branch("else", [vi("x", [1, 4])], []))],
                                           inputs=[X, b]))
    put("cf_if_no_else.onnx", model([helper.make_node("If", ["b"], ["y"], name="if",
                                                      then_branch=branch("then", t_out))], inputs=[X, b]))
    put("cf_if_branch_outputs.onnx",
        model([helper.make_node("If", ["b"], ["y"], name="if", then_branch=branch("then", t_out + [vi("x", [1, 4])]),
                                else_branch=branch("else", [vi("x", [1, 4])], []))], inputs=[X, b]))
    # branches of different ranks are refused; of different sizes ([1, 8] or [1, 4]) they
    # compile, the output's size decided by the branch taken (a run-time dim)
    put("cf_if_shapes_differ.onnx",
        model([helper.make_node("If", ["b"], ["y"], name="if",
                                then_branch=branch("then", [vi("t", None)], [helper.make_node(
                                    "ReduceSum", ["x"], ["t"], name="sum", keepdims=0)]),
                                else_branch=branch("else", [vi("x", [1, 4])], []))], inputs=[X, b],
              outputs=[vi("y", None)]))
    put("cf_if_sizes_differ.onnx",
        model([helper.make_node("If", ["b"], ["y"], name="if",
                                then_branch=branch("then", [vi("t", None)], [helper.make_node(
                                    "Concat", ["x", "x"], ["t"], name="cat", axis=1)]),
                                else_branch=branch("else", [vi("x", [1, 4])], []))], inputs=[X, b],
              outputs=[vi("y", None)]))
    m = helper.make_tensor_value_info("m", TensorProto.INT64, [])
    body_in = [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("c", TensorProto.BOOL, []),
               vi("v", [1, 4])]
    body = helper.make_graph([helper.make_node("Identity", ["c"], ["c2"], name="c_id"),
                              helper.make_node("Relu", ["v"], ["v2"], name="relu")], "body", body_in,
                             [helper.make_tensor_value_info("c2", TensorProto.BOOL, []), vi("v2", [1, 4]), vi("v2", [1, 4])])
    put("cf_loop_no_body.onnx", model([helper.make_node("Loop", ["m", "", "x"], ["y"], name="loop")],
                                      inputs=[X, m]))
    put("cf_loop_body_arity.onnx", model([helper.make_node("Loop", ["m", "", "x", "x"], ["y", "y2"], name="loop",
                                                           body=body)], inputs=[X, m]))
    big = numpy_helper.from_array(np.array(1 << 40, np.int64), "m")
    put("cf_loop_trip_count_huge.onnx", model([helper.make_node("Loop", ["m", "", "x"], ["y", "scan"], name="loop",
                                                                body=body)],
                                              inputs=[X], outputs=[Y, vi("scan", None)], inits=[big]))
    sbody = helper.make_graph([helper.make_node("Add", ["s", "e"], ["s2"], name="add")], "sbody",
                              [vi("s", [4]), vi("e", [4])], [vi("s2", [4])])
    x3 = vi("x", [1, 3, 4])
    put("cf_scan_body_arity.onnx", model([helper.make_node("Scan", ["x"], ["y"], name="scan", body=sbody,
                                                           num_scan_inputs=1)], inputs=[x3], outputs=[vi("y", None)]))
    inner = helper.make_graph([helper.make_node("Relu", ["x"], ["secret"], name="inner_relu")], "then", [],
                              [vi("secret", [1, 4])])
    put("cf_reads_body_value.onnx",
        model([helper.make_node("If", ["b"], ["t2"], name="if", then_branch=inner,
                                else_branch=branch("else", [vi("x", [1, 4])], [])),
               helper.make_node("Add", ["t2", "secret"], ["y"], name="add")], inputs=[X, b]))
    put("cf_graph_attr_elsewhere.onnx",
        model([helper.make_node("Relu", ["x"], ["y"], name="relu", body=branch("g", t_out))]))

    # Sequences and optionals across bodies: an If whose branches give sequences of different
    # lengths under a run-time condition, Loops carrying a sequence (they run unrolled) whose
    # trip count or body condition is computed at run time or that would run too long, and a
    # SequenceMap body whose inputs do not match its node; the unrolled Loop's control.
    seq_y = helper.make_tensor_sequence_value_info("y", TensorProto.FLOAT, None)
    s1 = helper.make_tensor_sequence_value_info("s1", TensorProto.FLOAT, None)
    s2 = helper.make_tensor_sequence_value_info("s2", TensorProto.FLOAT, None)
    one_seq = [helper.make_node("SequenceConstruct", ["x"], ["s1"], name="one")]
    two_seq = [helper.make_node("SequenceConstruct", ["x", "x"], ["s2"], name="two")]
    put("cf_if_seq_lengths_differ.onnx",
        model([helper.make_node("If", ["b"], ["y"], name="if", then_branch=branch("then", [s1], one_seq),
                                else_branch=branch("else", [s2], two_seq))],
              inputs=[X, b], outputs=[seq_y], opsets=[helper.make_opsetid("", 16)]))
    c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])

    def seq_loop(trip, cond_out_from, extra_nodes=()):
        body = helper.make_graph([helper.make_node("Identity", [cond_out_from], ["c2"], name="c_id"),
                                  helper.make_node("SequenceInsert", ["sv", "x"], ["sv2"], name="insert")],
                                 "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                                          helper.make_tensor_value_info("ci", TensorProto.BOOL, []),
                                          helper.make_tensor_sequence_value_info("sv", TensorProto.FLOAT, None)],
                                 [helper.make_tensor_value_info("c2", TensorProto.BOOL, []),
                                  helper.make_tensor_sequence_value_info("sv2", TensorProto.FLOAT, None)])
        return [helper.make_node("SequenceEmpty", [], ["s0"], name="empty"), *extra_nodes,
                helper.make_node("Loop", [trip, "", "s0"], ["y"], name="loop", body=body)]
    five = numpy_helper.from_array(np.array(5, np.int64), "five")
    put("cf_seq_loop_ok.onnx", model(seq_loop("five", "ci"), inputs=[X], outputs=[seq_y], inits=[five],
                                     opsets=[helper.make_opsetid("", 16)]))  # the control: must compile
    put("cf_seq_loop_trip_runtime.onnx", model(seq_loop("m", "ci"), inputs=[X, m], outputs=[seq_y],
                                               opsets=[helper.make_opsetid("", 16)]))
    put("cf_seq_loop_cond_runtime.onnx", model(seq_loop("five", "c"), inputs=[X, c], outputs=[seq_y], inits=[five],
                                               opsets=[helper.make_opsetid("", 16)]))
    many = numpy_helper.from_array(np.array(5000, np.int64), "many")
    put("cf_seq_loop_too_long.onnx", model(seq_loop("many", "ci"), inputs=[X], outputs=[seq_y], inits=[many],
                                           opsets=[helper.make_opsetid("", 16)]))
    mbody = helper.make_graph([helper.make_node("Add", ["e", "f"], ["g"], name="add")], "mbody",
                              [vi("e", [1, 4]), vi("f", [1, 4])], [vi("g", [1, 4])])
    put("cf_seqmap_body_arity.onnx",
        model([helper.make_node("SequenceConstruct", ["x"], ["s"], name="make"),
               helper.make_node("SequenceMap", ["s"], ["y"], name="map", body=mbody)],
              outputs=[seq_y], opsets=[helper.make_opsetid("", 17)]))

    # External data: absolute paths, '..', offsets and lengths past the end, a missing file.
    put("weights.bin", np.arange(4, dtype=np.float32).tobytes())

    def ext(name, location, offset=None, length=None):
        entries = [("location", location)]
        if offset is not None:
            entries.append(("offset", str(offset)))
        if length is not None:
            entries.append(("length", str(length)))
        extra = b"".join(w_bytes(13, w_bytes(1, k) + w_bytes(2, v)) for k, v in entries)
        put(name, add_w(w_tensor("w", [1, 4], extra=extra + w_int(14, 1))))

    ext("ext_ok.onnx", "weights.bin")  # the control: must compile
    ext("ext_absolute.onnx", "/etc/passwd")
    ext("ext_dotdot.onnx", "../weights.bin")
    ext("ext_dotdot_inner.onnx", "sub/../../weights.bin")
    ext("ext_backslash_dotdot.onnx", "..\\weights.bin")
    ext("ext_offset_past_end.onnx", "weights.bin", offset=1000)
    ext("ext_length_past_end.onnx", "weights.bin", offset=8, length=16)
    ext("ext_offset_huge.onnx", "weights.bin", offset=(1 << 64) - 1)
    ext("ext_offset_negative.onnx", "weights.bin", offset=-16)
    ext("ext_missing_file.onnx", "no_such_weights.bin")
    ext("ext_empty_location.onnx", "")
    ext("ext_short_for_shape.onnx", "weights.bin", offset=4)


# --- wasm cases --------------------------------------------------------------------------
BASE_WAT = """(module
  %(imports)s
  (memory (export "memory") %(pages)d)
  (func (export "wg_abi_version") (result i32) i32.const %(abi)d)
  (func (export "wg_input_ptr") (param i32) (result i32) i32.const %(in_ptr)d)
  (func (export "wg_output_ptr") (param i32) (result i32) i32.const 2048)
  (func (export "%(run)s") (result i32) %(body)s)%(extra)s)
"""


def tensor(name, shape, nbytes=None, dtype="float32"):
    n = 4
    for d in shape:
        n *= d
    return {"name": name, "dtype": dtype, "shape": shape, "bytes": n if nbytes is None else nbytes}


def meta(**over):
    m = {"abi": 1, "name": "tiny", "producer": "tests/malformed", "opset": 13,
         "inputs": [tensor("x", [1, 4])], "outputs": [tensor("y", [1, 4])],
         "options": {"simd": False, "relaxed_simd": False, "opt_level": 2},
         "arena_bytes": 0, "weight_bytes": 0, "memory_bytes": 65536, "compiler": "wasmgraph 0.1.0"}
    m.update(over)
    return json.dumps(m, separators=(",", ":")).encode()


def wat(tmp, **over):
    p = {"imports": "", "pages": 1, "abi": 1, "in_ptr": 1024, "run": "wg_run", "body": "i32.const 0", "extra": ""}
    p.update(over)
    src = os.path.join(tmp, "m.wat")
    dst = os.path.join(tmp, "m.wasm")
    with open(src, "w") as f:
        f.write(BASE_WAT % p)
    subprocess.run(["wat2wasm", "--enable-all", src, "-o", dst], check=True)
    with open(dst, "rb") as f:
        return f.read()


def npy(name, arr):
    with open(os.path.join(OUT, name), "wb") as f:
        np.save(f, arr)


def dims_cases(tmp):
    """Module ABI 2 (symbolic dims): symbol n in 1..4, inputs x and z of [n, 4] float32;
    run.sh's `rundims` passes FILE's .x.npy and .z.npy, `run` the 16-byte .bin."""
    v2 = wat(tmp, abi=2, extra='\n  (func (export "wg_dims_ptr") (result i32) i32.const 4096)')
    sym = {"dtype": "float32", "shape": [{"sym": "n"}, 4], "bytes": 64}
    two = meta(abi=2, symbols=[{"name": "n", "min": 1, "max": 4}], inputs=[{"name": "x", **sym}, {"name": "z", **sym}],
               outputs=[{"name": "y", **sym}])
    one = meta(abi=2, symbols=[{"name": "n", "min": 1, "max": 4}], inputs=[{"name": "x", **sym}],
               outputs=[{"name": "y", **sym}])
    for name, x, z in (("dims_ok", (2, 4), (2, 4)), ("dims_out_of_range", (5, 4), (5, 4)),
                       ("dims_disagree", (2, 4), (3, 4)), ("dims_fixed_differs", (2, 3), (2, 3))):
        put(name + ".wasm", v2 + custom("wasmgraph", two))
        npy(name + ".x.npy", np.zeros(x, np.float32))
        npy(name + ".z.npy", np.zeros(z, np.float32))
    put("dims_bin_input.wasm", v2 + custom("wasmgraph", one))


def wasm_cases():
    with tempfile.TemporaryDirectory() as tmp:
        code = wat(tmp)
        good = code + custom("wasmgraph", meta())
        put("good.wasm", good)  # the control: runs
        put("input16.bin", bytes(16))
        for off in (0, 4, 8, 9, 20, len(code) // 2, len(code) - 1, len(good) - 5):
            put(f"wasm_trunc_{off:03d}.wasm", good[:off])
        put("wasm_bad_magic.wasm", b"\0asn" + good[4:])
        put("wasm_version_2.wasm", good[:4] + b"\x02\0\0\0" + good[8:])
        put("wasm_text.wasm", b"(module)\n")
        put("wasm_import_func.wasm", wat(tmp, imports='(import "env" "log" (func (param i32)))') +
            custom("wasmgraph", meta()))
        put("wasm_import_memory.wasm",
            wat(tmp, imports='(import "env" "table" (table 1 funcref))') + custom("wasmgraph", meta()))
        put("wasm_no_run.wasm", wat(tmp, run="wg_go") + custom("wasmgraph", meta()))
        put("wasm_no_section.wasm", code)
        put("wasm_two_sections.wasm", good + custom("wasmgraph", meta(name="other")))
        put("wasm_abi3.wasm", code + custom("wasmgraph", meta(abi=3)))
        dims_cases(tmp)
        put("wasm_abi_export_2.wasm", wat(tmp, abi=2) + custom("wasmgraph", meta()))
        put("wasm_meta_not_json.wasm", code + custom("wasmgraph", b'{"abi":1,"inputs":['))
        put("wasm_meta_empty.wasm", code + custom("wasmgraph", b""))
        put("wasm_meta_bytes_lie.wasm", code + custom("wasmgraph", meta(inputs=[tensor("x", [1, 4], 12)])))
        put("wasm_meta_bytes_huge.wasm",
            code + custom("wasmgraph", meta(inputs=[tensor("x", [1, 4], 1 << 62)])))
        put("wasm_meta_shape_negative.wasm",
            code + custom("wasmgraph", meta(inputs=[tensor("x", [-1, 4], 16)])))
        put("wasm_meta_shape_overflow.wasm",
            code + custom("wasmgraph", meta(inputs=[tensor("x", [1 << 31, 1 << 31, 1 << 31], 16)])))
        put("wasm_meta_rank_9.wasm", code + custom("wasmgraph", meta(inputs=[tensor("x", [1] * 9)])))
        put("wasm_meta_dtype_unknown.wasm",
            code + custom("wasmgraph", meta(inputs=[tensor("x", [1, 4], 16, "float128")])))
        put("wasm_meta_no_inputs_key.wasm",
            code + custom("wasmgraph", json.dumps({"abi": 1, "outputs": []}).encode()))
        # Memory too small: a 1 MiB input in a 64 KiB memory, and a pointer near the end.
        put("wasm_memory_too_small.wasm",
            code + custom("wasmgraph", meta(inputs=[tensor("x", [1, 262144])])))
        put("wasm_input_ptr_past_end.wasm",
            wat(tmp, in_ptr=65530) + custom("wasmgraph", meta()))
        put("wasm_memory_over_cap.wasm", wat(tmp, pages=65536) + custom("wasmgraph", meta()))
        put("wasm_run_traps.wasm", wat(tmp, body="unreachable") + custom("wasmgraph", meta()))
        put("wasm_run_status_7.wasm", wat(tmp, body="i32.const 7") + custom("wasmgraph", meta()))
        put("wasm_run_loops.wasm", wat(tmp, body="(loop $l (br $l)) i32.const 0") +
            custom("wasmgraph", meta()))
        # A section whose size runs past the end of the file.
        put("wasm_section_past_end.wasm", good + bytes([1]) + leb(1000) + b"\x01")
        put("wasm_dup_type_section.wasm", code[:8] + section(1, b"\x01\x60\x00\x00") +
            section(1, b"\x01\x60\x00\x00") + code[8:] + custom("wasmgraph", meta()))


def sequence_cases():
    """Malformed sequence and optional models (src/ops/sequence.c, optional.c, src/ir/values.c)."""
    seq_t = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    sx = helper.make_value_info("sx", seq_t)
    two = [helper.make_node("SequenceConstruct", ["x", "x"], ["s"], name="make")]
    const = lambda name, v: helper.make_node("Constant", [], [name], name=name,
                                             value=numpy_helper.from_array(np.array(v, np.int64), name))
    put("seq_input_no_shape.onnx", model([helper.make_node("SequenceAt", ["sx", "p0"], ["y"], name="at"), const("p0", 0)][::-1],
                                         inputs=[sx]))
    put("seq_of_seq_input.onnx", model([helper.make_node("Identity", ["ss"], ["y"], name="id")],
                                       inputs=[helper.make_value_info("ss", helper.make_sequence_type_proto(seq_t))]))
    put("seq_map_input.onnx", model([helper.make_node("Identity", ["mp"], ["y"], name="id")],
                                    inputs=[helper.make_value_info("mp", helper.make_map_type_proto(
                                        TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, [1])))]))
    put("seq_at_out_of_range.onnx", model(two + [const("p5", 5), helper.make_node("SequenceAt", ["s", "p5"], ["y"], name="at")]))
    put("seq_erase_empty.onnx", model([helper.make_node("SequenceEmpty", [], ["s"], name="empty"),
                                       helper.make_node("SequenceErase", ["s"], ["s2"], name="erase"),
                                       helper.make_node("ConcatFromSequence", ["s2"], ["y"], name="cat", axis=0)]))
    put("seq_insert_dtype.onnx", model(two + [const("i", [1, 2, 3, 4]),
                                              helper.make_node("SequenceInsert", ["s", "i"], ["s2"], name="ins"),
                                              helper.make_node("ConcatFromSequence", ["s2"], ["y"], name="cat", axis=0)]))
    put("seq_split_bad_sum.onnx", model([const("sp", [1, 1]),
                                         helper.make_node("SplitToSequence", ["x", "sp"], ["s"], name="split", axis=1),
                                         helper.make_node("ConcatFromSequence", ["s"], ["y"], name="cat", axis=1)]))
    put("seq_at_not_sequence.onnx", model([const("p0", 0), helper.make_node("SequenceAt", ["x", "p0"], ["y"], name="at")]))
    put("optional_get_empty.onnx", model([helper.make_node("Optional", [], ["o"], name="none",
                                                           type=helper.make_tensor_type_proto(TensorProto.FLOAT, [1, 4])),
                                          helper.make_node("OptionalGetElement", ["o"], ["y"], name="get")],
                                         opsets=[helper.make_opsetid("", 18)]))


def tfidf_cases():
    """TfIdfVectorizer pools the op refuses: a repeated n-gram, string tokens."""
    tok = [helper.make_tensor_value_info("x", TensorProto.INT64, [6])]
    out = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])]
    for name, pool in (("tfidf_pool_repeats_ngram.onnx", {"pool_int64s": [1, 2, 3, 4, 1, 2]}),
                       ("tfidf_pool_strings.onnx", {"pool_strings": ["a", "b", "c", "d", "a", "c"]})):
        put(name, model([helper.make_node("TfIdfVectorizer", ["x"], ["y"], name="tfidf", mode="TF",
                                          min_gram_length=2, max_gram_length=2, max_skip_count=0,
                                          ngram_counts=[0, 0], ngram_indexes=[0, 1, 2], **pool)],
                        inputs=tok, outputs=out, opsets=[helper.make_opsetid("", 17)]))


def main():
    global OUT
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    OUT = sys.argv[1]
    os.makedirs(OUT, exist_ok=True)
    onnx_cases()
    sequence_cases()
    tfidf_cases()
    wasm_cases()


if __name__ == "__main__":
    main()
