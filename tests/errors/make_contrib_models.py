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


if __name__ == "__main__":
    main()
