// test_api.mjs: the package's checked API under `node --test` (LeNet-5 compiled by
// build/bin/wasmgraph; SqueezeNet 1.1 and the photos from ../shared when present):
// 1. run(feeds) gives the zero-copy path's outputs, as copies that survive the next run;
//    every bad feed (dtype, count, dims, missing, unknown, not an object) is a
//    WasmgraphError naming the input, what it got and what the model wants.
// 2. dispose(): later use is a 'state' error, for sessions and models.
// 3. Unknown or ill-typed options are 'arg' errors naming the option.
// 4. Truncated and corrupt modules: a 'format' error naming the file, section and byte.
// 5. Worker mode (Node worker thread): same outputs, inputs transferred, errors cross
//    back as WasmgraphError with their code.
// 6. Images: the PNG decoder and imageToTensor give `wasmgraph classify`'s input tensor
//    bit for bit (--save-input) for every shared PNG and SqueezeNet's presets, and
//    topClasses gives classify's printed top-5; compile --preprocess is read back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { load, compile, WasmgraphError, decodePNG, imageToTensor, topClasses, preprocessOptions } from '../../js/wasmgraph.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUILD = process.env.BUILD || 'build';
const WG = join(ROOT, BUILD, 'bin', 'wasmgraph');
const SHARED = join(ROOT, '..', 'shared', 'data');
const SQUEEZE = join(SHARED, 'squeezenet1.1-caffe2', 'squeezenet1.1_bgr_fp32_from_fp16.onnx');
const { parseTensor } = createRequire(import.meta.url)(join(ROOT, 'tools', 'tensor_pb.js'));

