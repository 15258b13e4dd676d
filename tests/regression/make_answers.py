#!/usr/bin/env python3
"""Writes the wrong-answer regression cases of tests/regression/ (one folder per bug, in ONNX's
backend-test layout: model.onnx, test_data_set_0/{input,output}_K.pb), each expected output
computed here in float64 by numpy, independently of the compiler. The folders are committed;
run this only to change a case:

    $WG_PYTHON tests/regression/make_answers.py

tests/regression/run.sh runs every such folder through tests/conformance/one.sh.
"""
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, node, inputs, outputs, opset):
    """inputs/outputs: [(name, float32 array)]."""
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape) for n, a in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape) for n, a in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="wasmgraph tests/regression/make_answers.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    onnx.save(model, os.path.join(d, "model.onnx"))
    for kind, vals in (("input", inputs), ("output", outputs)):
        for k, (n, a) in enumerate(vals):
            onnx.save_tensor(numpy_helper.from_array(a.astype(np.float32), n),
                             os.path.join(d, "test_data_set_0", f"{kind}_{k}.pb"))


def lpnorm_zero_norm():
    """LpNormalization gave NaN (0 / 0) where a slice is all zeros; ONNX defines 0 there."""
    x = np.array([[[1, 2, 0], [3, 0, 0]], [[0, 5, 0], [6, 8, 0]]], dtype=np.float64)
    for p in (1, 2):
        norm = np.sum(np.abs(x) ** p, axis=0, keepdims=True) ** (1 / p)
        y = np.divide(x, norm, out=np.zeros_like(x), where=norm != 0)
        node = helper.make_node("LpNormalization", ["x"], ["y"], axis=0, p=p)
        write(f"wrong_answer-lpnormalization-p{p}-zero-norm", node, [("x", x)], [("y", y)], 22)


def dft_inverse_nyquist():
    """An inverse DFT of length 10 must give the Nyquist bin's exact imaginary part (0) to
    within 1e-7; ONNX's own expected output (float32 numpy FFT) has 1.9e-7 there."""
    x = np.arange(100, dtype=np.float64).reshape(10, 10) * (1 + 0.5j)
    y = np.fft.ifft(x, axis=0)
    xs = np.stack((x.real, x.imag), axis=2).reshape(1, 10, 10, 2)
    ys = np.stack((y.real, y.imag), axis=2).reshape(1, 10, 10, 2)
    node = helper.make_node("DFT", ["x"], ["y"], inverse=1, axis=1)
    write("wrong_answer-dft-inverse-nyquist", node, [("x", xs)], [("y", ys)], 19)


if __name__ == "__main__":
    lpnorm_zero_norm()
    dft_inverse_nyquist()
