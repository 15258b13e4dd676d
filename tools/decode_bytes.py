"""Prints the bytes of weights one decode step of a decoder file reads: every initializer
(external data included, as stored: 4-bit weights at their size) once, except a table only
Gather reads (the token embedding), of which one row. The numerator of bench/generate's
"fraction of the memory-read bound".

    python tools/decode_bytes.py MODEL.onnx
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def stored_bytes(t, base):
    """An initializer's size in the file (raw, or its external data's length)."""
    if t.data_location == onnx.TensorProto.EXTERNAL:
        info = {e.key: e.value for e in t.external_data}
        if "length" in info:
            return int(info["length"])
        return os.path.getsize(os.path.join(base, info["location"])) - int(info.get("offset", 0))
    return numpy_helper.to_array(t).nbytes


def main(path):
    m = onnx.load(path, load_external_data=False)
    g = m.graph
    sizes = {t.name: (stored_bytes(t, os.path.dirname(path)), list(t.dims)) for t in g.initializer}
    users = {}
    for n in g.node:
        for k, i in enumerate(n.input):
            users.setdefault(i, []).append((n.op_type, k))
    total = 0
    for name, (nbytes, dims) in sizes.items():
        uses = users.get(name, [])
        if uses and all(op in ("Gather", "GatherBlockQuantized") and k == 0 for op, k in uses) and dims:
            total += nbytes // max(dims[0], 1) * len(uses)  # one row per Gather and token
        else:
            total += nbytes
    print(total)


if __name__ == "__main__":
    main(sys.argv[1])
