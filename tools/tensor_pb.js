// ONNX TensorProto reading and writing by hand (no protobuf library), for tools/*.js.
// Reads dims, data_type, name, raw_data and the typed *_data fields; writes
// dims (packed), data_type, name and raw_data. Data is little-endian, as ONNX specifies.
'use strict';

// ONNX TensorProto.DataType codes and the onnxruntime-node tensor type for each.
const DTYPES = {
  1: { name: 'float32', size: 4, Arr: Float32Array },
  2: { name: 'uint8', size: 1, Arr: Uint8Array },
  3: { name: 'int8', size: 1, Arr: Int8Array },
  4: { name: 'uint16', size: 2, Arr: Uint16Array },
  5: { name: 'int16', size: 2, Arr: Int16Array },
  6: { name: 'int32', size: 4, Arr: Int32Array },
  7: { name: 'int64', size: 8, Arr: BigInt64Array },
  9: { name: 'bool', size: 1, Arr: Uint8Array },
  10: { name: 'float16', size: 2, Arr: Uint16Array }, // raw IEEE half bits
  11: { name: 'float64', size: 8, Arr: Float64Array },
  12: { name: 'uint32', size: 4, Arr: Uint32Array },
  13: { name: 'uint64', size: 8, Arr: BigUint64Array },
};
const CODE_OF = {};
for (const [code, d] of Object.entries(DTYPES)) CODE_OF[d.name] = Number(code);
CODE_OF.double = 11;

