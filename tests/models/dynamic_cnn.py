"""torchvision classifiers exported with a dynamic batch axis (tools/make_dynamic_models.py:
cnn-batch-ARCH.onnx, seeded random weights), each compiled once with --dim batch=1..4 and
run at batch 1 and 3 on seeded inputs, compared with onnxruntime (rtol 1e-4, atol 1e-5).

    python dynamic_cnn.py WASMGRAPH WORKDIR MODEL.onnx [MODEL.onnx...]
Prints one line per model and batch; exit status 1 on any mismatch or failure.
"""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort

from wg_run import compile_module, run_module


def main():
    wasmgraph, work, *paths = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    bad = 0
    for path in paths:
        model = onnx.load(path)
        model.graph.name = os.path.splitext(os.path.basename(path))[0]
        compiled = compile_module(wasmgraph, model, work, ["--dim", "batch=1..4"])
        if not compiled:
            bad += 1
            continue
        saved, module = compiled
        sess = ort.InferenceSession(saved, providers=["CPUExecutionProvider"])
        x = sess.get_inputs()[0]
        for batch in (1, 3):
            feeds = {x.name: np.random.default_rng(batch).uniform(-1, 1, [batch] + x.shape[1:]).astype(np.float32)}
            want = sess.run(None, feeds)
            gots, err = run_module(wasmgraph, module, feeds, work, len(want))
            if err:
                print(f"{model.graph.name} batch {batch}: run failed: {err}")
                bad += 1
                continue
            ok = all(g.shape == w.shape and np.allclose(g, w, rtol=1e-4, atol=1e-5) for g, w in zip(gots, want))
            print(f"{model.graph.name} batch {batch}: {'ok' if ok else 'MISMATCH'}")
            bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
