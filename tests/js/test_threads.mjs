// test_threads.mjs: threaded modules in Node (js/threads.mjs, docs/abi.md "Threads"), on
// LeNet-5 and SqueezeNet 1.1 (../shared, when present) compiled with --threads:
// 1. load(.., { threads: N }) for N = 1, 2, 3 gives the single-threaded module's outputs
//    bit for bit, session.threads says N, and the module's metadata says "threads".
// 2. Asking for more threads than the module was compiled for is an 'arg' error.
// 3. Without SharedArrayBuffer: a 'threads' error saying how to get it, or with
//    threadsFallback: true one thread on an unshared memory, same bits.
// 4. Many sessions created, run and disposed (their workers end with them), and a
//    session disposed without ever running.
// 5. Worker mode (the page case): threads inside a worker, same bits.
// 6. A module with symbolic dims (the model cache's encoder): same bits at each size.
// 7. A run-time output size (x[x > 0]): the decided size on every thread count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, WasmgraphError } from '../../js/wasmgraph.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUILD = process.env.BUILD || 'build';
const WG = join(ROOT, BUILD, 'bin', 'wasmgraph');
const SQUEEZE = join(ROOT, '..', 'shared', 'data', 'squeezenet1.1-caffe2', 'squeezenet1.1_bgr_fp32_from_fp16.onnx');

