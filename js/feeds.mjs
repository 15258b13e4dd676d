// feeds.mjs: the dtypes of the metadata and the checks of run()'s feeds against a model's
// inputs (and, with symbolic dims, the symbols' values they give), shared by the session
// (wasmgraph.mjs) and the worker side (remote.mjs).
import { fail, describe, typeName } from './errors.mjs';

// dtype name (metadata) -> [typed array constructor, element size]. float16 is
// exposed as its raw bits (Uint16Array): Float16Array is not available everywhere.
export const DTYPES = {
  float32: [Float32Array, 4], float64: [Float64Array, 8], float16: [Uint16Array, 2],
  int8: [Int8Array, 1], uint8: [Uint8Array, 1], int16: [Int16Array, 2], uint16: [Uint16Array, 2],
  int32: [Int32Array, 4], uint32: [Uint32Array, 4], int64: [BigInt64Array, 8],
  uint64: [BigUint64Array, 8], bool: [Uint8Array, 1],
};

export const symbolTakes = (y, v) => Number.isInteger(v) && v >= y.min && v <= y.max && v % y.step === 0;
export const rangeText = (y) => (y.step > 1 ? `${y.min}..${y.max} in steps of ${y.step}` : `${y.min}..${y.max}`);

/**
 * The feeds of run(): { name: typedArray | { data, dims } } with one entry per input.
 * Checks names, dtypes (the typed-array kind), element counts and dims; returns the
 * typed arrays in input order. Also the worker side's (remote.mjs).
 */
function checkFeedNames(feeds, inputs, label) {
  if (!feeds || typeof feeds !== 'object' || Array.isArray(feeds) || ArrayBuffer.isView(feeds)) {
    throw fail('arg', `${label}: run() takes { inputName: typedArray } (inputs: ${inputs.map((t) => t.name).join(', ')}), not ${describe(feeds)}`);
  }
  const known = new Set(inputs.map((t) => t.name));
  const unknown = Object.keys(feeds).filter((k) => !known.has(k));
  if (unknown.length) {
    throw fail('arg', `${label}: run(): no input called '${unknown[0]}' (inputs: ${[...known].join(', ')})`);
  }
  const missing = inputs.filter((t) => !Object.hasOwn(feeds, t.name)).map((t) => t.name);
  if (missing.length) throw fail('arg', `${label}: run(): input '${missing.join("', '")}' not given`);
}

export function checkFeeds(feeds, inputs, label) {
  checkFeedNames(feeds, inputs, label);
  return inputs.map((t) => {
    let v = feeds[t.name], dims = null;
    if (v && typeof v === 'object' && !ArrayBuffer.isView(v) && 'data' in v) ({ data: v, dims = null } = v);
    const Ctor = DTYPES[t.dtype][0];
    const want = `${t.dtype} (${Ctor.name}) of ${t.size} elements [${t.shape}]`;
    if (!ArrayBuffer.isView(v) || typeName(v) !== Ctor.name) {
      throw fail('arg', `${label}: input '${t.name}': got ${describe(v)}, the model wants ${want}`);
    }
    if (dims !== null) {
      if (!Array.isArray(dims) || dims.length !== t.shape.length || dims.some((d, i) => d !== t.shape[i])) {
        throw fail('arg', `${label}: input '${t.name}': got dims ${JSON.stringify(dims)}, the model wants [${t.shape}]`);
      }
    }
    if (v.length !== t.size) throw fail('arg', `${label}: input '${t.name}': got ${describe(v)}, the model wants ${want}`);
    return v;
  });
}

/**
 * The feeds of run() on a module with symbolic dims (ABI 2): { name: { data, dims } } (an
 * onnxruntime-style tensor has both) or a bare typed array for an input without symbolic
 * dims. Each symbol's value comes from the dims; a value out of range or inputs that
 * disagree is an 'arg' error before anything runs; an input that may be empty may be given
 * size 0 along a symbol others give (docs/abi.md "Empty inputs"). Returns { arrays (in
 * input order), values (one per symbol), empty (per input: given empty) }.
 */
