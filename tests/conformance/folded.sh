#!/usr/bin/env bash
# tests/conformance/folded.sh: the ONNX node conformance tests again with every graph input
# bound as a constant (--const NAME=test_data_set_0/input_K.pb), so that the whole graph is
# evaluated by the compiler's host constant folding instead of the module. Checks that each
# op's fold hook gives ONNX's expected outputs (same rule as run.sh: rtol 1e-3, atol 1e-7,
# exact dtypes). Prints "node-folded: N passed, M failed, K unsupported" and the failures,
# writes $BUILD/conformance/folded.tsv, exits nonzero when anything failed.
# "unsupported" here means the compiler refused the graph (as in run.sh). Env: JOBS, DATA.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
DATA=${DATA:-/usr/share/libonnx-testdata/data}
PY=${WG_PYTHON:-$HOME/.cache/wasmgraph/venv/bin/python}
JOBS=${JOBS:-$(nproc)}
export OUT=$PWD/$BUILD/conformance/work-folded
mkdir -p "$OUT" "$BUILD/conformance/bin-folded"
for t in "$BUILD/bin/wasmgraph" "$BUILD/tests/compare_tensors"; do
    [ -x "$t" ] || { echo "folded: $t is missing (run make all)"; exit 2; }
done
[ -x "$PY" ] || { echo "folded: $PY is missing (scripts/setup.sh)"; exit 2; }
# A snapshot of the tools, so that a rebuild during the run cannot disturb it.
cp "$BUILD/bin/wasmgraph" "$BUILD/tests/compare_tensors" "$BUILD/conformance/bin-folded/" || exit 2
export W=$PWD/$BUILD/conformance/bin-folded/wasmgraph CMP=$PWD/$BUILD/conformance/bin-folded/compare_tensors
# One line per test: DIR<TAB>--const NAME=FILE ... (input names from the model).
"$PY" - "$DATA/node" > "$OUT/list.tsv" <<'PY' || exit 2
import os, sys, onnx
root = sys.argv[1]
for name in sorted(os.listdir(root)):
    d = os.path.join(root, name)
    ds = os.path.join(d, "test_data_set_0")
    if not os.path.isfile(os.path.join(d, "model.onnx")) or not os.path.isdir(ds):
        continue
    m = onnx.load(os.path.join(d, "model.onnx"), load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    names = [i.name for i in m.graph.input if i.name not in inits]
    args = [f"--const {nm}={ds}/input_{k}.pb" for k, nm in enumerate(names)
            if os.path.isfile(f"{ds}/input_{k}.pb")]
    print(d + "\t" + " ".join(args))
PY
one() { # DIR<TAB>ARGS
    local d=${1%%$'\t'*} args=${1#*$'\t'} name work rc want line got kind
    name=$(basename "$d"); work=$OUT/$name
    rm -rf "$work"; mkdir -p "$work"
    # shellcheck disable=SC2086
    timeout 300 "$W" compile "$d/model.onnx" -o "$work/m.wasm" -q $args > "$work/compile.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        if [ $rc -eq 1 ] && grep -q '^wasmgraph: error (unsupported):' "$work/compile.log"; then
            printf 'node-folded\t%s\tunsupported\t%s\n' "$name" "$(grep -m1 'wasmgraph: error' "$work/compile.log" | head -c 300)"
        else
            printf 'node-folded\t%s\tfailed\tcompile: %s\n' "$name" "$(grep -m1 'error' "$work/compile.log" | head -c 300)"
        fi
        return
    fi
    if ! timeout 120 "$W" run "$work/m.wasm" --output-dir "$work/out" > "$work/run.log" 2>&1; then
        printf 'node-folded\t%s\tfailed\trun: %s\n' "$name" "$(tail -c 300 "$work/run.log" | tr '\n\t' '  ')"
        return
    fi
    for want in "$d"/test_data_set_0/output_*.pb; do
        got=$work/out/$(basename "$want")
        # a sequence or optional output: `run` says so when it writes it (as in one.sh)
        kind=$(grep -F "wrote $got ('" "$work/run.log" | grep -o ', \(sequence\|optional\))$' | tr -d ', )')
        line=$("$CMP" "$got" "$want" --rtol 1e-3 --atol 1e-7 --exact-dtype --kind "${kind:-tensor}" 2>&1)
        if [ $? -ne 0 ]; then
            printf 'node-folded\t%s\tfailed\t%s: %s\n' "$name" "$(basename "$want")" "$(echo "$line" | tr '\n\t' '  ' | head -c 300)"
            return
        fi
    done
    rm -rf "$work"
    printf 'node-folded\t%s\tpassed\t\n' "$name"
}
export -f one
res=$BUILD/conformance/folded.tsv
tr '\n' '\0' < "$OUT/list.tsv" | xargs -0 -P "$JOBS" -I{} bash -c 'one "$1"' _ {} | sort > "$res"
p=$(awk -F'\t' '$3 == "passed"' "$res" | wc -l)
f=$(awk -F'\t' '$3 == "failed"' "$res" | wc -l)
u=$(awk -F'\t' '$3 == "unsupported"' "$res" | wc -l)
awk -F'\t' '$3 == "failed" { print "FAIL " $1 "/" $2 ": " $4 }' "$res"
echo "node-folded: $p passed, $f failed, $u unsupported"
[ "$f" -eq 0 ]
