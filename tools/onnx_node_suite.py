#!/usr/bin/env python3
"""Writes ONNX's node tests, as the installed `onnx` package defines them, in the backend-test
layout the conformance runner reads:

    OUT/test_NAME/model.onnx
    OUT/test_NAME/test_data_set_N/input_K.pb, output_K.pb

    python tools/onnx_node_suite.py OUT [--force]

The tests come from onnx.backend.test.case.node.collect_testcases() (the same cases ONNX's own
`backend-test-tools generate-data` writes), so the suite is whatever the onnx version pinned in
tools/requirements.txt (installed by scripts/setup.sh) defines. OUT/.stamp holds the onnx
version and this file's hash: when they match, nothing is rewritten (a warm run takes well under
a second). The suite is written into OUT.tmp and renamed, so an interrupted run leaves no
half-written suite behind. Every case in this onnx version has rtol 1e-3 / atol 1e-7, the
runner's rule; the tool stops if a case asks for another tolerance, rather than drop it.

A few cases' expected outputs carry rounding noise larger than that tolerance (ERRATA below,
each with its reason): for those the tool recomputes the outputs with ONNX's own reference
implementation (onnx.reference) on the inputs widened to float64, rounds them back to the
output's dtype, and checks that they stay within 1e-5 of the largest expected value of the
case's own outputs (so only the noise changes, never the meaning).
Prints "onnx-node-suite: N tests (onnx X) in OUT, E expected outputs recomputed in float64".
"""
import argparse
import hashlib
import os
import shutil
import sys
import warnings


# Cases whose expected outputs ONNX computed in float32 with errors above atol 1e-7.
ERRATA = {
    "test_dft_inverse": "numpy's float32 FFT leaves 1.9e-7 in the imaginary part of the "
                        "Nyquist bin, whose exact value is 0",
    "test_dft_inverse_opset19": "as test_dft_inverse",
}


def stamp_of(onnx_version):
    with open(__file__, "rb") as f:
        here = hashlib.sha256(f.read()).hexdigest()
    return f"onnx {onnx_version}\ngenerator {here}\n"


def tensor_bytes(value, vi, name):
    """One input or output as the bytes of its .pb file (TensorProto, SequenceProto, ...)."""
    from onnx import TensorProto, numpy_helper

    t = vi.type
    if t.HasField("sequence_type"):
        return numpy_helper.from_list(value, name).SerializeToString()
    if t.HasField("optional_type"):
        return numpy_helper.from_optional(value, name).SerializeToString()
    if t.HasField("map_type"):
        return numpy_helper.from_dict(value, name).SerializeToString()
    if isinstance(value, TensorProto):
        return value.SerializeToString()
    return numpy_helper.from_array(value, name).SerializeToString()


def float64_outputs(case, inputs, outputs):
    """The outputs of case recomputed by onnx.reference with float32 inputs widened to float64."""
    import numpy as np
    from onnx.reference import ReferenceEvaluator

    g = case.model.graph
    wide = {vi.name: (v.astype(np.float64) if v.dtype == np.float32 else v)
            for vi, v in zip(g.input, inputs)}
    got = ReferenceEvaluator(case.model).run(None, wide)
    fixed = []
    for want, y in zip(outputs, got):
        y = np.asarray(y).astype(want.dtype)
        scale = float(np.max(np.abs(want))) if want.size else 0.0
        if y.shape != want.shape or np.max(np.abs(y - want), initial=0.0) > 1e-5 * max(scale, 1.0):
            raise SystemExit(f"onnx-node-suite: {case.name}: the float64 outputs differ from "
                             "ONNX's by more than rounding noise; check ERRATA")
        fixed.append(y)
    return fixed


def write_case(case, root):
    d = os.path.join(root, case.name)
    os.makedirs(d)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    g = case.model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        if case.name in ERRATA:
            outputs = float64_outputs(case, inputs, outputs)
        ds = os.path.join(d, f"test_data_set_{i}")
        os.makedirs(ds)
        for kind, values, infos in (("input", inputs, g.input), ("output", outputs, g.output)):
            for k, v in enumerate(values):
                with open(os.path.join(ds, f"{kind}_{k}.pb"), "wb") as f:
                    f.write(tensor_bytes(v, infos[k], infos[k].name))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="folder to write the tests into (replaced when stale)")
    ap.add_argument("--force", action="store_true", help="rewrite even when the stamp matches")
    args = ap.parse_args()
    import onnx
    from onnx.backend.test.case.node import collect_testcases

    out = os.path.abspath(args.out)
    stamp = stamp_of(onnx.__version__)
    stamp_path = os.path.join(out, ".stamp")
    if not args.force and os.path.isfile(stamp_path):
        with open(stamp_path, encoding="utf-8") as f:
            if f.read() == stamp:
                n = sum(1 for e in os.listdir(out) if e.startswith("test_"))
                print(f"onnx-node-suite: {n} tests (onnx {onnx.__version__}) in {out}, up to date")
                return 0
    with warnings.catch_warnings():
        # The case generators overflow casts and divide by zero on purpose (saturation, inf).
        warnings.simplefilter("ignore")
        cases = collect_testcases()
    stale = set(ERRATA) - {c.name for c in cases}
    if stale:
        print(f"onnx-node-suite: ERRATA names no case of onnx {onnx.__version__}: "
              f"{', '.join(sorted(stale))}", file=sys.stderr)
        return 1
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    for case in cases:
        if case.kind != "node" or case.model is None or not case.data_sets:
            print(f"onnx-node-suite: {case.name}: not a node test with data", file=sys.stderr)
            return 1
        if (case.rtol, case.atol) != (1e-3, 1e-7):
            print(f"onnx-node-suite: {case.name} asks for rtol {case.rtol}, atol {case.atol}; "
                  "the runner compares at rtol 1e-3, atol 1e-7", file=sys.stderr)
            return 1
        write_case(case, tmp)
    with open(os.path.join(tmp, ".stamp"), "w", encoding="utf-8") as f:
        f.write(stamp)
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)
    print(f"onnx-node-suite: {len(cases)} tests (onnx {onnx.__version__}) in {out}, "
          f"{sum(c.name in ERRATA for c in cases)} expected outputs recomputed in float64")
    return 0


if __name__ == "__main__":
    sys.exit(main())
