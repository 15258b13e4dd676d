"""Writes small models of onnxruntime's contrib operators that must be refused, each with the
mistake its name says (tests/errors.sh checks the messages): make_contrib_models.py OUTDIR."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

MS = "com.microsoft"


def save(out, name, nodes, opsets=(("", 21), (MS, 1)), inits=()):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])
    outs = sorted({o for n in nodes for o in n.output if o} - {i for n in nodes for i in n.input})
    g = helper.make_graph(nodes, "g", [x], [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs],
                          list(inits))
    model = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    model.ir_version = 10
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    g = numpy_helper.from_array(np.ones(4, np.float32), "g")
    fast = helper.make_node("FastGelu", ["x"], ["y"], name="fg", domain=MS)
    # An operator of com.microsoft that wasmgraph does not implement.
    save(out, "ms_unknown_op", [helper.make_node("QOrderedMatMul", ["x"], ["y"], name="mm", domain=MS)])
    # A com.microsoft node in a model that does not import the domain, or imports opset 2.
    save(out, "ms_not_imported", [fast], opsets=(("", 21),))
    save(out, "ms_opset_2", [fast], opsets=(("", 21), (MS, 2)))
    # Input counts: SkipLayerNormalization needs input, skip and gamma; BiasGelu takes two.
    save(out, "skip_ln_two_inputs", [helper.make_node("SkipLayerNormalization", ["x", "x"], ["y"], name="sln",
                                                      domain=MS)])
    save(out, "bias_gelu_three_inputs", [helper.make_node("BiasGelu", ["x", "g", "g"], ["y"], name="bg", domain=MS)],
         inits=[g])
    # An attribute the schema does not have, and one of the wrong type.
    save(out, "fast_gelu_unknown_attr", [helper.make_node("FastGelu", ["x"], ["y"], name="fg", domain=MS, foo=1)])
    save(out, "quick_gelu_ints_alpha", [helper.make_node("QuickGelu", ["x"], ["y"], name="qg", domain=MS,
                                                         alpha=[1, 2])])
    # An attribute value we do not compute: statistics in float16.
    save(out, "sln_stash_type_10", [helper.make_node("SimplifiedLayerNormalization", ["x", "g"], ["y"], name="rms",
                                                     stash_type=10)], inits=[g])
    # SimplifiedLayerNormalization is onnxruntime's in the default domain, FastGelu in com.microsoft.
    save(out, "sln_in_ms", [helper.make_node("SimplifiedLayerNormalization", ["x", "g"], ["y"], name="rms",
                                             domain=MS)], inits=[g])
    save(out, "fast_gelu_in_default", [helper.make_node("FastGelu", ["x"], ["y"], name="fg")])
    # The mean of an RMS normalisation, and a FastGelu bias that is not one row.
    save(out, "skip_simplified_mean", [helper.make_node("SkipSimplifiedLayerNormalization", ["x", "x", "g"],
                                                        ["y", "m"], name="ssln", domain=MS)], inits=[g])
    b2 = numpy_helper.from_array(np.ones((2, 4), np.float32), "b")
    # MatMulIntegerToFloat's a_scale is one value (onnxruntime quantizes A per tensor).
    save(out, "mitf_a_scale_2", [helper.make_node("Cast", ["x"], ["xq"], to=TensorProto.UINT8),
                                 helper.make_node("MatMulIntegerToFloat", ["xq", "bq", "as", "bs"], ["y"], name="mitf",
                                                  domain=MS)],
         inits=[numpy_helper.from_array(np.ones((4, 3), np.uint8), "bq"),
                numpy_helper.from_array(np.ones(2, np.float32), "as"),
                numpy_helper.from_array(np.ones(1, np.float32), "bs")])
    save(out, "fast_gelu_bias_2d", [helper.make_node("FastGelu", ["x", "b"], ["y"], name="fg", domain=MS)],
         inits=[b2])

    nbits_models(out)


def nbits(out, name, attrs=None, b=(3, 1, 8), s=(3, 1), zp=None, gidx=None, raw_b=None):
    """A MatMulNBits of x [2, 4] (K = 4, N = 3, 4 bits, block 16 unless attrs say otherwise)
    with B, scales and zero points of the given shapes; raw_b: B's bytes as stored."""
    a = {"K": 4, "N": 3, "bits": 4, "block_size": 16}
    a.update(attrs or {})
    B = numpy_helper.from_array(np.full(b, 0x88, np.uint8), "B")
    if raw_b is not None:
        B.raw_data = raw_b
    inits = [B, numpy_helper.from_array(np.full(s, 0.5, np.float32), "s")]
    ins = ["x", "B", "s"]
    if zp is not None:
        inits.append(numpy_helper.from_array(np.full(zp, 0x88, np.uint8), "zp"))
        ins.append("zp")
    if gidx is not None:
        if zp is None:
            ins.append("")
        inits.append(numpy_helper.from_array(np.zeros(gidx, np.int32), "g"))
        ins.append("g")
    save(out, name, [helper.make_node("MatMulNBits", ins, ["y"], name="mnb", domain=MS, **a)], inits=inits)


