"""torchvision classifiers exported with a dynamic batch axis (tools/make_dynamic_models.py:
cnn-batch-ARCH.onnx, seeded random weights), each compiled once with --dim batch=1..4 and
run at batch 1 and 3 on seeded inputs; then with their height and width made symbolic too
(the input's dims renamed, as an export with those dynamic axes gives; --dim
height=64..256 --dim width=64..256), one module run at 1x97x131 and 2x256x160; each
compared with onnxruntime (rtol 1e-4, atol 1e-5).

    python dynamic_cnn.py WASMGRAPH WORKDIR MODEL.onnx [MODEL.onnx...]
Prints one line per model and batch; exit status 1 on any mismatch or failure.
"""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort

from wg_run import compile_module, run_vs_ort


def main():
    wasmgraph, work, *paths = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    bad = 0
    for path in paths:
        base = os.path.splitext(os.path.basename(path))[0]
        for spatial in (False, True):
            model = onnx.load(path)
            model.graph.name = base + ("-hw" if spatial else "")
            dims = ["--dim", "batch=1..4"]
            sizes = [(1, 224, 224), (3, 224, 224)]
            if spatial:
                d = model.graph.input[0].type.tensor_type.shape.dim
                d[2].dim_param, d[3].dim_param = "height", "width"
                dims += ["--dim", "height=64..256", "--dim", "width=64..256"]
                sizes = [(1, 97, 131), (2, 256, 160)]
            bad += check(wasmgraph, work, model, dims, sizes)
    return 1 if bad else 0


def check(wasmgraph, work, model, dims, sizes):
    """Compiles model with dims and compares it with onnxruntime at each (batch, h, w)
    size; returns the number of failures."""
    compiled = compile_module(wasmgraph, model, work, dims)
    if not compiled:
        return 1
    saved, module = compiled
    sess = ort.InferenceSession(saved, providers=["CPUExecutionProvider"])
    x = sess.get_inputs()[0]
    bad = 0
    for n, h, w in sizes:
        feeds = {x.name: np.random.default_rng(n * h * w).uniform(-1, 1, (n, 3, h, w)).astype(np.float32)}
        ran = run_vs_ort(wasmgraph, module, sess, feeds, work, f"{model.graph.name} {n}x{h}x{w}")
        if not ran:
            bad += 1
            continue
        want, gots = ran
        ok = all(g.shape == v.shape and np.allclose(g, v, rtol=1e-4, atol=1e-5) for g, v in zip(gots, want))
        print(f"{model.graph.name} {n}x{h}x{w}: {'ok' if ok else 'MISMATCH'}")
        bad += not ok
    return bad


if __name__ == "__main__":
    sys.exit(main())
