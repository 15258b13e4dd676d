#!/bin/sh
# seeds.sh OUTDIR: gathers seed corpora for the fuzz targets into OUTDIR/fuzz_onnx/ and
# OUTDIR/fuzz_module/. Nothing here is committed; the corpora are build products.
#   fuzz_onnx:   model.onnx of ONNX's node tests (the package libonnx-testdata), the small
#                models in /work/shared, the com.microsoft error models and quantized-weight
#                cases (tests/errors/make_contrib_models.py, tests/models/qweight_ops.py), the
#                malformed corpus when it has been generated
#                (tests/malformed/run.sh puts it in $BUILD/malformed; its .wasm files
#                seed fuzz_module too).
#   fuzz_module: modules compiled by build/bin/wasmgraph from a few tiny node tests (when
#                the compiler works; also with --threads), the host test fixtures (tests/host/build_fixtures.sh)
#                a few hand-made wasm headers, and metadata JSON (see fuzz_module.c).
# Files over MAX_BYTES (default 256 KiB, the fuzzers' -max_len) are skipped.
set -u
OUT=${1:?usage: seeds.sh OUTDIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
MAX_BYTES=${MAX_BYTES:-262144}
TESTDATA=${TESTDATA:-/usr/share/libonnx-testdata/data}
SHARED=${SHARED:-/work/shared}
ONNX_OUT=$OUT/fuzz_onnx
MOD_OUT=$OUT/fuzz_module
mkdir -p "$ONNX_OUT" "$MOD_OUT"

small() { [ -f "$1" ] && [ "$(wc -c < "$1")" -le "$MAX_BYTES" ]; }

# copy SRC NAME DIR: copies SRC to DIR/NAME when it is small enough
copy() { if small "$1"; then cp "$1" "$2/$3"; fi; }

for d in "$TESTDATA"/node/*/ "$TESTDATA"/simple/*/ "$TESTDATA"/pytorch-operator/*/; do
    [ -f "$d/model.onnx" ] && copy "$d/model.onnx" "$ONNX_OUT" "$(basename "$d").onnx"
done
find "$SHARED/models" "$SHARED/data" -name '*.onnx' 2>/dev/null | while read -r f; do
    copy "$f" "$ONNX_OUT" "shared-$(basename "$f")"
done
# onnxruntime's operators: the refused models of the error tests (one per mistake:
# tests/errors/make_contrib_models.py) and the quantized-weight cases that run
# (tests/models/qweight_ops.py), so mutants reach the com.microsoft ops' checks
PY=${WG_PYTHON:-$HOME/.cache/wasmgraph/venv/bin/python}
MS=$(mktemp -d)
if [ -x "$PY" ] && "$PY" "$ROOT/tests/errors/make_contrib_models.py" "$MS/errors" >/dev/null 2>&1; then
    for f in "$MS"/errors/*.onnx; do copy "$f" "$ONNX_OUT" "contrib-error-$(basename "$f")"; done
fi
if [ -x "$PY" ] && "$PY" "$ROOT/tests/models/qweight_ops.py" "$MS/qweight" >/dev/null 2>&1; then
    for d in "$MS"/qweight/*/; do copy "$d/model.onnx" "$ONNX_OUT" "qweight-$(basename "$d").onnx"; done
fi
rm -rf "$MS"
case $BUILD in /*) MAL=$BUILD/malformed ;; *) MAL=$ROOT/$BUILD/malformed ;; esac
if [ -d "$MAL" ]; then
    for f in "$MAL"/*.onnx; do
        [ -f "$f" ] && copy "$f" "$ONNX_OUT" "malformed-$(basename "$f")"
    done
    for f in "$MAL"/*.wasm; do
        [ -f "$f" ] && copy "$f" "$MOD_OUT" "malformed-$(basename "$f")"
    done
fi

# Modules: compile a few tiny node tests when the compiler is there and works.
case $BUILD in /*) WG=$BUILD/bin/wasmgraph ;; *) WG=$ROOT/$BUILD/bin/wasmgraph ;; esac
if [ -x "$WG" ]; then
    for t in test_add test_relu test_matmul_2d test_conv_with_strides_padding test_softmax_axis_1 \
             test_gemm_default_single_elem_vector_bias test_maxpool_2d_default test_concat_2d_axis_0 \
             test_reshape_reduced_dims test_transpose_default test_sigmoid test_flatten_axis1; do
        m=$TESTDATA/node/$t/model.onnx
        [ -f "$m" ] || continue
        "$WG" compile "$m" -o "$MOD_OUT/$t.wasm" >/dev/null 2>&1 || rm -f "$MOD_OUT/$t.wasm"
        # and as threaded modules (docs/abi.md "Threads"), which fuzz_module runs on 2 threads
        "$WG" compile "$m" -o "$MOD_OUT/$t-threads.wasm" --threads --max-threads 2 >/dev/null 2>&1 ||
            rm -f "$MOD_OUT/$t-threads.wasm"
    done
    # sizes decided by run-time values bounded by --dim (Pad's pads, Tile's repeats, Expand's
    # shape, Resize's sizes): the fixed input pattern feeds them values in and out of range
    for spec in test_constant_pad:pads=0..4 test_tile:y=0..3 test_expand_dim_changed:new_shape=1..6 \
                test_resize_upsample_sizes_cubic:sizes=1..10 test_resize_downsample_sizes_linear_pytorch_half_pixel:sizes=1..4; do
        t=${spec%%:*}
        m=$TESTDATA/node/$t/model.onnx
        [ -f "$m" ] || continue
        "$WG" compile "$m" -o "$MOD_OUT/$t-bounded.wasm" --dim "${spec#*:}" >/dev/null 2>&1 ||
            rm -f "$MOD_OUT/$t-bounded.wasm"
    done
    # symbolic batch and spatial dims (the random-dims mode sets them), on the error tests'
    # models (tests/errors/make_bad_models.py, with the onnx venv): an unpadded 3x3 conv over
    # a symbolic batch and height, once with a height of even sizes only
    PY=${WG_PYTHON:-$HOME/.cache/wasmgraph/venv/bin/python}
    SYM=$(mktemp -d)
    if [ -x "$PY" ] && "$PY" "$ROOT/tests/errors/make_bad_models.py" "$SYM" >/dev/null 2>&1; then
        "$WG" compile "$SYM/conv_sym_h.onnx" -o "$MOD_OUT/conv-sym-h.wasm" --dim n=1..2 --dim h=3..12 \
            >/dev/null 2>&1 || rm -f "$MOD_OUT/conv-sym-h.wasm"
        "$WG" compile "$SYM/conv_sym_h.onnx" -o "$MOD_OUT/conv-sym-h-even.wasm" --dim n=1..2 --dim h=4..12:2 \
            >/dev/null 2>&1 || rm -f "$MOD_OUT/conv-sym-h-even.wasm"
    fi
    rm -rf "$SYM"
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if sh "$ROOT/tests/host/build_fixtures.sh" "$TMP/fixtures" >/dev/null 2>&1; then
    for f in "$TMP"/fixtures/*.wasm; do copy "$f" "$MOD_OUT" "fixture-$(basename "$f")"; done
fi
# Metadata seeds (fuzz_module.c appends a '{'-input to a small valid module as its
# `wasmgraph` section): what the compiled modules carry, and one that fits that module.
if [ -x "$WG" ]; then
    for f in "$MOD_OUT"/*.wasm; do
        "$WG" info --json "$f" > "$MOD_OUT/meta-$(basename "$f" .wasm).json" 2>/dev/null ||
            rm -f "$MOD_OUT/meta-$(basename "$f" .wasm).json"
    done
fi
printf '%s' '{"abi":1,"name":"m","producer":"p","opset":13,"inputs":[{"name":"x","dtype":"float32","shape":[1,4],"bytes":16},{"name":"i","dtype":"int64","shape":[2],"bytes":16}],"outputs":[{"name":"y","dtype":"float16","shape":[1,4],"bytes":8}],"options":{"simd":false,"relaxed_simd":false,"opt_level":2},"arena_bytes":0,"weight_bytes":0,"memory_bytes":65536,"compiler":"wasmgraph 0.1.0"}' > "$MOD_OUT/meta-base.json"
# ABI 2 (symbolic dims): fuzz_module puts it on its BASE2 module and runs the random-dims mode
printf '%s' '{"abi":2,"name":"m","symbols":[{"name":"n","min":1,"max":4},{"name":"s","min":2,"max":16}],"inputs":[{"name":"x","dtype":"float32","shape":[{"sym":"n"},4],"bytes":64},{"name":"i","dtype":"int32","shape":[{"sym":"n"},{"sym":"s"}],"bytes":256}],"outputs":[{"name":"y","dtype":"float32","shape":[{"sym":"n"},4],"bytes":64}],"compiler":"wasmgraph 0.1.0"}' > "$MOD_OUT/meta-v2.json"
# Hand-made: an empty module, a header with a bad version, a lone custom section.
printf '\000asm\001\000\000\000' > "$MOD_OUT/empty.wasm"
printf '\000asm\002\000\000\000' > "$MOD_OUT/bad_version.wasm"
printf '\000asm\001\000\000\000\000\015\011wasmgraph{}' > "$MOD_OUT/custom_only.wasm"

echo "seeds: $(ls "$ONNX_OUT" | wc -l) onnx files in $ONNX_OUT, $(ls "$MOD_OUT" | wc -l) modules in $MOD_OUT"