def nbits_models(out):
    """The quantized-weight ops' refusals: tensors of the wrong size, attributes they disagree
    with, attribute values outside the schema's or ours; MatMulNBits' g_idx;
    GatherBlockQuantized's other axes; MatMulBnb4's transB 0."""
    nbits(out, "nbits_b_missized", b=(3, 1, 9))
    nbits(out, "nbits_b_truncated", raw_b=bytes(20))
    nbits(out, "nbits_scales_missized", s=(3, 2))
    nbits(out, "nbits_zp_missized", zp=(3, 2))
    nbits(out, "nbits_block_24", attrs={"block_size": 24}, b=(3, 1, 12))
    nbits(out, "nbits_block_8", attrs={"block_size": 8}, b=(3, 1, 4))
    nbits(out, "nbits_block_512", attrs={"block_size": 512}, b=(3, 1, 256))
    nbits(out, "nbits_k_vs_a", attrs={"K": 8})
    nbits(out, "nbits_n_vs_b", attrs={"N": 5})
    nbits(out, "nbits_bits_3", attrs={"bits": 3}, b=(3, 1, 6))
    nbits(out, "nbits_bits_9", attrs={"bits": 9}, b=(3, 1, 18))
    nbits(out, "nbits_gidx", gidx=(4,))
    # GatherBlockQuantized of a [6, 16] uint8 table (32 4-bit values a row, block 16: 2 scales)
    gbq_inits = [numpy_helper.from_array(np.zeros((6, 16), np.uint8), "table"),
                 numpy_helper.from_array(np.ones((6, 3), np.float32), "gs")]
    gbq = {"bits": 4, "block_size": 16, "gather_axis": 0, "quantize_axis": 1}
    save_ids(out, "gbq_scales_missized", helper.make_node("GatherBlockQuantized", ["table", "ids", "gs"], ["y"],
                                                          name="gbq", domain=MS, **gbq), gbq_inits)
    gbq_inits[1] = numpy_helper.from_array(np.ones((6, 2), np.float32), "gs")
    save_ids(out, "gbq_gather_axis_1", helper.make_node("GatherBlockQuantized", ["table", "ids", "gs"], ["y"],
                                                        name="gbq", domain=MS, **dict(gbq, gather_axis=1)), gbq_inits)
    save_ids(out, "gbq_bits_2", helper.make_node("GatherBlockQuantized", ["table", "ids", "gs"], ["y"], name="gbq",
                                                 domain=MS, **dict(gbq, bits=2)), gbq_inits)
    # MatMulBnb4 of x [2, 4], N = 3 (12 codes: 6 bytes; block 16: one absmax)
    bnb = {"K": 4, "N": 3, "block_size": 16, "quant_type": 1}
    bnb_inits = lambda nb, na: [numpy_helper.from_array(np.zeros(nb, np.uint8), "bq"),
                                numpy_helper.from_array(np.ones(na, np.float32), "am")]
    node = lambda **a: helper.make_node("MatMulBnb4", ["x", "bq", "am"], ["y"], name="bnb", domain=MS, **dict(bnb, **a))
    save(out, "bnb4_b_missized", [node()], inits=bnb_inits(7, 1))
    save(out, "bnb4_absmax_missized", [node()], inits=bnb_inits(6, 2))
    save(out, "bnb4_quant_type_2", [node(quant_type=2)], inits=bnb_inits(6, 1))
    save(out, "bnb4_block_24", [node(block_size=24)], inits=bnb_inits(6, 1))
    save(out, "bnb4_transb_0", [node(transB=0)], inits=bnb_inits(6, 1))


def save_ids(out, name, node, inits):
    """A model of one node gathering with int64 ids [2, 3]."""
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [2, 3])
    g = helper.make_graph([node], "g", [ids], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          list(inits))
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)])
    model.ir_version = 10
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
