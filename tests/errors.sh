#!/usr/bin/env bash
# Error tests: every kind of bad input gets a clear message and a nonzero exit code,
# never a crash (a signal gives exit >= 128, which fails the test), and leaves no output file.
set -uo pipefail
cd "$(dirname "$0")/.."
source tests/suite_env.sh
T=$BUILD/error-tests
rm -rf "$T"; mkdir -p "$T"
pass=0 fail=0

# expect NAME EXIT_CODE MESSAGE_FRAGMENT CMD...
expect() {
    local name=$1 code=$2 frag=$3; shift 3
    local out rc
    out=$("$@" 2>&1); rc=$?
    if [ "$rc" -eq "$code" ] && grep -qiF -- "$frag" <<< "$out"; then
        echo "ok   $name"; pass=$((pass + 1))
    else
        echo "FAIL $name: exit $rc (want $code), output: $out (want '$frag')"; fail=$((fail + 1))
    fi
}

# compiles NAME MODEL.onnx OUT.wasm [OPTIONS...]: expect $T/MODEL.onnx to compile to $T/OUT.wasm.
compiles() {
    local name=$1 model=$2 out=$3; shift 3
    expect "$name" 0 "compiled" "$W" compile "$T/$model" -o "$T/$out" "$@"
}

# save_npy FILE EXPR [FILE EXPR...]: saves each numpy expression EXPR (numpy as np) as FILE.
save_npy() {
    "$PY" -c "import numpy as np, sys; a = sys.argv[1:]; [np.save(f, eval(e)) for f, e in zip(a[::2], a[1::2])]" "$@"
}

# bounded_input OP WHAT NODE IN MODEL.onnx RANGE FEED SHAPE BAD: node NODE (OP) of $T/MODEL
# takes its WHAT from graph input IN, computed at run time, and they decide an output size.
# Unbounded, the compile names IN and its --dim; with --dim IN=RANGE the module runs on
# --input FEED and IN=$T/IN_in.npy to output y of SHAPE, $T/IN_over.npy (past RANGE) is
# status 13 and $T/IN_bad.npy (BAD says how it is bad) status 2.
bounded_input() {
    local op=$1 what=$2 node=$3 in=$4 model=$5 range=$6 feed=$7 shape=$8 bad=$9
    local wasm=${model%.onnx}.wasm
    expect "$op with unbounded run-time $what names the input and its --dim" 1 \
        "node '$node' ($op): $what input '$in' is computed at run time and nothing bounds its values, which decide the size of output dim 0 [graph input #1 '$in': compile with --dim $in=MIN..MAX to bound its values, or --const $in=FILE.pb]" \
        "$W" compile "$T/$model" -o "$T/x.wasm"
    compiles "$op with run-time $what bounded by --dim compiles" "$model" "$wasm" --dim "$in=$range"
    expect "$op with run-time $what within their --dim runs" 0 "output 0 'y' float32 [$shape]" \
        "$W" run "$T/$wasm" --input "$feed" --input "$in=$T/${in}_in.npy"
    expect "$op's run-time $what past their --dim bound are status 13" 1 "status 13 (WGK_ERR_SIZE_BOUND" \
        "$W" run "$T/$wasm" --input "$feed" --input "$in=$T/${in}_over.npy"
    expect "$op's run-time $what $bad are status 2" 1 "status 2 (WGK_ERR_INDEX" \
        "$W" run "$T/$wasm" --input "$feed" --input "$in=$T/${in}_bad.npy"
}

"$PY" tests/errors/make_bad_models.py "$T"
SQ=$SHARED/data/squeezenet1.1-caffe2/squeezenet1.1_bgr_fp32_from_fp16.onnx
: > "$T/empty.onnx"
head -c 100000 "$SQ" > "$T/truncated.onnx"
head -c 5000 /dev/urandom > "$T/random.onnx"

expect "missing model file" 1 "no such file" "$W" compile "$T/nope.onnx" -o "$T/x.wasm"
expect "empty model file" 1 "empty" "$W" compile "$T/empty.onnx" -o "$T/x.wasm"
expect "truncated model" 1 "truncated.onnx" "$W" compile "$T/truncated.onnx" -o "$T/x.wasm"
expect "random bytes as model" 1 "random.onnx" "$W" compile "$T/random.onnx" -o "$T/x.wasm"
expect "unsupported operator names op and node" 1 "node 'the_hardmux' (Hardmux): unsupported operator 'Hardmux'" \
    "$W" compile "$T/unsupported_op.onnx" -o "$T/x.wasm"
expect "custom domain op" 1 "com.example" "$W" compile "$T/custom_domain.onnx" -o "$T/x.wasm"
expect "more outputs than the ABI allows" 1 "the model has 1025 outputs; the module ABI allows at most 1024" \
    "$W" compile "$T/too_many_outputs.onnx" -o "$T/x.wasm"
expect "dangling node input" 1 "nowhere" "$W" compile "$T/dangling_input.onnx" -o "$T/x.wasm"
expect "dynamic dim needs --shape" 1 "--shape x=" "$W" compile "$T/dynamic.onnx" -o "$T/x.wasm"
compiles "sequence position known at run time compiles" seq_at.onnx seq_at.wasm
expect "sequence position out of range at run time" 1 "WGK_ERR_SEQ_INDEX" \
    "$W" run "$T/seq_at.wasm" --input "$T/x.pb" --input "$T/pos_7.pb"
