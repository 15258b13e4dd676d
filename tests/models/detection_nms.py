"""Runs a detector with NonMaxSuppression in its graph (tools/make_dynamic_models.py
detector-nms, detector-nms-thresh, detector-ssdlite, detector-fasterrcnn) on real images and compares what it
returns with onnxruntime: the same number of kept boxes, in the same order, the same labels
exactly, boxes and scores at rtol 1e-4 / atol 1e-5 (boxes are pixel coordinates up to the
image size, so the relative tolerance is the one that acts on them). The kept count is a
run-time size (module ABI 2).

    python detection_nms.py WASMGRAPH MODEL.onnx MODULE.wasm IMAGES_DIR WORKDIR [THREADED.wasm]
Each image is resized to the model's input size (416x416, 320x320 for SSDlite) and scaled
to 0..1. With THREADED.wasm (the same model compiled with --threads --max-threads 3) also
checks it against MODULE.wasm's outputs bit for bit on 1, 2 and 3 threads, on the first
image. Prints one line per image; exit status 1 on any mismatch.
"""
import os
import sys

import numpy as np
import onnxruntime as ort
from PIL import Image

from wg_run import run_module, threads_differ

def image(path, size):
    im = Image.open(path).convert("RGB").resize((size, size), Image.BILINEAR)
    return (np.asarray(im, np.float32) / 255.0).transpose(2, 0, 1)[None].copy()


def main():
    wasmgraph, model, module, images, work = sys.argv[1:6]
    threaded = sys.argv[6] if len(sys.argv) > 6 else None
    os.makedirs(work, exist_ok=True)
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    size = sess.get_inputs()[0].shape[-1]
    files = sorted(f for f in os.listdir(images) if f.endswith((".png", ".jpg")))
    bad = 0
    for f in files:
        feeds = {"image": image(os.path.join(images, f), size)}
        want = sess.run(None, feeds)
        got, err = run_module(wasmgraph, module, feeds, work, 3)
        if err:
            print(f"{f}: run failed: {err}")
            bad += 1
            continue
        ok = all(g.shape == w.shape for g, w in zip(got, want))
        ok = ok and np.allclose(got[0], want[0], rtol=1e-4, atol=1e-5)
        ok = ok and np.allclose(got[1], want[1], rtol=1e-4, atol=1e-5) and np.array_equal(got[2], want[2])
        # the threaded build on the first image (each of 1, 2 and 3 threads is a full run)
        check_threads = threaded and f == files[0]
        differ = threads_differ(wasmgraph, threaded, feeds, work, got) if check_threads else None
        ok = ok and differ is None
        print(f"{f}: {want[0].shape[0]} boxes kept by onnxruntime, "
              f"{got[0].shape[0]} by the module{'; --threads build: ' + differ if differ else ''}"
              f"{'; threads bit-identical' if check_threads and not differ else ''} {'ok' if ok else 'MISMATCH'}")
        bad += not ok
    return 1 if bad or not files else 0


if __name__ == "__main__":
    sys.exit(main())
