"""Writes the generation test's decoder (tests/models.sh, section 20): a one-layer causal
language model with the inputs and outputs optimum-onnx gives a decoder for
transformers.js, so that `wasmgraph generate` and onnxruntime (tools/ort_generate.js) run
the same greedy loop over it without torch:

  - input_ids and position_ids [batch_size, sequence_length] (int64), attention_mask
    [batch_size, "past_sequence_length + sequence_length"];
  - past_key_values.0.key / .value [batch_size, 2, past_sequence_length, 8], empty on the
    first step, Concat'ed with the new rows into present.0.key / .value;
  - token and position embeddings, two heads of attention over the cache with a causal
    mask from Shape and Range plus the attention mask, a residual, logits over 64 tokens.

The weights are seeded and large enough that no two logits of a row tie.

    python tiny_lm.py OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

V, H, HEADS, POS = 64, 16, 2, 64
HD = H // HEADS


def model(rng):
    f, i64 = TensorProto.FLOAT, TensorProto.INT64
    w = lambda name, *shape: numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)
    c = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.int64), name)
    inits = [w("tok", V, H), w("pos", POS, H), w("wq", H, H), w("wk", H, H), w("wv", H, H), w("wo", H, H),
             w("lm", H, V), c("heads", [0, -1, HEADS, HD]), c("merge", [0, -1, H]),
             c("zero", 0), c("one", 1), c("two_s", 2),
             numpy_helper.from_array(np.array(1 / np.sqrt(HD), np.float32), "scale"),
             numpy_helper.from_array(np.array(-1e9, np.float32), "neg")]
    n = helper.make_node
    nodes = [
        n("Gather", ["tok", "input_ids"], ["te"]), n("Gather", ["pos", "position_ids"], ["pe"]),
        n("Add", ["te", "pe"], ["x"]),
    ]
    for name, wname in (("q", "wq"), ("k", "wk"), ("v", "wv")):
        nodes += [n("MatMul", ["x", wname], [name + "_f"]), n("Reshape", [name + "_f", "heads"], [name + "_h"]),
                  n("Transpose", [name + "_h"], [name + "_t"], perm=[0, 2, 1, 3])]
    nodes += [
        n("Concat", ["past_key_values.0.key", "k_t"], ["present.0.key"], axis=2),
        n("Concat", ["past_key_values.0.value", "v_t"], ["present.0.value"], axis=2),
        n("Transpose", ["present.0.key"], ["kT"], perm=[0, 1, 3, 2]),
        n("MatMul", ["q_t", "kT"], ["qk"]), n("Mul", ["qk", "scale"], ["scores"]),
        # causal: key j is seen by new row i when j <= total - seq + i
        n("Shape", ["present.0.key"], ["ks"]), n("Gather", ["ks", "two_s"], ["total"]),
        n("Shape", ["q_t"], ["qs"]), n("Gather", ["qs", "two_s"], ["seq"]),
        n("Sub", ["total", "seq"], ["past"]), n("Range", ["past", "total", "one"], ["rows"]),
        n("Unsqueeze", ["rows", "one"], ["rows_c"]), n("Range", ["zero", "total", "one"], ["cols"]),
        n("LessOrEqual", ["cols", "rows_c"], ["causal"]),
        n("Cast", ["attention_mask"], ["am"], to=TensorProto.BOOL),
        n("Unsqueeze", ["am", "one"], ["am_r"]), n("Unsqueeze", ["am_r", "one"], ["am_rr"]),
        n("And", ["causal", "am_rr"], ["seen"]),
        n("Where", ["seen", "scores", "neg"], ["masked"]), n("Softmax", ["masked"], ["p"], axis=-1),
        n("MatMul", ["p", "present.0.value"], ["ctx"]), n("Transpose", ["ctx"], ["ctx_t"], perm=[0, 2, 1, 3]),
        n("Reshape", ["ctx_t", "merge"], ["ctx_m"]), n("MatMul", ["ctx_m", "wo"], ["attn"]),
        n("Add", ["x", "attn"], ["h"]), n("MatMul", ["h", "lm"], ["logits"]),
    ]
    seq, past, total = "sequence_length", "past_sequence_length", "past_sequence_length + sequence_length"
    inputs = [helper.make_tensor_value_info("input_ids", i64, ["batch_size", seq]),
              helper.make_tensor_value_info("attention_mask", i64, ["batch_size", total]),
              helper.make_tensor_value_info("position_ids", i64, ["batch_size", seq]),
              helper.make_tensor_value_info("past_key_values.0.key", f, ["batch_size", HEADS, past, HD]),
              helper.make_tensor_value_info("past_key_values.0.value", f, ["batch_size", HEADS, past, HD])]
    outputs = [helper.make_tensor_value_info("logits", f, ["batch_size", seq, V]),
               helper.make_tensor_value_info("present.0.key", f, ["batch_size", HEADS, total, HD]),
               helper.make_tensor_value_info("present.0.value", f, ["batch_size", HEADS, total, HD])]
    g = helper.make_graph(nodes, "tiny_lm", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    onnx.checker.check_model(m)
    return m


if __name__ == "__main__":
    onnx.save(model(np.random.default_rng(20261207)), sys.argv[1])
