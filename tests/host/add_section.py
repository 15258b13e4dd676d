#!/usr/bin/env python3
"""add_section.py IN.wasm META.json OUT.wasm: append a `wasmgraph` custom section
holding the JSON text of META.json (trailing whitespace dropped) to a wasm module."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from wasm_bytes import custom  # noqa: E402


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    wasm = open(sys.argv[1], "rb").read()
    meta = open(sys.argv[2], "rb").read().rstrip()
    with open(sys.argv[3], "wb") as f:
        f.write(wasm + custom("wasmgraph", meta))


main()
