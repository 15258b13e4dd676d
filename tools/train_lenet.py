"""Trains LeNet-5 on Fashion-MNIST with numpy only and exports it to ONNX (opset 13).

    python tools/train_lenet.py models/lenet5-fashion.onnx [--epochs 4] [--seed 0]

Architecture (NCHW, float32):
    conv5x5(6, pad 2) + ReLU + maxpool2 -> conv5x5(16) + ReLU + maxpool2
    -> flatten(400) -> FC 120 + ReLU -> FC 84 + ReLU -> FC 10 (logits)
Input: raw pixels / 255 as float32 1x1x28x28, named `image`; output `logits` 1x10.
Convolutions use im2col + matmul; training is Adam on minibatches with a fixed
seed. After export, the saved ONNX graph is re-run node by node by a small
numpy interpreter (onnx_numpy_eval) on the whole test set, so a wiring or
layout mistake in the export shows up as an accuracy mismatch.
"""
import argparse
import os
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fashion_mnist  # noqa: E402

F32 = np.float32


# ---------------------------------------------------------------- layers

def im2col(xp, kh, kw):
    """xp: padded (N,C,H,W) -> (N*OH*OW, C*KH*KW) with columns ordered (C,KH,KW) like ONNX weights."""
    n, c, h, w = xp.shape
    oh, ow = h - kh + 1, w - kw + 1
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))  # N,C,OH,OW,KH,KW
    cols = win.transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, c * kh * kw)
    return cols, oh, ow


def conv_forward(x, w, b, pad):
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))) if pad else x
    f, c, kh, kw = w.shape
    cols, oh, ow = im2col(xp, kh, kw)
    out = cols @ w.reshape(f, -1).T + b
    out = out.reshape(x.shape[0], oh, ow, f).transpose(0, 3, 1, 2)
    return np.ascontiguousarray(out), (xp.shape, cols, pad)


def conv_backward(dout, w, cache):
    xp_shape, cols, pad = cache
    n, f, oh, ow = dout.shape
    _, c, kh, kw = w.shape
    dmat = dout.transpose(0, 2, 3, 1).reshape(-1, f)
    dw = (dmat.T @ cols).reshape(w.shape)
    db = dmat.sum(axis=0)
    dcols = (dmat @ w.reshape(f, -1)).reshape(n, oh, ow, c, kh, kw)
    dxp = np.zeros(xp_shape, dtype=F32)
    for i in range(kh):  # col2im: scatter-add every kernel tap back to its input pixel
        for j in range(kw):
            dxp[:, :, i:i + oh, j:j + ow] += dcols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    dx = dxp[:, :, pad:-pad, pad:-pad] if pad else dxp
    return dx, dw, db


