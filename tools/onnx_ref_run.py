"""onnx_ref_run.py: runs an ONNX model with the onnx package's reference evaluator (the
operators as the specification defines them) and writes each output as
OUTDIR/output_<i>.pb, like tools/ort_run.js: the reference for the model tests whose
integer arithmetic must be exact.

    python tools/onnx_ref_run.py MODEL.onnx OUTDIR --input NAME=FILE.pb ...

Why not onnxruntime there: on x86 CPUs without VNNI (AVX2 only, like this project's CI
machine) onnxruntime's uint8 x int8 kernels sum pairs of products in saturating int16,
so a product of full-range operands comes out wrong (its quantization tools offer
reduce_range for that reason); the specification's MatMulInteger and QLinearConv do not
saturate, and neither do ours.

The evaluator implements some operators only from a later opset than a model may import
(DequantizeLinear from 19, QuantizeLinear likewise): the model is then run with its
default-domain opset raised to the lowest version the evaluator has for every node. For
uint8 / int8 with per-tensor or per-axis parameters those versions compute the same.
"""
import argparse
import os

import onnx
from onnx import numpy_helper, reference
from onnx.reference.ops._op_list import load_op


def runnable_opset(model):
    """The model's default-domain opset, or the lowest later one the evaluator implements
    every node at."""
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 1)
    for v in range(opset, 30):
        try:
            for n in model.graph.node:
                if n.domain in ("", "ai.onnx"):
                    load_op("", n.op_type, v)
            return v
        except RuntimeError:
            continue
    return opset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("outdir")
    ap.add_argument("--input", action="append", default=[], metavar="NAME=FILE.pb")
    a = ap.parse_args()
    model = onnx.load(a.model)
    v = runnable_opset(model)
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = v
    feeds = {}
    for spec in a.input:
        name, _, path = spec.partition("=")
        feeds[name] = numpy_helper.to_array(onnx.load_tensor(path))
    outs = reference.ReferenceEvaluator(model).run(None, feeds)
    os.makedirs(a.outdir, exist_ok=True)
    for i, (info, value) in enumerate(zip(model.graph.output, outs)):
        onnx.save_tensor(numpy_helper.from_array(value, info.name), os.path.join(a.outdir, f"output_{i}.pb"))


if __name__ == "__main__":
    main()
