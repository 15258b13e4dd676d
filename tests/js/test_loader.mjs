// test_loader.mjs: tests js/wasmgraph.mjs under `node --test`.
// 1. LeNet (models/lenet5-fashion.onnx) compiled by build/bin/wasmgraph gives in V8
//    the same logits as the C host (`wasmgraph run`, wasmtime) on one input.
// 2. Tiny hand-assembled ABI modules check each error path: non-zero status, trap,
//    imports, missing section, ABI version mismatches, bad pointers, bad arguments.
// 3. The weights (data segments) are copied by the loader, from bytes or straight from
//    the file (in pieces read side by side), exactly as instantiation would; modules that
//    cannot be split so run whole. Streamed (streamWeights), the first run goes step by
//    step as the weights arrive and gives the same output (in both runs, for a model with
//    several outputs and Winograd convs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { open } from 'node:fs/promises';
import { load, compile, splitModule, readSegments, WasmgraphError } from '../../js/wasmgraph.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUILD = process.env.BUILD || 'build';
const WG = join(ROOT, BUILD, 'bin', 'wasmgraph');
const { serializeTensor, parseTensor } = createRequire(import.meta.url)(join(ROOT, 'tools', 'tensor_pb.js'));

test('LeNet in V8 through wasmgraph.mjs matches the C host (wasmtime) output', async (t) => {
  assert.ok(existsSync(WG), `${WG} is missing: run make all first`);
  const dir = mkdtempSync(join(tmpdir(), 'wg-js-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const wasm = join(dir, 'lenet.wasm');
  execFileSync(WG, ['compile', join(ROOT, 'models', 'lenet5-fashion.onnx'), '-o', wasm, '--quiet']);

  // A deterministic image-like input in [0, 1).
  const x = new Float32Array(784);
  for (let i = 0; i < x.length; i++) x[i] = ((i * 7919) % 1000) / 1000;
  writeFileSync(join(dir, 'in.pb'), serializeTensor({ name: 'image', dims: [1, 1, 28, 28], dtype: 'float32', data: x }));
  execFileSync(WG, ['run', wasm, '--input', `image=${join(dir, 'in.pb')}`, '--output-dir', join(dir, 'out')]);
  const ref = parseTensor(readFileSync(join(dir, 'out', 'output_0.pb')), 'output_0.pb');

  const s = await load(wasm);
  assert.deepEqual(s.inputs.map((i) => [i.name, i.dtype, i.shape]), [['image', 'float32', [1, 1, 28, 28]]]);
  assert.deepEqual(s.outputs[0].shape, [1, 10]);
  assert.ok(s.input('image') instanceof Float32Array);
  s.input(0).set(x);
  s.run();
  const y = s.output(0);
  assert.equal(y.length, ref.data.length);
  assert.deepEqual(ref.dims, [1, 10]);
  for (let i = 0; i < y.length; i++) {
    assert.ok(Math.abs(y[i] - ref.data[i]) <= 1e-5 * (1 + Math.abs(ref.data[i])),
      `logit ${i}: V8 ${y[i]} vs wasmtime ${ref.data[i]}`);
  }
  // Loaded from a file, the weights stay out of the compiled module and are read from
  // the file into each session's memory; from bytes, copied from them.
  const fromFile = await compile(wasm), fromBytes = await compile(readFileSync(wasm));
  assert.equal(fromFile.weights.file, wasm);
  assert.ok(fromBytes.weights.bytes);
  assert.ok(fromFile.weights.segments.some((g) => g.len > 100000), 'the weights are a data segment');
  // A second session from the same file is independent of the first.
  const s2 = await load(readFileSync(wasm));
  s2.input(0).fill(0);
  s2.run();
  assert.notDeepEqual(Array.from(s2.output(0)), Array.from(y));
});

test('LeNet with streamed weights: each step runs once its weights are read, and the output is the same', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wg-js-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const wasm = join(dir, 'lenet.wasm');
  execFileSync(WG, ['compile', join(ROOT, 'models', 'lenet5-fashion.onnx'), '-o', wasm, '--quiet']);
  const x = Float32Array.from({ length: 784 }, (_, i) => ((i * 104729) % 1000) / 1000);

  // The metadata: one never-decreasing entry per wg_run_step step, ending at the weights.
  const model = await compile(wasm);
  const steps = model.metadata.step_weights, segs = model.weights.segments;
  const weights = segs.find((g) => g.mem === model.metadata.weights_base);
  assert.ok(weights && steps.length > 1, 'a weights segment and several steps');
  steps.forEach((v, k) => assert.ok(Number.isInteger(v) && v >= (k ? steps[k - 1] : 0), `step ${k}: ${v}`));
  assert.equal(steps[steps.length - 1], weights.len);

  const plain = await model.createSession();
  plain.input(0).set(x);
  plain.run();
  // 4 KiB pieces: LeNet's 245 KB of weights arrive in ~60 reads, so steps wait for some.
  for (const pieceBytes of [4096, undefined]) {
    const s = await model.createSession({ streamWeights: true, pieceBytes });
    s.input(0).set(x);
    assert.throws(() => s.run(), (e) => e instanceof WasmgraphError && e.code === 'state' && /still being read/.test(e.message));
    const first = s.runAsync();
    // One run at a time: a second one, or a plain run, while it goes is refused.
    await rejects(s.runAsync(), 'state', /already running/);
    assert.throws(() => s.run(), (e) => e.code === 'state' && /still running/.test(e.message));
    await first;
    assert.deepEqual(Array.from(s.output(0)), Array.from(plain.output(0)), `pieceBytes ${pieceBytes}`);
    await s.ready;
    s.run(); // after ready, a plain run
    assert.deepEqual(Array.from(s.output(0)), Array.from(plain.output(0)));
  }
  // From bytes there is nothing to stream: the session is ready at once.
  const fromBytes = await load(readFileSync(wasm), { streamWeights: true });
  fromBytes.input(0).set(x);
  fromBytes.run();
  assert.deepEqual(Array.from(fromBytes.output(0)), Array.from(plain.output(0)));
  // Bad piece sizes and a file changed since compile are refused before any step runs.
  await rejects(model.createSession({ streamWeights: true, pieceBytes: 0 }), 'arg', /option 'pieceBytes' must be a positive integer, not 0/);
  writeFileSync(wasm, readFileSync(wasm).subarray(0, 1000));
  await rejects(model.createSession({ streamWeights: true }), 'io', /the file changed since the model was compiled/);
});

test('Streamed, a model with several outputs and Winograd convs gives the same outputs in both runs', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wg-js-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const onnx = join(dir, 'conv_chain.onnx'), wasm = join(dir, 'conv_chain.wasm');
  const py = process.env.WG_PYTHON || join(process.env.HOME || '', '.cache', 'wasmgraph', 'venv', 'bin', 'python');
  execFileSync(existsSync(py) ? py : 'python3', [join(ROOT, 'tests', 'models', 'conv_chain.py'), onnx]);
  execFileSync(WG, ['compile', onnx, '-o', wasm, '--quiet']);
  const model = await compile(wasm);
  assert.equal(model.outputs.length, 3);

  const x = Float32Array.from({ length: 3 * 115 * 115 }, (_, i) => ((i * 7919) % 1000) / 500 - 1);
  const runs = async (s, first) => {
    s.input(0).set(x);
    await first(s);
    const a = s.outputs.map((_, i) => Array.from(s.output(i)));
    s.run(); // the second run reads the filters transformed by the first (or transforms them)
    return [a, s.outputs.map((_, i) => Array.from(s.output(i)))];
  };
  const reference = await model.createSession();
  const plain = await runs(reference, (s) => s.run());
  // Every streamed session (the bug this guards against struck about 1 in 10): clang
  // compiles wg_output_ptr's switch to a table in the static data segment, which must be
  // in memory before the session asks for the output pointers.
  for (let i = 0; i < 20; i++) {
    const pieceBytes = i % 2 ? undefined : 4096;
    const s = await model.createSession({ streamWeights: true, pieceBytes });
    assert.deepEqual(s.outputPtrs, reference.outputPtrs, `session ${i}`);
    const streamed = await runs(s, async () => {
      await s.runAsync();
      await s.ready;
    });
    assert.deepEqual(streamed, plain, `session ${i}, pieceBytes ${pieceBytes}`);
  }
});

