// bench/generate-engine.mjs: one engine's greedy generation on a decoder, timed, for
// bench/generate (each engine in its own process), after an untimed one of 2 tokens from
// the same prompt (a session's first-run costs left out). Prints one JSON line:
// { "ids": [...], "ms": [...] } (each run's milliseconds, the prompt's first).
//
//   node bench/generate-engine.mjs ENGINE MODEL --prompt-ids ID,... --tokens N [--threads T] [--dim NAME=N]...
//        [--encoder ENCODER --input-features FILE]
//   ENGINE: v8-wasmgraph (MODEL.wasm through js/generate.mjs), ort-web (onnxruntime-web's
//   wasm backend), ort-node (onnxruntime-node, CPU); MODEL the .wasm or the .onnx. With an
//   encoder (its .wasm or .onnx) and its input file (.npy or .pb), MODEL is an
//   encoder-decoder's merged decoder and the prompt ids its forced ids; the first time
//   is then the encoder's run and the decoder's first.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const requireTools = createRequire(join(ROOT, 'tools', 'package.json'));
const { ortGenerate } = requireTools('./ort_generate.js');
const { readTensorFile } = requireTools('./tensor_pb.js');

function parse(argv) {
  const a = { engine: argv[0], model: argv[1], prompt: [], tokens: 1, threads: 1, dims: {}, encoder: null, features: null };
  for (let i = 2; i < argv.length; i++) {
    const v = argv[++i];
    if (argv[i - 1] === '--prompt-ids') a.prompt = v.split(',').map(Number);
    else if (argv[i - 1] === '--tokens') a.tokens = Number(v);
    else if (argv[i - 1] === '--threads') a.threads = Number(v);
    else if (argv[i - 1] === '--dim') { const [n, x] = v.split('='); a.dims[n] = Number(x); }
    else if (argv[i - 1] === '--encoder') a.encoder = v;
    else if (argv[i - 1] === '--input-features') a.features = readTensorFile(v);
    else throw new Error(`unknown argument ${argv[i - 1]}`);
  }
  return a;
}

async function wasmgraph(a) {
  const { load, generate } = await import(join(ROOT, 'js', 'wasmgraph.mjs'));
  const opts = a.threads > 1 ? { threads: a.threads } : {};
  const s = await load(a.model, opts);
  const seq2seq = a.encoder ? { encoder: await load(a.encoder, opts), inputFeatures: { data: a.features.data, dims: a.features.dims } } : {};
  await generate(s, a.prompt, { maxNewTokens: Math.min(2, a.tokens), ...seq2seq });
  const ms = [];
  let t = performance.now();
  const ids = await generate(s, a.prompt, {
    ...seq2seq,
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
  const create = (file) => ort.InferenceSession.create(readFileSync(file), { executionProviders: ['wasm'] });
  return ortTimed(ort, await create(a.model), a.encoder && await create(a.encoder), a);
}

// ortGenerate after an untimed run of 2 tokens; with an encoder session, its run on the
// input features first, its time added to the first run's.
async function ortTimed(ort, session, encoder, a) {
  const encode = async () => {
    if (!encoder) return { states: null, ms: 0 };
    const t0 = performance.now();
    const f = a.features, out = await encoder.run({ [encoder.inputNames[0]]: new ort.Tensor(f.dtype, f.data, f.dims) });
    return { states: out.last_hidden_state || out[encoder.outputNames[0]], ms: performance.now() - t0 };
  };
  const warm = await encode();
  await ortGenerate(ort, session, { prompt: a.prompt, max: Math.min(2, a.tokens), dims: a.dims, states: warm.states });
  const e = await encode();
  const r = await ortGenerate(ort, session, { prompt: a.prompt, max: a.tokens, dims: a.dims, states: e.states });
  r.ms[0] += e.ms;
  return r;
}

async function ortNode(a) {
  const ort = requireTools('onnxruntime-node');
  const create = (file) => ort.InferenceSession.create(file, { intraOpNumThreads: a.threads, interOpNumThreads: 1 });
  return ortTimed(ort, await create(a.model), a.encoder && await create(a.encoder), a);
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
