"""Writes the models of the quantized-weight tests (tests/models.sh, section 17): onnxruntime's
MatMulNBits, GatherBlockQuantized and MatMulBnb4 in small graphs as real files write them
(com.microsoft opset 1), their blocks made here from seeded float weights. Needs only onnx and numpy; models.sh gets the reference
outputs from onnxruntime-node (tools/ort_run.js).

    python qweight_ops.py OUTDIR

The case folders are case_files.py's (model.onnx, compile.args, tolerance, set_*/input_<i>.pb).

What onnxruntime's CPU kernels compute, by accuracy_level (found with onnxruntime 1.32 and
onnxruntime-node 1.30 on x86-64, each output against float64 of both formulas): levels 0 to 3
in float32 from the dequantized weights (to 1e-7 of the exact products); level 4 quantizes
each row of A to int8 per block (scale max|a| / 127, a * (127 / max|a|) rounded half to even)
and sums in integers (to 1e-7 of that formula, 5e-3 from the float one), except with float
zero points, which it dequantizes. wasmgraph computes the same formula for each (the
kernel's quant_a, wgk_qweight.h), so every float32 case holds at the suite's 1e-4 / 1e-5: the
block sums are exact integers at level 4, and the float ones differ from onnxruntime's in
their order only. Where onnxruntime quantizes A on another x86 path (AVX2) its 1 / scale may
differ in the last bit, which can move a value at an exact half by one step: an error of one
weight times its scales, far below these tolerances in these sizes.
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from case_files import write_cases

MS = "com.microsoft"
DIMS = "--dim batch=1..3 --dim seq=1..9"
SIZES = [(1, 1), (2, 5), (3, 9)]  # (batch, seq): a decode step, an odd prefill, the maxima
FP32 = "1e-4 1e-5"
# float16 in and out: onnxruntime rounds Y to float16 from its float32 sum, as we do; the two
# sums differ in order only, so Y may differ by one float16 ulp where a sum sits next to a
# rounding boundary: 2^-10 relative at most.
FP16 = "1e-3 1e-4"
# float16 through two ops: onnxruntime rounds the first one's output to float16 before the
# second, we keep it in float32 (passes/lower_fp16.c), so the second's inputs differ by up to
# 2^-11 relative, its outputs (|y| < 8 here) by a float16 ulp or so of the sum's magnitude.
FP16_CHAIN = "1e-3 4e-3"


def quantize(w, bits, blk, zp_kind, rng, dtype=np.float32):
    """MatMulNBits' B, scales and zero points of w [K, N]: per column, blocks of blk along K,
    asymmetric (uint8 packed zero points, or float ones) or symmetric (none: 2^(bits-1))."""
    K, N = w.shape
    nb = (K + blk - 1) // blk
    wt = np.zeros((N, nb * blk), np.float32)
    wt[:, :K] = w.T
    wb = wt.reshape(N, nb, blk)
    top = (1 << bits) - 1
    if zp_kind == "none":
        s = np.abs(wb).max(axis=2) / (top // 2 + 0.5)
        s = np.where(s == 0, 1, s).astype(dtype)
        z = np.full((N, nb), 1 << (bits - 1), np.float32)
    else:
        lo, hi = np.minimum(wb.min(axis=2), 0), np.maximum(wb.max(axis=2), 0)
        s = ((hi - lo) / top)
        s = np.where(s == 0, 1, s).astype(dtype)
        z = np.clip(np.rint(-lo / s.astype(np.float32)), 0, top)
        if zp_kind == "float":
            z = z + rng.uniform(-0.4, 0.4, z.shape)
    q = np.clip(np.rint(wb / s.astype(np.float32)[:, :, None] + z[:, :, None]), 0, top).astype(np.uint8)
    if bits == 4:
        B = (q[:, :, 0::2] | (q[:, :, 1::2] << 4)).astype(np.uint8)
    else:
        B = q
    zp = None
    if zp_kind == "packed":
        zi = z.astype(np.uint8)
        if bits == 4:
            zz = np.zeros((N, (nb + 1) // 2 * 2), np.uint8)
            zz[:, :nb] = zi
            zp = (zz[:, 0::2] | (zz[:, 1::2] << 4)).astype(np.uint8)
        else:
            zp = zi
    elif zp_kind == "float":
        zp = z.astype(dtype)
    return B, s, zp


def nbits_node(rng, name, x, y, K, N, bits, blk, zp_kind, level, inits, bias=False, dtype=np.float32,
               flat=False):
    """A MatMulNBits node x [.., K] -> y [.., N] with its initializers added to inits."""
    w = (rng.standard_normal((K, N)) * 0.2).astype(np.float32)
    B, s, zp = quantize(w, bits, blk, zp_kind, rng, dtype)
    ins = [x, name + "_B", name + "_s"]
    inits += [numpy_helper.from_array(B, ins[1]),
              numpy_helper.from_array(s.reshape(-1) if flat else s, ins[2])]
    if zp is not None or bias:
        ins.append(name + "_zp" if zp is not None else "")
        if zp is not None:
            inits.append(numpy_helper.from_array(zp.reshape(-1) if flat else zp, ins[-1]))
    if bias:
        ins += ["", name + "_bias"]  # no g_idx
        inits.append(numpy_helper.from_array((rng.standard_normal(N) * 0.1).astype(dtype), ins[-1]))
    return helper.make_node("MatMulNBits", ins, [y], name=name, domain=MS, K=K, N=N, bits=bits,
                            block_size=blk, accuracy_level=level)


def vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def sym_sets(rng, K, dtype=np.float32, scale=1.0):
    return [(f"{b}x{s}", {"x": (rng.standard_normal((b, s, K)) * scale).astype(dtype)}) for b, s in SIZES]


def case_q4(rng, level, zp_kind, blk, bias, name):
    """One MatMulNBits over symbolic batch and seq, 4-bit: K past a whole number of blocks,
    an odd N (column groups and panels with tails), rows 1 (the GEMV), 10 and 27 (prefill)."""
    K, N, inits = 100, 37, []
    node = nbits_node(rng, "mm", "x", "y", K, N, 4, blk, zp_kind, level, inits, bias=bias)
    g = helper.make_graph([node], name, [vi("x", ["batch", "seq", K])], [vi("y", ["batch", "seq", N])], inits)
    return g, sym_sets(rng, K, scale=2.0), DIMS, FP32


def case_q8(rng, level, zp_kind, blk, name):
    """8-bit, one block and a bit (K = blk + 24), static [5, K] and [1, K] rows."""
    K, N, inits = blk + 24, 19, []
    nodes = [nbits_node(rng, "mm", "x", "y", K, N, 8, blk, zp_kind, level, inits, bias=True),
             nbits_node(rng, "mm1", "x1", "y1", K, N, 8, blk, zp_kind, level, inits)]
    g = helper.make_graph(nodes, name, [vi("x", [5, K]), vi("x1", [K])], [vi("y", [5, N]), vi("y1", [N])], inits)
    feeds = {"x": rng.standard_normal((5, K)).astype(np.float32), "x1": rng.standard_normal(K).astype(np.float32)}
    return g, [("5", feeds)], "", FP32


def case_mlp(rng):
    """A genai-style MLP of three MatMulNBits (gate, up, down: SiLU(gate) * up), accuracy
    level 4 as the builder writes it, block 32, flat scales and zero points, symbolic batch
    and seq."""
    H, F, inits = 64, 96, []
    nodes = [nbits_node(rng, "gate", "x", "g", H, F, 4, 32, "packed", 4, inits, flat=True),
             nbits_node(rng, "up", "x", "u", H, F, 4, 32, "packed", 4, inits, bias=True),
             helper.make_node("Sigmoid", ["g"], ["gs"]), helper.make_node("Mul", ["g", "gs"], ["act"]),
             helper.make_node("Mul", ["act", "u"], ["h"]),
             nbits_node(rng, "down", "h", "y", F, H, 4, 32, "none", 4, inits)]
    g = helper.make_graph(nodes, "mlp_q4", [vi("x", ["batch", "seq", H])], [vi("y", ["batch", "seq", H])], inits)
    return g, sym_sets(rng, H), DIMS, FP32


def case_fp16(rng, level, name, K=80, N=24):
    """float16 A, scales and bias (the q4f16 files): 4-bit, block 16, packed zero points. With
    K = 256, N = 64 the scales (4 KiB) are kept float16 in the module, by the emitter in a
    single-threaded build and by the op in a threaded one (models.sh checks both agree)."""
    inits = []
    f16 = TensorProto.FLOAT16
    node = nbits_node(rng, "mm", "x", "y", K, N, 4, 16, "packed", level, inits, bias=True, dtype=np.float16)
    g = helper.make_graph([node], name, [vi("x", ["batch", "seq", K], f16)], [vi("y", ["batch", "seq", N], f16)],
                          inits)
    return g, sym_sets(rng, K, np.float16), DIMS, FP16


def case_size(rng):
    """A 1024 x 1024 4-bit layer, block 32 (512 KiB of weights, 4 MiB widened to float32): the
    module must hold it at its size (models.sh checks the module against the file); one row
    and 3, the GEMV and the row path."""
    K = N = 1024
    inits = []
    nodes = [nbits_node(rng, "mm", "x", "y", K, N, 4, 32, "packed", 0, inits, bias=True)]
    g = helper.make_graph(nodes, "q4_size_1024", [vi("x", ["rows", K])], [vi("y", ["rows", N])], inits)
    sets = [(f"{r}", {"x": rng.standard_normal((r, K)).astype(np.float32)}) for r in (1, 3)]
    return g, sets, "--dim rows=1..3", FP32


def quantize_table(t, bits, blk, zp_kind, signed=False):
    """A table t [..., L] quantized per block of blk along its last axis: (q [..., L] in 0 ..
    2^bits - 1, or signed, scales [..., nblk], zero points [..., nblk] or None)."""
    L = t.shape[-1]
    nb = (L + blk - 1) // blk
    pad = np.zeros(t.shape[:-1] + (nb * blk,), np.float32)
    pad[..., :L] = t
    b = pad.reshape(t.shape[:-1] + (nb, blk))
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if zp_kind == "none":
        mid = 0 if signed else 1 << (bits - 1)
        s = np.abs(b).max(axis=-1) / (hi - mid)
        z = np.full(s.shape, mid)
    else:
        mn, mx = np.minimum(b.min(axis=-1), 0), np.maximum(b.max(axis=-1), 0)
        s = (mx - mn) / (hi - lo)
        z = np.clip(np.rint(lo - mn / np.where(s == 0, 1, s)), lo, hi)
    s = np.where(s == 0, 1, s).astype(np.float32)
    q = np.clip(np.rint(b / s[..., None] + z[..., None]), lo, hi).reshape(pad.shape)[..., :L]
    return q.astype(np.int64), s, (None if zp_kind == "none" else z.astype(np.int64))


def pack4(v):
    """Values in 0..15 along the last axis (even length) two per byte, low nibble first."""
    v = v.astype(np.uint8)
    if v.shape[-1] % 2:
        v = np.concatenate([v, np.zeros(v.shape[:-1] + (1,), np.uint8)], axis=-1)
    return (v[..., 0::2] | (v[..., 1::2] << 4)).astype(np.uint8)


def ids_sets(rng, V):
    """Token ids over symbolic batch and seq, with the first and last rows and -V (the first).
    (An id out of range gives zeros in onnxruntime 1.32 and fails in onnxruntime-node 1.30:
    the kernel test checks the zeros.)"""
    sets = []
    for b, s in SIZES:
        ids = rng.integers(0, V, (b, s)).astype(np.int64)
        ids.flat[0] = V - 1
        if ids.size > 2:
            ids.flat[1], ids.flat[2] = 0, -V
        sets.append((f"{b}x{s}", {"ids": ids}))
    return sets


def case_tied_embedding(rng):
    """The genai builder's int4 decoder: the embedding GatherBlockQuantized gathers from a
    Reshape of the lm_head's MatMulNBits weights (uint8, two 4-bit values per byte, no zero
    points, block 32), float16 scales, symbolic batch and seq. The module holds those bytes
    once."""
    V, H = 50, 96
    f16 = TensorProto.FLOAT16
    w = (rng.standard_normal((H, V)) * 0.2).astype(np.float32)
    B, s, _ = quantize(w, 4, 32, "none", rng, np.float16)
    inits = [numpy_helper.from_array(B, "lm_B"), numpy_helper.from_array(s, "lm_s"),
             numpy_helper.from_array(np.array([V, H // 2], np.int64), "vh")]
    nodes = [helper.make_node("Reshape", ["lm_B", "vh"], ["table"]),
             helper.make_node("GatherBlockQuantized", ["table", "ids", "lm_s"], ["emb"], domain=MS, bits=4,
                              block_size=32, gather_axis=0, quantize_axis=1),
             helper.make_node("MatMulNBits", ["emb", "lm_B", "lm_s"], ["logits"], domain=MS, K=H, N=V, bits=4,
                              block_size=32, accuracy_level=4)]
    g = helper.make_graph(nodes, "gbq_tied_q4f16", [vi("ids", ["batch", "seq"], TensorProto.INT64)],
                          [vi("emb", ["batch", "seq", H], f16), vi("logits", ["batch", "seq", V], f16)], inits)
    return g, ids_sets(rng, V), DIMS, FP16_CHAIN


def case_gbq_u8(rng, bits, name):
    """uint8 tables with packed zero points: 4-bit (two per byte) and 8-bit, a rank-3 table
    [V, 2, L] (two sub-rows per id), int32 ids."""
    V, L, blk = 40, 48, 16
    t = rng.standard_normal((V, 2, L)).astype(np.float32)
    q, s, z = quantize_table(t, bits, blk, "packed")
    data = pack4(q) if bits == 4 else q.astype(np.uint8)
    zp = pack4(z) if bits == 4 else z.astype(np.uint8)
    inits = [numpy_helper.from_array(data, "table"), numpy_helper.from_array(s, "s"),
             numpy_helper.from_array(zp, "zp")]
    node = helper.make_node("GatherBlockQuantized", ["table", "ids", "s", "zp"], ["y"], domain=MS, bits=bits,
                            block_size=blk, gather_axis=0, quantize_axis=2)
    g = helper.make_graph([node], name, [vi("ids", ["batch", "seq"], TensorProto.INT32)],
                          [vi("y", ["batch", "seq", 2, L])], inits)
    sets = [(lbl, {"ids": f["ids"].astype(np.int32)}) for lbl, f in ids_sets(rng, V)]
    return g, sets, DIMS, FP32


def case_gbq_int4(rng, signed, name):
    """int4 (onnxruntime's quantizer writes these) and uint4 tables with zero points of their
    type, an odd last dim (values of consecutive rows share bytes in the file)."""
    V, L, blk = 30, 45, 32
    t = rng.standard_normal((V, L)).astype(np.float32)
    q, s, z = quantize_table(t, 4, blk, "packed", signed=signed)
    dt = TensorProto.INT4 if signed else TensorProto.UINT4
    inits = [helper.make_tensor("table", dt, [V, L], q.reshape(-1).tolist()), numpy_helper.from_array(s, "s"),
             helper.make_tensor("zp", dt, list(z.shape), z.reshape(-1).tolist())]
    node = helper.make_node("GatherBlockQuantized", ["table", "ids", "s", "zp"], ["y"], domain=MS, bits=4,
                            block_size=blk, gather_axis=0, quantize_axis=1)
    g = helper.make_graph([node], name, [vi("ids", ["batch", "seq"], TensorProto.INT64)], [vi("y", ["batch", "seq", L])],
                          inits)
    return g, ids_sets(rng, V), DIMS, FP32


# bitsandbytes' codebooks (FP4: a sign and {0, 0.0625, 8, 12, 4, 6, 2, 3} / 12; NF4: QLoRA's
# normal quantiles), to quantize with here; the kernel has its own copy.
FP4 = np.array([0, 0.0625, 8, 12, 4, 6, 2, 3, -0.0, -0.0625, -8, -12, -4, -6, -2, -3], np.float32) / 12
NF4 = np.array([-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
                -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
                0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
                0.7229568362236023, 1.0], np.float32)


def case_bnb4(rng, qt, K, blk, name):
    """MatMulBnb4 of w [K, N] as MatMulBnb4Quantizer writes it: w^T flattened, absmax per block
    of blk, each value the nearest code; symbolic batch and seq. K = 100 with blocks of 64:
    blocks across columns, a column starting mid-byte."""
    N = 21
    book = NF4 if qt else FP4
    flat = (rng.standard_normal((N, K)) * 0.2).astype(np.float32).reshape(-1)
    nb = (flat.size + blk - 1) // blk
    pad = np.zeros(nb * blk, np.float32)
    pad[:flat.size] = flat
    absmax = np.abs(pad.reshape(nb, blk)).max(axis=1).astype(np.float32)
    x = pad / np.repeat(np.where(absmax == 0, 1, absmax), blk)
    codes = np.abs(x[:, None] - book[None, :]).argmin(axis=1).astype(np.uint8)[:flat.size]
    if codes.size % 2:
        codes = np.concatenate([codes, np.zeros(1, np.uint8)])
    B = ((codes[0::2] << 4) | codes[1::2]).astype(np.uint8)
    inits = [numpy_helper.from_array(B, "B"), numpy_helper.from_array(absmax, "absmax")]
    node = helper.make_node("MatMulBnb4", ["x", "B", "absmax"], ["y"], domain=MS, K=K, N=N, block_size=blk,
                            quant_type=qt)
    g = helper.make_graph([node], name, [vi("x", ["batch", "seq", K])], [vi("y", ["batch", "seq", N])], inits)
    return g, sym_sets(rng, K), DIMS, FP32


CASES = (
    lambda r: case_q4(r, 0, "packed", 32, True, "q4_blk32_zp_level0"),
    lambda r: case_q4(r, 4, "packed", 32, False, "q4_blk32_zp_level4"),
    lambda r: case_q4(r, 4, "none", 16, True, "q4_blk16_sym_level4"),
    lambda r: case_q4(r, 1, "none", 64, False, "q4_blk64_sym_level1"),
    lambda r: case_q4(r, 4, "float", 32, True, "q4_blk32_floatzp_level4"),
    lambda r: case_q4(r, 0, "packed", 256, False, "q4_blk256_zp_level0"),
    lambda r: case_q8(r, 0, "packed", 64, "q8_blk64_zp_level0"),
    lambda r: case_q8(r, 4, "packed", 32, "q8_blk32_zp_level4"),
    lambda r: case_q8(r, 4, "none", 128, "q8_blk128_sym_level4"),
    lambda r: case_q8(r, 2, "none", 16, "q8_blk16_sym_level2"),
    case_mlp,
    lambda r: case_fp16(r, 0, "q4f16_level0"),
    lambda r: case_fp16(r, 4, "q4f16_level4"),
    lambda r: case_fp16(r, 0, "q4f16_k256", 256, 64),
    case_size,
    case_tied_embedding,
    lambda r: case_gbq_u8(r, 4, "gbq_u8_q4_zp"),
    lambda r: case_gbq_u8(r, 8, "gbq_u8_q8_zp"),
    lambda r: case_gbq_int4(r, True, "gbq_int4_zp"),
    lambda r: case_gbq_int4(r, False, "gbq_uint4_zp"),
    lambda r: case_bnb4(r, 1, 128, 64, "bnb4_nf4_blk64"),
    lambda r: case_bnb4(r, 0, 128, 32, "bnb4_fp4_blk32"),
    lambda r: case_bnb4(r, 1, 100, 64, "bnb4_nf4_k100"),
)


def main():
    write_cases(sys.argv[1], CASES, np.random.default_rng(0), [("", 21), (MS, 1)], 10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