// ---- a minimal wasm assembler for ABI fixtures ----

function uleb(n) { const o = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; o.push(b); } while (n); return o; }
function sleb(n) {
  const o = [];
  for (;;) {
    const b = n & 0x7f; n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && (b & 0x40))) { o.push(b); return o; }
    o.push(b | 0x80);
  }
}
const str = (s) => { const b = [...Buffer.from(s, 'utf8')]; return [...uleb(b.length), ...b]; };
const vec = (items) => [...uleb(items.length), ...items.flat()];
const section = (id, body) => [id, ...uleb(body.length), ...body];
const i32c = (v) => [0x41, ...sleb(v)];

const IN = 16, OUT = 64; // byte offsets of x and y
// wg_run bodies: 'double' writes y = 2x (4 floats); 'status' returns 7; 'trap' traps.
const RUN = {
  double: [0, 1, 2, 3].flatMap((k) => [...i32c(OUT + 4 * k), ...i32c(IN + 4 * k), 0x2a, 2, 0,
    0x43, 0, 0, 0, 0x40, 0x94, 0x38, 2, 0]).concat(i32c(0)),
  status: i32c(7),
  trap: [0x00],
};
const META = {
  abi: 1, name: 'fixture', producer: 'test', opset: 13,
  inputs: [{ name: 'x', dtype: 'float32', shape: [4], bytes: 16 }],
  outputs: [{ name: 'y', dtype: 'float32', shape: [4], bytes: 16 }],
};

