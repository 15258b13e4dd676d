"""Writes the models of the contrib-operator tests (tests/models.sh, section 16): small graphs of
onnxruntime's own operators as real files write them (com.microsoft opset 1;
SimplifiedLayerNormalization in the default domain, as the onnxruntime-genai builder writes
it), with seeded weights and inputs. Needs only onnx and numpy; models.sh gets the reference
outputs from onnxruntime-node (tools/ort_run.js).

    python contrib_ops.py OUTDIR

For each case, OUTDIR/CASE/ holds model.onnx, compile.args (the compile's options: --dim
for the symbolic ones), tolerance ("RTOL ATOL") and set_*/input_<i>.pb, one folder per
input set; a symbolic case has one set per (batch, seq), all run on one module.
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from case_files import write_cases

H = 32
MS = "com.microsoft"
DIMS = "--dim batch=1..4 --dim seq=1..16"
SIZES = [(1, 1), (2, 7), (3, 16)]  # (batch, seq): the smallest, an odd one, the maxima
FP32 = "1e-4 1e-5"
# float16 in and out: onnxruntime rounds every value between the ops (the MatMuls' outputs,
# the residual sums) to float16, we compute in float32 throughout (passes/lower_fp16.c), so an
# output may differ by the float16 rounding of the residual stream it comes from: one float16
# ulp at its magnitude (|x| in [4, 8) here: 2^-8 < 4e-3), whatever the output's own.
FP16 = "1e-3 4e-3"


def const(rng, name, shape, dtype=np.float32, scale=1.0):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(dtype), name)


def vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def case_simplified_layernorm(rng):
    """SimplifiedLayerNormalization (default domain) with its inv_std_var output: over the last
    axis, and over the last two (axis 1, a [S, H] scale)."""
    nodes = [helper.make_node("SimplifiedLayerNormalization", ["x", "g"], ["y", "r"], epsilon=1e-6),
             helper.make_node("SimplifiedLayerNormalization", ["x", "g2"], ["y2", "r2"], axis=1, epsilon=1e-5,
                              stash_type=1)]
    g = helper.make_graph(nodes, "sln", [vi("x", [2, 5, H])], [vi(n, None) for n in ("y", "r", "y2", "r2")],
                          [const(rng, "g", [H]), const(rng, "g2", [5, H])])
    return g, [("2x5", {"x": rng.standard_normal((2, 5, H)).astype(np.float32) * 3})], "", FP32


def case_skip_layernorm(rng):
    """SkipLayerNormalization with beta and bias and all four outputs, a [S, H] skip broadcast
    over the batch; and one without beta or bias whose skip has the input's shape."""
    nodes = [helper.make_node("SkipLayerNormalization", ["x", "s", "g", "b", "bias"], ["y", "m", "r", "sum"],
                              domain=MS, epsilon=1e-5),
             helper.make_node("SkipLayerNormalization", ["sum", "x", "g"], ["y2"], domain=MS)]
    g = helper.make_graph(nodes, "skip_ln", [vi("x", [2, 5, H]), vi("s", [5, H])],
                          [vi(n, None) for n in ("y", "m", "r", "sum", "y2")],
                          [const(rng, "g", [H]), const(rng, "b", [H]), const(rng, "bias", [H])])
    feeds = {"x": rng.standard_normal((2, 5, H)).astype(np.float32),
             "s": rng.standard_normal((5, H)).astype(np.float32)}
    return g, [("2x5", feeds)], "", FP32


