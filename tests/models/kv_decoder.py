"""Writes the KV-cache decoder test (tests/models.sh, section 18): a small hand-built
decoder-style graph as optimum-onnx writes them for transformers.js, whose symbolic sizes
are sums of symbols (docs/symbolic-dims.md "Sums of symbols"):

  - past_key / past_value [batch_size, past_sequence_length, D] (empty on the first step)
    and the new rows Concat'ed into present_key / present_value [batch, past + seq, D];
  - attention_mask [batch_size, "past_sequence_length + sequence_length"], a dim_param
    that is an expression the compiler derives (no --dim of its own);
  - a causal mask from Shape, Gather, Add of shape values, Range(past, past + seq),
    Range(past + seq), Unsqueeze, LessOrEqual, And, Expand, Where and a Slice to the keys'
    length, added to the attention scores; the keys' first seq rows (a Slice of the
    past + seq axis at seq); the last new row (a Gather at seq - 1) and a Slice from it.

Needs only onnx and numpy; models.sh runs 3 steps, feeding each step's presents back as
the next step's past, against onnxruntime-node (tools/ort_run.js).

    python kv_decoder.py OUTDIR

OUTDIR holds model.onnx, compile.args, tolerance, past_{key,value}.pb (the empty past of
step 1), step_<k>/{x,attention_mask}.pb and bad/ (a mask one longer than past + seq).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

D = 8
B = 2
STEPS = [5, 1, 3]  # new rows per step: a prefill with an empty past, then two more
COMPILE = "--dim batch_size=1..2 --dim sequence_length=1..8 --dim past_sequence_length=0..16"


def model(rng):
    f = TensorProto.FLOAT
    i64 = TensorProto.INT64
    inits = [numpy_helper.from_array(rng.standard_normal((D, D)).astype(np.float32) * 0.5, n)
             for n in ("wq", "wk", "wv")]

    def c(name, v, dt=np.int64):
        inits.append(numpy_helper.from_array(np.array(v, dtype=dt), name))
        return name

    c("zero", 0)
    c("one", 1)
    c("ax0", [0])
    c("ax1", [1])
    c("ax2", [2])
    c("i1", 1)
    c("i0", 0)
    c("neg", -1e9, np.float32)
    c("fzero", 0.0, np.float32)
    c("scale", 1.0 / np.sqrt(D), np.float32)
    N = helper.make_node
    nodes = [
        N("MatMul", ["x", "wq"], ["q"]),
        N("MatMul", ["x", "wk"], ["k"]),
        N("MatMul", ["x", "wv"], ["v"]),
        N("Concat", ["past_key", "k"], ["present_key"], axis=1),
        N("Concat", ["past_value", "v"], ["present_value"], axis=1),
        N("Transpose", ["present_key"], ["kt"], perm=[0, 2, 1]),
        N("MatMul", ["q", "kt"], ["qk"]),
        N("Mul", ["qk", "scale"], ["scores"]),
        # the lengths as shape values: past, seq, past + seq
        N("Shape", ["past_key"], ["pshape"]),
        N("Gather", ["pshape", "i1"], ["past_len"], axis=0),
        N("Shape", ["x"], ["xshape"]),
        N("Gather", ["xshape", "i1"], ["seq_len"], axis=0),
        N("Gather", ["xshape", "i0"], ["batch"], axis=0),
        N("Add", ["past_len", "seq_len"], ["total"]),
        # cache positions and key positions
        N("Range", ["past_len", "total", "one"], ["rows"]),
        N("Range", ["zero", "total", "one"], ["cols"]),
        N("Unsqueeze", ["rows", "ax1"], ["rows2"]),
        N("Unsqueeze", ["cols", "ax0"], ["cols2"]),
        N("LessOrEqual", ["cols2", "rows2"], ["causal"]),
        N("Cast", ["attention_mask"], ["pad"], to=TensorProto.BOOL),
        N("Unsqueeze", ["pad", "ax1"], ["pad3"]),
        N("And", ["causal", "pad3"], ["allowed"]),
        N("Unsqueeze", ["batch", "ax0"], ["b1"]),
        N("Unsqueeze", ["seq_len", "ax0"], ["s1"]),
        N("Unsqueeze", ["total", "ax0"], ["t1"]),
        N("Concat", ["b1", "s1", "t1"], ["mshape"], axis=0),
        N("Expand", ["allowed", "mshape"], ["allowed_b"]),
        N("Where", ["allowed_b", "fzero", "neg"], ["bias_full"]),
        # the keys' length from present_key, as llama's Slice_4 does
        N("Shape", ["present_key"], ["kshape"]),
        N("Gather", ["kshape", "i1"], ["klen"], axis=0),
        N("Unsqueeze", ["klen", "ax0"], ["kend"]),
        N("Slice", ["bias_full", "ax0", "kend", "ax2"], ["bias"]),
        N("Add", ["scores", "bias"], ["masked"]),
        N("Softmax", ["masked"], ["probs"], axis=-1),
        N("MatMul", ["probs", "present_value"], ["y"]),
        # the first seq rows of the keys: a symbolic end never past the past + seq axis
        N("Unsqueeze", ["seq_len", "ax0"], ["send"]),
        N("Slice", ["present_key", "ax0", "send", "ax1"], ["head"]),
        # the last new row, at seq - 1 (a sum symbol as an index), and the rows from it on
        N("Sub", ["seq_len", "one"], ["last_i"]),
        N("Gather", ["y", "last_i"], ["last"], axis=1),
        N("Unsqueeze", ["last_i", "ax0"], ["last_v"]),
        N("Slice", ["y", "last_v", "send", "ax1"], ["tail"]),
    ]
    vi = helper.make_tensor_value_info
    g = helper.make_graph(
        nodes, "kv_decoder",
        [vi("x", f, ["batch_size", "sequence_length", D]),
         vi("attention_mask", i64, ["batch_size", "past_sequence_length + sequence_length"]),
         vi("past_key", f, ["batch_size", "past_sequence_length", D]),
         vi("past_value", f, ["batch_size", "past_sequence_length", D])],
        [vi("y", f, ["batch_size", "sequence_length", D]),
         vi("present_key", f, ["batch_size", "past_sequence_length + sequence_length", D]),
         vi("present_value", f, ["batch_size", "past_sequence_length + sequence_length", D]),
         vi("head", f, ["batch_size", "sequence_length", D]),
         vi("last", f, ["batch_size", D]),
         vi("tail", f, ["batch_size", "tail_length", D])],
        inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def save(path, name, a):
    with open(path, "wb") as fh:
        fh.write(numpy_helper.from_array(a, name).SerializeToString())


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(7)
    os.makedirs(out, exist_ok=True)
    onnx.save(model(rng), os.path.join(out, "model.onnx"))
    with open(os.path.join(out, "compile.args"), "w") as fh:
        fh.write(COMPILE + "\n")
    with open(os.path.join(out, "tolerance"), "w") as fh:
        fh.write("1e-4 1e-5\n")
    empty = np.zeros((B, 0, D), np.float32)
    save(os.path.join(out, "past_key.pb"), "past_key", empty)
    save(os.path.join(out, "past_value.pb"), "past_value", empty)
    total = 0
    for k, s in enumerate(STEPS, 1):
        d = os.path.join(out, f"step_{k}")
        os.makedirs(d, exist_ok=True)
        total += s
        mask = np.ones((B, total), np.int64)
        mask[1, 0] = 0  # the second row left-padded by one
        save(os.path.join(d, "x.pb"), "x", rng.standard_normal((B, s, D)).astype(np.float32))
        save(os.path.join(d, "attention_mask.pb"), "attention_mask", mask)
    d = os.path.join(out, "bad")  # step 1 with a mask one longer than past + seq
    os.makedirs(d, exist_ok=True)
    save(os.path.join(d, "x.pb"), "x", rng.standard_normal((B, STEPS[0], D)).astype(np.float32))
    save(os.path.join(d, "attention_mask.pb"), "attention_mask", np.ones((B, STEPS[0] + 1), np.int64))


if __name__ == "__main__":
    main()
