// wasmgraph.mjs: loads a module compiled by `wasmgraph compile` in Node or a browser
// (no dependencies). Reads the `wasmgraph` custom section (JSON metadata, module ABI
// versions 1 and 2, docs/abi.md), checks the ABI as docs/abi.md lists it, instantiates
// the module with no imports (a threaded module: its shared memory, threads.mjs), and
// gives zero-copy typed-array views of the input and output tensors in the module's
// linear memory. Like the C host, it takes the weights
// (the module's data segments) out of what V8 compiles and copies them into each
// session's memory itself: for a file in Node, straight from the file (splitModule).
//
//   import { load } from './wasmgraph.mjs';
//   const s = await load('model.wasm');      // path (Node), URL, Response, bytes or Module
//   const out = s.run({ image: pixels });    // checked feeds in, copies of the outputs back
//   s.dispose();                              // frees the instance now
// or zero-copy: s.input(0).set(pixels); s.run(); s.output(0) (views into linear memory).
// `load(url, { worker: true })` runs the module in a worker (remote.mjs, worker.mjs);
// image.mjs has the image-to-tensor helpers with `wasmgraph classify`'s semantics.
//
// For the quickest first result in Node, `load(path, { streamWeights: true })` returns
// while the weights are still being read and `await s.runAsync()` runs each step as soon
// as the weights it needs are in (`await s.ready` before a plain run()).

import { WasmgraphError, fail, checkOptions, isBool, isString, isPositiveInt, describe, typeName } from './errors.mjs';
import { DTYPES, symbolTakes, rangeText, checkFeeds, symbolicFeeds } from './feeds.mjs';
import { CacheState, checkCachePairs } from './cache.mjs';

export { WasmgraphError };
export { checkFeeds, symbolicFeeds };
export { generate } from './generate.mjs';
export { fromPretrained, TextGenerator } from './pretrained.mjs';
export { decodePNG, decodeImage, imageToTensor, preprocessOptions, topClasses, f32ToF16 } from './image.mjs';

/** The newest module ABI this loader runs; it runs every version from ABI_VERSION_MIN. */
export const ABI_VERSION = 2;
export const ABI_VERSION_MIN = 1;
export const SECTION_NAME = 'wasmgraph';


// The module ABI is docs/abi.md; this loader makes the checks listed there, as the C host
// does (src/host/inspect.c), and tests/js/test_abi.mjs runs both on the same fixtures.
// The functions every module must export (ABI versions 1 and 2), with their parameter
// counts (all (i32 x n) -> i32).
const REQUIRED_FUNCS = { wg_abi_version: 0, wg_input_ptr: 1, wg_output_ptr: 1, wg_run: 0 };
// Exported functions the ABI defines but not every module has: of this type when present,
// and required when the metadata member named describes them.
const OPTIONAL_FUNCS = {
  wg_run_steps: [0, 'step_weights'], wg_run_step: [1, 'step_weights'],
  wg_profile_steps: [0, 'profile'], wg_profile_step: [1, 'profile'],
};
// A threaded module's exports (docs/abi.md "Threads"): required when the metadata has "threads".
const THREAD_FUNCS = { wg_thread_init: 1, wg_run_begin: 1, wg_run_thread: 3, wg_threads_abort: 0 };
/** Limits of the module ABI (versions 1 and 2), the C host's WG_MAX_RANK and WG_ABI_MAX_* (include/wasmgraph.h): past one, a module is refused ('format'). */
export const LIMITS = Object.freeze({ tensors: 1024, rank: 8, dim: 2 ** 31 - 1, elements: 2 ** 32 - 1, steps: 1 << 20, symbols: 8 });
/** Nonzero statuses of the run exports (kernels/include/wgk_status.h): [name, meaning]. */
export const STATUSES = Object.freeze({
  [-1]: ['WGK_ERR_NO_STEP', 'no such step (wg_run_step or wg_profile_step called with k out of range)'],
  2: ['WGK_ERR_INDEX', 'an index input holds a value out of range'],
  3: ['WGK_ERR_DIMS', 'a symbolic dimension is outside its range (module ABI 2)'],
  10: ['WGK_ERR_TRIP_COUNT', 'a Loop ran past the iterations its outputs were sized for'],
  11: ['WGK_ERR_BRANCH', "an If took a branch that is invalid for the module's input shapes (see the compile's note)"],
  12: ['WGK_ERR_LOOP_SHAPE', "a Loop or Scan body gave a carried value another shape, or a scan row another size than the first iteration's"],
  13: ['WGK_ERR_SIZE_BOUND', 'a size computed at run time (Pad, Expand, Tile, Range, Resize, ConstantOfShape) is past the bound the module was compiled for: an integer input outside its --dim range'],
  15: ['WGK_ERR_SEQ_INDEX', 'a sequence position is out of range (SequenceAt)'],
  16: ['WGK_ERR_OPTIONAL_EMPTY', 'an optional value is empty (OptionalGetElement)'],
  17: ['WGK_ERR_ATTN_LENGTHS', "an attention's sequence lengths (seqlens_k, total_sequence_length, position ids) do not fit its KV cache or rotary tables (GroupQueryAttention)"],
  18: ['WGK_ERR_EMPTY_INPUT', 'an input given empty (size 0 along a symbol other inputs give) is read by the branch or body the run took'],
  19: ['WGK_ERR_DIM_MISMATCH', "two symbolic dimensions an elementwise op takes as equal differ at run time (a model's own symbol against a size computed from others)"],
  20: ['WGK_ERR_THREAD_ABORT', 'another thread of the run trapped or was stopped (wg_threads_abort)'],
  21: ['WGK_ERR_THREADS', 'a thread number or thread count out of range for the module (wg_thread_init, wg_run_begin, wg_run_thread)'],
  22: ['WGK_ERR_CACHE', "a resident KV cache's mode or lengths do not fit its region: a mode other than 0, 1 or 2, past + new rows beyond its capacity, or a resident past longer than the rows the region holds"],
});

/* "2 (WGK_ERR_INDEX: an index input ...)": a status as messages give it; for
 * WGK_ERR_EMPTY_INPUT, with the names of the inputs the run was given empty. */
function statusText(st, empty = []) {
  const known = STATUSES[st];
  const names = st === 18 && empty.length ? `; given empty: '${empty.join("', '")}'` : '';
  return `${st} (${known ? `${known[0]}: ${known[1]}` : "unknown status: not in this host's list"}${names})`;
}

const isNode = typeof process !== 'undefined' && !!(process.versions && process.versions.node);

/* A failure while reading `name`: itself if already a WasmgraphError, else an 'io' one. */
function readError(name, e) {
  return e instanceof WasmgraphError ? e : fail('io', `${name}: cannot read: ${e.message}`, e);
}

/* Reads a path (Node), a URL (file: in Node, anything fetch knows elsewhere) or a Response. */
async function readSource(src) {
  if (src instanceof ArrayBuffer) return { bytes: new Uint8Array(src), name: 'module' };
  if (ArrayBuffer.isView(src)) {
    return { bytes: new Uint8Array(src.buffer, src.byteOffset, src.byteLength), name: 'module' };
  }
  const isUrl = src instanceof URL;
  if (typeof src !== 'string' && !isUrl) {
    /* Only now look at Response: in Node 20 the first use of that global loads the whole
     * fetch implementation, a noticeable delay that a path must not pay. */
    if (typeof Response !== 'undefined' && src instanceof Response) {
      if (!src.ok) throw fail('io', `${src.url || 'response'}: HTTP ${src.status}`);
      return { bytes: new Uint8Array(await src.arrayBuffer()), name: src.url || 'module' };
    }
    throw fail('arg', 'load() takes a path, a URL, a Response, bytes or a WebAssembly.Module');
  }
  const name = String(src);
  const fileLike = isUrl ? src.protocol === 'file:' : !/^[a-z][a-z0-9+.-]*:\/\//i.test(src) || src.startsWith('file:');
  if (isNode && fileLike) {
    const { fileURLToPath } = await import('node:url');
    return { file: isUrl || src.startsWith('file:') ? fileURLToPath(src) : src, name };
  }
  let res;
  try {
    res = await fetch(src);
  } catch (e) {
    throw fail('io', `${name}: cannot fetch: ${e.message}`, e);
  }
  if (!res.ok) throw fail('io', `${name}: HTTP ${res.status}`);
  return { bytes: new Uint8Array(await res.arrayBuffer()), name };
}

