// generate.mjs: text generation with a KV cache on a decoder session, the loop of the C
// host's wg_session_generate (src/host/generate.c, docs/generate.md) for the JS loader:
// the prompt with an empty past, then one token a run with the previous run's present.*
// as its past_key_values.*, batch 1, on the session's input and output views (no feeds
// copied). Greedy, or a seeded draw cut to top-k and top-p. With an encoder (Whisper), as
// the C host: the encoder once on the input features, then the merged decoder with
// encoder_hidden_states, use_cache_branch false on the first run (every past empty) and
// true after, the first run's encoder presents as the encoder pasts from then on.
// A module that keeps its KV cache (cache pairs, docs/abi.md "Resident KV caches") runs
// with it resident unless options.copyCache: the pasts are given by their length alone,
// nothing is written into them and no present is read.
import { WasmgraphError } from './errors.mjs';
import { DTYPES } from './feeds.mjs';

const PAST = 'past_key_values';
const PRESENT = 'present';
const STATES = 'encoder_hidden_states';
const BRANCH = 'use_cache_branch';

function fail(code, message) {
  return new WasmgraphError(code, message);
}

// The decoder's values by name, as the C host binds them; throws 'arg' for a model the
// loop cannot feed (seq2seq: an encoder was given, so a merged decoder's inputs too).
function bindDecoder(session, seq2seq) {
  const name = session.model.name;
  const ins = session.inputs, outs = session.outputs;
  const d = { ids: -1, mask: -1, pos: -1, states: -1, branch: -1, logits: outs.findIndex((t) => t.name === 'logits'), cache: [] };
  if (d.logits < 0) throw fail('arg', `${name}: generate: the model has no output 'logits'`);
  const lt = outs[d.logits];
  if (lt.shape.length !== 3 || !['float32', 'float16'].includes(lt.dtype)) {
    throw fail('arg', `${name}: generate: output 'logits' is not a float32 or float16 [batch, seq, vocab]`);
  }
  ins.forEach((t, i) => {
    const index2 = (t.dtype === 'int64' || t.dtype === 'int32') && t.shape.length === 2;
    if (t.name === 'input_ids' && index2) d.ids = i;
    else if (t.name === 'attention_mask' && index2) d.mask = i;
    else if (t.name === 'position_ids' && index2) d.pos = i;
    else if (seq2seq && t.name === STATES && t.shape.length === 3) d.states = i;
    else if (seq2seq && t.name === BRANCH && t.dtype === 'bool' && t.size === 1) d.branch = i;
    else if (t.name.startsWith(PAST)) {
      const out = PRESENT + t.name.slice(PAST.length);
      const o = outs.findIndex((u) => u.name === out);
      const axis = (t.dims || []).findIndex((x, k) => k > 0 && typeof x === 'string');
      if (o < 0) throw fail('arg', `${name}: generate: input '${t.name}' has no output '${out}' to feed it`);
      if (axis < 0) throw fail('arg', `${name}: generate: input '${t.name}' has no symbolic length (compile with --dim past_sequence_length=0..N)`);
      d.cache.push({ past: i, present: o, axis, cross: seq2seq && t.name.includes('.encoder.') });
    } else if (!seq2seq && (t.name === STATES || t.name === BRANCH)) {
      throw fail('arg', `${name}: generate: input '${t.name}' is an encoder-decoder's (a merged decoder): give its encoder (options encoder and inputFeatures)`);
    } else {
      const feeds = seq2seq ? `, ${STATES}, ${BRANCH}` : '';
      throw fail('arg', `${name}: generate: input '${t.name}' is none a ${seq2seq ? 'merged decoder' : 'decoder'} loop feeds (input_ids, attention_mask, position_ids, ${PAST}.*${feeds})`);
    }
  });
  if (d.ids < 0) throw fail('arg', `${name}: generate: the model has no input 'input_ids' of int64 or int32 [batch, seq]`);
  if (seq2seq && (d.states < 0 || d.branch < 0)) {
    throw fail('arg', `${name}: generate: the decoder has no input '${d.states < 0 ? STATES : BRANCH}': an encoder's decoder must be the merged one (decoder_model_merged*.onnx: ${STATES} [batch, encoder_sequence_length, h], ${BRANCH} bool [1], ${PAST}.*)`);
  }
  return d;
}

