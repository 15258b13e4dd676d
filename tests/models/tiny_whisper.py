"""Writes the encoder-decoder generation test's model folder (tests/models.sh, section 19c;
tests/js/test_generate.mjs): a one-layer encoder and a merged decoder with the inputs and
outputs optimum-onnx gives Whisper for transformers.js, so that `wasmgraph generate
--encoder`, the JS package and onnxruntime (tools/ort_generate.js --encoder) run the same
loop over it without torch:

  - encoder_model.onnx: input_features [batch_size, 8, 32] (log-mel-like) -> a strided
    Conv, Tanh -> last_hidden_state [batch_size, 16, 16];
  - decoder_model_merged.onnx: input_ids [batch_size, decoder_sequence_length],
    encoder_hidden_states [batch_size, encoder_sequence_length, 16], use_cache_branch bool
    [1], past_key_values.0.decoder.key / .value [batch_size, 2,
    past_decoder_sequence_length, 8] (Concat'ed with the new rows into present.0.decoder.*)
    and past_key_values.0.encoder.key / .value [batch_size, 2, encoder_sequence_length, 8],
    read only in an If on use_cache_branch: the cache branch passes them on as
    present.0.encoder.*, the other computes them from encoder_hidden_states. So the first
    step runs with them empty (docs/abi.md "Empty inputs");
  - token and position embeddings (positions from the past's length), self-attention over
    the cache with a causal mask, cross-attention over the encoder's keys, logits over 64
    tokens;
  - config.json (model_type whisper, 32 target and 16 source positions),
    generation_config.json (decoder start 1, forced ids [[1, 5], [2, 6]], eos 2), and
    features.npy, the encoder's input.

The weights are seeded and large enough that no two logits of a row tie.

    python tiny_whisper.py OUT_DIR     # OUT_DIR/onnx/*.onnx, OUT_DIR/*.json, OUT_DIR/features.npy
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

V, H, HEADS, POS, MELS, FRAMES = 64, 16, 2, 64, 8, 32
HD = H // HEADS
ENC = FRAMES // 2
F, I64 = TensorProto.FLOAT, TensorProto.INT64
n = helper.make_node


def weights(rng, *names_shapes):
    return [numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)
            for name, shape in names_shapes]


def const(name, v, dtype=np.int64):
    return numpy_helper.from_array(np.array(v, dtype=dtype), name)


def save(m, path):
    m.ir_version = 9
    onnx.checker.check_model(m)
    onnx.save(m, path)


def encoder(rng):
    inits = weights(rng, ("conv_w", (H, MELS, 3)), ("conv_b", (H,)))
    nodes = [n("Conv", ["input_features", "conv_w", "conv_b"], ["c"], pads=[1, 1], strides=[2]),
             n("Tanh", ["c"], ["t"]), n("Transpose", ["t"], ["last_hidden_state"], perm=[0, 2, 1])]
    g = helper.make_graph(nodes, "tiny_whisper_encoder",
                          [helper.make_tensor_value_info("input_features", F, ["batch_size", MELS, FRAMES])],
                          [helper.make_tensor_value_info("last_hidden_state", F, ["batch_size", ENC, H])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def heads(x, w, out):
    """x @ w as [batch, HEADS, rows, HD]."""
    return [n("MatMul", [x, w], [out + "_f"]), n("Reshape", [out + "_f", "heads"], [out + "_h"]),
            n("Transpose", [out + "_h"], [out], perm=[0, 2, 1, 3])]


def attend(q, k, v, out, mask=None):
    """softmax(q k^T * scale [masked]) v, merged back to [batch, rows, H]."""
    nodes = [n("Transpose", [k], [out + "_kT"], perm=[0, 1, 3, 2]), n("MatMul", [q, out + "_kT"], [out + "_qk"]),
             n("Mul", [out + "_qk", "scale"], [out + "_s"])]
    scores = out + "_s"
    if mask:
        nodes.append(n("Where", [mask, scores, "neg"], [out + "_m"]))
        scores = out + "_m"
    return nodes + [n("Softmax", [scores], [out + "_p"], axis=-1), n("MatMul", [out + "_p", v], [out + "_c"]),
                    n("Transpose", [out + "_c"], [out + "_ct"], perm=[0, 2, 1, 3]),
                    n("Reshape", [out + "_ct", "merge"], [out])]


def cross_branches():
    """The If on use_cache_branch: the encoder's keys and values, passed on from the pasts
    (the cache branch) or computed from encoder_hidden_states (the first step)."""
    past = "past_key_values.0.encoder."
    outs = lambda tag: [helper.make_tensor_value_info(f"{tag}_{kv}", F, None) for kv in ("k", "v")]
    cached = helper.make_graph([n("Identity", [past + "key"], ["cached_k"]), n("Identity", [past + "value"], ["cached_v"])],
                               "cache_branch", [], outs("cached"))
    fresh = helper.make_graph(heads("encoder_hidden_states", "wck", "fresh_k") +
                              heads("encoder_hidden_states", "wcv", "fresh_v"), "first_step", [], outs("fresh"))
    return n("If", ["use_cache_branch"], ["present.0.encoder.key", "present.0.encoder.value"],
             then_branch=cached, else_branch=fresh)


def decoder(rng):
    inits = weights(rng, ("tok", (V, H)), ("pos", (POS, H)), ("wq", (H, H)), ("wk", (H, H)), ("wv", (H, H)),
                    ("wo", (H, H)), ("wcq", (H, H)), ("wck", (H, H)), ("wcv", (H, H)), ("wco", (H, H)), ("lm", (H, V)))
    inits += [const("heads", [0, -1, HEADS, HD]), const("merge", [0, -1, H]), const("zero", 0), const("one", 1),
              const("two", 2), const("scale", 1 / np.sqrt(HD), np.float32), const("neg", -1e9, np.float32)]
    nodes = [
        # positions past .. past + seq - 1, past from the decoder cache's length
        n("Shape", ["past_key_values.0.decoder.key"], ["ps"]), n("Gather", ["ps", "two"], ["past"]),
        n("Shape", ["input_ids"], ["is"]), n("Gather", ["is", "one"], ["seq"]), n("Add", ["past", "seq"], ["total"]),
        n("Range", ["past", "total", "one"], ["rows"]), n("Gather", ["pos", "rows"], ["pe"]),
        n("Gather", ["tok", "input_ids"], ["te"]), n("Add", ["te", "pe"], ["x"]),
    ]
    nodes += heads("x", "wq", "q") + heads("x", "wk", "k") + heads("x", "wv", "v")
    nodes += [
        n("Concat", ["past_key_values.0.decoder.key", "k"], ["present.0.decoder.key"], axis=2),
        n("Concat", ["past_key_values.0.decoder.value", "v"], ["present.0.decoder.value"], axis=2),
        # causal: key j is seen by new row i when j <= past + i
        n("Unsqueeze", ["rows", "one"], ["rows_c"]), n("Range", ["zero", "total", "one"], ["cols"]),
        n("LessOrEqual", ["cols", "rows_c"], ["causal"]),
    ]
    nodes += attend("q", "present.0.decoder.key", "present.0.decoder.value", "self", mask="causal")
    nodes += [n("MatMul", ["self", "wo"], ["self_o"]), n("Add", ["x", "self_o"], ["h"]), cross_branches()]
    nodes += heads("h", "wcq", "cq") + attend("cq", "present.0.encoder.key", "present.0.encoder.value", "cross")
    nodes += [n("MatMul", ["cross", "wco"], ["cross_o"]), n("Add", ["h", "cross_o"], ["h2"]),
              n("MatMul", ["h2", "lm"], ["logits"])]
    seq, past, enc = "decoder_sequence_length", "past_decoder_sequence_length", "encoder_sequence_length"
    total = f"{past} + {seq}"
    kv = lambda prefix, tag, rows: [helper.make_tensor_value_info(f"{prefix}.0.{tag}.{x}", F, ["batch_size", HEADS, rows, HD])
                                    for x in ("key", "value")]
    inputs = ([helper.make_tensor_value_info("input_ids", I64, ["batch_size", seq]),
               helper.make_tensor_value_info("encoder_hidden_states", F, ["batch_size", enc, H])] +
              kv("past_key_values", "decoder", past) + kv("past_key_values", "encoder", enc) +
              [helper.make_tensor_value_info("use_cache_branch", TensorProto.BOOL, [1])])
    outputs = ([helper.make_tensor_value_info("logits", F, ["batch_size", seq, V])] +
               kv("present", "decoder", total) + kv("present", "encoder", enc))
    g = helper.make_graph(nodes, "tiny_whisper_decoder_merged", inputs, outputs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def main(out):
    rng = np.random.default_rng(20261207)
    os.makedirs(os.path.join(out, "onnx"), exist_ok=True)
    save(encoder(rng), os.path.join(out, "onnx", "encoder_model.onnx"))
    save(decoder(rng), os.path.join(out, "onnx", "decoder_model_merged.onnx"))
    np.save(os.path.join(out, "features.npy"), rng.standard_normal((1, MELS, FRAMES)).astype(np.float32))
    config = {"model_type": "whisper", "is_encoder_decoder": True, "max_target_positions": 32,
              "max_source_positions": ENC, "num_mel_bins": MELS, "vocab_size": V, "decoder_start_token_id": 1,
              "bos_token_id": 1, "eos_token_id": 2}
    gen = {"decoder_start_token_id": 1, "forced_decoder_ids": [[1, 5], [2, 6]], "eos_token_id": 2, "bos_token_id": 1}
    for name, obj in (("config.json", config), ("generation_config.json", gen)):
        with open(os.path.join(out, name), "w") as f:
            json.dump(obj, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
