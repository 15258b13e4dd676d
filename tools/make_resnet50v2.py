"""Builds a ResNet-50 v2 ONNX model shaped like the model zoo's resnet50-v2-7.onnx, with seeded random weights.

    python tools/make_resnet50v2.py OUT.onnx [--seed 0] [--check]

Same architecture, tensor names, opset (7) and IR version (3, so every
initializer is also listed as a graph input, as in the zoo file) as the MXNet
Gluon export in the zoo: input `data` float32 1x3x224x224, output
`resnetv24_dense0_fwd` 1x1000. Layout:
    BN(data) -> conv7x7/2(64) -> BN -> ReLU -> maxpool3x3/2 pad 1
    -> 4 stages of pre-activation bottlenecks (3, 4, 6, 3 blocks; 256..2048 channels):
       BN -> ReLU -> [projection conv1x1/s on this, first block of a stage]
       conv1x1 -> BN -> ReLU -> conv3x3/s -> BN -> ReLU -> conv1x1, + shortcut
    -> BN -> ReLU -> GlobalAveragePool -> Flatten -> Gemm(1000, transB=1)
Convolutions have no bias. Weights are He-normal; the last conv of each residual
branch is scaled down so the residual stream stays O(1) over 16 blocks (BN in
inference mode does not renormalise). BN: gamma ~ 1, beta and mean small,
var in [0.5, 1.5]. --check runs the model once with onnxruntime-node
(tools/ort_run.js) and prints the logits' statistics. About 100 MB: write it
outside the repository.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

P = "resnetv24_"
BRANCH_SCALE = 0.3  # residual-branch gain: stream variance grows by (1 + 0.09) per block


class Builder:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits = [], []

    def param(self, name, arr):
        self.inits.append(numpy_helper.from_array(arr.astype(np.float32), name=name))
        return name

    def conv(self, x, name, cin, cout, k, stride=1, gain=1.0):
        w = self.rng.standard_normal((cout, cin, k, k)) * (gain * np.sqrt(2.0 / (cin * k * k)))
        out = name + "_fwd"
        self.nodes.append(helper.make_node(
            "Conv", [x, self.param(name + "_weight", w)], [out], name=out,
            kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4, dilations=[1, 1], group=1))
        return out

    def bn(self, x, name, c, affine=True):
        r = self.rng
        gamma = r.uniform(0.8, 1.2, c) if affine else np.ones(c)
        beta = r.uniform(-0.1, 0.1, c) if affine else np.zeros(c)
        mean = r.uniform(-0.1, 0.1, c)
        var = r.uniform(0.5, 1.5, c)
        out = name + "_fwd"
        ins = [x] + [self.param(f"{name}_{s}", a) for s, a in
                     (("gamma", gamma), ("beta", beta), ("running_mean", mean), ("running_var", var))]
        self.nodes.append(helper.make_node("BatchNormalization", ins, [out], name=out,
                                           epsilon=1e-5, momentum=0.9, spatial=1))
        return out

    def relu(self, x, name):
        self.nodes.append(helper.make_node("Relu", [x], [name], name=name))
        return name


def build(seed):
    b = Builder(seed)
    x = b.bn("data", P + "batchnorm0", 3, affine=False)  # gluon: BatchNorm(scale=False, center=False)
    x = b.conv(x, P + "conv0", 3, 64, 7, 2)
    x = b.bn(x, P + "batchnorm1", 64)
    x = b.relu(x, P + "relu0")
    b.nodes.append(helper.make_node("MaxPool", [x], [P + "pool0_fwd"], name=P + "pool0_fwd",
                                    kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
    x, cin = P + "pool0_fwd", 64
    for s, (blocks, cout) in enumerate(zip((3, 4, 6, 3), (256, 512, 1024, 2048)), start=1):
        sp = f"{P}stage{s}_"
        n_bn = n_conv = n_act = 0
        mid = cout // 4
        for i in range(blocks):
            stride = 2 if (i == 0 and s > 1) else 1

            def bn_relu(t, c):
                nonlocal n_bn, n_act
                t = b.bn(t, f"{sp}batchnorm{n_bn}", c)
                t = b.relu(t, f"{sp}activation{n_act}")
                n_bn += 1
                n_act += 1
                return t

            def conv(t, ci, co, k, st, gain=1.0):
                nonlocal n_conv
                t = b.conv(t, f"{sp}conv{n_conv}", ci, co, k, st, gain)
                n_conv += 1
                return t

            pre = bn_relu(x, cin)
            h = conv(pre, cin, mid, 1, 1)
            h = bn_relu(h, mid)
            h = conv(h, mid, mid, 3, stride)  # v2 (gluon): the stride sits on the 3x3
            h = bn_relu(h, mid)
            h = conv(h, mid, cout, 1, 1, BRANCH_SCALE)
            shortcut = conv(pre, cin, cout, 1, stride) if i == 0 else x
            out = f"{sp}_plus{i}"
            b.nodes.append(helper.make_node("Add", [h, shortcut], [out], name=out))
            x, cin = out, cout
    x = b.bn(x, P + "batchnorm2", 2048)
    x = b.relu(x, P + "relu1")
    b.nodes.append(helper.make_node("GlobalAveragePool", [x], [P + "pool1_fwd"], name=P + "pool1_fwd"))
    b.nodes.append(helper.make_node("Flatten", [P + "pool1_fwd"], [P + "flatten0_fwd"],
                                    name=P + "flatten0_fwd", axis=1))
    w = b.rng.standard_normal((1000, 2048)) * np.sqrt(1.0 / 2048)
    bias = b.rng.uniform(-0.1, 0.1, 1000)
    b.nodes.append(helper.make_node(
        "Gemm", [P + "flatten0_fwd", b.param(P + "dense0_weight", w), b.param(P + "dense0_bias", bias)],
        [P + "dense0_fwd"], name=P + "dense0_fwd", alpha=1.0, beta=1.0, transA=0, transB=1))

    inputs = [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, 224, 224])]
    # IR version 3 (as in the zoo file): initializers must also be graph inputs
    inputs += [helper.make_tensor_value_info(t.name, TensorProto.FLOAT, list(t.dims)) for t in b.inits]
    graph = helper.make_graph(
        b.nodes, "resnet50_v2", inputs,
        [helper.make_tensor_value_info(P + "dense0_fwd", TensorProto.FLOAT, [1, 1000])],
        initializer=b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 7)],
                              producer_name="wasmgraph tools/make_resnet50v2.py")
    model.ir_version = 3
    model.doc_string = f"ResNet-50 v2 (zoo resnet50-v2-7 layout) with random weights, seed {seed}"
    return model


def check(path):
    """Runs the model once with onnxruntime-node on a seeded uniform [-1,1) input; prints logit stats."""
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        x = np.random.default_rng(123).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
        inp = os.path.join(tmp, "input_0.pb")
        with open(inp, "wb") as f:
            f.write(numpy_helper.from_array(x, name="data").SerializeToString())
        subprocess.run(["node", os.path.join(here, "ort_run.js"), path, tmp, "--input", f"data={inp}",
                        "--threads", "2"], check=True)
        t = onnx.TensorProto()
        with open(os.path.join(tmp, "output_0.pb"), "rb") as f:
            t.ParseFromString(f.read())
        y = numpy_helper.to_array(t)
    ok = bool(np.isfinite(y).all()) and float(y.std()) > 1e-3
    print(f"logits {list(y.shape)}: mean {y.mean():.4f} std {y.std():.4f} min {y.min():.4f} "
          f"max {y.max():.4f} argmax {int(y.argmax())} -> {'ok' if ok else 'BAD'}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--check", action="store_true", help="run once with onnxruntime-node, print logit stats")
    a = ap.parse_args()
    model = build(a.seed)
    onnx.checker.check_model(model)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    onnx.save(model, a.out)
    n_params = sum(int(np.prod(t.dims)) for t in model.graph.initializer)
    print(f"{a.out}: {len(model.graph.node)} nodes, {n_params} parameters, {os.path.getsize(a.out)} bytes")
    if a.check and not check(a.out):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