/* The "value" member of a tensor entry (docs/abi.md "Sequences and optionals"), checked as
 * the C host checks it (src/host/inspect.c parse_value; part order is not rechecked here). */
function checkValue(name, what, t) {
  const v = t.value;
  const ok = v && typeof v === 'object' && typeof v.name === 'string' && v.name !== '' &&
    (v.kind === 'sequence' || v.kind === 'optional') && (v.holds === 'tensor' || v.holds === 'sequence') &&
    (v.kind === 'optional' || v.holds === 'sequence') &&
    ((Number.isInteger(v.part) && v.part >= 0) || (v.part === 'present' && v.kind === 'optional'));
  if (!ok) throw fail('format', `${name}: metadata: ${what} '${t.name}' has a "value" that is not {"name", "kind": "sequence"|"optional", "holds", "part"}`);
  if (v.part === 'present' && (t.dtype !== 'bool' || t.shape.length !== 0)) {
    throw fail('format', `${name}: metadata: ${what} '${t.name}', the presence flag of '${v.name}', is not a bool scalar`);
  }
  return { name: v.name, kind: v.kind, holds: v.holds, part: v.part };
}

/* ABI 2 "symbols": [{ name, min, max[, step] }], unique names, 0 <= min <= max < 2^31, a
 * step dividing both (as src/host/inspect.c parse_symbols). */
function checkSymbols(meta, name) {
  const list = meta.symbols;
  if (list === undefined) return [];
  if (!Array.isArray(list) || list.length > LIMITS.symbols) throw fail('format', `${name}: metadata: "symbols" is not an array of at most ${LIMITS.symbols}`);
  const seen = new Set();
  return list.map((y, i) => {
    if (!y || typeof y.name !== 'string' || !y.name) throw fail('format', `${name}: metadata: symbols[${i}] has no name`);
    if (seen.has(y.name)) throw fail('format', `${name}: metadata: two symbols are called '${y.name}'`);
    seen.add(y.name);
    if (!Number.isInteger(y.min) || !Number.isInteger(y.max) || y.min < 0 || y.max < y.min || y.max > LIMITS.dim) {
      throw fail('format', `${name}: metadata: symbol '${y.name}' needs integers 0 <= min <= max < 2^31`);
    }
    const step = y.step === undefined ? 1 : y.step;
    if (!Number.isInteger(step) || step < 1 || y.min % step || y.max % step) {
      throw fail('format', `${name}: metadata: symbol '${y.name}' has a step that is not an integer >= 1 dividing min and max`);
    }
    return y.sum === undefined ? { name: y.name, min: y.min, max: y.max, step } : { name: y.name, min: y.min, max: y.max, step, sum: y.sum };
  }).map((y, i, all) => {
    /* "sum": { terms: [[c, name]...], plus }: a graph input's dim_param `past + seq`, whose
     * value must be its terms' (as src/host/inspect.c parse_symbols) */
    if (y.sum === undefined) return y;
    const { terms, plus } = y.sum || {};
    if (!Array.isArray(terms) || terms.length < 1 || terms.length > 8 || !Number.isInteger(plus)) {
      throw fail('format', `${name}: metadata: symbol '${y.name}' has a "sum" that is not { terms: [[c, name]...] (1 to 8), plus: integer }`);
    }
    const sum = { plus, terms: terms.map((t, k) => {
      const s = Array.isArray(t) && t.length === 2 && Number.isInteger(t[0]) ? all.findIndex((z) => z.name === t[1] && z.sum === undefined) : -1;
      if (s < 0) throw fail('format', `${name}: metadata: symbol '${y.name}': sum term ${k} is not [c, name] of another symbol`);
      return [t[0], s];
    }) };
    return { ...y, sum };
  });
}

/* Is v a value of symbol y (in range, a multiple of its step)? Its range as text. */

const BOUNDED = -2; // a data-dependent output dim (ABI 2 {"max": N})

function checkTensors(list, what, name, symbols = [], abi = 1) {
  if (!Array.isArray(list)) throw fail('format', `${name}: metadata: "${what}s" is missing or not an array`);
  if (list.length > LIMITS.tensors) throw fail('format', `${name}: metadata: ${list.length} ${what}s (at most ${LIMITS.tensors})`);
  const seen = new Set();
  return list.map((t, i) => {
    if (!t || typeof t.name !== 'string' || !t.name) throw fail('format', `${name}: metadata: ${what}[${i}] has no name`);
    if (seen.has(t.name)) throw fail('format', `${name}: metadata: two ${what}s are called '${t.name}'`);
    seen.add(t.name);
    const dt = DTYPES[t.dtype];
    if (!dt || !Object.hasOwn(DTYPES, t.dtype)) throw fail('format', `${name}: metadata: ${what} '${t.name}' has dtype '${t.dtype}'`);
    if (!Array.isArray(t.shape) || t.shape.length > LIMITS.rank) {
      throw fail('format', `${name}: metadata: ${what} '${t.name}' has no shape array of rank <= ${LIMITS.rank}`);
    }
    /* ABI 2: a dimension {"sym": NAME} is that symbol, planned at its maximum; an output's
     * {"max": N} is a data-dependent size of at most N (BOUNDED), reported by the run */
    const sym = t.shape.map((d, k) => {
      if (abi >= 2 && d && typeof d === 'object' && !Array.isArray(d) && 'max' in d) {
        if (what !== 'output' || Object.keys(d).length !== 1 || !Number.isInteger(d.max) || d.max < 0 || d.max > LIMITS.dim) {
          throw fail('format', `${name}: metadata: ${what} '${t.name}' dimension ${k}: {"max": N} needs an integer N in [0, 2^31) and belongs to outputs only`);
        }
        return BOUNDED;
      }
      if (abi >= 2 && d && typeof d === 'object' && !Array.isArray(d)) {
        const s = symbols.findIndex((y) => y.name === d.sym);
        if (s < 0) throw fail('format', `${name}: metadata: ${what} '${t.name}' dimension ${k} names no symbol of "symbols"`);
        return s;
      }
      if (!Number.isInteger(d) || d < 0 || d > LIMITS.dim) {
        throw fail('format', `${name}: metadata: ${what} '${t.name}' dimension ${k} is not an integer in [0, 2^31)`);
      }
      return -1;
    });
    const shape = t.shape.map((d, k) => (sym[k] >= 0 ? symbols[sym[k]].max : sym[k] === BOUNDED ? d.max : d));
    const numel = shape.reduce((a, d) => a * d, 1);
    if (numel > LIMITS.elements) throw fail('format', `${name}: metadata: ${what} '${t.name}' has more than 2^32 elements`);
    if (t.bytes !== numel * dt[1]) {
      throw fail('format', `${name}: metadata: ${what} '${t.name}' says bytes ${t.bytes} but ${numel} elements of ${t.dtype} make ${numel * dt[1]}`);
    }
    const info = { name: t.name, dtype: t.dtype, shape, bytes: t.bytes, size: numel };
    if (sym.some((k) => k >= 0 || k === BOUNDED)) {
      info.dims = sym.map((k, d) => (k >= 0 ? symbols[k].name : k === BOUNDED ? { max: shape[d] } : shape[d]));
    }
    if (sym.includes(BOUNDED)) info.bounded = true;
    /* "may_be_empty": true, an input the host may give empty (docs/abi.md "Empty inputs") */
    if (t.may_be_empty !== undefined) {
      if (typeof t.may_be_empty !== 'boolean' || what !== 'input' || !sym.some((k) => k >= 0)) {
        throw fail('format', `${name}: metadata: ${what} '${t.name}' has "may_be_empty", which only a boolean of an input with a symbolic dimension may have`);
      }
      if (t.may_be_empty) info.mayBeEmpty = true;
    }
    // part of a sequence or optional value (ABI 2): { name, kind, holds, part } as the metadata says
    if (t.value !== undefined) info.value = checkValue(name, what, t);
    return info;
  });
}

