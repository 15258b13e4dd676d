// pretrained.mjs: text in, text out. fromPretrained(folder) loads a decoder module compiled
// from a Hugging Face-style model folder (`wasmgraph compile DIR -o DIR/model.wasm`,
// docs/generate.md) with the folder's tokenizer (tokenizer.json and tokenizer_config.json,
// read by @huggingface/tokenizers); its generate() takes and gives text, streaming it. A
// Whisper folder's module names its encoder (compile DIR writes both): generate() then
// takes the log-mel features as options.inputFeatures and starts from the forced ids.
import { WasmgraphError, checkOptions, isString } from './errors.mjs';
import { load } from './wasmgraph.mjs';
import { generate } from './generate.mjs';

const isObject = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? '' : 'must be an object');
const OPTIONS = { model: isString, loadOptions: isObject };

// The folder is fetched from (a URL, or anything in a browser), or read as a path (Node).
const isRemote = (folder) => typeof process === 'undefined' || /^[a-z][a-z0-9+.-]*:\/\//i.test(String(folder));
const urlIn = (folder, name) => new URL(name, String(folder).replace(/\/?$/, '/')).href;

// A file of the folder.
async function readText(folder, name, required) {
  try {
    if (isRemote(folder)) {
      const res = await fetch(urlIn(folder, name));
      if (res.status === 404 && !required) return null;
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return await res.text();
    }
    const { readFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    return await readFile(join(folder, name), 'utf8');
  } catch (e) {
    if (!required && e.code === 'ENOENT') return null;
    throw new WasmgraphError('io', `${folder}: cannot read ${name}: ${e.message}`, { cause: e });
  }
}

function parseJSON(folder, name, text) {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new WasmgraphError('format', `${folder}: ${name} is not JSON: ${e.message}`, { cause: e });
  }
}

/**
 * A decoder session and its tokenizer: generate() from text to text (fromPretrained); for
 * an encoder-decoder (Whisper), also its encoder's session (encoder; null otherwise).
 */
export class TextGenerator {
  constructor(session, tokenizer, encoder = null) {
    this.session = session;
    this.tokenizer = tokenizer;
    this.encoder = encoder;
  }

  /** The token ids of text (with the tokenizer's special tokens, e.g. a BOS). */
  encode(text) { return this.tokenizer.encode(text).ids; }

  /** The text of ids, special tokens left out. */
  decode(ids) { return this.tokenizer.decode(Array.from(ids), { skip_special_tokens: true }); }

  /**
   * generate(prompt, options): prompt is text (encoded) or token ids; options are
   * generate()'s, and onText(piece, ids): called with each new piece of decoded text as the
   * ids come (return false to stop). Resolves to { ids, text } of the new tokens. Whisper:
   * options.inputFeatures ({ data, dims }: [1, 80, 3000] log-mel features) and prompt null
   * (the forced ids the module keeps) or the decoder's first ids.
   */
  async generate(prompt, options = {}) {
    const { onText, ...rest } = options;
    if (this.encoder) rest.encoder = this.encoder;
    const ids = typeof prompt === 'string' ? this.encode(prompt) : prompt == null ? null : Array.from(prompt);
    const got = [];
    let shown = '';
    const user = rest.onToken;
    const out = await generate(this.session, ids, {
      ...rest,
      onToken: (id) => {
        got.push(id);
        let keep = user ? user(id) : true;
        if (onText) {
          const text = this.decode(got);
          /* a piece only once it is whole: a token may end inside a character */
          if (!text.endsWith('\ufffd') && text.length > shown.length) {
            keep = onText(text.slice(shown.length), got.slice()) !== false && keep !== false;
            shown = text;
          }
        }
        return keep;
      },
    });
    return { ids: out, text: this.decode(out) };
  }

  dispose() {
    this.session.dispose();
    this.encoder?.dispose();
  }
}

/**
 * fromPretrained(folder, options): a TextGenerator for a model folder (a path in Node, a
 * URL in browsers) holding tokenizer.json (tokenizer_config.json optional) and the module
 * compiled from it: options.model, the module's file in the folder (default 'model.wasm');
 * options.loadOptions go to load(). A module compiled from a Whisper folder names its
 * encoder's module (metadata "generation"), loaded from the folder too. The tokenizer comes from @huggingface/tokenizers, an
 * optional peer dependency (the loader itself needs nothing), imported only here.
 */
export async function fromPretrained(folder, options = {}) {
  const o = checkOptions(options, OPTIONS, `fromPretrained(${folder})`);
  const tokenizerJson = parseJSON(folder, 'tokenizer.json', await readText(folder, 'tokenizer.json', true));
  const configText = await readText(folder, 'tokenizer_config.json', false);
  const tokenizerConfig = configText ? parseJSON(folder, 'tokenizer_config.json', configText) : {};
  let Tokenizer;
  try {
    ({ Tokenizer } = await import('@huggingface/tokenizers'));
  } catch (e) {
    throw new WasmgraphError('state', 'fromPretrained needs @huggingface/tokenizers (an optional peer dependency: '
      + `npm install @huggingface/tokenizers@0.2.0): ${e.message}`, { cause: e });
  }
  let tokenizer;
  try {
    tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
  } catch (e) {
    throw new WasmgraphError('format', `${folder}: tokenizer.json: ${e.message}`, { cause: e });
  }
  const model = o.model || 'model.wasm';
  const source = isRemote(folder) ? urlIn(folder, model) : (await import('node:path')).join(folder, model);
  const session = await load(source, o.loadOptions || {});
  const encoderName = (session.metadata.generation || {}).encoder;
  if (typeof encoderName !== 'string') return new TextGenerator(session, tokenizer);
  const encoderSource = isRemote(folder) ? urlIn(folder, encoderName) : (await import('node:path')).join(folder, encoderName);
  try {
    return new TextGenerator(session, tokenizer, await load(encoderSource, o.loadOptions || {}));
  } catch (e) {
    session.dispose();
    throw e;
  }
}
