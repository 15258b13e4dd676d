#!/usr/bin/env bash
# tests/models/silero_vad.sh: the Silero voice-activity detectors of the npm package
# @ricky0123/vad-web (v5, v6, legacy; tools/fetch_silero.sh puts them in the model cache),
# each compiled once per chunk size with the sample rate `sr` left a run-time input (the
# whole model is an If on it, with nested Ifs and LSTMs inside), and run by
# tests/models/silero_vad.mjs over 200 consecutive chunks with the state carried, against
# onnxruntime-node: 512 samples at 16 kHz and 256 at 8 kHz. Prints "ok"/"FAIL" lines (the
# format of tests/models.sh, which calls it) or one "skipped" line without the models.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tests/suite_env.sh
DIR=${WG_MODELS_DIR:-$HOME/.cache/wasmgraph/models}/silero
OUT=$BUILD/model-tests/silero
if [ ! -f "$DIR/silero_vad_v5.onnx" ]; then
    echo "skipped: no silero model, run scripts/setup.sh --models"
    exit 0
fi
mkdir -p "$OUT"
fail=0
for m in v5 v6 legacy; do
    model=$DIR/silero_vad_$m.onnx
    [ "$m" = legacy ] && state="--shape h=2x1x64 --shape c=2x1x64" || state="--shape state=2x1x128"
    for cfg in 512:16000 256:8000; do
        n=${cfg%%:*} rate=${cfg#*:} name="silero $m $n@$rate"
        # onnxruntime's own LSTM misses the exact float32 result by 1.3e-5 on chunk 65 of v5 at
        # 8 kHz (ours by 4.8e-6; both against onnx.reference): atol 2e-5 there
        atol=1e-5
        [ "$m:$rate" = v5:8000 ] && atol=2e-5
        # shellcheck disable=SC2086
        if ! "$W" compile "$model" -o "$OUT/$m-$n.wasm" -q --shape input=1x$n $state > "$OUT/$m-$n.log" 2>&1; then
            echo "FAIL $name (compile: $(head -c 300 "$OUT/$m-$n.log"))"; fail=1; continue
        fi
        if line=$(SILERO_ATOL=$atol node tests/models/silero_vad.mjs "$model" "$OUT/$m-$n.wasm" "$n" "$rate" 2>&1); then
            echo "ok   $name: $line"
        else
            echo "FAIL $name: $line"; fail=1
        fi
    done
done
exit $fail