// ---- weights outside the compiled module ----
//
// A wasmgraph module carries its weights as active data segments (ResNet-50 v2: 98 MB).
// Compiled whole, V8 copies and hashes all of them into the compiled module (a cost of
// its own: docs/performance.md) and keeps them there next to every instance's memory. As
// the C host does (src/host/data_split.h), the loader compiles the other sections only
// and copies each segment into a new session's memory itself. It does so only when that
// is exactly what instantiation would do: no start function (nothing runs before the
// copy), no data count section (no memory.init / data.drop), every segment active in
// memory 0 at an i32.const offset, and a data section that parses exactly and comes after
// every other non-custom section. Anything else is compiled whole, and V8 reports any
// problem as before.

/* A LEB128 number at pos (at most 5 bytes, before end): [value, next pos], or null when
 * it is malformed or does not fit 32 bits (unsigned, or signed for i32.const). */
function leb(read, pos, end, signed = false) {
  let v = 0, shift = 0;
  for (let i = 0; i < 5 && pos < end; i++) {
    const b = read(pos++, 1)[0];
    v += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b & 0x80) continue;
    if (signed && (b & 0x40)) v -= 2 ** shift; /* sign-extend */
    const ok = signed ? v >= -(2 ** 31) && v < 2 ** 31 : v <= 0xffffffff;
    return ok ? [v, pos] : null;
  }
  return null;
}

/**
 * The module at read(pos, len) (size bytes) without its data section, and where each
 * data segment goes: { code: Uint8Array, segments: [{ mem, pos, len }] } (mem: address
 * in linear memory, pos: offset in the file), or null when it cannot be split exactly.
 */
export function splitModule(read, size) {
  if (size < 8) return null;
  const head = read(0, 8);
  if (head[0] !== 0 || head[1] !== 0x61 || head[2] !== 0x73 || head[3] !== 0x6d || head[4] !== 1 ||
      head[5] || head[6] || head[7]) return null;
  const parts = [head];
  let segments = null, pos = 8;
  while (pos < size) {
    const id = read(pos, 1)[0];
    const sz = leb(read, pos + 1, size);
    if (!sz || sz[1] + sz[0] > size) return null;
    const [len, body] = sz, end = body + len;
    if (id === 8 || id === 12 || (segments && id !== 0)) return null;
    if (id === 11) {
      segments = [];
      let p = leb(read, body, end);
      if (!p) return null;
      const count = p[0];
      let q = p[1];
      for (let i = 0; i < count; i++) {
        const flags = leb(read, q, end);
        if (!flags || flags[0] !== 0 || flags[1] >= end || read(flags[1], 1)[0] !== 0x41) return null;
        const off = leb(read, flags[1] + 1, end, true);
        if (!off || off[1] >= end || read(off[1], 1)[0] !== 0x0b) return null;
        const n = leb(read, off[1] + 1, end);
        if (!n || n[1] + n[0] > end) return null;
        segments.push({ mem: off[0] >>> 0, pos: n[1], len: n[0] });
        q = n[1] + n[0];
      }
      if (q !== end) return null;
    } else {
      parts.push(read(pos, end - pos));
    }
    pos = end;
  }
  if (!segments) return null;
  const code = new Uint8Array(parts.reduce((a, b) => a + b.length, 0));
  let o = 0;
  for (const b of parts) { code.set(b, o); o += b.length; }
  return { code, segments };
}

const SECTION_NAMES = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export',
  'start', 'element', 'code', 'data', 'data count', 'tag'];

/**
 * The first structural problem of the module at read(pos, len) (size bytes), in the C
 * host's words (src/host/wasm_scan.c), or null: a missing magic or another version, a
 * section that runs past the end of the file (a truncated file), a section id repeated
 * or unknown, a custom section whose name does not parse. V8 checks the rest.
 */
export function scanModule(read, size) {
  const head = read(0, Math.min(8, size));
  if (size < 8 || head[0] !== 0 || head[1] !== 0x61 || head[2] !== 0x73 || head[3] !== 0x6d) {
    return `not a WebAssembly module (no \\0asm magic${size < 8 ? `: the file has ${size} bytes` : ''})`;
  }
  const version = (head[4] | head[5] << 8 | head[6] << 16 | head[7] << 24) >>> 0;
  if (version !== 1) {
    return `WebAssembly binary version 0x${version.toString(16).padStart(8, '0')}, expected 1 (a component or a newer format?)`;
  }
  const seen = new Set();
  let pos = 8;
  while (pos < size) {
    const id = read(pos, 1)[0];
    const what = `section ${id}${SECTION_NAMES[id] ? ` (${SECTION_NAMES[id]})` : ''} at byte ${pos}`;
    const sz = leb(read, pos + 1, size);
    if (!sz) return `${what} runs past the end of the file (${size} bytes): its size does not parse`;
    const [len, body] = sz;
    if (body + len > size) {
      return `${what} runs past the end of the file (${size} bytes): it says ${len} bytes, ${size - body} are left (truncated?)`;
    }
    if (id >= SECTION_NAMES.length) return `${what} has an unknown id`;
    if (id !== 0) {
      if (seen.has(id)) return `${what} appears twice`;
      seen.add(id);
    } else {
      const nl = leb(read, body, body + len);
      if (!nl || nl[1] + nl[0] > body + len) return `custom section at byte ${pos} has a bad name`;
    }
    pos = body + len;
  }
  return null;
}

/* Reads [pos, pos + len) of an open file into dst (compile(): the sections around the data). */
function readInto(fs, fd, dst, pos, name) {
  let done = 0;
  while (done < dst.length) {
    const got = fs.readSync(fd, dst, done, dst.length - done, pos + done);
    if (got <= 0) throw fail('io', `${name}: unexpected end of file at byte ${pos + done}`);
    done += got;
  }
}

/* The same through a FileHandle, into a view of linear memory: the read runs on Node's thread pool. */
async function readIntoAsync(fh, dst, pos, name) {
  let done = 0;
  while (done < dst.length) {
    const { bytesRead } = await fh.read(dst, done, dst.length - done, pos + done);
    if (bytesRead <= 0) throw fail('io', `${name}: unexpected end of file at byte ${pos + done}`);
    done += bytesRead;
  }
}

// Weights are read in pieces of this size, all requested at once: Node's thread pool
// (4 threads by default) then reads them side by side. Most of a read's cost is the
// kernel faulting in the fresh pages of linear memory it writes (4 KiB pages in V8),
// which spreads over the cores: pieces read side by side take much less time than one
// synchronous read (docs/performance.md).
const READ_PIECE = 8 << 20;
// Streamed, smaller pieces let the first steps start sooner: ResNet-50 v2's session and
// first run in one process (fresh memory, bench/first-run.mjs) were faster with 1 MiB
// pieces than with 8 MiB or not streamed (docs/performance.md).
const STREAM_PIECE = 1 << 20;

/* Reads every segment ({ mem, pos, len }) from an open FileHandle into a
 * WebAssembly.Memory, `piece` bytes per request, in segment order: { reads, hurry }, reads
 * [{ seg, off, done }] (done: a Promise). `lanes` requests at a time (Node's thread pool
 * runs up to 4), or every one at once after hurry(): one lane leaves the other cores to
 * whatever runs meanwhile, and hurry() is for when that waits on the reads. A failed
 * read starts no more. */
function startReads(fh, memory, segments, name, piece, lanes = Infinity) {
  const reads = [];
  segments.forEach((g, seg) => {
    for (let off = 0; off < g.len; off += piece) {
      const len = Math.min(piece, g.len - off);
      const r = { seg, off, run: () => readIntoAsync(fh, new Uint8Array(memory.buffer, g.mem + off, len), g.pos + off, name) };
      r.done = new Promise((resolve, reject) => { r.resolve = resolve; r.reject = reject; });
      reads.push(r);
    }
  });
  let next = 0, running = 0, failed = false;
  const pump = () => {
    while (!failed && running < lanes && next < reads.length) {
      const r = reads[next++];
      running++;
      r.run().then(() => { running--; r.settled = true; r.resolve(); pump(); }, (e) => { running--; failed = true; r.reject(e); skipRest(e); });
    }
  };
  /* After a failure the reads not started fail with it, so that every promise settles. */
  const skipRest = (e) => { while (next < reads.length) reads[next++].reject(e); };
  pump();
  return { reads, hurry: () => { lanes = Infinity; pump(); } };
}

