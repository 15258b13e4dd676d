// memory_probe.mjs MODEL.wasm [N] [--no-dispose]: run with `node --expose-gc`. Creates N
// (100) sessions of MODEL one after another, runs each once, disposes it and keeps the
// Session object (as an application that holds on to it would), then prints JSON
// { before, peak, after, memoryBytes } in bytes of resident memory (RSS): before = after
// one warm-up session and a full collection, after = after the N and a full collection.
// --no-dispose skips dispose(): the check that the measure sees the difference.
import { compile } from '../../js/wasmgraph.mjs';

const [file, n = '100', flag] = process.argv.slice(2);
if (typeof gc !== 'function') throw new Error('run with node --expose-gc');
const dispose = flag !== '--no-dispose';

/* A full collection, twice with a turn of the event loop between: V8 frees a wasm
 * memory's pages when its backing store is released after the collection. */
async function settledRss() {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  return process.memoryUsage().rss;
}

const m = await compile(file);
const feeds = Object.fromEntries(m.inputs.map((t) => [t.name, new (t.dtype === 'float32' ? Float32Array : Uint8Array)(t.size)]));
const warm = await m.createSession();
warm.run(feeds);
warm.dispose();
const before = await settledRss();
const kept = [];
let peak = before;
for (let i = 0; i < Number(n); i++) {
  const s = await m.createSession();
  s.run(feeds);
  if (dispose) s.dispose();
  kept.push(s);
  peak = Math.max(peak, process.memoryUsage().rss);
}
const after = await settledRss();
console.log(JSON.stringify({ before, peak, after, sessions: kept.length, memoryBytes: m.metadata.memory_bytes }));
