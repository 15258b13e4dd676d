#!/usr/bin/env bash
# tests/regression/run.sh: replays every input that once crashed a fuzz target (one file
# per bug, named <target>-<what broke>.{onnx,wasm}) through the CLI and checks that the
# CLI refuses it cleanly: exit code 1 or 2, never a signal (>= 128), never 0, never a
# sanitizer's exit code. .onnx files are compiled; .wasm files go through `info` and
# `run`. A model named *.valid.onnx once crashed the compiler but is valid ONNX: it must
# compile (exit 0). A folder wrong_answer-<what>/ (ONNX's backend-test layout, written by
# tests/regression/make_answers.py) is a model we once answered wrongly: it must pass
# tests/conformance/one.sh (ONNX's comparison rule); so must a folder body_values-<what>/
# (tests/regression/make_body_values.py: sequences and optionals crossing If, Loop and
# SequenceMap bodies in forms ONNX's node tests leave out). Run with BUILD=build-san to
# catch leaks and overflows the plain build hides.
# Prints "regression: N passed, M failed"; exits nonzero when any failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
W=$BUILD/bin/wasmgraph
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0

# check NAME CMD...: the command must exit with 1 or 2 (with 0 when NAME has .valid.)
check() {
    local name=$1; shift
    local out rc
    out=$(timeout 120 "$@" 2>&1); rc=$?
    if [[ $name == *.valid.* ]]; then
        if [ "$rc" -eq 0 ]; then
            echo "ok   $name (compiles)"; pass=$((pass + 1))
        else
            echo "FAIL $name: exit $rc, want 0 (a valid model)"; tail -n 15 <<< "$out"; fail=$((fail + 1))
        fi
    elif [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]; then
        echo "ok   $name (exit $rc: $(head -n 1 <<< "$out" | cut -c1-160))"; pass=$((pass + 1))
    else
        echo "FAIL $name: exit $rc, want 1 or 2"; tail -n 15 <<< "$out"; fail=$((fail + 1))
    fi
}

[ -x "$W" ] || { echo "regression: no $W (run make first)"; echo "regression: 0 passed, 1 failed"; exit 1; }
for f in tests/regression/*.onnx; do
    [ -f "$f" ] || continue
    check "compile $(basename "$f")" "$W" compile "$f" -o "$TMP/out.wasm" -q
done
for f in tests/regression/*.wasm; do
    [ -f "$f" ] || continue
    check "info $(basename "$f")" "$W" info "$f"
    check "run $(basename "$f")" "$W" run "$f" --time-limit-ms 2000 --memory-limit-mb 256
done
for d in tests/regression/wrong_answer-*/ tests/regression/body_values-*/; do
    [ -f "$d/model.onnx" ] || continue
    line=$(W=$(realpath "$W") CMP=$(realpath "$BUILD/tests/compare_tensors") OUT=$TMP/answers OPT=-O1 \
        tests/conformance/one.sh "$d")
    if [ "$(cut -f3 <<< "$line")" = passed ]; then
        echo "ok   answer $(basename "$d")"; pass=$((pass + 1))
    else
        echo "FAIL answer $(basename "$d"): $(cut -f3,4 <<< "$line")"; fail=$((fail + 1))
    fi
done
echo "regression: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
