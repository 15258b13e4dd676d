// generate() (js/generate.mjs, docs/generate.md): the KV-cache loop in the JS loader, on
// the one-layer decoder of the model tests (tests/models/tiny_lm.py) compiled by
// build/bin/wasmgraph. Greedy ids equal the C host's (`wasmgraph generate`) and
// onnxruntime-node's (tools/ort_generate.js); a seeded draw equals the C host's; onToken,
// stopIds and an AbortSignal stop it; a cache past the compiled range and a model that is
// no decoder are 'arg' errors naming what is wrong. fromPretrained on a model folder (the
// decoder, its config and a word-level tokenizer of its 64 tokens, compiled with
// `wasmgraph compile DIR`): text in, the same ids, the text streamed in pieces that add up.
// An encoder-decoder (tests/models/tiny_whisper.py, compiled from its folder): greedy ids
// equal the C host's and onnxruntime-node's, a seeded draw the C host's, onToken and an
// abort stop it, fromPretrained streams its text, and a merged decoder without its
// encoder, a decoder that is not a merged one, missing or misshapen features are 'arg'
// errors; with the Hugging Face test set (scripts/setup.sh --hf), its small whisper's fp32
// and q8 files give onnxruntime's ids (skipped without it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, copyFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, homedir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, generate, fromPretrained, WasmgraphError } from '../../js/wasmgraph.mjs';

const { readTensorFile } = createRequire(import.meta.url)('../../tools/tensor_pb.js');

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUILD = process.env.BUILD || 'build';
const WG = join(ROOT, BUILD, 'bin', 'wasmgraph');
const PY = process.env.WG_PYTHON || join(process.env.HOME || '', '.cache', 'wasmgraph', 'venv', 'bin', 'python');
const PROMPT = [3, 14, 15, 9, 26, 5];
const SAMPLING = { temperature: 0.8, topK: 10, topP: 0.9, seed: 7 };

function tinyLM(t) {
  const dir = mkdtempSync(join(tmpdir(), 'wg-generate-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const onnx = join(dir, 'lm.onnx'), wasm = join(dir, 'lm.wasm');
  execFileSync(PY, [join(ROOT, 'tests', 'models', 'tiny_lm.py'), onnx]);
  execFileSync(WG, ['compile', onnx, '-o', wasm, '--quiet', '--dim', 'batch_size=1..1', '--dim', 'sequence_length=1..16',
    '--dim', 'past_sequence_length=0..32']);
  return { dir, onnx, wasm };
}

const ids = (text) => text.trim().split(/\s+/).map(Number);
const cHost = (wasm, ...args) => ids(execFileSync(WG, ['generate', wasm, '--prompt-ids', PROMPT.join(','), ...args],
  { stdio: ['ignore', 'pipe', 'ignore'] }).toString());

test('greedy ids are the C host\'s and onnxruntime\'s; a seeded draw is the C host\'s', async (t) => {
  const m = tinyLM(t);
  const s = await load(m.wasm);
  const ours = await generate(s, PROMPT, { maxNewTokens: 24 });
  assert.equal(ours.length, 24);
  assert.deepEqual(ours, cHost(m.wasm, '--max-new-tokens', '24'));
  const ref = execFileSync('node', [join(ROOT, 'tools', 'ort_generate.js'), m.onnx, '--prompt-ids', PROMPT.join(','),
    '--max-new-tokens', '24'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  assert.deepEqual(ours, ids(ref));
  const drawn = await generate(s, PROMPT, { maxNewTokens: 24, ...SAMPLING });
  assert.deepEqual(drawn, cHost(m.wasm, '--max-new-tokens', '24', '--temperature', '0.8', '--top-k', '10', '--top-p', '0.9', '--seed', '7'));
  assert.notDeepEqual(drawn, ours);
  s.dispose();
});

test('onToken streams the ids and stops the loop; stopIds end it after the id', async (t) => {
  const m = tinyLM(t);
  const s = await load(m.wasm);
  const all = await generate(s, PROMPT, { maxNewTokens: 10 });
  const seen = [];
  const two = await generate(s, PROMPT, { maxNewTokens: 10, onToken: (id) => { seen.push(id); return seen.length < 2; } });
  assert.deepEqual(two, all.slice(0, 2));
  assert.deepEqual(seen, two);
  assert.deepEqual(await generate(s, PROMPT, { maxNewTokens: 10, stopIds: [all[2]] }), all.slice(0, all.indexOf(all[2]) + 1));
  s.dispose();
});

test('an abort, a cache past the compiled range and a model that is no decoder are refused', async (t) => {
  const m = tinyLM(t);
  const s = await load(m.wasm);
  const ac = new AbortController();
  await assert.rejects(generate(s, PROMPT, { maxNewTokens: 10, signal: ac.signal, onToken: () => { ac.abort(); } }),
    (e) => e instanceof WasmgraphError && e.code === 'aborted' && /aborted after 1 tokens/.test(e.message));
  await assert.rejects(generate(s, PROMPT, { maxNewTokens: 40 }), (e) => e instanceof WasmgraphError && e.code === 'arg' &&
    /generate: token 29 \(past 33\): .*symbol 'past_sequence_length' = 33 is outside its range 0\.\.32/.test(e.message));
  await assert.rejects(generate(s, [], {}), (e) => e.code === 'arg' && /at least one/.test(e.message));
  s.dispose();
  const lenet = join(m.dir, 'lenet.wasm');
  execFileSync(WG, ['compile', join(ROOT, 'models', 'lenet5-fashion.onnx'), '-o', lenet, '--quiet']);
  const l = await load(lenet);
  await assert.rejects(generate(l, [1]), (e) => e.code === 'arg' && /generate: output 'logits' is not a float32 or float16 \[batch, seq, vocab\]/.test(e.message));
  l.dispose();
});

// A word-level tokenizer of the decoder's 64 tokens: <unk>, <s>, </s>, then w0 .. w60.
function writeTokenizer(dir) {
  const words = ['<unk>', '<s>', '</s>', ...Array.from({ length: 61 }, (_, i) => `w${i}`)];
  const special = (id, content) => ({ id, content, special: true, single_word: false, lstrip: false, rstrip: false, normalized: false });
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify({
    version: '1.0', added_tokens: [special(0, '<unk>'), special(1, '<s>'), special(2, '</s>')], normalizer: null,
    pre_tokenizer: { type: 'Whitespace' }, post_processor: null, decoder: { type: 'WordPiece', prefix: '##', cleanup: false },
    model: { type: 'WordLevel', vocab: Object.fromEntries(words.map((w, i) => [w, i])), unk_token: '<unk>' },
  }));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ bos_token: '<s>', eos_token: '</s>' }));
}