compiles "CumSum axis known at run time compiles" cumsum_axis.onnx cumsum_axis.wasm
expect "CumSum axis out of range at run time" 1 "WGK_ERR_INDEX" \
    "$W" run "$T/cumsum_axis.wasm" --input "$T/x.pb" --input "$T/pos_7.pb"
compiles "optional input compiles" opt_get.onnx opt_get.wasm
expect "empty optional read at run time" 1 "WGK_ERR_OPTIONAL_EMPTY" \
    "$W" run "$T/opt_get.wasm" --input "$T/opt_empty.pb"
expect "sequence file for a tensor input" 1 "x" "$W" run "$T/seq_at.wasm" --input "$T/opt_empty.pb" --input "$T/pos_7.pb"
compiles "--shape fixes dynamic dim" dynamic.onnx dyn.wasm --shape x=2x4
# Symbolic dims (--dim, module ABI 2)
expect "dynamic dim_param suggests --dim" 1 "graph input 'x' has a dynamic dimension 0 ('N'); give its range with --dim N=MIN..MAX" \
    "$W" compile "$T/dynamic.onnx" -o "$T/x.wasm"
compiles "--dim keeps the dim symbolic" dynamic.onnx dyn2.wasm --dim N=1..8
expect "info prints the symbols" 0 "N=1..8" "$W" info "$T/dyn2.wasm"
expect "--dim naming no dim" 1 "--dim M names no dynamic dimension of a graph input" \
    "$W" compile "$T/dynamic.onnx" -o "$T/x.wasm" --dim N=1..8 --dim M=1..2
expect "--dim with a bad range" 2 "--dim wants NAME=MIN..MAX" "$W" compile "$T/dynamic.onnx" -o "$T/x.wasm" --dim N=3..1
compiles "--dim of a dimension from 0 (an empty past, a batch of none)" dynamic.onnx dyn0.wasm --dim N=0..3
save_npy "$T/x0.npy" "np.zeros((0, 4), np.float32)"
expect "a run with a dimension of 0 (zero elements in, zero out)" 0 "wrote" \
    "$W" run "$T/dyn0.wasm" --input x="$T/x0.npy" --output-dir "$T/dyn0.out"
expect "--dim given twice" 2 "--dim N is given twice" "$W" compile "$T/dynamic.onnx" -o "$T/x.wasm" --dim N=1..2 --dim N=1..3
compiles "--shape names a symbol" dynamic.onnx dyn3.wasm --shape x=batchx4 --dim batch=1..2
expect "--shape name without --dim" 1 "('rows'); give its range with --dim rows=MIN..MAX" \
    "$W" compile "$T/dynamic.onnx" -o "$T/x.wasm" --shape x=rows,4
expect "op that cannot take a symbol names node and symbol" 1 "node 'eye' (EyeLike): input 'x' depends on symbolic dimension 'N'" \
    "$W" compile "$T/dynamic_eyelike.onnx" -o "$T/x.wasm" --dim N=1..8
expect "op that cannot take a data-dependent size names node and source" 1 \
    "node 'eye_nz' (EyeLike): input 'nz' has a data-dependent size (dimension 1 of 'nz', known only at run time)" \
    "$W" compile "$T/nonzero_eyelike.onnx" -o "$T/x.wasm"
compiles "TopK with a run-time k compiles" topk_k.onnx topk_k.wasm
save_npy "$T/topk_x.npy" "np.zeros((3, 4), np.float32)" "$T/topk_k5.npy" "np.array([5])"
expect "TopK's run-time k past the axis is status 2" 1 "status 2 (WGK_ERR_INDEX" \
    "$W" run "$T/topk_k.wasm" --input "x=$T/topk_x.npy" --input "k=$T/topk_k5.npy"
compiles "Slice with run-time starts, ends and steps compiles" slice_rt.onnx slice_rt.wasm
save_npy "$T/slice_s.npy" "np.array([0])" "$T/slice_e.npy" "np.array([3])" "$T/slice_p0.npy" "np.array([0])"
expect "Slice's run-time step 0 is status 2" 1 "status 2 (WGK_ERR_INDEX" \
    "$W" run "$T/slice_rt.wasm" --input "x=$T/topk_x.npy" --input "starts=$T/slice_s.npy" \
    --input "ends=$T/slice_e.npy" --input "steps=$T/slice_p0.npy"
compiles "Loop whose body decides a size compiles" loop_carried_size.onnx loop_k.wasm
save_npy "$T/x4.npy" "np.arange(4, dtype=np.float32)" "$T/k1.npy" "np.array([1])" "$T/k2.npy" "np.array([2])"
expect "Loop whose carried value keeps its size runs" 0 "output 0 'c'" \
    "$W" run "$T/loop_k.wasm" --input "x4=$T/x4.npy" --input "k=$T/k1.npy"
expect "Loop whose body changes a carried value's size is status 12" 1 "status 12 (WGK_ERR_LOOP_SHAPE" \
    "$W" run "$T/loop_k.wasm" --input "x4=$T/x4.npy" --input "k=$T/k2.npy"
expect "Scan whose scan rows have a run-time size names the node" 1 \
    "node 'scan_k' (Scan): scan output 0 ('scan_k/body/part') has a size the body decides at run time" \
    "$W" compile "$T/scan_rows_size.onnx" -o "$T/x.wasm"
