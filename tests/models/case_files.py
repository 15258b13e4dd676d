"""Writes the case folders tests/models.sh's ort_cases runs (contrib_ops.py, decoder_ops.py):
for each case, OUTDIR/<graph name>/ holds model.onnx, compile.args (the compile's options),
tolerance ("RTOL ATOL") and set_<label>/input_<i>.pb, one folder per input set, all run on
one module against onnxruntime-node.

A case maker takes a numpy Generator and returns (graph, [(label, {input: array})],
compile args, tolerance), or those and a reference graph, written as reference.onnx, that
onnxruntime runs instead of the model (the same function in other operators)."""
import os

import onnx
from onnx import helper, numpy_helper


def write_cases(out, makers, rng, opsets, ir_version):
    """Writes every case of makers into out; opsets: [(domain, version)]."""
    for make in makers:
        graph, sets, args, tol, *reference = make(rng)
        d = os.path.join(out, graph.name)
        os.makedirs(d, exist_ok=True)
        for g, file in [(graph, "model.onnx")] + [(r, "reference.onnx") for r in reference]:
            model = helper.make_model(g, opset_imports=[helper.make_opsetid(dom, v) for dom, v in opsets])
            model.ir_version = ir_version  # onnxruntime-node reads IR versions up to 10
            onnx.save(model, os.path.join(d, file))
        with open(os.path.join(d, "compile.args"), "w") as f:
            f.write(args + "\n")
        with open(os.path.join(d, "tolerance"), "w") as f:
            f.write(tol + "\n")
        for label, feeds in sets:
            s = os.path.join(d, f"set_{label}")
            os.makedirs(s, exist_ok=True)
            for i, (name, arr) in enumerate(feeds.items()):
                onnx.save_tensor(numpy_helper.from_array(arr, name), os.path.join(s, f"input_{i}.pb"))