def case_skip_layernorm_symbolic(rng):
    """SkipLayerNormalization over symbolic batch and seq, as BERT-style models chain it: a
    [1, seq, H] skip broadcast over the batch, output 3 (the sum) into the next one."""
    nodes = [helper.make_node("SkipLayerNormalization", ["x", "s", "g", "b"], ["y", "", "", "sum"], domain=MS),
             helper.make_node("SkipLayerNormalization", ["sum", "x", "g", "b", "bias"], ["y2"], domain=MS,
                              epsilon=1e-6)]
    g = helper.make_graph(nodes, "skip_ln_sym", [vi("x", ["batch", "seq", H]), vi("s", [1, "seq", H])],
                          [vi(n, ["batch", "seq", H]) for n in ("y", "sum", "y2")],
                          [const(rng, "g", [H]), const(rng, "b", [H]), const(rng, "bias", [H])])
    sets = [(f"{b}x{s}", {"x": rng.standard_normal((b, s, H)).astype(np.float32),
                          "s": rng.standard_normal((1, s, H)).astype(np.float32)}) for b, s in SIZES]
    return g, sets, DIMS, FP32


def decoder_nodes(bias_gelu):
    """A genai-builder decoder layer: SimplifiedLayerNormalization, then each residual through
    SkipSimplifiedLayerNormalization (outputs 0 and 3, output 3 the next one's input), an MLP
    of MatMul and a GELU."""
    act = (helper.make_node("BiasGelu", ["h1", "b1"], ["a"], domain=MS) if bias_gelu
           else helper.make_node("FastGelu", ["h1", "b1"], ["a"], domain=MS))
    return [
        helper.make_node("SimplifiedLayerNormalization", ["x", "g0"], ["n0"], axis=-1, epsilon=1e-6, stash_type=1),
        helper.make_node("MatMul", ["n0", "w0"], ["h0"]),
        helper.make_node("SkipSimplifiedLayerNormalization", ["x", "h0", "g1"], ["n1", "", "", "res1"],
                         domain=MS, epsilon=1e-6),
        helper.make_node("MatMul", ["n1", "w1"], ["h1"]),
        act,
        helper.make_node("MatMul", ["a", "w2"], ["h2"]),
        helper.make_node("SkipSimplifiedLayerNormalization", ["res1", "h2", "g2", "bias2"], ["y", "", "r", "res2"],
                         domain=MS, epsilon=1e-6),
    ]


def decoder_inits(rng, dtype=np.float32):
    return [const(rng, "g0", [H], dtype), const(rng, "w0", [H, H], dtype, 0.2), const(rng, "g1", [H], dtype),
            const(rng, "w1", [H, 2 * H], dtype, 0.2), const(rng, "b1", [2 * H], dtype, 0.1),
            const(rng, "w2", [2 * H, H], dtype, 0.2), const(rng, "g2", [H], dtype), const(rng, "bias2", [H], dtype)]


def sym_sets(rng, dtype=np.float32):
    return [(f"{b}x{s}", {"x": rng.standard_normal((b, s, H)).astype(dtype)}) for b, s in SIZES]


def case_decoder_block(rng):
    """decoder_nodes with BiasGelu (its bias Add and Gelu fuse into the MatMul's epilogue),
    symbolic batch and seq."""
    g = helper.make_graph(decoder_nodes(True), "decoder", [vi("x", ["batch", "seq", H])],
                          [vi(n, ["batch", "seq", H]) for n in ("y", "res2")] + [vi("r", ["batch", "seq", 1])],
                          decoder_inits(rng))
    return g, sym_sets(rng), DIMS, FP32


def case_decoder_block_fp16(rng):
    """decoder_nodes with FastGelu, float16 weights, input and outputs (the builder's fp16 models)."""
    f16 = TensorProto.FLOAT16
    g = helper.make_graph(decoder_nodes(False), "decoder_fp16", [vi("x", ["batch", "seq", H], f16)],
                          [vi(n, ["batch", "seq", H], f16) for n in ("y", "res2")] + [vi("r", ["batch", "seq", 1])],
                          decoder_inits(rng, np.float16))
    return g, sym_sets(rng, np.float16), DIMS, FP16


