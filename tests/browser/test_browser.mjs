// test_browser.mjs: the package and the demo page in headless Chromium (Debian's
// /usr/bin/chromium, driven over the DevTools protocol by puppeteer-core from
// tools/node_modules), served by server.mjs. Under `node --test` (suite `browser`).
// 1. The demo classifies every shared photo with SqueezeNet (preprocessing recorded by
//    compile --preprocess) and LeNet-5: for the PNGs the page's top-5 (index and
//    probability) equals `wasmgraph classify`'s; for the JPEG, which the browser decodes
//    with its own decoder, the top-1 class does. The preset comes from the model.
// 2. In the page, decodeImage + imageToTensor give classify's tensor (--save-input) bit
//    for bit for every PNG.
// 3. The demo's error paths: a truncated model shows a red error and clears the previous
//    results; the next image says to load a model; labels of another model's class count
//    are not applied.
// 4. Worker mode: same outputs as a page session, errors arrive as WasmgraphError.
// 5. 100 sessions created, run and disposed leave the renderer's resident memory within
//    10% of where it started (after collections through the DevTools protocol).
// 6. A decoder (tests/models/tiny_lm.py) gets the demo's text view: the streamed ids equal
//    `wasmgraph generate`'s, with the prompt's time and tokens/s shown; in a worker the
//    view says to use a page session.
// Screenshots of the demo go to build/browser/ for a person to look at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { serve } from './server.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUILD = process.env.BUILD || 'build';
const WG = join(ROOT, BUILD, 'bin', 'wasmgraph');
const SHARED = join(ROOT, '..', 'shared', 'data');
const CHROMIUM = process.env.WG_CHROMIUM || '/usr/bin/chromium';
const SHOTS = join(ROOT, BUILD, 'browser');
const SQUEEZE = join(SHARED, 'squeezenet1.1-caffe2', 'squeezenet1.1_bgr_fp32_from_fp16.onnx');
const PNGS = ['cat.png', 'dog_207.png', 'fish.png', 'zebra_340.png'];
const JPEGS = ['hummingbird.jpg'];
const FASHION = ['T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', 'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot'];
const require = createRequire(join(ROOT, 'tools', 'package.json'));
const { parseTensor } = require('./tensor_pb.js');

let browser, server, tmp, page;

before(async () => {
  assert.ok(existsSync(WG), `${WG} is missing: run make first`);
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: scripts/setup.sh installs Debian's chromium`);
  assert.ok(existsSync(SQUEEZE), `${SQUEEZE} is missing (../shared test data)`);
  tmp = mkdtempSync(join(tmpdir(), 'wg-browser-'));
  mkdirSync(SHOTS, { recursive: true });
  const c = (args) => execFileSync(WG, ['compile', ...args, '--quiet']);
  c([SQUEEZE, '-o', join(tmp, 'sq.wasm'), '--preprocess', '--bgr --crop --size 256']);
  c([SQUEEZE, '-o', join(tmp, 'sq-plain.wasm')]);
  c([SQUEEZE, '-o', join(tmp, 'sq-threads.wasm'), '--preprocess', '--bgr --crop --size 256', '--threads', '--max-threads', '2']);
  c([join(ROOT, 'models', 'lenet5-fashion.onnx'), '-o', join(tmp, 'lenet.wasm'), '--preprocess', '--scale 255']);
  c([join(ROOT, 'models', 'lenet5-fashion.onnx'), '-o', join(tmp, 'lenet-plain.wasm')]);
  const py = process.env.WG_PYTHON || join(process.env.HOME || '', '.cache', 'wasmgraph', 'venv', 'bin', 'python');
  execFileSync(py, [join(ROOT, 'tests', 'models', 'tiny_lm.py'), join(tmp, 'lm.onnx')]);
  c([join(tmp, 'lm.onnx'), '-o', join(tmp, 'lm.wasm'), '--dim', 'batch_size=1..1', '--dim', 'sequence_length=1..16',
    '--dim', 'past_sequence_length=0..32']);
  const sq = readFileSync(join(tmp, 'sq.wasm'));
  writeFileSync(join(tmp, 'cut.wasm'), sq.subarray(0, sq.length - 5000));
  writeFileSync(join(tmp, 'fashion.txt'), FASHION.join('\n') + '\n');
  server = await serve({ js: join(ROOT, 'js'), shared: SHARED, t: tmp });
  const puppeteer = (await import(pathToFileURL(require.resolve('puppeteer-core')))).default;
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: join(tmp, 'profile'),
    // A fresh profile and no background traffic: this machine has no network beyond localhost.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
      // no spare renderer started ahead: a new tab's renderer is then the process that appears
      '--disable-features=SpareRendererForSitePerProcess'],
  });
  page = await browser.newPage();
  page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/* `wasmgraph classify` on a photo: [[index, prob as printed]], and its input tensor. */
