#!/usr/bin/env bash
# tests/layers.sh: no layer of src/ reaches up. The compiler's layers, bottom to top:
#   common <- ir <- ops <- plan <- codegen <- compile <- cli, passes on ops and ir,
#   select (kernel selection) on passes, ops and ir,
#   host on common (and kernels/include for the shared status list and conversions).
# Each rule names a folder and the folders it must not include; one line per rule.
# Prints "layers: N passed, M failed"; exits nonzero when any rule is broken.
cd "$(dirname "$0")/.."
pass=0 fail=0
rule() { # rule FOLDER FORBIDDEN...
    local dir=$1; shift
    local bad=""
    for f in "$@"; do
        bad+=$(grep -rnE "#include \"(\.\./)*$f/" "src/$dir" --include=*.c --include=*.h)
    done
    if [ -z "$bad" ]; then
        echo "ok   src/$dir includes none of: $*"; pass=$((pass + 1))
    else
        echo "FAIL src/$dir reaches up:"; echo "$bad"; fail=$((fail + 1))
    fi
}
rule common ir ops plan codegen compile passes host cli onnx
rule ir ops plan codegen compile passes host cli onnx
rule ops plan codegen compile passes host cli onnx
rule passes plan codegen compile host cli onnx
rule plan codegen compile passes host cli onnx
rule codegen compile passes host cli onnx
rule select plan codegen compile host cli onnx
rule host ir ops plan codegen compile passes cli onnx
echo "layers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
