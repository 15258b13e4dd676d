#!/usr/bin/env bash
# sweep.sh [FUZZ_DIR]: the deterministic half of fuzzing. Writes the node-test mutants of
# fuzz/mutants.py (one edge value, one dropped input, one changed dim each; about 80,000
# models, 450 MB) into FUZZ_DIR/mutants once, then runs every one through
# FUZZ_DIR/fuzz_onnx (ASan+UBSan; reader, passes, C generation). A crashing model is
# copied to FUZZ_DIR/crashes-sweep/ and the sweep goes on after it.
# Prints "sweep: N passed, M failed"; exits nonzero when anything crashed.
# Needs Python with the onnx package: PYTHON (default: the venv of scripts/setup.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
FUZZ_DIR=${1:-build-fuzz}
PYTHON=${PYTHON:-$HOME/.cache/wasmgraph/venv/bin/python}
BIN=$FUZZ_DIR/fuzz_onnx
M=$FUZZ_DIR/mutants
X=$FUZZ_DIR/crashes-sweep
[ -x "$BIN" ] || { echo "sweep: no $BIN (make fuzz-build)"; echo "sweep: 0 passed, 1 failed"; exit 1; }
if [ ! -d "$M" ]; then
    "$PYTHON" -W ignore fuzz/mutants.py "$M.tmp" && mv "$M.tmp" "$M" ||
        { echo "sweep: cannot write the mutants"; echo "sweep: 0 passed, 1 failed"; exit 1; }
fi
mkdir -p "$X"
mapfile -t files < <(find "$M" -name '*.onnx' | sort)
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
pass=0 fail=0 i=0 n=${#files[@]}
while [ "$i" -lt "$n" ]; do
    batch=("${files[@]:i:400}")
    if "$BIN" -timeout=60 -rss_limit_mb=4096 "${batch[@]}" > "$LOG" 2>&1; then
        pass=$((pass + ${#batch[@]})); i=$((i + ${#batch[@]})); continue
    fi
    # libFuzzer prints "Running: FILE" before each file: the last one crashed.
    bad=$(grep -o '^Running: .*' "$LOG" | tail -n 1 | cut -c10-)
    if [ -z "$bad" ]; then
        echo "FAIL batch at ${files[i]}: $(grep -m1 -E 'ERROR|runtime error' "$LOG")"
        fail=$((fail + 1)); i=$((i + ${#batch[@]})); continue
    fi
    done_before=$(grep -c '^Running: ' "$LOG")
    pass=$((pass + done_before - 1)); fail=$((fail + 1)); i=$((i + done_before))
    cp "$bad" "$X/"
    echo "FAIL $(basename "$bad"): $(grep -m1 -E 'ERROR: |runtime error|^fuzz_onnx: (status|WG_OK|code)' "$LOG" | cut -c1-200)"
done
echo "sweep: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
