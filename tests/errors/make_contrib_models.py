"""Writes small models of onnxruntime's contrib operators that must be refused, each with the
mistake its name says (tests/errors.sh checks the messages): make_contrib_models.py OUTDIR."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MS = "com.microsoft"


def save(out, name, nodes, opsets=(("", 21), (MS, 1)), inits=()):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])
    outs = sorted({o for n in nodes for o in n.output if o} - {i for n in nodes for i in n.input})
    g = helper.make_graph(nodes, "g", [x], [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs],
                          list(inits))
    model = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    model.ir_version = 10
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    g = numpy_helper.from_array(np.ones(4, np.float32), "g")
    fast = helper.make_node("FastGelu", ["x"], ["y"], name="fg", domain=MS)
    # An operator of com.microsoft that wasmgraph does not implement.
    save(out, "ms_unknown_op", [helper.make_node("QOrderedMatMul", ["x"], ["y"], name="mm", domain=MS)])
    # A com.microsoft node in a model that does not import the domain, or imports opset 2.
    save(out, "ms_not_imported", [fast], opsets=(("", 21),))
    save(out, "ms_opset_2", [fast], opsets=(("", 21), (MS, 2)))
    # Input counts: SkipLayerNormalization needs input, skip and gamma; BiasGelu takes two.
    save(out, "skip_ln_two_inputs", [helper.make_node("SkipLayerNormalization", ["x", "x"], ["y"], name="sln",
                                                      domain=MS)])
    save(out, "bias_gelu_three_inputs", [helper.make_node("BiasGelu", ["x", "g", "g"], ["y"], name="bg", domain=MS)],
         inits=[g])
    # An attribute the schema does not have, and one of the wrong type.
    save(out, "fast_gelu_unknown_attr", [helper.make_node("FastGelu", ["x"], ["y"], name="fg", domain=MS, foo=1)])
    save(out, "quick_gelu_ints_alpha", [helper.make_node("QuickGelu", ["x"], ["y"], name="qg", domain=MS,
                                                         alpha=[1, 2])])
    # An attribute value we do not compute: statistics in float16.
    save(out, "sln_stash_type_10", [helper.make_node("SimplifiedLayerNormalization", ["x", "g"], ["y"], name="rms",
                                                     stash_type=10)], inits=[g])
    # SimplifiedLayerNormalization is onnxruntime's in the default domain, FastGelu in com.microsoft.
    save(out, "sln_in_ms", [helper.make_node("SimplifiedLayerNormalization", ["x", "g"], ["y"], name="rms",
                                             domain=MS)], inits=[g])
    save(out, "fast_gelu_in_default", [helper.make_node("FastGelu", ["x"], ["y"], name="fg")])
    # The mean of an RMS normalisation, and a FastGelu bias that is not one row.
    save(out, "skip_simplified_mean", [helper.make_node("SkipSimplifiedLayerNormalization", ["x", "x", "g"],
                                                        ["y", "m"], name="ssln", domain=MS)], inits=[g])
    b2 = numpy_helper.from_array(np.ones((2, 4), np.float32), "b")
    # MatMulIntegerToFloat's a_scale is one value (onnxruntime quantizes A per tensor).
    save(out, "mitf_a_scale_2", [helper.make_node("Cast", ["x"], ["xq"], to=TensorProto.UINT8),
                                 helper.make_node("MatMulIntegerToFloat", ["xq", "bq", "as", "bs"], ["y"], name="mitf",
                                                  domain=MS)],
         inits=[numpy_helper.from_array(np.ones((4, 3), np.uint8), "bq"),
                numpy_helper.from_array(np.ones(2, np.float32), "as"),
                numpy_helper.from_array(np.ones(1, np.float32), "bs")])
    save(out, "fast_gelu_bias_2d", [helper.make_node("FastGelu", ["x", "b"], ["y"], name="fg", domain=MS)],
         inits=[b2])

    qlstm_models(out)
    nbits_models(out)
    gqa_models(out)
    mha_models(out)


def qlstm(out, name, w=(1, 4, 8), zp_dtype=np.int8, scale=True, attrs=None):
    """A DynamicQuantizeLSTM of x [2, 4] unsqueezed to [seq 2, batch 1, input 4] (hidden 2, one
    direction) with W of shape w, R [1, 2, 8], zero points of zp_dtype; scale=False leaves
    R_scale out."""
    a = {"hidden_size": 2}
    a.update(attrs or {})
    inits = [numpy_helper.from_array(np.ones(w, np.int8), "W"), numpy_helper.from_array(np.ones((1, 2, 8), np.int8), "R"),
             numpy_helper.from_array(np.ones(1, np.float32), "ws"), numpy_helper.from_array(np.zeros(1, zp_dtype), "wz"),
             numpy_helper.from_array(np.ones(1, np.float32), "rs"), numpy_helper.from_array(np.zeros(1, np.int8), "rz")]
    ins = ["x3", "W", "R", "", "", "", "", "", "ws", "wz", "rs" if scale else "", "rz"]
    save(out, name, [helper.make_node("Unsqueeze", ["x", "axes"], ["x3"]),
                     helper.make_node("DynamicQuantizeLSTM", ins, ["y"], name="qlstm", domain=MS, **a)],
         inits=inits + [numpy_helper.from_array(np.array([1], np.int64), "axes")])


def qlstm_models(out):
    """DynamicQuantizeLSTM: W not [directions, input, 4 hidden], R_scale missing, a zero point
    of another type than its weight, an attribute LSTM does not have."""
    qlstm(out, "qlstm_w_shape", w=(1, 8, 4))
    qlstm(out, "qlstm_no_r_scale", scale=False)
    qlstm(out, "qlstm_zp_dtype", zp_dtype=np.uint8)
    qlstm(out, "qlstm_unknown_attr", attrs={"layout": 1})


def nbits(out, name, attrs=None, b=(3, 1, 8), s=(3, 1), zp=None, gidx=None, raw_b=None):
    """A MatMulNBits of x [2, 4] (K = 4, N = 3, 4 bits, block 16 unless attrs say otherwise)
    with B, scales and zero points of the given shapes; raw_b: B's bytes as stored."""
    a = {"K": 4, "N": 3, "bits": 4, "block_size": 16}
    a.update(attrs or {})
    B = numpy_helper.from_array(np.full(b, 0x88, np.uint8), "B")
    if raw_b is not None:
        B.raw_data = raw_b
    inits = [B, numpy_helper.from_array(np.full(s, 0.5, np.float32), "s")]
    ins = ["x", "B", "s"]
    if zp is not None:
        inits.append(numpy_helper.from_array(np.full(zp, 0x88, np.uint8), "zp"))
        ins.append("zp")
    if gidx is not None:
        if zp is None:
            ins.append("")
        inits.append(numpy_helper.from_array(np.zeros(gidx, np.int32), "g"))
        ins.append("g")
    save(out, name, [helper.make_node("MatMulNBits", ins, ["y"], name="mnb", domain=MS, **a)], inits=inits)


