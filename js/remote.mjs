// remote.mjs: `load(source, { worker: true })`: a Session that lives in a Web Worker
// (Node: a worker thread) running worker.mjs, so that run() does not block the page.
// The caller's side checks the feeds with the same checkFeeds() as a local session (a
// mismatch is thrown at once, before anything is posted), transfers the inputs' buffers
// when a typed array spans a whole ArrayBuffer of its own (else posts a copy), and gets
// the outputs' buffers transferred back. Errors come back as WasmgraphError with the
// worker's code and message.

import { WasmgraphError, fail } from './errors.mjs';
import { checkFeeds, symbolicFeeds } from './feeds.mjs';

const isNode = typeof process !== 'undefined' && !!(process.versions && process.versions.node);
const WORKER_URL = new URL('./worker.mjs', import.meta.url);

/* A Worker and its message plumbing: call(op, fields, transfer) -> Promise of the reply. */
async function startWorker(label) {
  const pending = new Map();
  let nextId = 1, dead = null, started;
  const ready = new Promise((resolve) => { started = resolve; });
  const settle = (msg) => {
    if (msg.id === 0) return started();
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    idle();
    if (msg.ok) p.resolve(msg);
    else p.reject(new WasmgraphError(msg.error.code, msg.error.message));
  };
  const die = (why) => {
    dead = fail('worker', `${label}: the worker ${why}`);
    for (const p of pending.values()) p.reject(dead);
    pending.clear();
    started();
  };
  let worker, send, stop, idle = () => {};
  if (isNode) {
    const { Worker } = await import('node:worker_threads');
    worker = new Worker(WORKER_URL);
    worker.on('message', settle);
    worker.on('error', (e) => die(`failed: ${e.message}`));
    worker.on('exit', (code) => { if (!dead) die(`exited (code ${code})`); });
    /* Keeps the process alive only while it starts or a call waits for its answer. */
    send = (msg, transfer) => { worker.ref(); worker.postMessage(msg, transfer); };
    idle = () => { if (!pending.size) worker.unref(); };
    stop = () => worker.terminate();
  } else {
    worker = new Worker(WORKER_URL, { type: 'module' });
    worker.onmessage = (ev) => settle(ev.data);
    worker.onerror = (ev) => { ev.preventDefault?.(); die(`failed: ${ev.message || 'cannot start worker.mjs'}`); };
    send = (msg, transfer) => worker.postMessage(msg, transfer);
    stop = () => worker.terminate();
  }
  await ready;
  idle();
  const call = (op, fields = {}, transfer = []) => {
    if (dead) return Promise.reject(dead);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      try {
        send({ id, op, ...fields }, transfer);
      } catch (e) {
        pending.delete(id);
        reject(fail('arg', `${label}: cannot post to the worker: ${e.message}`, e));
      }
    });
  };
  return { call, stop: () => { if (!dead) dead = fail('state', `${label}: the session was disposed`); return stop(); } };
}

/* What to post for a source: paths and URLs as strings (resolved against the page, not
 * the worker's own URL), bytes as a copy that is transferred, Responses read first. */
async function sourceMessage(source) {
  if (source instanceof WebAssembly.Module) return [source, []];
  if (source instanceof URL) return [source.href, []];
  if (typeof source === 'string') {
    if (!isNode && typeof location !== 'undefined') return [new URL(source, location.href).href, []];
    return [source, []];
  }
  if (typeof Response !== 'undefined' && source instanceof Response) {
    if (!source.ok) throw fail('io', `${source.url || 'response'}: HTTP ${source.status}`);
    const b = await source.arrayBuffer();
    return [b, [b]];
  }
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    const copy = (ArrayBuffer.isView(source) ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength) : new Uint8Array(source)).slice();
    return [copy.buffer, [copy.buffer]];
  }
  throw fail('arg', 'load() takes a path, a URL, a Response, bytes or a WebAssembly.Module');
}

/** The module loaded in a worker: load(source, { worker: true }) gives one. */
export class RemoteSession {
  #w;
  #disposed = false;

  constructor(w, metadata, name) {
    this.#w = w;
    this.metadata = metadata;
    this.name = name;
  }

  get inputs() { return this.metadata.inputs; }
  get outputs() { return this.metadata.outputs; }
  get disposed() { return this.#disposed; }

  /**
   * Checks the feeds (as Session.run does), posts them to the worker and resolves to
   * { outputName: typedArray } (an output of data-dependent size as { data, dims }).
   * An input that spans a whole ArrayBuffer is transferred
   * (the caller's array is detached afterwards); any other is copied.
   */
  async run(feeds) {
    if (this.#disposed) throw fail('state', `${this.name}: the session was disposed`);
    /* ABI 2: the sizes come from the feeds' dims, checked here and again by the worker */
    const symbols = (this.metadata && this.metadata.symbols) || [];
    const sym = symbols.length ? symbolicFeeds(feeds, this.inputs, symbols, this.name) : null;
    const arrays = sym ? sym.arrays : checkFeeds(feeds, this.inputs, this.name);
    const send = {}, transfer = [];
    this.inputs.forEach((t, i) => {
      let a = arrays[i];
      const whole = a.buffer instanceof ArrayBuffer && a.byteOffset === 0 && a.byteLength === a.buffer.byteLength && !a.buffer.resizable && !transfer.includes(a.buffer);
      if (whole) transfer.push(a.buffer);
      else a = a.slice();
      const f = feeds[t.name];
      send[t.name] = sym && f && !ArrayBuffer.isView(f) ? { data: a, dims: Array.from(f.dims || t.shape, Number) } : a;
      if (!whole) transfer.push(a.buffer);
    });
    return (await this.#w.call('run', { feeds: send }, transfer)).outputs;
  }

  /** Ends the worker, which frees the module's memory at once. Later use is a 'state' error. */
  async dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.#w.stop();
  }

  input() { throw fail('arg', `${this.name}: no zero-copy views in worker mode: use run(feeds)`); }
  output() { throw fail('arg', `${this.name}: no zero-copy views in worker mode: use run(feeds)`); }
}

/** Starts a worker, loads the module in it and gives its RemoteSession. */
export async function loadInWorker(source, options) {
  const [src, transfer] = await sourceMessage(source);
  const label = options.name || (typeof src === 'string' ? src : 'module');
  const w = await startWorker(label);
  try {
    const { metadata } = await w.call('load', { source: src, options }, transfer);
    return new RemoteSession(w, metadata, label);
  } catch (e) {
    await w.stop();
    throw e;
  }
}
