// png.mjs: a PNG decoder that gives what `wasmgraph classify` gets from stb_image
// (src/cli/image.c asks it for 3 components): 8-bit RGB, alpha dropped (not blended),
// gray expanded, 16-bit samples cut to their high byte, low bit depths scaled to 0..255
// (palette indices not), and no colour-space or gamma conversion (gAMA, cHRM, iCCP and
// sRGB chunks are ignored, as stb_image ignores them). Chunk CRCs are not checked, as
// stb_image does not check them. The zlib stream is inflated with DecompressionStream
// (browsers, Node 18+), so the same code runs everywhere.

import { fail } from './errors.mjs';

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
// colour type -> samples per pixel
const CHANNELS = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
// Adam7 passes: [x0, y0, dx, dy]
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];

/** True when bytes start with the PNG signature. */
export function isPNG(bytes) {
  return bytes.length >= 8 && SIGNATURE.every((b, i) => bytes[i] === b);
}

async function inflate(data, name) {
  try {
    const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream('deflate'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch (e) {
    throw fail('format', `${name}: PNG image data does not inflate: ${e.message}`, e);
  }
}

/**
 * Decodes PNG bytes: { width, height, channels: 3, data } (data: Uint8Array of
 * width * height RGB triples, row-major). Throws WasmgraphError('format') naming what
 * is wrong.
 */
export async function decodePNG(bytes, name = 'image') {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes.buffer ?? bytes, bytes.byteOffset ?? 0, bytes.byteLength);
  if (!isPNG(u8)) throw fail('format', `${name}: not a PNG file (no PNG signature)`);
  const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  let pos = 8, ihdr = null, palette = null;
  const idat = [];
  for (;;) {
    if (pos + 8 > u8.length) throw fail('format', `${name}: PNG ends at byte ${u8.length} before its IEND chunk`);
    const len = dv.getUint32(pos), type = String.fromCharCode(...u8.subarray(pos + 4, pos + 8));
    if (pos + 12 + len > u8.length) throw fail('format', `${name}: PNG chunk ${type} at byte ${pos} (${len} bytes) runs past the end of the file (${u8.length} bytes)`);
    const body = u8.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      if (len !== 13) throw fail('format', `${name}: PNG IHDR chunk has ${len} bytes, not 13`);
      ihdr = { width: dv.getUint32(pos + 8), height: dv.getUint32(pos + 12), depth: body[8], color: body[9], interlace: body[12] };
      if (body[10] || body[11]) throw fail('format', `${name}: PNG compression ${body[10]} / filter method ${body[11]}: only 0 exists`);
    } else if (!ihdr) {
      throw fail('format', `${name}: PNG chunk ${type} at byte ${pos} comes before IHDR`);
    } else if (type === 'PLTE') {
      palette = body;
    } else if (type === 'IDAT') {
      idat.push(body);
    } else if (type === 'IEND') {
      break;
    }
    pos += 12 + len;
  }
  const { width: W, height: H, depth, color, interlace } = ihdr;
  if (!CHANNELS[color] || !DEPTHS[color].includes(depth)) throw fail('format', `${name}: PNG colour type ${color} with bit depth ${depth} does not exist`);
  if (!W || !H || W > 1 << 24 || H > 1 << 24 || W * H > 1 << 28) throw fail('format', `${name}: PNG size ${W}x${H} is out of range`);
  if (interlace > 1) throw fail('format', `${name}: PNG interlace method ${interlace} does not exist`);
  if (color === 3 && !palette) throw fail('format', `${name}: palette PNG without a PLTE chunk`);
  if (!idat.length) throw fail('format', `${name}: PNG has no IDAT chunk`);
  const raw = await inflate(idat.length === 1 ? idat[0] : concat(idat), name);

  const spp = CHANNELS[color], bitsPP = spp * depth, bpp = Math.max(1, bitsPP >> 3);
  const out = new Uint8Array(W * H * 3);
  let at = 0;
  const passes = interlace ? ADAM7 : [[0, 0, 1, 1]];
  for (const [x0, y0, dx, dy] of passes) {
    const pw = Math.ceil((W - x0) / dx), ph = Math.ceil((H - y0) / dy);
    if (pw <= 0 || ph <= 0) continue;
    const stride = Math.ceil((pw * bitsPP) / 8);
    if (at + ph * (stride + 1) > raw.length) throw fail('format', `${name}: PNG image data has ${raw.length} bytes, too few for ${W}x${H}`);
    let prev = new Uint8Array(stride), cur;
    for (let y = 0; y < ph; y++) {
      const filter = raw[at];
      cur = raw.slice(at + 1, at + 1 + stride);
      at += stride + 1;
      unfilter(filter, cur, prev, bpp, name);
      for (let x = 0; x < pw; x++) putPixel(out, ((y0 + y * dy) * W + x0 + x * dx) * 3, cur, x, color, depth, palette);
      prev = cur;
    }
  }
  return { width: W, height: H, channels: 3, data: out };
}

function concat(parts) {
  const r = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) { r.set(p, o); o += p.length; }
  return r;
}

function unfilter(f, cur, prev, bpp, name) {
  const n = cur.length;
  switch (f) {
  case 0: return;
  case 1: for (let i = bpp; i < n; i++) cur[i] = cur[i] + cur[i - bpp]; return;
  case 2: for (let i = 0; i < n; i++) cur[i] = cur[i] + prev[i]; return;
  case 3: for (let i = 0; i < n; i++) cur[i] = cur[i] + ((((i >= bpp ? cur[i - bpp] : 0) + prev[i]) >> 1)); return;
  case 4:
    for (let i = 0; i < n; i++) {
      const a = i >= bpp ? cur[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
      const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      cur[i] = cur[i] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
    }
    return;
  default: throw fail('format', `${name}: PNG scanline filter ${f} does not exist`);
  }
}

// Sample k of pixel x in a scanline, as 0..255 (16 bits: the high byte; 1/2/4 bits
// scaled by 255, 85, 17 unless they are palette indices).
const SCALE = { 1: 0xff, 2: 0x55, 4: 0x11, 8: 1 };
function sample(row, x, k, spp, depth, index) {
  if (depth === 8) return row[x * spp + k];
  if (depth === 16) return row[(x * spp + k) * 2];
  const bit = x * depth, v = (row[bit >> 3] >> (8 - depth - (bit & 7))) & ((1 << depth) - 1);
  return index ? v : v * SCALE[depth];
}

function putPixel(out, o, row, x, color, depth, palette) {
  if (color === 3) {
    const i = sample(row, x, 0, 1, depth, true);
    const p = i * 3 + 2 < palette.length ? i * 3 : -1;
    out[o] = p < 0 ? 0 : palette[p]; out[o + 1] = p < 0 ? 0 : palette[p + 1]; out[o + 2] = p < 0 ? 0 : palette[p + 2];
  } else if (color === 0 || color === 4) {
    out[o] = out[o + 1] = out[o + 2] = sample(row, x, 0, CHANNELS[color], depth, false);
  } else {
    const spp = CHANNELS[color];
    for (let k = 0; k < 3; k++) out[o + k] = sample(row, x, k, spp, depth, false);
  }
}