def nbits_models(out):
    """The quantized-weight ops' refusals: tensors of the wrong size, attributes they disagree
    with, attribute values outside the schema's or ours; MatMulNBits' g_idx;
    GatherBlockQuantized's other axes; MatMulBnb4's transB 0."""
    nbits(out, "nbits_b_missized", b=(3, 1, 9))
    nbits(out, "nbits_b_truncated", raw_b=bytes(20))
    nbits(out, "nbits_scales_missized", s=(3, 2))
    nbits(out, "nbits_zp_missized", zp=(3, 2))
    nbits(out, "nbits_block_24", attrs={"block_size": 24}, b=(3, 1, 12))
    nbits(out, "nbits_block_8", attrs={"block_size": 8}, b=(3, 1, 4))
    nbits(out, "nbits_block_512", attrs={"block_size": 512}, b=(3, 1, 256))
    nbits(out, "nbits_k_vs_a", attrs={"K": 8})
    nbits(out, "nbits_n_vs_b", attrs={"N": 5})
    nbits(out, "nbits_bits_3", attrs={"bits": 3}, b=(3, 1, 6))
    nbits(out, "nbits_bits_9", attrs={"bits": 9}, b=(3, 1, 18))
    nbits(out, "nbits_gidx", gidx=(4,))
    # GatherBlockQuantized of a [6, 16] uint8 table (32 4-bit values a row, block 16: 2 scales)
    gbq_inits = [numpy_helper.from_array(np.zeros((6, 16), np.uint8), "table"),
                 numpy_helper.from_array(np.ones((6, 3), np.float32), "gs")]
    gbq = {"bits": 4, "block_size": 16, "gather_axis": 0, "quantize_axis": 1}
    save_ids(out, "gbq_scales_missized", helper.make_node("GatherBlockQuantized", ["table", "ids", "gs"], ["y"],
                                                          name="gbq", domain=MS, **gbq), gbq_inits)
    gbq_inits[1] = numpy_helper.from_array(np.ones((6, 2), np.float32), "gs")
    save_ids(out, "gbq_gather_axis_1", helper.make_node("GatherBlockQuantized", ["table", "ids", "gs"], ["y"],
                                                        name="gbq", domain=MS, **dict(gbq, gather_axis=1)), gbq_inits)
    save_ids(out, "gbq_bits_2", helper.make_node("GatherBlockQuantized", ["table", "ids", "gs"], ["y"], name="gbq",
                                                 domain=MS, **dict(gbq, bits=2)), gbq_inits)
    # MatMulBnb4 of x [2, 4], N = 3 (12 codes: 6 bytes; block 16: one absmax)
    bnb = {"K": 4, "N": 3, "block_size": 16, "quant_type": 1}
    bnb_inits = lambda nb, na: [numpy_helper.from_array(np.zeros(nb, np.uint8), "bq"),
                                numpy_helper.from_array(np.ones(na, np.float32), "am")]
    node = lambda **a: helper.make_node("MatMulBnb4", ["x", "bq", "am"], ["y"], name="bnb", domain=MS, **dict(bnb, **a))
    save(out, "bnb4_b_missized", [node()], inits=bnb_inits(7, 1))
    save(out, "bnb4_absmax_missized", [node()], inits=bnb_inits(6, 2))
    save(out, "bnb4_quant_type_2", [node(quant_type=2)], inits=bnb_inits(6, 1))
    save(out, "bnb4_block_24", [node(block_size=24)], inits=bnb_inits(6, 1))
    save(out, "bnb4_transb_0", [node(transB=0)], inits=bnb_inits(6, 1))


