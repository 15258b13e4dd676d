// wasmgraph.d.ts: TypeScript declarations for the wasmgraph package (wasmgraph.mjs and
// the modules it re-exports: errors.mjs, image.mjs, png.mjs, remote.mjs). Hand-written;
// tests/js/test_package.mjs type-checks a program against them when `tsc` is present.

/** The newest module ABI this loader runs (it runs ABI_VERSION_MIN..ABI_VERSION). */
export declare const ABI_VERSION: 2;
export declare const ABI_VERSION_MIN: 1;
export declare const SECTION_NAME: 'wasmgraph';

export type ErrorCode = 'io' | 'format' | 'abi' | 'status' | 'trap' | 'arg' | 'state' | 'worker' | 'threads' | 'aborted';

/** Every failure of this package; `code` tells the kind. */
export declare class WasmgraphError extends Error {
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown });
  readonly name: 'WasmgraphError';
  readonly code: ErrorCode;
}

export type DType =
  | 'float32' | 'float64' | 'float16' | 'int8' | 'uint8' | 'int16' | 'uint16'
  | 'int32' | 'uint32' | 'int64' | 'uint64' | 'bool';

/** float16 is its raw bits (Uint16Array); bool is Uint8Array. */
export type TypedArray =
  | Float32Array | Float64Array | Int8Array | Uint8Array | Int16Array | Uint16Array
  | Int32Array | Uint32Array | BigInt64Array | BigUint64Array;

export interface TensorInfo {
  name: string;
  dtype: DType;
  /** the dims; a symbolic one (ABI 2) at its maximum */
  shape: number[];
  /** bytes in linear memory (ABI 2: at the maxima, the buffer's size) */
  bytes: number;
  /** elements (at the maxima) */
  size: number;
  /** ABI 2: the sequence or optional graph value this tensor is part of (docs/abi.md
   * "Sequences and optionals"): part is the element index, or 'present' for an optional's
   * bool flag (1 = it holds a value). Absent for a plain tensor. */
  value?: { name: string; kind: 'sequence' | 'optional'; holds: 'tensor' | 'sequence'; part: number | 'present' };
  /** ABI 2, a tensor with symbolic or data-dependent dims only: each dim, a number, its
   * symbol's name, or { max } for a size the run decides (at most max) */
  dims?: (number | string | { max: number })[];
  /** ABI 2: an output with a data-dependent dim (NonZero, Unique, ...); run() returns it
   * as { data, dims } at the size the run reported */
  bounded?: boolean;
  /** An input the module lets run(feeds) give empty: size 0 along a symbolic dim whose
   * symbol another input gives (an encoder-decoder's encoder pasts on the first step);
   * only bodies of the graph read it, and one that does stops the run with status 18,
   * WGK_ERR_EMPTY_INPUT (docs/abi.md "Empty inputs") */
  mayBeEmpty?: boolean;
}

/** ABI 2: a symbolic dimension and its range (compile --dim NAME=MIN..MAX, or
 * NAME=MIN..MAX:STEP for the multiples of step only; step 1 otherwise). */
export interface SymbolInfo {
  name: string;
  min: number;
  max: number;
  step: number;
}

/** What compile --preprocess recorded (all fields present when recorded). */
export interface PreprocessOptions {
  /** resize the shorter side to this, then centre-crop (0: none) */
  size?: number;
  /** centre-crop after resizing the shorter side to size*256/224 */
  crop?: boolean;
  /** v in 0..255 becomes (v / scale - mean) / std */
  scale?: number;
  mean?: number | [number, number, number];
  std?: number | [number, number, number];
  bgr?: boolean;
  gray?: boolean;
  layout?: 'auto' | 'nchw' | 'nhwc';
}

/** A KV-cache pair (docs/abi.md "Resident KV caches"): input and output indices. */
export interface CachePair {
  past: number;
  present: number;
  axis: number;
  capacity: number;
}