compiles "Scan whose scan rows have a symbolic size compiles (rows stored at the actual size)" \
    scan_rows_symbolic.onnx scan_sym.wasm --dim N=1..4
expect "a shape computed from a graph input names that input and its --const" 1 \
    "(it is computed from graph input 's') [graph input #1 's': compile with --const s=FILE.pb]" \
    "$W" compile "$T/reshape_shape_derived.onnx" -o "$T/x.wasm"
save_npy "$T/p_in.npy" "np.array([2, 0, 1, 0])" "$T/p_over.npy" "np.array([3, 0, 3, 0])" \
    "$T/p_bad.npy" "np.array([-2, 0, -2, 0])"
bounded_input Pad pads pad_p p pad_rt.onnx 0..2 "x=$T/topk_x.npy" 6,4 "cropping past the size"
save_npy "$T/rs_x.npy" "np.ones((1, 1, 3, 4), np.float32)" "$T/sz_in.npy" "np.array([1, 1, 8, 5])" \
    "$T/sz_over.npy" "np.array([1, 1, 9, 5])" "$T/sz_bad.npy" "np.array([1, 1, 0, 5])"
bounded_input Resize sizes resize_sz sz resize_rt.onnx 1..8 "x=$T/rs_x.npy" 1,1,8,5 "below 1"
expect "Resize with run-time scales says to give sizes" 1 \
    "node 'resize_sc' (Resize): scales input 'sc' is computed at run time, and scales decide the output's size with nothing to bound it: give the output size as sizes (int64) instead" \
    "$W" compile "$T/resize_rt_scales.onnx" -o "$T/x.wasm"
expect "LpPool of a symbolic height names the dim and says only the batch may be" 1 \
    "node 'lppool_h' (LpPool): dimension 2 of input 'x' is symbolic ('h', --dim); this op takes a symbolic batch (dimension 0) only: fix the others with --shape" \
    "$W" compile "$T/lppool_sym_h.onnx" -o "$T/x.wasm" --dim n=1..2 --dim h=2..8
expect "an unpadded Conv empty at the smallest height says to raise the --dim minimum" 1 \
    "node 'conv_h' (Conv): its window leaves no output when dimension h is at its smallest (2): raise the --dim minimum of 'h'" \
    "$W" compile "$T/conv_sym_h.onnx" -o "$T/x.wasm" --dim n=1..2 --dim h=2..8
compiles "an unpadded Conv of a symbolic height from 3 compiles" \
    conv_sym_h.onnx conv_sym_h.wasm --dim n=1..2 --dim h=3..8
expect "--dim with a step that does not divide its range is refused" 2 "NAME=MIN..MAX:STEP for the multiples of STEP" \
    "$W" compile "$T/conv_sym_h.onnx" -o "$T/x.wasm" --dim n=1..2 --dim h=30..96:32
compiles "--dim with a step compiles (h a multiple of 32)" conv_sym_h.onnx conv_h32.wasm --dim n=1..2 --dim h=32..96:32
save_npy "$T/h40.npy" "np.ones((1, 2, 40, 5), np.float32)" "$T/h64.npy" "np.ones((1, 2, 64, 5), np.float32)"
expect "a size that is not a multiple of its step is refused before the run" 1 \
    "symbol 'h' = 40 is outside its range 32..96 in steps of 32" "$W" run "$T/conv_h32.wasm" --input "x=$T/h40.npy"
expect "a multiple of its step runs" 0 "output 0 'y' float32 [1,3,62,3]" "$W" run "$T/conv_h32.wasm" --input "x=$T/h64.npy"
compiles "an opset-9 Slice of a symbolic shape folds (no crash)" slice9_shape.onnx slice9.wasm --dim n=1..4
compiles "Expand of x [1, s] to [1, s + p] compiles (the module checks s is 1 or p is 0)" \
    expand_s_sp.onnx expand_s_sp.wasm --dim s=1..4 --dim p=0..4
save_npy "$T/es_x1.npy" "np.ones((1, 1), np.float32)" "$T/es_x2.npy" "np.ones((1, 2), np.float32)" \
    "$T/es_p0.npy" "np.ones(0, np.float32)" "$T/es_p3.npy" "np.ones(3, np.float32)"
expect "Expand to [1, s + p] at s 1 broadcasts" 0 "output 0 'y' float32 [1,4]" \
    "$W" run "$T/expand_s_sp.wasm" --input "x=$T/es_x1.npy" --input "p=$T/es_p3.npy"
expect "Expand to [1, s + p] at p 0 copies" 0 "output 0 'y' float32 [1,2]" \
    "$W" run "$T/expand_s_sp.wasm" --input "x=$T/es_x2.npy" --input "p=$T/es_p0.npy"
expect "Expand to [1, s + p] at s 2, p 3 (no broadcast) is status 2" 1 "status 2 (WGK_ERR_INDEX" \
    "$W" run "$T/expand_s_sp.wasm" --input "x=$T/es_x2.npy" --input "p=$T/es_p3.npy"
expect "Expand of [1, s] to [1, p], p not proven at least s, is unsupported, naming the node" 1 \
    "node 'expand_p' (Expand): input 'x' depends on symbolic dimension 's' (--dim), which this op does not support: the shape broadcasts a symbolic dimension against another size" \
    "$W" compile "$T/expand_s_p.onnx" -o "$T/x.wasm" --dim s=1..4 --dim p=1..4