def save_ids(out, name, node, inits):
    """A model of one node gathering with int64 ids [2, 3]."""
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [2, 3])
    g = helper.make_graph([node], "g", [ids], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          list(inits))
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)])
    model.ir_version = 10
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())


def gqa(out, name, hq=4, hk=2, d=8, hidden=None, attrs=None, seqlens=None, total=None, outputs=3, mask=(1, 6),
        past=2, seq=1, query_elem=TensorProto.FLOAT):
    """A GroupQueryAttention node 'gqa' of the form the genai builder writes: seqlens_k and
    total_sequence_length from attention_mask [mask] (static shapes), query [1, seq, hidden],
    key and value [1, seq, hk * d], past [1, hk, past, d]. seqlens: a graph input 'seqlens'
    of that (elem type, shape) instead; total: the same for total_sequence_length."""
    f = TensorProto.FLOAT
    hidden = hidden or hq * d
    ins = [helper.make_tensor_value_info("query", query_elem, [1, seq, hidden]),
           helper.make_tensor_value_info("key", f, [1, seq, hk * d]),
           helper.make_tensor_value_info("value", f, [1, seq, hk * d]),
           helper.make_tensor_value_info("attention_mask", TensorProto.INT64, list(mask)),
           helper.make_tensor_value_info("past_key", f, [1, hk, past, d]),
           helper.make_tensor_value_info("past_value", f, [1, hk, past, d])]
    N = helper.make_node
    nodes = [N("ReduceSum", ["attention_mask", "axis1"], ["mask_sum"], keepdims=0),
             N("Sub", ["mask_sum", "one"], ["sl64"]),
             N("Cast", ["sl64"], ["seqlens_k"], to=TensorProto.INT32),
             N("Shape", ["attention_mask"], ["shape"]),
             N("Gather", ["shape", "one"], ["total64"], axis=0),
             N("Cast", ["total64"], ["total_seq_len"], to=TensorProto.INT32)]
    sl, tot = "seqlens_k", "total_seq_len"
    if seqlens is not None:
        ins.append(helper.make_tensor_value_info("seqlens", *seqlens))
        sl = "seqlens"
    if total is not None:
        ins.append(helper.make_tensor_value_info("total", *total))
        tot = "total"
    gqa_ins = ["query", "key", "value", "past_key", "past_value", sl, tot]
    if sl is None:
        gqa_ins = gqa_ins[:5]
    outs = ["y", "present_key", "present_value"][:outputs]
    nodes.append(N("GroupQueryAttention", gqa_ins, outs, name="gqa", domain=MS,
                   **dict(dict(num_heads=hq, kv_num_heads=hk), **(attrs or {}))))
    inits = [numpy_helper.from_array(np.array([1], np.int64), "axis1"),
             numpy_helper.from_array(np.array(1, np.int64), "one")]
    g = helper.make_graph(nodes, "g", ins, [helper.make_tensor_value_info(o, f, None) for o in outs], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)])
    model.ir_version = 10
    with open(os.path.join(out, name + ".onnx"), "wb") as fh:
        fh.write(model.SerializeToString())


