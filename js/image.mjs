// image.mjs: image to input tensor with `wasmgraph classify`'s exact semantics
// (src/cli/image.c, cmd_classify.c, preprocess.c), so that a page, Node and the CLI
// give the same tensor bit for bit for the same PNG:
//   decode without colour-space conversion (png.mjs; other formats through the
//   browser's decoder with colorSpaceConversion 'none'), bilinear resize (half-pixel
//   centres, edges clamped, float32 arithmetic in the C code's order), optional resize
//   of the shorter side and centre crop, v / scale, - mean, / std per source colour,
//   BGR or RGB, gray (0.299 R + 0.587 G + 0.114 B), NCHW or NHWC.
// The options default to the model's metadata "preprocess" (compile --preprocess).

import { fail, checkOptions, describe } from './errors.mjs';
import { decodePNG, isPNG } from './png.mjs';

export { decodePNG };

const f = Math.fround;

/**
 * Decodes image bytes: PNG everywhere (png.mjs, what stb_image gives); other formats
 * (JPEG, ...) where createImageBitmap exists (browsers), without colour-space
 * conversion or premultiplied alpha. The browser's JPEG decoder is not stb_image's:
 * its pixels, and so the tensor, may differ from the CLI's by a few levels.
 * Returns { width, height, channels (3 or 4), data: Uint8Array }.
 */