expect "Expand of [1, s] to [1, p], p below s at the maxima, is unsupported too" 1 \
    "node 'expand_p' (Expand): shape value 1 (symbolic, 4 at the maxima) may be neither 1 nor input dim 1 (8 at the maxima)" \
    "$W" compile "$T/expand_s_p.onnx" -o "$T/x.wasm" --dim s=1..8 --dim p=1..4
expect "Slice x[:, -p:] where p may be 0 (the whole axis) is refused, naming the node" 1 \
    "node 'slice_last_p' (Slice): input 'x' depends on symbolic dimension 's' (--dim), which this op does not support: a start from the end, -k, where k may be 0" \
    "$W" compile "$T/slice_last_p.onnx" -o "$T/x.wasm" --dim s=1..4 --dim p=0..4
compiles "Slice x[:, -p:] for p from 1 compiles (min(p, s) elements, decided at run time)" \
    slice_last_p.onnx slice_last_p.wasm --dim s=1..4 --dim p=1..4
expect "Slice x[:, -p:] at s 2, p 3 takes the 2 there are" 0 "output 0 'y' float32 [1,2]" \
    "$W" run "$T/slice_last_p.wasm" --input "x=$T/es_x2.npy" --input "p=$T/es_p3.npy"
expect "MaxPool's Indices over a symbolic batch are refused" 1 \
    "node 'pool_idx' (MaxPool): input 'x' depends on symbolic dimension 'n' (--dim), which this op does not support yet" \
    "$W" compile "$T/maxpool_idx_sym_n.onnx" -o "$T/x.wasm" --dim n=1..2
compiles "Conv of a symbolic batch compiles" conv_sym_n.onnx conv_sym_n.wasm --dim n=1..2
save_npy "$T/conv_x3.npy" "np.ones((3, 2, 4, 5), np.float32)"
expect "a batch past its --dim range is refused before the run" 1 "symbol 'n' = 3 is outside its range 1..2" \
    "$W" run "$T/conv_sym_n.wasm" --input "x=$T/conv_x3.npy"
expect "--dim and --const of one input" 2 "--dim p and --const p name the same input" \
    "$W" compile "$T/pad_rt.onnx" -o "$T/x.wasm" --dim p=0..2 --const "p=$T/x.pb"
expect "--dim bounding an input and naming a dimension" 1 "--dim p names both graph input 'p'" \
    "$W" compile "$T/pad_rt_named.onnx" -o "$T/x.wasm" --dim p=0..2
expect "Slice with run-time axes names the node and the binding" 1 \
    "node 'slice_axes' (Slice): axes input 'axes' is computed at run time" \
    "$W" compile "$T/slice_rt_axes.onnx" -o "$T/x.wasm"
# onnxruntime's contrib operators (tests/errors/make_contrib_models.py): messages name the
# node and its domain.
"$PY" tests/errors/make_contrib_models.py "$T"
expect "unknown com.microsoft op names the node and the domain" 1 \
    "node 'mm' (QOrderedMatMul, domain com.microsoft): unsupported operator (the com.microsoft operators implemented: " \
    "$W" compile "$T/ms_unknown_op.onnx" -o "$T/x.wasm"
expect "com.microsoft op without the domain's opset_import" 1 \
    "node 'fg' (FastGelu, domain com.microsoft): the model's opset_import lacks domain 'com.microsoft'" \
    "$W" compile "$T/ms_not_imported.onnx" -o "$T/x.wasm"
expect "com.microsoft opset 2 is not onnxruntime's" 1 \
    "node 'fg' (FastGelu, domain com.microsoft): the model imports com.microsoft opset 2; onnxruntime defines opset 1 only" \
    "$W" compile "$T/ms_opset_2.onnx" -o "$T/x.wasm"
expect "SkipLayerNormalization with two inputs" 1 \
    "node 'sln' (SkipLayerNormalization, domain com.microsoft): has 2 inputs, but SkipLayerNormalization-1 requires at least 3" \
    "$W" compile "$T/skip_ln_two_inputs.onnx" -o "$T/x.wasm"
expect "BiasGelu with three inputs" 1 "node 'bg' (BiasGelu, domain com.microsoft): has 3 inputs, expected 2..2" \
    "$W" compile "$T/bias_gelu_three_inputs.onnx" -o "$T/x.wasm"
expect "an attribute a contrib schema does not have" 1 \
    "node 'fg' (FastGelu, domain com.microsoft): unknown attribute 'foo' (the schema has no attributes)" \
    "$W" compile "$T/fast_gelu_unknown_attr.onnx" -o "$T/x.wasm"
expect "a contrib attribute of the wrong type" 1 \
    "node 'qg' (QuickGelu, domain com.microsoft): attribute 'alpha' has type INTS, but onnxruntime defines it as FLOAT" \
    "$W" compile "$T/quick_gelu_ints_alpha.onnx" -o "$T/x.wasm"
expect "SimplifiedLayerNormalization's stash_type 10 is unsupported" 1 \
    "node 'rms' (SimplifiedLayerNormalization): stash_type 10 (float32 and float64 only)" \
    "$W" compile "$T/sln_stash_type_10.onnx" -o "$T/x.wasm"
expect "SimplifiedLayerNormalization in com.microsoft says where onnxruntime has it" 1 \
    "node 'rms' (SimplifiedLayerNormalization, domain com.microsoft): unsupported operator (SimplifiedLayerNormalization is an operator of the default domain)" \
    "$W" compile "$T/sln_in_ms.onnx" -o "$T/x.wasm"
