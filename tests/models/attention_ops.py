"""Writes the attention-operator tests (tests/models.sh, section 20): onnxruntime's
GroupQueryAttention (com.microsoft) in small graphs of the form onnxruntime-genai's model
builder writes (seqlens_k = ReduceSum(attention_mask) - 1 and total_sequence_length =
Shape(attention_mask)[1], both cast to int32), with symbolic batch, sequence, past and total
lengths, run as a decoder runs: a prompt from an empty past (0 rows), then decode steps, each
step's presents fed back as the next one's past. Needs only onnx and numpy; models.sh gets
the reference outputs from onnxruntime-node (tools/ort_run.js) on the same inputs.

    python attention_ops.py OUTDIR

Each case OUTDIR/CASE/ holds model.onnx, compile.args, tolerance ("RTOL ATOL"), feedback
(lines "INPUT OUTPUT_INDEX": the past inputs and the outputs that feed them), past/ (the
empty past of the first step, one NAME.pb each) and step_<k>/NAME.pb, the other inputs of
step k.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from case_files import write_cases

MS = "com.microsoft"
FP32 = "1e-4 1e-5"
# float16 in and out: onnxruntime computes the attention in float32 from float16 inputs and
# rounds its output and the rotated keys it stores to float16; we keep float32 until the
# graph's output Cast. An output may differ by a float16 ulp of its magnitude (|y| < 4
# here: 2^-9 < 2e-3), and the caches fed back carry that into the next step's scores.
FP16 = "2e-3 4e-3"
DIMS = ("--dim batch_size=1..2 --dim sequence_length=1..8 --dim past_sequence_length=0..16 "
        "--dim total_sequence_length=1..24")
MAX_POS = 32


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def lengths_nodes():
    """seqlens_k and total_sequence_length from attention_mask, as the genai builder writes them."""
    N = helper.make_node
    return [
        N("ReduceSum", ["attention_mask", "axis1"], ["mask_sum"], keepdims=0),
        N("Sub", ["mask_sum", "one"], ["seqlens_i64"]),
        N("Cast", ["seqlens_i64"], ["seqlens_k"], to=TensorProto.INT32),
        N("Shape", ["attention_mask"], ["mask_shape"]),
        N("Gather", ["mask_shape", "idx1"], ["total_i64"], axis=0),
        N("Cast", ["total_i64"], ["total_seq_len"], to=TensorProto.INT32),
    ]


def lengths_inits():
    return [numpy_helper.from_array(np.array([1], np.int64), "axis1"),
            numpy_helper.from_array(np.array(1, np.int64), "one"),
            numpy_helper.from_array(np.array(1, np.int64), "idx1")]


def rope_caches(rng, half, dtype):
    """cos and sin caches [MAX_POS, half] of a rotary embedding (base 10000, angles per pair)."""
    inv = 1.0 / (10000 ** (np.arange(half) / half))
    ang = np.arange(MAX_POS)[:, None] * inv[None, :]
    return [numpy_helper.from_array(np.cos(ang).astype(dtype), "cos_cache"),
            numpy_helper.from_array(np.sin(ang).astype(dtype), "sin_cache")]


class Case:
    """One GQA graph and its steps. steps: [(new rows S, [valid length of each batch])]."""

    def __init__(self, name, hq=8, hk=2, d=16, batch=2, packed=False, rotary=False, interleaved=False,
                 rot_half=None, dtype=np.float32, steps=((5, (5, 3)), (1, (6, 4)), (1, (7, 5))), attrs=None,
                 tol=FP32, extras=(), doc=""):
        self.name, self.hq, self.hk, self.d, self.batch = name, hq, hk, d, batch
        self.packed, self.rotary, self.interleaved = packed, rotary, interleaved
        self.rot_half = rot_half or d // 2
        self.dtype, self.steps, self.attrs, self.tol, self.doc = dtype, steps, attrs or {}, tol, doc
        self.extras = extras  # of "position_ids", "attention_bias", "head_sink"

    def graph(self, rng):
        elem = TensorProto.FLOAT16 if self.dtype == np.float16 else TensorProto.FLOAT
        hq, hk, d = self.hq, self.hk, self.d
        qw = (hq + 2 * hk) * d if self.packed else hq * d
        ins = [vi("query", elem, ["batch_size", "sequence_length", qw])]
        if not self.packed:
            ins += [vi(n, elem, ["batch_size", "sequence_length", hk * d]) for n in ("key", "value")]
        ins += [vi("attention_mask", TensorProto.INT64, ["batch_size", "total_sequence_length"])]
        ins += [vi(n, elem, ["batch_size", hk, "past_sequence_length", d]) for n in ("past_key", "past_value")]
        outs = [vi("output", elem, ["batch_size", "sequence_length", hq * d])]
        outs += [vi(n, elem, ["batch_size", hk, "total_sequence_length", d]) for n in ("present_key", "present_value")]
        inits = lengths_inits()
        gqa_in = ["query", "" if self.packed else "key", "" if self.packed else "value", "past_key", "past_value",
                  "seqlens_k", "total_seq_len"]
        attrs = dict(num_heads=hq, kv_num_heads=hk, **self.attrs)
        if self.rotary:
            inits += rope_caches(rng, self.rot_half, self.dtype)
            gqa_in += ["cos_cache", "sin_cache"]
            attrs.update(do_rotary=1, rotary_interleaved=int(self.interleaved))
        if "position_ids" in self.extras:
            ins.append(vi("position_ids", TensorProto.INT64, ["batch_size", "sequence_length"]))
        if "attention_bias" in self.extras:
            ins.append(vi("attention_bias", elem, ["batch_size", 1, "sequence_length", "total_sequence_length"]))
        if "head_sink" in self.extras:
            inits.append(numpy_helper.from_array(rng.standard_normal(hq).astype(self.dtype), "head_sink"))
        if self.extras:
            gqa_in += [""] * (9 - len(gqa_in)) + [x if x in self.extras else "" for x in
                                                  ("position_ids", "attention_bias", "head_sink")]
            while not gqa_in[-1]:
                gqa_in.pop()
        nodes = lengths_nodes() + [helper.make_node("GroupQueryAttention", gqa_in,
                                                    ["output", "present_key", "present_value"], name="gqa",
                                                    domain=MS, **attrs)]
        return helper.make_graph(nodes, self.name, ins, outs, inits)

    def pasts(self):
        """The past inputs: (name, shape of the empty past, index of the output that feeds it)."""
        return [("past_key", (self.batch, self.hk, 0, self.d), 1), ("past_value", (self.batch, self.hk, 0, self.d), 2)]

    def feeds(self, rng, s, valid):
        """Step inputs other than the pasts, for s new rows and these valid lengths."""
        hq, hk, hd = self.hq, self.hk, self.d
        total = max(valid)
        feeds = {"attention_mask": np.array([[1] * v + [0] * (total - v) for v in valid], np.int64)}
        qw = (hq + 2 * hk) * hd if self.packed else hq * hd
        feeds["query"] = rng.standard_normal((self.batch, s, qw)).astype(self.dtype)
        if not self.packed:
            for n in ("key", "value"):
                feeds[n] = rng.standard_normal((self.batch, s, hk * hd)).astype(self.dtype)
        if "position_ids" in self.extras:  # the natural positions, shifted by 2
            feeds["position_ids"] = np.array([[v - s + i + 2 for i in range(s)] for v in valid], np.int64)
        if "attention_bias" in self.extras:
            feeds["attention_bias"] = rng.standard_normal((self.batch, 1, s, total)).astype(self.dtype)
        return feeds

    def write(self, out, rng):
        d = os.path.join(out, self.name)
        os.makedirs(os.path.join(d, "past"), exist_ok=True)
        model = helper.make_model(self.graph(rng), opset_imports=[helper.make_opsetid("", 21),
                                                                  helper.make_opsetid(MS, 1)])
        model.ir_version = 10  # onnxruntime-node reads IR versions up to 10
        onnx.save(model, os.path.join(d, "model.onnx"))
        feedback = "\n".join(f"{n} {i}" for n, _, i in self.pasts())
        for f, text in (("compile.args", DIMS), ("tolerance", self.tol), ("feedback", feedback)):
            with open(os.path.join(d, f), "w") as fh:
                fh.write(text + "\n")
        for n, shape, _ in self.pasts():
            save(np.zeros(shape, self.dtype), n, os.path.join(d, "past", n + ".pb"))
        for k, (s, valid) in enumerate(self.steps, 1):
            sd = os.path.join(d, f"step_{k}")
            os.makedirs(sd, exist_ok=True)
            for n, a in self.feeds(rng, s, valid).items():
                save(a, n, os.path.join(sd, n + ".pb"))


def save(arr, name, path):
    onnx.save_tensor(numpy_helper.from_array(arr, name), path)


CASES = [
    Case("gqa_groups", doc="8 query heads on 2 key/value heads, separate Q, K, V; batch 2, the second "
                           "right-padded (its own valid lengths)"),
    Case("gqa_packed_rotary", packed=True, rotary=True, batch=1, steps=((4, (4,)), (3, (7,)), (1, (8,))),
         doc="packed QKV, rotary (half-split), a second prompt of 3 rows after the first (batch 1)"),
    Case("gqa_rotary_interleaved_partial", d=32, rotary=True, interleaved=True, rot_half=8,
         doc="interleaved rotary over the first 16 of 32 values of each head"),
    Case("gqa_window_softcap", attrs=dict(local_window_size=2, softcap=3.0, scale=0.4),
         doc="a local window of 2, soft-capped scores, a scale of its own"),
    Case("gqa_smooth_softmax", hq=4, hk=4, attrs=dict(smooth_softmax=1), doc="smooth softmax, as many kv heads"),
    Case("gqa_sink_bias_positions", rotary=True, extras=("position_ids", "attention_bias", "head_sink"),
         doc="rotary at given position ids, an additive bias broadcast over the heads, head sinks"),
    Case("gqa_fp16", packed=True, rotary=True, dtype=np.float16, tol=FP16,
         doc="float16 inputs, caches and outputs"),
]


def mha_case(name, doc, steps=((5, (5, 3)), (1, (6, 4)), (1, (7, 5))), h=4, d=16, batch=2, dtype=np.float32,
             tol=FP32, **attrs):
    """A MultiHeadAttention with a past: query, key and value [B, S, H * D] of the new rows, a
    QKV bias, key_padding_mask [B, total] (int32, 0 for padding), past and present [B, H, *, D]."""
    return MhaStepCase(name, h, d, batch, dtype, steps, tol, attrs, doc)


class MhaStepCase(Case):
    def __init__(self, name, h, d, batch, dtype, steps, tol, attrs, doc):
        super().__init__(name, hq=h, hk=h, d=d, batch=batch, dtype=dtype, steps=steps, attrs=attrs, tol=tol, doc=doc)

    def graph(self, rng):
        elem = TensorProto.FLOAT16 if self.dtype == np.float16 else TensorProto.FLOAT
        h, d = self.hq, self.d
        ins = [vi(n, elem, ["batch_size", "sequence_length", h * d]) for n in ("query", "key", "value")]
        ins += [vi("attention_mask", TensorProto.INT64, ["batch_size", "total_sequence_length"])]
        ins += [vi(n, elem, ["batch_size", h, "past_sequence_length", d]) for n in ("past_key", "past_value")]
        outs = [vi("output", elem, ["batch_size", "sequence_length", h * d])]
        outs += [vi(n, elem, ["batch_size", h, "total_sequence_length", d]) for n in ("present_key", "present_value")]
        inits = [numpy_helper.from_array((rng.standard_normal(3 * h * d) * 0.3).astype(self.dtype), "qkv_bias")]
        nodes = [helper.make_node("Cast", ["attention_mask"], ["mask32"], to=TensorProto.INT32),
                 helper.make_node("MultiHeadAttention", ["query", "key", "value", "qkv_bias", "mask32", "",
                                                         "past_key", "past_value"],
                                  ["output", "present_key", "present_value"], name="mha", domain=MS,
                                  num_heads=h, **self.attrs)]
        return helper.make_graph(nodes, self.name, ins, outs, inits)


class AttentionStepCase(Case):
    """com.microsoft Attention as GPT-2's optimized files have it: the input projection by one
    weight matrix and bias, a unidirectional mask, past and present [2, B, N, *, H], an int32
    mask_index [B, total]."""

    def __init__(self, name, doc, h=4, d=8, hidden=24, **attrs):
        super().__init__(name, hq=h, hk=h, d=d, attrs=attrs, doc=doc)
        self.hidden = hidden

    def graph(self, rng):
        f = TensorProto.FLOAT
        h, d = self.hq, self.d
        ins = [vi("x", f, ["batch_size", "sequence_length", self.hidden]),
               vi("attention_mask", TensorProto.INT64, ["batch_size", "total_sequence_length"]),
               vi("past", f, [2, "batch_size", h, "past_sequence_length", d])]
        outs = [vi("output", f, ["batch_size", "sequence_length", h * d]),
                vi("present", f, [2, "batch_size", h, "total_sequence_length", d])]
        inits = [numpy_helper.from_array((rng.standard_normal((self.hidden, 3 * h * d)) * 0.3).astype(np.float32), "w"),
                 numpy_helper.from_array((rng.standard_normal(3 * h * d) * 0.2).astype(np.float32), "b")]
        nodes = [helper.make_node("Cast", ["attention_mask"], ["mask32"], to=TensorProto.INT32),
                 helper.make_node("Attention", ["x", "w", "b", "mask32", "past"], ["output", "present"],
                                  name="attention", domain=MS, num_heads=h, **self.attrs)]
        return helper.make_graph(nodes, self.name, ins, outs, inits)

    def pasts(self):
        return [("past", (2, self.batch, self.hq, 0, self.d), 1)]

    def feeds(self, rng, s, valid):
        total = max(valid)
        return {"x": rng.standard_normal((self.batch, s, self.hidden)).astype(np.float32),
                "attention_mask": np.array([[1] * v + [0] * (total - v) for v in valid], np.int64)}


STEP_CASES = CASES + [
    mha_case("mha_past_causal", "a decoder's self-attention: past and present, causal (unidirectional), a "
                                "padding mask, a QKV bias", unidirectional=1),
    mha_case("mha_past_fp16", "the same in float16, a scale and mask_filter_value of its own", dtype=np.float16,
             tol=FP16, unidirectional=1, scale=0.3, mask_filter_value=-1000.0),
    AttentionStepCase("ms_attention_past", "com.microsoft Attention with a past (GPT-2's form), unidirectional",
                      unidirectional=1),
]

SET_DIMS = "--dim batch=1..3 --dim seq=1..9 --dim kv=1..12"
SIZES = [(1, 1, 1), (2, 5, 7), (3, 9, 12)]  # (batch, seq, kv): the smallest, odd ones, the maxima


def case_mha_cross(rng, dtype=np.float32, tol=FP32, name="mha_cross"):
    """The genai builder's float16 CPU form: separate Q, K, V of different lengths (the cache
    concatenated and its heads repeated in the graph), an additive attention_bias [B, H, S, T]
    holding the causal and padding mask, no past."""
    elem = TensorProto.FLOAT16 if dtype == np.float16 else TensorProto.FLOAT
    h, d = 4, 16
    node = helper.make_node("MultiHeadAttention", ["q", "k", "v", "", "", "bias"], ["y"], domain=MS, num_heads=h,
                            scale=0.25)
    g = helper.make_graph([node], name, [vi("q", elem, ["batch", "seq", h * d]), vi("k", elem, ["batch", "kv", h * d]),
                                         vi("v", elem, ["batch", "kv", h * d]),
                                         vi("bias", elem, ["batch", h, "seq", "kv"])],
                          [vi("y", elem, ["batch", "seq", h * d])])
    sets = []
    for b, s, t in SIZES:
        bias = np.where(rng.random((b, h, s, t)) < 0.3, -65504.0, rng.standard_normal((b, h, s, t)))
        sets.append((f"{b}x{s}x{t}", {"q": rng.standard_normal((b, s, h * d)).astype(dtype),
                                      "k": rng.standard_normal((b, t, h * d)).astype(dtype),
                                      "v": rng.standard_normal((b, t, h * d)).astype(dtype),
                                      "bias": bias.astype(dtype)}))
    return g, sets, SET_DIMS, tol


def case_mha_cross_fp16(rng):
    return case_mha_cross(rng, np.float16, FP16, "mha_cross_fp16")


def case_mha_masks(rng):
    """Key padding masks of both forms, [B, T] and [B] (lengths), a value head size of its own
    (8 against the query's 16), a bias broadcast over the batch, the default scale."""
    h, d, dv = 2, 16, 8
    f = TensorProto.FLOAT
    nodes = [helper.make_node("MultiHeadAttention", ["q", "k", "v", "", "mask2"], ["y2"], domain=MS, num_heads=h),
             helper.make_node("MultiHeadAttention", ["q", "k", "v", "", "lens", "bias"], ["y1"], domain=MS,
                              num_heads=h, mask_filter_value=-50.0)]
    g = helper.make_graph(nodes, "mha_masks", [vi("q", f, ["batch", "seq", h * d]), vi("k", f, ["batch", "kv", h * d]),
                                               vi("v", f, ["batch", "kv", h * dv]),
                                               vi("mask2", TensorProto.INT32, ["batch", "kv"]),
                                               vi("lens", TensorProto.INT32, ["batch"]),
                                               vi("bias", f, [1, h, "seq", "kv"])],
                          [vi("y2", f, ["batch", "seq", h * dv]), vi("y1", f, ["batch", "seq", h * dv])])
    sets = []
    for b, s, t in SIZES:
        mask = (rng.random((b, t)) < 0.7).astype(np.int32)
        mask[:, 0] = 1
        sets.append((f"{b}x{s}x{t}", {"q": rng.standard_normal((b, s, h * d)).astype(np.float32),
                                      "k": rng.standard_normal((b, t, h * d)).astype(np.float32),
                                      "v": rng.standard_normal((b, t, h * dv)).astype(np.float32),
                                      "mask2": mask, "lens": rng.integers(1, t + 1, b).astype(np.int32),
                                      "bias": rng.standard_normal((1, h, s, t)).astype(np.float32)}))
    return g, sets, SET_DIMS, FP32


def case_ms_rotary(rng, dtype=np.float32, tol=FP32, name="ms_rotary"):
    """com.microsoft RotaryEmbedding as the genai builder writes it (3-D input, position_ids
    [B, S], head size from the caches), a 4-D interleaved one at a position offset (one value),
    and a partial one (rotary_embedding_dim 8 of head size 16, num_heads)."""
    elem = TensorProto.FLOAT16 if dtype == np.float16 else TensorProto.FLOAT
    h, d = 4, 16
    cos, sin = rope_caches(rng, d // 2, dtype)
    cos4 = numpy_helper.from_array(numpy_helper.to_array(cos)[:, :4].copy(), "cos4")
    sin4 = numpy_helper.from_array(numpy_helper.to_array(sin)[:, :4].copy(), "sin4")
    nodes = [helper.make_node("RotaryEmbedding", ["x", "pos", "cos_cache", "sin_cache"], ["y"], domain=MS),
             helper.make_node("RotaryEmbedding", ["x4", "offset", "cos_cache", "sin_cache"], ["y4"], domain=MS,
                              interleaved=1),
             helper.make_node("RotaryEmbedding", ["x", "pos", "cos4", "sin4"], ["yp"], domain=MS,
                              rotary_embedding_dim=8, num_heads=h)]
    g = helper.make_graph(nodes, name, [vi("x", elem, ["batch", "seq", h * d]),
                                        vi("pos", TensorProto.INT64, ["batch", "seq"]),
                                        vi("x4", elem, ["batch", h, "seq", d]), vi("offset", TensorProto.INT64, [1])],
                          [vi("y", elem, ["batch", "seq", h * d]), vi("y4", elem, ["batch", h, "seq", d]),
                           vi("yp", elem, ["batch", "seq", h * d])], [cos, sin, cos4, sin4])
    sets = []
    for b, s, _ in SIZES:
        sets.append((f"{b}x{s}", {"x": rng.standard_normal((b, s, h * d)).astype(dtype),
                                  "pos": rng.integers(0, MAX_POS, (b, s)).astype(np.int64),
                                  "x4": rng.standard_normal((b, h, s, d)).astype(dtype),
                                  "offset": np.array([MAX_POS - s - 1], np.int64)}))
    return g, sets, "--dim batch=1..3 --dim seq=1..9", tol


def case_ms_rotary_fp16(rng):
    return case_ms_rotary(rng, np.float16, FP16, "ms_rotary_fp16")


def case_ms_attention(rng):
    """com.microsoft Attention as BERT's optimized files have it: no past, mask_index as
    lengths [B], a value hidden size of its own (qkv_hidden_sizes), an attention_bias, a scale;
    and a [B, S, T] mask_index. (Both with a bias: onnxruntime-node 1.30's CPU kernel crashes
    without one, which the schema allows.)"""
    f = TensorProto.FLOAT
    hidden, h = 24, 4
    nodes = [helper.make_node("Attention", ["x", "w", "b", "lens", "", "ab"], ["y1"], domain=MS, num_heads=h,
                              qkv_hidden_sizes=[16, 16, 8], scale=0.3),
             helper.make_node("Attention", ["x", "w3", "b3", "mask3"], ["y2"], domain=MS, num_heads=h)]
    inits = [numpy_helper.from_array((rng.standard_normal((hidden, 40)) * 0.3).astype(np.float32), "w"),
             numpy_helper.from_array((rng.standard_normal(40) * 0.2).astype(np.float32), "b"),
             numpy_helper.from_array((rng.standard_normal((hidden, 48)) * 0.3).astype(np.float32), "w3"),
             numpy_helper.from_array((rng.standard_normal(48) * 0.2).astype(np.float32), "b3")]
    g = helper.make_graph(nodes, "ms_attention", [vi("x", f, ["batch", "seq", hidden]),
                                                  vi("lens", TensorProto.INT32, ["batch"]),
                                                  vi("ab", f, ["batch", h, "seq", "seq"]),
                                                  vi("mask3", TensorProto.INT32, ["batch", "seq", "seq"])],
                          [vi("y1", f, ["batch", "seq", 8]), vi("y2", f, ["batch", "seq", 16])], inits)
    sets = []
    for b, s, _ in SIZES:
        m3 = (rng.random((b, s, s)) < 0.7).astype(np.int32)
        m3[:, :, 0] = 1
        sets.append((f"{b}x{s}", {"x": rng.standard_normal((b, s, hidden)).astype(np.float32),
                                  "lens": rng.integers(1, s + 1, b).astype(np.int32),
                                  "ab": rng.standard_normal((b, h, s, s)).astype(np.float32), "mask3": m3}))
    return g, sets, "--dim batch=1..3 --dim seq=1..9", FP32


SET_CASES = [case_ms_attention, case_mha_cross, case_mha_cross_fp16, case_mha_masks, case_ms_rotary,
             case_ms_rotary_fp16]


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(20)
    for c in STEP_CASES:
        c.write(os.path.join(out, "steps"), rng)
    write_cases(os.path.join(out, "sets"), SET_CASES, rng, [("", 21), (MS, 1)], 10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
