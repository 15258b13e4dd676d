#!/bin/sh
# test_cli.sh WASMGRAPH FIXTURES: the info/run/bench/profile/classify commands on the host fixture
# modules (tests/host/build_fixtures.sh): exit codes (0 ok, 1 error, 2 usage) and the
# messages users see. Prints "cli: N passed, M failed"; exits nonzero on any failure.
set -u
WG=${1:?usage: test_cli.sh WASMGRAPH FIXTURES}
FX=${2:?usage: test_cli.sh WASMGRAPH FIXTURES}
DATA=${WG_SHARED_DATA:-/work/shared/data}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0

# expect RC PATTERN CMD...: runs CMD, wants exit code RC and PATTERN (grep -E) in its output.
expect() {
    want_rc=$1 pat=$2
    shift 2
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" = "$want_rc" ] && printf '%s\n' "$out" | grep -Eq -- "$pat"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $* -> rc $rc (want $want_rc), output lacks /$pat/:"
        printf '%s\n' "$out" | sed 's/^/    /'
    fi
}

python3 - "$TMP" <<'PY'
import struct, sys
d = sys.argv[1]
def npy(path, descr, shape, data, fortran=False):
    h = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        descr, fortran, "".join("%d, " % s for s in shape))
    h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    open(path, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + data)
npy(d + "/x.npy", "<f4", (4,), struct.pack("<4f", 1, 2, 3, 4))
npy(d + "/x64.npy", "<f8", (4,), struct.pack("<4d", 1, 2, 3, 4))
npy(d + "/a.npy", "<f4", (2, 3), struct.pack("<6f", *range(6)))
npy(d + "/fortran.npy", "<f4", (2, 3), struct.pack("<6f", *range(6)), True)
open(d + "/x.bin", "wb").write(struct.pack("<4f", 0, 1, 2, 3))
open(d + "/x3.bin", "wb").write(struct.pack("<3f", 0, 1, 2))
PY

# info
expect 0 'x +float32 +\[4\]' "$WG" info "$FX/add_one.wasm"
expect 0 '"abi":1' "$WG" info "$FX/add_one.wasm" --json
expect 1 "no \`wasmgraph\` custom section" "$WG" info "$FX/no_section.wasm"
expect 1 'module ABI version 3, this host supports 1..2' "$WG" info "$FX/abi3_meta.wasm"
expect 1 'imports env.host_log' "$WG" info "$FX/import.wasm"
expect 1 'cannot open' "$WG" info "$FX/missing.wasm"
expect 2 'usage: wasmgraph info' "$WG" info

# run
expect 0 "output 0 'y' float32 \[4\]: 2 3 4 5" "$WG" run "$FX/add_one.wasm" --input "$TMP/x.npy"
expect 0 "2 3 4 5" "$WG" run "$FX/add_one.wasm" --input "x=$TMP/x.npy"
expect 0 "1 2 3 4" "$WG" run "$FX/add_one.wasm" --input "$TMP/x.bin"
expect 0 "wrote .*/output_0.pb" "$WG" run "$FX/add_one.wasm" --input "$TMP/x.npy" --output-dir "$TMP/out"
expect 0 "3 4 5 6" "$WG" run "$FX/add_one.wasm" --input "$TMP/out/output_0.pb"
# --runs N: N runs in one session on the same inputs, the last one reported.
expect 0 "run 3 of 3: " "$WG" run "$FX/add_one.wasm" --input "$TMP/x.npy" --runs 3
expect 2 "--runs needs an integer from 1" "$WG" run "$FX/add_one.wasm" --input "$TMP/x.npy" --runs 0
expect 2 "--runs needs an integer from 1" "$WG" run "$FX/add_one.wasm" --input "$TMP/x.npy" --runs 2x
expect 2 "--runs needs an integer from 1" "$WG" run "$FX/add_one.wasm" --input "$TMP/x.npy" --runs
expect 0 "0 2 4 6 8 10" "$WG" run "$FX/add2.wasm" --input "b=$TMP/a.npy" --input "$TMP/a.npy"
expect 1 "input 'x': .*x64.npy holds float64 \[4\], the model wants float32 \[4\]" \
    "$WG" run "$FX/add_one.wasm" --input "$TMP/x64.npy"