def case_gelus(rng):
    """Every GELU of com.microsoft in a chain over symbolic dims: FastGelu with and without a
    bias, BiasGelu, QuickGelu (its default alpha and 1.5), Gelu."""
    nodes = [helper.make_node("FastGelu", ["x", "b0"], ["a"], domain=MS),
             helper.make_node("FastGelu", ["a"], ["c"], domain=MS),
             helper.make_node("BiasGelu", ["c", "b1"], ["d"], domain=MS),
             helper.make_node("QuickGelu", ["d"], ["e"], domain=MS),
             helper.make_node("QuickGelu", ["x"], ["f"], domain=MS, alpha=1.5),
             helper.make_node("Gelu", ["x"], ["y"], domain=MS)]
    outs = [vi(n, ["batch", "seq", H]) for n in ("a", "c", "d", "e", "f", "y")]
    g = helper.make_graph(nodes, "gelus", [vi("x", ["batch", "seq", H])], outs,
                          [const(rng, "b0", [H]), const(rng, "b1", [H])])
    sets = [(f"{b}x{s}", {"x": (rng.standard_normal((b, s, H)) * 3).astype(np.float32)}) for b, s in SIZES]
    return g, sets, DIMS, FP32


def case_integer_matmuls(rng):
    """DynamicQuantizeMatMul (int8 B, per-column scale and zero point, bias) and
    MatMulIntegerToFloat (uint8 A with its zero point, uint8 B per tensor, no bias) over
    symbolic dims. Their integer products are exact on both sides and the float steps the
    same float32 operations, so the tolerances are float32's."""
    n_out = 24
    b8 = numpy_helper.from_array(rng.integers(-128, 128, (H, n_out)).astype(np.int8), "b8")
    bu = numpy_helper.from_array(rng.integers(0, 256, (H, n_out)).astype(np.uint8), "bu")
    nodes = [helper.make_node("DynamicQuantizeMatMul", ["x", "b8", "bs", "bz", "bias"], ["y"], domain=MS),
             helper.make_node("MatMulIntegerToFloat", ["xq", "bu", "as", "bus", "az", "buz"], ["y2"], domain=MS)]
    inits = [b8, bu, numpy_helper.from_array((rng.random(n_out) * 0.01 + 0.001).astype(np.float32), "bs"),
             numpy_helper.from_array(rng.integers(-3, 4, n_out).astype(np.int8), "bz"), const(rng, "bias", [n_out]),
             numpy_helper.from_array(np.array(0.02, np.float32), "as"),
             numpy_helper.from_array(np.array(0.005, np.float32), "bus"),
             numpy_helper.from_array(np.array(120, np.uint8), "az"), numpy_helper.from_array(np.array(130, np.uint8), "buz")]
    g = helper.make_graph(nodes, "integer_matmuls",
                          [vi("x", ["batch", "seq", H]), vi("xq", ["batch", "seq", H], TensorProto.UINT8)],
                          [vi("y", ["batch", "seq", n_out]), vi("y2", ["batch", "seq", n_out])], inits)
    sets = [(f"{b}x{s}", {"x": (rng.standard_normal((b, s, H)) * 2).astype(np.float32),
                          "xq": rng.integers(0, 256, (b, s, H)).astype(np.uint8)}) for b, s in SIZES]
    return g, sets, DIMS, FP32


def lstm_graph(name, nodes, inits, seq, batch, dirs, hidden, inputs):
    outs = [vi("y", [seq, dirs, batch, hidden]), vi("y_h", [dirs, batch, hidden]), vi("y_c", [dirs, batch, hidden])]
    return helper.make_graph(nodes, name, inputs, outs, inits)