export type CacheMode = 'copy' | 'resident' | 'load';

export interface Metadata {
  abi: number;
  /** ABI 2: the symbolic dimensions ([] for ABI 1) */
  symbols: SymbolInfo[];
  /** the KV caches the module keeps ([] when none) */
  cachePairs: CachePair[];
  name: string;
  producer?: string;
  opset?: number;
  inputs: TensorInfo[];
  outputs: TensorInfo[];
  options?: { simd: boolean; relaxed_simd: boolean; opt_level: number };
  arena_bytes?: number;
  weight_bytes?: number;
  memory_bytes?: number;
  weights_base?: number;
  step_weights?: number[];
  profile?: { op: string; name: string; output: string }[];
  preprocess?: Required<PreprocessOptions>;
  compiler?: string;
  [key: string]: unknown;
}

/** A typed array of the input's kind, or one with its dims (checked against the shape). */
/** An input: a typed array, or { data, dims } (an onnxruntime Tensor has both). On a
 * module with symbolic dims (ABI 2) an input with symbolic dims needs its dims: they give
 * the symbols' values for the run. */
export type Feed = TypedArray | { data: TypedArray; dims?: readonly number[] };
export type Feeds = Record<string, Feed>;
/** Each output's copy; an output with a data-dependent dim (TensorInfo.bounded) as { data, dims }. */
export type Outputs = Record<string, TypedArray | { data: TypedArray; dims: number[] }>;

export type Source = string | URL | Response | ArrayBuffer | ArrayBufferView | WebAssembly.Module;

export interface SessionOptions {
  /** Node, from a file: return while the weights are read; runAsync() overlaps them. */
  streamWeights?: boolean;
  /** bytes per read request (default 8 MiB, streamed 1 MiB) */
  pieceBytes?: number;
  /** a threaded module (compile --threads): run on this many threads (at most its
   * metadata's "threads"; needs SharedArrayBuffer; in a page, runs in a worker) */
  threads?: number;
  /** without SharedArrayBuffer, run a threaded module on one thread instead of failing */
  threadsFallback?: boolean;
}

export interface LoadOptions extends SessionOptions {
  /** the name used in messages (default: the path or URL) */
  name?: string;
  /** run the module in a Web Worker / Node worker thread: load() gives a RemoteSession */
  worker?: boolean;
}

export declare class Model {
  readonly name: string;
  readonly metadata: Metadata;
  readonly inputs: TensorInfo[];
  readonly outputs: TensorInfo[];
  createSession(options?: SessionOptions): Promise<Session>;
  /** Drops the compiled code and the weights' copy; later createSession() is a 'state' error. */
  dispose(): void;
}

export declare class Session {
  readonly model: Model;
  readonly metadata: Metadata;
  readonly inputs: TensorInfo[];
  readonly outputs: TensorInfo[];
  /** the module's exports and memory (null once disposed) */
  readonly exports: WebAssembly.Exports | null;
  readonly memory: WebAssembly.Memory | null;
  /** why the session cannot run any more (a trap, a failed read), or null */
  readonly broken: string | null;
  readonly disposed: boolean;
  /** the threads run() uses (1 unless a threaded module was loaded with threads: N) */
  readonly threads: number;
  /** resolves once every weight is in memory (at once unless streamWeights) */
  readonly ready: Promise<void>;
  /** Zero-copy view of an input (index or name), exactly the tensor's extent. */
  input(which?: number | string): TypedArray;
  /** Zero-copy view of an output: valid until the next run. */
  output(which?: number | string): TypedArray;
  /** Checks and writes the feeds, runs, returns copies of every output (ABI 2: at their
   * actual sizes, given by outputShape). */
  run(feeds: Feeds): Outputs;
  /** ABI 2: the symbols' values for the next run (zero-copy path), e.g. { batch: 2, seq: 9 }. */
  setDims(values: Record<string, number>): void;
  /** The KV caches the module keeps: 'copy' (default), 'resident' (the pasts are the rows the
   * module holds: give their length through the dims, write nothing into them) or 'load'. */
  setCacheMode(mode: CacheMode): void;
  readonly cacheMode: CacheMode;
  /** rows the module's cache regions hold, 0 before a resident or load run */
  readonly cacheRows: number;
  readonly cachePairs: CachePair[];
  /** The actual dims of an output at the current sizes (after run(): that run's). */
  outputShape(which?: number | string): number[];
  /** Runs on what the input views hold (zero-copy). */
  run(): void;
  runAsync(feeds: Feeds): Promise<Outputs>;
  runAsync(): Promise<void>;
  /** Frees the instance and its memory; later use is a 'state' error. */
  dispose(): void;
}

