#!/usr/bin/env node
// Runs an ONNX model with onnxruntime-node (CPU) and writes each output as
// OUTDIR/output_<i>.pb (ONNX TensorProto, raw_data): the reference outputs for
// wasmgraph's model tests. Inputs are TensorProto .pb files (tools/make_input.py).
//
//   node tools/ort_run.js MODEL.onnx OUTDIR --input NAME=FILE.pb ... [--threads 1]
//        [--opt all|basic|extended|disabled] [--quiet]
//
// An --input given as FILE.pb without NAME= takes the name stored in the file.
// Outputs are numbered in the model's output order.
'use strict';
const fs = require('fs');
const path = require('path');
const { parseTensor, serializeTensor } = require('./tensor_pb');

function usage(msg) {
  if (msg) console.error(`ort_run: ${msg}`);
  console.error('usage: node tools/ort_run.js MODEL.onnx OUTDIR --input NAME=FILE.pb ... [--threads N] [--opt LEVEL] [--quiet]');
  process.exit(2);
}

function parseArgs(argv) {
  const a = { inputs: [], threads: 1, opt: 'all', quiet: false, pos: [] };
  for (let i = 0; i < argv.length; i++) {
    const s = argv[i];
    const next = () => { if (i + 1 >= argv.length) usage(`${s} needs a value`); return argv[++i]; };
    if (s === '--input' || s === '-i') {
      const v = next();
      const eq = v.indexOf('=');
      a.inputs.push(eq > 0 ? { name: v.slice(0, eq), file: v.slice(eq + 1) } : { name: null, file: v });
    } else if (s === '--threads') {
      a.threads = Number(next());
      if (!Number.isInteger(a.threads) || a.threads < 1) usage(`--threads: bad value`);
    } else if (s === '--opt') a.opt = next();
    else if (s === '--quiet' || s === '-q') a.quiet = true;
    else if (s.startsWith('-')) usage(`unknown option ${s}`);
    else a.pos.push(s);
  }
  if (a.pos.length !== 2) usage('need MODEL.onnx and OUTDIR');
  return a;
}

function stats(t) {
  if (!['float32', 'float16', 'float64'].includes(t.type) || t.type === 'float16') return '';
  let mn = Infinity, mx = -Infinity, sum = 0;
  for (const v of t.data) { if (v < mn) mn = v; if (v > mx) mx = v; sum += v; }
  return ` min ${mn.toPrecision(5)} max ${mx.toPrecision(5)} mean ${(sum / t.data.length).toPrecision(5)}`;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const [modelPath, outDir] = args.pos;
  let ort;
  try { ort = require('onnxruntime-node'); } catch (e) {
    throw new Error(`cannot load onnxruntime-node (run scripts/setup.sh, or set NODE_PATH=tools/node_modules): ${e.message}`);
  }
  const session = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: args.threads, interOpNumThreads: 1, graphOptimizationLevel: args.opt,
    executionProviders: ['cpu'],
  });
  const feeds = {};
  for (const inp of args.inputs) {
    const t = parseTensor(fs.readFileSync(inp.file), inp.file);
    const name = inp.name || t.name;
    if (!name) throw new Error(`${inp.file}: no NAME= given and the tensor has no name`);
    if (!session.inputNames.includes(name))
      throw new Error(`${inp.file}: model ${modelPath} has no input '${name}' (inputs: ${session.inputNames.join(', ')})`);
    feeds[name] = new ort.Tensor(t.dtype, t.data, t.dims);
  }
  const missing = session.inputNames.filter((n) => !(n in feeds));
  if (missing.length) throw new Error(`model ${modelPath}: no --input for ${missing.join(', ')}`);
  const t0 = process.hrtime.bigint();
  const results = await session.run(feeds);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  fs.mkdirSync(outDir, { recursive: true });
  session.outputNames.forEach((name, i) => {
    const t = results[name];
    const file = path.join(outDir, `output_${i}.pb`);
    fs.writeFileSync(file, serializeTensor({ name, dims: t.dims.map(Number), dtype: t.type, data: t.data }));
    if (!args.quiet) console.log(`${file}: ${name} ${t.type} [${t.dims.join('x')}]${stats(t)}`);
  });
  if (!args.quiet) console.log(`run: ${ms.toFixed(2)} ms (${args.threads} thread${args.threads > 1 ? 's' : ''})`);
}

main().catch((e) => { console.error(`ort_run: ${e.message}`); process.exit(1); });
