// node merged_decoder.mjs MODULE: the JS loader on decoder_ops.py's merged_cross (docs/abi.md
// "Empty inputs"). The first step as transformers.js runs it (past_k empty while enc gives
// its symbol 5 rows) gives what it gives with the past zero-filled to 5 rows (that branch
// does not read it); the cache branch with the past empty stops with status 18 naming
// past_k; a past of neither 0 nor 5 rows is refused before anything runs.
import { load, WasmgraphError } from '../../js/wasmgraph.mjs';
const s = await load(process.argv[2]);
if (!s.inputs.find((t) => t.name === 'past_k').mayBeEmpty) throw new Error('past_k is not marked mayBeEmpty');
const E = 5, S = 3;
const enc = Float32Array.from({ length: E * 8 }, (_, i) => Math.sin(i));
const x = Float32Array.from({ length: S * 8 }, (_, i) => Math.cos(i));
const feeds = (cache, rows) => ({
  use_cache_branch: new Uint8Array([cache]),
  enc: { data: enc, dims: [1, E, 8] }, x: { data: x, dims: [1, S, 8] },
  past_k: { data: new Float32Array(rows * 8), dims: [1, rows, 8] },
});
const empty = s.run(feeds(0, 0)), filled = s.run(feeds(0, E));
if (empty.y.length !== S * 8 || empty.y.some((v, i) => !Object.is(v, filled.y[i]))) throw new Error('the first step with an empty past differs');
const fails = (f, code, text) => {
  try {
    f();
  } catch (e) {
    if (e instanceof WasmgraphError && e.code === code && e.message.includes(text)) return;
    throw e;
  }
  throw new Error(`ran: ${text}`);
};
fails(() => s.run(feeds(1, 0)), 'status', "status 18 (WGK_ERR_EMPTY_INPUT: an input given empty (size 0 along a symbol other inputs give) is read by the branch or body the run took; given empty: 'past_k')");
fails(() => s.run(feeds(0, 3)), 'arg', "input 'past_k' has enc = 3 (dimension 1), but input 'enc' gives 5");
console.log('ok: the JS loader runs the first step with an empty encoder past and refuses reading it');
