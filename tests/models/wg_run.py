"""wg_run.py: runs a compiled module on numpy feeds with `wasmgraph run` and reads its
outputs back (compile_module saves and compiles one); shared by the model tests that
compare with onnxruntime in Python (symbolic_ops.py, data_dependent_ops.py)."""
import os
import subprocess

import numpy as np
import onnx
from onnx import numpy_helper


def compile_module(wasmgraph, model, work, flags):
    """Saves model (an onnx ModelProto) as WORK/NAME.onnx, NAME being its graph's name, and
    compiles it with flags; returns (onnx path, module path), or None after printing why
    the compile failed."""
    name = model.graph.name
    path = os.path.join(work, name + ".onnx")
    onnx.save(model, path)
    module = os.path.join(work, name + ".wasm")
    r = subprocess.run([wasmgraph, "compile", path, "-o", module, *flags, "-q"], capture_output=True, text=True)
    if r.returncode:
        print(f"{name}: compile failed: {r.stderr.strip()}")
        return None
    return path, module


def run_module(wasmgraph, module, feeds, work, n_outputs):
    """Writes each feed as WORK/NAME.npy, runs module on them (the sizes come from the
    arrays' shapes) and returns (the n_outputs outputs as arrays, None), or (None, the
    error text) when the run fails."""
    args = []
    for k, v in feeds.items():
        f = os.path.join(work, f"{k}.npy")
        np.save(f, v)
        args += ["--input", f"{k}={f}"]
    out = os.path.splitext(module)[0] + ".out"
    r = subprocess.run([wasmgraph, "run", module, *args, "--output-dir", out], capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr.strip()
    return [numpy_helper.to_array(onnx.load_tensor(os.path.join(out, f"output_{i}.pb"))) for i in range(n_outputs)], None
