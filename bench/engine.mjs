// engine.mjs: one benchmark engine in its own process, driven by bench/run.
//
//   node bench/engine.mjs ENGINE MODEL [--threads N] [--shape NAME=1x3x224x224]...
//   ENGINE: v8-wasmgraph (MODEL.wasm through js/wasmgraph.mjs), ort-web (onnxruntime-web,
//           wasm SIMD backend, local dist files), ort-node (onnxruntime-node, native CPU)
// A module built with --relaxed-simd needs V8 to accept relaxed SIMD: Node 20 only does
// when started with --experimental-wasm-relaxed-simd, which bench/run adds when its probe
// shows the flag is needed (node flags cannot be set from inside the process).
//
// Speaks the protocol of `wasmgraph bench --serve` (src/cli/cmd_bench.c): after loading
// and one first run it prints {"ready":true,"cold_ms":...}; then, per stdin line,
// `warm MS` -> {"runs":N,"ms":T}, `run N` -> {"lat":[ms,...]}, `quit` ends.
// Inputs are deterministic pseudo-random values (floats in [-1, 1)).
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const requireTools = createRequire(join(ROOT, 'tools', 'package.json'));

function say(obj) { process.stdout.write(JSON.stringify(obj) + '\n'); }
function die(msg) { say({ error: msg }); process.exit(1); }

function parseArgs(argv) {
  const a = { engine: argv[0], model: argv[1], threads: 1, shapes: {} };
  for (let i = 2; i < argv.length; i++) {
    if (argv[i] === '--threads') a.threads = Number(argv[++i]);
    else if (argv[i] === '--shape') {
      const [n, d] = String(argv[++i]).split('=');
      a.shapes[n] = d.split('x').map(Number);
    } else die(`engine.mjs: unknown argument ${argv[i]}`);
  }
  if (!a.engine || !a.model) die('usage: engine.mjs ENGINE MODEL [--threads N] [--shape NAME=DIMS]');
  if (!Number.isInteger(a.threads) || a.threads < 1) die('engine.mjs: --threads needs an integer >= 1');
  return a;
}

// xorshift64* in BigInt would be slow for 10^6 values: a 32-bit xorshift is plenty here.
// Integers are 1, as `wasmgraph bench` fills them (src/cli/cmd_bench.c, fill_input): an
// index in range for any table of two or more rows, a mask that keeps every position.
function fillRandom(arr, seed = 0x9e3779b9) {
  let s = seed >>> 0;
  for (let i = 0; i < arr.length; i++) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    const u = s / 4294967296 * 2 - 1;
    if (arr instanceof BigInt64Array || arr instanceof BigUint64Array) arr[i] = 1n;
    else if (arr instanceof Float32Array || arr instanceof Float64Array) arr[i] = u;
    else arr[i] = 1;
  }
  return arr;
}

// Each engine: setup() -> runOnce (async or sync), timed around first result.
// The weights are streamed (js/README.md): the first run starts while they are read.
async function setupWasmgraph(a) {
  const { load } = await import(join(ROOT, 'js', 'wasmgraph.mjs'));
  /* --threads N: a threaded build (compile --threads) on N threads (js/threads.mjs). */
  const s = await load(a.model, a.threads > 1 ? { threads: a.threads } : { streamWeights: true });
  for (let i = 0; i < s.inputs.length; i++) fillRandom(s.input(i));
  let first = true;
  return () => {
    if (!first) return s.run();
    first = false;
    return s.runAsync();
  };
}

const TYPED = { float32: Float32Array, float64: Float64Array, int64: BigInt64Array, int32: Int32Array, uint8: Uint8Array, int8: Int8Array, bool: Uint8Array };

async function ortFeeds(ort, session, a) {
  const feeds = {};
  const meta = session.inputMetadata || [];
  session.inputNames.forEach((name, k) => {
    const m = meta[k] || {};
    const shape = a.shapes[name] || (m.shape || []).map((d) => (typeof d === 'number' && d > 0 ? d : 1));
    const type = m.type || 'float32';
    const Arr = TYPED[type];
    if (!Arr) die(`${a.model}: input '${name}' has type ${type}, which the bench cannot fill`);
    const n = shape.reduce((x, y) => x * y, 1);
    feeds[name] = new ort.Tensor(type, fillRandom(new Arr(n)), shape);
  });
  return feeds;
}

async function setupOrtWeb(a) {
  const entry = requireTools.resolve('onnxruntime-web'); // .../onnxruntime-web/dist/ort.node.min.js
  const ort = await import(entry);
  ort.env.wasm.numThreads = a.threads;
  // The wasm binaries come from the local package, never from the network.
  ort.env.wasm.wasmPaths = dirname(entry) + '/';
  const session = await ort.InferenceSession.create(readFileSync(a.model), { executionProviders: ['wasm'] });
  const feeds = await ortFeeds(ort, session, a);
  return () => session.run(feeds);
}

async function setupOrtNode(a) {
  const ort = requireTools('onnxruntime-node');
  const session = await ort.InferenceSession.create(a.model, {
    executionProviders: ['cpu'], intraOpNumThreads: a.threads, interOpNumThreads: 1,
  });
  const feeds = await ortFeeds(ort, session, a);
  return () => session.run(feeds);
}

const ENGINES = { 'v8-wasmgraph': setupWasmgraph, 'ort-web': setupOrtWeb, 'ort-node': setupOrtNode };

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const setup = ENGINES[a.engine];
  if (!setup) die(`engine.mjs: unknown engine '${a.engine}' (${Object.keys(ENGINES).join(', ')})`);
  let runOnce;
  const t0 = performance.now();
  try {
    runOnce = await setup(a);
  } catch (e) {
    die(`${a.engine}: ${a.model}: ${e.message}`);
  }
  const t1 = performance.now();
  try {
    await runOnce();
  } catch (e) {
    die(`${a.engine}: first run: ${e.message}`);
  }
  const t2 = performance.now();
  say({ ready: true, load_ms: t1 - t0, first_run_ms: t2 - t1, cold_ms: t2 - t0 });

  const rl = createInterface({ input: process.stdin });
  for await (const line of rl) {
    const [cmd, arg] = line.trim().split(/\s+/);
    const n = Number(arg);
    try {
      if (cmd === 'quit') break;
      if (cmd === 'warm' && n >= 0) {
        const w0 = performance.now();
        let runs = 0, t = w0;
        while (t - w0 < n) { await runOnce(); runs++; t = performance.now(); }
        say({ runs, ms: t - w0 });
      } else if (cmd === 'run' && Number.isInteger(n) && n >= 0) {
        const lat = [];
        for (let k = 0; k < n; k++) {
          const r0 = performance.now();
          await runOnce();
          lat.push(performance.now() - r0);
        }
        say({ lat });
      } else {
        say({ error: 'unknown command or bad count (warm MS | run N | quit)' });
      }
    } catch (e) {
      die(`${a.engine}: run: ${e.message}`);
    }
  }
  process.exit(0); // ort-web's worker threads would keep the process alive
}

main();
