// test_png.mjs: js/png.mjs decodes every kind of PNG as stb_image does in `wasmgraph
// classify`. PNGs of every colour type and bit depth (gray 1/2/4/8/16, RGB 8/16,
// palette 1/2/4/8, gray+alpha and RGBA 8/16), plain and Adam7-interlaced, with every
// scanline filter, are written here (a small encoder below) at an odd size; each goes
// through decodePNG + imageToTensor and through `classify --save-input` with SqueezeNet
// (3 channels, stretched to 224x224, raw 0..255) and the two tensors must be equal bit
// for bit. Broken files are WasmgraphError('format') naming the problem.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { deflateSync } from 'node:zlib';
import { decodePNG, imageToTensor, WasmgraphError } from '../../js/wasmgraph.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WG = join(ROOT, process.env.BUILD || 'build', 'bin', 'wasmgraph');
const SHARED = join(ROOT, '..', 'shared', 'data');
const SQUEEZE = join(SHARED, 'squeezenet1.1-caffe2', 'squeezenet1.1_bgr_fp32_from_fp16.onnx');
const { parseTensor } = createRequire(import.meta.url)(join(ROOT, 'tools', 'tensor_pb.js'));

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, body) {
  const out = Buffer.alloc(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'latin1');
  Buffer.from(body).copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}

const SPP = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];

/* A PNG of W x H whose samples come from sample(x, y, k) (0 .. 2^depth - 1), every row
 * with the next of the five filters. */
function encodePNG({ W, H, color, depth, interlace, palette }, sample) {
  const spp = SPP[color], bpp = Math.max(1, (spp * depth) >> 3);
  const rows = [];
  let filter = 0;
  for (const [x0, y0, dx, dy] of interlace ? ADAM7 : [[0, 0, 1, 1]]) {
    const pw = Math.ceil((W - x0) / dx), ph = Math.ceil((H - y0) / dy);
    if (pw <= 0 || ph <= 0) continue;
    const stride = Math.ceil((pw * spp * depth) / 8);
    let prev = new Uint8Array(stride);
    for (let y = 0; y < ph; y++) {
      const raw = new Uint8Array(stride);
      for (let x = 0; x < pw; x++) {
        for (let k = 0; k < spp; k++) {
          const v = sample(x0 + x * dx, y0 + y * dy, k), i = x * spp + k;
          if (depth === 16) { raw[i * 2] = v >> 8; raw[i * 2 + 1] = v & 255; } else if (depth === 8) raw[i] = v;
          else raw[(i * depth) >> 3] |= v << (8 - depth - ((i * depth) & 7));
        }
      }
      const f = filter++ % 5, out = new Uint8Array(stride + 1);
      out[0] = f;
      for (let i = 0; i < stride; i++) {
        const a = i >= bpp ? raw[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f];
        out[i + 1] = (raw[i] - pred) & 255;
      }
      rows.push(out);
      prev = raw;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(W, 0); ihdr.writeUInt32BE(H, 4);
  ihdr[8] = depth; ihdr[9] = color; ihdr[12] = interlace ? 1 : 0;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr),
    ...(palette ? [chunk('PLTE', palette)] : []), chunk('gAMA', Buffer.from([0, 0, 0xb1, 0x8f])),
    chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}

const CASES = [];
for (const depth of [1, 2, 4, 8, 16]) CASES.push({ color: 0, depth });
for (const depth of [8, 16]) CASES.push({ color: 2, depth }, { color: 4, depth }, { color: 6, depth });
for (const depth of [1, 2, 4, 8]) CASES.push({ color: 3, depth });

test('decodePNG + imageToTensor equal classify (stb_image) for every colour type, depth, filter and interlace', { skip: !existsSync(SQUEEZE) && 'no ../shared SqueezeNet' }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wg-png-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const sq = join(dir, 'sq.wasm');
  execFileSync(WG, ['compile', SQUEEZE, '-o', sq, '--quiet']);
  const target = { name: 'data_0', dtype: 'float32', shape: [1, 3, 224, 224] };
  for (const interlace of [false, true]) {
    for (const c of CASES) {
      const max = (1 << c.depth) - 1;
      const palette = c.color === 3 ? Buffer.from(Array.from({ length: 3 << c.depth }, (_, i) => (i * 97 + 13) & 255)) : null;
      const png = encodePNG({ W: 37, H: 23, interlace, palette, ...c }, (x, y, k) => ((x * 7 + y * 13 + k * 29 + ((x * y) >> 2)) * 2654435761 >>> 7) % (max + 1));
      const file = join(dir, 'x.png'), pb = join(dir, 'x.pb');
      writeFileSync(file, png);
      execFileSync(WG, ['classify', sq, '-i', file, '-l', join(SHARED, 'labels', 'synset.csv'), '--save-input', pb, '--top', '1']);
      const ref = parseTensor(readFileSync(pb), 'x.pb').data;
      const mine = imageToTensor(await decodePNG(png), target);
      let diff = 0;
      for (let i = 0; i < mine.length; i++) if (!Object.is(mine[i], ref[i])) diff++;
      assert.equal(diff, 0, `colour ${c.color} depth ${c.depth}${interlace ? ' interlaced' : ''}: ${diff} values differ`);
    }
  }
});

test('broken PNGs are format errors that say what is wrong', async () => {
  const good = encodePNG({ W: 5, H: 4, color: 2, depth: 8 }, (x, y, k) => x + y + k);
  const rejects = (bytes, re) => assert.rejects(decodePNG(bytes, 'p.png'), (e) => e instanceof WasmgraphError && e.code === 'format' && re.test(e.message));
  await rejects(good.subarray(0, good.length - 20), /p\.png: PNG chunk IDAT at byte \d+ .* runs past the end of the file/);
  await rejects(Buffer.from('not a png at all'), /p\.png: not a PNG file/);
  const noEnd = good.subarray(0, good.length - 12);
  await rejects(noEnd, /before its IEND chunk/);
  const badDepth = Buffer.from(good); badDepth[24] = 3; // IHDR bit depth
  await rejects(badDepth, /colour type 2 with bit depth 3 does not exist/);
  const badFilter = encodePNG({ W: 5, H: 4, color: 0, depth: 8 }, () => 1);
  const idat = badFilter.indexOf('IDAT');
  const body = deflateSync(Buffer.from([7, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1]));
  const broken = Buffer.concat([badFilter.subarray(0, idat - 4), chunk('IDAT', body), chunk('IEND', Buffer.alloc(0))]);
  await rejects(broken, /scanline filter 7 does not exist/);
  const short = Buffer.concat([badFilter.subarray(0, idat - 4), chunk('IDAT', deflateSync(Buffer.from([0, 1, 2]))), chunk('IEND', Buffer.alloc(0))]);
  await rejects(short, /image data has 3 bytes, too few for 5x4/);
});
