"""Writes models quantized by onnxruntime's own tools (tests/models.sh, section 17; needs the
models venv, which has onnxruntime): a small float MLP with symbolic batch and seq, its
MatMuls quantized by MatMulNBitsQuantizer (4 bits, block 32, symmetric and asymmetric, as
transformers.js q4 files are made; accuracy level unset and 4) and by MatMulBnb4Quantizer
(NF4 block 64, FP4 block 32, as its bnb4 files are); an embedding quantized to an int4
GatherBlockQuantized; in case_files.py's folders.
models.sh gets the reference outputs from onnxruntime-node.

    python qweight_quantizer.py OUTDIR
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import matmul_bnb4_quantizer as mbq
from onnxruntime.quantization import matmul_nbits_quantizer as mnq

from case_files import write_cases

DIMS = "--dim batch=1..3 --dim seq=1..9"
SIZES = [(1, 1), (2, 5), (3, 9)]
FP32 = "1e-4 1e-5"
H, F = 96, 160


def float_mlp(rng):
    """x -> MatMul -> Relu -> MatMul (+ a residual), H = 96, F = 160 (K = 96 and 160: whole
    blocks of 32; N odd tails of 4-column groups and 8-column panels come from 96 / 8 = 12 and
    160 / 8 = 20 whole, so the second output adds a 45-wide projection)."""
    w = lambda *s: numpy_helper.from_array((rng.standard_normal(s) * 0.1).astype(np.float32))
    inits = [w(H, F), w(F, H), w(H, 45)]
    for t, name in zip(inits, ("w_up", "w_down", "w_head")):
        t.name = name
    nodes = [helper.make_node("MatMul", ["x", "w_up"], ["h"]), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("MatMul", ["r", "w_down"], ["d"]), helper.make_node("Add", ["x", "d"], ["y"]),
             helper.make_node("MatMul", ["y", "w_head"], ["z"])]
    vi = lambda n, s: helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
    g = helper.make_graph(nodes, "mlp", [vi("x", ["batch", "seq", H])],
                          [vi("y", ["batch", "seq", H]), vi("z", ["batch", "seq", 45])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    return m


def quantized_graph(name, op, quantizer):
    """The graph quantizer writes, named name, checked to hold the three MatMuls as op."""
    quantizer.process()
    graph = quantizer.model.model.graph
    ops = [n.op_type for n in graph.node]
    if ops.count(op) != 3:
        raise SystemExit(f"{name}: the quantizer wrote {ops}")
    graph.name = name
    return graph


def quantized_case(base, sets, sym, level):
    """A case maker: base's MatMuls quantized by MatMulNBitsQuantizer (4 bits, block 32)."""
    def make(rng):
        name = f"ort_q4_blk32_{'sym' if sym else 'asym'}_level{level or 0}"
        q = mnq.MatMulNBitsQuantizer(onnx.ModelProto.FromString(base.SerializeToString()), bits=4, block_size=32,
                                     is_symmetric=sym, accuracy_level=level)
        return quantized_graph(name, "MatMulNBits", q), sets, DIMS, FP32
    return make


def bnb4_case(base, sets, quant_type, blk):
    """A case maker: base's MatMuls quantized by MatMulBnb4Quantizer (FP4 0 or NF4 1)."""
    def make(rng):
        name = f"ort_bnb4_{'nf4' if quant_type else 'fp4'}_blk{blk}"
        q = mbq.MatMulBnb4Quantizer(onnx.ModelProto.FromString(base.SerializeToString()), quant_type, blk)
        return quantized_graph(name, "MatMulBnb4", q), sets, DIMS, FP32
    return make


def gather_case(rng):
    """A case maker: an embedding (Gather of a [50, 96] table, int64 ids over batch and seq) and
    a MatMul, both quantized by MatMulNBitsQuantizer (block 32): GatherBlockQuantized of an
    int4 table, as the quantizer writes it, and MatMulNBits."""
    V = 50
    table = numpy_helper.from_array((rng.standard_normal((V, H)) * 0.5).astype(np.float32), "table")
    w = numpy_helper.from_array((rng.standard_normal((H, 45)) * 0.1).astype(np.float32), "w")
    nodes = [helper.make_node("Gather", ["table", "ids"], ["e"]), helper.make_node("MatMul", ["e", "w"], ["y"])]
    g = helper.make_graph(nodes, "emb", [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "seq"])],
                          [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("e", "y")],
                          [table, w])
    base = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    base.ir_version = 9
    sets = [(f"{b}x{s}", {"ids": rng.integers(-V, V, (b, s)).astype(np.int64)}) for b, s in SIZES]

    def make(rng):
        q = mnq.MatMulNBitsQuantizer(base, bits=4, block_size=32, is_symmetric=False,
                                     op_types_to_quantize=("MatMul", "Gather"), quant_axes=(("Gather", 1),))
        q.process()
        graph = q.model.model.graph
        ops = [n.op_type for n in graph.node]
        if ops != ["GatherBlockQuantized", "MatMulNBits"]:
            raise SystemExit(f"gather: the quantizer wrote {ops}")
        graph.name = "ort_gather_q4_blk32"
        return graph, sets, DIMS, FP32
    return make


def main():
    rng = np.random.default_rng(3)
    base = float_mlp(rng)
    sets = [(f"{b}x{s}", {"x": rng.standard_normal((b, s, H)).astype(np.float32)}) for b, s in SIZES]
    makers = [quantized_case(base, sets, sym, level) for sym in (True, False) for level in (None, 4)]
    makers += [bnb4_case(base, sets, 1, 64), bnb4_case(base, sets, 0, 32), gather_case(rng)]
    write_cases(sys.argv[1], makers, rng, [("", 17), ("com.microsoft", 1)], 9)
    return 0


if __name__ == "__main__":
    sys.exit(main())
