"""Writes seeded random input tensors as ONNX TensorProto .pb files (raw_data).

One tensor:
    python tools/make_input.py NAME SHAPE DTYPE SEED OUT.pb [--dist uniform|normal] [--low L --high H]
    e.g. python tools/make_input.py data 1x3x224x224 float32 0 build/in/input_0.pb
Every input of a model (shapes and dtypes from the graph; --shape fixes dynamic dims):
    python tools/make_input.py --model MODEL.onnx --seed 0 --outdir DIR [--shape NAME=1x3x224x224]
    writes DIR/input_<i>.pb in the model's input order (initializers excluded).

Floats are uniform in [low, high) (default [-1, 1)) or normal(0, 1); integers
uniform in [low, high) (default [0, 10)); bool is a fair coin. Same arguments,
same bytes: numpy's PCG64 generator seeded with SEED.
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

DTYPES = {
    "float32": np.float32, "float": np.float32, "float16": np.float16, "float64": np.float64,
    "double": np.float64, "int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8,
    "uint8": np.uint8, "uint16": np.uint16, "bool": np.bool_,
}


def parse_shape(text):
    """'1x3x224x224' -> [1, 3, 224, 224]; '' or 'scalar' -> []."""
    if text in ("", "scalar"):
        return []
    try:
        dims = [int(d) for d in text.lower().split("x")]
    except ValueError:
        raise ValueError(f"shape '{text}': expected dims like 1x3x224x224")
    if any(d < 0 for d in dims):
        raise ValueError(f"shape '{text}': negative dim")
    return dims


def random_array(shape, dtype, seed, dist="uniform", low=None, high=None):
    rng = np.random.default_rng(seed)
    np_dtype = np.dtype(DTYPES[dtype])
    if np_dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np_dtype.kind == "f":
        if dist == "normal":
            return rng.standard_normal(size=shape).astype(np_dtype)
        lo = -1.0 if low is None else low
        hi = 1.0 if high is None else high
        return rng.uniform(lo, hi, size=shape).astype(np_dtype)
    lo = 0 if low is None else int(low)
    hi = 10 if high is None else int(high)
    return rng.integers(lo, hi, size=shape).astype(np_dtype)


def write_tensor(arr, name, path):
    t = numpy_helper.from_array(arr, name=name)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "wb") as f:
        f.write(t.SerializeToString())


def model_inputs(model_path, fixed):
    """[(name, dims, dtype)] for the graph inputs that are not initializers."""
    model = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    out = []
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        np_dtype = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
        dtype = next((k for k, v in DTYPES.items() if np.dtype(v) == np_dtype), None)
        if dtype is None:
            raise ValueError(f"{model_path}: input '{vi.name}' has dtype {np_dtype}, not supported here")
        if vi.name in fixed:
            dims = fixed[vi.name]
        else:
            dims = []
            for i, d in enumerate(tt.shape.dim):
                if not d.HasField("dim_value"):
                    raise ValueError(f"{model_path}: input '{vi.name}' dim {i} is dynamic "
                                     f"('{d.dim_param}'); give --shape {vi.name}=...")
                dims.append(d.dim_value)
        out.append((vi.name, dims, dtype))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("args", nargs="*", help="NAME SHAPE DTYPE SEED OUT.pb")
    ap.add_argument("--model", help="write one file per input of this model")
    ap.add_argument("--seed", type=int, default=0, help="with --model (input i uses seed+i)")
    ap.add_argument("--outdir", help="with --model")
    ap.add_argument("--shape", action="append", default=[], help="NAME=1x3x224x224, with --model")
    ap.add_argument("--dist", choices=["uniform", "normal"], default="uniform")
    ap.add_argument("--low", type=float)
    ap.add_argument("--high", type=float)
    a = ap.parse_args()
    try:
        if a.model:
            if a.args or not a.outdir:
                ap.error("--model takes --outdir DIR and no positional arguments")
            fixed = {}
            for s in a.shape:
                name, _, dims = s.partition("=")
                fixed[name] = parse_shape(dims)
            for i, (name, dims, dtype) in enumerate(model_inputs(a.model, fixed)):
                arr = random_array(dims, dtype, a.seed + i, a.dist, a.low, a.high)
                path = os.path.join(a.outdir, f"input_{i}.pb")
                write_tensor(arr, name, path)
                print(f"{path}: {name} {dtype} {list(arr.shape)}")
        else:
            if len(a.args) != 5:
                ap.error("expected NAME SHAPE DTYPE SEED OUT.pb (or --model)")
            name, shape, dtype, seed, out = a.args
            if dtype not in DTYPES:
                ap.error(f"dtype '{dtype}': one of {', '.join(DTYPES)}")
            arr = random_array(parse_shape(shape), dtype, int(seed), a.dist, a.low, a.high)
            write_tensor(arr, name, out)
    except (ValueError, OSError) as e:
        print(f"make_input: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
