// Resident KV caches (docs/abi.md "Resident KV caches") in the JS loader, as the C host's
// tests/unit/test_abi.c (cache_pairs) checks them: v2_cache_ok.wasm's past [p, 4] (p in
// 0..3) and present [t, 4] (t = p + 1) are one pair of capacity 4, wg_cache_mode_ptr() =
// 4400; the session writes the mode before each run and refuses a resident past longer
// than the rows the region holds. The model tests (tests/models.sh section 21b) run real
// decoders both ways.
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
    dir = mkdtempSync(join(tmpdir(), 'wg-cache-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    execFileSync('python3', [join(ROOT, 'tests', 'abi', 'make_fixtures.py'), dir]);
  }
  return join(dir, file);
}

const argError = (pattern) => (e) => e instanceof WasmgraphError && e.code === 'arg' && pattern.test(e.message);

test('a module\'s cache pairs are read and its modes written before each run', async (t) => {
  const s = await load(fixture(t, 'v2_cache_ok.wasm'));
  const mode = () => new Int32Array(s.memory.buffer, 4400, 1)[0];
  assert.deepEqual(s.cachePairs, [{ past: 0, present: 0, axis: 0, capacity: 4 }]);
  assert.equal(s.cacheMode, 'copy');
  s.setDims({ p: 2, t: 3 }); // (setDims derives no sum: t = p + 1 given)
  s.run();
  assert.equal(mode(), 0);
  assert.equal(s.cacheRows, 0);
  assert.throws(() => s.setCacheMode('shared'), argError(/cache mode 'shared' is none of 'copy', 'resident', 'load'/));
  s.setCacheMode('resident');
  assert.throws(() => s.run(), argError(/KV cache 'past': a resident past of 2 rows, but the module's region holds 0/));
  s.setDims({ p: 0, t: 1 });
  s.run();
  assert.equal(mode(), 1);
  assert.equal(s.cacheRows, 1);
  s.setDims({ p: 1, t: 2 });
  s.run();
  assert.equal(s.cacheRows, 2);
  s.setDims({ p: 3, t: 4 });
  assert.throws(() => s.run(), argError(/a resident past of 3 rows, but the module's region holds 2/));
  assert.throws(() => s.setDims({ p: 4 }), argError(/symbol 'p' = 4 is outside its range 0..3/));
  s.setCacheMode('load');
  s.run();
  assert.equal(mode(), 2);
  assert.equal(s.cacheRows, 4);
  s.dispose();
});

test('a module without cache pairs takes the copying mode only', async (t) => {
  const s = await load(fixture(t, 'v2_ok.wasm'));
  assert.deepEqual(s.cachePairs, []);
  s.setCacheMode('copy');
  assert.throws(() => s.setCacheMode('resident'), argError(/the module keeps no KV cache/));
  s.dispose();
});