def pool_forward(x):
    n, c, h, w = x.shape
    r = x.reshape(n, c, h // 2, 2, w // 2, 2)
    out = r.max(axis=(3, 5))
    mask = r == out[:, :, :, None, :, None]
    return out, mask


def pool_backward(dout, mask):
    n, c, h2, _, w2, _ = mask.shape
    # route the gradient to the max; ties split it (only happens on ReLU zeros, whose gradient is 0 anyway)
    share = mask / mask.sum(axis=(3, 5), keepdims=True)
    d = share * dout[:, :, :, None, :, None]
    return d.reshape(n, c, h2 * 2, w2 * 2).astype(F32)


# ---------------------------------------------------------------- model

def init_params(rng):
    def he(shape, fan_in):
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(F32)
    return {
        "conv1.w": he((6, 1, 5, 5), 25), "conv1.b": np.zeros(6, F32),
        "conv2.w": he((16, 6, 5, 5), 150), "conv2.b": np.zeros(16, F32),
        "fc1.w": he((120, 400), 400), "fc1.b": np.zeros(120, F32),
        "fc2.w": he((84, 120), 120), "fc2.b": np.zeros(84, F32),
        "fc3.w": he((10, 84), 84), "fc3.b": np.zeros(10, F32),
    }


def forward(p, x, train=False):
    c1, k1 = conv_forward(x, p["conv1.w"], p["conv1.b"], 2)
    r1 = np.maximum(c1, 0)
    p1, m1 = pool_forward(r1)
    c2, k2 = conv_forward(p1, p["conv2.w"], p["conv2.b"], 0)
    r2 = np.maximum(c2, 0)
    p2, m2 = pool_forward(r2)
    f0 = p2.reshape(x.shape[0], -1)
    h1 = np.maximum(f0 @ p["fc1.w"].T + p["fc1.b"], 0)
    h2 = np.maximum(h1 @ p["fc2.w"].T + p["fc2.b"], 0)
    logits = h2 @ p["fc3.w"].T + p["fc3.b"]
    if not train:
        return logits
    return logits, (k1, c1, m1, k2, c2, m2, p2.shape, f0, h1, h2)


def backward(p, dlogits, cache):
    k1, c1, m1, k2, c2, m2, p2_shape, f0, h1, h2 = cache
    g = {}
    g["fc3.w"] = dlogits.T @ h2
    g["fc3.b"] = dlogits.sum(0)
    dh2 = (dlogits @ p["fc3.w"]) * (h2 > 0)
    g["fc2.w"] = dh2.T @ h1
    g["fc2.b"] = dh2.sum(0)
    dh1 = (dh2 @ p["fc2.w"]) * (h1 > 0)
    g["fc1.w"] = dh1.T @ f0
    g["fc1.b"] = dh1.sum(0)
    df0 = dh1 @ p["fc1.w"]
    dr2 = pool_backward(df0.reshape(p2_shape), m2) * (c2 > 0)
    dp1, g["conv2.w"], g["conv2.b"] = conv_backward(dr2, p["conv2.w"], k2)
    dr1 = pool_backward(dp1, m1) * (c1 > 0)
    _, g["conv1.w"], g["conv1.b"] = conv_backward(dr1, p["conv1.w"], k1)
    return g


def softmax_xent(logits, labels):
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    prob = e / e.sum(axis=1, keepdims=True)
    n = logits.shape[0]
    loss = -np.log(prob[np.arange(n), labels] + 1e-12).mean()
    d = prob
    d[np.arange(n), labels] -= 1
    return float(loss), (d / n).astype(F32)


def accuracy(p, x, y, batch=1000):
    correct = 0
    for i in range(0, x.shape[0], batch):
        correct += int((forward(p, x[i:i + batch]).argmax(1) == y[i:i + batch]).sum())
    return correct / x.shape[0]


def train(p, x, y, epochs, batch, lr, rng, log=print):
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    b1, b2, eps, t = 0.9, 0.999, 1e-8, 0
    n = x.shape[0]
    for ep in range(epochs):
        order = rng.permutation(n)
        t0, tot, cnt = time.time(), 0.0, 0
        ep_lr = lr * (0.5 ** ep)  # halve the step each epoch
        for s in range(0, n, batch):
            idx = order[s:s + batch]
            logits, cache = forward(p, x[idx], train=True)
            loss, d = softmax_xent(logits, y[idx])
            g = backward(p, d, cache)
            t += 1
            for k in p:
                m[k] = b1 * m[k] + (1 - b1) * g[k]
                v[k] = b2 * v[k] + (1 - b2) * g[k] * g[k]
                mh = m[k] / (1 - b1 ** t)
                vh = v[k] / (1 - b2 ** t)
                p[k] -= (ep_lr * mh / (np.sqrt(vh) + eps)).astype(F32)
            tot += loss * len(idx)
            cnt += len(idx)
        log(f"epoch {ep + 1}/{epochs}: loss {tot / cnt:.4f}, lr {ep_lr:g}, {time.time() - t0:.1f} s")


# ---------------------------------------------------------------- ONNX export and check

def export(p, path, seed, test_acc):
    inits = [numpy_helper.from_array(v.astype(F32), name=k) for k, v in p.items()]
    nodes = [
        helper.make_node("Conv", ["image", "conv1.w", "conv1.b"], ["conv1"], name="conv1",
                         kernel_shape=[5, 5], pads=[2, 2, 2, 2]),
        helper.make_node("Relu", ["conv1"], ["relu1"], name="relu1"),
        helper.make_node("MaxPool", ["relu1"], ["pool1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["pool1", "conv2.w", "conv2.b"], ["conv2"], name="conv2", kernel_shape=[5, 5]),
        helper.make_node("Relu", ["conv2"], ["relu2"], name="relu2"),
        helper.make_node("MaxPool", ["relu2"], ["pool2"], name="pool2", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pool2"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc1.w", "fc1.b"], ["fc1"], name="fc1", transB=1),
        helper.make_node("Relu", ["fc1"], ["relu3"], name="relu3"),
        helper.make_node("Gemm", ["relu3", "fc2.w", "fc2.b"], ["fc2"], name="fc2", transB=1),
        helper.make_node("Relu", ["fc2"], ["relu4"], name="relu4"),
        helper.make_node("Gemm", ["relu4", "fc3.w", "fc3.b"], ["logits"], name="fc3", transB=1),
    ]
    graph = helper.make_graph(
        nodes, "lenet5_fashion_mnist",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 1, 28, 28])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="wasmgraph tools/train_lenet.py")
    model.ir_version = 7
    model.doc_string = (f"LeNet-5 trained on Fashion-MNIST with numpy (seed {seed}); input raw pixels/255 "
                        f"float32 1x1x28x28; test accuracy {test_acc * 100:.2f}%")
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return model