function classify(model, image, labels, ...flags) {
  const pb = join(tmp, 'cli-in.pb');
  const out = execFileSync(WG, ['classify', join(tmp, model), '-i', join(SHARED, 'images', image), '-l', labels, '--save-input', pb, ...flags], { encoding: 'utf8' });
  const top = [...out.matchAll(/^\s+\d+\s+([0-9.]+)\s+(\d+)\s+(.*)$/gm)].map((m) => ({ index: Number(m[2]), prob: m[1], label: m[3] }));
  return { top, tensor: parseTensor(readFileSync(pb), 'cli-in.pb') };
}

/* Opens the demo with a query and waits until it has loaded everything it was given
 * (isolated: from /iso/, served with COOP/COEP, server.mjs). */
async function openDemo(query, isolated = false) {
  await page.goto(`${server.url}${isolated ? '/iso' : ''}/js/demo.html?${new URLSearchParams(query)}`);
  await page.waitForFunction(() => window.demoState && window.demoState.ready && !window.demoState.busy, { timeout: 60000 });
  return page.evaluate(() => ({
    rows: [...document.querySelectorAll('#out tr')].map((tr) => ({ index: Number(tr.dataset.index), prob: Number(tr.dataset.prob), text: tr.innerText })),
    times: [...document.querySelectorAll('#times tr')].map((tr) => tr.innerText),
    status: document.getElementById('status').textContent,
    statusColor: getComputedStyle(document.getElementById('status')).color,
    info: document.getElementById('info').textContent,
    labelinfo: document.getElementById('labelinfo').textContent,
    preset: document.getElementById('preset').value,
  }));
}

const shot = (name) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

for (const [model, labels, what] of [['sq.wasm', join(SHARED, 'labels', 'synset.csv'), 'SqueezeNet'], ['lenet.wasm', null, 'LeNet-5']]) {
  test(`demo: ${what} on the shared photos gives classify's top-5`, async (t) => {
    const labelFile = labels || join(tmp, 'fashion.txt');
    const labelUrl = labels ? '/shared/labels/synset.csv' : '/t/fashion.txt';
    for (const img of [...PNGS, ...JPEGS]) {
      const cli = classify(model, img, labelFile);
      const r = await openDemo({ model: `/t/${model}`, labels: labelUrl, image: `/shared/images/${img}` });
      await shot(`demo-${model.replace('.wasm', '')}-${img.replace(/\.\w+$/, '')}`);
      assert.equal(r.preset, 'model', 'the preset comes from the model\'s recorded preprocessing');
      assert.ok(!r.statusColor.includes('187'), `no error: ${r.status}`);
      assert.equal(r.rows.length, 5, `${img}: ${r.status}`);
      assert.deepEqual(r.times.map((x) => x.split('\t')[0]), ['load', 'first run', 'warm run']);
      const page5 = r.rows.map((x) => ({ index: x.index, prob: x.prob.toFixed(4) }));
      const cli5 = cli.top.map((x) => ({ index: x.index, prob: x.prob }));
      if (img.endsWith('.png')) {
        assert.deepEqual(page5, cli5, `${img}: the page's top-5 equals classify's`);
      } else {
        assert.equal(page5[0].index, cli5[0].index, `${img}: the browser's JPEG decoder, same top-1`);
        t.diagnostic(`${what} ${img}: page ${JSON.stringify(page5[0])} CLI ${JSON.stringify(cli5[0])} (browser JPEG decoder)`);
      }
      assert.ok(r.rows[0].text.includes(cli.top[0].label), `${img}: label '${cli.top[0].label}' shown: ${r.rows[0].text}`);
    }
  });
}

