"""Writes the models of the symbolic-dims tests of ops decoder files use (tests/models.sh,
section 18): the int8 graph transformers.js' q8 files are made of (onnxruntime's dynamic
quantization) and a causal mask's Trilu, with symbolic batch and sequence dims, as small
seeded graphs. Needs only onnx and numpy; models.sh gets
the reference outputs from onnxruntime-node (tools/ort_run.js). Same layout as
contrib_ops.py:

    python decoder_ops.py OUTDIR

The case folders: case_files.py.
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from case_files import write_cases

H, N, V = 32, 48, 50
DIMS = "--dim batch=1..4 --dim seq=1..16"
SIZES = [(1, 1), (2, 7), (4, 16)]  # (batch, seq): the smallest, an odd one, the maxima
# Integer arithmetic is exact on both sides; the float steps around it (x / scale rounded,
# the product's scale) are the same float32 operations in the same order, so results agree
# to a float32 rounding of the output (DynamicQuantizeLinear's scale is computed once).
TOL = "1e-5 1e-6"


def vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def t(name, array):
    return numpy_helper.from_array(array, name)


def case_q8_layer(rng):
    """An int8 embedding gathered and dequantized (DequantizeLinear of a Gather, as
    transformers.js' q8 files store word embeddings), added to x, then a dynamically
    quantized MatMul: DynamicQuantizeLinear -> MatMulInteger on a constant int8 B with its
    zero point -> Cast -> Mul by the two scales; and a QuantizeLinear / DequantizeLinear
    pair (uint8, per tensor) on the result."""
    emb = rng.integers(-128, 128, (V, H)).astype(np.int8)
    b = rng.integers(-128, 128, (H, N)).astype(np.int8)
    nodes = [
        helper.make_node("Gather", ["emb", "ids"], ["e8"]),
        helper.make_node("DequantizeLinear", ["e8", "emb_scale", "emb_zp"], ["e"]),
        helper.make_node("Add", ["x", "e"], ["h"]),
        helper.make_node("DynamicQuantizeLinear", ["h"], ["hq", "hs", "hz"]),
        helper.make_node("MatMulInteger", ["hq", "b", "hz", "b_zp"], ["acc"]),
        helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["hs", "b_scale"], ["s"]),
        helper.make_node("Mul", ["accf", "s"], ["y"]),
        helper.make_node("QuantizeLinear", ["y", "y_scale", "y_zp"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "y_scale", "y_zp"], ["y2"]),
    ]
    inits = [t("emb", emb), t("emb_scale", np.array(0.02, np.float32)), t("emb_zp", np.array(3, np.int8)),
             t("b", b), t("b_zp", np.array(-2, np.int8)), t("b_scale", np.array(0.004, np.float32)),
             t("y_scale", np.array(0.5, np.float32)), t("y_zp", np.array(128, np.uint8))]
    g = helper.make_graph(nodes, "q8_layer", [vi("x", ["batch", "seq", H]), vi("ids", ["batch", "seq"], TensorProto.INT64)],
                          [vi("y", ["batch", "seq", N]), vi("y2", ["batch", "seq", N])], inits)
    sets = [(f"{bb}x{s}", {"x": rng.standard_normal((bb, s, H)).astype(np.float32),
                           "ids": rng.integers(0, V, (bb, s)).astype(np.int64)}) for bb, s in SIZES]
    return g, sets, DIMS, TOL


def case_trilu(rng):
    """Trilu over symbolic [batch, seq, seq] scores: the lower triangle (a causal mask), the
    upper one from the diagonal after next, and with k an input (-1)."""
    nodes = [helper.make_node("Trilu", ["x"], ["lower"], upper=0),
             helper.make_node("Trilu", ["x", "two"], ["upper"]),
             helper.make_node("Trilu", ["x", "k"], ["lower_k"], upper=0)]
    g = helper.make_graph(nodes, "trilu", [vi("x", ["batch", "seq", "seq"]), vi("k", [], TensorProto.INT64)],
                          [vi(n, ["batch", "seq", "seq"]) for n in ("lower", "upper", "lower_k")],
                          [t("two", np.array(2, np.int64))])
    sets = [(f"{bb}x{s}", {"x": rng.standard_normal((bb, s, s)).astype(np.float32), "k": np.array(-1, np.int64)})
            for bb, s in SIZES]
    return g, sets, DIMS, "1e-6 0"


CASES = (case_q8_layer, case_trilu)


def main():
    write_cases(sys.argv[1], CASES, np.random.default_rng(1234), [("", 14)], 8)


if __name__ == "__main__":
    main()
