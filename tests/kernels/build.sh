#!/bin/sh
# build.sh OUTDIR: builds every kernel test module (kernels/tests/test_*.c) in a SIMD128
# and a scalar variant, builds the wasmtime runner, and runs all modules.
# Each module = one test file + every kernel source (kernels/**/*.c except kernels/tests/).
# The kernel sources are compiled once per variant (in parallel, one job per core) and
# linked into every test of that variant: compiling them again for each test file made
# this suite take minutes of CI.
# Environment: CLANG (default clang-19), WASMTIME_DIR (default ~/.cache/wasmgraph/wasmtime-48.0.8-threads).
set -eu
OUT=${1:?usage: tests/kernels/build.sh OUTDIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CLANG=${CLANG:-clang-19}
WASMTIME_DIR=${WASMTIME_DIR:-$HOME/.cache/wasmgraph/wasmtime-48.0.8-threads}
JOBS=$(nproc 2>/dev/null || echo 2)
mkdir -p "$OUT"

CFLAGS="--target=wasm32 -nostdlib -O2 -std=c11 -Wall -Wextra -Werror -I$ROOT/kernels/include"
LFLAGS="-Wl,--no-entry -Wl,--initial-memory=134217728 -Wl,-z,stack-size=1048576"

# objects VARIANT FLAGS: every kernel source of kernels/ into $OUT/obj-VARIANT/ (the
# folder emptied first, so a removed source leaves no object behind).
objects() {
    rm -rf "$OUT/obj-$1"
    mkdir -p "$OUT/obj-$1"
    find "$ROOT/kernels" -name '*.c' -not -path "$ROOT/kernels/tests/*" | sort |
        CFLAGS="$CFLAGS $2" OBJ="$OUT/obj-$1" KROOT="$ROOT/kernels/" xargs -P "$JOBS" -I{} sh -c \
            'src="$1"; rel=${src#"$KROOT"}; exec '"$CLANG"' $CFLAGS -c "$src" -o "$OBJ/$(echo "$rel" | tr / _ | sed "s/\.c\$/.o/")"' \
            sh {}
}
objects simd -msimd128
objects scalar ""

# link VARIANT FLAGS TEST: one test file with the variant's objects.
link() {
    # shellcheck disable=SC2086
    $CLANG $CFLAGS $2 $LFLAGS "$3" "$OUT/obj-$1"/*.o -o "$OUT/$(basename "$3" .c)-$1.wasm"
}
MODULES=""
for t in "$ROOT"/kernels/tests/test_*.c; do
    [ -e "$t" ] || continue
    link simd -msimd128 "$t" &
    simd=$!
    link scalar "" "$t"
    wait "$simd"
    name=$(basename "$t" .c)
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