test('demo: cat.png with SqueezeNet says tabby 75.35 %, as classify does; presets of unrecorded models follow the input', async () => {
  const r = await openDemo({ model: '/t/sq.wasm', labels: '/shared/labels/synset.csv', image: '/shared/images/cat.png' });
  assert.match(r.rows[0].text, /75\.35 %\s+281\s+tabby, tabby cat/);
  assert.equal((await openDemo({ model: '/t/sq-plain.wasm' })).preset, 'imagenet');
  assert.equal((await openDemo({ model: '/t/lenet-plain.wasm' })).preset, 'fashion');
});

test('in the page, decodeImage + imageToTensor give classify\'s tensor bit for bit', async () => {
  await page.goto(`${server.url}/js/demo.html`);
  for (const [model, flags] of [['sq.wasm', []], ['sq.wasm', ['--no-preprocess', '--scale', '255', '--mean', '0.485,0.456,0.406', '--std', '0.229,0.224,0.225', '--crop']], ['lenet.wasm', []]]) {
    for (const img of PNGS) {
      const { tensor } = classify(model, img, model === 'sq.wasm' ? join(SHARED, 'labels', 'synset.csv') : join(tmp, 'fashion.txt'), ...flags);
      writeFileSync(join(tmp, 'ref.bin'), new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
      const opts = flags.length ? { size: 0, crop: true, bgr: false, scale: 255, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] } : {};
      const diff = await page.evaluate(async (model, img, opts) => {
        const wg = await import('/js/wasmgraph.mjs');
        const m = await wg.compile(`/t/${model}`);
        const bytes = new Uint8Array(await (await fetch(`/shared/images/${img}`)).arrayBuffer());
        const x = wg.imageToTensor(await wg.decodeImage(bytes, img), m, opts);
        const ref = new Float32Array(await (await fetch('/t/ref.bin')).arrayBuffer());
        const a = new Uint32Array(x.buffer), b = new Uint32Array(ref.buffer);
        let n = a.length === b.length ? 0 : -1;
        for (let i = 0; n >= 0 && i < a.length; i++) if (a[i] !== b[i]) n++;
        m.dispose();
        return n;
      }, model, img, opts);
      assert.equal(diff, 0, `${model} ${img} ${flags.join(' ')}: ${diff} values differ from classify's tensor`);
    }
  }
});

test('demo: a truncated model is a red error that clears the last results; the next image asks for a model; foreign labels are not applied', async () => {
  let r = await openDemo({ model: '/t/sq.wasm', labels: '/shared/labels/synset.csv', image: '/shared/images/cat.png' });
  assert.equal(r.rows.length, 5);
  await (await page.$('#model')).uploadFile(join(tmp, 'cut.wasm'));
  await page.waitForFunction(() => document.getElementById('status').className === 'err', { timeout: 30000 });
  r = await page.evaluate(() => ({
    status: document.getElementById('status').textContent,
    color: getComputedStyle(document.getElementById('status')).color,
    rows: document.querySelectorAll('#out tr').length,
    info: document.getElementById('info').textContent,
  }));
  await shot('demo-error-truncated');
  assert.match(r.status, /cut\.wasm: section \d+ \(\w+\) at byte \d+ runs past the end of the file/);
  assert.equal(r.color, 'rgb(187, 0, 0)', 'error text is red');
  assert.equal(r.rows, 0, 'the previous model\'s results are gone');
  assert.equal(r.info, '', 'and its info');
  await page.evaluate(() => { window.demoState.classified = 0; });
  await (await page.$('#image')).uploadFile(join(SHARED, 'images', 'fish.png'));
  await page.waitForFunction(() => document.getElementById('status').textContent === 'load a model first', { timeout: 30000 });
  assert.equal(await page.evaluate(() => getComputedStyle(document.getElementById('status')).color), 'rgb(187, 0, 0)');
  // LeNet with ImageNet's 1000 labels: not applied, said so, classes shown by index.
  r = await openDemo({ model: '/t/lenet.wasm', labels: '/shared/labels/synset.csv', image: '/shared/images/fish.png' });
  await shot('demo-lenet-foreign-labels');
  assert.match(r.labelinfo, /have 1000 entries, the model has 10 classes: not used/);
  assert.match(r.rows[0].text, /class \d/);
  const bad = await openDemo({ model: '/t/missing.wasm' });
  assert.match(bad.status, /missing\.wasm: HTTP 404/);
  assert.equal(bad.statusColor, 'rgb(187, 0, 0)');
});

