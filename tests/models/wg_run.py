"""wg_run.py: runs a compiled module on numpy feeds with `wasmgraph run` and reads its
outputs back (compile_module saves and compiles one); shared by the model tests that
compare with onnxruntime in Python (symbolic_ops.py, data_dependent_ops.py); and checks a
--threads build of the same model against them, bit for bit (threads_differ)."""
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


def compile_threaded(wasmgraph, onnx_path, flags):
    """Compiles the model compile_module saved once more with --threads --max-threads 3
    (the same flags otherwise); returns the module's path, or None after printing why."""
    module = os.path.splitext(onnx_path)[0] + ".threads.wasm"
    r = subprocess.run([wasmgraph, "compile", onnx_path, "-o", module, *flags, "--threads", "--max-threads", "3",
                        "-q"], capture_output=True, text=True)
    if r.returncode:
        print(f"{os.path.basename(onnx_path)}: --threads compile failed: {r.stderr.strip()}")
        return None
    return module


def threads_differ(wasmgraph, module, feeds, work, want):
    """Runs a threaded module on 1, 2 and 3 threads; returns None when every run gives
    want (the single-threaded module's outputs) bit for bit, in dtype and shape too
    (docs/abi.md "Threads": each element is computed by one thread in a fixed order),
    else what differed."""
    for n in (1, 2, 3):
        gots, err = run_module(wasmgraph, module, feeds, work, len(want), threads=n)
        if err:
            return f"{n} threads: run failed: {err}"
        for i, (w, got) in enumerate(zip(want, gots)):
            if got.dtype != w.dtype or got.shape != w.shape or got.tobytes() != w.tobytes():
                return f"{n} threads: output {i} differs from the single-threaded module's"
    return None


def threads_agree(wasmgraph, threaded, feeds, work, want):
    """threads_differ, printed: True when there is no threaded module or when it gives want
    bit for bit on 1, 2 and 3 threads; else prints what differed and returns False."""
    differ = threads_differ(wasmgraph, threaded, feeds, work, want) if threaded else None
    if differ:
        print(f"  --threads build: {differ}")
    return differ is None


def run_module(wasmgraph, module, feeds, work, n_outputs, threads=None):
    """Writes each feed as WORK/NAME.npy, runs module on them (the sizes come from the
    arrays' shapes; on that many threads when threads is given) and returns (the n_outputs
    outputs as arrays, None), or (None, the error text) when the run fails."""
    args = []
    for k, v in feeds.items():
        f = os.path.join(work, f"{k}.npy")
        np.save(f, v)
        args += ["--input", f"{k}={f}"]
    if threads:
        args += ["--threads", str(threads)]
    out = os.path.splitext(module)[0] + ".out"
    r = subprocess.run([wasmgraph, "run", module, *args, "--output-dir", out], capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr.strip()
    return [numpy_helper.to_array(onnx.load_tensor(os.path.join(out, f"output_{i}.pb"))) for i in range(n_outputs)], None