export async function decodeImage(bytes, name = 'image') {
  const u8 = bytes instanceof Uint8Array ? bytes : ArrayBuffer.isView(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(bytes);
  if (isPNG(u8)) return decodePNG(u8, name);
  if (typeof createImageBitmap !== 'function' || typeof OffscreenCanvas !== 'function') {
    throw fail('arg', `${name}: only PNG decodes here; decode it yourself and pass { width, height, data } (RGB or RGBA bytes)`);
  }
  let bmp;
  try {
    bmp = await createImageBitmap(new Blob([u8]), { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
  } catch (e) {
    throw fail('format', `${name}: cannot decode the image: ${e.message}`, e);
  }
  const cv = new OffscreenCanvas(bmp.width, bmp.height);
  const ctx = cv.getContext('2d', { willReadFrequently: true });
  ctx.drawImage(bmp, 0, 0);
  bmp.close();
  const px = ctx.getImageData(0, 0, cv.width, cv.height);
  return { width: px.width, height: px.height, channels: 4, data: new Uint8Array(px.data.buffer) };
}

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? '' : 'must be a number');
const triple = (v) => (typeof v === 'number' || (Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === 'number')) ? '' : 'must be a number or [R, G, B]');
const PREP_OPTIONS = {
  size: (v) => (v === 0 || (Number.isInteger(v) && v > 0 && v <= 16384) ? '' : 'must be an integer in 1..16384 (0: none)'),
  crop: (v) => (typeof v === 'boolean' ? '' : 'must be true or false'),
  scale: (v) => (num(v) || (v > 0 ? '' : 'must be positive')),
  mean: triple, std: triple,
  bgr: (v) => (typeof v === 'boolean' ? '' : 'must be true or false'),
  gray: (v) => (typeof v === 'boolean' ? '' : 'must be true or false'),
  layout: (v) => (['auto', 'nchw', 'nhwc'].includes(v) ? '' : "must be 'auto', 'nchw' or 'nhwc'"),
};
const DEFAULTS = { size: 0, crop: false, scale: 1, mean: [0, 0, 0], std: [1, 1, 1], bgr: false, gray: false, layout: 'auto' };

/**
 * The preprocessing for a model: its metadata's "preprocess" (compile --preprocess),
 * then `overrides` on top (the names of classify's options: size, crop, scale, mean,
 * std, bgr, gray, layout). Returns a complete, checked options object.
 */
export function preprocessOptions(metadata, overrides) {
  const rec = metadata && metadata.preprocess ? checkOptions(metadata.preprocess, PREP_OPTIONS, 'metadata "preprocess"') : {};
  const o = { ...DEFAULTS, ...rec, ...checkOptions(overrides, PREP_OPTIONS, 'imageToTensor()') };
  for (const k of ['mean', 'std']) o[k] = typeof o[k] === 'number' ? [o[k], o[k], o[k]] : o[k].slice();
  if (o.std.some((v) => v === 0)) throw fail('arg', `imageToTensor(): std must not be zero, not [${o.std}]`);
  return o;
}

/* classify's plan_input: the input's layout and size from its shape. */
function planInput(t, o) {
  if (t.dtype !== 'float32' && t.dtype !== 'float16') throw fail('arg', `input '${t.name}' is ${t.dtype}; images fill float32 or float16 inputs`);
  let d = t.shape;
  if (d.length === 4) {
    if (d[0] !== 1) throw fail('arg', `input '${t.name}' has batch ${d[0]}; an image needs batch 1`);
    d = d.slice(1);
  } else if (d.length !== 3) {
    throw fail('arg', `input '${t.name}' has shape [${t.shape}]; an image needs [1,C,H,W] or [1,H,W,C]`);
  }
  const nhwc = o.layout !== 'auto' ? o.layout === 'nhwc' : !(d[0] === 1 || d[0] === 3) && (d[2] === 1 || d[2] === 3);
  const [C, H, W] = nhwc ? [d[2], d[0], d[1]] : [d[0], d[1], d[2]];
  if (C !== 1 && C !== 3) throw fail('arg', `input '${t.name}' has shape [${t.shape}]: ${C} channels in ${nhwc ? 'nhwc' : 'nchw'} layout; images have 1 or 3`);
  if (o.gray && C !== 1) throw fail('arg', `gray: input '${t.name}' has shape [${t.shape}], 3 channels`);
  const resizeShort = o.size ? o.size : o.crop ? Math.round((Math.min(H, W) * 256) / 224) : 0;
  return { C, H, W, nhwc, resizeShort };
}

/**
 * The input tensor for an image: a Float32Array (float32 input) or the raw bits of
 * float16 (Uint16Array) of the input's size, as `wasmgraph classify` computes it.
 *   image:  { width, height, data } with data RGB or RGBA bytes (decodeImage, or an
 *           ImageData: its alpha is ignored)
 *   target: a Session, Model or RemoteSession (its first input and its metadata's
 *           "preprocess"), or an input description { name, dtype, shape }
 *   options: overrides of the preprocessing (preprocessOptions)
 */
export function imageToTensor(image, target, options) {
  const t = target && target.inputs ? target.inputs[0] : target;
  if (!t || !Array.isArray(t.shape)) throw fail('arg', `imageToTensor(): the target must be a session, a model or an input { name, dtype, shape }, not ${describe(target)}`);
  const o = preprocessOptions(target && target.metadata, options);
  const img = checkImage(image);
  const { C, H, W, nhwc, resizeShort } = planInput(t, o);
  const out = new Float32Array(C * H * W);
  resample(img, { C, H, W, nhwc, resizeShort, scale: f(o.scale), mean: o.mean.map(f), std: o.std.map(f), bgr: o.bgr }, out);
  if (t.dtype === 'float32') return out;
  const h = new Uint16Array(out.length);
  for (let i = 0; i < out.length; i++) h[i] = f32ToF16(out[i]);
  return h;
}

function checkImage(image) {
  const ok = image && Number.isInteger(image.width) && Number.isInteger(image.height) && image.width > 0 && image.height > 0 && image.data && image.data.length;
  if (!ok) throw fail('arg', `imageToTensor(): the image must be { width, height, data } (decodeImage or an ImageData), not ${describe(image)}`);
  const n = image.width * image.height, ch = image.data.length / n;
  if (ch !== 3 && ch !== 4) throw fail('arg', `imageToTensor(): ${image.data.length} bytes of data are not RGB or RGBA for ${image.width}x${image.height}`);
  return { w: image.width, h: image.height, ch, px: image.data };
}

/* image.c's wg_image_preprocess, operation for operation in float32 (Math.fround) where
 * the C code uses float, in double where it uses double. */
function resample(img, p, out) {
  const { C, H, W } = p;
  let RW = W, RH = H, ox = 0, oy = 0;
  if (p.resizeShort > 0) {
    const k = p.resizeShort / Math.min(img.w, img.h);
    RW = Math.round(img.w * k); /* C round(): halves away from zero, the same for positives */
    RH = Math.round(img.h * k);
    if (RW < W || RH < H) throw fail('arg', `the image resized to ${RW}x${RH} is smaller than the ${W}x${H} crop`);
    ox = Math.floor((RW - W) / 2);
    oy = Math.floor((RH - H) / 2);
  }
  const sx = img.w / RW, sy = img.h / RH, plane = W * H;
  const rgb = [0, 0, 0], v = [0, 0, 0];
  const k299 = f(0.299), k587 = f(0.587), k114 = f(0.114);
  for (let y = 0; y < H; y++) {
    const fy = f((y + oy + 0.5) * sy - 0.5);
    for (let x = 0; x < W; x++) {
      const fx = f((x + ox + 0.5) * sx - 0.5);
      for (let c = 0; c < 3; c++) rgb[c] = sample(img, fx, fy, c);
      if (C === 1) {
        let g = f(f(f(k299 * rgb[0]) + f(k587 * rgb[1])) + f(k114 * rgb[2]));
        g = f(f(f(g / p.scale) - p.mean[0]) / p.std[0]);
        v[0] = g;
      } else {
        for (let c = 0; c < 3; c++) rgb[c] = f(f(f(rgb[c] / p.scale) - p.mean[c]) / p.std[c]);
        for (let c = 0; c < 3; c++) v[c] = rgb[p.bgr ? 2 - c : c];
      }
      const pix = y * W + x;
      for (let c = 0; c < C; c++) out[p.nhwc ? pix * C + c : c * plane + pix] = v[c];
    }
  }
}

/* image.c's sample(): bilinear at (x, y), edges clamped. */
function sample(img, x, y, c) {
  if (x < 0) x = 0;
  if (y < 0) y = 0;
  let x0 = Math.trunc(x), y0 = Math.trunc(y);
  if (x0 > img.w - 1) x0 = img.w - 1;
  if (y0 > img.h - 1) y0 = img.h - 1;
  const x1 = x0 + 1 < img.w ? x0 + 1 : x0, y1 = y0 + 1 < img.h ? y0 + 1 : y0;
  let fx = f(x - x0), fy = f(y - y0);
  if (fx > 1) fx = 1;
  if (fy > 1) fy = 1;
  const ch = img.ch, r0 = y0 * img.w * ch, r1 = y1 * img.w * ch, px = img.px;
  const gx = f(1 - fx), gy = f(1 - fy);
  const top = f(f(px[r0 + x0 * ch + c] * gx) + f(px[r0 + x1 * ch + c] * fx));
  const bot = f(f(px[r1 + x0 * ch + c] * gx) + f(px[r1 + x1 * ch + c] * fx));
  return f(f(top * gy) + f(bot * fy));
}

const F32 = new Float32Array(1), U32 = new Uint32Array(F32.buffer);

/** float32 -> float16 bits, rounding to nearest even (src/common/dtype.c wg_f32_to_f16). */
export function f32ToF16(v) {
  F32[0] = v;
  const x = U32[0], sign = (x >>> 16) & 0x8000, ax = x & 0x7fffffff;
  if (ax >= 0x7f800000) return sign | 0x7c00 | (ax > 0x7f800000 ? 0x200 : 0);
  if (ax >= 0x477ff000) return sign | 0x7c00;
  if (ax < 0x38800000) {
    if (ax < 0x33000000) return sign;
    const e = ax >>> 23, m = (ax & 0x7fffff) | 0x800000, shift = 126 - e;
    let half = m >>> shift;
    const rem = m & ((1 << shift) - 1), mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && (half & 1))) half++;
    return sign | half;
  }
  const r = ax - 0x38000000;
  let half = r >>> 13;
  const rem = r & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (half & 1))) half++;
  return sign | half;
}