def quantized_lstm(rng, name, per_row, dtype):
    """A bidirectional LSTM as onnxruntime's dynamic quantization writes it (W and R transposed
    to [D, K, 4H], int8 or uint8, scales and zero points per direction or per gate row), and
    the LSTM over its dequantized weights."""
    dirs, hidden, inp = 2, 16, 12
    qlo, qhi = (-128, 127) if dtype == np.int8 else (0, 255)
    lstm_attrs = dict(hidden_size=hidden, direction="bidirectional")
    inits_q, inits_f = [], []
    for w, k in (("W", inp), ("R", hidden)):
        wf = rng.standard_normal((dirs, 4 * hidden, k)).astype(np.float32) * 0.3
        axes = (2,) if per_row else (1, 2)
        lo, hi = np.minimum(wf.min(axis=axes), 0), np.maximum(wf.max(axis=axes), 0)
        scale = ((hi - lo) / (qhi - qlo)).astype(np.float32)
        zp = np.clip(np.round(qlo - lo / scale), qlo, qhi).astype(dtype)
        bshape = scale.shape + (1,) * (3 - scale.ndim)
        q = np.clip(np.round(wf / scale.reshape(bshape)) + zp.reshape(bshape).astype(np.float32), qlo, qhi)
        q = q.astype(dtype)
        deq = (q.astype(np.float32) - zp.reshape(bshape).astype(np.float32)) * scale.reshape(bshape)
        inits_q += [numpy_helper.from_array(np.ascontiguousarray(q.transpose(0, 2, 1)), w),
                    numpy_helper.from_array(scale, w + "_scale"), numpy_helper.from_array(zp, w + "_zero_point")]
        inits_f.append(numpy_helper.from_array(deq.astype(np.float32), w))
    b = const(rng, "B", [dirs, 8 * hidden], scale=0.1)
    seq, batch = (5, 2) if per_row else (9, 3)  # LSTM takes fixed shapes only
    inputs = [vi("x", [seq, batch, inp]), vi("h0", [dirs, batch, hidden])]
    qnode = helper.make_node("DynamicQuantizeLSTM", ["x", "W", "R", "B", "", "h0", "", "", "W_scale",
                                                     "W_zero_point", "R_scale", "R_zero_point"],
                             ["y", "y_h", "y_c"], domain=MS, **lstm_attrs)
    fnode = helper.make_node("LSTM", ["x", "W", "R", "B", "", "h0"], ["y", "y_h", "y_c"], **lstm_attrs)
    model = lstm_graph(name, [qnode], inits_q + [b], seq, batch, dirs, hidden, inputs)
    reference = lstm_graph(name, [fnode], inits_f + [b], seq, batch, dirs, hidden, inputs)
    sets = [(f"{seq}x{batch}", {"x": (rng.standard_normal((seq, batch, inp)) * 2).astype(np.float32),
                                "h0": (rng.standard_normal((dirs, batch, hidden)) * 0.5).astype(np.float32)})]
    return model, sets, "", reference


def case_dynamic_quantize_lstm(rng):
    """DynamicQuantizeLSTM (int8 weights, a scale and zero point per gate row) against
    onnxruntime's LSTM over the dequantized weights: the function we compute, in float32
    (contrib_qlstm.c), at float32's tolerances."""
    model, sets, args, reference = quantized_lstm(rng, "dynamic_quantize_lstm", True, np.int8)
    return model, sets, args, FP32, reference


def case_dynamic_quantize_lstm_ort(rng):
    """DynamicQuantizeLSTM (uint8 weights, one scale and zero point per direction) against
    onnxruntime's own kernel, which also rounds X and every step's hidden state to 8 bits
    before its integer products (we keep them float32): outputs in (-1, 1) apart by that
    rounding, about 1e-2 here, so atol 5e-2; a wrong gate order or layout is off by 0.3 or
    more."""
    model, sets, args, _ = quantized_lstm(rng, "dynamic_quantize_lstm_ort", False, np.uint8)
    return model, sets, args, "0 5e-2"


CASES = (case_simplified_layernorm, case_skip_layernorm, case_skip_layernorm_symbolic, case_decoder_block,
         case_decoder_block_fp16, case_gelus,
         case_integer_matmuls, case_dynamic_quantize_lstm, case_dynamic_quantize_lstm_ort)


def main():
    write_cases(sys.argv[1], CASES, np.random.default_rng(0), [("", 21), (MS, 1)], 10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