/** A session in a worker (load(source, { worker: true })); not a class you construct. */
export interface RemoteSession {
  readonly name: string;
  readonly metadata: Metadata;
  readonly inputs: TensorInfo[];
  readonly outputs: TensorInfo[];
  readonly disposed: boolean;
  /** Inputs that span a whole ArrayBuffer are transferred (detached in the caller). */
  run(feeds: Feeds): Promise<Outputs>;
  /** Ends the worker: its memory is freed at once. */
  dispose(): Promise<void>;
  /** Always throws: no zero-copy views in worker mode. */
  input(which?: number | string): never;
  output(which?: number | string): never;
}

export declare function compile(source: Source, name?: string): Promise<Model>;
export declare function load(source: Source, options: LoadOptions & { worker: true }): Promise<RemoteSession>;
export declare function load(source: Source, options?: string | (LoadOptions & { worker?: false })): Promise<Session>;
/** The checked metadata of a module, without instantiating it. From bytes, every check
 * of docs/abi.md (function types and memory flags included); from a compiled Module, all
 * but those two. */
export declare function inspect(module: WebAssembly.Module | Uint8Array, name?: string): Metadata;
/** Limits of the module ABI (versions 1 and 2), equal to the C host's WG_MAX_RANK and WG_ABI_MAX_* (include/wasmgraph.h). */
export declare const LIMITS: Readonly<{ tensors: number; rank: number; dim: number; elements: number; steps: number; symbols: number }>;
/** Nonzero statuses of the run exports: status -> [name, meaning] (kernels/include/wgk_status.h). */
export declare const STATUSES: Readonly<Record<number, readonly [string, string]>>;
/** The first structural problem of a module's bytes (the C host's words), or null. */
export declare function scanModule(read: (pos: number, len: number) => Uint8Array, size: number): string | null;
export declare function splitModule(read: (pos: number, len: number) => Uint8Array, size: number):
  { code: Uint8Array; segments: { mem: number; pos: number; len: number }[] } | null;
/** Reads data segments from an open Node FileHandle into a memory (exported for the tests). */
export declare function readSegments(fh: unknown, memory: WebAssembly.Memory,
  segments: { mem: number; pos: number; len: number }[], name: string, piece?: number): Promise<void>;
/** Checks run()'s feeds against the inputs; the arrays in input order. */
export declare function checkFeeds(feeds: Feeds, inputs: TensorInfo[], label: string): TypedArray[];
/** ABI 2: checks feeds with dims against the symbols; the arrays and the symbols' values. */
export declare function symbolicFeeds(feeds: Feeds, inputs: TensorInfo[], symbols: SymbolInfo[], label: string):
  { arrays: TypedArray[]; values: number[] };

// ---- images (image.mjs, png.mjs) ----

export interface DecodedImage {
  width: number;
  height: number;
  /** 3 (RGB) or 4 (RGBA) */
  channels: 3 | 4;
  data: Uint8Array;
}

