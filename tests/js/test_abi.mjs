// test_abi.mjs: the JS loader on the module ABI fixtures (tests/abi/fixtures.tsv), the
// same rows the C host runs in tests/unit/test_abi.c, with the same verdicts: each module
// is refused at the stage the row names (inspect: compile(); session: createSession();
// run: run()) with the row's error code and a message containing its fragment, or loads,
// gets a session and runs. Every row is loaded from the file (the split path) and from
// its bytes. Also: the loader's LIMITS and STATUSES are the C host's (include/wasmgraph.h,
// kernels/include/wgk_status.h).
//
// Fixtures: $WG_ABI_FIXTURES (tests/run.sh writes them), else generated here into a
// temporary folder by tests/abi/make_fixtures.py (python3, wat2wasm) with the built
// wasmgraph for the real_* rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, LIMITS, STATUSES, WasmgraphError } from '../../js/wasmgraph.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUILD = process.env.BUILD || 'build';
const WG = join(ROOT, BUILD, 'bin', 'wasmgraph');

function fixtureDir(t) {
  if (process.env.WG_ABI_FIXTURES) return process.env.WG_ABI_FIXTURES;
  const dir = mkdtempSync(join(tmpdir(), 'wg-abi-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync('python3', [join(ROOT, 'tests', 'abi', 'make_fixtures.py'), dir, ...(existsSync(WG) ? [WG] : [])]);
  return dir;
}

const rows = readFileSync(join(ROOT, 'tests', 'abi', 'fixtures.tsv'), 'utf8').split('\n')
  .filter((l) => l && !l.startsWith('#')).map((l) => { const [file, stage, verdict, frag = ''] = l.split('\t'); return { file, stage, verdict, frag }; });

/* Runs one source through the stages; returns the first WasmgraphError as [stage, error], or ['ok']. */
async function stages(source, label) {
  let stage = 'inspect';
  try {
    const m = await compile(source, label);
    stage = 'session';
    const s = await m.createSession();
    stage = 'run';
    s.run();
    return ['ok'];
  } catch (e) {
    if (!(e instanceof WasmgraphError)) throw e;
    return [stage, e];
  }
}

test('every ABI fixture gets the verdict of tests/abi/fixtures.tsv, from the file and from bytes', async (t) => {
  const dir = fixtureDir(t);
  const real = existsSync(join(dir, 'real_ok.wasm'));
  let checked = 0;
  for (const row of rows) {
    if (!real && row.file.startsWith('real_')) continue;
    const path = join(dir, row.file);
    for (const source of [path, readFileSync(path)]) {
      const how = typeof source === 'string' ? 'file' : 'bytes';
      const [stage, e] = await stages(source, row.file);
      const got = stage === 'ok' ? 'ok' : `${stage} ${e.code}: ${e.message}`;
      assert.equal(stage, row.stage, `${row.file} (${how}): ${got}`);
      if (stage === 'ok') continue;
      assert.equal(e.code, row.verdict, `${row.file} (${how}): ${got}`);
      assert.ok(e.message.replaceAll('`', "'").includes(row.frag), `${row.file} (${how}): '${e.message}' lacks '${row.frag}'`);
    }
    checked++;
  }
  assert.ok(checked >= 40, `only ${checked} rows ran`);
});

test('the loader\'s limits and status names are the C host\'s', () => {
  const header = readFileSync(join(ROOT, 'include', 'wasmgraph.h'), 'utf8');
  const def = (name) => Number(header.match(new RegExp(`#define ${name} (\\d+)`))[1]);
  assert.deepEqual({ ...LIMITS }, {
    tensors: def('WG_ABI_MAX_TENSORS'), rank: def('WG_MAX_RANK'), dim: def('WG_ABI_MAX_DIM'),
    elements: def('WG_ABI_MAX_ELEMENTS'), steps: def('WG_ABI_MAX_STEPS'), symbols: def('WG_ABI_MAX_SYMBOLS'),
  });
  // X(name, value, "meaning" possibly split over lines) rows of WGK_STATUS_LIST.
  const list = readFileSync(join(ROOT, 'kernels', 'include', 'wgk_status.h'), 'utf8')
    .replace(/"\s*\\?\s*\n\s*"/g, '').replace(/\\\n/g, ' ');
  const fromC = {};
  for (const m of list.matchAll(/X\((WGK_ERR_\w+), (-?\d+), "([^"]*)"\)/g)) fromC[m[2]] = [m[1], m[3]];
  assert.ok(Object.keys(fromC).length >= 2, 'no statuses found in wgk_status.h');
  assert.deepEqual({ ...STATUSES }, fromC);
});
