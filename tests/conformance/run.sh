#!/usr/bin/env bash
# tests/conformance/run.sh [SUITE...]: the ONNX backend conformance tests from libonnx-testdata
# (/usr/share/libonnx-testdata/data/{node,pytorch-converted,pytorch-operator,simple}: ONNX 1.12)
# and suite node-X.Y: the node tests of the onnx package pinned in tools/requirements.txt
# (X.Y its version), written by tools/onnx_node_suite.py into $BUILD/onnx-suites/node-X.Y
# (rewritten only when the onnx version or the tool changes).
# Every test compiles model.onnx, runs every test_data_set_* and compares every output with
# ONNX's rule (rtol 1e-3, atol 1e-7 for floats; integers and bools exact, dtypes must match).
# A test ends as passed, failed (wrong answer, crash, trap, run error, compile error) or
# unsupported (the compiler reports status 'unsupported'). Prints per suite
# "SUITE: N passed, M failed, K unsupported", writes $BUILD/conformance/results.json, and
# exits nonzero when anything failed. Env: JOBS (default: CPU count), DATA, OPT (default -O1),
# WG_PYTHON (the venv's python, for node-X.Y).
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
DATA=${DATA:-/usr/share/libonnx-testdata/data}
export W=$PWD/$BUILD/bin/wasmgraph CMP=$PWD/$BUILD/tests/compare_tensors OUT=$PWD/$BUILD/conformance/work
export OPT=${OPT:--O1}
JOBS=${JOBS:-$(nproc)}
PY=${WG_PYTHON:-$HOME/.cache/wasmgraph/venv/bin/python}
onnx_suite=
if [ -x "$PY" ]; then
    v=$("$PY" -c 'import onnx; print(".".join(onnx.__version__.split(".")[:2]))' 2>/dev/null) &&
        onnx_suite=node-$v
fi
suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
    [ -n "$onnx_suite" ] || { echo "conformance: no onnx in $PY (run scripts/setup.sh)"; exit 2; }
    suites=(node pytorch-converted pytorch-operator simple "$onnx_suite")
fi
# The folder of suite $1.
suite_dir() {
    if [ -n "$onnx_suite" ] && [ "$1" = "$onnx_suite" ]; then
        echo "$BUILD/onnx-suites/$1"
    else
        echo "$DATA/$1"
    fi
}
for t in "$W" "$CMP"; do
    [ -x "$t" ] || { echo "conformance: $t is missing (run make all)"; exit 2; }
done
[ -d "$DATA" ] || { echo "conformance: $DATA is missing (apt install libonnx-testdata)"; exit 2; }
res=$BUILD/conformance/results.tsv
mkdir -p "$OUT" "$BUILD/conformance/bin"
# Run a snapshot of the tools, so that a rebuild during the run cannot disturb it.
cp "$W" "$BUILD/conformance/bin/wasmgraph" && cp "$CMP" "$BUILD/conformance/bin/compare_tensors" || exit 2
export W=$PWD/$BUILD/conformance/bin/wasmgraph CMP=$PWD/$BUILD/conformance/bin/compare_tensors
rm -rf "$BUILD/conformance/kernels" && mkdir -p "$BUILD/conformance/kernels" &&
    cp -r kernels/include "$BUILD/kernels/lib" "$BUILD/conformance/kernels/" || exit 2
export WASMGRAPH_KERNELS=$PWD/$BUILD/conformance/kernels
start=$(date +%s)
for s in "${suites[@]}"; do
    if [ "$s" = "$onnx_suite" ]; then
        "$PY" tools/onnx_node_suite.py "$(suite_dir "$s")" >&2 || exit 2
    fi
done
for s in "${suites[@]}"; do
    [ -d "$(suite_dir "$s")" ] || { echo "conformance: no suite $(suite_dir "$s")"; exit 2; }
    ls -d "$(suite_dir "$s")"/*/
done | xargs -P "$JOBS" -n 1 tests/conformance/one.sh > "$res.tmp"
sort "$res.tmp" > "$res"; rm -f "$res.tmp"
fail_total=0
for s in "${suites[@]}"; do
    p=$(awk -F'\t' -v s="$s" '$1 == s && $3 == "passed"' "$res" | wc -l)
    f=$(awk -F'\t' -v s="$s" '$1 == s && $3 == "failed"' "$res" | wc -l)
    u=$(awk -F'\t' -v s="$s" '$1 == s && $3 == "unsupported"' "$res" | wc -l)
    echo "$s: $p passed, $f failed, $u unsupported"
    fail_total=$((fail_total + f))
done
awk -F'\t' '$3 == "failed" { print "FAIL " $1 "/" $2 ": " $4 }' "$res"
# results.json: one object per test
awk -F'\t' 'function esc(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/[\001-\037]/, " ", s); return s }
    BEGIN { print "["; first = 1 }
    { printf "%s  {\"suite\": \"%s\", \"test\": \"%s\", \"result\": \"%s\", \"reason\": \"%s\"}", first ? "" : ",\n", esc($1), esc($2), esc($3), esc($4); first = 0 }
    END { print "\n]" }' "$res" > "$BUILD/conformance/results.json"
echo "results: $BUILD/conformance/results.json ($(($(date +%s) - start)) s, $JOBS jobs, $OPT)"
[ "$fail_total" -eq 0 ]
