// test_memory.mjs: 100 sessions created, run and disposed in Node leave resident memory
// where it started (within 10%), measured after full collections (memory_probe.mjs,
// node --expose-gc), even though the Session objects are all still referenced; without
// dispose() the same probe must see the memory stay (so the measure can fail).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WG = join(ROOT, process.env.BUILD || 'build', 'bin', 'wasmgraph');
const SQUEEZE = join(ROOT, '..', 'shared', 'data', 'squeezenet1.1-caffe2', 'squeezenet1.1_bgr_fp32_from_fp16.onnx');
const PROBE = join(ROOT, 'tests', 'js', 'memory_probe.mjs');

test('100 disposed sessions leave Node\'s memory within 10% of where it started', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wg-mem-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const wasm = join(dir, 'model.wasm');
  // SqueezeNet (several MiB of memory per session) when the shared data is here, else LeNet.
  const onnx = existsSync(SQUEEZE) ? SQUEEZE : join(ROOT, 'models', 'lenet5-fashion.onnx');
  execFileSync(WG, ['compile', onnx, '-o', wasm, '--quiet']);
  const probe = (n, ...extra) => JSON.parse(execFileSync(process.execPath, ['--expose-gc', PROBE, wasm, String(n), ...extra], { encoding: 'utf8' }));
  const r = probe(100);
  const mib = (b) => (b / 1048576).toFixed(1);
  t.diagnostic(`disposed: RSS ${mib(r.before)} MiB before, ${mib(r.peak)} peak, ${mib(r.after)} after 100 sessions of ${mib(r.memoryBytes)} MiB memory`);
  assert.equal(r.sessions, 100);
  assert.ok(r.after <= r.before * 1.1, `RSS grew from ${mib(r.before)} to ${mib(r.after)} MiB`);
  const kept = probe(20, '--no-dispose'); // 20 are enough to see, and spare the machine
  t.diagnostic(`20 not disposed (Sessions kept): RSS ${mib(kept.before)} MiB before, ${mib(kept.after)} after`);
  assert.ok(kept.after > kept.before * 1.1, 'without dispose() the kept sessions hold their memory: the measure sees it');
});