export function symbolicFeeds(feeds, inputs, symbols, label) {
  checkFeedNames(feeds, inputs, label);
  const values = symbols.map(() => null), from = symbols.map(() => null);
  const zeros = []; // [input, symbol]: an input that may be empty given 0 along a symbol (decided below)
  const arrays = inputs.map((t, i) => {
    let v = feeds[t.name], dims = null;
    if (v && typeof v === 'object' && !ArrayBuffer.isView(v) && 'data' in v) ({ data: v, dims = null } = v);
    const Ctor = DTYPES[t.dtype][0];
    if (!ArrayBuffer.isView(v) || typeName(v) !== Ctor.name) {
      throw fail('arg', `${label}: input '${t.name}': got ${describe(v)}, the model wants ${t.dtype} (${Ctor.name}) [${t.dims || t.shape}]`);
    }
    if (dims === null && !t.dims) dims = t.shape;
    if (dims === null) throw fail('arg', `${label}: input '${t.name}' has symbolic dims [${t.dims}]: give it as { data, dims }`);
    dims = Array.from(dims, Number);
    if (dims.length !== t.shape.length) throw fail('arg', `${label}: input '${t.name}' has rank ${t.shape.length}, not ${dims.length}`);
    dims.forEach((d, k) => {
      const name = t.dims ? t.dims[k] : t.shape[k];
      if (typeof name !== 'string') {
        if (d !== name) throw fail('arg', `${label}: input '${t.name}' dimension ${k} is ${d}, the model fixes it at ${name}`);
        return;
      }
      const s = symbols.findIndex((y) => y.name === name), y = symbols[s];
      const maybeEmpty = t.mayBeEmpty && d === 0;
      if (!symbolTakes(y, d) && !maybeEmpty) {
        throw fail('arg', `${label}: input '${t.name}' dimension ${k}: symbol '${name}' = ${d} is outside its range ${rangeText(y)}`);
      }
      if (maybeEmpty) return void zeros.push([i, s]);
      if (values[s] !== null && values[s] !== d) {
        const hint = d === 0 || values[s] === 0 ? ` (input '${d === 0 ? t.name : from[s]}' may not be empty: the model reads it outside If branches and loop bodies)` : '';
        throw fail('arg', `${label}: input '${t.name}' has ${name} = ${d} (dimension ${k}), but input '${from[s]}' gives ${values[s]}${hint}`);
      }
      values[s] = d;
      from[s] = t.name;
    });
    const n = dims.reduce((a, d) => a * d, 1);
    if (v.length !== n) throw fail('arg', `${label}: input '${t.name}': got ${describe(v)} for dims [${dims}], which hold ${n} elements`);
    return v;
  });
  /* an input that may be empty, given 0 along a plain symbol nothing else gives: its value */
  for (const [i, s] of zeros) {
    if (values[s] === null && !symbols[s].sum) [values[s], from[s]] = [0, inputs[i].name];
  }
  /* a dim_param `past + seq` (a symbol with a sum): the input's value must be its terms' */
  const at = (s) => (values[s] === null ? symbols[s].max : values[s]);
  symbols.forEach((y, s) => {
    if (!y.sum) return;
    const terms = y.sum.terms.map(([c, j]) => {
      const i = typeof j === 'string' ? symbols.findIndex((z) => z.name === j) : j;
      return [c, at(i), symbols[i].name];
    });
    const want = terms.reduce((a, [c, x]) => a + c * x, y.sum.plus);
    if (values[s] === null) values[s] = want;
    else if (values[s] !== want) {
      const t = inputs.find((i) => i.name === from[s]), d = t.dims.indexOf(y.name);
      const text = terms.map(([c, x, n]) => (c === 1 ? `${n} ${x}` : `${c} * ${n} ${x}`)).join(' + ') + (y.sum.plus ? ` + ${y.sum.plus}` : '') + ` = ${want}`;
      throw fail('arg', `${label}: ${from[s]}'s dim ${d} (${values[s]}) is not ${y.name} (${text}) (WGK_ERR_DIMS)`);
    }
  });
  /* ... else that input is empty (docs/abi.md "Empty inputs"), which the module is told */
  const empty = inputs.map((t, i) => zeros.some(([j, s]) => j === i && values[s] > 0));
  return { arrays, values: values.map((v, s) => (v === null ? symbols[s].max : v)), empty };
}

