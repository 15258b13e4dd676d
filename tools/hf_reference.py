"""hf_reference.py: writes a step-by-step reference case for one built Hugging Face test
model (a variant folder of tools/make_hf_models.py): the inputs of every step and
onnxruntime's outputs, as .npy files, with a JSON manifest.

    python tools/hf_reference.py VARIANT_DIR [--out CASE_DIR] [--prompt 5] [--decode 3]
                                 [--batch 1] [--seed 0] [--force]

What runs, fed as transformers.js feeds it (its modeling_utils.js):
  decoder (model*.onnx with past_key_values.* inputs): a prefill of --prompt random ids
      with an empty past (every past input [batch, kv_heads, 0, head_dim]), then --decode
      steps of one token each, the greedy choice of the step before (argmax of its last
      logits), with that step's present.* fed back as past_key_values.*; attention_mask
      all ones over past + new, position_ids (if an input) past .. past + new - 1;
  encoder-decoder (encoder_model*.onnx + decoder_model_merged*.onnx): the encoder once
      (Whisper: input_features [batch, mels, frames] from a seeded normal; text: random
      ids and an all-ones mask), then the merged decoder as above from a 3-token prompt
      starting at the config's decoder_start_token_id, use_cache_branch false with every
      past empty (the encoder's too: transformers.js resolves their symbolic dims to 0),
      then true, the decoder's presents fed back and the encoder's from the first step;
  encoder (model*.onnx without past inputs): one run, input_ids, attention_mask and
      token_type_ids (zeros) as its inputs ask.

CASE_DIR (default VARIANT_DIR/case) gets run<N>/in/<input>.npy, run<N>/out/<output>.npy
and manifest.json:
  {"kind": ..., "dir": VARIANT_DIR, "onnxruntime": version, "cpu_vnni": bool,
   "runs": [{"run": N, "role": "encoder"|"prefill"|"decode", "step": S, "file": F,
             "inputs": {name: npy}, "outputs": {name: npy}}, ...],
   "dims": {F: {symbol: [min, max]}},          the sizes every symbolic dim took
   "conflicts": {F: [{run, symbol, sizes: {input: size}}]},  a symbol with two sizes
                                                in one run (an empty encoder past)
   "compile": {F: ["--dim", "symbol=min..max", ...]}}   what `wasmgraph compile` needs
Paths in the manifest are relative to CASE_DIR. A case whose manifest has the same key
(this tool, the model files, the options) is not written again.

Needs numpy and onnxruntime (venv-hf or venv-models). Reads VARIANT_DIR/../config.json
(written by make_hf_models.py) for the decoder start token and, where the model leaves it
symbolic (the genai builder's kv_cache_dim), the head size; genai_config.json if present.
"""
import argparse
import glob
import hashlib
import json
import os
import shutil
import sys

import numpy as np

NP = {1: np.float32, 10: np.float16, 7: np.int64, 6: np.int32, 9: np.bool_, 11: np.float64}


def onnx_files(folder):
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(folder, "*.onnx")))


def classify(folder):
    """(kind, files): the model files of a variant folder and how they run."""
    files = onnx_files(folder)
    enc = [f for f in files if f.startswith("encoder")]
    dec = [f for f in files if f.startswith("decoder_model_merged")]
    if enc and dec:
        return "encoder-decoder", {"encoder": enc[0], "decoder": dec[0]}
    if len(files) != 1:
        raise SystemExit(f"hf_reference: {folder}: expected one model or an encoder and a merged decoder, "
                         f"found {files}")
    return None, {"model": files[0]}


