// errors.mjs: the one error type of the package, shared by the loader, the image
// helpers and the worker (whose errors cross back to the page as this type).

/** Every failure of this package is a WasmgraphError; `code` tells the kind. */
export class WasmgraphError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = 'WasmgraphError';
    // 'io' | 'format' | 'abi' | 'status' | 'trap' | 'arg' | 'state' | 'worker' | 'threads' | 'aborted'
    this.code = code;
  }
}

export function fail(code, msg, cause) {
  return new WasmgraphError(code, msg, cause ? { cause } : undefined);
}

/* The options object of `what`: a plain object (or undefined) whose keys are all in
 * `allowed` ({key: checker}); a checker returns an error text for a bad value or ''. */
export function checkOptions(options, allowed, what) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw fail('arg', `${what}: options must be an object, not ${describe(options)}`);
  }
  for (const [k, v] of Object.entries(options)) {
    if (!Object.hasOwn(allowed, k)) {
      throw fail('arg', `${what}: unknown option '${k}' (options: ${Object.keys(allowed).join(', ')})`);
    }
    const bad = v === undefined ? '' : allowed[k](v);
    if (bad) throw fail('arg', `${what}: option '${k}' ${bad}, not ${describe(v)}`);
  }
  return options;
}

/* Checkers for checkOptions. */
export const isBool = (v) => (typeof v === 'boolean' ? '' : 'must be true or false');
export const isString = (v) => (typeof v === 'string' ? '' : 'must be a string');
export const isPositiveInt = (v) => (Number.isInteger(v) && v > 0 ? '' : 'must be a positive integer');

/* A short description of a value for messages: "Float64Array(1000)", "an Array", "7". */
export function describe(v) {
  if (v === null) return 'null';
  if (ArrayBuffer.isView(v)) return `${typeName(v)}(${v.length ?? v.byteLength})`;
  if (Array.isArray(v)) return `an Array(${v.length})`;
  if (typeof v === 'object') return `an object (${typeName(v)})`;
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '...' : v);
  return String(v);
}

/* The class name of a value, across realms (a typed array from a worker or an iframe). */
export function typeName(v) {
  return Object.prototype.toString.call(v).slice(8, -1);
}
