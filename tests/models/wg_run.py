"""wg_run.py: runs a compiled module on numpy feeds with `wasmgraph run` and reads its
outputs back (compile_module saves and compiles one); shared by the model tests that
compare with onnxruntime in Python (symbolic_ops.py, data_dependent_ops.py); and checks a
--threads build of the same model against them, bit for bit (threads_differ).
check_graphs is the whole main of the tests of small graphs against onnxruntime."""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper


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


def run_vs_ort(wasmgraph, module, sess, feeds, work, label):
    """Runs onnxruntime's session sess and module on feeds: (sess's outputs, module's), or
    None after printing "LABEL: run failed: ..." when the module's run fails."""
    want = sess.run(None, feeds)
    gots, err = run_module(wasmgraph, module, feeds, work, len(want))
    if err:
        print(f"{label}: run failed: {err}")
        return None
    return want, gots


def check_graphs(graphs, dims_of, cases_of, compare, extra=None):
    """The main of a test of small graphs against onnxruntime, argv WASMGRAPH WORKDIR
    [GRAPH_NAME...] (names given: only those graphs). Each of graphs (functions returning
    (graph, opset)) is compiled with the flags dims_of(graph), plain and --threads, and run
    on the feeds of each (label, feeds) of cases_of(graph, rng); compare(graph, want, gots)
    gives (whether the outputs match onnxruntime's want, printing what differs; a note for
    the line), and the --threads build must give the same bits on 1, 2 and 3 threads.
    Prints "NAME LABEL[NOTE]: ok" (or MISMATCH) a case; extra(graph, wasmgraph, module,
    work, rng), when given, is one more check a graph. Returns the exit status."""
    import onnxruntime as ort

    wasmgraph, work = sys.argv[1:3]
    only = set(sys.argv[3:])
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(0)
    bad = 0
    for make in graphs:
        graph, opset = make()
        if only and graph.name not in only:
            continue
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8 if opset < 21 else 10
        dims = dims_of(graph)
        compiled = compile_module(wasmgraph, model, work, dims)
        if not compiled:
            bad += 1
            continue
        path, module = compiled
        threaded = compile_threaded(wasmgraph, path, dims)
        bad += threaded is None
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        for label, feeds in cases_of(graph, rng):
            ran = run_vs_ort(wasmgraph, module, sess, feeds, work, f"{graph.name} {label}")
            if not ran:
                bad += 1
                continue
            want, gots = ran
            ok, note = compare(graph, want, gots)
            # the --threads build of the same graph: the same bits on 1, 2 and 3 threads
            ok &= threads_agree(wasmgraph, threaded, feeds, work, gots)
            print(f"{graph.name} {label}{note}: {'ok' if ok else 'MISMATCH'}")
            bad += not ok
        if extra:
            bad += not extra(graph, wasmgraph, module, work, rng)
    return 1 if bad else 0