class Session:
    """An onnxruntime session and its inputs' declared shapes and types."""

    def __init__(self, path):
        import onnx
        import onnxruntime as ort
        self.path = path
        self.sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        self.value_info_cleared = False
        m = onnx.load(path, load_external_data=False)
        init = {t.name for t in m.graph.initializer}
        self.inputs = {}
        for vi in m.graph.input:
            if vi.name in init:
                continue
            tt = vi.type.tensor_type
            dims = [d.dim_param if d.dim_param else (d.dim_value if d.HasField("dim_value") else "?")
                    for d in tt.shape.dim]
            self.inputs[vi.name] = (dims, NP[tt.elem_type])
        self.outputs = [o.name for o in m.graph.output]

    def run(self, feeds):
        missing = set(self.inputs) - set(feeds)
        if missing:
            raise SystemExit(f"hf_reference: {self.path}: no value for inputs {sorted(missing)}")
        feeds = {k: v.astype(self.inputs[k][1]) for k, v in feeds.items() if k in self.inputs}
        try:
            outs = self.sess.run(self.outputs, feeds)
        except Exception as e:  # noqa: BLE001 - onnxruntime's Fail
            if self.value_info_cleared:
                raise
            # The genai builder's fp16 CPU models declare some intermediate shapes wrongly
            # (repeat_kv's [batch_size, sequence_length, ...] of a total-length tensor), and
            # onnxruntime's memory planner trusts them. The same graph without value_info runs.
            print(f"hf_reference: {os.path.basename(self.path)}: {str(e).splitlines()[0][:200]}; "
                  "running it again without its value_info", file=sys.stderr)
            self.clear_value_info()
            outs = self.sess.run(self.outputs, feeds)
        return feeds, dict(zip(self.outputs, outs))

    def clear_value_info(self):
        import onnx
        import onnxruntime as ort
        m = onnx.load(self.path)
        del m.graph.value_info[:]
        self.sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        self.value_info_cleared = True


def empty_past(sess, batch, head_size):
    """Every past_key_values.* input at length 0: batch_size -> batch, every other symbolic
    dim 0 (transformers.js' rule), except a symbolic head size (genai's kv_cache_dim)."""
    past = {}
    for name, (dims, dtype) in sess.inputs.items():
        if not name.startswith("past_key_values"):
            continue
        shape = []
        for i, d in enumerate(dims):
            if isinstance(d, int):
                shape.append(d)
            elif d == "batch_size":
                shape.append(batch)
            elif i == len(dims) - 1:
                shape.append(head_size(d))
            else:
                shape.append(0)
        past[name] = np.zeros(shape, dtype)
    return past


def head_size_of(folder):
    """A function giving the head size for a symbolic last dim of a past input."""
    def find(symbol):
        genai = os.path.join(folder, "genai_config.json")
        if os.path.exists(genai):
            with open(genai) as f:
                return json.load(f)["model"]["decoder"]["head_size"]
        cfg = family_config(folder)
        if "head_dim" in cfg and cfg["head_dim"]:
            return cfg["head_dim"]
        return cfg["hidden_size"] // cfg["num_attention_heads"]
    return find


def family_config(folder):
    p = os.path.join(folder, os.pardir, "config.json")
    if not os.path.exists(p):
        return {}
    with open(p) as f:
        return json.load(f)


class Case:
    """Collects the runs and writes their tensors and the manifest."""

    def __init__(self, out):
        self.out, self.runs = out, []

    def save(self, role, step, file, feeds, outputs):
        n = len(self.runs)
        entry = {"run": n, "role": role, "step": step, "file": file, "inputs": {}, "outputs": {}}
        for kind, tensors in (("inputs", feeds), ("outputs", outputs)):
            sub = os.path.join(f"run{n}", "in" if kind == "inputs" else "out")
            os.makedirs(os.path.join(self.out, sub), exist_ok=True)
            for name, value in tensors.items():
                rel = os.path.join(sub, name + ".npy")
                np.save(os.path.join(self.out, rel), value)
                entry[kind][name] = rel
        self.runs.append((entry, feeds))
        return entry


