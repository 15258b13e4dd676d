"""Runs a module compiled with symbolic dims at several (batch, seq) and compares it with
onnxruntime (rtol 1e-4, atol 1e-5). Used by tests/models/test_dynamic.sh.

    python dynamic_encoder.py WASMGRAPH MODEL.onnx MODULE.wasm WORKDIR [THREADED.wasm]
Inputs: input_ids (random ids) and attention_mask (the last sequence of the batch padded
from seq // 2 on). With THREADED.wasm (the same model compiled with --threads
--max-threads 3), also checks that it gives MODULE.wasm's outputs bit for bit on 1, 2 and
3 threads at every size. Prints one line per size; exit status 1 on any mismatch.
"""
import os
import subprocess
import sys

import numpy as np
import onnx.numpy_helper  # noqa: F401  (the onnx venv has it)
from onnx import numpy_helper
import onnxruntime as ort

from wg_run import threads_differ

SIZES = [(1, 1), (1, 9), (2, 64), (4, 512)]


def main():
    wasmgraph, model, module, work = sys.argv[1:5]
    threaded = sys.argv[5] if len(sys.argv) > 5 else None
    os.makedirs(work, exist_ok=True)
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    bad = 0
    for batch, seq in SIZES:
        ids = rng.integers(0, 1000, size=(batch, seq), dtype=np.int64)
        mask = np.ones((batch, seq), dtype=np.int64)
        mask[-1, max(1, seq // 2):] = 0
        np.save(os.path.join(work, "ids.npy"), ids)
        np.save(os.path.join(work, "mask.npy"), mask)
        out_dir = os.path.join(work, "out")
        subprocess.run([wasmgraph, "run", module, "--input", "input_ids=" + os.path.join(work, "ids.npy"),
                        "--input", "attention_mask=" + os.path.join(work, "mask.npy"),
                        "--output-dir", out_dir], check=True, stdout=subprocess.DEVNULL)
        t = onnx.load_tensor(os.path.join(out_dir, "output_0.pb"))
        got = numpy_helper.to_array(t)
        want = sess.run(None, {"input_ids": ids, "attention_mask": mask})[0]
        ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-5)
        err = float(np.max(np.abs(got - want))) if got.shape == want.shape else float("nan")
        differ = None
        if threaded:
            differ = threads_differ(wasmgraph, threaded, {"input_ids": ids, "attention_mask": mask}, work, [got])
            ok &= differ is None
        print(f"batch {batch} seq {seq}: shape {list(got.shape)} max |diff| {err:.3g}"
              f"{'; --threads build: ' + differ if differ else ''}{'; threads bit-identical' if threaded and not differ else ''}"
              f" {'ok' if ok else 'MISMATCH'}")
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
