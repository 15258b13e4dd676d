#!/usr/bin/env bash
# wasm2c_check.sh MODULE.wasm TEST_SET_DIR WORKDIR: translates a --no-simd SqueezeNet module
# to C with Debian's wasm2c, builds it with the C compiler and compares its output with
# the test set's expected output (rtol 1e-4, atol 1e-5).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
module=$1 set=$2 work=$3
mkdir -p "$work"
wasm2c "$module" -n model -o "$work/model.c"
# The project's objects, skipping any left behind by a source file since removed.
objs=$(find "$BUILD/obj/src" -name '*.o' ! -path '*/cli/main.o' | while read -r o; do
    src=${o#"$BUILD"/obj/}
    if [ -f "${src%.o}.c" ]; then echo "$o"; fi
done)
clang-19 -O1 -w -I"$work" -I/usr/include -c "$work/model.c" -o "$work/model.o"
clang-19 -O2 -w -c /usr/share/wabt/wasm2c/wasm-rt-impl.c -I/usr/include -o "$work/wasm-rt-impl.o"
# WG_SANFLAGS: the sanitizer flags the project objects were built with (make SAN=1).
# shellcheck disable=SC2086
clang-19 -std=c11 -O2 -D_GNU_SOURCE ${WG_SANFLAGS:-} -Iinclude -Isrc -I"$work" -c tests/models/wasm2c_driver.c -o "$work/driver.o"
# shellcheck disable=SC2086
clang-19 ${WG_SANFLAGS:-} "$work/driver.o" "$work/model.o" "$work/wasm-rt-impl.o" $objs \
    "${WASMTIME_PREFIX:-$HOME/.cache/wasmgraph/wasmtime-48.0.8-threads}/target/release/libwasmtime.a" -lpthread -ldl -lm -o "$work/driver"
"$work/driver" "$set/input_0.pb" "$work"
"$BUILD/tests/compare_tensors" "$work/output_0.pb" "$set/output_0.pb" --rtol 1e-4 --atol 1e-5
