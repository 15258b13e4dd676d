"""A CNN exported with a fixed batch of 1, its batch made symbolic (the graph input's and
outputs' dim 0 renamed `N`, as torch.onnx.export's dynamic_axes gives) and compiled once
with --dim N=1..4; then run at batch 1, 2 and 3 on the test sets' inputs stacked along
the batch (set 0, set 1, set 0 ...), each sample's outputs compared with that set's
expected outputs (rtol 1e-4, atol 1e-5), and a --threads build with the single-threaded
one, bit for bit on 1, 2 and 3 threads, at batch 2.

    python dynamic_batch.py WASMGRAPH WORKDIR NAME MODEL.onnx SET [SET...]
A SET is a directory holding input_0.pb and output_<i>.pb, or INPUT_DIR:EXPECTED_DIR. Prints one line per batch; exit status 1
on any mismatch or failure.
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

from wg_run import compile_module, compile_threaded, run_module, threads_agree


def load(path):
    return numpy_helper.to_array(onnx.load_tensor(path))


def with_symbolic_batch(model, name):
    inits = {t.name for t in model.graph.initializer}
    for v in list(model.graph.input) + list(model.graph.output):
        if v.name not in inits and v.type.tensor_type.shape.dim:
            v.type.tensor_type.shape.dim[0].dim_param = "N"
    del model.graph.value_info[:]  # intermediate shapes at batch 1
    model.graph.name = name
    return model


def main():
    wasmgraph, work, name, model_path, *sets = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    model = with_symbolic_batch(onnx.load(model_path), name)
    inits = {t.name for t in model.graph.initializer}
    input_name = next(v.name for v in model.graph.input if v.name not in inits)
    n_out = len(model.graph.output)
    pairs = [s.split(":", 1) if ":" in s else (s, s) for s in sets]
    ins = [load(os.path.join(i, "input_0.pb")) for i, _ in pairs]
    wants = [[load(os.path.join(w, f"output_{k}.pb")) for k in range(n_out)] for _, w in pairs]
    dims = ["--dim", "N=1..4"]
    compiled = compile_module(wasmgraph, model, work, dims)
    if not compiled:
        return 1
    path, module = compiled
    threaded = compile_threaded(wasmgraph, path, dims)
    bad = threaded is None
    for batch in (1, 2, 3):
        pick = [k % len(sets) for k in range(batch)]
        feeds = {input_name: np.concatenate([ins[k] for k in pick], axis=0)}
        gots, err = run_module(wasmgraph, module, feeds, work, n_out)
        if err:
            print(f"{name} batch {batch}: run failed: {err}")
            bad = True
            continue
        ok = True
        for i, got in enumerate(gots):
            want = np.concatenate([wants[k][i] for k in pick], axis=0)
            ok &= got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-5)
        if batch == 2 and threaded:
            ok &= threads_agree(wasmgraph, threaded, feeds, work, gots)
        print(f"{name} batch {batch}: {'ok' if ok else 'MISMATCH'}")
        bad |= not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