expect "FastGelu in the default domain says where it is" 1 \
    "node 'fg' (FastGelu): unsupported operator 'FastGelu' (FastGelu is an operator of domain 'com.microsoft')" \
    "$W" compile "$T/fast_gelu_in_default.onnx" -o "$T/x.wasm"
expect "SkipSimplifiedLayerNormalization's mean output is refused" 1 \
    "node 'ssln' (SkipSimplifiedLayerNormalization, domain com.microsoft): output 1 (mean): RMS normalisation has no mean" \
    "$W" compile "$T/skip_simplified_mean.onnx" -o "$T/x.wasm"
expect "MatMulIntegerToFloat with an a_scale of two values" 1 \
    "node 'mitf' (MatMulIntegerToFloat, domain com.microsoft): a_scale must be a scalar" \
    "$W" compile "$T/mitf_a_scale_2.onnx" -o "$T/x.wasm"
expect "FastGelu's bias of two dims" 1 "node 'fg' (FastGelu, domain com.microsoft): bias 'b' 2x4 must have one dim" \
    "$W" compile "$T/fast_gelu_bias_2d.onnx" -o "$T/x.wasm"
# DynamicQuantizeLSTM (tests/errors/make_contrib_models.py qlstm_models).
QL="node 'qlstm' (DynamicQuantizeLSTM, domain com.microsoft)"
expect "DynamicQuantizeLSTM's W in LSTM's layout, not transposed" 1 \
    "$QL: W 'W' is 1x8x4: it must be [num_directions, input_size, 8] (4 hidden_size)" \
    "$W" compile "$T/qlstm_w_shape.onnx" -o "$T/x.wasm"
expect "DynamicQuantizeLSTM without R_scale" 1 "$QL: input 10 (R_scale) is required" \
    "$W" compile "$T/qlstm_no_r_scale.onnx" -o "$T/x.wasm"
expect "DynamicQuantizeLSTM's zero point of another type than its weight" 1 \
    "$QL: zero point 'wz' is uint8, its weight 'W' int8" "$W" compile "$T/qlstm_zp_dtype.onnx" -o "$T/x.wasm"
expect "DynamicQuantizeLSTM with an attribute LSTM's quantized form drops" 1 "$QL: unknown attribute 'layout'" \
    "$W" compile "$T/qlstm_unknown_attr.onnx" -o "$T/x.wasm"
# MatMulNBits, GatherBlockQuantized, MatMulBnb4 (tests/errors/make_contrib_models.py
# nbits_models): tensors of the wrong size, attributes they disagree with, values outside the
# schema's range or ours.
MNB="node 'mnb' (MatMulNBits, domain com.microsoft)"
expect "MatMulNBits' B of the wrong shape" 1 \
    "$MNB: B 'B' is 3x1x9, not [N, k_blocks, blob] = [3, 1, 8] as N = 3, K = 4, bits = 4, block_size = 16 make it" \
    "$W" compile "$T/nbits_b_missized.onnx" -o "$T/x.wasm"
expect "MatMulNBits' B truncated" 1 "initializer 'B' (uint8): data size does not match the shape: expected 24 bytes, got 20" \
    "$W" compile "$T/nbits_b_truncated.onnx" -o "$T/x.wasm"
expect "MatMulNBits' scales of the wrong shape" 1 "$MNB: scales 's' is 3x2, not [3, 1] (or [3])" \
    "$W" compile "$T/nbits_scales_missized.onnx" -o "$T/x.wasm"
expect "MatMulNBits' zero points of the wrong shape" 1 "$MNB: packed zero_points 'zp' is 3x2, not [3, 1] (or [3])" \
    "$W" compile "$T/nbits_zp_missized.onnx" -o "$T/x.wasm"
expect "MatMulNBits' block_size not a power of two" 1 "$MNB: block_size = 24: must be a power of two, 16 or more" \
    "$W" compile "$T/nbits_block_24.onnx" -o "$T/x.wasm"
expect "MatMulNBits' block_size below 16" 1 "$MNB: block_size = 8: must be a power of two, 16 or more" \
    "$W" compile "$T/nbits_block_8.onnx" -o "$T/x.wasm"
expect "MatMulNBits' block_size above 256" 1 "$MNB: block_size = 512: wasmgraph (as onnxruntime's CPU kernels) takes 16 to 256" \
    "$W" compile "$T/nbits_block_512.onnx" -o "$T/x.wasm"
expect "MatMulNBits' K disagrees with A" 1 "$MNB: A 'x' is 2x4: its last dim must be K = 8" \
    "$W" compile "$T/nbits_k_vs_a.onnx" -o "$T/x.wasm"
expect "MatMulNBits' N disagrees with B" 1 "$MNB: B 'B' is 3x1x8, not [N, k_blocks, blob] = [5, 1, 8] as N = 5" \
    "$W" compile "$T/nbits_n_vs_b.onnx" -o "$T/x.wasm"
expect "MatMulNBits' bits 3" 1 "$MNB: bits = 3: wasmgraph takes 4 and 8" "$W" compile "$T/nbits_bits_3.onnx" -o "$T/x.wasm"
expect "MatMulNBits' bits 9" 1 "$MNB: bits = 9: the schema takes 2 to 8" "$W" compile "$T/nbits_bits_9.onnx" -o "$T/x.wasm"
expect "MatMulNBits' g_idx" 1 "$MNB: g_idx 'g' (input 4, deprecated: act-order groups) is not supported" \
    "$W" compile "$T/nbits_gidx.onnx" -o "$T/x.wasm"