test('worker mode: same outputs as a page session, errors arrive as WasmgraphError', async () => {
  const r = await openDemo({ model: '/t/sq.wasm', labels: '/shared/labels/synset.csv', image: '/shared/images/cat.png', worker: '1' });
  await shot('demo-squeezenet-cat-worker');
  assert.match(r.info, /\(worker\)/);
  assert.match(r.rows[0].text, /75\.35 %\s+281/);
  const res = await page.evaluate(async () => {
    const wg = await import('/js/wasmgraph.mjs');
    const local = await wg.load('/t/sq.wasm');
    const remote = await wg.load('/t/sq.wasm', { worker: true });
    const x = new Float32Array(local.inputs[0].size).map((_, i) => (i % 251) / 2);
    const a = local.run({ data_0: x })[local.outputs[0].name];
    const y = x.slice();
    const b = (await remote.run({ data_0: y }))[remote.outputs[0].name];
    const same = a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
    const err = async (p) => { try { await p; return 'no error'; } catch (e) { return [e instanceof wg.WasmgraphError, e.code, e.message]; } };
    const out = {
      same, transferred: y.byteLength === 0,
      badFeed: await err(remote.run({ data_0: new Float32Array(5) })),
      badModel: await err(wg.load('/t/cut.wasm', { worker: true })),
    };
    await remote.dispose();
    out.afterDispose = await err(remote.run({ data_0: x }));
    local.dispose();
    return out;
  });
  assert.equal(res.same, true, 'worker outputs equal the page session\'s');
  assert.equal(res.transferred, true, 'the input buffer was transferred');
  assert.deepEqual(res.badFeed.slice(0, 2), [true, 'arg']);
  assert.match(res.badFeed[2], /input 'data_0': got Float32Array\(5\)/);
  assert.deepEqual(res.badModel.slice(0, 2), [true, 'format']);
  assert.match(res.badModel[2], /cut\.wasm: section \d+ .* runs past the end/);
  assert.deepEqual(res.afterDispose.slice(0, 2), [true, 'state']);
});

/* The process ids of Chromium's renderers. */
async function rendererPids(cdp) {
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  return new Set(processInfo.filter((q) => q.type === 'renderer').map((q) => q.id));
}

/* The resident memory of one renderer process, after collections in its page. */
async function rendererRss(pid, pageCdp) {
  for (let i = 0; i < 3; i++) {
    await pageCdp.send('HeapProfiler.collectGarbage');
    await new Promise((r) => setTimeout(r, 100));
  }
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
}