function fixture({ run = 'double', meta = META, abi = 1, outPtr = OUT, withImport = false, noRun = false, data = [] } = {}) {
  const types = section(1, vec([[0x60, 0, 1, 0x7f], [0x60, 1, 0x7f, 1, 0x7f]]));
  const imports = withImport ? section(2, vec([[...str('env'), ...str('f'), 0, 0]])) : [];
  const base = withImport ? 1 : 0;
  const funcs = [[0, i32c(abi)], [1, i32c(IN)], [1, i32c(outPtr)], [0, RUN[run]]];
  const fsec = section(3, vec(funcs.map(([ty]) => [ty])));
  const mem = section(5, vec([[0, 1]]));
  const names = ['wg_abi_version', 'wg_input_ptr', 'wg_output_ptr', noRun ? 'other' : 'wg_run'];
  const exps = section(7, vec([[...str('memory'), 2, 0], ...names.map((n, i) => [...str(n), 0, base + i])]));
  const code = section(10, vec(funcs.map(([, body]) => { const b = [0, ...body, 0x0b]; return [...uleb(b.length), ...b]; })));
  const custom = meta ? section(0, [...str('wasmgraph'), ...Buffer.from(JSON.stringify(meta))]) : [];
  // data: [[address, [bytes]]...], active segments of memory 0
  const dsec = data.length ? section(11, vec(data.map(([at, b]) => [0, ...i32c(at), 0x0b, ...uleb(b.length), ...b]))) : [];
  return new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...types, ...imports, ...fsec, ...mem, ...exps, ...code, ...dsec, ...custom]);
}

async function rejects(promise, code, pattern) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof WasmgraphError, `expected WasmgraphError, got ${e}`);
    assert.equal(e.code, code, e.message);
    assert.match(e.message, pattern);
    return true;
  });
}

