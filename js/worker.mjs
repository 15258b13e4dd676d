// worker.mjs: the worker side of `load(source, { worker: true })` (remote.mjs is the
// caller's side). Runs in a Web Worker (type 'module') or a Node worker thread, holds
// one Session and answers messages { id, op, ... }:
//   load    { source, options } -> { metadata }
//   run     { feeds }           -> { outputs }   (output buffers transferred back)
//   dispose {}                  -> {}            (then the worker closes itself)
// Every answer is { id, ok: true, ... } or { id, ok: false, error: { code, message } }.

import { load } from './wasmgraph.mjs';

const isNode = typeof process !== 'undefined' && !!(process.versions && process.versions.node) && typeof self === 'undefined';
const port = isNode ? (await import('node:worker_threads')).parentPort : self;
let session = null;

const post = (msg, transfer = []) => port.postMessage(msg, transfer);

async function handle(msg) {
  switch (msg.op) {
  case 'load':
    session = await load(msg.source, msg.options);
    return [{ metadata: session.metadata }];
  case 'run': {
    /* runAsync: with streamWeights the first run goes step by step as the weights arrive */
    const outputs = await session.runAsync(msg.feeds);
    /* an output of data-dependent size comes as { data, dims } (Session.run) */
    return [{ outputs }, Object.values(outputs).map((a) => (ArrayBuffer.isView(a) ? a : a.data).buffer)];
  }
  case 'dispose':
    session?.dispose();
    session = null;
    return [{}];
  default:
    throw new Error(`unknown message '${msg.op}'`);
  }
}

async function onMessage(msg) {
  try {
    const [reply, transfer] = await handle(msg);
    post({ id: msg.id, ok: true, ...reply }, transfer);
  } catch (e) {
    post({ id: msg.id, ok: false, error: { code: e.code || 'worker', message: e.message } });
  }
  if (msg.op === 'dispose') {
    if (isNode) port.close();
    else self.close();
  }
}

if (isNode) port.on('message', onMessage);
else self.onmessage = (ev) => onMessage(ev.data);
post({ id: 0, ok: true, started: true });
