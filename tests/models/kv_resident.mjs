// kv_resident.mjs: the JS loader's side of tests/tools/kv_resident.c: a decoder run step by
// step in two sessions, one copying the presents into the pasts, one with its cache
// resident (setCacheMode('resident'), docs/abi.md "Resident KV caches"), both fed the first
// one's greedy token; every step's logits and presents must be the same bytes, generate()
// must give the same ids both ways, and a resident past beyond the compiled range must be
// refused. Usage: node kv_resident.mjs MODEL.wasm STEPS ID,ID,...
import { load } from '../../js/wasmgraph.mjs';
import { generate } from '../../js/generate.mjs';

const [file, stepsArg, idsArg] = process.argv.slice(2);
const steps = Number(stepsArg), prompt = idsArg.split(',').map(Number);
const a = await load(file), b = await load(file);
b.setCacheMode('resident');
const idx = (name) => a.inputs.findIndex((t) => t.name === name);
const ids = idx('input_ids'), mask = idx('attention_mask'), pos = idx('position_ids');
const logits = a.outputs.findIndex((t) => t.name === 'logits');
const pairs = a.cachePairs;
if (!pairs.length || pairs.length + 1 + (mask >= 0) + (pos >= 0) !== a.inputs.length) throw new Error(`${file}: not a decoder whose every past is a cache pair`);
const put = (s, i, values) => {
  const v = s.input(i);
  values.forEach((x, k) => { v[k] = v instanceof BigInt64Array ? BigInt(x) : x; });
};
const sym = (t, k) => t.dims[k];

function step(s, tokens, past, copy) {
  const dims = {};
  dims[sym(s.inputs[ids], 0)] = 1;
  dims[sym(s.inputs[ids], 1)] = tokens.length;
  if (mask >= 0) dims[sym(s.inputs[mask], 1)] = past + tokens.length;
  for (const p of pairs) dims[sym(s.inputs[p.past], p.axis)] = past;
  const presents = copy && past ? pairs.map((p) => s.output(p.present).slice(0, s.outputShape(p.present).reduce((x, y) => x * y, 1))) : [];
  s.setDims(dims);
  put(s, ids, tokens);
  if (mask >= 0) put(s, mask, new Array(past + tokens.length).fill(1));
  if (pos >= 0) put(s, pos, tokens.map((_, k) => past + k));
  presents.forEach((x, j) => s.input(pairs[j].past).set(x));
  s.run();
}

const same = (s, t, o) => {
  const n = s.outputShape(o).reduce((x, y) => x * y, 1);
  const x = s.output(o).subarray(0, n), y = t.output(o).subarray(0, n);
  return Buffer.compare(Buffer.from(x.buffer, x.byteOffset, x.byteLength), Buffer.from(y.buffer, y.byteOffset, y.byteLength)) === 0;
};

let past = 0, tokens = prompt;
for (let k = 0; k < steps; k++) {
  step(a, tokens, past, true);
  step(b, tokens, past, false);
  if (!same(a, b, logits)) throw new Error(`${file}: step ${k} (past ${past}): the resident logits differ`);
  pairs.forEach((p, j) => { if (!same(a, b, p.present)) throw new Error(`${file}: step ${k}: the resident present ${j} differs`); });
  const [, seq, vocab] = a.outputShape(logits);
  const row = a.output(logits).subarray((seq - 1) * vocab, seq * vocab);
  let best = 0;
  for (let v = 1; v < vocab; v++) if (row[v] > row[best]) best = v;
  past += tokens.length;
  tokens = [best];
}
const g1 = await generate(a, prompt, { maxNewTokens: steps, stopIds: [], copyCache: true });
const g2 = await generate(b, prompt, { maxNewTokens: steps, stopIds: [] });
if (g1.join() !== g2.join()) throw new Error(`${file}: generate(): ${g2} resident, ${g1} copying`);
const beyond = a.metadata.symbols.find((y) => y.name === sym(a.inputs[pairs[0].past], pairs[0].axis)).max + 1;
let refused = 'NOT REFUSED';
try { step(b, tokens, beyond, false); } catch (e) { refused = e.code === 'arg' ? e.message : `${e.code}: ${e.message}`; }
console.log(`${file}: ${steps} steps, logits and presents identical in both modes, generate() the same ids; a past of ${beyond}: ${refused}`);
if (refused === 'NOT REFUSED') process.exit(1);