GBQ="node 'gbq' (GatherBlockQuantized, domain com.microsoft)"
expect "GatherBlockQuantized's scales of the wrong shape" 1 \
    "$GBQ: scales 'gs' is 6x3: data 'table' 6x16 with block_size 16 takes its shape with the last dim 2" \
    "$W" compile "$T/gbq_scales_missized.onnx" -o "$T/x.wasm"
expect "GatherBlockQuantized along axis 1" 1 "$GBQ: gather_axis 1 and quantize_axis 1 of data 'table' 6x16: wasmgraph takes gather_axis 0" \
    "$W" compile "$T/gbq_gather_axis_1.onnx" -o "$T/x.wasm"
expect "GatherBlockQuantized's bits 2" 1 "$GBQ: bits = 2: wasmgraph takes 4 and 8 for uint8 data" \
    "$W" compile "$T/gbq_bits_2.onnx" -o "$T/x.wasm"
BNB="node 'bnb' (MatMulBnb4, domain com.microsoft)"
expect "MatMulBnb4's B of the wrong size" 1 "$BNB: B 'bq' has shape [7], not [6] (N * K = 12 codes, two per byte)" \
    "$W" compile "$T/bnb4_b_missized.onnx" -o "$T/x.wasm"
expect "MatMulBnb4's absmax of the wrong size" 1 "$BNB: absmax 'am' has shape [2], not [1]" \
    "$W" compile "$T/bnb4_absmax_missized.onnx" -o "$T/x.wasm"
expect "MatMulBnb4's quant_type 2" 1 "$BNB: quant_type = 2: 0 (FP4) or 1 (NF4)" \
    "$W" compile "$T/bnb4_quant_type_2.onnx" -o "$T/x.wasm"
expect "MatMulBnb4's block_size 24" 1 "$BNB: block_size = 24: must be a power of two, 16 or more" \
    "$W" compile "$T/bnb4_block_24.onnx" -o "$T/x.wasm"
expect "MatMulBnb4's transB 0" 1 "$BNB: transB = 0: wasmgraph takes 1" "$W" compile "$T/bnb4_transb_0.onnx" -o "$T/x.wasm"
# GroupQueryAttention (tests/errors/make_contrib_models.py gqa_models): head counts, shapes and
# types onnxruntime refuses, what wasmgraph does not implement, and lengths checked at run time.
GQA="node 'gqa' (GroupQueryAttention, domain com.microsoft)"
expect "GroupQueryAttention's num_heads not a multiple of kv_num_heads" 1 \
    "$GQA: num_heads 6 must be a positive multiple of kv_num_heads 4" "$W" compile "$T/gqa_heads_6_4.onnx" -o "$T/x.wasm"
expect "GroupQueryAttention's hidden size not a multiple of num_heads" 1 \
    "$GQA: query's hidden size 30 is not a multiple of num_heads 4" "$W" compile "$T/gqa_hidden_30.onnx" -o "$T/x.wasm"
expect "GroupQueryAttention's packed hidden size not a multiple of the heads" 1 \
    "$GQA: query's hidden size 50 is not a multiple of num_heads + 2 * kv_num_heads (packed QKV) 8" \
    "$W" compile "$T/gqa_packed_hidden_50.onnx" -o "$T/x.wasm"
expect "GroupQueryAttention without seqlens_k" 1 "$GQA: input 5 (seqlens_k) is required" \
    "$W" compile "$T/gqa_five_inputs.onnx" -o "$T/x.wasm"
expect "GroupQueryAttention's unknown attribute" 1 "$GQA: unknown attribute 'foo'" \
    "$W" compile "$T/gqa_unknown_attr.onnx" -o "$T/x.wasm"
expect "GroupQueryAttention's causal 0 is unsupported" 1 "$GQA: attribute causal = 0 is not supported (only 1)" \
    "$W" compile "$T/gqa_causal_0.onnx" -o "$T/x.wasm"
expect "GroupQueryAttention's qk_output is unsupported" 1 "$GQA: attribute qk_output = 1 is not supported (only 0)" \
    "$W" compile "$T/gqa_qk_output.onnx" -o "$T/x.wasm"
expect "GroupQueryAttention's quantized cache is unsupported" 1 \
    "$GQA: attribute k_quant_type = 'PER_TENSOR': quantized KV caches are not supported" \
    "$W" compile "$T/gqa_quantized_cache.onnx" -o "$T/x.wasm"
expect "GroupQueryAttention's seqlens_k of int64" 1 "$GQA: input 5 'seqlens' has dtype int64; supported: int32" \
    "$W" compile "$T/gqa_seqlens_int64.onnx" -o "$T/x.wasm"
expect "GroupQueryAttention's seqlens_k of the wrong shape" 1 \
    "$GQA: seqlens_k 'seqlens' is 2x1: it must be [1] (one length per batch)" \
    "$W" compile "$T/gqa_seqlens_2x1.onnx" -o "$T/x.wasm"
expect "GroupQueryAttention's total_sequence_length computed at run time" 1 \
    "$GQA: total_sequence_length 'total' is computed at run time" "$W" compile "$T/gqa_total_input.onnx" -o "$T/x.wasm"
