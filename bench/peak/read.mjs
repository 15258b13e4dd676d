// bench/peak/read.mjs: the memory-read ceiling of one wasm thread in V8 (bench/peak/read.c):
// GB/s summing 256 MiB, best of 7. Prints one line, or with --json {"read_gbs": N}.
// Needs clang-19 (scripts/setup.sh). Used by bench/generate for the decode rows' bound.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const BYTES = 256 << 20;

export async function readGBs() {
  const out = mkdtempSync(join(tmpdir(), 'wg-read-'));
  try {
    const wasm = join(out, 'read.wasm');
    execFileSync('clang-19', ['--target=wasm32', '-O2', '-msimd128', '-nostdlib', '-Wl,--no-entry',
      '-Wl,--initial-memory=335544320', join(here, 'read.c'), '-o', wasm]);
    const { instance } = await WebAssembly.instantiate(readFileSync(wasm));
    const { read_sum: sum, heap, memory } = instance.exports;
    const p = heap();
    new Float32Array(memory.buffer, p, BYTES / 4).fill(1); // touched: no first-use page faults in the timing
    let best = 0;
    for (let r = 0; r < 7; r++) {
      const t0 = performance.now();
      sum(p, BYTES / 4);
      best = Math.max(best, BYTES / (performance.now() - t0) / 1e6);
    }
    return best;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const gbs = await readGBs();
  if (process.argv.includes('--json')) console.log(JSON.stringify({ read_gbs: gbs }));
  else console.log(`memory read: ${gbs.toFixed(1)} GB/s (sum of 256 MiB, best of 7, one thread, V8)`);
}