// Runs the encoder session on the features ({ data, dims } or a typed array of its input's
// shape) and returns its output (last_hidden_state, or its only one) as { data, dims },
// checked against the decoder's encoder_hidden_states.
function runEncoder(session, d, encoder, features) {
  const name = session.model.name;
  if (!encoder || typeof encoder.run !== 'function' || !Array.isArray(encoder.inputs)) throw fail('arg', `${name}: generate: options.encoder must be a session of the encoder module`);
  if (encoder.inputs.length !== 1) throw fail('arg', `${encoder.model.name}: generate: the encoder has ${encoder.inputs.length} inputs; generate feeds one (input_features)`);
  if (!features) throw fail('arg', `${name}: generate: an encoder needs options.inputFeatures ({ data, dims }: log-mel features, [1, 80, 3000] for Whisper)`);
  let o = encoder.outputs.findIndex((t) => t.name === 'last_hidden_state');
  if (o < 0 && encoder.outputs.length === 1) o = 0;
  if (o < 0) throw fail('arg', `${encoder.model.name}: generate: the encoder has no output 'last_hidden_state'`);
  const out = encoder.outputs[o], want = session.inputs[d.states];
  if (out.dtype !== want.dtype || out.shape.length !== want.shape.length) {
    throw fail('arg', `${name}: generate: the encoder's output '${out.name}' (${out.dtype}, rank ${out.shape.length}) is not the decoder's input '${STATES}' (${want.dtype}, rank ${want.shape.length})`);
  }
  const input = encoder.inputs[0];
  const feed = ArrayBuffer.isView(features) ? { data: features, dims: input.shape } : features;
  const res = encoder.run({ [input.name]: input.dims ? feed : feed.data || feed });
  return { data: res[out.name].data || res[out.name], dims: encoder.outputShape(o) };
}

function putRow(view, values) {
  if (view instanceof BigInt64Array) values.forEach((v, k) => { view[k] = BigInt(v); });
  else values.forEach((v, k) => { view[k] = v; });
}

// The symbols of one run: batch 1, the sequence n, each past's length past, the mask's
// past + n (a sum the module checks, or the genai builder's total_sequence_length).
// An encoder-decoder's: the encoder's length (states: its output) for its pasts.
function runDims(session, d, n, past, states) {
  const dims = {};
  const set = (t, k, v) => { if (t.dims && typeof t.dims[k] === 'string') dims[t.dims[k]] = v; };
  const ids = session.inputs[d.ids];
  set(ids, 0, 1);
  set(ids, 1, n);
  if (d.mask >= 0) set(session.inputs[d.mask], 1, past + n);
  if (d.states >= 0) set(session.inputs[d.states], 1, states.dims[1]);
  for (const c of d.cache) set(session.inputs[c.past], c.axis, c.cross ? states.dims[1] : past);
  return dims;
}

// An encoder-decoder's first run, through run(feeds): every past given empty (docs/abi.md
// "Empty inputs"), the encoder's output as encoder_hidden_states, use_cache_branch false.
function firstSeq2seqRun(session, d, tokens, states) {
  const feeds = {};
  session.inputs.forEach((t, i) => {
    const [Ctor] = DTYPES[t.dtype];
    const row = (values) => ({ data: Ctor.from(values, (v) => (Ctor === BigInt64Array ? BigInt(v) : v)), dims: [1, values.length] });
    if (i === d.ids) feeds[t.name] = row(tokens);
    else if (i === d.mask) feeds[t.name] = row(tokens.map(() => 1));
    else if (i === d.pos) feeds[t.name] = row(tokens.map((_, k) => k));
    else if (i === d.states) feeds[t.name] = states;
    else if (i === d.branch) feeds[t.name] = new Ctor(1);
    else feeds[t.name] = { data: new Ctor(0), dims: t.shape.map((x, k) => (k === 0 ? 1 : typeof t.dims[k] === 'string' ? 0 : x)) };
  });
  session.run(feeds);
}