expect "GroupQueryAttention without present outputs" 1 "$GQA: outputs present_key and present_value are required" \
    "$W" compile "$T/gqa_no_present.onnx" -o "$T/x.wasm"
expect "GroupQueryAttention of an int32 query" 1 "$GQA: input 0 'query' has dtype int32; supported: float32" \
    "$W" compile "$T/gqa_query_int32.onnx" -o "$T/x.wasm"
compiles "GroupQueryAttention of a 2-row past compiles" gqa_ok.onnx gqa_ok.wasm
gqa_in=(--input "query=$T/gqa_q.npy" --input "key=$T/gqa_kv.npy" --input "value=$T/gqa_kv.npy"
        --input "past_key=$T/gqa_past.npy" --input "past_value=$T/gqa_past.npy")
expect "GroupQueryAttention with lengths that fit its past runs" 0 "output 1 'present_key' float32 [1,2,6,8]" \
    "$W" run "$T/gqa_ok.wasm" "${gqa_in[@]}" --input "attention_mask=$T/gqa_mask_ok.npy"
expect "GroupQueryAttention whose seqlens_k reaches past its past is status 17" 1 "status 17 (WGK_ERR_ATTN_LENGTHS" \
    "$W" run "$T/gqa_ok.wasm" "${gqa_in[@]}" --input "attention_mask=$T/gqa_mask_long.npy"
# MultiHeadAttention, RotaryEmbedding and Attention of com.microsoft (make_contrib_models.py
# mha_models): the forms wasmgraph does not take, and a key padding length checked at run time.
MHA="node 'mha' (MultiHeadAttention, domain com.microsoft)"
expect "MultiHeadAttention's packed QKV is unsupported" 1 "$MHA: key and value are required (the packed QKV form" \
    "$W" compile "$T/mha_packed.onnx" -o "$T/x.wasm"
expect "MultiHeadAttention's 4-D key is unsupported" 1 "$MHA: key and value of ranks 4 and 4: wasmgraph takes 3-D ones" \
    "$W" compile "$T/mha_key_4d.onnx" -o "$T/x.wasm"
expect "MultiHeadAttention's hidden size not a multiple of num_heads" 1 \
    "$MHA: hidden sizes 16 and 16 are not multiples of num_heads 3" "$W" compile "$T/mha_heads_3.onnx" -o "$T/x.wasm"
expect "MultiHeadAttention's cache_indirection is unsupported" 1 "$MHA: input 9 (cache_indirection" \
    "$W" compile "$T/mha_cache_indirection.onnx" -o "$T/x.wasm"
expect "MultiHeadAttention's qk output is unsupported" 1 "$MHA: output 3 (qk) is not supported" \
    "$W" compile "$T/mha_qk_output.onnx" -o "$T/x.wasm"
ROPE="node 'rope' (RotaryEmbedding, domain com.microsoft)"
expect "RotaryEmbedding's packed batching is unsupported" 1 "$ROPE: is_packed_batching = 1 (ragged batches) is not supported" \
    "$W" compile "$T/ms_rope_packed_batching.onnx" -o "$T/x.wasm"
expect "RotaryEmbedding's rotary_embedding_dim without num_heads" 1 \
    "$ROPE: num_heads 0 and rotary_embedding_dim 8: rotary_embedding_dim needs num_heads" \
    "$W" compile "$T/ms_rope_dim_without_heads.onnx" -o "$T/x.wasm"
ATT="node 'att' (Attention, domain com.microsoft)"
expect "Attention's do_rotary is unsupported" 1 "$ATT: attribute do_rotary = 1 is not supported (only 0)" \
    "$W" compile "$T/ms_attention_do_rotary.onnx" -o "$T/x.wasm"
expect "Attention's 4-D mask_index is unsupported" 1 "$ATT: mask_index of rank 4: wasmgraph takes [batch] (lengths)" \
    "$W" compile "$T/ms_attention_mask_4d.onnx" -o "$T/x.wasm"
compiles "MultiHeadAttention with key padding lengths compiles" mha_lengths.onnx mha_lengths.wasm
mha_in=(--input "q=$T/mha_q.npy" --input "k=$T/mha_q.npy" --input "v=$T/mha_q.npy")
expect "MultiHeadAttention's key padding length within the keys runs" 0 "output 0 'y' float32 [1,3,16]" \
    "$W" run "$T/mha_lengths.wasm" "${mha_in[@]}" --input "lens=$T/mha_lens_ok.npy"
expect "MultiHeadAttention's key padding length past the keys is status 2" 1 "status 2 (WGK_ERR_INDEX" \
    "$W" run "$T/mha_lengths.wasm" "${mha_in[@]}" --input "lens=$T/mha_lens_over.npy"
shapes=(); for i in $(seq 17); do shapes+=(--shape "x$i=1"); done
expect "more --shape options than the limit say how to fix a shared dim" 2 "at most 16 --shape options; to fix a dimension that many inputs share, give its symbol one value with --dim NAME=N..N" \
    "$W" compile "$T/dynamic.onnx" -o "$T/x.wasm" "${shapes[@]}"