const dir = mkdtempSync(join(tmpdir(), 'wg-api-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const lenet = join(dir, 'lenet.wasm');
execFileSync(WG, ['compile', join(ROOT, 'models', 'lenet5-fashion.onnx'), '-o', lenet, '--quiet']);

const input = () => Float32Array.from({ length: 784 }, (_, i) => ((i * 7919) % 1000) / 1000);
const isErr = (code, ...parts) => (e) => {
  assert.ok(e instanceof WasmgraphError, `not a WasmgraphError: ${e}`);
  assert.equal(e.code, code, e.message);
  for (const p of parts) assert.ok(e.message.includes(p), `'${e.message}' lacks '${p}'`);
  return true;
};

test('run(feeds) equals the zero-copy run and returns copies', async () => {
  const s = await load(lenet);
  const x = input();
  s.input('image').set(x);
  s.run();
  const viaViews = s.output(0).slice();
  const out = s.run({ image: x });
  assert.deepEqual(Object.keys(out), [s.outputs[0].name]);
  const y = out[s.outputs[0].name];
  assert.ok(y instanceof Float32Array);
  assert.deepEqual(y, viaViews);
  s.run({ image: { data: new Float32Array(784), dims: [1, 1, 28, 28] } });
  assert.deepEqual(y, viaViews, 'the returned output is a copy: the next run leaves it');
  assert.notDeepEqual(s.output(0), viaViews);
  s.dispose();
});

test('every bad feed is a WasmgraphError naming the input, what it got and what the model wants', async () => {
  const s = await load(lenet);
  const wants = 'float32 (Float32Array) of 784 elements [1,1,28,28]';
  assert.throws(() => s.run({ image: new Float32Array(10) }), isErr('arg', "'image'", 'Float32Array(10)', wants));
  assert.throws(() => s.run({ image: new Float32Array(1000) }), isErr('arg', "'image'", 'Float32Array(1000)', wants));
  assert.throws(() => s.run({ image: new Float64Array(784) }), isErr('arg', "'image'", 'Float64Array(784)', wants));
  assert.throws(() => s.run({ image: Array(784).fill(0) }), isErr('arg', "'image'", 'Array(784)', wants));
  assert.throws(() => s.run({ image: { data: input(), dims: [1, 28, 28] } }), isErr('arg', "'image'", 'dims [1,28,28]', '[1,1,28,28]'));
  assert.throws(() => s.run({}), isErr('arg', "input 'image' not given"));
  assert.throws(() => s.run({ image: input(), img: input() }), isErr('arg', "no input called 'img'", 'inputs: image'));
  assert.throws(() => s.run(input()), isErr('arg', 'run() takes { inputName: typedArray }', 'Float32Array(784)'));
  assert.throws(() => s.run(null), isErr('arg', 'run() takes'));
  // The views are exactly the tensor: a write past the end cannot reach other memory.
  assert.equal(s.input(0).length, 784);
  assert.throws(() => s.input(0).set(new Float32Array(785)), RangeError);
  assert.throws(() => s.input('nope'), isErr('arg', "no input called 'nope'"));
});

test('dispose() frees the session and the model; later use is a state error', async () => {
  const m = await compile(lenet);
  const s = await m.createSession();
  s.dispose();
  assert.equal(s.disposed, true);
  assert.equal(s.memory, null);
  assert.equal(s.exports, null);
  assert.throws(() => s.run({ image: input() }), isErr('state', 'disposed'));
  assert.throws(() => s.run(), isErr('state', 'disposed'));
  assert.throws(() => s.input(0), isErr('state', 'disposed'));
  assert.throws(() => s.output(0), isErr('state', 'disposed'));
  s.dispose(); // twice is harmless
  const t = await m.createSession();
  m.dispose();
  assert.ok(t.run({ image: input() }), 'a session made before the model was disposed still runs');
  await assert.rejects(m.createSession(), isErr('state', 'the model was disposed'));
});

test('options are checked: an unknown one or a bad value is an error naming it', async () => {
  await assert.rejects(load(lenet, { streamweights: true }), isErr('arg', "unknown option 'streamweights'", 'streamWeights'));
  await assert.rejects(load(lenet, { streamWeights: 'yes' }), isErr('arg', "option 'streamWeights' must be true or false", '"yes"'));
  await assert.rejects(load(lenet, { pieceBytes: -1 }), isErr('arg', "option 'pieceBytes' must be a positive integer"));
  await assert.rejects(load(lenet, { worker: 1 }), isErr('arg', "option 'worker'"));
  await assert.rejects(load(lenet, 7), isErr('arg', 'options must be an object'));
  const m = await compile(lenet);
  await assert.rejects(m.createSession({ name: 'x' }), isErr('arg', "unknown option 'name'"));
  await assert.rejects(compile(lenet, { name: 'x' }), isErr('arg', 'name must be a string'));
  assert.throws(() => preprocessOptions(undefined, { sise: 3 }), isErr('arg', "unknown option 'sise'"));
});

test('a truncated or corrupt module names the file, the section and the byte', async () => {
  const bytes = readFileSync(lenet);
  const cut = join(dir, 'cut.wasm');
  writeFileSync(cut, bytes.subarray(0, bytes.length - 1000));
  for (const src of [cut, bytes.subarray(0, bytes.length - 1000)]) {
    await assert.rejects(load(src, typeof src === 'string' ? undefined : 'cut-bytes'),
      isErr('format', typeof src === 'string' ? cut : 'cut-bytes', 'at byte', 'runs past the end of the file', `(${bytes.length - 1000} bytes)`));
  }
  const bad = Uint8Array.from(bytes);
  bad[0] = 1;
  await assert.rejects(load(bad, 'bad.wasm'), isErr('format', 'bad.wasm: not a WebAssembly module (no \\0asm magic)'));
  await assert.rejects(load(bytes.subarray(0, 5), 'five.wasm'), isErr('format', 'five.wasm', 'the file has 5 bytes'));
  const v2 = Uint8Array.from(bytes);
  v2[4] = 2;
  await assert.rejects(load(v2, 'v2.wasm'), isErr('format', 'v2.wasm: WebAssembly binary version 0x00000002'));
  await assert.rejects(load(join(dir, 'missing.wasm')), isErr('io', 'missing.wasm'));
});

test('worker mode: the module runs in a worker thread, run() is a Promise, errors cross back', async () => {
  const local = await load(lenet);
  const ref = local.run({ image: input() });
  const s = await load(lenet, { worker: true });
  assert.deepEqual(s.inputs.map((t) => t.name), ['image']);
  const x = input();
  const p = s.run({ image: x });
  assert.ok(p instanceof Promise);
  const out = await p;
  assert.deepEqual(out, ref);
  assert.equal(x.byteLength, 0, 'an input spanning its whole buffer is transferred');
  const view = new Float32Array(2000).subarray(10, 794);
  view.set(input());
  assert.deepEqual(await s.run({ image: view }), ref, 'a view into a larger buffer is copied');
  assert.equal(view.length, 784);
  await assert.rejects(s.run({ image: new Float32Array(3) }), isErr('arg', "'image'", 'Float32Array(3)'));
  assert.throws(() => s.input(0), isErr('arg', 'worker mode'));
  const streamed = await load(lenet, { worker: true, streamWeights: true, pieceBytes: 4096 });
  assert.deepEqual(await streamed.run({ image: input() }), ref, 'streamed weights in the worker');
  await streamed.dispose();
  await s.dispose();
  await assert.rejects(s.run({ image: input() }), isErr('state', 'disposed'));
  await assert.rejects(load(join(dir, 'nothing.wasm'), { worker: true }), isErr('io', 'nothing.wasm'));
  await assert.rejects(load(readFileSync(lenet).subarray(0, 100), { worker: true, name: 'short' }), isErr('format', 'short', 'runs past the end'));
  local.dispose();
});

const haveShared = existsSync(SQUEEZE) && existsSync(join(SHARED, 'images', 'cat.png'));

test('images: decodePNG + imageToTensor give classify\'s tensor bit for bit, topClasses its top-5', { skip: !haveShared && 'no ../shared data' }, async () => {
  const sq = join(dir, 'sq.wasm');
  execFileSync(WG, ['compile', SQUEEZE, '-o', sq, '--quiet', '--preprocess', '--bgr --crop --size 256']);
  const s = await load(sq);
  assert.deepEqual(s.metadata.preprocess, { size: 256, crop: true, scale: 1, mean: [0, 0, 0], std: [1, 1, 1], bgr: true, gray: false, layout: 'auto' });
  const labels = join(SHARED, 'labels', 'synset.csv');
  const presets = [
    [[], {}], // the model's recorded preprocessing
    [['--no-preprocess'], { size: 0, crop: false, bgr: false }],
    [['--no-preprocess', '--scale', '255', '--mean', '0.485,0.456,0.406', '--std', '0.229,0.224,0.225', '--crop'],
      { size: 0, crop: true, bgr: false, scale: 255, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] }],
    [['--size', '300', '--layout', 'nchw'], { size: 300, layout: 'nchw' }],
  ];
  for (const img of ['cat.png', 'dog_207.png', 'fish.png', 'zebra_340.png']) {
    const path = join(SHARED, 'images', img);
    const decoded = await decodePNG(readFileSync(path), img);
    for (const [flags, opts] of presets) {
      const pb = join(dir, 'in.pb');
      const cli = execFileSync(WG, ['classify', sq, '-i', path, '-l', labels, '--save-input', pb, ...flags], { encoding: 'utf8' });
      const ref = parseTensor(readFileSync(pb), 'in.pb');
      const mine = imageToTensor(decoded, s, opts);
      assert.equal(mine.length, ref.data.length);
      let diff = 0;
      for (let i = 0; i < mine.length; i++) if (Object.is(mine[i], ref.data[i]) === false) diff++;
      assert.equal(diff, 0, `${img} ${flags.join(' ')}: ${diff} of ${mine.length} values differ from classify's`);
      const out = s.run({ [s.inputs[0].name]: mine })[s.outputs[0].name];
      const printed = [...cli.matchAll(/^\s+\d+\s+([0-9.]+)\s+(\d+)\s/gm)].map((m) => [Number(m[2]), m[1]]);
      assert.deepEqual(topClasses(out, 5).top.map((t) => [t.index, t.prob.toFixed(4)]), printed, `${img} ${flags.join(' ')}`);
    }
  }
  s.dispose();
});
