"""Writes the deterministic input ONNX's backend runner used for the 'light' models.

For each float graph input: value = arange(n).reshape(shape) / n as float32, with n the
number of elements (dynamic dims set to 1). Usage: arange_input.py MODEL.onnx OUTDIR
writes OUTDIR/input_<i>.pb.
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main():
    model, outdir = sys.argv[1], sys.argv[2]
    m = onnx.load(model, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    os.makedirs(outdir, exist_ok=True)
    k = 0
    for inp in m.graph.input:
        if inp.name in inits:
            continue
        shape = [d.dim_value if d.dim_value > 0 else 1 for d in inp.type.tensor_type.shape.dim]
        n = int(np.prod(shape)) if shape else 1
        x = (np.arange(n, dtype=np.float32).reshape(shape) / np.float32(n)).astype(np.float32)
        t = numpy_helper.from_array(x, inp.name)
        with open(os.path.join(outdir, f"input_{k}.pb"), "wb") as f:
            f.write(t.SerializeToString())
        k += 1


if __name__ == "__main__":
    main()
