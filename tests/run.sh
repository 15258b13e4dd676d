#!/usr/bin/env bash
# tests/run.sh [SUITE...]: runs the test suites and sums their results.
#   unit     C unit tests (build/tests/test_*): reader, tensor files, folding, planner, host;
#            and tests/layers.sh (no layer of src/ includes one above it)
#   kernels  every kernel against its scalar reference, as wasm on wasmtime (SIMD and scalar)
#   models   whole models compiled and compared with ONNX's or onnxruntime's outputs
#   errors   bad input of every kind: message and exit code
#   malformed  121 malformed ONNX and wasm files (tests/malformed/cases.tsv): message and exit code
#   regression  every input a fuzzer crashed on, replayed: a clean error, never a signal
#   conformance  ONNX backend tests (libonnx-testdata); "K unsupported" is not counted as failed
#   js       the JS package (js/) under node --test: loader, checked API, worker, images,
#            dispose memory, npm pack + install + tsc
#   browser  the package and the demo page in headless Chromium (tests/browser)
# unit and js both run the module ABI fixtures (tests/abi/) and must agree on each.
# Every suite prints "SUITE: N passed, M failed"; after all have run, each one's summary,
# and the last line is the total.
set -uo pipefail
cd "$(dirname "$0")/.."
export BUILD=${BUILD:-build}
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(unit kernels models errors malformed regression js browser conformance)
logdir=$BUILD/test-logs
mkdir -p "$logdir"
total_pass=0 total_fail=0

count() { # sums "X: N passed, M failed" lines of a log
    local p f
    p=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$1" | awk '{s+=$1} END {print s+0}')
    f=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$1" | awk '{s+=$3} END {print s+0}')
    echo "$p $f"
}

# run_suite NAME COMMAND...: runs one suite, its output in $logdir/NAME.log and its exit
# status in $logdir/NAME.rc; report_suite NAME then prints its summary and adds its counts.
run_suite() {
    local name=$1; shift
    local log=$logdir/$name.log start=$SECONDS
    echo "== $name"
    "$@" > "$log" 2>&1
    echo $? > "$logdir/$name.rc"
    echo "($name took $((SECONDS - start)) s)"
}

report_suite() {
    local name=$1 log=$logdir/$1.log rc p f
    rc=$(cat "$logdir/$name.rc" 2>/dev/null || echo 1)
    echo "-- $name"
    grep -E '(passed, [0-9]+ failed|^FAIL|MISMATCH|error)' "$log" | tail -40
    read -r p f < <(count "$log")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "$name: exited with status $rc (log: $log)"; f=1
        tail -20 "$log"
    fi
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
}

# The module ABI fixtures both hosts run (tests/abi/fixtures.tsv), written once per run.
abi_fixtures() {
    [ -n "${WG_ABI_FIXTURES:-}" ] && return 0
    export WG_ABI_FIXTURES=$BUILD/abi-fixtures
    rm -rf "$WG_ABI_FIXTURES"
    python3 tests/abi/make_fixtures.py "$WG_ABI_FIXTURES" "$BUILD/bin/wasmgraph"
}

unit_tests() {
    local rc=0
    # Host tests load small hand-made modules (good and bad ones) built from tests/host/fixtures.
    export WG_HOST_FIXTURES=$BUILD/host-fixtures
    sh tests/host/build_fixtures.sh "$WG_HOST_FIXTURES" || rc=1
    abi_fixtures || rc=1
    for t in "$BUILD"/tests/test_*; do
        [ -x "$t" ] || continue
        "$t" || rc=1
    done
    tests/host/test_cli.sh "$BUILD/bin/wasmgraph" "$WG_HOST_FIXTURES" || rc=1
    tests/cli/test_help.sh "$BUILD/bin/wasmgraph" || rc=1
    tests/cli/test_preprocess.sh "$BUILD/bin/wasmgraph" || rc=1
    tests/layers.sh || rc=1
    return $rc
}

node_tests() { # SUITE FILES...: node --test prints "# pass N" / "# fail M": turn them into our line
    local name=$1 out rc; shift
    out=$(node --test "$@" 2>&1); rc=$?
    echo "$out"
    echo "$name: $(echo "$out" | awk '/^# pass /{print $3}') passed, $(echo "$out" | awk '/^# fail /{print $3}') failed"
    return $rc
}
js_tests() { abi_fixtures || return 1; node_tests js tests/js/test_*.mjs; }
browser_tests() { node_tests browser tests/browser/test_*.mjs; }

run_named() {
    case $1 in
    unit) run_suite unit unit_tests ;;
    kernels) run_suite kernels tests/kernels/build.sh "$BUILD/kernel-tests" ;;
    models) run_suite models tests/models.sh ;;
    errors) run_suite errors tests/errors.sh ;;
    malformed) run_suite malformed tests/malformed/run.sh ;;
    regression) run_suite regression tests/regression/run.sh ;;
    conformance) run_suite conformance tests/conformance/run.sh ;;
    js) run_suite js js_tests ;;
    browser) run_suite browser browser_tests ;;
    *) echo "unknown suite $1"; exit 2 ;;
    esac
}

# The models suite, the longest, runs beside the others when the machine has two cores or
# more (WG_TEST_LANES=1: one after the other): its steps mostly compile on one core.
lanes=${WG_TEST_LANES:-$(nproc 2>/dev/null || echo 1)}
models_pid=
if [ "$lanes" -ge 2 ] && [ ${#suites[@]} -gt 1 ] && [[ " ${suites[*]} " == *" models "* ]]; then
    run_named models &
    models_pid=$!
fi
for s in "${suites[@]}"; do
    [ "$s" = models ] && [ -n "$models_pid" ] && continue
    run_named "$s"
done
[ -n "$models_pid" ] && wait "$models_pid"
for s in "${suites[@]}"; do
    report_suite "$s"
done
echo
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