def onnx_numpy_eval(model, x):
    """Runs the exported graph node by node in numpy (batch of N): checks the export, not the trainer."""
    env = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    env[model.graph.input[0].name] = x
    for nd in model.graph.node:
        a = {at.name: helper.get_attribute_value(at) for at in nd.attribute}
        ins = [env[i] for i in nd.input]
        if nd.op_type == "Conv":
            pad = a.get("pads", [0, 0, 0, 0])[0]
            out, _ = conv_forward(ins[0], ins[1], ins[2], pad)
        elif nd.op_type == "Relu":
            out = np.maximum(ins[0], 0)
        elif nd.op_type == "MaxPool":
            out, _ = pool_forward(ins[0])
        elif nd.op_type == "Flatten":
            out = ins[0].reshape(ins[0].shape[0], -1)
        elif nd.op_type == "Gemm":
            out = ins[0] @ ins[1].T + ins[2]
        else:
            raise ValueError(f"node {nd.name}: op {nd.op_type} not handled by the check")
        env[nd.output[0]] = out
    return env[model.graph.output[0].name]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="output .onnx path")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-dir", default=None, help="Fashion-MNIST idx.gz folder")
    args = ap.parse_args()

    t_start = time.time()
    xtr, ytr = fashion_mnist.load("train", args.data_dir)
    xte, yte = fashion_mnist.load("test", args.data_dir)
    xtr, xte = fashion_mnist.normalise(xtr), fashion_mnist.normalise(xte)
    rng = np.random.default_rng(args.seed)
    p = init_params(rng)
    train(p, xtr, ytr.astype(np.int64), args.epochs, args.batch, args.lr, rng)
    t_train = time.time() - t_start
    acc = accuracy(p, xte, yte)
    print(f"training: {t_train:.1f} s; test accuracy (training code): {acc * 100:.2f}%")

    model = export(p, args.out, args.seed, acc)
    logits = np.concatenate([onnx_numpy_eval(model, xte[i:i + 1000]) for i in range(0, len(xte), 1000)])
    acc2 = float((logits.argmax(1) == yte).mean())
    print(f"exported {args.out} ({os.path.getsize(args.out)} bytes); "
          f"test accuracy (exported graph, numpy): {acc2 * 100:.2f}%")
    if abs(acc2 - acc) > 1e-9:
        print("error: exported graph disagrees with the trained model", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
