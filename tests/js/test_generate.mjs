// generate() (js/generate.mjs, docs/generate.md): the KV-cache loop in the JS loader, on
// the one-layer decoder of the model tests (tests/models/tiny_lm.py) compiled by
// build/bin/wasmgraph. Greedy ids equal the C host's (`wasmgraph generate`) and
// onnxruntime-node's (tools/ort_generate.js); a seeded draw equals the C host's; onToken,
// stopIds and an AbortSignal stop it; a cache past the compiled range and a model that is
// no decoder are 'arg' errors naming what is wrong. fromPretrained on a model folder (the
// decoder, its config and a word-level tokenizer of its 64 tokens, compiled with
// `wasmgraph compile DIR`): text in, the same ids, the text streamed in pieces that add up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, copyFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, generate, fromPretrained, WasmgraphError } from '../../js/wasmgraph.mjs';

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
