#!/usr/bin/env bash
# make demo-resnet50: the seed's flow (TVM apps/wasm-standalone) for users with internet
# access: download ResNet-50 v2 from the ONNX model zoo, the cat image and the ImageNet
# labels, compile with -O3 and classify. Expected last line:
#   input image belongs to the class 'tiger cat'
# Not run by CI (it needs the network).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
out=$BUILD/demo-resnet50
mkdir -p "$out"
fetch() { [ -s "$out/$2" ] || curl -fL --retry 3 -o "$out/$2" "$1"; }
fetch https://github.com/onnx/models/raw/main/validated/vision/classification/resnet/model/resnet50-v2-7.onnx resnet50-v2-7.onnx
fetch https://github.com/dmlc/mxnet.js/blob/main/data/cat.png?raw=true cat.png
fetch https://raw.githubusercontent.com/kazum/tvm-wasm/master/synset.csv synset.csv
# The zoo file leaves the batch dimension symbolic: fix it to one image.
"$BUILD/bin/wasmgraph" compile "$out/resnet50-v2-7.onnx" -o "$out/resnet50-v2-7.wasm" -O3 --shape data=1x3x224x224
# The zoo model expects RGB scaled to [0,1] and normalised with ImageNet's mean and std.
"$BUILD/bin/wasmgraph" classify "$out/resnet50-v2-7.wasm" -i "$out/cat.png" -l "$out/synset.csv" \
    --scale 255 --mean 0.485,0.456,0.406 --std 0.229,0.224,0.225
