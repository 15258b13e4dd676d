#!/usr/bin/env python3
"""add_section.py IN.wasm META.json OUT.wasm: append a `wasmgraph` custom section
holding the JSON text of META.json (trailing whitespace dropped) to a wasm module."""
import sys


def leb(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    wasm = open(sys.argv[1], "rb").read()
    meta = open(sys.argv[2], "rb").read().rstrip()
    name = b"wasmgraph"
    payload = leb(len(name)) + name + meta
    with open(sys.argv[3], "wb") as f:
        f.write(wasm + b"\x00" + leb(len(payload)) + payload)


main()
