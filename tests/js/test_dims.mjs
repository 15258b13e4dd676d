// Symbolic dimensions (module ABI 2, docs/abi.md "Version 2") in the JS loader: run(feeds)
// takes the sizes from the feeds' dims, writes them where wg_dims_ptr() says, refuses sizes
// out of range or inputs that disagree before anything runs; setDims and outputShape.
// Uses the ABI fixture v2_ok.wasm (tests/abi/make_fixtures.py: symbol n in 1..4, x and y
// of [n, 4] float32, wg_dims_ptr() = 4096, wg_run returns 0 and computes nothing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, WasmgraphError } from '../../js/wasmgraph.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function fixture(t, file) {
  let dir = process.env.WG_ABI_FIXTURES;
  if (!dir) {
    dir = mkdtempSync(join(tmpdir(), 'wg-dims-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    execFileSync('python3', [join(ROOT, 'tests', 'abi', 'make_fixtures.py'), dir]);
  }
  return join(dir, file);
}

const dimsAt = (s) => new Int32Array(s.memory.buffer, 4096, 1)[0];
const argError = (pattern) => (e) => e instanceof WasmgraphError && e.code === 'arg' && pattern.test(e.message);

test('the metadata\'s symbols and symbolic dims are read', async (t) => {
  const s = await load(fixture(t, 'v2_ok.wasm'));
  assert.deepEqual(s.metadata.symbols, [{ name: 'n', min: 1, max: 4, step: 1 }]); // step: every integer
  assert.deepEqual(s.inputs[0].dims, ['n', 4]);
  assert.deepEqual(s.inputs[0].shape, [4, 4]);
  assert.deepEqual(s.outputShape(0), [4, 4]); // nothing given yet: the maxima
});

test('a symbol with a step takes its multiples only', async (t) => {
  const s = await load(fixture(t, 'v2_step_ok.wasm'));
  assert.deepEqual(s.metadata.symbols, [{ name: 'n', min: 2, max: 4, step: 2 }]);
  assert.throws(() => s.setDims({ n: 3 }), argError(/symbol 'n' = 3 is outside its range 2\.\.4 in steps of 2/));
  s.setDims({ n: 2 });
  assert.deepEqual(s.outputShape(0), [2, 4]);
  s.dispose();
});

test('a symbol from 0 takes inputs of zero elements and gives outputs of zero', async (t) => {
  const s = await load(fixture(t, 'v2_zero_ok.wasm'));
  assert.deepEqual(s.metadata.symbols, [{ name: 'n', min: 0, max: 4, step: 1 }]);
  const out = s.run({ x: { data: new Float32Array(0), dims: [0, 4] } });
  assert.equal(dimsAt(s), 0);
  assert.deepEqual(s.outputShape('y'), [0, 4]);
  assert.equal(out.y.length, 0);
  s.dispose();
});

test('run(feeds) takes the sizes from the dims and writes them into wg_dims', async (t) => {
  const s = await load(fixture(t, 'v2_ok.wasm'));
  const out = s.run({ x: { data: new Float32Array(8), dims: [2, 4] } });
  assert.equal(dimsAt(s), 2);
  assert.deepEqual(s.outputShape('y'), [2, 4]);
  assert.equal(out.y.length, 8); // the output at its actual size
  s.setDims({ n: 3 });
  s.run();
  assert.equal(dimsAt(s), 3);
});

test('sizes out of range, fixed dims that differ and missing dims are refused before running', async (t) => {
  const s = await load(fixture(t, 'v2_ok.wasm'));
  s.run({ x: { data: new Float32Array(4), dims: [1, 4] } });
  assert.throws(() => s.run({ x: { data: new Float32Array(20), dims: [5, 4] } }),
    argError(/symbol 'n' = 5 is outside its range 1\.\.4/));
  assert.throws(() => s.run({ x: { data: new Float32Array(6), dims: [2, 3] } }),
    argError(/dimension 1 is 3, the model fixes it at 4/));
  assert.throws(() => s.run({ x: new Float32Array(8) }), argError(/give it as \{ data, dims \}/));
  assert.throws(() => s.run({ x: { data: new Float32Array(7), dims: [2, 4] } }), argError(/hold 8 elements/));
  assert.throws(() => s.setDims({ n: 0 }), argError(/outside its range/));
  assert.throws(() => s.setDims({ m: 1 }), argError(/no symbolic dimension 'm'/));
  assert.equal(dimsAt(s), 1); // the refused runs wrote nothing
});

// Empty inputs (docs/abi.md "Empty inputs"): v2_empty_ok.wasm's x and e are [n, 4], n in
// 0..4, e may be given empty (wg_input_empty_ptr() = 4352); its wg_run returns 18 when e is
// flagged empty and x[0] != 0 (the branch that reads e).
test('an input that may be empty is given empty along a symbol another input gives', async (t) => {
  const s = await load(fixture(t, 'v2_empty_ok.wasm'));
  assert.equal(s.inputs[1].mayBeEmpty, true);
  assert.equal(s.inputs[0].mayBeEmpty, undefined);
  const flags = () => Array.from(new Int32Array(s.memory.buffer, 4352, 2));
  const x = (first, n = 2) => ({ data: new Float32Array(4 * n).fill(first, 0, 1), dims: [n, 4] });
  const none = { data: new Float32Array(0), dims: [0, 4] };
  s.run({ x: x(0), e: none });
  assert.equal(dimsAt(s), 2);
  assert.deepEqual(flags(), [0, 1]);
  assert.deepEqual(s.outputShape('y'), [2, 4]);
  assert.throws(() => s.run({ x: x(1), e: none }), (e) => e instanceof WasmgraphError && e.code === 'status' &&
    e.message.includes("status 18 (WGK_ERR_EMPTY_INPUT: ") && e.message.includes("; given empty: 'e')"));
  assert.throws(() => s.run({ x: x(0), e: x(0, 3) }), argError(/input 'e' has n = 3 \(dimension 0\), but input 'x' gives 2/));
  assert.throws(() => s.run({ x: none, e: x(0) }),
    argError(/input 'e' has n = 2 \(dimension 0\), but input 'x' gives 0 \(input 'x' may not be empty: the model reads it outside If branches and loop bodies\)/));
  s.run({ x: none, e: none });
  assert.equal(dimsAt(s), 0);
  assert.deepEqual(flags(), [0, 0]);
  s.run({ x: x(1), e: x(0) });
  assert.deepEqual(flags(), [0, 0]);
  s.dispose();
});
