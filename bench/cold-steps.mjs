// cold-steps.mjs: where a cold first run in V8 spends its time, step by step
// (wg_run_step). Three runs in one process: (1) the first, on fresh code and fresh
// memory; (2) a new session: tiered-up code, fresh memory; (3) that session again.
// (1) - (2) is the code's tier-up, (2) - (3) the first touches of memory and the
// once-only work (Winograd filter transforms). The weights are read before each timing.
//
//   node bench/cold-steps.mjs MODEL.wasm [TOP=15]
import { compile } from '../js/wasmgraph.mjs';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/cold-steps.mjs MODEL.wasm [TOP]');
  process.exit(2);
}
const top = Number(topArg || 15);
const t0 = performance.now();
const model = await compile(file);
const t1 = performance.now();

async function timedRun(session) {
  const n = session.exports.wg_run_steps();
  const ms = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const s = performance.now();
    const st = session.exports.wg_run_step(k);
    ms[k] = performance.now() - s;
    if (st !== 0) throw new Error(`step ${k}: status ${st}`);
  }
  return ms;
}

const c0 = performance.now();
const a = await model.createSession();
const c1 = performance.now();
const first = await timedRun(a);
const b = await model.createSession();
const fresh = await timedRun(b);
const warm = await timedRun(b);
const sum = (v) => v.reduce((x, y) => x + y, 0);
console.log(`compile ${(t1 - t0).toFixed(1)} ms, session + weights ${(c1 - c0).toFixed(1)} ms`);
console.log(`runs: first ${sum(first).toFixed(1)}, fresh memory ${sum(fresh).toFixed(1)}, warm ${sum(warm).toFixed(1)} ms`);
const names = model.metadata.profile || [];
const rows = [...first.keys()].map((k) => ({ k, f: first[k], m: fresh[k], w: warm[k] }));
rows.sort((x, y) => (y.f - y.w) - (x.f - x.w));
console.log(`step  first  fresh   warm${names.length ? '  node (a --profile build names its steps)' : ''}`);
for (const r of rows.slice(0, top)) {
  const nm = names[r.k] ? `  ${names[r.k].name || JSON.stringify(names[r.k])}` : '';
  console.log(`${String(r.k).padStart(4)} ${r.f.toFixed(1).padStart(6)} ${r.m.toFixed(1).padStart(6)} ${r.w.toFixed(1).padStart(6)}${nm}`);
}