test('a valid fixture runs: input view, run(), output view, names and metadata', async () => {
  const s = await load(fixture(), 'fix.wasm');
  s.input('x').set([1, 2, 3, -4]);
  s.run();
  assert.deepEqual(Array.from(s.output('y')), [2, 4, 6, -8]);
  assert.equal(s.metadata.name, 'fixture');
  const m = await compile(fixture());
  assert.equal(m.inputs[0].bytes, 16);
});

test('a non-zero wg_run status is an Error that gives the status', async () => {
  const s = await load(fixture({ run: 'status' }), 'st.wasm');
  assert.throws(() => s.run(), (e) => e instanceof WasmgraphError && e.code === 'status' && /st\.wasm: wg_run returned status 7/.test(e.message));
});

test('a trap in wg_run is an Error naming the trap, and the session refuses to run again', async () => {
  const s = await load(fixture({ run: 'trap' }), 'trap.wasm');
  assert.throws(() => s.run(), (e) => e instanceof WasmgraphError && e.code === 'trap' && /trap in wg_run: unreachable/.test(e.message));
  assert.throws(() => s.run(), /session unusable/);
});

test('modules that break the ABI are refused before or at instantiation', async () => {
  await rejects(load(fixture({ withImport: true })), 'abi', /imports env\.f \(a function\)/);
  await rejects(load(fixture({ meta: null })), 'abi', /no 'wasmgraph' custom section/);
  await rejects(load(fixture({ meta: { ...META, abi: 3 } })), 'abi', /ABI version 3, this loader supports 1\.\.2/);
  await rejects(load(fixture({ abi: 3 })), 'abi', /wg_abi_version\(\) returns 3/);
  await rejects(load(fixture({ noRun: true })), 'abi', /no export 'wg_run'/);
  await rejects(load(fixture({ outPtr: 65530 })), 'abi', /wg_output_ptr\(0\) = 65530: 16 bytes of 'y' do not fit/);
  await rejects(load(fixture({ outPtr: 66 })), 'abi', /not aligned to 4 bytes/);
  await rejects(load(fixture({ meta: { ...META, inputs: [{ name: 'x', dtype: 'float32', shape: [4], bytes: 12 }] } })),
    'format', /says bytes 12 but 4 elements of float32 make 16/);
  await rejects(load(fixture({ meta: { ...META, outputs: [{ name: 'y', dtype: 'complex', shape: [4], bytes: 16 }] } })),
    'format', /dtype 'complex'/);
});

test('bad files and bad arguments give clear errors', async () => {
  await rejects(load(new Uint8Array([1, 2, 3, 4])), 'format', /module: not a WebAssembly module \(no \\0asm magic: the file has 4 bytes\)/);
  await rejects(load('/nonexistent/model.wasm'), 'io', /\/nonexistent\/model\.wasm: cannot read/);
  await rejects(load(42), 'arg', /load\(\) takes/);
  const s = await load(fixture());
  assert.throws(() => s.input(1), /input index 1 out of range \(the model has 1\)/);
  assert.throws(() => s.output('z'), /no output called 'z' \(outputs: y\)/);
});

const f32bytes = (v) => [...new Uint8Array(new Float32Array(v).buffer)];

