#!/usr/bin/env bash
# tests/cli/test_preprocess.sh WASMGRAPH: `compile --preprocess` records classify's image
# options in the metadata (info --json shows them, every field written), refuses what is
# not one of them (exit 2, naming it), and a module without it has no "preprocess".
# (That classify and the JS helpers then use them is checked in tests/js/test_api.mjs.)
# Prints "cli-preprocess: N passed, M failed".
set -u
WG=${1:-build/bin/wasmgraph}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LENET=$ROOT/models/lenet5-fashion.onnx
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

if "$WG" compile "$LENET" -o "$tmp/a.wasm" --quiet --preprocess "--scale 255 --mean 0.5 --std 0.25,0.5,1 --layout nchw --crop" &&
   "$WG" info "$tmp/a.wasm" --json > "$tmp/a.json"; then
    want='"preprocess":{"size":0,"crop":true,"scale":255,"mean":[0.5,0.5,0.5],"std":[0.25,0.5,1],"bgr":false,"gray":false,"layout":"nchw"}'
    if grep -qF "$want" "$tmp/a.json"; then ok; else bad "metadata lacks $want: $(cat "$tmp/a.json")"; fi
else
    bad "compile --preprocess failed"
fi
"$WG" compile "$LENET" -o "$tmp/b.wasm" --quiet && "$WG" info "$tmp/b.wasm" --json > "$tmp/b.json"
if grep -q '"preprocess"' "$tmp/b.json"; then bad "a module compiled without --preprocess has one"; else ok; fi

expect2() { # WHAT SPEC MESSAGE
    "$WG" compile "$LENET" -o "$tmp/c.wasm" --quiet --preprocess "$2" > /dev/null 2> "$tmp/err"
    local rc=$?
    if [ "$rc" -eq 2 ] && grep -qF -- "$3" "$tmp/err" && grep -q "^usage: wasmgraph compile" "$tmp/err"; then ok; else bad "$1: exit $rc, $(cat "$tmp/err")"; fi
}
expect2 "not an option" "--bgr --top 5" "--preprocess: '--top' is not a preprocessing option"
expect2 "missing value" "--size" "--size needs a value"
expect2 "bad number" "--scale -1" "--scale needs a positive number"
expect2 "zero std" "--std 0" "--std must not be zero"
expect2 "bad layout" "--layout chw" "--layout is nchw or nhwc"
if [ -e "$tmp/c.wasm" ]; then bad "a refused --preprocess wrote a module"; else ok; fi
echo "cli-preprocess: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
