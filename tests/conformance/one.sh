#!/usr/bin/env bash
# tests/conformance/one.sh TESTDIR: runs one ONNX backend test (model.onnx + test_data_set_*)
# and prints one line "SUITE<TAB>NAME<TAB>RESULT<TAB>REASON" with RESULT passed, failed or
# unsupported. Used by tests/conformance/run.sh (env: W = wasmgraph, CMP = compare_tensors,
# OUT = work directory, OPT = compile flags).
set -uo pipefail
d=${1%/}
name=$(basename "$d"); suite=$(basename "$(dirname "$d")")
work=$OUT/$suite/$name
rm -rf "$work"; mkdir -p "$work"
result() { # RESULT REASON
    local reason=${2//$'\t'/ }
    reason=${reason//$'\n'/ }
    printf '%s\t%s\t%s\t%s\n' "$suite" "$name" "$1" "${reason:0:400}"
    exit 0
}
[ -f "$d/model.onnx" ] || result failed "no model.onnx"
# compile DATASET_DIR: compiles with the current bindings (graph inputs the compiler needs as
# constants, e.g. Slice's starts or Reshape's shape: it names them in its error as
# "[graph input #K 'NAME': compile with --const NAME=FILE.pb]"; we bind them from the data set;
# inputs whose values decide a size, which it names as "compile with --dim NAME=MIN..MAX to
# bound its values, or --const ...", get the range of their values over the data sets, so
# the module sizes its output at run time).
bound=()   # indices K
shapes=()  # NAME=DIMS for dynamic input dims
bnames=()  # names
ranges=()  # NAME=MIN..MAX for inputs whose values are bounded
compile() {
    local cargs=() j
    for j in "${!bound[@]}"; do cargs+=(--const "${bnames[$j]}=$1input_${bound[$j]}.pb"); done
    for j in "${ranges[@]}"; do cargs+=(--dim "$j"); done
    for j in "${shapes[@]}"; do # an input bound as a constant takes no --shape
        [[ " ${bnames[*]} " == *" ${j%%=*} "* ]] || cargs+=(--shape "$j")
    done
    # shellcheck disable=SC2086
    timeout 300 "$W" compile "$d/model.onnx" -o "$work/model.wasm" -q $OPT "${cargs[@]}" > "$work/compile.log" 2>&1
}
first=$(ls -d "$d"/test_data_set_*/ 2>/dev/null | sort -V | head -1)
[ -n "$first" ] || result failed "no test_data_set_*"
# bind_and_compile: compiles, adding the bindings the compiler asks for, until it compiles
# or asks for nothing it can be given (the loop is not indented: its here-documents).
bind_and_compile() {
for attempt in 1 2 3 4 5 6 7 8; do
    compile "$first"; rc=$?
    [ $rc -ne 0 ] || break
    hint=$(grep -o "\[graph input #[0-9]* '[^']*': compile with --\(const\|dim\)" "$work/compile.log" | head -1)
    if [ -z "$hint" ] && [ ${#shapes[@]} -eq 0 ] &&
        grep -q 'has a dynamic dimension\|is a sequence of .* tensors; give' "$work/compile.log"; then
        # dynamic input dims, or a sequence's element count and shapes: fix them to the data
        # set's (read with the venv's onnx; a sequence's elements as DIMS+DIMS+..., [] for none)
        py=${PYTHON:-$HOME/.cache/wasmgraph/venv/bin/python}
        [ -x "$py" ] || break
        mapfile -t shapes < <("$py" - "$d/model.onnx" "$first" <<'PY'
import sys, onnx
m = onnx.load(sys.argv[1], load_external_data=False)
inits = {t.name for t in m.graph.initializer}
names = [i.name for i in m.graph.input if i.name not in inits]
types = {i.name: i.type.WhichOneof("value") for i in m.graph.input}
dims = lambda t: 'x'.join(str(x) for x in t.dims)
elems = lambda s: "+".join(dims(t) for t in s.tensor_values) if len(s.tensor_values) else "[]"  # "": one scalar
for k, nm in enumerate(names):
    try:
        data = open(f"{sys.argv[2]}input_{k}.pb", "rb").read()
    except OSError:
        continue
    if types[nm] == "sequence_type":
        s = onnx.SequenceProto(); s.ParseFromString(data)
        print(f"{nm}={elems(s)}")
    elif types[nm] == "optional_type":
        o = onnx.OptionalProto(); o.ParseFromString(data)
        if o.HasField("sequence_value"):
            print(f"{nm}={elems(o.sequence_value)}")
        elif o.HasField("tensor_value"):
            print(f"{nm}={dims(o.tensor_value)}")
    else:
        t = onnx.TensorProto(); t.ParseFromString(data)
        print(f"{nm}={dims(t)}")
PY
)
        [ ${#shapes[@]} -gt 0 ] || break
        continue
    fi
    [ -n "$hint" ] || break
    # K counts the inputs left after the bindings so far: map it back to the original index.
    k=$(sed -E 's/.*#([0-9]+).*/\1/' <<< "$hint")
    for b in $(printf '%s\n' "${bound[@]}" | sort -n); do [ "$b" -le "$k" ] && k=$((k + 1)); done
    [ -f "${first}input_$k.pb" ] || break
    iname=$(sed -E "s/.*#[0-9]+ '([^']*)'.*/\1/" <<< "$hint")
    if [[ $hint == *"--dim" ]] && [ "$prefer_const" = 0 ]; then
        # the values' range over every data set (none negative: else bind them as constants)
        py=${PYTHON:-$HOME/.cache/wasmgraph/venv/bin/python}
        range=$("$py" - "$d" "$k" <<'PY'
import glob, sys
import numpy as np
from onnx import TensorProto, numpy_helper
vals = []
for f in glob.glob(f"{sys.argv[1]}/test_data_set_*/input_{sys.argv[2]}.pb"):
    t = TensorProto()
    t.ParseFromString(open(f, "rb").read())
    vals.append(numpy_helper.to_array(t).ravel())
v = np.concatenate(vals) if vals else np.array([-1])
print(f"{v.min()}..{v.max()}" if v.size and v.min() >= 0 else "")
PY
)
        if [ -n "$range" ] && [[ " ${ranges[*]} " != *" $iname="* ]]; then
            ranges+=("$iname=$range")
            continue
        fi
    fi
    bound+=("$k")
    bnames+=("$iname")
done
}
prefer_const=0
bind_and_compile
if [ $rc -ne 0 ] && [ ${#ranges[@]} -gt 0 ]; then
    # bounded values that still do not compile (an op that checks sizes at the bounds):
    # the data set's values as constants instead
    bound=() shapes=() bnames=() ranges=() prefer_const=1
    bind_and_compile
fi
if [ $rc -ne 0 ]; then
    msg=$(grep -m1 'wasmgraph: error' "$work/compile.log")
    [ -n "$msg" ] || msg="compile exit $rc: $(head -c 300 "$work/compile.log")"
    if [ $rc -eq 1 ] && grep -q '^wasmgraph: error (unsupported):' "$work/compile.log"; then
        result unsupported "${msg#wasmgraph: error (unsupported): $d/model.onnx: }"
    fi
    result failed "compile: $msg"
fi
nsets=0
for ds in $(ls -d "$d"/test_data_set_*/ | sort -V); do
    nsets=$((nsets + 1))
    set_name=$(basename "$ds")
    if [ ${#bound[@]} -gt 0 ] && [ "$ds" != "$first" ]; then
        compile "$ds" || result failed "$set_name: compile with bound inputs: $(grep -m1 'wasmgraph: error' "$work/compile.log")"
    fi
    args=()
    while IFS= read -r f; do
        k=${f#input_}; k=${k%.pb}
        [[ " ${bound[*]} " == *" $k "* ]] || args+=(--input "$ds$f")
    done < <(ls "$ds" | grep -E '^input_[0-9]+\.pb$' | sort -V)
    mkdir -p "$work/$set_name"
    timeout 120 "$W" run "$work/model.wasm" "${args[@]}" --output-dir "$work/$set_name" > "$work/$set_name/run.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && grep -q "^wasmgraph: error: input '[^']*': .* holds .*, the model wants " "$work/$set_name/run.log"; then
        # the data set's input file disagrees with the model's own declared input (dtype or
        # shape): bad test data (e.g. ONNX 1.12's CastLike 'like' inputs), not an answer
        result unsupported "$set_name: test data does not match the model: $(grep -m1 'holds' "$work/$set_name/run.log")"
    fi
    [ $rc -eq 0 ] || result failed "$set_name: run exit $rc: $(grep -m1 -i 'error\|trap' "$work/$set_name/run.log" || tail -c 300 "$work/$set_name/run.log")"
    for want in $(ls "$ds" | grep -E '^output_[0-9]+\.pb$' | sort -V); do
        got=$work/$set_name/$want
        [ -f "$got" ] || result failed "$set_name: $want not written"
        # a sequence or optional output: `run` says so when it writes it
        kind=$(grep -F "wrote $got ('" "$work/$set_name/run.log" | grep -o ', \(sequence\|optional\))$' | tr -d ', )')
        line=$("$CMP" "$got" "$ds$want" --rtol 1e-3 --atol 1e-7 --exact-dtype --kind "${kind:-tensor}" 2>&1)
        [ $? -eq 0 ] || result failed "$set_name/$want: $line"
    done
done
[ $nsets -gt 0 ] || result failed "no test_data_set_*"
rm -rf "$work"
result passed ""
