"""Writes the models of the symbolic-dims tests of ops decoder files use (tests/models.sh,
section 18): the int8 graph transformers.js' q8 files are made of (onnxruntime's dynamic
quantization) and a causal mask's Trilu, with symbolic batch and sequence dims, and the
shape arithmetic of encoder-decoders and onnxruntime-genai's float16 decoders over a past
(T5's relative position bias, BART's in-place mask fill, Whisper's tiled positions, the
genai causal mask) and a merged encoder-decoder's cross-attention from an empty
encoder past, as small seeded graphs. Needs only onnx and numpy; models.sh gets
the reference outputs from onnxruntime-node (tools/ort_run.js). Same layout as
contrib_ops.py:

    python decoder_ops.py OUTDIR

The case folders: case_files.py.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from case_files import write_cases

H, N, V = 32, 48, 50
DIMS = "--dim batch=1..4 --dim seq=1..16"
SIZES = [(1, 1), (2, 7), (4, 16)]  # (batch, seq): the smallest, an odd one, the maxima
# Integer arithmetic is exact on both sides; the float steps around it (x / scale rounded,
# the product's scale) are the same float32 operations in the same order, so results agree
# to a float32 rounding of the output (DynamicQuantizeLinear's scale is computed once).
TOL = "1e-5 1e-6"


def vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def t(name, array):
    return numpy_helper.from_array(array, name)


def case_q8_layer(rng):
    """An int8 embedding gathered and dequantized (DequantizeLinear of a Gather, as
    transformers.js' q8 files store word embeddings), added to x, then a dynamically
    quantized MatMul: DynamicQuantizeLinear -> MatMulInteger on a constant int8 B with its
    zero point -> Cast -> Mul by the two scales; and a QuantizeLinear / DequantizeLinear
    pair (uint8, per tensor) on the result."""
    emb = rng.integers(-128, 128, (V, H)).astype(np.int8)
    b = rng.integers(-128, 128, (H, N)).astype(np.int8)
    nodes = [
        helper.make_node("Gather", ["emb", "ids"], ["e8"]),
        helper.make_node("DequantizeLinear", ["e8", "emb_scale", "emb_zp"], ["e"]),
        helper.make_node("Add", ["x", "e"], ["h"]),
        helper.make_node("DynamicQuantizeLinear", ["h"], ["hq", "hs", "hz"]),
        helper.make_node("MatMulInteger", ["hq", "b", "hz", "b_zp"], ["acc"]),
        helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["hs", "b_scale"], ["s"]),
        helper.make_node("Mul", ["accf", "s"], ["y"]),
        helper.make_node("QuantizeLinear", ["y", "y_scale", "y_zp"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "y_scale", "y_zp"], ["y2"]),
    ]
    inits = [t("emb", emb), t("emb_scale", np.array(0.02, np.float32)), t("emb_zp", np.array(3, np.int8)),
             t("b", b), t("b_zp", np.array(-2, np.int8)), t("b_scale", np.array(0.004, np.float32)),
             t("y_scale", np.array(0.5, np.float32)), t("y_zp", np.array(128, np.uint8))]
    g = helper.make_graph(nodes, "q8_layer", [vi("x", ["batch", "seq", H]), vi("ids", ["batch", "seq"], TensorProto.INT64)],
                          [vi("y", ["batch", "seq", N]), vi("y2", ["batch", "seq", N])], inits)
    sets = [(f"{bb}x{s}", {"x": rng.standard_normal((bb, s, H)).astype(np.float32),
                           "ids": rng.integers(0, V, (bb, s)).astype(np.int64)}) for bb, s in SIZES]
    return g, sets, DIMS, TOL


def case_trilu(rng):
    """Trilu over symbolic [batch, seq, seq] scores: the lower triangle (a causal mask), the
    upper one from the diagonal after next, and with k an input (-1)."""
    nodes = [helper.make_node("Trilu", ["x"], ["lower"], upper=0),
             helper.make_node("Trilu", ["x", "two"], ["upper"]),
             helper.make_node("Trilu", ["x", "k"], ["lower_k"], upper=0)]
    g = helper.make_graph(nodes, "trilu", [vi("x", ["batch", "seq", "seq"]), vi("k", [], TensorProto.INT64)],
                          [vi(n, ["batch", "seq", "seq"]) for n in ("lower", "upper", "lower_k")],
                          [t("two", np.array(2, np.int64))])
    sets = [(f"{bb}x{s}", {"x": rng.standard_normal((bb, s, s)).astype(np.float32), "k": np.array(-1, np.int64)})
            for bb, s in SIZES]
    return g, sets, DIMS, "1e-6 0"


# The cases over a past: --dim past, and their sets (batch, seq, past): a prompt from an
# empty past, a decode step, and several new rows after a past.
PAST_DIMS = "--dim batch=1..4 --dim seq=1..8 --dim past=0..8"
PAST_SIZES = [(1, 5, 0), (2, 1, 6), (3, 3, 2), (4, 8, 8)]


def shape_of(src, axis, out):
    """Nodes giving out = Shape(src)[axis] (a scalar)."""
    return [helper.make_node("Shape", [src], [out + "_shape"]),
            helper.make_node("Gather", [out + "_shape", f"i{axis}"], [out], axis=0)]


AXES = [t(f"i{k}", np.array(k, np.int64)) for k in range(3)] + [
    t("ax0", np.array([0], np.int64)), t("ax1", np.array([1], np.int64)), t("ax2", np.array([2], np.int64)),
    t("ax_last", np.array([-1], np.int64)), t("one_v", np.array([1], np.int64)),
    t("zero_s", np.array(0, np.int64)), t("one_s", np.array(1, np.int64))]


def graph(nodes, name, inputs, outputs, inits):
    """The graph, with the initializers its nodes read (of AXES and the case's own)."""
    used = {i for n in nodes for i in n.input}
    return helper.make_graph(nodes, name, inputs, outputs, [c for c in inits if c.name in used])


def case_relative_bias(rng):
    """T5's relative position bias over the past and the new rows (total = past + seq):
    buckets of key - query positions (Range, Sub, Greater, Abs, Less, Log, Min against a
    ConstantOfShape, Where; float and int64 casts) gathered from a [buckets, heads] table,
    then `bias[:, :, -seq:, :]` (a start from the end, Neg of a shape value) added to the
    scores [batch, 1, seq, total], `bias[:, :, :, -total:]` (the whole axis) kept, and
    `x[:, -total:]` (past the seq axis where there is a past: min(total, seq) rows)."""
    nb, heads, exact = 8, 2, 2
    nodes = [helper.make_node("Concat", ["past", "x"], ["kv"], axis=1)]
    nodes += shape_of("x", 1, "s") + shape_of("kv", 1, "tot")
    nodes += [
        helper.make_node("Range", ["zero_s", "tot", "one_s"], ["pos"]),
        helper.make_node("Unsqueeze", ["pos", "ax0"], ["mem"]),
        helper.make_node("Unsqueeze", ["pos", "ax1"], ["ctx"]),
        helper.make_node("Sub", ["mem", "ctx"], ["rel"]),                     # [total, total]
        helper.make_node("Greater", ["rel", "zero_s"], ["later"]),
        helper.make_node("Cast", ["later"], ["later_i"], to=TensorProto.INT64),
        helper.make_node("Mul", ["later_i", "half_nb"], ["base"]),
        helper.make_node("Abs", ["rel"], ["dist"]),
        helper.make_node("Less", ["dist", "exact"], ["small"]),
        helper.make_node("Cast", ["dist"], ["dist_f"], to=TensorProto.FLOAT),
        helper.make_node("Div", ["dist_f", "exact_f"], ["ratio"]),
        helper.make_node("Log", ["ratio"], ["lr"]),
        helper.make_node("Div", ["lr", "log_span"], ["lrs"]),
        helper.make_node("Mul", ["lrs", "rest_f"], ["scaled"]),
        helper.make_node("Cast", ["scaled"], ["scaled_i"], to=TensorProto.INT64),
        helper.make_node("Add", ["scaled_i", "exact"], ["large"]),
        helper.make_node("Shape", ["large"], ["large_shape"]),
        helper.make_node("ConstantOfShape", ["large_shape"], ["cap"],
                         value=numpy_helper.from_array(np.array([nb // 2 - 1], np.int64))),
        helper.make_node("Min", ["large", "cap"], ["large_c"]),
        helper.make_node("Where", ["small", "dist", "large_c"], ["picked"]),
        helper.make_node("Add", ["base", "picked"], ["bucket"]),
        helper.make_node("Gather", ["table", "bucket"], ["b3"]),                # [total, total, heads]
        helper.make_node("Transpose", ["b3"], ["bt"], perm=[2, 0, 1]),
        helper.make_node("Unsqueeze", ["bt", "ax0"], ["bias"]),                 # [1, heads, total, total]
        helper.make_node("Neg", ["s"], ["neg_s"]),
        helper.make_node("Unsqueeze", ["neg_s", "ax0"], ["start"]),
        helper.make_node("Slice", ["bias", "start", "big", "ax2", "one_v"], ["rows"]),  # [1, heads, seq, total]
        helper.make_node("Transpose", ["kv"], ["kvt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["x", "kvt"], ["sc"]),                      # [batch, seq, total]
        helper.make_node("Unsqueeze", ["sc", "ax1"], ["sc4"]),
        helper.make_node("Add", ["sc4", "rows"], ["y"]),                        # [batch, heads, seq, total]
        helper.make_node("Neg", ["tot"], ["neg_t"]),
        helper.make_node("Unsqueeze", ["neg_t", "ax0"], ["start_t"]),
        helper.make_node("Slice", ["bias", "start_t", "big", "ax_last"], ["whole"]),
        helper.make_node("Slice", ["x", "start_t", "big", "ax1"], ["tail"]),
    ]
    inits = AXES + [t("half_nb", np.array(nb // 2, np.int64)), t("exact", np.array(exact, np.int64)),
                    t("exact_f", np.array(exact, np.float32)),
                    t("log_span", np.array(np.log(16 / exact), np.float32)),
                    t("rest_f", np.array(nb // 2 - exact, np.float32)),
                    t("big", np.array([np.iinfo(np.int64).max], np.int64)),
                    t("table", rng.standard_normal((nb, heads)).astype(np.float32))]
    g = graph(nodes, "relative_bias", [vi("x", ["batch", "seq", 4]), vi("past", ["batch", "past", 4])],
              [vi("y", ["batch", heads, "seq", "total"]), vi("whole", [1, heads, "total", "total"]),
               vi("tail", ["batch", "seq", 4])], inits)
    sets = [(f"{bb}x{s}p{p}", {"x": rng.standard_normal((bb, s, 4)).astype(np.float32),
                               "past": rng.standard_normal((bb, p, 4)).astype(np.float32)})
            for bb, s, p in PAST_SIZES]
    return g, sets, PAST_DIMS, "1e-5 1e-6"


def case_mask_fill(rng):
    """`mask[:, :seq] = new`, as the exporter writes BART's and Marian's in-place causal
    mask fill: a ScatterND into [batch, 2 * seq, 3] (a Concat of x with itself) at an index
    grid [batch, seq, 2] of Ranges over the batch and seq (Reshape, Expand, Unsqueeze,
    Concat), the updates [batch, seq, 3]."""
    nodes = shape_of("x", 0, "b") + shape_of("x", 1, "s") + [
        helper.make_node("Concat", ["x", "x"], ["data"], axis=1),
        helper.make_node("Unsqueeze", ["b", "ax0"], ["b1"]),
        helper.make_node("Unsqueeze", ["s", "ax0"], ["s1"]),
        helper.make_node("Concat", ["b1", "s1"], ["grid"], axis=0),
        helper.make_node("Range", ["zero_s", "b", "one_s"], ["rb"]),
        helper.make_node("Reshape", ["rb", "col"], ["rb2"]),
        helper.make_node("Expand", ["rb2", "grid"], ["ib"]),
        helper.make_node("Unsqueeze", ["ib", "ax_last"], ["ib3"]),
        helper.make_node("Range", ["zero_s", "s", "one_s"], ["rs"]),
        helper.make_node("Unsqueeze", ["rs", "ax0"], ["rs2"]),
        helper.make_node("Expand", ["rs2", "grid"], ["is_"]),
        helper.make_node("Unsqueeze", ["is_", "ax_last"], ["is3"]),
        helper.make_node("Concat", ["ib3", "is3"], ["idx"], axis=-1),          # [batch, seq, 2]
        helper.make_node("Mul", ["x", "neg2"], ["upd"]),
        helper.make_node("ScatterND", ["data", "idx", "upd"], ["y"]),
    ]
    inits = AXES + [t("col", np.array([-1, 1], np.int64)), t("neg2", np.array(-2, np.float32))]
    g = graph(nodes, "mask_fill", [vi("x", ["batch", "seq", 3])], [vi("y", ["batch", "seq2", 3])], inits)
    sets = [(f"{bb}x{s}", {"x": rng.standard_normal((bb, s, 3)).astype(np.float32)}) for bb, s in SIZES]
    return g, sets, DIMS, "1e-6 0"


def case_tile_positions(rng):
    """Whisper's decoder positions: Range(past, past + seq) as [1, seq], tiled by
    [batch, 1] (repeats of a symbolic value), gathered from a position table and added to
    the token embeddings [batch, seq, H]."""
    nodes = shape_of("ids", 0, "b") + shape_of("ids", 1, "s") + shape_of("past", 1, "p") + [
        helper.make_node("Add", ["p", "s"], ["end"]),
        helper.make_node("Range", ["p", "end", "one_s"], ["pos"]),
        helper.make_node("Unsqueeze", ["pos", "ax0"], ["pos2"]),
        helper.make_node("Unsqueeze", ["b", "ax0"], ["b1"]),
        helper.make_node("Concat", ["b1", "one_v"], ["reps"], axis=0),
        helper.make_node("Tile", ["pos2", "reps"], ["posb"]),                  # [batch, seq]
        helper.make_node("Gather", ["pos_table", "posb"], ["pe"]),
        helper.make_node("Gather", ["tok_table", "ids"], ["te"]),
        helper.make_node("Add", ["te", "pe"], ["y"]),
    ]
    inits = AXES + [t("pos_table", rng.standard_normal((16, 8)).astype(np.float32)),
                    t("tok_table", rng.standard_normal((V, 8)).astype(np.float32))]
    g = graph(nodes, "tile_positions",
              [vi("ids", ["batch", "seq"], TensorProto.INT64), vi("past", ["batch", "past", 8])],
              [vi("y", ["batch", "seq", 8])], inits)
    sets = [(f"{bb}x{s}p{p}", {"ids": rng.integers(0, V, (bb, s)).astype(np.int64),
                               "past": rng.standard_normal((bb, p, 8)).astype(np.float32)})
            for bb, s, p in PAST_SIZES]
    return g, sets, PAST_DIMS, "1e-6 0"


def case_causal_expand(rng):
    """onnxruntime-genai's float16 decoders' causal mask: a [seq, seq] mask (ConstantOfShape,
    Range, Less, Where) as [1, 1, seq, seq], expanded to [batch, 1, seq, seq + past]: seq 1
    or past 0 at every step, which the module checks (the last dim broadcasts or is equal)."""
    nodes = shape_of("ids", 0, "b") + shape_of("ids", 1, "s") + shape_of("past", 2, "p") + [
        helper.make_node("Add", ["s", "p"], ["tot"]),
        helper.make_node("Unsqueeze", ["s", "ax0"], ["s1"]),
        helper.make_node("Concat", ["s1", "s1"], ["ss"], axis=0),
        helper.make_node("ConstantOfShape", ["ss"], ["lowest"],
                         value=numpy_helper.from_array(np.array([-65504.0], np.float32))),
        helper.make_node("Range", ["zero_s", "s", "one_s"], ["r"]),
        helper.make_node("Add", ["r", "one_s"], ["r1"]),
        helper.make_node("Unsqueeze", ["r1", "ax1"], ["rc"]),
        helper.make_node("Less", ["r", "rc"], ["keep"]),
        helper.make_node("Where", ["keep", "zero_f", "lowest"], ["causal"]),
        helper.make_node("Unsqueeze", ["causal", "ax0"], ["c3"]),
        helper.make_node("Unsqueeze", ["c3", "ax1"], ["c4"]),                  # [1, 1, seq, seq]
        helper.make_node("Unsqueeze", ["b", "ax0"], ["b1"]),
        helper.make_node("Unsqueeze", ["tot", "ax0"], ["t1"]),
        helper.make_node("Concat", ["b1", "one_v", "s1", "t1"], ["want"], axis=0),
        helper.make_node("Expand", ["c4", "want"], ["y"]),                      # [batch, 1, seq, seq + past]
    ]
    inits = AXES + [t("zero_f", np.array(0, np.float32))]
    g = graph(nodes, "causal_expand",
              [vi("ids", ["batch", "seq"], TensorProto.INT64), vi("past", ["batch", 2, "past", 4])],
              [vi("y", ["batch", 1, "seq", "total"])], inits)
    sizes = [(1, 5, 0), (2, 1, 6), (3, 1, 0), (4, 8, 0), (1, 1, 8)]  # the steps where it broadcasts
    sets = [(f"{bb}x{s}p{p}", {"ids": rng.integers(0, V, (bb, s)).astype(np.int64),
                               "past": rng.standard_normal((bb, 2, p, 4)).astype(np.float32)})
            for bb, s, p in sizes]
    return g, sets, PAST_DIMS, "0 0"


def genai_feeds(rng, b, s, p, extra=0):
    return {"ids": rng.integers(0, V, (b, s)).astype(np.int64),
            "past": rng.standard_normal((b, 2, p, 4)).astype(np.float32),
            "attention_mask": np.ones((b, p + s + extra), np.int64),
            "new_k": rng.standard_normal((b, 2, s, 4)).astype(np.float32)}


def case_genai_mask(rng):
    """onnxruntime-genai's float16 decoders around their attention: the causal mask over
    [batch, 1, seq, seq + past] (as case_causal_expand) added to the attention_mask of the
    model's own total_sequence_length, [batch, 1, 1, total]: the Add takes total and
    past + seq as equal and the module checks it (WGK_ERR_DIM_MISMATCH, the bad set of
    models.sh); and the past, whose head size is the symbol kv of one value (--dim kv=4..4,
    the builder's kv_cache_dim), concatenated with the new keys of a fixed head size 4."""
    g, sets, _, _ = case_causal_expand(rng)
    nodes = list(g.node) + [
        helper.make_node("Unsqueeze", ["attention_mask", "ax12"], ["m4"]),
        helper.make_node("Cast", ["m4"], ["mf"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["y", "mf"], ["bias"]),                       # [batch, 1, seq, past + seq]
        helper.make_node("Concat", ["past", "new_k"], ["present"], axis=2),
    ]
    inits = list(g.initializer) + [t("ax12", np.array([1, 2], np.int64))]
    g = helper.make_graph(nodes, "genai_mask",
                          [vi("ids", ["batch", "seq"], TensorProto.INT64), vi("past", ["batch", 2, "past", "kv"]),
                           vi("attention_mask", ["batch", "total"], TensorProto.INT64),
                           vi("new_k", ["batch", 2, "seq", 4])],
                          [vi("bias", ["batch", 1, "seq", "total"]), vi("present", ["batch", 2, "total", 4])], inits)
    sets = [(f"{bb}x{s}p{p}", genai_feeds(rng, bb, s, p)) for bb, s, p in [(1, 5, 0), (2, 1, 6), (3, 1, 0), (1, 1, 8)]]
    return g, sets, PAST_DIMS + " --dim total=1..16 --dim kv=4..4", "0 0"


def merged_feeds(rng, b, s, e, past, cache):
    return {"use_cache_branch": np.array([cache]), "enc": rng.standard_normal((b, e, 8)).astype(np.float32),
            "x": rng.standard_normal((b, s, 8)).astype(np.float32),
            "past_k": rng.standard_normal((b, past, 8)).astype(np.float32)}


def case_merged_cross(rng):
    """A merged encoder-decoder's cross-attention as optimum-onnx writes it: an If on
    use_cache_branch whose else branch (the first step) projects the encoder's states into
    keys [batch, enc, 8] and returns them as the present, and whose then branch (a decode
    step) reads them from the past instead. transformers.js runs the first step with the
    past empty ([batch, 0, 8], while enc gives the symbol its length): past_k may be empty
    (docs/abi.md "Empty inputs"); the bad set takes the cache branch with it empty."""
    def attend(keys, prefix):
        return [helper.make_node("Transpose", [keys], [prefix + "kt"], perm=[0, 2, 1]),
                helper.make_node("MatMul", ["x", prefix + "kt"], [prefix + "sc"]),
                helper.make_node("Softmax", [prefix + "sc"], [prefix + "p"], axis=-1),
                helper.make_node("MatMul", [prefix + "p", keys], [prefix + "y"])]
    out = [vi("y", ["batch", "seq", 8]), vi("present_k", ["batch", "enc", 8])]
    no_cache = helper.make_graph([helper.make_node("MatMul", ["enc", "wk"], ["k"])] + attend("k", "n_") +
                                 [helper.make_node("Identity", ["k"], ["n_present"])],
                                 "no_cache", [], [vi("n_y", None), vi("n_present", None)])
    cache = helper.make_graph(attend("past_k", "c_") + [helper.make_node("Identity", ["past_k"], ["c_present"])],
                              "cache", [], [vi("c_y", None), vi("c_present", None)])
    nodes = [helper.make_node("If", ["use_cache_branch"], ["y", "present_k"], then_branch=cache, else_branch=no_cache)]
    g = helper.make_graph(nodes, "merged_cross",
                          [vi("use_cache_branch", [1], TensorProto.BOOL), vi("enc", ["batch", "enc", 8]),
                           vi("x", ["batch", "seq", 8]), vi("past_k", ["batch", "enc", 8])], out,
                          [t("wk", rng.standard_normal((8, 8)).astype(np.float32))])
    sets = [("first_1x3e5", merged_feeds(rng, 1, 3, 5, 0, False)), ("first_2x1e6", merged_feeds(rng, 2, 1, 6, 0, False)),
            ("decode_1x1e5", merged_feeds(rng, 1, 1, 5, 5, True)), ("decode_2x1e1", merged_feeds(rng, 2, 1, 1, 1, True))]
    return g, sets, "--dim batch=1..2 --dim seq=1..4 --dim enc=1..6", "1e-5 1e-6"


CASES = (case_q8_layer, case_trilu, case_relative_bias, case_mask_fill, case_tile_positions, case_causal_expand,
         case_genai_mask, case_merged_cross)


def main():
    write_cases(sys.argv[1], CASES, np.random.default_rng(1234), [("", 14)], 8)
    # the cache branch with the past empty: the module stops with WGK_ERR_EMPTY_INPUT; a
    # total_sequence_length one more than past + seq: WGK_ERR_DIM_MISMATCH (models.sh)
    rng = np.random.default_rng(5)
    for case, feeds in (("merged_cross", merged_feeds(rng, 1, 1, 5, 0, True)), ("genai_mask", genai_feeds(rng, 1, 1, 3, 1))):
        bad = os.path.join(sys.argv[1], case, "bad")
        os.makedirs(bad, exist_ok=True)
        for i, (name, arr) in enumerate(feeds.items()):
            onnx.save_tensor(numpy_helper.from_array(arr, name), os.path.join(bad, f"input_{i}.pb"))


if __name__ == "__main__":
    main()
