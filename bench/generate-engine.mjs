// bench/generate-engine.mjs: one engine's greedy generation on a decoder, timed, for
// bench/generate (each engine in its own process), after an untimed one of 2 tokens from
// the same prompt (a session's first-run costs left out). Prints one JSON line:
// { "ids": [...], "ms": [...] } (each run's milliseconds, the prompt's first).
//
//   node bench/generate-engine.mjs ENGINE MODEL --prompt-ids ID,... --tokens N [--threads T] [--dim NAME=N]...
//   ENGINE: v8-wasmgraph (MODEL.wasm through js/generate.mjs), ort-web (onnxruntime-web's
//   wasm backend), ort-node (onnxruntime-node, CPU); MODEL the .wasm or the .onnx.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const requireTools = createRequire(join(ROOT, 'tools', 'package.json'));
const { ortGenerate } = requireTools('./ort_generate.js');

function parse(argv) {
  const a = { engine: argv[0], model: argv[1], prompt: [], tokens: 1, threads: 1, dims: {} };
  for (let i = 2; i < argv.length; i++) {
    const v = argv[++i];
    if (argv[i - 1] === '--prompt-ids') a.prompt = v.split(',').map(Number);
    else if (argv[i - 1] === '--tokens') a.tokens = Number(v);
    else if (argv[i - 1] === '--threads') a.threads = Number(v);
    else if (argv[i - 1] === '--dim') { const [n, x] = v.split('='); a.dims[n] = Number(x); }
    else throw new Error(`unknown argument ${argv[i - 1]}`);
  }
  return a;
}

async function wasmgraph(a) {
  const { load, generate } = await import(join(ROOT, 'js', 'wasmgraph.mjs'));
  const s = await load(a.model, a.threads > 1 ? { threads: a.threads } : {});
  await generate(s, a.prompt, { maxNewTokens: Math.min(2, a.tokens) });
  const ms = [];
  let t = performance.now();
  const ids = await generate(s, a.prompt, {
    maxNewTokens: a.tokens,
    onToken: () => { const now = performance.now(); ms.push(now - t); t = now; },
  });
  return { ids, ms };
}

async function ortWeb(a) {
  const entry = requireTools.resolve('onnxruntime-web');
  const ort = await import(entry);
  ort.env.wasm.numThreads = a.threads;
  ort.env.wasm.wasmPaths = dirname(entry) + '/'; // the local package's binaries, never the network
  const session = await ort.InferenceSession.create(readFileSync(a.model), { executionProviders: ['wasm'] });
  await ortGenerate(ort, session, { prompt: a.prompt, max: Math.min(2, a.tokens), dims: a.dims });
  return ortGenerate(ort, session, { prompt: a.prompt, max: a.tokens, dims: a.dims });
}

async function ortNode(a) {
  const ort = requireTools('onnxruntime-node');
  const session = await ort.InferenceSession.create(a.model, { intraOpNumThreads: a.threads, interOpNumThreads: 1 });
  await ortGenerate(ort, session, { prompt: a.prompt, max: Math.min(2, a.tokens), dims: a.dims });
  return ortGenerate(ort, session, { prompt: a.prompt, max: a.tokens, dims: a.dims });
}

const ENGINES = { 'v8-wasmgraph': wasmgraph, 'ort-web': ortWeb, 'ort-node': ortNode };
const a = parse(process.argv.slice(2));
if (!ENGINES[a.engine]) {
  console.error(`generate-engine: unknown engine ${a.engine} (${Object.keys(ENGINES).join(', ')})`);
  process.exit(2);
}
try {
  console.log(JSON.stringify(await ENGINES[a.engine](a)));
  process.exit(0); // ort-web's worker threads would keep the process alive
} catch (e) {
  console.log(JSON.stringify({ error: e.message }));
  process.exit(1);
}