def dims_of(case, sessions):
    """Per file: each symbol's [min, max] over the runs, the runs where a symbol took two
    sizes, and the compile options."""
    dims, conflicts = {}, {}
    for entry, feeds in case.runs:
        sess = sessions[entry["file"]]
        seen = {}
        for name, value in feeds.items():
            for d, size in zip(sess.inputs[name][0], value.shape):
                if isinstance(d, str):
                    seen.setdefault(d, {})[name] = int(size)
        for sym, sizes in seen.items():
            lo, hi = dims.setdefault(entry["file"], {}).get(sym, [None, None])
            for s in sizes.values():
                lo = s if lo is None else min(lo, s)
                hi = s if hi is None else max(hi, s)
            dims[entry["file"]][sym] = [lo, hi]
            if len(set(sizes.values())) > 1:
                conflicts.setdefault(entry["file"], []).append({"run": entry["run"], "symbol": sym, "sizes": sizes})
    compile_args = {f: [a for sym, (lo, hi) in sorted(d.items()) for a in ("--dim", f"{sym}={lo}..{hi}")]
                    for f, d in dims.items()}
    return dims, conflicts, compile_args


def decode_loop(case, sess, file, first_feeds, step_feeds, decode, batch):
    """The prefill, then `decode` one-token steps. first_feeds: the prefill's inputs;
    step_feeds(past_len, next_ids, outputs): a decode step's inputs besides the pasts."""
    feeds, outs = sess.run(first_feeds)
    case.save("prefill", 0, file, feeds, outs)
    past_len = first_feeds["input_ids"].shape[1]
    for step in range(1, decode + 1):
        logits = outs["logits"].astype(np.float32)
        next_ids = logits[:, -1, :].argmax(-1).reshape(batch, 1).astype(np.int64)
        new = step_feeds(past_len, next_ids, outs)
        for name, value in outs.items():
            if name.startswith("present"):
                past = "past_key_values" + name[len("present"):]
                if past in sess.inputs and past not in new:
                    new[past] = value
        feeds, outs = sess.run(new)
        case.save("decode", step, file, feeds, outs)
        past_len += 1


def build(folder, out, prompt, decode, batch, seed):
    kind, files = classify(folder)
    rng = np.random.default_rng(seed)
    case = Case(out)
    sessions = {f: Session(os.path.join(folder, f)) for f in files.values()}
    cfg = family_config(folder)
    if kind == "encoder-decoder":
        enc_file, dec_file = files["encoder"], files["decoder"]
        enc, dec = sessions[enc_file], sessions[dec_file]
        vocab = cfg.get("vocab_size", 1000)
        if "input_features" in enc.inputs:
            dims = enc.inputs["input_features"][0]
            enc_feeds = {"input_features": rng.standard_normal((batch, dims[1], dims[2])).astype(np.float32)}
        else:
            ids = rng.integers(3, vocab - 1, size=(batch, 11))
            enc_feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        enc_feeds, enc_outs = enc.run(enc_feeds)
        case.save("encoder", 0, enc_file, enc_feeds, enc_outs)
        hidden = enc_outs["last_hidden_state"]
        start = cfg.get("decoder_start_token_id", 0)
        tokens = np.concatenate([np.full((batch, 1), start), rng.integers(3, vocab - 1, size=(batch, 2))], 1)
        common = {"encoder_hidden_states": hidden}
        if "encoder_attention_mask" in dec.inputs:
            common["encoder_attention_mask"] = enc_feeds["attention_mask"]
        first = dict(common, input_ids=tokens, use_cache_branch=np.array([False]),
                     **empty_past(dec, batch, head_size_of(folder)))
        encoder_past = {}

        def step_feeds(past_len, next_ids, outs):
            if not encoder_past:  # the encoder's keys and values of the first step, kept
                encoder_past.update({"past_key_values" + k[len("present"):]: v for k, v in outs.items()
                                     if k.startswith("present") and ".encoder." in k})
            return dict(common, input_ids=next_ids, use_cache_branch=np.array([True]), **encoder_past)
        decode_loop(case, dec, dec_file, first, step_feeds, decode, batch)
    else:
        file = files["model"]
        sess = sessions[file]
        vocab = cfg.get("vocab_size", 1000)
        if not any(n.startswith("past_key_values") for n in sess.inputs):
            kind = "encoder"
            ids = rng.integers(3, vocab - 1, size=(batch, 9))
            feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
            feeds, outs = sess.run({k: v for k, v in feeds.items() if k in sess.inputs})
            case.save("encoder", 0, file, feeds, outs)
        else:
            kind = "decoder"
            ids = rng.integers(3, vocab - 1, size=(batch, prompt))
            first = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
            if "position_ids" in sess.inputs:
                first["position_ids"] = np.tile(np.arange(prompt), (batch, 1))
            first.update(empty_past(sess, batch, head_size_of(folder)))

            def step_feeds(past_len, next_ids, outs):
                new = {"input_ids": next_ids, "attention_mask": np.ones((batch, past_len + 1), np.int64)}
                if "position_ids" in sess.inputs:
                    new["position_ids"] = np.full((batch, 1), past_len, np.int64)
                return new
            decode_loop(case, sess, file, first, step_feeds, decode, batch)
    return kind, files, case, sessions