/* Resolves when every read has settled (none still writing into memory); rejects with
 * the first failure. */
async function settle(reads) {
  const failed = (await Promise.allSettled(reads.map((r) => r.done))).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * Reads every segment ({ mem, pos, len }) from an open FileHandle into a
 * WebAssembly.Memory, `piece` bytes per request. Exported for the tests.
 */
export async function readSegments(fh, memory, segments, name, piece = READ_PIECE) {
  await settle(startReads(fh, memory, segments, name, piece).reads);
}

/* The metadata's "step_weights" when the module can run step by step while its weights
 * are read: an array with one entry per wg_run_step step, each the bytes of the weights
 * segment (the one at "weights_base") that step and those before it read, never
 * decreasing; null otherwise (the session then reads every weight before it runs). */
function stepWeights(meta, exports, segments) {
  const steps = meta.step_weights;
  const weights = segments.findIndex((g) => g.mem === meta.weights_base);
  if (!Array.isArray(steps) || weights < 0 || typeof exports.wg_run_step !== 'function' ||
      typeof exports.wg_run_steps !== 'function' || exports.wg_run_steps() !== steps.length) return null;
  const len = segments[weights].len;
  for (let k = 0; k < steps.length; k++) {
    if (!Number.isInteger(steps[k]) || steps[k] < (k ? steps[k - 1] : 0) || steps[k] > len) return null;
  }
  return { steps, weights };
}

/* What inspect() reads of a module: { sections (the `wasmgraph` custom sections' bytes),
 * imports [{ module, name, kind }], exports Map(name -> { kind, index }), and from bytes
 * only: types [[n_params, n_results, all i32]], funcs (type index per function), memory
 * (the first defined one's limits flags, or null) }. */
const KINDS = ['function', 'table', 'memory', 'global', 'tag'];

/* The view of a compiled WebAssembly.Module: what the JS API tells (no types, no memory flags). */
function moduleView(module) {
  return {
    sections: WebAssembly.Module.customSections(module, SECTION_NAME).map((b) => new Uint8Array(b)),
    imports: WebAssembly.Module.imports(module),
    exports: new Map(WebAssembly.Module.exports(module).map((e) => [e.name, { kind: e.kind }])),
  };
}

/* The view of module bytes, read as src/host/wasm_scan.c reads them: the type, import,
 * function, memory, export and custom sections, the rest skipped by size. Throws 'format'
 * for what is not a well-formed module there (compile() has already run scanModule's
 * structural check with its byte-exact messages; this one serves inspect() on bytes). */
function bytesView(bytes, name) {
  const bad = (why) => fail('format', `${name}: not a valid WebAssembly module: ${why}`);
  const read = (pos, len) => bytes.subarray(pos, pos + len);
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) throw bad('no \\0asm magic');
  if (bytes[4] !== 1 || bytes[5] || bytes[6] || bytes[7]) throw bad('binary version is not 1');
  const view = { sections: [], imports: [], exports: new Map(), types: [], funcs: [], memory: null };
  const seen = new Set();
  for (let pos = 8; pos < bytes.length;) {
    const at = pos, id = bytes[pos];
    const sz = leb(read, pos + 1, bytes.length);
    if (!sz || sz[1] + sz[0] > bytes.length) throw bad(`section ${id} at byte ${at} runs past the end of the file (${bytes.length} bytes)`);
    const end = sz[1] + sz[0];
    if (id !== 0 && seen.has(id)) throw bad(`section ${id} at byte ${at} appears twice`);
    seen.add(id);
    let p = sz[1];
    const u32 = () => { const r = leb(read, p, end); if (!r) throw bad(`section ${id} at byte ${at} is malformed`); p = r[1]; return r[0]; };
    const byte = () => { if (p >= end) throw bad(`section ${id} at byte ${at} is truncated`); return bytes[p++]; };
    const str = () => { const n = u32(); if (p + n > end) throw bad(`section ${id} at byte ${at} is truncated`); const b = bytes.subarray(p, p + n); p += n; return b; };
    const text = (b) => new TextDecoder().decode(b);
    if (id === 0) {
      const nm = text(str());
      if (nm === SECTION_NAME) view.sections.push(bytes.subarray(p, end));
    } else if (id === 1) {
      for (let n = u32(), i = 0; i < n; i++) {
        if (byte() !== 0x60) throw bad(`type ${i} is not a plain function type`);
        const sides = [0, 1].map(() => {
          const vals = [];
          for (let c = u32(), k = 0; k < c; k++) {
            const v = byte();
            if (v === 0x63 || v === 0x64) { const h = leb(read, p, end, true); if (!h) throw bad(`type ${i} is malformed`); p = h[1]; }
            vals.push(v);
          }
          return vals;
        });
        view.types.push(sides);
      }
    } else if (id === 2) {
      const n = u32();
      if (n) {
        const imp = { module: text(str()), name: text(str()), kind: KINDS[bytes[p]] ?? 'unknown kind' };
        if (byte() === 2) view.memory = { flags: byte(), imported: true }; /* a threaded module's memory */
        view.imports.push(imp);
      }
      for (let i = 1; i < n; i++) view.imports.push({}); /* only the first is named in messages */
    } else if (id === 3) {
      for (let n = u32(), i = 0; i < n; i++) view.funcs.push(u32());
    } else if (id === 5) {
      if (u32()) view.memory = { flags: byte() };
    } else if (id === 7) {
      for (let n = u32(), i = 0; i < n; i++) {
        const nm = text(str()), kind = byte(), index = u32();
        view.exports.set(nm, { kind: KINDS[kind] ?? 'unknown kind', index });
      }
    }
    pos = end;
  }
  return view;
}

/* Checks export f is a function taking n i32 and returning one i32 (the type only when
 * the view has the types). */
function checkFunc(view, f, n, name) {
  const e = view.exports.get(f);
  if (!e) throw fail('abi', `${name}: not a wasmgraph module: no export '${f}'`);
  if (e.kind !== 'function') throw fail('abi', `${name}: export '${f}' is a ${e.kind}, expected a function`);
  if (!view.types) return;
  const t = view.types[view.funcs[e.index]];
  if (!t) throw fail('format', `${name}: export '${f}' names function ${e.index}, which has no type`);
  const [params, results] = t;
  if (params.length !== n || params.some((v) => v !== 0x7f) || results.length !== 1 || results[0] !== 0x7f) {
    const vt = (v) => ({ 0x7f: 'i32', 0x7e: 'i64', 0x7d: 'f32', 0x7c: 'f64', 0x7b: 'v128' })[v] ?? 'ref';
    throw fail('abi', `${name}: export '${f}' has type (${params.map(vt).join(', ')}) -> (${results.map(vt).join(', ')}), expected ${n ? '(i32) -> (i32)' : '() -> (i32)'}`);
  }
}

/* The metadata's optional members, each of its documented type when present (docs/abi.md). */
function checkMembers(meta, name) {
  const bad = (msg) => fail('format', `${name}: metadata: ${msg}`);
  const count = (v) => v === undefined || (Number.isInteger(v) && v >= 0);
  if (!['name', 'producer', 'compiler'].every((k) => meta[k] === undefined || typeof meta[k] === 'string')) {
    throw bad('name, producer and compiler must be strings');
  }
  if (!['opset', 'arena_bytes', 'weight_bytes', 'memory_bytes', 'weights_base'].every((k) => count(meta[k]))) {
    throw bad('opset, arena_bytes, weight_bytes, memory_bytes and weights_base must be non-negative integers');
  }
  const o = meta.options;
  if (o !== undefined && (!o || typeof o !== 'object' || Array.isArray(o) || !count(o.opt_level) ||
      !['simd', 'relaxed_simd'].every((k) => o[k] === undefined || typeof o[k] === 'boolean'))) {
    throw bad('"options" must be an object with booleans simd, relaxed_simd and an integer opt_level');
  }
  const sw = meta.step_weights;
  if (sw !== undefined) {
    if (!Array.isArray(sw)) throw bad('"step_weights" is not an array');
    if (sw.length > LIMITS.steps) throw bad(`${sw.length} step_weights (at most ${LIMITS.steps})`);
    sw.forEach((v, k) => {
      const prev = k ? sw[k - 1] : 0;
      if (!Number.isInteger(v) || v < prev || (meta.weight_bytes !== undefined && v > meta.weight_bytes)) {
        throw bad(`step_weights[${k}] is not an integer in [${prev}, weight_bytes]`);
      }
    });
  }
  const pr = meta.profile;
  if (pr !== undefined) {
    if (!Array.isArray(pr)) throw bad('"profile" is not an array');
    if (pr.length > LIMITS.steps) throw bad(`${pr.length} profile steps (at most ${LIMITS.steps})`);
    pr.forEach((st, i) => {
      if (!st || typeof st.op !== 'string' || typeof st.name !== 'string' || (st.output !== undefined && typeof st.output !== 'string')) {
        throw bad(`profile step ${i} needs string members "op" and "name"`);
      }
    });
  }
}

