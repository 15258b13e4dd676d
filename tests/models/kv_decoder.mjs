// node js_check.mjs DIR MODULE: the JS loader on the KV decoder (tests/models/kv_decoder.py):
// step 1 with an empty past runs; a mask one longer than past + seq is refused, naming both.
import { readFileSync } from 'node:fs';
import { load, WasmgraphError } from '../../js/wasmgraph.mjs';
const [dir, module] = process.argv.slice(2);
const s = await load(module);
const sum = s.metadata.symbols.find((y) => y.sum);
if (!sum || sum.name !== 'past_sequence_length + sequence_length') throw new Error('no sum symbol in the metadata');
const B = 2, S = 5, D = 8;
const feeds = (maskLen) => ({
  x: { data: new Float32Array(B * S * D).fill(0.5), dims: [B, S, D] },
  attention_mask: { data: new BigInt64Array(B * maskLen).fill(1n), dims: [B, maskLen] },
  past_key: { data: new Float32Array(0), dims: [B, 0, D] },
  past_value: { data: new Float32Array(0), dims: [B, 0, D] },
});
const out = s.run(feeds(S));
if (out.present_key.length !== B * S * D) throw new Error(`present_key has ${out.present_key.length} elements`);
try {
  s.run(feeds(S + 1));
  throw new Error('a mask of the wrong length ran');
} catch (e) {
  const want = /attention_mask's dim 1 \(6\) is not past_sequence_length \+ sequence_length \(sequence_length 5 \+ past_sequence_length 0 = 5\)/;
  if (!(e instanceof WasmgraphError) || !want.test(e.message)) throw e;
}
console.log('ok: the JS loader runs an empty past and refuses a mask of the wrong length');
