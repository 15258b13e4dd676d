// threads.mjs: sessions of threaded modules (`wasmgraph compile --threads`, docs/abi.md
// "Threads") in Node (worker_threads) and browsers (Web Workers).
//
// A threaded module imports its memory (env.memory, shared). The session's instance is
// thread 0 and runs on the caller's thread; threads 1..n-1 are workers started when the
// session is created (thread-worker.mjs), each with its own instance of the same
// WebAssembly.Module on the same memory. A run: wg_run_begin(n), then the workers are
// woken through a small SharedArrayBuffer (`ctl` below) and thread 0 runs its share,
// then waits for them (Atomics.wait: allowed in Node's main thread and in workers, not
// in a page's main thread, which is why load() runs a threaded session in a worker
// there). Inside the run the module's own barrier synchronises the threads. A worker
// that traps calls wg_threads_abort(), which makes the others return
// WGK_ERR_THREAD_ABORT, and leaves its message in ctl for thread 0 to report.
//
// Without SharedArrayBuffer (a page that is not cross-origin isolated) a threaded module
// cannot get its shared memory: load() says so, or with `threadsFallback: true` runs it
// on one thread, its import changed to a plain memory (patchUnshared): one thread never
// waits, and atomics on an unshared memory are valid wasm.

import { fail } from './errors.mjs';

const isNode = typeof process !== 'undefined' && !!(process.versions && process.versions.node);
const WORKER_URL = new URL('./thread-worker.mjs', import.meta.url);

// ctl, an Int32Array over a SharedArrayBuffer: the job and its results.
export const CTL = Object.freeze({ GEN: 0, QUIT: 1, K0: 2, K1: 3, N: 4, DONE: 5, READY: 6, RESULT: 8 });
export const TRAPPED = -0x7fffffff; // a worker's RESULT when its call trapped
// Reads of ctl a thread makes before it sleeps in Atomics.wait: waking a sleeping thread
// costs a futex round trip, paid twice a run without them (a worker for the run, thread 0
// for the workers' end). The reads last less than one such wake-up in Node 20 here
// (docs/performance.md).
export const SPIN_READS = 4096;
const MSG_BYTES = 512; // per thread, after the results: a trap's message (ASCII)

export function ctlLength(maxThreads) { return CTL.RESULT + maxThreads + (maxThreads * MSG_BYTES) / 4; }

/* Writes / reads thread t's message in ctl (ASCII, NUL-terminated). */
export function putMessage(ctl, maxThreads, t, text) {
  const bytes = new Uint8Array(ctl.buffer, (CTL.RESULT + maxThreads) * 4 + t * MSG_BYTES, MSG_BYTES);
  let i = 0;
  for (; i < text.length && i < MSG_BYTES - 1; i++) bytes[i] = text.charCodeAt(i) & 0x7f;
  bytes[i] = 0;
}
function getMessage(ctl, maxThreads, t) {
  const bytes = new Uint8Array(ctl.buffer, (CTL.RESULT + maxThreads) * 4 + t * MSG_BYTES, MSG_BYTES);
  let s = '';
  for (let i = 0; i < MSG_BYTES && bytes[i]; i++) s += String.fromCharCode(bytes[i]);
  return s;
}

/** Whether this context can run threads: SharedArrayBuffer and (in a page) cross-origin isolation. */
export function threadsAvailable() {
  if (typeof SharedArrayBuffer !== 'function') return false;
  return typeof crossOriginIsolated === 'undefined' || crossOriginIsolated === true;
}

/** Whether this thread may block in Atomics.wait (not a page's main thread). */
export function canWait() {
  return isNode || (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope);
}

/* The memory the module imports: initial = maximum = its size (docs/abi.md). */
export function moduleMemory(meta, shared) {
  const pages = Math.ceil(meta.memory_bytes / 65536);
  return new WebAssembly.Memory({ initial: pages, maximum: pages, shared });
}

/**
 * The module's bytes with its imported memory made unshared (limits flags 0x03 -> 0x01),
 * or null when the import section is not the one memory import a threaded module has.
 */
