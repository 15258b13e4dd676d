// first-run.mjs: session creation + first run in V8 (js/wasmgraph.mjs), weights streamed
// under the first run (streamWeights) against read first, alternating in one process so
// that both see the machine's same phases. The module is compiled once (its code is
// tiered up after the warm-up runs); each session gets fresh memory, so what differs is
// the weight reads and the first touches of memory.
//
//   node --expose-gc bench/first-run.mjs MODEL.wasm [PAIRS=6] [PIECE_BYTES]
import { compile } from '../js/wasmgraph.mjs';

const [file, pairsArg, pieceArg] = process.argv.slice(2);
if (!file || typeof global.gc !== 'function') {
  console.error('usage: node --expose-gc bench/first-run.mjs MODEL.wasm [PAIRS] [PIECE_BYTES]');
  process.exit(2);
}
const pairs = Number(pairsArg || 6), pieceBytes = pieceArg ? Number(pieceArg) : undefined;
const model = await compile(file);
{
  const s = await model.createSession();
  s.run();
  s.run();
}
const ms = { read: [], streamed: [] };
for (let i = 0; i < 2 * pairs; i++) {
  const mode = (i ^ (i >> 1)) & 1 ? 'streamed' : 'read'; // read streamed streamed read ...
  global.gc();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const t0 = performance.now();
  const s = await model.createSession({ streamWeights: mode === 'streamed', pieceBytes });
  if (mode === 'streamed') await s.runAsync();
  else s.run();
  ms[mode].push(performance.now() - t0);
  await s.ready;
}
for (const [mode, v] of Object.entries(ms)) {
  v.sort((a, b) => a - b);
  console.log(`${mode.padEnd(8)} ms: ${v.map((x) => x.toFixed(0)).join(' ')}`);
}