expect "--shape of unknown input" 1 "not a graph input" "$W" compile "$T/dynamic.onnx" -o "$T/x.wasm" --shape z=1x4
expect "unsupported attribute value names node and mode" 1 "node 'pad_wrap' (Pad)" "$W" compile "$T/pad_wrap.onnx" -o "$T/x.wasm"
expect "initializer size mismatch" 1 "'b'" "$W" compile "$T/short_initializer.onnx" -o "$T/x.wasm"
expect "bad option" 2 "unknown option" "$W" compile "$SQ" -o "$T/x.wasm" --frobnicate
if ls "$T"/x.wasm* > /dev/null 2>&1; then echo "FAIL failed compiles left an output file"; fail=$((fail + 1)); else echo "ok   no output file after failed compiles"; pass=$((pass + 1)); fi

# Modules.
MN=$SHARED/data/mnist
"$W" compile "$MN/mnist-8.onnx" -o "$T/mnist.wasm" -q
head -c 3000 "$T/mnist.wasm" > "$T/truncated.wasm"
printf '\0asm\1\0\0\0' > "$T/empty-module.wasm"
printf 'hello world' > "$T/text.wasm"
expect "missing module" 1 "no such file" "$W" run "$T/nope.wasm"
expect "truncated module" 1 "truncated.wasm" "$W" run "$T/truncated.wasm" --input "$MN/test_data_set_0/input_0.pb"
expect "not a wasm file" 1 "not a WebAssembly module" "$W" info "$T/text.wasm"
expect "valid wasm without our exports" 1 "wasmgraph" "$W" run "$T/empty-module.wasm"
expect "input of the wrong size" 1 "Input3" "$W" run "$T/mnist.wasm" --input "$SHARED/data/squeezenet1.1-caffe2/test_data_fp32/test_data_set_0/input_0.pb"
expect "input of the wrong dtype" 1 "float16" "$W" run "$T/mnist.wasm" --input "Input3=$SHARED/data/squeezenet1.1-caffe2/test_data_fp16/test_data_set_0/input_0.pb"
expect "missing input file" 1 "no such file" "$W" run "$T/mnist.wasm" --input "Input3=$T/nope.pb"
head -n 5 "$SHARED/data/labels/synset.txt" > "$T/short-labels.txt"
expect "labels file shorter than classes" 1 "5 labels" "$W" classify "$T/mnist.wasm" -i "$MN/digits/3_1020.png" -l "$T/short-labels.txt"
expect "missing image" 1 "nope.png" "$W" classify "$T/mnist.wasm" -i "$T/nope.png" -l "$SHARED/data/labels/synset.txt"
expect "memory cap refuses a module" 1 "more than the limit" "$W" bench "$T/mnist.wasm" --iters 1 --memory-limit-mb 1
# wasmgraph bench: a token-type embedding (a Gather of a 2-row table, BERT's token_type_ids)
# runs on bench's own filler and on the inputs given with --input, as run reads them.
"$PY" - "$T" <<'PYEOF'
import sys, numpy as np, onnx
from onnx import helper, TensorProto, numpy_helper
t = sys.argv[1]
table = numpy_helper.from_array(np.arange(8, dtype=np.float32).reshape(2, 4), "table")
g = helper.make_graph([helper.make_node("Gather", ["table", "ids"], ["y"])], "token_types",
                      [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 8])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 4])], [table])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), f"{t}/token_types.onnx")
np.save(f"{t}/ids_ok.npy", np.zeros((1, 8), np.int64))
np.save(f"{t}/ids_bad.npy", np.full((1, 8), 2, np.int64))
PYEOF
compiles "a token-type Gather compiles" token_types.onnx token_types.wasm
expect "bench's filler keeps index inputs in range" 0 "median" "$W" bench "$T/token_types.wasm" --iters 2
expect "bench takes inputs as run does" 0 "median" "$W" bench "$T/token_types.wasm" --iters 2 --input "ids=$T/ids_ok.npy"
expect "bench on an index input out of range is status 2" 1 "status 2 (WGK_ERR_INDEX" \
    "$W" bench "$T/token_types.wasm" --iters 2 --input "$T/ids_bad.npy"
expect "bench refuses more inputs than the model's" 1 "more inputs given than the model's 1" \
    "$W" bench "$T/token_types.wasm" --input "$T/ids_ok.npy" --input "$T/ids_ok.npy"
expect "bench names a missing input file" 1 "nope.npy" "$W" bench "$T/token_types.wasm" --input "ids=$T/nope.npy"
"$W" compile "$SQ" -o "$T/squeezenet.wasm" -q
expect "time limit stops a run" 1 "exceeded the time limit of 1 ms" "$W" classify "$T/squeezenet.wasm" -i "$SHARED/data/images/cat.png" -l "$SHARED/data/labels/synset.txt" --time-limit-ms 1
# wasmgraph profile: modules built without --profile, bad options, and the time limit on one step.
expect "profile needs a --profile module" 1 "mnist.wasm was not compiled with --profile" "$W" profile "$T/mnist.wasm"
expect "profile of a missing module" 1 "no such file" "$W" profile "$T/nope.wasm"
expect "profile --iters 0" 2 "--iters needs" "$W" profile "$T/mnist.wasm" --iters 0
expect "profile unknown option" 2 "unknown option" "$W" profile "$T/mnist.wasm" --frobnicate
"$W" compile "$SQ" -o "$T/squeezenet-prof.wasm" -q --profile
expect "time limit stops a profile step" 1 "wg_profile_step: run exceeded the time limit of 1 ms" \
    "$W" profile "$T/squeezenet-prof.wasm" --warmup 0 --iters 1 --time-limit-ms 1
expect "unknown command" 2 "unknown command" "$W" frobnicate

echo "errors: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