/**
 * Reads and checks the metadata and the module's interface without instantiating:
 * `module` is a WebAssembly.Module or the module's bytes (a Uint8Array). From bytes every
 * check of docs/abi.md is made, as the C host makes them (function types and the memory
 * included); a compiled Module tells the JS API less, so its function types and memory
 * flags are not checked. Returns the parsed metadata; throws WasmgraphError('format'|'abi').
 */
export function inspect(module, name = 'module') {
  const view = module instanceof WebAssembly.Module ? moduleView(module) : bytesView(module, name);
  const secs = view.sections;
  if (secs.length === 0) throw fail('abi', `${name}: not a wasmgraph module: no '${SECTION_NAME}' custom section`);
  if (secs.length > 1) throw fail('abi', `${name}: ${secs.length} '${SECTION_NAME}' custom sections, expected one`);
  let meta, text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(secs[0]);
  } catch (e) {
    throw fail('format', `${name}: metadata ('${SECTION_NAME}' section) is not valid UTF-8`, e);
  }
  try {
    meta = JSON.parse(text);
  } catch (e) {
    throw fail('format', `${name}: metadata ('${SECTION_NAME}' section) is not valid JSON: ${e.message}`, e);
  }
  if (!meta || typeof meta !== 'object' || Array.isArray(meta)) throw fail('format', `${name}: metadata is not a JSON object`);
  if (!Number.isInteger(meta.abi)) throw fail('abi', `${name}: metadata has no integer "abi" version`);
  const threaded = meta.threads !== undefined;
  if (meta.abi < ABI_VERSION_MIN || meta.abi > ABI_VERSION) {
    throw fail('abi', `${name}: module ABI version ${meta.abi}, this loader supports ${ABI_VERSION_MIN}..${ABI_VERSION}`);
  }
  if (threaded && (!Number.isInteger(meta.threads) || meta.threads < 1 || meta.threads > 1024)) {
    throw fail('abi', `${name}: metadata: "threads" must be an integer 1..1024`);
  }
  if (threaded && meta.abi < 2) {
    throw fail('abi', `${name}: metadata: "threads" needs ABI version 2, the module says ${meta.abi}`);
  }
  checkMembers(meta, name);
  const symbols = meta.abi >= 2 ? checkSymbols(meta, name) : [];
  const inputs = checkTensors(meta.inputs, 'input', name, symbols, meta.abi);
  const outputs = checkTensors(meta.outputs, 'output', name, symbols, meta.abi);
  if (outputs.length === 0) throw fail('format', `${name}: metadata: the model has no outputs`);

  const imports = view.imports;
  if (threaded && (imports.length !== 1 || imports[0].kind !== 'memory' || (view.memory && (view.memory.flags & 3) !== 3))) {
    throw fail('abi', `${name}: the metadata says "threads" but the module does not import a shared memory with a maximum as its only import`);
  }
  if (imports.length && !threaded) {
    const i = imports[0];
    throw fail('abi', `${name}: the module imports ${i.module}.${i.name} (a ${i.kind})${imports.length > 1 ? ' and more' : ''}; wasmgraph modules must have no imports`);
  }
  const mem = view.exports.get('memory');
  if (!mem) throw fail('abi', `${name}: not a wasmgraph module: no export 'memory'`);
  if (mem.kind !== 'memory' || (view.types && (!view.memory || mem.index !== 0))) {
    throw fail('abi', `${name}: export 'memory' is a ${mem.kind}, expected the module's memory`);
  }
  if (view.memory && view.memory.flags & (threaded ? 4 : 6)) {
    throw fail('abi', `${name}: the module's memory is ${view.memory.flags & 4 ? '64-bit' : 'shared'}; ABI v1 needs a plain 32-bit memory`);
  }
  for (const [f, n] of Object.entries(REQUIRED_FUNCS)) checkFunc(view, f, n, name);
  if (symbols.length) checkFunc(view, 'wg_dims_ptr', 0, name);
  if (outputs.some((t) => t.bounded)) checkFunc(view, 'wg_output_dims_ptr', 1, name);
  if (inputs.some((t) => t.mayBeEmpty)) checkFunc(view, 'wg_input_empty_ptr', 0, name);
  const cachePairs = checkCachePairs(meta, inputs, outputs, symbols, name); /* docs/abi.md "Resident KV caches" */
  if (cachePairs.length) checkFunc(view, 'wg_cache_mode_ptr', 0, name);
  if (threaded) for (const [f, n] of Object.entries(THREAD_FUNCS)) checkFunc(view, f, n, name);
  for (const [f, [n, member]] of Object.entries(OPTIONAL_FUNCS)) {
    if (meta[member] !== undefined || view.exports.has(f)) checkFunc(view, f, n, name);
  }
  return { ...meta, symbols, inputs, outputs, cachePairs };
}

/** A compiled, checked module: create any number of independent sessions from it. */
export class Model {
  // weights: null (compiled whole), or { segments, bytes } (a copy of the segments'
  // bytes, segment pos relative to it), or
  // { segments, file, size, mtimeMs } (a file in Node, read again for each session).
  constructor(module, metadata, name, weights = null, code = null) {
    this.module = module;
    this.code = code; // a threaded module's compiled bytes (threads.mjs patchUnshared), else null
    this.metadata = metadata;
    this.name = name;
    this.weights = weights;
  }

  get inputs() { return this.metadata.inputs; }
  get outputs() { return this.metadata.outputs; }

  /** Drops the compiled code and the weights' copy; sessions made before keep working. */
  dispose() {
    this.module = null;
    this.weights = null;
  }

  /**
   * Instantiates the module (no imports), puts the weights into its memory and checks
   * what its exports return. options.streamWeights (Node, a model compiled from a file):
   * return as soon as the reads of the weights have started (and the kernels' static
   * data, a few KiB read first, is in); the session's first runAsync() runs the graph
   * step by step, each step once the weights it reads are in, so reading overlaps the
   * first run. run() waits for nothing: before `session.ready`
   * has resolved it throws a 'state' error. options.pieceBytes: the size of each read
   * request (default 8 MiB, streamed 1 MiB).
   */
  async createSession(options = {}) {
    options = checkOptions(options, SESSION_OPTIONS, `${this.name}: createSession()`);
    if (!this.module) throw fail('state', `${this.name}: the model was disposed`);
    let instance, threads = null;
    if (this.metadata.threads !== undefined) return this.#createThreaded(options);
    try {
      instance = await WebAssembly.instantiate(this.module, {});
    } catch (e) {
      throw fail('abi', `${this.name}: cannot instantiate: ${e.message}`, e);
    }
    if (!this.weights) return new Session(this, instance, null, threads);
    const memory = this.#checkSegments(instance.exports.memory);
    const stream = options.streamWeights && this.weights.file ? stepWeights(this.metadata, instance.exports, this.weights.segments) : null;
    if (!stream) {
      await this.#copyWeights(memory, options.pieceBytes);
      return new Session(this, instance);
    }
    /* One read at a time while the first run computes on this thread (more reading
     * threads slow it down more than they gain on 2 cores), all at once when it waits. */
    const { fh, reads, hurry } = await this.#startFileReads(memory, options.pieceBytes ?? STREAM_PIECE, 1);
    const loading = { ...stream, reads, hurry, all: settle(reads).finally(() => fh.close()) };
    loading.all.catch(() => {}); /* handled: reported through session.ready and runAsync() */
    /* The other segments (the kernels' static data, read first) before the Session
     * calls the exports: clang may compile a switch, such as wg_output_ptr's with
     * several outputs, to a table in them. */
    try {
      await Promise.all(reads.filter((r) => r.seg !== stream.weights).map((r) => r.done));
    } catch (e) {
      throw readError(this.name, e);
    }
    return new Session(this, instance, loading);
  }

