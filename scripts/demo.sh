#!/usr/bin/env bash
# make demo: compile the committed LeNet-5 (trained on Fashion-MNIST by tools/train_lenet.py)
# and classify the 10,000 Fashion-MNIST test images with it on wasmtime. Offline.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
data=/usr/share/datasets/fashion-mnist
out=$BUILD/demo
mkdir -p "$out"
for f in t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
    [ -s "$out/$f" ] || gzip -dc "$data/$f.gz" > "$out/$f"
done
"$BUILD/bin/wasmgraph" compile models/lenet5-fashion.onnx -o "$out/lenet5-fashion.wasm" -O3
"$BUILD/bin/wasmgraph" info "$out/lenet5-fashion.wasm"
echo
"$BUILD/bin/fashion_demo" "$out/lenet5-fashion.wasm" "$out/t10k-images-idx3-ubyte" "$out/t10k-labels-idx1-ubyte"