test('data segments are copied into each session as instantiation would (bytes, file, whole)', async (t) => {
  // The input x preset by a segment, and a second segment past it: the run doubles x.
  const bytes = fixture({ data: [[IN, f32bytes([1, 2, 3, -4])], [200, [7, 8, 9]]] });
  const split = splitModule((p, n) => bytes.subarray(p, p + n), bytes.length);
  assert.deepEqual(split.segments.map((g) => [g.mem, g.len]), [[IN, 16], [200, 3]]);
  assert.ok(split.code.length < bytes.length - 19);
  const dir = mkdtempSync(join(tmpdir(), 'wg-js-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'data.wasm');
  writeFileSync(file, bytes);
  for (const src of [bytes, file, new WebAssembly.Module(bytes)]) {
    const m = await compile(src, 'data.wasm');
    assert.equal(m.weights === null, src instanceof WebAssembly.Module);
    for (let k = 0; k < 2; k++) { // every session gets its own copy
      const s = await m.createSession();
      assert.deepEqual(Array.from(new Uint8Array(s.memory.buffer, 200, 3)), [7, 8, 9]);
      s.run();
      assert.deepEqual(Array.from(s.output('y')), [2, 4, 6, -8]);
      s.input('x').fill(0);
    }
  }
  // Bytes changed after compile do not reach later sessions.
  const copy = Uint8Array.from(bytes), fromCopy = await compile(copy);
  copy.fill(0);
  const s = await fromCopy.createSession();
  s.run();
  assert.deepEqual(Array.from(s.output('y')), [2, 4, 6, -8]);
  // The file rewritten after compile: the next session refuses it.
  const m = await compile(file);
  writeFileSync(file, fixture({ data: [[IN, f32bytes([5, 5, 5, 5])]] }));
  await rejects(m.createSession(), 'io', /the file changed since the model was compiled/);
});

test('weights read from a file in pieces land where each segment says, or fail as io', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wg-js-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'w.bin');
  const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 37 + 11) & 255);
  writeFileSync(file, bytes);
  // Two segments, neither a multiple of the piece size, so every piece boundary case occurs.
  const segments = [{ mem: 64, pos: 3, len: 500 }, { mem: 4096, pos: 600, len: 400 }];
  for (const piece of [7, 500, 1 << 20]) {
    const memory = new WebAssembly.Memory({ initial: 1 });
    const fh = await open(file, 'r');
    try {
      await readSegments(fh, memory, segments, 'w.bin', piece);
    } finally {
      await fh.close();
    }
    const mem = new Uint8Array(memory.buffer);
    for (const g of segments) assert.deepEqual(mem.subarray(g.mem, g.mem + g.len), bytes.subarray(g.pos, g.pos + g.len), `piece ${piece}`);
    assert.equal(mem[63] + mem[564] + mem[4095] + mem[4496], 0, `piece ${piece}: nothing outside the segments`);
  }
  // A segment that runs past the end of the file: an io error naming the byte.
  const fh = await open(file, 'r');
  try {
    await rejects(readSegments(fh, new WebAssembly.Memory({ initial: 1 }), [{ mem: 0, pos: 900, len: 200 }], 'w.bin', 64), 'io', /w.bin: unexpected end of file at byte 1000/);
  } finally {
    await fh.close();
  }
});

test('modules that cannot be split exactly are compiled whole or refused as before', async () => {
  const read = (b) => (p, n) => b.subarray(p, p + n);
  const head = [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0];
  // No data section, a start section, a data count section, a passive segment, trailing bytes.
  assert.equal(splitModule(read(fixture()), fixture().length), null);
  for (const body of [[8, 1, 0], [12, 1, 0], [11, 4, 1, 1, 1, 0x2a], [11, 8, 1, 0, 0x41, 0, 0x0b, 1, 0x2a, 0]]) {
    const b = new Uint8Array([...head, ...body]);
    assert.equal(splitModule(read(b), b.length), null, `section ${body[0]}`);
  }
  // A segment past the end of memory: refused at session creation, as instantiation would.
  await rejects(load(fixture({ data: [[65534, [1, 2, 3, 4]]] })), 'abi', /data segment 0 \(4 bytes at 65534\) does not fit in memory/);
  await rejects(load(new WebAssembly.Module(fixture({ data: [[65534, [1, 2, 3, 4]]] }))), 'abi', /cannot instantiate/);
  // A truncated file: scanModule names the section that runs past the end.
  const cut = fixture({ data: [[IN, f32bytes([1, 2, 3, 4])]] });
  await rejects(load(cut.subarray(0, cut.length - 40)), 'format', /module: section 0 \(custom\) at byte \d+ runs past the end of the file/);
});
