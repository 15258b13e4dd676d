#!/usr/bin/env bash
# tests/cli/test_help.sh WASMGRAPH: every subcommand answers --help and -h with its usage
# on stdout, nothing on stderr and exit 0, however the other arguments look; the
# top-level --help lists every subcommand. Prints "cli-help: N passed, M failed".
set -u
WG=${1:-build/bin/wasmgraph}
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # NAME EXPECTED_WORD ARGS...: exit 0, usage naming the command on stdout, empty stderr
    local name=$1 word=$2; shift 2
    "$WG" "$@" > "$tmp/out" 2> "$tmp/err"
    local rc=$?
    if [ "$rc" -eq 0 ] && grep -q "usage: " "$tmp/out" && grep -q -- "$word" "$tmp/out" && [ ! -s "$tmp/err" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $name: wasmgraph $* gave exit $rc; stdout: $(head -c 200 "$tmp/out"); stderr: $(head -c 200 "$tmp/err")"
    fi
}

for cmd in compile info run classify bench profile; do
    check "$cmd --help" "wasmgraph $cmd" "$cmd" --help
    check "$cmd -h" "wasmgraph $cmd" "$cmd" -h
    check "$cmd model --help" "wasmgraph $cmd" "$cmd" no-such-model.wasm --help
done
check "--help" "classify" --help
"$WG" --help > "$tmp/out"
for cmd in compile info run classify bench profile; do
    if grep -q "^  $cmd " "$tmp/out"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: wasmgraph --help does not list $cmd"; fi
done
# an unknown option is still a usage error (exit 2), not help
"$WG" classify --hlep > /dev/null 2> "$tmp/err"
if [ $? -eq 2 ] && grep -q "unknown option '--hlep'" "$tmp/err"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: classify --hlep"; fi
echo "cli-help: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