test('100 SqueezeNet sessions created, run and disposed leave the renderer\'s memory within 10%', async (t) => {
  // A fresh tab, whose renderer is the process that appears with it: the one measured.
  const cdp = await browser.target().createCDPSession();
  await page.close();
  const old = await rendererPids(cdp);
  page = await browser.newPage();
  await page.goto(`${server.url}/js/demo.html`);
  const fresh = [...(await rendererPids(cdp))].filter((p) => !old.has(p));
  assert.equal(fresh.length, 1, `one new renderer for the new tab, not ${fresh.length}`);
  const pid = fresh[0];
  const pageCdp = await page.createCDPSession();
  await page.evaluate(async () => {
    const wg = await import('/js/wasmgraph.mjs');
    window.m = await wg.compile('/t/sq.wasm');
    window.feeds = { data_0: new Float32Array(window.m.inputs[0].size) };
    const s = await window.m.createSession();
    s.run(window.feeds);
    s.dispose();
    window.kept = [];
  });
  const before = await rendererRss(pid, pageCdp);
  const run = (n, dispose) => page.evaluate(async (n, dispose) => {
    for (let i = 0; i < n; i++) {
      const s = await window.m.createSession();
      s.run(window.feeds);
      if (dispose) s.dispose();
      window.kept.push(s); // an application that keeps its Session objects
    }
  }, n, dispose);
  await run(100, true);
  const after = await rendererRss(pid, pageCdp);
  const mib = (b) => (b / 1048576).toFixed(1);
  t.diagnostic(`renderer RSS ${mib(before)} MiB before, ${mib(after)} after 100 disposed sessions`);
  assert.ok(after <= before * 1.1, `renderer RSS grew from ${mib(before)} to ${mib(after)} MiB`);
  await run(20, false);
  const kept = await rendererRss(pid, pageCdp);
  t.diagnostic(`renderer RSS ${mib(kept)} MiB with 20 sessions kept undisposed`);
  assert.ok(kept > after * 1.1, 'undisposed sessions that are kept hold their memory: the measure sees it');
  await page.evaluate(() => { window.kept = null; window.m = null; });
});

test('threads: a --threads SqueezeNet on 2 threads in a cross-origin-isolated page gives the same top-5; without isolation a clear error', async () => {
  const q = { labels: '/iso/shared/labels/synset.csv', image: '/iso/shared/images/cat.png' };
  const one = await openDemo({ ...q, model: '/iso/t/sq.wasm' }, true);
  const two = await openDemo({ ...q, model: '/iso/t/sq-threads.wasm', threads: '2' }, true);
  await shot('demo-threads');
  assert.ok(two.info.includes('2 threads'), `the page shows the thread count: ${two.info}`);
  assert.equal(two.rows.length, 5, two.status);
  assert.deepEqual(two.rows.map((r) => [r.index, r.prob]), one.rows.map((r) => [r.index, r.prob]));
  const plain = await openDemo({ model: '/t/sq-threads.wasm', threads: '2' });
  assert.ok(plain.status.includes('SharedArrayBuffer') && plain.status.includes('Cross-Origin-Embedder-Policy'), plain.status);
});

test('the demo streams a decoder\'s ids as wasmgraph generate gives them, with tokens/s', async () => {
  const prompt = '3,14,15,9,26,5';
  const want = execFileSync(WG, ['generate', join(tmp, 'lm.wasm'), '--prompt-ids', prompt, '--max-new-tokens', '20'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const r = await openDemo({ model: '/t/lm.wasm', prompt, tokens: '20' });
  assert.equal(r.status, '');
  const shown = await page.evaluate(() => ({
    hidden: document.getElementById('textview').hidden,
    ids: document.getElementById('genout').textContent,
    stats: document.getElementById('genstats').textContent,
    generated: window.demoState.generated,
  }));
  assert.equal(shown.hidden, false, 'a decoder shows the text view');
  assert.equal(shown.ids, want);
  assert.equal(shown.generated.join(' '), want);
  assert.match(shown.stats, /^prompt 6 tokens in [\d.]+ ms; 20 tokens, [\d.]+ tokens\/s decoding$/);
  await page.screenshot({ path: join(SHOTS, 'demo-generate.png'), fullPage: true });
  const worker = await openDemo({ model: '/t/lm.wasm', prompt, tokens: '4', worker: '1' });
  assert.match(worker.status, /runs on a page session/);
  assert.equal((await openDemo({ model: '/t/lenet.wasm' })).status, '');
  assert.equal(await page.evaluate(() => document.getElementById('textview').hidden), true, 'a classifier does not');
});