def cpu_vnni():
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
        return "avx512_vnni" in flags or "avx_vnni" in flags
    except OSError:
        return None


def key_of(folder, args):
    h = hashlib.sha256()
    with open(__file__, "rb") as f:
        h.update(f.read())
    h.update(json.dumps(args, sort_keys=True).encode())
    for name in sorted(os.listdir(folder)):
        p = os.path.join(folder, name)
        if os.path.isfile(p):
            st = os.stat(p)
            h.update(f"{name} {st.st_size} {st.st_mtime_ns}".encode())
    return h.hexdigest()


def write_case(folder, out=None, prompt=5, decode=3, batch=1, seed=0, force=False):
    """Writes the case of a variant folder (default out: FOLDER/case) unless its manifest
    is up to date; returns a line saying which."""
    folder = os.path.abspath(folder)
    out = os.path.abspath(out or os.path.join(folder, "case"))
    opts = dict(prompt=prompt, decode=decode, batch=batch, seed=seed)
    key = key_of(folder, opts)
    manifest = os.path.join(out, "manifest.json")
    if not force and os.path.exists(manifest):
        with open(manifest) as f:
            if json.load(f).get("key") == key:
                return f"{out}: up to date"
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    kind, files, case, sessions = build(folder, out, prompt, decode, batch, seed)
    dims, conflicts, compile_args = dims_of(case, sessions)
    import onnxruntime
    doc = {"kind": kind, "dir": folder, "files": files, "options": opts, "key": key,
           "onnxruntime": onnxruntime.__version__, "cpu_vnni": cpu_vnni(),
           "value_info_cleared": sorted(f for f, s in sessions.items() if s.value_info_cleared),
           "runs": [entry for entry, _ in case.runs], "dims": dims, "conflicts": conflicts,
           "compile": compile_args}
    with open(manifest, "w") as f:
        json.dump(doc, f, indent=1)
    return f"{out}: {kind}, {len(case.runs)} runs"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="a variant folder of make_hf_models.py (its *.onnx files)")
    ap.add_argument("--out", help="the case folder (default DIR/case)")
    ap.add_argument("--prompt", type=int, default=5, help="prefill length of a decoder (default 5)")
    ap.add_argument("--decode", type=int, default=3, help="decode steps after the prefill (default 3)")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--force", action="store_true", help="write the case even if it is up to date")
    a = ap.parse_args()
    print(write_case(a.dir, a.out, a.prompt, a.decode, a.batch, a.seed, a.force))
    return 0


if __name__ == "__main__":
    sys.exit(main())
