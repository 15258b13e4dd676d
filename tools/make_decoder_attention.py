#!/usr/bin/env python3
"""Writes a small transformer decoder built from ONNX's opset-23 transformer operators, with
seeded random weights, and one input, for the model tests (compared with onnxruntime):

    python tools/make_decoder_attention.py OUT_DIR [--layers 2] [--seq 16] [--hidden 64]

Each layer: RMSNormalization -> Q/K/V projections (MatMul) -> RotaryEmbedding on Q and K
(3-D, num_heads) -> Attention (3-D, grouped-query heads: 4 query heads over 2 key/value heads,
is_causal) -> output projection + residual -> RMSNormalization -> SiLU-gated MLP
(Sigmoid, Mul) + residual. Writes OUT_DIR/decoder_attention.onnx and OUT_DIR/input_0.pb
(hidden states [1, seq, hidden]).
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build(layers, seq, hidden, q_heads=4, kv_heads=2, ffn=128, seed=0):
    rng = np.random.default_rng(seed)
    head = hidden // q_heads
    inits, nodes = [], []

    def w(name, *shape, scale=None):
        s = scale if scale is not None else 1.0 / np.sqrt(shape[0])
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * s).astype(np.float32), name))
        return name

    # RoPE caches [seq, head / 2] and position ids [1, seq]
    inv = 1.0 / (10000 ** (np.arange(0, head, 2) / head))
    ang = np.arange(seq)[:, None] * inv[None, :]
    inits += [numpy_helper.from_array(np.cos(ang).astype(np.float32), "rope_cos"),
              numpy_helper.from_array(np.sin(ang).astype(np.float32), "rope_sin"),
              numpy_helper.from_array(np.arange(seq, dtype=np.int64)[None, :], "pos")]
    x = "x"
    for i in range(layers):
        p = f"l{i}_"
        g1 = w(p + "g1", hidden, scale=1.0)
        nodes.append(helper.make_node("RMSNormalization", [x, g1], [p + "h"], axis=-1, epsilon=1e-5))
        for t, n_out in (("q", q_heads * head), ("k", kv_heads * head), ("v", kv_heads * head)):
            nodes.append(helper.make_node("MatMul", [p + "h", w(p + "w" + t, hidden, n_out)], [p + t]))
        for t, heads in (("q", q_heads), ("k", kv_heads)):
            nodes.append(helper.make_node("RotaryEmbedding", [p + t, "rope_cos", "rope_sin", "pos"],
                                          [p + t + "r"], num_heads=heads))
        nodes.append(helper.make_node("Attention", [p + "qr", p + "kr", p + "v"], [p + "att"],
                                      q_num_heads=q_heads, kv_num_heads=kv_heads, is_causal=1))
        nodes.append(helper.make_node("MatMul", [p + "att", w(p + "wo", hidden, hidden)], [p + "o"]))
        nodes.append(helper.make_node("Add", [x, p + "o"], [p + "r1"]))
        g2 = w(p + "g2", hidden, scale=1.0)
        nodes.append(helper.make_node("RMSNormalization", [p + "r1", g2], [p + "h2"], axis=-1, epsilon=1e-5))
        nodes.append(helper.make_node("MatMul", [p + "h2", w(p + "wg", hidden, ffn)], [p + "gate"]))
        nodes.append(helper.make_node("MatMul", [p + "h2", w(p + "wu", hidden, ffn)], [p + "up"]))
        nodes.append(helper.make_node("Sigmoid", [p + "gate"], [p + "sg"]))
        nodes.append(helper.make_node("Mul", [p + "gate", p + "sg"], [p + "silu"]))
        nodes.append(helper.make_node("Mul", [p + "silu", p + "up"], [p + "act"]))
        nodes.append(helper.make_node("MatMul", [p + "act", w(p + "wd", ffn, hidden)], [p + "down"]))
        y = "y" if i == layers - 1 else p + "out"
        nodes.append(helper.make_node("Add", [p + "r1", p + "down"], [y]))
        x = y
    graph = helper.make_graph(nodes, "decoder_attention",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, seq, hidden])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, seq, hidden])],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)],
                              producer_name="wasmgraph tools/make_decoder_attention.py")
    model.ir_version = 10
    onnx.checker.check_model(model)
    return model, rng.standard_normal((1, seq, hidden)).astype(np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--seq", type=int, default=16)
    ap.add_argument("--hidden", type=int, default=64)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    model, x = build(args.layers, args.seq, args.hidden)
    onnx.save(model, os.path.join(args.out, "decoder_attention.onnx"))
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(args.out, "input_0.pb"))
    print(f"make_decoder_attention: {args.out}/decoder_attention.onnx ({args.layers} layers)")


if __name__ == "__main__":
    main()
