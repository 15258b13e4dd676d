"""The size rule of modules of quantized models (tests/models.sh, section 17): a module keeps
4- and 8-bit weights at their size, so it is at most its model's weight bytes plus a margin
(the code, the metadata).

    python weight_bytes.py MODEL.onnx MODULE.wasm MARGIN_BYTES

Prints both sizes; exits 1 when the module is larger than the initializers' bytes (their
data as stored, external data included) plus MARGIN_BYTES.
"""
import os
import sys

import onnx
from onnx import numpy_helper


def weight_bytes(path):
    model = onnx.load(path, load_external_data=True)
    total = 0
    graphs = [model.graph]
    while graphs:
        g = graphs.pop()
        for t in g.initializer:
            total += numpy_helper.to_array(t).nbytes if not t.raw_data else len(t.raw_data)
        for n in g.node:
            for a in n.attribute:
                graphs += [a.g] if a.HasField("g") else list(a.graphs)
    return total


def main():
    model, module, margin = sys.argv[1], sys.argv[2], int(sys.argv[3])
    w, m = weight_bytes(model), os.path.getsize(module)
    print(f"{os.path.basename(model)}: weights {w} bytes, module {m} bytes ({m - w:+d}; at most {w + margin})")
    return 0 if m <= w + margin else 1


if __name__ == "__main__":
    sys.exit(main())
