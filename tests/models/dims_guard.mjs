// dims_guard.mjs MODULE.wasm: the module itself refuses symbol values outside their ranges
// (module ABI 2, docs/abi.md): values written straight into wg_dims, past the hosts'
// checks, make wg_run and wg_run_step(k) return WGK_ERR_DIMS (3) without running, and a
// value in range runs again afterwards. A threaded module (compile --threads) also refuses
// them in wg_run_begin and wg_run_thread, once for all its threads. Prints one line; exit
// status 1 on a failure.
import { readFileSync } from 'node:fs';
import { inspect } from '../../js/wasmgraph.mjs';
import { moduleMemory } from '../../js/threads.mjs';

const file = process.argv[2];
const bytes = readFileSync(file);
const meta = inspect(new Uint8Array(bytes), file);
const threaded = meta.threads !== undefined;
const memory = threaded ? moduleMemory(meta, true) : null;
const { instance } = await WebAssembly.instantiate(bytes, threaded ? { env: { memory } } : {});
const x = instance.exports;
if (threaded) x.wg_thread_init(0);
const dims = new Int32Array((threaded ? memory : x.memory).buffer, x.wg_dims_ptr(), meta.symbols.length);
const bad = [];
let checked = 0;
for (const [k, y] of meta.symbols.entries()) {
  for (const v of [0, -1, y.min - 1, y.max + 1, 2 ** 31 - 1, -(2 ** 31)]) {
    if (v >= y.min && v <= y.max) continue;
    meta.symbols.forEach((z, j) => { dims[j] = z.min; });
    dims[k] = v;
    const st = x.wg_run(), st0 = x.wg_run_step(0), stLast = x.wg_run_step(x.wg_run_steps() - 1);
    if (st !== 3 || st0 !== 3 || stLast !== 3) bad.push(`${y.name} = ${v}: wg_run ${st}, steps ${st0} ${stLast}`);
    if (threaded) {
      const begin = x.wg_run_begin(1), thread = x.wg_run_thread(0, 0, x.wg_run_steps());
      if (begin !== 3 || thread !== 3) bad.push(`${y.name} = ${v}: wg_run_begin ${begin}, wg_run_thread ${thread}`);
    }
    checked++;
  }
}
meta.symbols.forEach((z, j) => { dims[j] = z.min; });
const ok = x.wg_run();
if (ok !== 0) bad.push(`at the minima wg_run returned ${ok}`);
console.log(bad.length ? `FAIL ${bad.join('; ')}` : `ok: ${checked} out-of-range values refused with status 3, minima run`);
process.exit(bad.length ? 1 : 0);