class Reader {
  constructor(buf, where) { this.buf = buf; this.pos = 0; this.where = where; }
  fail(msg) { throw new Error(`${this.where}: ${msg} at byte ${this.pos}`); }
  varint() { // as BigInt: int64 fields may use all 64 bits
    let v = 0n, shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) this.fail('truncated varint');
      const b = this.buf[this.pos++];
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
      shift += 7n;
      if (shift > 63n) this.fail('varint longer than 10 bytes');
    }
  }
  bytes() {
    const n = Number(this.varint());
    if (this.pos + n > this.buf.length) this.fail(`field of ${n} bytes runs past the end`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  skip(wire) {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else this.fail(`unsupported wire type ${wire}`);
    if (this.pos > this.buf.length) this.fail('field runs past the end');
  }
}

// Reads a repeated varint field (packed or not) into `out` as BigInt.
function readVarints(r, wire, out) {
  if (wire === 2) {
    const sub = new Reader(r.bytes(), r.where);
    while (sub.pos < sub.buf.length) out.push(sub.varint());
  } else if (wire === 0) {
    out.push(r.varint());
  } else r.fail(`varint field with wire type ${wire}`);
}

// Reads a repeated fixed-width field (packed or not) as raw little-endian bytes.
function readFixed(r, wire, width, chunks) {
  if (wire === 2) chunks.push(Buffer.from(r.bytes()));
  else if ((width === 4 && wire === 5) || (width === 8 && wire === 1)) {
    chunks.push(Buffer.from(r.buf.subarray(r.pos, r.pos + width)));
    r.pos += width;
  } else r.fail(`fixed${width * 8} field with wire type ${wire}`);
}

// Parses a serialized TensorProto. Returns {name, dims: number[], dtype: 'float32'|..., data: TypedArray}.
function parseTensor(buf, where = 'tensor') {
  const r = new Reader(buf, where);
  const dims = [], int32 = [], int64 = [], uint64 = [], floats = [], doubles = [];
  let code = 0, name = '', raw = null;
  while (r.pos < buf.length) {
    const key = Number(r.varint());
    const field = key >>> 3, wire = key & 7;
    switch (field) {
      case 1: readVarints(r, wire, dims); break;
      case 2: code = Number(r.varint()); break;
      case 4: readFixed(r, wire, 4, floats); break;
      case 5: readVarints(r, wire, int32); break;
      case 7: readVarints(r, wire, int64); break;
      case 8: name = Buffer.from(r.bytes()).toString('utf8'); break;
      case 9: raw = r.bytes(); break;
      case 10: readFixed(r, wire, 8, doubles); break;
      case 11: readVarints(r, wire, uint64); break;
      case 13: case 14: {
        if (field === 14 && wire === 0 && r.varint() === 0n) break; // DEFAULT location
        throw new Error(`${where}: external data is not supported`);
      }
      default: r.skip(wire);
    }
  }
  const dt = DTYPES[code];
  if (!dt) throw new Error(`${where}: data_type ${code} is not supported`);
  const shape = dims.map(Number);
  const count = shape.reduce((a, b) => a * b, 1);
  const data = new dt.Arr(count);
  if (raw) {
    if (raw.length !== count * dt.size)
      throw new Error(`${where}: raw_data has ${raw.length} bytes, dims [${shape}] of ${dt.name} need ${count * dt.size}`);
    new Uint8Array(data.buffer).set(raw);
  } else {
    let src;
    if ([1].includes(code)) src = Buffer.concat(floats);
    else if (code === 11) src = Buffer.concat(doubles);
    let vals = null;
    if (src) {
      if (src.length !== count * dt.size)
        throw new Error(`${where}: typed data has ${src.length} bytes, dims [${shape}] need ${count * dt.size}`);
      new Uint8Array(data.buffer).set(src);
    } else if (code === 7) vals = int64.map((v) => BigInt.asIntN(64, v));
    else if (code === 13 || code === 12) vals = uint64;
    else vals = int32; // int32, int16, int8, uint8, uint16, bool, float16 bits
    if (vals) {
      if (vals.length !== count)
        throw new Error(`${where}: ${vals.length} values, dims [${shape}] need ${count}`);
      for (let i = 0; i < count; i++) {
        if (dt.Arr === BigInt64Array || dt.Arr === BigUint64Array) data[i] = vals[i];
        else data[i] = Number(BigInt.asIntN(32, vals[i]));
      }
    }
  }
  return { name, dims: shape, dtype: dt.name, data };
}

function varintBytes(v) { // v: non-negative Number or BigInt
  let b = BigInt(v);
  const out = [];
  do {
    let byte = Number(b & 0x7fn);
    b >>= 7n;
    if (b) byte |= 0x80;
    out.push(byte);
  } while (b);
  return Buffer.from(out);
}

// Serializes {name, dims, dtype, data} as a TensorProto with raw_data.
function serializeTensor({ name, dims, dtype, data }) {
  const code = CODE_OF[dtype];
  if (!code) throw new Error(`tensor ${name}: dtype ${dtype} cannot be written`);
  const parts = [];
  const dimBytes = Buffer.concat(dims.map((d) => varintBytes(d)));
  parts.push(Buffer.from([0x0a]), varintBytes(dimBytes.length), dimBytes); // 1: dims, packed
  parts.push(Buffer.from([0x10]), varintBytes(code)); // 2: data_type
  const nameBytes = Buffer.from(name || '', 'utf8');
  parts.push(Buffer.from([0x42]), varintBytes(nameBytes.length), nameBytes); // 8: name
  const raw = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  parts.push(Buffer.from([0x4a]), varintBytes(raw.length), raw); // 9: raw_data
  return Buffer.concat(parts);
}

// A .npy file (version 1-3, little-endian, C order) as {name, dims, dtype, data}.
const NPY = { '<f4': 'float32', '<f2': 'float16', '<f8': 'float64', '<i8': 'int64', '<i4': 'int32', '|u1': 'uint8', '|b1': 'bool', '|i1': 'int8' };
function parseNpy(buf, where = 'npy') {
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${where}: not a .npy file`);
  const major = buf[6], hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8), at = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', at, at + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header), shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !shape || /'fortran_order':\s*True/.test(header)) throw new Error(`${where}: unsupported .npy header ${header.trim()}`);
  const dtype = NPY[descr[1]];
  if (!dtype) throw new Error(`${where}: .npy dtype ${descr[1]} is not supported`);
  const dims = shape[1].split(',').filter((x) => x.trim()).map(Number);
  const dt = DTYPES[CODE_OF[dtype]], count = dims.reduce((a, b) => a * b, 1);
  const raw = buf.subarray(at + hlen);
  if (raw.length !== count * dt.size) throw new Error(`${where}: ${raw.length} bytes of data, [${dims}] of ${dtype} need ${count * dt.size}`);
  const data = new dt.Arr(count);
  new Uint8Array(data.buffer).set(raw);
  return { name: '', dims, dtype, data };
}

// A tensor file, .npy or .pb (a TensorProto), as {name, dims, dtype, data}.
function readTensorFile(file) {
  const buf = require('fs').readFileSync(file);
  return /\.npy$/i.test(file) ? parseNpy(buf, file) : parseTensor(buf, file);
}

module.exports = { parseTensor, serializeTensor, parseNpy, readTensorFile, DTYPES, CODE_OF };
