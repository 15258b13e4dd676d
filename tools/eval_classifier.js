#!/usr/bin/env node
// Accuracy of an image classifier under onnxruntime-node on flat demo data
// (tools/make_demo_data.py): checks the exported LeNet-5 independently of numpy.
//
//   node tools/eval_classifier.js MODEL.onnx IMAGES.f32 LABELS.u8 [--limit N]
//
// The model's single input is fed one image at a time in its declared shape.
'use strict';
const fs = require('fs');

async function main() {
  const argv = process.argv.slice(2);
  let limit = Infinity;
  const li = argv.indexOf('--limit');
  if (li >= 0) { limit = Number(argv[li + 1]); argv.splice(li, 2); }
  if (argv.length !== 3) {
    console.error('usage: node tools/eval_classifier.js MODEL.onnx IMAGES.f32 LABELS.u8 [--limit N]');
    process.exit(2);
  }
  const [modelPath, imgPath, lblPath] = argv;
  const ort = require('onnxruntime-node');
  const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1 });
  const inName = session.inputNames[0], outName = session.outputNames[0];
  const labels = fs.readFileSync(lblPath);
  const raw = fs.readFileSync(imgPath);
  const images = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
  const per = images.length / labels.length;
  if (!Number.isInteger(per)) throw new Error(`${imgPath}: ${images.length} floats do not split into ${labels.length} images`);
  const n = Math.min(labels.length, limit);
  const side = Math.round(Math.sqrt(per));
  let correct = 0;
  const t0 = Date.now();
  for (let i = 0; i < n; i++) {
    const x = new ort.Tensor('float32', images.slice(i * per, (i + 1) * per), [1, 1, side, side]);
    const y = (await session.run({ [inName]: x }))[outName].data;
    let best = 0;
    for (let k = 1; k < y.length; k++) if (y[k] > y[best]) best = k;
    if (best === labels[i]) correct++;
  }
  console.log(`${modelPath}: ${correct}/${n} correct, accuracy ${(100 * correct / n).toFixed(2)}% (${Date.now() - t0} ms)`);
}

main().catch((e) => { console.error(`eval_classifier: ${e.message}`); process.exit(1); });
