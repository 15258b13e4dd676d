#!/bin/sh
# build_fixtures.sh OUTDIR: builds the host test modules (tests/host/fixtures/fixture.c,
# one variant each) into OUTDIR/*.wasm, with their `wasmgraph` metadata sections.
# They are build products: the Makefile calls this script; nothing is committed.
set -eu
OUT=${1:?usage: build_fixtures.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
CLANG=${CLANG:-clang-19}
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# meta NAME ABI INPUTS OUTPUTS [EXTRA]: writes metadata JSON to $TMP/NAME.json (EXTRA: more
# members, each with a leading comma)
meta() {
    cat > "$TMP/$1.json" <<JSON
{"abi":$2,"name":"$1","producer":"tests/host","opset":13,"inputs":[$3],"outputs":[$4],"options":{"simd":false,"relaxed_simd":false,"opt_level":2},"arena_bytes":0,"weight_bytes":0,"memory_bytes":131072${5:-},"compiler":"wasmgraph 0.1.0"}
JSON
}
f32() { echo "{\"name\":\"$1\",\"dtype\":\"float32\",\"shape\":[$2],\"bytes\":$3}"; }

# build NAME VARIANT [extra clang flags...]: compiles and appends $TMP/NAME.json (if any)
build() {
    name=$1 variant=$2
    shift 2
    # -fno-builtin: no calls to a memset we do not have. Only IMPORT may leave a
    # function undefined (it becomes an import).
    undef=
    [ "$variant" = IMPORT ] && undef=-Wl,--allow-undefined
    "$CLANG" --target=wasm32 -nostdlib -fno-builtin -O2 -Wl,--no-entry -Wl,--export-dynamic \
        $undef -D"VARIANT_$variant" "$@" \
        "$HERE/fixtures/fixture.c" -o "$TMP/$name.wasm"
    if [ -f "$TMP/$name.json" ]; then
        python3 "$HERE/add_section.py" "$TMP/$name.wasm" "$TMP/$name.json" "$OUT/$name.wasm"
    else
        cp "$TMP/$name.wasm" "$OUT/$name.wasm"
    fi
}

X4=$(f32 x 4 16)
Y4=$(f32 y 4 16)
for v in add_one loop unreachable oob recurse status3 abi2 import no_run bad_type big_memory; do
    meta $v 1 "$X4" "$Y4"
done
meta abi3_meta 3 "$X4" "$Y4"
STEP0='{"op":"Add","name":"half1","output":"t"}' STEP1='{"op":"Add","name":"half2","output":"y"}'
meta profile 1 "$X4" "$Y4" ",\"profile\":[$STEP0,$STEP1]"
meta profile_no_exports 1 "$X4" "$Y4" ",\"profile\":[$STEP0,$STEP1]"
meta profile_count 1 "$X4" "$Y4" ",\"profile\":[$STEP0,$STEP1,$STEP1]"
meta huge_input 1 "$(f32 x 1000000 4000000)" "$Y4"
meta add2 1 "$(f32 a 2,3 24),$(f32 b 2,3 24)" "$(f32 sum 2,3 24)"
meta classifier 1 "$(f32 data 1,3,224,224 602112)" "$(f32 prob 1,1000 4000)"
meta classifier_gray 1 "$(f32 Input3 1,1,28,28 3136)" "$(f32 Plus214_Output_0 1,1000 4000)"
printf '{"abi":1,"inputs":[' > "$TMP/bad_json.json"
printf '{"abi":1,"inputs":[{"name":"x","dtype":"float32","shape":[4],"bytes":12}],"outputs":[%s]}' "$Y4" > "$TMP/bad_bytes.json"

build add_one ADD_ONE
build no_section ADD_ONE
build loop LOOP
build unreachable UNREACHABLE
build oob OOB
build recurse RECURSE
build status3 STATUS3
build abi2 ABI2
build abi3_meta ADD_ONE
build import IMPORT
build no_run NO_RUN
build bad_type BAD_TYPE
build big_memory ADD_ONE -Wl,--initial-memory=67108864
build huge_input ADD_ONE
build bad_json ADD_ONE
build bad_bytes ADD_ONE
build add2 ADD2
build classifier CLASSIFIER
build profile PROFILE
build profile_no_exports ADD_ONE
build profile_count PROFILE
build classifier_gray CLASSIFIER -DC_IN=1 -DHW=28
printf 'not wasm at all\n' > "$OUT/not_wasm.wasm"
: > "$OUT/empty.wasm"
