#!/bin/sh
# build.sh OUTDIR: builds every kernel test module (kernels/tests/test_*.c) in a SIMD128
# and a scalar variant, builds the wasmtime runner, and runs all modules.
# Each module = one test file + every kernel source (kernels/**/*.c except kernels/tests/).
# Environment: CLANG (default clang-19), WASMTIME_DIR (default ~/.cache/wasmgraph/wasmtime-48.0.8-threads).
set -eu
OUT=${1:?usage: tests/kernels/build.sh OUTDIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CLANG=${CLANG:-clang-19}
WASMTIME_DIR=${WASMTIME_DIR:-$HOME/.cache/wasmgraph/wasmtime-48.0.8-threads}
mkdir -p "$OUT"

KSRCS=$(find "$ROOT/kernels" -name '*.c' -not -path "$ROOT/kernels/tests/*" | sort)
WFLAGS="--target=wasm32 -nostdlib -O2 -std=c11 -Wall -Wextra -Werror -I$ROOT/kernels/include \
 -Wl,--no-entry -Wl,--initial-memory=134217728 -Wl,-z,stack-size=1048576"

MODULES=""
for t in "$ROOT"/kernels/tests/test_*.c; do
    [ -e "$t" ] || continue
    name=$(basename "$t" .c)
    # shellcheck disable=SC2086
    $CLANG $WFLAGS -msimd128 "$t" $KSRCS -o "$OUT/$name-simd.wasm"
    # shellcheck disable=SC2086
    $CLANG $WFLAGS "$t" $KSRCS -o "$OUT/$name-scalar.wasm"
    MODULES="$MODULES $OUT/$name-simd.wasm $OUT/$name-scalar.wasm"
done

RUNNER="$OUT/run_kernel_tests"
if [ ! -x "$RUNNER" ] || [ "$ROOT/tests/kernels/run_kernel_tests.c" -nt "$RUNNER" ]; then
    $CLANG -std=c11 -O1 -Wall -Wextra -Werror -I"$WASMTIME_DIR/include" \
        "$ROOT/tests/kernels/run_kernel_tests.c" \
        "$WASMTIME_DIR/target/release/libwasmtime.a" -lpthread -ldl -lm -o "$RUNNER"
fi
# shellcheck disable=SC2086
exec "$RUNNER" $MODULES