/**
 * classify's top-k: the scores as probabilities (soft-max, in double, unless they
 * already are: every value in 0..1 summing to 1 within 1e-3), the k largest first
 * (ties by index). Returns { softmax, top: [{ index, prob }] }.
 */
export function topClasses(scores, k = 5) {
  const n = scores.length;
  if (!n) throw fail('arg', 'topClasses(): no scores');
  const prob = Float64Array.from(scores, Number);
  let sum = 0, hi = -Infinity, probs = true;
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(prob[i])) throw fail('arg', `topClasses(): NaN at index ${i}`);
    probs = probs && prob[i] >= 0 && prob[i] <= 1;
    sum += prob[i];
    hi = prob[i] > hi ? prob[i] : hi;
  }
  const softmax = !(probs && Math.abs(sum - 1) <= 1e-3);
  if (softmax) {
    sum = 0;
    for (let i = 0; i < n; i++) sum += (prob[i] = Math.exp(prob[i] - hi));
    for (let i = 0; i < n; i++) prob[i] /= sum;
  }
  const top = [];
  for (let r = 0; r < Math.min(k, n); r++) {
    let pick = -1;
    for (let i = 0; i < n; i++) if (prob[i] >= 0 && (pick < 0 || prob[i] > prob[pick])) pick = i;
    top.push({ index: pick, prob: prob[pick] });
    prob[pick] = -1;
  }
  return { softmax, top };
}
