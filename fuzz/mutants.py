"""mutants.py OUTDIR [TESTDATA]: writes edge-case variants of ONNX's node-test models into
OUTDIR, for fuzz/sweep.sh to replay through fuzz_onnx (and as fuzzing seeds).

Each variant changes one thing of one model:
  -const         every graph input made an initializer (test_data_set_0), so folding runs
  -inK-empty     node input K replaced by an empty name (omitted)
  -inK-cut       node inputs from K on removed
  -cI-eP-V       element P of integer constant I set to the edge value V
  -cI-fV         one element of float constant I set to V (0, -1, nan, +-inf, 1e30)
  -ATTR-V        INT attribute ATTR (or element P of an INTS one: ATTRP-V) set to V
  -xK-MODE       graph input K: a zero dim, one more or one fewer dim
The same seed gives the same files. Found, when written: Slice with a huge step, Tile with
huge repeats, Split parts, pool kernels, MaxUnpool strides, ConvTranspose output_shape,
EyeLike k, DepthToSpace blocksize, RoiAlign output size, MelWeightMatrix and Resize NaNs.
"""
import copy
import glob
import os
import random
import sys

import numpy as np
import onnx
from onnx import AttributeProto as A
from onnx import TensorProto, numpy_helper

OUT = sys.argv[1]
DATA = sys.argv[2] if len(sys.argv) > 2 else '/usr/share/libonnx-testdata/data'
MAX_BYTES = 262144
EDGE = [-1, 0, 1, -2, -(2**31), 2**31 - 1, 2**32, 2**40, 2**62, -(2**62), 2**63 - 1, -(2**63), 9, -9]
FEDGE = [0.0, -1.0, float('nan'), float('inf'), -float('inf'), 1e30]
rng = random.Random(1)
count = 0


def save(m, name):
    global count
    b = m.SerializeToString()
    if len(b) <= MAX_BYTES:
        with open(os.path.join(OUT, name + '.onnx'), 'wb') as f:
            f.write(b)
        count += 1


def array(t):
    try:
        return numpy_helper.to_array(t)
    except Exception:  # malformed test data: skip that constant
        return None


def make_const(d, m):
    """The model with every graph input an initializer, or None."""
    init = {i.name for i in m.graph.initializer}
    ins = [i for i in m.graph.input if i.name not in init]
    pbs = sorted(glob.glob(os.path.join(d, 'test_data_set_0', 'input_*.pb')))
    if not pbs or len(pbs) != len(ins):
        return None
    c = copy.deepcopy(m)
    for vi, pb in zip(ins, pbs):
        t = TensorProto()
        with open(pb, 'rb') as f:
            t.ParseFromString(f.read())
        t.name = vi.name
        c.graph.initializer.append(t)
    del c.graph.input[:]
    c.graph.input.extend(i for i in m.graph.input if i.name in init)
    return c


def constants(t, m):
    for ii, ini in enumerate(m.graph.initializer):
        arr = array(ini)
        if arr is None or not 0 < arr.size <= 64:
            continue
        if arr.dtype.kind in 'iu':
            info = np.iinfo(arr.dtype)
            for pos in range(min(arr.size, 8)):
                for v in EDGE:
                    a = arr.copy().reshape(-1)
                    a[pos] = max(info.min, min(info.max, v))
                    c = copy.deepcopy(m)
                    c.graph.initializer[ii].CopyFrom(numpy_helper.from_array(a.reshape(arr.shape), ini.name))
                    save(c, f'{t}-c{ii}-e{pos}-{v}')
        elif arr.dtype.kind == 'f':
            for v in FEDGE:
                a = arr.copy().reshape(-1)
                a[rng.randrange(a.size)] = v
                c = copy.deepcopy(m)
                c.graph.initializer[ii].CopyFrom(numpy_helper.from_array(a.reshape(arr.shape), ini.name))
                save(c, f'{t}-c{ii}-f{v}')


def nodes(t, m, drop):
    for ni, node in enumerate(m.graph.node):
        for k in range(len(node.input) if drop else 0):
            c = copy.deepcopy(m)
            c.graph.node[ni].input[k] = ''
            save(c, f'{t}-n{ni}-in{k}-empty')
            c = copy.deepcopy(m)
            del c.graph.node[ni].input[k:]
            save(c, f'{t}-n{ni}-in{k}-cut')
        for ai, a in enumerate(node.attribute):
            if a.type == A.INT:
                for v in EDGE:
                    c = copy.deepcopy(m)
                    c.graph.node[ni].attribute[ai].i = v
                    save(c, f'{t}-n{ni}-{a.name}-{v}')
            elif a.type == A.INTS:
                for pos in range(min(len(a.ints), 8)):
                    for v in EDGE:
                        c = copy.deepcopy(m)
                        c.graph.node[ni].attribute[ai].ints[pos] = v
                        save(c, f'{t}-n{ni}-{a.name}{pos}-{v}')


def input_shapes(t, m):
    init = {i.name for i in m.graph.initializer}
    for k, vi in enumerate(m.graph.input):
        if vi.name in init or not len(vi.type.tensor_type.shape.dim):
            continue
        for mode in ('zero', 'more', 'less'):
            c = copy.deepcopy(m)
            dims = c.graph.input[k].type.tensor_type.shape.dim
            if mode == 'zero':
                dims[rng.randrange(len(dims))].dim_value = 0
            elif mode == 'more':
                dims.add().dim_value = 2
            else:
                del dims[-1]
            save(c, f'{t}-x{k}-{mode}')


def main():
    os.makedirs(OUT, exist_ok=True)
    for d in sorted(glob.glob(os.path.join(DATA, 'node', '*', ''))):
        t = os.path.basename(d.rstrip('/'))
        try:
            m = onnx.load(os.path.join(d, 'model.onnx'))
        except Exception:
            continue
        nodes(t, m, True)
        input_shapes(t, m)
        c = make_const(d, m)
        if c is not None:
            save(c, t + '-const')
            constants(t, c)
            nodes(t + '-const', c, False)
        else:
            constants(t, m)
    print(f'mutants: {count} models in {OUT}')


main()
