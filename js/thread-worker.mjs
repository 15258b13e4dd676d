// thread-worker.mjs: one thread (t > 0) of a threaded session (threads.mjs). Gets
// { module, memory, ctl, t, name } once, instantiates the module on the shared memory,
// calls wg_thread_init(t) and answers { ok }; then, for as long as the session lives,
// sleeps in Atomics.wait until thread 0 posts a run (ctl GEN), runs its share
// (wg_run_thread) and reports (ctl RESULT + t, DONE). Blocking here is allowed: this is
// a worker. It leaves the loop when ctl QUIT is set.

import { CTL, SPIN_READS, TRAPPED, putMessage } from './threads.mjs';

const isNode = typeof process !== 'undefined' && !!(process.versions && process.versions.node) && typeof self === 'undefined';
const port = isNode ? (await import('node:worker_threads')).parentPort : self;

function serve({ module, memory, ctl, t }) {
  let exports;
  try {
    exports = new WebAssembly.Instance(module, { env: { memory } }).exports;
    const st = exports.wg_thread_init(t);
    if (st !== 0) throw new Error(`wg_thread_init(${t}) returned status ${st}`);
  } catch (e) {
    port.postMessage({ ok: false, error: e.message });
    return;
  }
  /* Read before saying ready: thread 0 posts the first run once every thread is. */
  const n = ctl[CTL.N];
  let seen = Atomics.load(ctl, CTL.GEN);
  port.postMessage({ ok: true });
  for (;;) {
    /* The next run may come soon: read a while before sleeping (SPIN_READS). */
    for (let i = 0; i < SPIN_READS && Atomics.load(ctl, CTL.GEN) === seen; i++);
    Atomics.wait(ctl, CTL.GEN, seen);
    seen = Atomics.load(ctl, CTL.GEN);
    if (Atomics.load(ctl, CTL.QUIT)) break;
    let st;
    try {
      st = exports.wg_run_thread(t, ctl[CTL.K0], ctl[CTL.K1]);
    } catch (e) {
      st = TRAPPED;
      putMessage(ctl, n, t, String(e && e.message));
      try { exports.wg_threads_abort(); } catch { /* nothing more to do */ }
    }
    ctl[CTL.RESULT + t] = st;
    Atomics.add(ctl, CTL.DONE, 1);
    Atomics.notify(ctl, CTL.DONE);
  }
  if (isNode) port.close();
  else self.close();
}

if (isNode) port.once('message', serve);
else self.onmessage = (ev) => { self.onmessage = null; serve(ev.data); };