// xorshift64*, as the C host draws: the same ids for the same seed in both hosts.
function uniform(state) {
  let s = state.s;
  s ^= s >> 12n; s ^= (s << 25n) & 0xffffffffffffffffn; s ^= s >> 27n;
  state.s = s;
  const r = (s * 2685821657736338717n) & 0xffffffffffffffffn;
  return Number(r >> 11n) / 9007199254740992;
}

function pick(row, o, state) {
  let best = 0;
  for (let v = 1; v < row.length; v++) if (row[v] > row[best]) best = v;
  if (!(o.temperature > 0)) return best;
  const scored = Array.from(row, (x, id) => ({ id, p: Math.exp((x - row[best]) / o.temperature) }));
  const sum = scored.reduce((a, x) => a + x.p, 0);
  scored.sort((a, b) => b.p - a.p || a.id - b.id);
  let keep = o.topK > 0 && o.topK < row.length ? o.topK : row.length;
  if (o.topP > 0 && o.topP < 1) {
    let acc = 0;
    for (let k = 0; k < keep; k++) {
      acc += scored[k].p / sum;
      if (acc >= o.topP) { keep = k + 1; break; }
    }
  }
  let u = uniform(state) * scored.slice(0, keep).reduce((a, x) => a + x.p, 0);
  for (let k = 0; k < keep; k++) {
    u -= scored[k].p;
    if (u < 0) return scored[k].id;
  }
  return scored[keep - 1].id;
}