  /* A threaded module (threads.mjs): its memory, thread 0's instance with the weights in,
   * then the other threads, started here and kept until dispose(). */
  async #createThreaded(options) {
    const T = await import('./threads.mjs');
    const want = options.threads ?? 1;
    if (want > this.metadata.threads) {
      throw fail('arg', `${this.name}: threads: ${want}, but the module was compiled for at most ${this.metadata.threads} (compile --threads --max-threads N)`);
    }
    const available = T.threadsAvailable();
    if (!available && !options.threadsFallback) {
      throw fail('threads', `${this.name}: a threaded module needs SharedArrayBuffer, which this context does not have: serve the page cross-origin isolated (Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp), or pass threadsFallback: true to run on one thread`);
    }
    const n = available ? want : 1;
    if (n > 1 && !T.canWait()) {
      throw fail('threads', `${this.name}: threads: ${n} cannot run on a page's main thread (it may not wait): load() with worker: true`);
    }
    let module = this.module;
    if (!available) {
      const bytes = this.code && T.patchUnshared(this.code);
      if (!bytes) throw fail('abi', `${this.name}: cannot make the module's memory unshared for one thread`);
      module = await WebAssembly.compile(bytes);
    }
    const memory = T.moduleMemory(this.metadata, available);
    let instance;
    try {
      instance = await WebAssembly.instantiate(module, { env: { memory } });
    } catch (e) {
      throw fail('abi', `${this.name}: cannot instantiate: ${e.message}`, e);
    }
    if (this.weights) await this.#copyWeights(this.#checkSegments(instance.exports.memory), options.pieceBytes);
    const threads = n > 1 ? await T.startThreads(module, memory, n, this.name) : null;
    try {
      return new Session(this, instance, null, threads);
    } catch (e) {
      threads?.stop();
      throw e;
    }
  }

  /* The instance's memory, once every data segment is known to fit in it. */
  #checkSegments(memory) {
    if (!(memory instanceof WebAssembly.Memory)) throw fail('abi', `${this.name}: not a wasmgraph module: no export 'memory'`);
    const room = memory.buffer.byteLength;
    this.weights.segments.forEach((g, i) => {
      if (g.mem + g.len > room) {
        throw fail('abi', `${this.name}: data segment ${i} (${g.len} bytes at ${g.mem}) does not fit in memory (${room} bytes)`);
      }
    });
    return memory;
  }

  /* Opens the file again, checks it is the one compiled, and starts reading every
   * segment into memory: { fh, reads } (startReads). */
  async #startFileReads(memory, piece = READ_PIECE, lanes = Infinity) {
    const w = this.weights;
    if (!Number.isInteger(piece) || piece < 1) throw fail('arg', `${this.name}: pieceBytes must be a positive integer, not ${piece}`);
    const { open } = await import('node:fs/promises');
    let fh;
    try {
      fh = await open(w.file, 'r');
      const st = await fh.stat();
      if (st.size !== w.size || st.mtimeMs !== w.mtimeMs) {
        throw fail('io', `${this.name}: the file changed since the model was compiled (now ${st.size} bytes, was ${w.size}): compile it again`);
      }
      return { fh, ...startReads(fh, memory, w.segments, this.name, piece, lanes) };
    } catch (e) {
      if (fh !== undefined) await fh.close();
      throw readError(this.name, e);
    }
  }

  /* What instantiating the whole module would have done: each data segment into memory. */
  async #copyWeights(memory, piece) {
    const w = this.weights;
    if (w.bytes) {
      for (const g of w.segments) new Uint8Array(memory.buffer, g.mem, g.len).set(w.bytes.subarray(g.pos, g.pos + g.len));
      return;
    }
    const { fh, reads } = await this.#startFileReads(memory, piece);
    try {
      await settle(reads);
    } catch (e) {
      throw readError(this.name, e);
    } finally {
      await fh.close();
    }
  }
}

/* What createSession() accepts, and load() too (with name and worker). */
const SESSION_OPTIONS = { streamWeights: isBool, pieceBytes: isPositiveInt, threads: isPositiveInt, threadsFallback: isBool };
const LOAD_OPTIONS = { ...SESSION_OPTIONS, name: isString, worker: isBool };

export class Session {
  // null, or the weights still being read (Model.createSession, streamWeights):
  // { steps, weights, reads, hurry, all } (stepWeights, startReads, all: their settling).
  #loading;
  #streaming = false; // a runAsync() is running the steps
  #brokenCode = 'trap'; // the error code once broken: 'trap', or 'io' after a failed read
  #disposed = false;
  #symbols = []; // ABI 2: the metadata's symbols
  #dimValues = []; // their values for the next run (set by run(feeds) or setDims)
  #dimsPtr = 0;
  #emptyPtr = 0; // inputs that may be empty: where wg_input_empty is (docs/abi.md "Empty inputs")
  #empty = []; // per input: given empty to the next run (set by run(feeds))
  #outDims = null; // ABI 2: each output's dims as the last run reported them (data-dependent sizes)
  #cache = null; // the KV caches the module keeps (cache.mjs, docs/abi.md "Resident KV caches")

  #threads; // null, or a threaded session's other threads (threads.mjs startThreads)

  constructor(model, instance, loading = null, threads = null) {
    this.model = model;
    this.#threads = threads;
    this.exports = instance.exports;
    this.memory = instance.exports.memory;
    this.broken = null; // set after a trap or a failed weight read: the instance is then unusable
    this.#loading = loading;
    /** Resolves once every weight is in memory (at once unless streamWeights). */
    this.ready = loading ? loading.all.then(() => { this.#loading = null; }, (e) => { throw this.#readFailed(e); }) : Promise.resolve();
    this.ready.catch(() => {}); /* a failure is reported by whoever awaits ready or runs */
    const name = model.name;
    const version = this.#call('wg_abi_version');
    if (version !== model.metadata.abi) {
      throw fail('abi', `${name}: wg_abi_version() returns ${version} but the metadata says ABI ${model.metadata.abi}`);
    }
    this.inputPtrs = model.inputs.map((t, i) => this.#tensorAddr('wg_input_ptr', i, t));
    this.outputPtrs = model.outputs.map((t, i) => this.#tensorAddr('wg_output_ptr', i, t));
    /* ABI 2: where the symbols' values go (wg_dims_ptr), and their values now (the maxima) */
    this.#symbols = model.metadata.symbols || [];
    this.#dimValues = this.#symbols.map((y) => y.max);
    if (this.#symbols.length) {
      const p = this.#call('wg_dims_ptr') >>> 0;
      if (p === 0 || p % 4 || p + 4 * this.#symbols.length > this.memory.buffer.byteLength) {
        throw fail('abi', `${name}: wg_dims_ptr() = ${p} is not an aligned array of ${this.#symbols.length} i32 inside memory`);
      }
      this.#dimsPtr = p;
    }
    this.#empty = model.inputs.map(() => false);
    if (model.inputs.some((t) => t.mayBeEmpty)) {
      const p = this.#call('wg_input_empty_ptr') >>> 0;
      if (p === 0 || p % 4 || p + 4 * model.inputs.length > this.memory.buffer.byteLength) {
        throw fail('abi', `${name}: wg_input_empty_ptr() = ${p} is not an aligned array of ${model.inputs.length} i32 inside memory`);
      }
      this.#emptyPtr = p;
    }
    if (model.outputs.some((t) => t.bounded)) this.#outDims = model.outputs.map((t) => t.shape.slice());
    this.#cache = new CacheState(model, this.memory, (f) => this.#call(f));
    /* The step counts the metadata gives, as the exports return them (docs/abi.md). */
    for (const [f, member, what] of [['wg_run_steps', 'step_weights', "the metadata's step_weights has"], ['wg_profile_steps', 'profile', 'the metadata lists']]) {
      const list = model.metadata[member];
      if (list === undefined) continue;
      const n = this.#call(f);
      if (n !== list.length) throw fail('abi', `${name}: ${f}() returns ${n} but ${what} ${list.length} ${member === 'profile' ? 'profile steps' : 'entries'}`);
    }
  }

  get metadata() { return this.model.metadata; }
  get inputs() { return this.model.inputs; }
  get outputs() { return this.model.outputs; }

  #call(fname, ...args) {
    try {
      return this.exports[fname](...args);
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError) {
        this.broken = `${fname} trapped`;
        this.#brokenCode = 'trap';
        throw fail('trap', `${this.model.name}: trap in ${fname}: ${e.message}`, e);
      }
      throw e;
    }
  }

  #tensorAddr(fname, i, t) {
    const ptr = this.#call(fname, i) >>> 0;
    const memBytes = this.memory.buffer.byteLength;
    const elem = DTYPES[t.dtype][1];
    if (ptr + t.bytes > memBytes) {
      throw fail('abi', `${this.model.name}: ${fname}(${i}) = ${ptr}: ${t.bytes} bytes of '${t.name}' do not fit in memory of ${memBytes} bytes`);
    }
    if (ptr % elem) {
      throw fail('abi', `${this.model.name}: ${fname}(${i}) = ${ptr} is not aligned to ${elem} bytes for ${t.dtype} '${t.name}'`);
    }
    return ptr;
  }

  #index(list, which, what) {
    if (typeof which === 'string') {
      const i = list.findIndex((t) => t.name === which);
      if (i < 0) throw fail('arg', `${this.model.name}: no ${what} called '${which}' (${what}s: ${list.map((t) => t.name).join(', ')})`);
      return i;
    }
    if (!Number.isInteger(which) || which < 0 || which >= list.length) {
      throw fail('arg', `${this.model.name}: ${what} index ${which} out of range (the model has ${list.length})`);
    }
    return which;
  }