const dir = mkdtempSync(join(tmpdir(), 'wg-threads-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const build = (model, name, ...args) => {
  const out = join(dir, name);
  execFileSync(WG, ['compile', model, '-o', out, '--quiet', ...args]);
  return out;
};
const lenet = build(join(ROOT, 'models', 'lenet5-fashion.onnx'), 'lenet.wasm');
const lenetThreads = build(join(ROOT, 'models', 'lenet5-fashion.onnx'), 'lenet-threads.wasm', '--threads', '--max-threads', '3');

const feed = (s, seed) => {
  const t = s.inputs[0];
  return { [t.name]: Float32Array.from({ length: t.size }, (_, i) => ((i * 7919 + seed) % 1000) / 500 - 1) };
};
const bits = (out) => new Uint8Array(Object.values(out)[0].buffer.slice(0));
const isErr = (code, ...parts) => (e) => {
  assert.ok(e instanceof WasmgraphError, `not a WasmgraphError: ${e}`);
  assert.equal(e.code, code, e.message);
  for (const p of parts) assert.ok(e.message.includes(p), `'${e.message}' lacks '${p}'`);
  return true;
};

async function sameBits(one, threaded, n) {
  const a = await load(one);
  const want = bits(a.run(feed(a, 3)));
  a.dispose();
  const s = await load(threaded, { threads: n });
  assert.equal(s.threads, n);
  assert.equal(s.metadata.threads, 3);
  assert.equal(s.metadata.abi, 2);
  for (let r = 0; r < 3; r++) assert.deepEqual(bits(s.run(feed(s, 3))), want, `${n} threads, run ${r + 1}`);
  s.dispose();
}

test('LeNet-5 on 1, 2 and 3 threads: the single-threaded bits', async () => {
  for (const n of [1, 2, 3]) await sameBits(lenet, lenetThreads, n);
});

test('SqueezeNet 1.1 on 1, 2 and 3 threads: the single-threaded bits (both runs)', { skip: !existsSync(SQUEEZE) && 'no ../shared data' }, async () => {
  const one = build(SQUEEZE, 'sq.wasm', '-O3');
  const thr = build(SQUEEZE, 'sq-threads.wasm', '-O3', '--threads', '--max-threads', '3');
  for (const n of [1, 2, 3]) await sameBits(one, thr, n);
});

// A sentence encoder with symbolic batch and seq (tools/make_dynamic_models.py, in the
// model cache when built): the sizes come from the feeds' dims on every thread count.
const ENCODER = join(process.env.WG_MODELS_DIR || join(homedir(), '.cache', 'wasmgraph', 'models'), 'encoder-dyn-ts.onnx');
test('a module with symbolic dims on 1, 2 and 3 threads: the single-threaded bits at each size', { skip: !existsSync(ENCODER) && 'no encoder-dyn-ts.onnx in the model cache' }, async () => {
  const dims = ['--dim', 'batch=1..2', '--dim', 'seq=1..64'];
  const one = await load(build(ENCODER, 'enc.wasm', ...dims));
  const thrFile = build(ENCODER, 'enc-threads.wasm', ...dims, '--threads', '--max-threads', '3');
  const feeds = (batch, seq) => ({
    input_ids: { data: BigInt64Array.from({ length: batch * seq }, (_, i) => BigInt((i * 7919) % 1000)), dims: [batch, seq] },
    attention_mask: { data: BigInt64Array.from({ length: batch * seq }, (_, i) => (i % seq < Math.max(1, seq >> 1) || i < seq ? 1n : 0n)), dims: [batch, seq] },
  });
  const sizes = [[1, 1], [2, 9], [2, 64]];
  const want = sizes.map(([b, q]) => bits(one.run(feeds(b, q))));
  one.dispose();
  for (const n of [1, 2, 3]) {
    const s = await load(thrFile, { threads: n });
    sizes.forEach(([b, q], k) => {
      assert.deepEqual(bits(s.run(feeds(b, q))), want[k], `${n} threads, batch ${b} seq ${q}`);
      assert.deepEqual(s.outputShape(0), [b, q, 128]);
    });
    s.dispose();
  }
});

// A data-dependent output size (x[x > 0]: NonZero, Transpose, GatherND, Relu), built with
// the test venv's onnx: on every thread count the output comes at the size the run
// decided, with the single-threaded module's bits, the empty result included.
const PY = process.env.PYTHON || join(homedir(), '.cache', 'wasmgraph', 'venv', 'bin', 'python');
test('a run-time output size on 1, 2 and 3 threads: the size the run decided, the single-threaded bits', { skip: !existsSync(PY) && 'no test venv python' }, async () => {
  const model = join(dir, 'positives.onnx');
  execFileSync(PY, ['-c', `
import sys, onnx
from onnx import helper, TensorProto as T, numpy_helper
import numpy as np
nodes = [helper.make_node('Greater', ['x', 'zero'], ['m']), helper.make_node('NonZero', ['m'], ['nz']),
         helper.make_node('Transpose', ['nz'], ['ix'], perm=[1, 0]), helper.make_node('GatherND', ['x', 'ix'], ['g']),
         helper.make_node('Relu', ['g'], ['y'])]
g = helper.make_graph(nodes, 'positives', [helper.make_tensor_value_info('x', T.FLOAT, [16])],
                      [helper.make_tensor_value_info('y', T.FLOAT, None)], [numpy_helper.from_array(np.float32(0), 'zero')])
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]); m.ir_version = 8
onnx.save(m, sys.argv[1])`, model]);
  const one = await load(build(model, 'positives.wasm'));
  const thr = build(model, 'positives-threads.wasm', '--threads', '--max-threads', '3');
  const inputs = [Float32Array.from({ length: 16 }, (_, i) => Math.sin(i * 1.7)), new Float32Array(16).fill(-1)];
  const want = inputs.map((x) => one.run({ x }).y);
  one.dispose();
  assert.deepEqual(want.map((y) => y.dims), inputs.map((x) => [x.filter((v) => v > 0).length]));
  assert.equal(want[1].dims[0], 0);
  for (const n of [1, 2, 3]) {
    const s = await load(thr, { threads: n });
    inputs.forEach((x, k) => {
      const y = s.run({ x }).y;
      assert.deepEqual(y.dims, want[k].dims, `${n} threads, input ${k}: dims`);
      assert.deepEqual(new Uint8Array(y.data.buffer.slice(0)), new Uint8Array(want[k].data.buffer.slice(0)), `${n} threads, input ${k}`);
    });
    s.dispose();
  }
});

test('more threads than the module has is an arg error', async () => {
  await assert.rejects(load(lenetThreads, { threads: 4 }), isErr('arg', 'at most 3', '--max-threads'));
  await assert.rejects(load(lenetThreads, { threads: 0 }), isErr('arg', "option 'threads'"));
});

test('without SharedArrayBuffer: a clear error, or one thread when asked', async () => {
  const a = await load(lenet);
  const want = bits(a.run(feed(a, 5)));
  const saved = globalThis.SharedArrayBuffer;
  try {
    delete globalThis.SharedArrayBuffer;
    await assert.rejects(load(lenetThreads, { threads: 2 }), isErr('threads', 'SharedArrayBuffer', 'Cross-Origin-Opener-Policy', 'threadsFallback'));
    const s = await load(lenetThreads, { threads: 2, threadsFallback: true });
    assert.equal(s.threads, 1);
    assert.deepEqual(bits(s.run(feed(s, 5))), want);
    s.dispose();
  } finally {
    globalThis.SharedArrayBuffer = saved;
  }
});

test('many threaded sessions created, run and disposed; one disposed idle', async () => {
  const idle = await load(lenetThreads, { threads: 3 });
  idle.dispose();
  const a = await load(lenet);
  const want = bits(a.run(feed(a, 9)));
  const sessions = await Promise.all(Array.from({ length: 6 }, () => load(lenetThreads, { threads: 2 })));
  for (let r = 0; r < 5; r++) for (const s of sessions) assert.deepEqual(bits(s.run(feed(s, 9))), want);
  for (const s of sessions) s.dispose();
  assert.throws(() => sessions[0].run(feed(sessions[0], 9)), isErr('state', 'disposed'));
});

test('worker mode: a threaded session inside a worker, same bits', async () => {
  const a = await load(lenet);
  const want = bits(a.run(feed(a, 11)));
  const s = await load(lenetThreads, { worker: true, threads: 3 });
  assert.deepEqual(bits(await s.run(feed(a, 11))), want);
  await s.dispose();
});