test('fromPretrained: a model folder from text to text, streamed', async (t) => {
  const m = tinyLM(t);
  const dir = join(m.dir, 'folder');
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  copyFileSync(m.onnx, join(dir, 'onnx', 'model.onnx'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ max_position_embeddings: 64, bos_token_id: 1, eos_token_id: 2 }));
  writeTokenizer(dir);
  execFileSync(WG, ['compile', dir, '-o', join(dir, 'model.wasm'), '--quiet']);
  const g = await fromPretrained(dir);
  const prompt = PROMPT.map((id) => `w${id - 3}`).join(' ');
  assert.deepEqual(g.encode(prompt), PROMPT);
  const pieces = [];
  const out = await g.generate(prompt, { maxNewTokens: 12, onText: (piece) => { pieces.push(piece); } });
  assert.deepEqual(out.ids, await generate(g.session, PROMPT, { maxNewTokens: 12 }));
  assert.equal(out.text, out.ids.filter((id) => id > 2).map((id) => `w${id - 3}`).join(' '));
  assert.equal(pieces.join(''), out.text);
  g.dispose();
  await assert.rejects(fromPretrained(m.dir), (e) => e instanceof WasmgraphError && e.code === 'io' && /cannot read tokenizer\.json/.test(e.message));
});

// The tiny encoder-decoder's folder, compiled with `wasmgraph compile DIR` (model.wasm and
// model-encoder.wasm), with a word-level tokenizer of its 64 tokens.
function tinyWhisper(t) {
  const dir = mkdtempSync(join(tmpdir(), 'wg-whisper-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync(PY, [join(ROOT, 'tests', 'models', 'tiny_whisper.py'), dir]);
  execFileSync(WG, ['compile', dir, '-o', join(dir, 'model.wasm'), '--quiet']);
  writeTokenizer(dir);
  const f = readTensorFile(join(dir, 'features.npy'));
  return { dir, features: { data: f.data, dims: f.dims } };
}

const cWhisper = (dir, ...args) => ids(execFileSync(WG, ['generate', join(dir, 'model.wasm'), '--input-features',
  join(dir, 'features.npy'), ...args], { stdio: ['ignore', 'pipe', 'ignore'] }).toString());

test('an encoder-decoder: greedy ids are the C host\'s and onnxruntime\'s; a seeded draw is the C host\'s', async (t) => {
  const w = tinyWhisper(t);
  const dec = await load(join(w.dir, 'model.wasm')), enc = await load(join(w.dir, 'model-encoder.wasm'));
  const o = { encoder: enc, inputFeatures: w.features, maxNewTokens: 40 };
  const ours = await generate(dec, null, o);
  assert.ok(ours.length >= 10);
  assert.deepEqual(ours, cWhisper(w.dir, '--max-new-tokens', '40'));
  const ref = execFileSync('node', [join(ROOT, 'tools', 'ort_generate.js'), join(w.dir, 'onnx', 'decoder_model_merged.onnx'),
    '--encoder', join(w.dir, 'onnx', 'encoder_model.onnx'), '--input-features', join(w.dir, 'features.npy'),
    '--forced-ids', '1,5,6', '--max-new-tokens', '29', '--stop-ids', '2'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  assert.deepEqual(ours, ids(ref));
  assert.deepEqual(await generate(dec, [1, 5, 6], o), ours);
  const drawn = await generate(dec, null, { ...o, ...SAMPLING });
  assert.deepEqual(drawn, cWhisper(w.dir, '--max-new-tokens', '40', '--temperature', '0.8', '--top-k', '10', '--top-p', '0.9', '--seed', '7'));
  const seen = [];
  const two = await generate(dec, null, { ...o, onToken: (id) => { seen.push(id); return seen.length < 2; } });
  assert.deepEqual(two, ours.slice(0, 2));
  const ac = new AbortController();
  await assert.rejects(generate(dec, null, { ...o, signal: ac.signal, onToken: () => { ac.abort(); } }),
    (e) => e instanceof WasmgraphError && e.code === 'aborted' && /aborted after 1 tokens/.test(e.message));
  dec.dispose();
  enc.dispose();
});

test('an encoder-decoder: fromPretrained streams its text', async (t) => {
  const w = tinyWhisper(t);
  const g = await fromPretrained(w.dir);
  assert.ok(g.encoder);
  const pieces = [];
  const out = await g.generate(null, { inputFeatures: w.features, maxNewTokens: 12, onText: (piece) => { pieces.push(piece); } });
  assert.deepEqual(out.ids, cWhisper(w.dir, '--max-new-tokens', '12'));
  assert.equal(out.text, out.ids.filter((id) => id > 2).map((id) => `w${id - 3}`).join(' '));
  assert.equal(pieces.join(''), out.text);
  g.dispose();
});

test('an encoder-decoder: a missing encoder or features, a decoder not merged and misshapen features are refused', async (t) => {
  const w = tinyWhisper(t);
  const dec = await load(join(w.dir, 'model.wasm')), enc = await load(join(w.dir, 'model-encoder.wasm'));
  const arg = (re) => (e) => e instanceof WasmgraphError && e.code === 'arg' && re.test(e.message);
  await assert.rejects(generate(dec, [1]), arg(/input 'encoder_hidden_states' is an encoder-decoder's \(a merged decoder\): give its encoder/));
  await assert.rejects(generate(dec, null, { encoder: enc }), arg(/an encoder needs options\.inputFeatures/));
  await assert.rejects(generate(dec, null), arg(/give options\.encoder \(a session of model-encoder\.wasm\) and options\.inputFeatures/));
  await assert.rejects(generate(dec, null, { encoder: enc, inputFeatures: { data: new Float32Array(8 * 31), dims: [1, 8, 31] } }),
    arg(/input 'input_features' dimension 2 is 31, the model fixes it at 32/));
  await assert.rejects(generate(dec, null, { encoder: dec, inputFeatures: w.features }), arg(/the encoder has 7 inputs/));
  const lm = tinyLM(t);
  const s = await load(lm.wasm);
  await assert.rejects(generate(s, [1], { encoder: enc, inputFeatures: w.features }),
    arg(/the decoder has no input 'encoder_hidden_states': an encoder's decoder must be the merged one/));
  for (const x of [dec, enc, s]) x.dispose();
});

const HF_WHISPER = join(process.env.WASMGRAPH_CACHE || join(homedir(), '.cache', 'wasmgraph'), 'hf-models', 'whisper');
const HF_FEATURES = join(HF_WHISPER, 'fp32', 'case', 'run0', 'in', 'input_features.npy');

test('the Hugging Face whisper files (fp32, q8) give onnxruntime\'s and the C host\'s ids', {
  skip: existsSync(HF_FEATURES) ? false : `no ${HF_WHISPER} with its reference case (scripts/setup.sh --hf)`,
}, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wg-hf-whisper-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const f = readTensorFile(HF_FEATURES);
  for (const [variant, sfx] of [['fp32', ''], ['q8', '_quantized']]) {
    const wasm = join(dir, `${variant}.wasm`);
    execFileSync(WG, ['compile', HF_WHISPER, '-o', wasm, '--variant', variant, '--max-length', '40', '--quiet']);
    const dec = await load(wasm), enc = await load(join(dir, `${variant}-encoder.wasm`));
    const ours = await generate(dec, null, { encoder: enc, inputFeatures: { data: f.data, dims: f.dims }, maxNewTokens: 32 });
    const ref = execFileSync('node', [join(ROOT, 'tools', 'ort_generate.js'), join(HF_WHISPER, variant, `decoder_model_merged${sfx}.onnx`),
      '--encoder', join(HF_WHISPER, variant, `encoder_model${sfx}.onnx`), '--input-features', HF_FEATURES, '--forced-ids', '3',
      '--max-new-tokens', '32', '--stop-ids', '2'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
    assert.deepEqual(ours, ids(ref), variant);
    const c = execFileSync(WG, ['generate', wasm, '--input-features', HF_FEATURES, '--max-new-tokens', '32'], { stdio: ['ignore', 'pipe', 'ignore'] });
    assert.deepEqual(ours, ids(c.toString()), variant);
    dec.dispose();
    enc.dispose();
  }
});