function halfToFloat(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, f = h & 1023;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

function lastLogits(session, d) {
  const [, seq, vocab] = session.outputShape(d.logits);
  const all = session.output(d.logits);
  const row = all.subarray((seq - 1) * vocab, seq * vocab);
  return session.outputs[d.logits].dtype === 'float16' ? Float32Array.from(row, halfToFloat) : row;
}

// Can the loop run with the cache resident: is every cache it feeds (none an encoder's) one
// of the module's cache pairs, with the present it feeds back?
function cacheResident(session, d) {
  const pairs = session.cachePairs || [];
  return typeof session.setCacheMode === 'function' && d.cache.length > 0 &&
    d.cache.every((c) => !c.cross && pairs.some((p) => p.past === c.past && p.present === c.present));
}

const DEFAULTS = { copyCache: false, maxNewTokens: 20, temperature: 0, topK: 0, topP: 0, seed: 0, stopIds: [], onToken: null, signal: null, encoder: null, inputFeatures: null };

/**
 * generate(session, promptIds, options): runs the decoder loop and resolves to the new
 * token ids (numbers). options: maxNewTokens (20), temperature (0: greedy, the first
 * largest logit), topK, topP, seed (sampling), stopIds (generation ends after one of
 * them; default: the eos ids of a module compiled from a model folder), onToken(id)
 * (called as each id is chosen; return false to stop), signal (an
 * AbortSignal: checked before each run, an abort rejects with code 'aborted'), copyCache
 * (true: copy the presents into the pasts even when the module keeps its cache).
 * An encoder-decoder (Whisper): session is its merged decoder, options.encoder a session of
 * its encoder and options.inputFeatures the encoder's input ({ data, dims }, [1, 80, 3000]
 * log-mel features for Whisper); promptIds are the decoder's first tokens (the decoder
 * start and forced ids; null: the ones a module compiled from a model folder keeps).
 * A model the loop cannot feed is an 'arg' error; a cache past the compiled range the
 * session's 'arg' error naming the symbol and its range.
 */
export async function generate(session, promptIds, options = {}) {
  /* a module compiled from a model folder keeps its eos ids and max_length (metadata "generation") */
  const gen = session.metadata.generation || {};
  const o = { ...DEFAULTS, stopIds: Array.isArray(gen.eos_token_id) ? gen.eos_token_id : [], ...options };
  const name = session.model.name;
  if (promptIds == null && o.encoder && Array.isArray(gen.forced_ids)) promptIds = gen.forced_ids;
  if (promptIds == null && !o.encoder && typeof gen.encoder === 'string') {
    throw fail('arg', `${name}: generate: an encoder-decoder's decoder: give options.encoder (a session of ${gen.encoder}) and options.inputFeatures`);
  }
  if (!Array.isArray(promptIds) && !ArrayBuffer.isView(promptIds)) throw fail('arg', `${name}: generate: promptIds must be an array of token ids`);
  const prompt = Array.from(promptIds, Number);
  if (!prompt.length || prompt.some((x) => !Number.isInteger(x) || x < 0)) throw fail('arg', `${name}: generate: needs a prompt of at least one non-negative integer id`);
  if (!Number.isInteger(o.maxNewTokens) || o.maxNewTokens < 0 || !(o.temperature >= 0) || !(o.topK >= 0) || !(o.topP >= 0 && o.topP <= 1)) {
    throw fail('arg', `${name}: generate: needs maxNewTokens >= 0, temperature >= 0, topK >= 0 and topP in [0, 1]`);
  }
  if (Number.isInteger(gen.max_length)) {
    if (prompt.length >= gen.max_length) throw fail('arg', `${name}: generate: the prompt's ${prompt.length} tokens leave no room in the model's max_length ${gen.max_length}`);
    o.maxNewTokens = Math.min(o.maxNewTokens, gen.max_length - prompt.length);
  }
  const d = bindDecoder(session, !!o.encoder);
  const states = o.encoder ? runEncoder(session, d, o.encoder, o.inputFeatures) : null;
  const resident = !o.copyCache && cacheResident(session, d);
  const mode0 = resident ? session.cacheMode : null;
  if (resident) session.setCacheMode('resident'); /* the first run (past 0) starts the regions */
  try {
    return await decodeLoop(session, d, o, prompt, states, resident);
  } finally {
    if (resident) session.setCacheMode(mode0);
  }
}

async function decodeLoop(session, d, o, prompt, states, resident) {
  const name = session.model.name;
  const state = { s: BigInt.asUintN(64, BigInt(o.seed || 0)) || 0x9e3779b97f4a7c15n };
  const out = [];
  let past = 0, tokens = prompt;
  for (let k = 0; k < o.maxNewTokens; k++) {
    if (o.signal && o.signal.aborted) throw fail('aborted', `${name}: generate: aborted after ${out.length} tokens`);
    /* the previous run's presents at their sizes, before setDims moves them (an
     * encoder-decoder's encoder pasts: the first run's presents, then left as they are) */
    const fed = k === 0 || resident ? [] : d.cache.filter((c) => !c.cross || k === 1);
    const presents = fed.map((c) => {
      const shape = session.outputShape(c.present);
      return session.output(c.present).subarray(0, shape.reduce((a, x) => a * x, 1));
    });
    try {
      if (states && k === 0) firstSeq2seqRun(session, d, tokens, states);
      else session.setDims(runDims(session, d, tokens.length, past, states));
    } catch (e) {
      throw fail(e.code || 'arg', `generate: token ${k + 1} (past ${past}): ${e.message}`);
    }
    if (!states || k > 0) {
      putRow(session.input(d.ids), tokens);
      if (d.mask >= 0) putRow(session.input(d.mask), new Array(past + tokens.length).fill(1));
      if (d.pos >= 0) putRow(session.input(d.pos), tokens.map((_, i) => past + i));
      if (d.branch >= 0) session.input(d.branch)[0] = 1;
      fed.forEach((c, j) => { session.input(c.past).set(presents[j]); });
      session.run();
    }
    past += tokens.length;
    const token = pick(lastLogits(session, d), o, state);
    out.push(token);
    tokens = [token];
    if ((o.onToken && o.onToken(token) === false) || o.stopIds.includes(token)) break;
    await null; /* let an abort, a stream reader or the page run between tokens */
  }
  return out;
}