expect 1 "input 'x': .*a.npy holds float32 \[2,3\], the model wants float32 \[4\]" \
    "$WG" run "$FX/add_one.wasm" --input "$TMP/a.npy"
expect 1 "has 12 bytes, the model wants 16" "$WG" run "$FX/add_one.wasm" --input "$TMP/x3.bin"
expect 1 "Fortran order" "$WG" run "$FX/add2.wasm" --input "a=$TMP/fortran.npy" --input "b=$TMP/a.npy"
expect 1 "input 'a' \(float32 \[2,3\]\) is missing" "$WG" run "$FX/add2.wasm" --input "b=$TMP/a.npy"
expect 1 "run exceeded the time limit of 100 ms" "$WG" run "$FX/loop.wasm" --input "$TMP/x.npy" --time-limit-ms 100
expect 1 "more than the limit" "$WG" run "$FX/big_memory.wasm" --input "$TMP/x.npy" --memory-limit-mb 16
expect 1 "wg_run trapped: out of bounds memory access" "$WG" run "$FX/oob.wasm" --input "$TMP/x.npy"
expect 1 "wg_run trapped: unreachable" "$WG" run "$FX/unreachable.wasm" --input "$TMP/x.npy"
expect 1 "wg_run trapped: stack overflow" "$WG" run "$FX/recurse.wasm" --input "$TMP/x.npy"
expect 1 "wg_run returned status 3" "$WG" run "$FX/status3.wasm" --input "$TMP/x.npy"
expect 1 "past the end of memory" "$WG" run "$FX/huge_input.wasm" --input "$TMP/x.npy"
expect 2 "unknown option '--bogus'" "$WG" run "$FX/add_one.wasm" --bogus

# bench
expect 0 "median +[0-9.]+ ms" "$WG" bench "$FX/add_one.wasm" --iters 5 --warmup 1
expect 0 '^\{"model":.*"median_ms":[0-9.]+.*\}$' "$WG" bench "$FX/add2.wasm" --json --iters 3
expect 2 "--iters needs" "$WG" bench "$FX/add_one.wasm" --iters 0

# profile
expect 0 "^ +[12] +1 +Add +half2 " "$WG" profile "$FX/profile.wasm" --iters 3 --warmup 1
expect 0 "^ +1 +Add +2 " "$WG" profile "$FX/profile.wasm" --iters 3 --by-op
expect 0 "^total: [0-9.]+ ms \(sum of step medians\), 2 steps$" "$WG" profile "$FX/profile.wasm" --iters 1
expect 1 "add_one.wasm was not compiled with --profile" "$WG" profile "$FX/add_one.wasm"
expect 2 "usage: wasmgraph profile" "$WG" profile

# classify
if [ -f "$DATA/images/cat.png" ] && [ -f "$DATA/labels/synset.csv" ]; then
    expect 0 "^input image belongs to the class 'tabby, tabby cat'$" \
        "$WG" classify "$FX/classifier.wasm" -i "$DATA/images/cat.png" -l "$DATA/labels/synset.csv"
    expect 0 "^input image belongs to the class 'tabby, tabby cat'$" \
        "$WG" classify "$FX/classifier.wasm" -i "$DATA/images/hummingbird.jpg" \
        -l "$DATA/labels/synset.txt" --crop --bgr --mean 123.68,116.78,103.94 --std 58.4,57.1,57.4 --top 3
    expect 0 "^ +1 +0\.[0-9]+ +281 +tabby" \
        "$WG" classify "$FX/classifier_gray.wasm" -i "$DATA/images/cat.png" -l "$DATA/labels/synset.csv"
    head -n 998 "$DATA/labels/synset.csv" > "$TMP/short.csv"
    expect 1 "labels file .*short.csv has 998 labels, model has 1000 classes" \
        "$WG" classify "$FX/classifier.wasm" -i "$DATA/images/cat.png" -l "$TMP/short.csv"
    expect 1 "cannot decode the image" \
        "$WG" classify "$FX/classifier.wasm" -i "$TMP/x.npy" -l "$DATA/labels/synset.csv"
    expect 1 "\-\-gray: input 'data' has shape \[1,3,224,224\]" \
        "$WG" classify "$FX/classifier.wasm" -i "$DATA/images/cat.png" -l "$DATA/labels/synset.csv" --gray
fi
expect 2 "no labels file given" "$WG" classify "$FX/classifier.wasm" -i x.png

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
