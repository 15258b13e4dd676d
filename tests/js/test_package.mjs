// test_package.mjs: js/ is an npm package. `npm pack` gives a tarball of exactly the
// files package.json lists, at the compiler's version (WG_VERSION, `wasmgraph
// --version`), with no dependencies; it installs into a fresh project (from the
// tarball, no registry) and imports by its name in Node, runs LeNet there, and a strict
// TypeScript program against its declarations type-checks (tools' typescript), while a
// wrong one fails with the errors expected (the types are real, not `any`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WG = join(ROOT, process.env.BUILD || 'build', 'bin', 'wasmgraph');
const TSC = join(ROOT, 'tools', 'node_modules', 'typescript', 'bin', 'tsc');
const pkg = JSON.parse(readFileSync(join(ROOT, 'js', 'package.json'), 'utf8'));

test('package.json: name, the compiler\'s version, ES module, exports, types, files, no dependencies', () => {
  const header = readFileSync(join(ROOT, 'include', 'wasmgraph.h'), 'utf8');
  assert.equal(pkg.version, /#define WG_VERSION "([^"]+)"/.exec(header)[1], 'version kept with WG_VERSION');
  assert.equal(execFileSync(WG, ['--version'], { encoding: 'utf8' }).trim(), `wasmgraph ${pkg.version}`);
  assert.equal(pkg.name, 'wasmgraph');
  assert.equal(pkg.type, 'module');
  assert.equal(pkg.exports['.'].types, './wasmgraph.d.ts');
  assert.equal(pkg.exports['.'].node, './wasmgraph.mjs');
  assert.equal(pkg.exports['.'].browser, './wasmgraph.mjs');
  assert.equal(pkg.dependencies, undefined, 'no runtime dependencies');
  // fromPretrained's tokenizer: an optional peer, so that installing the loader fetches nothing
  assert.deepEqual(pkg.peerDependenciesMeta, { '@huggingface/tokenizers': { optional: true } });
  for (const f of pkg.files) assert.ok(existsSync(join(ROOT, 'js', f)), `${f} listed and present`);
  // every module the entry point loads is shipped
  for (const f of ['wasmgraph.mjs', 'errors.mjs', 'image.mjs', 'png.mjs', 'remote.mjs', 'worker.mjs', 'generate.mjs', 'pretrained.mjs']) {
    for (const m of readFileSync(join(ROOT, 'js', f), 'utf8').matchAll(/(?:from|import\()\s*'\.\/([\w.-]+)'/g)) {
      assert.ok(pkg.files.includes(m[1]), `${f} imports ${m[1]}, which package.json's files must list`);
    }
  }
});

test('the declarations cover every export of the entry point, and declare nothing it lacks', async () => {
  const api = await import('../../js/wasmgraph.mjs');
  const dts = readFileSync(join(ROOT, 'js', 'wasmgraph.d.ts'), 'utf8');
  const declared = [...dts.matchAll(/^export declare (?:function|class|const) (\w+)/gm)].map((m) => m[1]);
  assert.deepEqual([...new Set(declared)].sort(), Object.keys(api).sort());
});

test('npm pack installs into a fresh project, imports by name, runs, and type-checks', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wg-pkg-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const npm = (args, cwd) => execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error', '--offline'], { cwd, encoding: 'utf8' });
  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], join(ROOT, 'js')));
  const tarball = join(dir, packed[0].filename);
  assert.equal(packed[0].filename, `wasmgraph-${pkg.version}.tgz`);
  assert.deepEqual(packed[0].files.map((f) => f.path).sort(), [...pkg.files, 'package.json'].sort(), 'the tarball holds the listed files');

  const app = join(dir, 'app');
  execFileSync('mkdir', [app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true, type: 'module' }));
  npm(['install', tarball], app);
  assert.ok(existsSync(join(app, 'node_modules', 'wasmgraph', 'wasmgraph.d.ts')));

  const wasm = join(dir, 'lenet.wasm');
  execFileSync(WG, ['compile', join(ROOT, 'models', 'lenet5-fashion.onnx'), '-o', wasm, '--quiet']);
  writeFileSync(join(app, 'main.mjs'), `
    import { load, WasmgraphError } from 'wasmgraph';
    const s = await load(process.argv[2]);
    const out = s.run({ image: new Float32Array(784).fill(0.5) });
    let err = null;
    try { s.run({ image: new Float64Array(784) }); } catch (e) { err = e instanceof WasmgraphError && e.code; }
    s.dispose();
    const w = await load(process.argv[2], { worker: true });
    const wout = await w.run({ image: new Float32Array(784).fill(0.5) });
    await w.dispose();
    console.log(JSON.stringify({ n: out.logits.length, err, same: wout.logits.every((v, i) => v === out.logits[i]) }));
  `);
  const r = JSON.parse(execFileSync(process.execPath, ['main.mjs', wasm], { cwd: app, encoding: 'utf8' }));
  assert.deepEqual(r, { n: 10, err: 'arg', same: true }, 'installed by name: runs, checks, worker mode');

  if (!existsSync(TSC)) return t.skip('typescript is not installed in tools/ (scripts/setup.sh)');
  const tsconfig = { compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [] } };
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig));
  writeFileSync(join(app, 'good.ts'), `
    import { load, compile, WasmgraphError, decodeImage, imageToTensor, topClasses, type Outputs } from 'wasmgraph';
    export async function main(path: string, png: Uint8Array): Promise<number> {
      const s = await load(path, { streamWeights: true });
      const x: Float32Array | Uint16Array = imageToTensor(await decodeImage(png), s, { crop: true, mean: [0.485, 0.456, 0.406] });
      const out: Outputs = s.run({ [s.inputs[0].name]: x });
      s.run();
      const view = s.output(0);
      const { top } = topClasses(out[s.outputs[0].name] as Float32Array, 5);
      s.dispose();
      const w = await load(path, { worker: true });
      const o2: Outputs = await w.run({ image: { data: new Float32Array(784), dims: [1, 1, 28, 28] } });
      await w.dispose();
      const m = await compile(path);
      m.dispose();
      try { s.run({}); } catch (e) { if (e instanceof WasmgraphError) return e.code.length; }
      return top[0].index + view.length + Object.keys(o2).length;
    }
  `);
  const good = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: app, encoding: 'utf8' });
  assert.equal(good.status, 0, `tsc on a correct program: ${good.stdout}${good.stderr}`);
  writeFileSync(join(app, 'bad.ts'), `
    import { load } from 'wasmgraph';
    export async function bad(path: string): Promise<void> {
      const s = await load(path, { streamweights: true });
      s.run(42);
      const w = await load(path, { worker: true });
      w.run({ image: new Float32Array(1) }).length;
    }
  `);
  const bad = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: app, encoding: 'utf8' });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stdout, /bad\.ts\(4,\d+\): error TS2769/, `an unknown option is a type error: ${bad.stdout}`);
  assert.match(bad.stdout, /bad\.ts\(7,\d+\): error TS2339: Property 'length' does not exist on type 'Promise<Outputs>'/, bad.stdout);
  assert.doesNotMatch(bad.stdout, /TS7016/, 'the declarations are found');
});