/** PNG bytes to RGB, as stb_image decodes them (no colour-space or gamma conversion). */
export declare function decodePNG(bytes: ArrayBuffer | ArrayBufferView, name?: string): Promise<DecodedImage>;
/** PNG everywhere; other formats through createImageBitmap (browsers). */
export declare function decodeImage(bytes: ArrayBuffer | ArrayBufferView, name?: string): Promise<DecodedImage>;
/** The model's recorded preprocessing with overrides on top. */
export declare function preprocessOptions(metadata: Metadata | undefined, overrides?: PreprocessOptions): Required<PreprocessOptions> & { mean: number[]; std: number[] };
/** The input tensor `wasmgraph classify` computes for the image. */
export declare function imageToTensor(
  image: { width: number; height: number; data: ArrayLike<number> },
  target: Session | Model | RemoteSession | { name: string; dtype: DType; shape: number[] },
  options?: PreprocessOptions,
): Float32Array | Uint16Array;
/** classify's soft-max (unless already probabilities) and top-k. */
export declare function topClasses(scores: ArrayLike<number>, k?: number): { softmax: boolean; top: { index: number; prob: number }[] };
/** float32 to float16 bits, round to nearest even. */
export declare function f32ToF16(v: number): number;

/** Options of generate() (docs/generate.md). */
export interface GenerateOptions {
  /** default 20 */
  maxNewTokens?: number;
  /** 0 (default): greedy, the first largest logit; above 0: sampling */
  temperature?: number;
  topK?: number;
  topP?: number;
  /** the sampler's seed (the C host's generator: the same ids for the same seed) */
  seed?: number | bigint;
  /** generation ends after one of these (it is returned) */
  stopIds?: number[];
  /** called with each id as it is chosen; return false to stop */
  onToken?: (id: number) => boolean | void;
  /** checked before each run: an abort rejects with code 'aborted' */
  signal?: AbortSignal;
  /** an encoder-decoder (Whisper): a session of its encoder, run once on inputFeatures */
  encoder?: Session;
  /** the encoder's input: log-mel features, [1, 80, 3000] for Whisper */
  inputFeatures?: { data: ArrayBufferView; dims: number[] } | ArrayBufferView;
  /** true: copy the presents into the pasts even when the module keeps its cache (resident by default) */
  copyCache?: boolean;
}

/**
 * Runs a decoder session's KV-cache loop (input_ids, attention_mask, position_ids,
 * past_key_values.* -> logits, present.*): the prompt from an empty past, then a token a
 * run. Resolves to the new ids. With options.encoder, session is an encoder-decoder's merged
 * decoder and promptIds its first tokens (null: the forced ids a module compiled from a
 * model folder keeps).
 */
export declare function generate(session: Session, promptIds: number[] | ArrayLike<number> | null, options?: GenerateOptions): Promise<number[]>;

/** A decoder session and its tokenizer (fromPretrained): text in, text out. */
export declare class TextGenerator {
  readonly session: Session;
  /** an encoder-decoder's (Whisper) encoder session; null for a decoder-only model */
  readonly encoder: Session | null;
  /** the @huggingface/tokenizers Tokenizer */
  readonly tokenizer: unknown;
  /** The token ids of text (with the tokenizer's special tokens). */
  encode(text: string): number[];
  /** The text of ids, special tokens left out. */
  decode(ids: ArrayLike<number>): string;
  /** generate() from text or ids; onText gets each new piece of text as it comes. */
  generate(prompt: string | ArrayLike<number> | null, options?: GenerateOptions & {
    onText?: (piece: string, ids: number[]) => boolean | void;
  }): Promise<{ ids: number[]; text: string }>;
  dispose(): void;
}

/**
 * A TextGenerator for a model folder (a path in Node, a URL in browsers) holding
 * tokenizer.json (tokenizer_config.json optional) and the module compiled from it
 * (`wasmgraph compile DIR -o DIR/model.wasm`).
 */
export declare function fromPretrained(folder: string, options?: { model?: string; loadOptions?: object }): Promise<TextGenerator>;
