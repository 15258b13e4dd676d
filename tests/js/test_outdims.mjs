// Data-dependent output dims (module ABI 2, docs/abi.md "Run-time output dims") in the JS
// loader: an output with a {"max": N} dim is marked bounded, run(feeds) returns it as
// { data, dims } at the size wg_output_dims_ptr reports, outputShape gives that size, and
// a module reporting more than the bound is an 'abi' error. Uses the ABI fixtures
// v2_outdims_ok.wasm / v2_outdims_over.wasm (tests/abi/make_fixtures.py: y of [1, {"max": 4}]
// float32 reported as [1, 3] / [1, 5]; wg_run computes nothing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, WasmgraphError } from '../../js/wasmgraph.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function fixture(t, file) {
  let dir = process.env.WG_ABI_FIXTURES;
  if (!dir) {
    dir = mkdtempSync(join(tmpdir(), 'wg-outdims-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    execFileSync('python3', [join(ROOT, 'tests', 'abi', 'make_fixtures.py'), dir]);
  }
  return readFileSync(join(dir, file));
}

test('a data-dependent output comes as { data, dims } at the reported size', async (t) => {
  const s = await load(fixture(t, 'v2_outdims_ok.wasm'));
  const y = s.model.outputs[0];
  assert.equal(y.bounded, true);
  assert.deepEqual(y.dims, [1, { max: 4 }]);
  assert.deepEqual(y.shape, [1, 4]);
  assert.deepEqual(s.outputShape(0), [1, 4]); // before a run: the bound
  const out = s.run({ x: new Float32Array(4) });
  assert.deepEqual(out.y.dims, [1, 3]);
  assert.ok(out.y.data instanceof Float32Array);
  assert.equal(out.y.data.length, 3);
  assert.deepEqual(s.outputShape(0), [1, 3]);
});

test('a module reporting dims past the bound is refused, not read', async (t) => {
  const s = await load(fixture(t, 'v2_outdims_over.wasm'));
  assert.throws(() => s.run({ x: new Float32Array(4) }),
    (e) => e instanceof WasmgraphError && e.code === 'abi' &&
      /output 'y' dimension 1 is 5 after the run \(wg_output_dims_ptr\), but the metadata bounds it at 4/.test(e.message));
});

test('worker mode returns a data-dependent output as { data, dims } too', async (t) => {
  const s = await load(fixture(t, 'v2_outdims_ok.wasm'), { worker: true });
  t.after(() => s.dispose());
  const out = await s.run({ x: new Float32Array(4) });
  assert.deepEqual(out.y.dims, [1, 3]);
  assert.ok(out.y.data instanceof Float32Array);
  assert.equal(out.y.data.length, 3);
});
