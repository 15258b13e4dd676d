// cache.mjs: resident KV caches (docs/abi.md "Resident KV caches"), as the C host has them
// (src/host/cache_pairs.c): the metadata's "cache_pairs" and its checks, and per session
// the mode of the next runs, the rows the module's regions hold and the checks made before
// a run, so that a resident run whose past the regions do not hold, or whose past and new
// rows pass a region's capacity, is refused before the module runs.
import { fail } from './errors.mjs';

export const CACHE_MODES = Object.freeze({ copy: 0, resident: 1, load: 2 });

const BOUNDED = -2;

// The symbol index of dim d of t (a TensorInfo of the loader), -1 fixed, BOUNDED a {"max"}.
function symOf(t, d, symbols) {
  const x = t.dims ? t.dims[d] : t.shape[d];
  if (typeof x === 'string') return symbols.findIndex((y) => y.name === x);
  return x && typeof x === 'object' ? BOUNDED : -1;
}

function pairRule(p, inputs, outputs, symbols, pastSeen, presentSeen) {
  if (p.past >= inputs.length || p.present >= outputs.length) return "past must be an input's index and present an output's";
  if (pastSeen.has(p.past) || presentSeen.has(p.present)) return 'an input or output is in two pairs';
  const x = inputs[p.past], y = outputs[p.present], r = x.shape.length;
  if (x.dtype !== y.dtype || r !== y.shape.length || p.axis < 0 || p.axis >= r) return 'the past and present differ in dtype or rank, or axis is not one of their dims';
  if (symOf(x, p.axis, symbols) < 0 || symOf(y, p.axis, symbols) === -1 || p.capacity !== y.shape[p.axis]) {
    return "the past's dim at axis must be symbolic, the present's too, and capacity its largest size";
  }
  for (let d = 0; d < r; d++) {
    if (d !== p.axis && (x.shape[d] !== y.shape[d] || symOf(x, d, symbols) !== symOf(y, d, symbols))) return 'the past and present differ off the axis';
  }
  return null;
}

/** The metadata's "cache_pairs", checked against the inputs and outputs ('format' otherwise). */
export function checkCachePairs(meta, inputs, outputs, symbols, name) {
  const arr = meta.cache_pairs;
  if (arr === undefined) return [];
  if (!Array.isArray(arr) || arr.length > 1024) throw fail('format', `${name}: metadata: "cache_pairs" must be an array of at most 1024 objects`);
  const pastSeen = new Set(), presentSeen = new Set();
  return arr.map((e, k) => {
    let why = 'past, present, axis and capacity must be non-negative integers';
    const ok = e && typeof e === 'object' && !Array.isArray(e) && ['past', 'present', 'axis', 'capacity'].every((m) => Number.isInteger(e[m]) && e[m] >= 0);
    const p = ok ? { past: e.past, present: e.present, axis: e.axis, capacity: e.capacity } : null;
    if (p) why = pairRule(p, inputs, outputs, symbols, pastSeen, presentSeen);
    if (why) throw fail('format', `${name}: metadata: "cache_pairs" entry ${k}: ${why}`);
    pastSeen.add(p.past);
    presentSeen.add(p.present);
    return p;
  });
}

/** A session's side of the pairs: the module's wg_cache_mode array, the mode, the rows held. */
export class CacheState {
  constructor(model, memory, call) {
    this.pairs = model.metadata.cachePairs || [];
    this.mode = 'copy';
    this.rows = this.pairs.map(() => 0);
    this.ptr = 0;
    if (!this.pairs.length) return;
    const p = call('wg_cache_mode_ptr') >>> 0;
    if (p === 0 || p % 4 || p + 4 * this.pairs.length > memory.buffer.byteLength) {
      throw fail('abi', `${model.name}: wg_cache_mode_ptr() = ${p} is not an aligned array of ${this.pairs.length} i32 inside memory`);
    }
    this.ptr = p;
  }

  setMode(mode, name) {
    if (!Object.hasOwn(CACHE_MODES, mode)) throw fail('arg', `${name}: cache mode '${mode}' is none of 'copy', 'resident', 'load'`);
    if (mode !== 'copy' && !this.pairs.length) throw fail('arg', `${name}: the module keeps no KV cache (no "cache_pairs": docs/abi.md "Resident KV caches")`);
    this.mode = mode;
  }

  // Dim d of t at the coming run's sizes (values: the symbols'); -1 when the run decides it.
  static #dimNow(t, d, symbols, values) {
    const k = symOf(t, d, symbols);
    return k >= 0 ? values[k] : k === BOUNDED ? -1 : t.shape[d];
  }

  /* Before a run: the lengths against the regions, then the modes into the module. */
  write(model, memory, values) {
    if (!this.ptr) return;
    const { inputs, outputs, name } = model, symbols = model.metadata.symbols;
    this.pairs.forEach((p, k) => {
      const past = CacheState.#dimNow(inputs[p.past], p.axis, symbols, values);
      const total = CacheState.#dimNow(outputs[p.present], p.axis, symbols, values);
      if (this.mode !== 'copy' && total > p.capacity) {
        throw fail('arg', `${name}: KV cache '${inputs[p.past].name}': past ${past} + new rows = ${total} rows, beyond the ${p.capacity} its region holds`);
      }
      if (this.mode === 'resident' && past > this.rows[k]) {
        throw fail('arg', `${name}: KV cache '${inputs[p.past].name}': a resident past of ${past} rows, but the module's region holds ${this.rows[k]} (the rows of the last resident or load run)`);
      }
    });
    new Int32Array(memory.buffer, this.ptr, this.pairs.length).fill(CACHE_MODES[this.mode]);
  }

  /* After a run: the rows the regions hold (outDims: the outputs' reported dims, or null). */
  ran(model, values, outDims) {
    if (this.mode === 'copy') return;
    const symbols = model.metadata.symbols;
    this.pairs.forEach((p, k) => {
      const y = model.outputs[p.present];
      this.rows[k] = symOf(y, p.axis, symbols) === BOUNDED ? outDims[p.present][p.axis] : CacheState.#dimNow(y, p.axis, symbols, values);
    });
  }
}
