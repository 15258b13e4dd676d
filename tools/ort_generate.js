#!/usr/bin/env node
// Greedy generation with onnxruntime-node (CPU), the reference for `wasmgraph generate`:
// the same loop as src/host/generate.c over a decoder file (input_ids, optionally
// attention_mask and position_ids, past_key_values.* -> logits, present.*): the prompt
// with an empty past, then one token a run, each run's presents the next run's pasts,
// batch 1, the first largest logit. Prints the new ids on one line, space-separated.
//
//   node tools/ort_generate.js MODEL.onnx --prompt-ids 1,2,3 [--max-new-tokens 20]
//        [--stop-ids ID,...] [--dim NAME=N]...
//   node tools/ort_generate.js DECODER.onnx --encoder ENCODER.onnx --input-features FILE
//        --forced-ids 50258,50259,50359,50363 [--max-new-tokens 20] [--stop-ids ID,...]
//
// The second form is an encoder-decoder's (Whisper, as transformers.js runs it): the
// encoder once on FILE (.npy or .pb), then the merged decoder from the forced ids with
// use_cache_branch false and every past empty, then one token a run with
// use_cache_branch true, the decoder's presents fed back and the first run's encoder
// presents as the encoder pasts from then on.
//
// A past's symbolic dims: batch 1, one whose name has "past" 0, others from --dim (the
// genai builder's kv_cache_dim, the head size).
'use strict';

function usage(msg) {
  console.error(`ort_generate: ${msg}`);
  console.error('usage: node tools/ort_generate.js MODEL.onnx --prompt-ids ID,... [--max-new-tokens N] [--stop-ids ID,...]');
  process.exit(2);
}

function parseArgs(argv) {
  const a = { model: null, prompt: null, max: 20, stops: [], dims: {}, encoder: null, features: null };
  const ids = (s) => s.split(',').map((x) => { if (!/^\d+$/.test(x)) usage(`bad id '${x}'`); return Number(x); });
  for (let i = 0; i < argv.length; i++) {
    const s = argv[i];
    const next = () => { if (i + 1 >= argv.length) usage(`${s} needs a value`); return argv[++i]; };
    if (s === '--prompt-ids' || s === '--forced-ids') a.prompt = ids(next());
    else if (s === '--encoder') a.encoder = next();
    else if (s === '--input-features') a.features = next();
    else if (s === '--stop-ids') a.stops = ids(next());
    else if (s === '--max-new-tokens') a.max = Number(next());
    else if (s === '--dim') { const [n, v] = next().split('='); a.dims[n] = Number(v); }
    else if (s.startsWith('-')) usage(`unknown option ${s}`);
    else a.model = s;
  }
  if (!a.model || !a.prompt || !a.prompt.length) usage('a model and --prompt-ids (--forced-ids) are needed');
  if (!a.encoder !== !a.features) usage('--encoder and --input-features go together');
  return a;
}

const INTS = { int64: (v) => BigInt64Array.from(v.map(BigInt)), int32: (v) => Int32Array.from(v) };
const EMPTY = { float32: Float32Array, float16: Uint16Array };

// An empty past: the metadata's dims, batch 1, its symbolic length 0 (an encoder-decoder's:
// every symbolic dim, the encoder's length too).
function emptyPast(ort, meta, given, seq2seq) {
  const dim = (d, k) => {
    if (k === 0) return 1;
    if (typeof d === 'number' && d >= 0) return d;
    if (seq2seq || String(d).includes('past')) return 0;
    if (given[d] === undefined) throw new Error(`'${meta.name}' has dim '${d}': give it with --dim ${d}=N`);
    return given[d];
  };
  const dims = meta.shape.map(dim);
  return new ort.Tensor(meta.type, new EMPTY[meta.type](0), dims);
}

function argmax(data, at, n) {
  let best = 0;
  for (let v = 1; v < n; v++) if (data[at + v] > data[at + best]) best = v;
  return best;
}

function toFloat(h) { // IEEE half to number
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, f = h & 1023;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

// The greedy loop on an onnxruntime session (onnxruntime-node's or onnxruntime-web's
// `ort`): resolves to { ids, ms } (each run's milliseconds, the prompt's first).
// states: an encoder-decoder's encoder output (an ort.Tensor), fed as encoder_hidden_states.
async function ortGenerate(ort, session, { prompt, max, stops = [], dims = {}, states = null }) {
  const metas = Object.fromEntries(session.inputNames.map((n, k) => [n, session.inputMetadata[k]]));
  const row = (meta, values) => new ort.Tensor(meta.type, INTS[meta.type](values), [1, values.length]);
  const feeds = {};
  let tokens = prompt, past = 0;
  const ids = [], ms = [];
  for (let k = 0; k < max; k++) {
    for (const name of session.inputNames) {
      const m = metas[name];
      if (name === 'input_ids') feeds[name] = row(m, tokens);
      else if (name === 'attention_mask') feeds[name] = row(m, new Array(past + tokens.length).fill(1));
      else if (name === 'position_ids') feeds[name] = row(m, tokens.map((_, i) => past + i));
      else if (name === 'encoder_hidden_states' && states) feeds[name] = states;
      else if (name === 'use_cache_branch' && states) feeds[name] = new ort.Tensor('bool', [k > 0], [1]);
      else if (name.startsWith('past_key_values')) { if (k === 0) feeds[name] = emptyPast(ort, m, dims, !!states); }
      else throw new Error(`input '${name}' is none a decoder loop feeds`);
    }
    const t0 = performance.now();
    const res = await session.run(feeds);
    ms.push(performance.now() - t0);
    const logits = res.logits;
    const vocab = logits.dims[2], at = (logits.dims[1] - 1) * vocab;
    const data = logits.type === 'float16' ? Array.from(logits.data.subarray(at, at + vocab), toFloat) : logits.data.subarray(at, at + vocab);
    const token = argmax(data, 0, vocab);
    ids.push(token);
    for (const name of session.inputNames) {
      /* an encoder-decoder's encoder pasts: the first run's presents, kept (later runs pass none on) */
      if (!name.startsWith('past_key_values') || (states && name.includes('.encoder.') && k > 0)) continue;
      feeds[name] = res['present' + name.slice('past_key_values'.length)];
    }
    past += tokens.length;
    tokens = [token];
    if (stops.includes(token)) break;
  }
  return { ids, ms };
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const ort = require('onnxruntime-node');
  const session = await ort.InferenceSession.create(a.model, { intraOpNumThreads: 1 });
  let states = null;
  if (a.encoder) {
    const { readTensorFile } = require('./tensor_pb');
    const enc = await ort.InferenceSession.create(a.encoder, { intraOpNumThreads: 1 });
    const f = readTensorFile(a.features);
    const out = await enc.run({ [enc.inputNames[0]]: new ort.Tensor(f.dtype, f.data, f.dims) });
    states = out.last_hidden_state || out[enc.outputNames[0]];
  }
  const { ids } = await ortGenerate(ort, session, { prompt: a.prompt, max: a.max, stops: a.stops, dims: a.dims, states });
  console.log(ids.join(' '));
}

module.exports = { ortGenerate };
if (require.main === module) main().catch((e) => { console.error(`ort_generate: ${e.message}`); process.exit(1); });