  #view(t, ptr) {
    const [Ctor] = DTYPES[t.dtype];
    // A fresh view each time: it stays valid even if memory were ever grown.
    return new Ctor(this.memory.buffer, ptr, t.size);
  }

  /**
   * Typed-array view of input `which` (index or name) in linear memory: write into it.
   * The view is exactly the tensor: a write past its end throws a RangeError.
   */
  input(which = 0) {
    this.#checkLive();
    const i = this.#index(this.inputs, which, 'input');
    return this.#view(this.inputs[i], this.inputPtrs[i]);
  }

  /** Typed-array view of output `which` (index or name): valid until the next run(). */
  output(which = 0) {
    this.#checkLive();
    const i = this.#index(this.outputs, which, 'output');
    return this.#view(this.outputs[i], this.outputPtrs[i]);
  }

  /**
   * run(feeds): checks and writes each input (checkFeeds), runs the graph and returns
   * { outputName: typedArray }, copies that survive the next run. run() with no
   * argument runs on what the input views hold and returns nothing (zero-copy: read
   * the output views). Throws WasmgraphError on a bad feed, a status or a trap.
   */
  run(feeds) {
    if (feeds === undefined) {
      this.#runViews();
      return undefined;
    }
    this.#checkLive();
    this.#write(feeds);
    this.#runViews();
    return this.#copyOutputs();
  }

  #write(feeds) {
    if (this.#symbols.length) {
      const { arrays, values, empty } = symbolicFeeds(feeds, this.inputs, this.#symbols, this.model.name);
      this.#dimValues = values;
      this.#empty = empty;
      arrays.forEach((v, i) => new (DTYPES[this.inputs[i].dtype][0])(this.memory.buffer, this.inputPtrs[i], v.length).set(v));
      return;
    }
    checkFeeds(feeds, this.inputs, this.model.name).forEach((v, i) => this.#view(this.inputs[i], this.inputPtrs[i]).set(v));
  }

  /* Output i's view at the current sizes (ABI 2: a prefix of its buffer). */
  #outputNow(i) {
    const t = this.outputs[i];
    if (!t.dims) return this.#view(t, this.outputPtrs[i]);
    return new (DTYPES[t.dtype][0])(this.memory.buffer, this.outputPtrs[i], this.outputShape(i).reduce((a, d) => a * d, 1));
  }

  /* An output with a data-dependent dim comes as { data, dims } (its size is the run's). */
  #copyOutputs() {
    const out = {};
    this.outputs.forEach((t, i) => {
      const data = this.#outputNow(i).slice();
      out[t.name] = t.bounded ? { data, dims: this.outputShape(i) } : data;
    });
    return out;
  }

  /* After a run of a module with data-dependent output dims: every output's dims from
   * wg_output_dims_ptr(i), checked against the metadata (as src/host/session_dims.c):
   * a module reporting more than a bound is an 'abi' error, never a read past it. */
  #readOutDims() {
    if (!this.#outDims) return;
    const name = this.model.name;
    this.outputs.forEach((t, i) => {
      const p = this.#call('wg_output_dims_ptr', i) >>> 0;
      if (p === 0 || p % 4 || p + 4 * t.shape.length > this.memory.buffer.byteLength) {
        throw fail('abi', `${name}: wg_output_dims_ptr(${i}) = ${p} is not an aligned array of ${t.shape.length} i32 inside memory`);
      }
      const got = Array.from(new Int32Array(this.memory.buffer, p, t.shape.length));
      const want = t.dims ? t.dims.map((d) => (typeof d === 'string' ? this.#dimValues[this.#symbols.findIndex((y) => y.name === d)] : d)) : t.shape;
      got.forEach((v, d) => {
        const bound = want[d] !== null && typeof want[d] === 'object';
        if (bound ? v < 0 || v > want[d].max : v !== want[d]) {
          throw fail('abi', `${name}: output '${t.name}' dimension ${d} is ${v} after the run (wg_output_dims_ptr), but the metadata ${bound ? 'bounds it at' : 'makes it'} ${bound ? want[d].max : want[d]}`);
        }
      });
      this.#outDims[i] = got;
    });
  }

  /**
   * ABI 2: the symbols' values for the next run, e.g. setDims({ batch: 2, seq: 9 }), for
   * the zero-copy path (write the input views' first elements, run(), read outputShape).
   * Symbols not named keep their values (at first their maxima). run(feeds) sets them
   * from the feeds' dims. Throws 'arg' for an unknown symbol or a value out of range.
   */
  setDims(values) {
    this.#checkLive();
    const next = this.#dimValues.slice();
    for (const [k, v] of Object.entries(values || {})) {
      const s = this.#symbols.findIndex((y) => y.name === k);
      if (s < 0) throw fail('arg', `${this.model.name}: the model has no symbolic dimension '${k}'`);
      const y = this.#symbols[s];
      if (!symbolTakes(y, v)) {
        throw fail('arg', `${this.model.name}: symbol '${k}' = ${v} is outside its range ${rangeText(y)}`);
      }
      next[s] = v;
    }
    this.#dimValues = next;
    this.#empty = this.#empty.map(() => false); /* the zero-copy path gives no input empty */
  }

  /** The actual dims of output `which` at the current sizes (after run(): that run's). */
  outputShape(which = 0) {
    this.#checkLive();
    const t = this.outputs[this.#index(this.outputs, which, 'output')];
    if (!t.dims) return t.shape.slice();
    if (this.#outDims) return this.#outDims[this.outputs.indexOf(t)].slice();
    return t.dims.map((d) => (typeof d === 'string' ? this.#dimValues[this.#symbols.findIndex((y) => y.name === d)] : d));
  }

  /**
   * Frees the session now: drops the instance, its memory and the views, so the memory
   * goes back with the next collection whatever still refers to the Session (in worker
   * mode the worker ends, which frees it at once). Any later use is a 'state' error.
   */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#threads?.stop();
    this.#threads = null;
    this.exports = null;
    this.memory = null;
    this.inputPtrs = this.outputPtrs = null;
    this.#loading = null;
  }

  get disposed() { return this.#disposed; }

  /** The threads run() uses (1 unless a threaded module was loaded with threads: N). */
  get threads() { return this.#threads ? this.#threads.threads : 1; }

  #runViews() {
    this.#checkUsable();
    if (this.#streaming) throw fail('state', `${this.model.name}: a runAsync() is still running on this session`);
    if (this.#loading) {
      throw fail('state', `${this.model.name}: the weights are still being read: await session.ready first, or use runAsync()`);
    }
    this.#cache.write(this.model, this.memory, this.#dimValues); /* the KV caches' modes, lengths checked */
    this.#putSizes();
    if (this.#threads) {
      const st = this.#threads.run((f, ...a) => this.#call(f, ...a), 0, this.model.metadata.step_weights.length);
      if (st !== 0) throw fail('status', `${this.model.name}: wg_run_thread returned status ${this.#statusText(st)}`);
    } else {
      const st = this.#call('wg_run');
      if (st !== 0) throw fail('status', `${this.model.name}: wg_run returned status ${this.#statusText(st)}`);
    }
    this.#readOutDims(); /* ABI 2: data-dependent output dims, on any thread count */
    this.#cache.ran(this.model, this.#dimValues, this.#outDims);
  }

  /**
   * The KV caches the module keeps (docs/abi.md "Resident KV caches"): mode 'copy' (the
   * default: the pasts come from their inputs), 'resident' (the pasts are the rows the
   * module's regions hold: give their length through the dims alone and write nothing into
   * them; the module writes the new rows after them) or 'load' (as 'copy', and the presents
   * are kept for a resident run after it). 'arg' for a module without cache pairs.
   */
  setCacheMode(mode) {
    this.#checkLive();
    this.#cache.setMode(mode, this.model.name);
  }

  /** The mode of the next runs: 'copy', 'resident' or 'load'. */
  get cacheMode() { return this.#cache.mode; }
  /** The rows the module's cache regions hold (pair 0's), 0 before a resident or load run. */
  get cacheRows() { return this.#cache.rows.length ? this.#cache.rows[0] : 0; }
  /** The metadata's cache pairs: [{ past, present, axis, capacity }] (input and output indices). */
  get cachePairs() { return this.model.metadata.cachePairs; }

  /* ABI 2: the symbols' values into wg_dims, and which inputs are empty into wg_input_empty. */
  #putSizes() {
    if (this.#dimsPtr) new Int32Array(this.memory.buffer, this.#dimsPtr, this.#symbols.length).set(this.#dimValues);
    if (this.#emptyPtr) new Int32Array(this.memory.buffer, this.#emptyPtr, this.#empty.length).set(this.#empty.map(Number));
  }

  #statusText(st) {
    return statusText(st, this.inputs.filter((t, i) => this.#empty[i]).map((t) => t.name));
  }

  /**
   * run(), as a Promise. While the weights are still being read (streamWeights), runs
   * the graph step by step (wg_run_step), each step as soon as the weights it reads are
   * in memory, and resolves once the run and every read are done.
   */
  async runAsync(feeds) {
    const loading = this.#loading;
    if (!loading) return this.run(feeds);
    this.#checkUsable();
    if (this.#streaming) throw fail('state', `${this.model.name}: runAsync() is already running on this session`);
    if (feeds !== undefined) this.#write(feeds);
    this.#streaming = true;
    try {
      await this.#runStreamed(loading);
    } finally {
      this.#streaming = false;
    }
    this.#readOutDims();
    this.#cache.ran(this.model, this.#dimValues, this.#outDims);
    return feeds === undefined ? undefined : this.#copyOutputs();
  }

  /* The steps in order, each once the weights it reads are in, then the rest of them. */
  async #runStreamed(loading) {
    const { steps, weights, reads, hurry } = loading;
    const name = this.model.name;
    /* Reads in file order: the weights segment's pieces by offset (every other segment
     * is in: createSession). */
    const pieces = reads.filter((r) => r.seg === weights);
    let next = 0;
    for (let k = 0; k < steps.length; k++) {
      while (next < pieces.length && pieces[next].off < steps[k]) {
        if (!pieces[next].settled) hurry(); /* the run waits: read everything left at once */
        try {
          await pieces[next++].done;
        } catch (e) {
          throw this.#readFailed(e);
        }
      }
      this.#checkUsable();
      if (k === 0) {
        this.#cache.write(this.model, this.memory, this.#dimValues);
        this.#putSizes();
      }
      const st = this.#call('wg_run_step', k);
      if (st !== 0) throw fail('status', `${name}: wg_run_step(${k}) returned status ${this.#statusText(st)}`);
    }
    await this.ready;
  }

  #checkLive() {
    if (this.#disposed) throw fail('state', `${this.model.name}: the session was disposed`);
  }

  #checkUsable() {
    this.#checkLive();
    if (this.broken) {
      throw fail(this.#brokenCode, `${this.model.name}: session unusable (${this.broken} earlier); create a new session`);
    }
  }

  /* A weight read failed: the session is unusable; the error to report (an 'io' one). */
  #readFailed(e) {
    this.broken = 'its weights could not be read';
    this.#brokenCode = 'io';
    return readError(this.model.name, e);
  }
}

/** Compiles and checks a module (path, URL, Response, bytes or WebAssembly.Module). */
export async function compile(source, name) {
  if (name !== undefined && typeof name !== 'string') throw fail('arg', `compile(): the name must be a string, not ${describe(name)}`);
  if (source instanceof WebAssembly.Module) return new Model(source, inspect(source, name || 'module'), name || 'module');
  const src = await readSource(source);
  const label = name || src.name;
  let bytes = src.bytes, split = null, weights = null;
  if (src.file) {
    const fs = await import('node:fs');
    let fd;
    try {
      fd = fs.openSync(src.file, 'r');
      const st = fs.fstatSync(fd);
      const read = (pos, len) => {
        const b = new Uint8Array(Math.min(len, st.size - pos));
        readInto(fs, fd, b, pos, label);
        return b;
      };
      if (st.isFile()) {
        const problem = scanModule(read, st.size);
        if (problem) throw fail('format', `${label}: ${problem}`);
      }
      split = st.isFile() ? splitModule(read, st.size) : null;
      if (split) weights = { segments: split.segments, file: src.file, size: st.size, mtimeMs: st.mtimeMs };
      else bytes = new Uint8Array(fs.readFileSync(fd));
    } catch (e) {
      throw readError(label, e);
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  } else {
    const read = (pos, len) => bytes.subarray(pos, pos + len);
    const problem = scanModule(read, bytes.length);
    if (problem) throw fail('format', `${label}: ${problem}`);
    split = splitModule(read, bytes.length);
    if (split) {
      /* A copy of the segments' bytes (what V8 would copy), so that the caller may reuse
       * or change its buffer after compile() returns. */
      const lo = Math.min(...split.segments.map((g) => g.pos), bytes.length);
      const hi = Math.max(...split.segments.map((g) => g.pos + g.len), lo);
      weights = { segments: split.segments.map((g) => ({ ...g, pos: g.pos - lo })), bytes: bytes.slice(lo, hi) };
    }
  }
  /* The checks run on the bytes first, as the C host's do: a module the ABI refuses gets
   * the same verdict here, whatever V8 would make of it (split.code has every section
   * but the data). */
  const metadata = inspect(split ? split.code : bytes, label);
  let module;
  try {
    module = await WebAssembly.compile(split ? split.code : bytes);
  } catch (e) {
    throw fail('format', `${label}: not a valid WebAssembly module: ${e.message}`, e);
  }
  return new Model(module, metadata, label, weights, metadata.threads !== undefined ? (split ? split.code : bytes) : null);
}

/**
 * compile() then createSession(): the common case. options: a name for messages (a
 * string), or { name, streamWeights, pieceBytes, worker }. worker: true runs the module
 * in a Web Worker (Node: a worker thread) and gives a RemoteSession (remote.mjs) whose
 * run() returns a Promise. An unknown option is an 'arg' error naming it.
 */
export async function load(source, options = {}) {
  const o = checkOptions(typeof options === 'string' ? { name: options } : options, LOAD_OPTIONS, 'load()');
  const { name, worker, ...session } = o;
  /* A page's main thread may not wait: a threaded session runs in a worker there. */
  const pageThread = !isNode && typeof window !== 'undefined';
  if (worker || (pageThread && session.threads > 1)) return (await import('./remote.mjs')).loadInWorker(source, { name, ...session });
  return (await compile(source, name)).createSession(session);
}