def gqa_models(out):
    """GroupQueryAttention's refusals (head counts, shapes, types, missing inputs, attributes
    wasmgraph does not implement) and a model whose lengths are checked at run time."""
    gqa(out, "gqa_ok")  # the run-time checks: status 17 on a mask longer than past + 1
    gqa(out, "gqa_heads_6_4", hq=6, hk=4)
    gqa(out, "gqa_hidden_30", hidden=30)
    gqa(out, "gqa_packed_hidden_50", hidden=50)
    gqa(out, "gqa_unknown_attr", attrs={"foo": 1})
    gqa(out, "gqa_causal_0", attrs={"causal": 0})
    gqa(out, "gqa_qk_output", attrs={"qk_output": 1})
    gqa(out, "gqa_quantized_cache", attrs={"k_quant_type": "PER_TENSOR"})
    gqa(out, "gqa_seqlens_int64", seqlens=(TensorProto.INT64, [1]))
    gqa(out, "gqa_seqlens_2x1", seqlens=(TensorProto.INT32, [2, 1]))
    gqa(out, "gqa_total_input", total=(TensorProto.INT32, [1]))
    gqa(out, "gqa_no_present", outputs=1)
    gqa(out, "gqa_query_int32", query_elem=TensorProto.INT32)
    # the packed form: key and value empty
    model = onnx.load(os.path.join(out, "gqa_packed_hidden_50.onnx"))
    node = model.graph.node[-1]
    node.input[1] = node.input[2] = ""
    onnx.save(model, os.path.join(out, "gqa_packed_hidden_50.onnx"))
    # five inputs: no seqlens_k, no total_sequence_length
    model = onnx.load(os.path.join(out, "gqa_ok.onnx"))
    node = model.graph.node[-1]
    del node.input[5:]
    onnx.save(model, os.path.join(out, "gqa_five_inputs.onnx"))
    np.save(os.path.join(out, "gqa_q.npy"), np.ones((1, 1, 32), np.float32))
    np.save(os.path.join(out, "gqa_kv.npy"), np.ones((1, 1, 16), np.float32))
    np.save(os.path.join(out, "gqa_past.npy"), np.ones((1, 2, 2, 8), np.float32))
    np.save(os.path.join(out, "gqa_mask_ok.npy"), np.array([[1, 1, 1, 0, 0, 0]], np.int64))
    np.save(os.path.join(out, "gqa_mask_long.npy"), np.ones((1, 6), np.int64))