export function patchUnshared(bytes) {
  const leb = (p) => { let v = 0, s = 0, b; do { b = bytes[p++]; v += (b & 0x7f) * 2 ** s; s += 7; } while (b & 0x80 && s < 35); return [v, p]; };
  for (let pos = 8; pos < bytes.length;) {
    const id = bytes[pos];
    const [len, body] = leb(pos + 1);
    if (id === 2) {
      let [count, p] = leb(body);
      if (count !== 1) return null;
      for (let k = 0; k < 2; k++) { const [n, q] = leb(p); p = q + n; }
      if (bytes[p] !== 0x02 || bytes[p + 1] !== 0x03) return null;
      const out = bytes.slice();
      out[p + 1] = 0x01;
      return out;
    }
    pos = body + len;
  }
  return null;
}

/**
 * Starts threads 1..n-1 of a session: { run(exports, k0, k1) -> status, stop() }.
 * run() is synchronous (it blocks until every thread is done); it throws a 'trap'
 * WasmgraphError when a thread trapped.
 */
export async function startThreads(module, memory, n, name) {
  const ctl = new Int32Array(new SharedArrayBuffer(ctlLength(n) * 4));
  ctl[CTL.N] = n;
  const workers = [];
  const started = [];
  for (let t = 1; t < n; t++) {
    let worker;
    const ready = new Promise((resolve, reject) => {
      const onMessage = (m) => (m.ok ? resolve() : reject(fail('abi', `${name}: thread ${t}: ${m.error}`)));
      if (isNode) {
        worker = new WorkerNode(WORKER_URL);
        worker.on('message', onMessage);
        worker.on('error', (e) => reject(fail('worker', `${name}: thread ${t} failed: ${e.message}`)));
      } else {
        worker = new Worker(WORKER_URL, { type: 'module' });
        worker.onmessage = (ev) => onMessage(ev.data);
        worker.onerror = (ev) => { ev.preventDefault?.(); reject(fail('worker', `${name}: thread ${t} failed: ${ev.message || 'cannot start thread-worker.mjs'}`)); };
      }
    });
    worker.postMessage({ module, memory, ctl, t, name });
    workers.push(worker);
    started.push(ready);
  }
  const stop = () => {
    Atomics.store(ctl, CTL.QUIT, 1);
    Atomics.add(ctl, CTL.GEN, 1);
    Atomics.notify(ctl, CTL.GEN);
    for (const w of workers) w.terminate();
  };
  try {
    await Promise.all(started);
  } catch (e) {
    stop();
    throw e;
  }
  /* Idle workers (blocked in Atomics.wait) must not keep a Node process alive. */
  if (isNode) for (const w of workers) w.unref();
  const run = (call, k0, k1) => {
    const st0 = call('wg_run_begin', n);
    if (st0 !== 0) return st0;
    ctl[CTL.K0] = k0;
    ctl[CTL.K1] = k1;
    Atomics.store(ctl, CTL.DONE, 0);
    Atomics.add(ctl, CTL.GEN, 1);
    Atomics.notify(ctl, CTL.GEN);
    let status, trap = null;
    try {
      status = call('wg_run_thread', 0, k0, k1);
    } catch (e) {
      trap = e;
      try { call('wg_threads_abort'); } catch { /* the run is lost already */ }
    }
    /* The workers leave the module's last barrier when thread 0 does. */
    for (let i = 0; i < SPIN_READS && Atomics.load(ctl, CTL.DONE) < n - 1; i++);
    for (let d; (d = Atomics.load(ctl, CTL.DONE)) < n - 1;) Atomics.wait(ctl, CTL.DONE, d);
    if (trap) throw trap;
    for (let t = 1; t < n; t++) {
      if (ctl[CTL.RESULT + t] === TRAPPED) throw fail('trap', `${name}: trap in wg_run_thread on thread ${t}: ${getMessage(ctl, n, t)}`);
    }
    /* A status other than the aborts a trap causes elsewhere; thread 0's first. */
    const all = [status, ...Array.from({ length: n - 1 }, (_, i) => ctl[CTL.RESULT + 1 + i])];
    return all.find((s) => s !== 0 && s !== 20) ?? all.find((s) => s !== 0) ?? 0;
  };
  return { run, stop, threads: n };
}

let WorkerNode = null;
if (isNode) ({ Worker: WorkerNode } = await import('node:worker_threads'));
