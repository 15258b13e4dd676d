"""wasm_bytes.py: the byte encodings the test scripts write by hand: unsigned LEB128 (the
varint of both WebAssembly and protobuf), wasm sections and custom sections. Imported
by tests/abi/make_fixtures.py, tests/host/add_section.py and tests/malformed/make_cases.py
(each puts this folder on sys.path); standard library only."""


def leb(n):
    """Unsigned LEB128 of n >= 0."""
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def section(sid, payload):
    """A wasm section: id byte, payload size, payload."""
    return bytes([sid]) + leb(len(payload)) + payload


def custom(name, payload):
    """A wasm custom section (id 0) called name holding payload bytes."""
    return section(0, leb(len(name)) + name.encode() + payload)