def attention_model(out, name, node, ins, outs, inits=()):
    """A model of one attention node over graph inputs ins [(name, elem, shape)]."""
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info(*i) for i in ins],
                          [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs], list(inits))
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)])
    model.ir_version = 10
    with open(os.path.join(out, name + ".onnx"), "wb") as fh:
        fh.write(model.SerializeToString())


def mha_models(out):
    """MultiHeadAttention's, RotaryEmbedding's and Attention's refusals, and a key padding
    length checked at run time."""
    f, i32 = TensorProto.FLOAT, TensorProto.INT32
    q = ("q", f, [1, 3, 16])
    kv = [("k", f, [1, 3, 16]), ("v", f, [1, 3, 16])]
    mha = lambda ins, outs=("y",), **a: helper.make_node("MultiHeadAttention", list(ins), list(outs), name="mha",
                                                         domain=MS, **dict(dict(num_heads=2), **a))
    attention_model(out, "mha_lengths", mha(["q", "k", "v", "", "lens"]), [q] + kv + [("lens", i32, [1])], ["y"])
    attention_model(out, "mha_packed", mha(["q"]), [("q", f, [1, 3, 2, 3, 8])], ["y"])
    attention_model(out, "mha_key_4d", mha(["q", "k", "v"]), [q, ("k", f, [1, 2, 3, 8]), ("v", f, [1, 2, 3, 8])],
                    ["y"])
    attention_model(out, "mha_heads_3", mha(["q", "k", "v"], num_heads=3), [q] + kv, ["y"])
    attention_model(out, "mha_cache_indirection", mha(["q", "k", "v", "", "", "", "", "", "", "ci"]),
                    [q] + kv + [("ci", i32, [1, 1, 3])], ["y"])
    attention_model(out, "mha_qk_output", mha(["q", "k", "v"], ["y", "", "", "qk"]), [q] + kv, ["y", "qk"])
    pos = ("pos", TensorProto.INT64, [1, 3])
    caches = [numpy_helper.from_array(np.ones((8, 4), np.float32), n) for n in ("cos", "sin")]
    rope = lambda **a: helper.make_node("RotaryEmbedding", ["q", "pos", "cos", "sin"], ["y"], name="rope", domain=MS,
                                        **a)
    attention_model(out, "ms_rope_packed_batching", rope(is_packed_batching=1), [q, pos], ["y"], caches)
    attention_model(out, "ms_rope_dim_without_heads", rope(rotary_embedding_dim=8), [q, pos], ["y"], caches)
    w = numpy_helper.from_array(np.ones((16, 48), np.float32), "w")
    b = numpy_helper.from_array(np.ones(48, np.float32), "b")
    att = lambda ins, **a: helper.make_node("Attention", list(ins), ["y"], name="att", domain=MS,
                                            **dict(dict(num_heads=2), **a))
    attention_model(out, "ms_attention_do_rotary", att(["q", "w", "b"], do_rotary=1), [q], ["y"], [w, b])
    attention_model(out, "ms_attention_mask_4d", att(["q", "w", "b", "m"]), [q, ("m", i32, [1, 1, 3, 3])], ["y"],
                    [w, b])
    np.save(os.path.join(out, "mha_q.npy"), np.ones((1, 3, 16), np.float32))
    np.save(os.path.join(out, "mha_lens_ok.npy"), np.array([2], np.int32))
    np.save(os.path.join(out, "mha_lens_over.npy"), np.array([4], np.int32))


if __name__ == "__main__":
    main()
