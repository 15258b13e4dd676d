"""Counts which Hugging Face-style model files compile and match onnxruntime, step by step:
for every variant folder that tools/make_hf_models.py built with its reference case
(tools/hf_reference.py: case/manifest.json), compiles each file with the --dim ranges the
manifest gives (a symbol that is an expression of others is derived by the compiler and
gets none), runs every step of the case (a prefill with an empty past, then decode steps)
and compares each output with onnxruntime's.

    python tools/hf_check.py [--root DIR] [--only FAMILY,...] [--variants V,...] [--wasmgraph BIN]
                             [--generate N]

Prints one line per file and a table of counts per family and variant, and exits 1 when a
file does not compile, differs, is farther from the float32 file than onnxruntime's run or
(with --generate) generates other ids. With --generate N, every decoder file that compiles
(and Whisper's merged decoder, with its encoder over the case's features, from the case's
first decoder ids) also generates N tokens greedily from the case's prompt,
compiled again with its past ranges widened to hold them, by `wasmgraph generate` and by
onnxruntime-node (tools/ort_generate.js); the ids must be the same (column "greedy"). A file matches when
every output of every step is within the tolerance of its kind: float32 files at
rtol 1e-3 / atol 1e-4 (logits through a few layers of random weights: sums of hundreds of
products, rounded in another order than onnxruntime's), float16 and quantized files at
rtol 5e-2 / atol 5e-2 (their own rounding). Their real measure is their distance to the
float32 model (column "near fp32"): for every step whose token ids are the float32 case's, the
RMS distance of the first output (the logits; an encoder's hidden states) from the float32
file's, ours and onnxruntime's on the same file; ours may be at most 5% farther plus 1e-5
(the two round in different orders, so a strict "no farther" would fail half the time for the
same arithmetic). The float32 file of optimum-onnx's variants is `fp32`, of the genai
builder's `genai-fp32`. The last column: how far the module outgrows the file's weights as
stored (the most of the variant's files; a 4- or 8-bit file's weights stay that size, so a
few hundred KiB of code). Needs numpy and onnx (the project venv).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
TOL_F32 = (1e-3, 1e-4)
TOL_OTHER = (5e-2, 5e-2)
COLUMNS = ("files", "compile", "match", "measured", "near fp32", "greedy", "over")
PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


def tolerance(variant):
    return TOL_F32 if variant in ("fp32", "genai-fp32") else TOL_OTHER


def compile_file(wg, path, dims, wasm):
    args = [a for k, (lo, hi) in sorted(dims.items()) if PLAIN.match(k) for a in ("--dim", f"{k}={lo}..{hi}")]
    r = subprocess.run([wg, "compile", path, "-o", wasm, "-q"] + args, capture_output=True, text=True)
    first = next((line for line in (r.stderr + r.stdout).splitlines() if line.strip()), "")
    return r.returncode == 0, first


def run_step(wg, wasm, case, run, outdir, rtol, atol):
    """The step's worst |got - want|, whether every output is within tolerance, a detail, and
    our first output."""
    cmd = [wg, "run", wasm, "--output-dir", outdir]
    for name, rel in run["inputs"].items():
        cmd += ["--input", f"{name}={os.path.join(case, rel)}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        return None, False, (r.stderr.strip().splitlines() or ["?"])[0], None
    worst, ok, first = 0.0, True, None
    for i, rel in enumerate(run["outputs"].values()):
        want = np.load(os.path.join(case, rel)).astype(np.float64)
        got = numpy_helper.to_array(onnx.load_tensor(os.path.join(outdir, f"output_{i}.pb"))).astype(np.float64)
        if got.shape != want.shape:
            return None, False, f"output {i}: shape {got.shape}, onnxruntime's {want.shape}", None
        first = got if first is None else first
        if want.size:
            diff = np.abs(got - want)
            worst = max(worst, float(diff.max()))
            ok = ok and bool(np.all(diff <= atol + rtol * np.abs(want)))
    return worst, ok, "", first


def reference_folder(folder):
    """The float32 variant a variant folder is measured against, or None (it is one)."""
    variant = os.path.basename(folder)
    ref = "genai-fp32" if variant.startswith("genai-") else "fp32"
    path = os.path.join(os.path.dirname(folder), ref)
    has_case = os.path.exists(os.path.join(path, "case", "manifest.json"))
    return path if variant != ref and has_case else None


def same_ids(a_case, a_run, b_case, b_run):
    """Whether two runs were fed the same token ids (a run without ids: its other inputs)."""
    names = ["input_ids"] if "input_ids" in a_run["inputs"] else [n for n in a_run["inputs"] if "past" not in n]
    for n in names:
        if n not in b_run["inputs"]:
            return False
        x, y = (np.load(os.path.join(c, r["inputs"][n])) for c, r in ((a_case, a_run), (b_case, b_run)))
        if x.shape != y.shape or not np.array_equal(x, y):
            return False
    return True


def weight_bytes(path):
    """The bytes of a file's initializers as stored (its external data included), those of
    its subgraphs too (a merged decoder's If branches keep some of their own)."""
    model = onnx.load(path, load_external_data=False)
    total, graphs = 0, [model.graph]
    while graphs:
        g = graphs.pop()
        for t in g.initializer:
            ext = {e.key: e.value for e in t.external_data}
            total += int(ext["length"]) if "length" in ext else len(t.raw_data) or numpy_helper.to_array(t).nbytes
        for n in g.node:
            for a in n.attribute:
                graphs += [a.g] if a.HasField("g") else list(a.graphs)
    return total


def rms(x):
    return float(np.sqrt(np.mean(np.square(x)))) if x.size else 0.0


def near_fp32(folder, runs_got):
    """(ours, onnxruntime's) largest RMS distance from the float32 file's first output over the
    comparable steps, and whether ours is near enough; None when there is nothing to compare.
    runs_got: (run, our first output) of the file's steps."""
    ref = reference_folder(folder)
    if not ref:
        return None
    case, ref_case = os.path.join(folder, "case"), os.path.join(ref, "case")
    with open(os.path.join(ref_case, "manifest.json")) as f:
        ref_runs = json.load(f)["runs"]
    ours = theirs = 0.0
    compared = 0
    for run, got in runs_got:
        match = [r for r in ref_runs if r["role"] == run["role"] and r["step"] == run["step"]]
        if got is None or not match or not same_ids(case, run, ref_case, match[0]):
            continue
        want32 = np.load(os.path.join(ref_case, next(iter(match[0]["outputs"].values())))).astype(np.float64)
        ort = np.load(os.path.join(case, next(iter(run["outputs"].values())))).astype(np.float64)
        if want32.shape != got.shape:
            continue
        ours, theirs = max(ours, rms(got - want32)), max(theirs, rms(ort - want32))
        compared += 1
    if not compared:
        return None
    return ours, theirs, ours <= 1.05 * theirs + 1e-5


def greedy_same(wg, path, dims, prompt, n, work, encoder=None):
    """Whether `wasmgraph generate` gives onnxruntime's greedy ids, and a detail. encoder: an
    encoder-decoder's (Whisper's) encoder file, its --dim ranges and its input features; the
    prompt is then the decoder's forced ids."""
    grows = ("past", "total")  # the cache and the mask: prompt + n at most
    wide = {k: ((lo, len(prompt) + n) if any(g in k for g in grows) else (lo, max(hi, len(prompt))))
            for k, (lo, hi) in dims.items() if not (encoder and k.startswith("encoder"))}
    wide.update({k: r for k, r in dims.items() if encoder and k.startswith("encoder")})
    wasm, ours_args, ref_args = os.path.join(work, "gen.wasm"), [], []
    ok, err = compile_file(wg, path, wide, wasm)
    if ok and encoder:
        ok, err = compile_file(wg, encoder[0], encoder[1], os.path.join(work, "gen-encoder.wasm"))
        ours_args = ["--encoder", os.path.join(work, "gen-encoder.wasm"), "--input-features", encoder[2]]
        ref_args = ["--encoder", encoder[0], "--input-features", encoder[2]]
    if not ok:
        return False, f"generate compile: {err}"
    ids = ",".join(str(int(t)) for t in prompt)
    prompt_opt = "--forced-ids" if encoder else "--prompt-ids"
    ours = subprocess.run([wg, "generate", wasm, prompt_opt, ids, "--max-new-tokens", str(n)] + ours_args,
                          capture_output=True, text=True)
    fixed = [a for k, (lo, hi) in dims.items() if lo == hi and PLAIN.match(k) for a in ("--dim", f"{k}={lo}")]
    ref = subprocess.run(["node", os.path.join(HERE, "ort_generate.js"), path, prompt_opt, ids,
                          "--max-new-tokens", str(n)] + fixed + ref_args, capture_output=True, text=True)
    if ours.returncode or ref.returncode:
        failed = ours if ours.returncode else ref
        return False, (failed.stderr.strip().splitlines() or ["?"])[-1]
    return ours.stdout.split() == ref.stdout.split(), f"ours {ours.stdout.strip()} / onnxruntime {ref.stdout.strip()}"


def check_folder(wg, folder, work, generate=0):
    with open(os.path.join(folder, "case", "manifest.json")) as f:
        man = json.load(f)
    variant = os.path.basename(folder)
    rtol, atol = tolerance(variant)
    results = []
    for fname in sorted(set(man["files"].values())):
        wasm = os.path.join(work, "m.wasm")
        ok, err = compile_file(wg, os.path.join(folder, fname), man.get("dims", {}).get(fname, {}), wasm)
        if not ok:
            results.append((fname, "compile", err, None))
            continue
        over = (os.path.getsize(wasm) - weight_bytes(os.path.join(folder, fname))) / 1024
        worst, match, why, runs_got = 0.0, True, "", []
        for run in man["runs"]:
            if run["file"] != fname:
                continue
            w, m, why, got = run_step(wg, wasm, os.path.join(folder, "case"), run, os.path.join(work, "out"), rtol,
                                      atol)
            if w is None:
                match = False
                break
            worst, match = max(worst, w), match and m
            runs_got.append((run, got))
        verdict = "match" if match else "differs"
        detail = why or f"max |diff| {worst:.3g}"
        near = near_fp32(folder, runs_got) if match else None
        if near:
            detail += f"; RMS from fp32: ours {near[0]:.3g}, onnxruntime {near[1]:.3g}"
            verdict = "match" if near[2] else "farther from fp32"
        runs = man["runs"]
        whisper = (man["kind"] == "encoder-decoder" and fname == man["files"].get("decoder") and
                   list(runs[0]["inputs"]) == ["input_features"])
        if generate and (man["kind"] == "decoder" or whisper) and verdict == "match":
            first = runs[1 if whisper else 0]
            prompt = np.load(os.path.join(folder, "case", first["inputs"]["input_ids"]))[0]
            enc = man["files"].get("encoder")
            encoder = (os.path.join(folder, enc), man["dims"].get(enc, {}),
                       os.path.join(folder, "case", runs[0]["inputs"]["input_features"])) if whisper else None
            same, gdetail = greedy_same(wg, os.path.join(folder, fname), man["dims"][fname], prompt, generate, work,
                                        encoder)
            verdict = "greedy" if same else "greedy differs"
            detail += f"; {gdetail}"
        results.append((fname, verdict, f"{detail}; module {over:+.0f} KiB against the file's weights", over))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cache = os.environ.get("WASMGRAPH_CACHE", os.path.expanduser("~/.cache/wasmgraph"))
    ap.add_argument("--root", default=os.path.join(cache, "hf-models"))
    ap.add_argument("--only", default="")
    ap.add_argument("--variants", default="")
    ap.add_argument("--wasmgraph", default=os.path.join(HERE, "..", "build", "bin", "wasmgraph"))
    ap.add_argument("--generate", type=int, default=0, metavar="N")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    variants = set(filter(None, args.variants.split(",")))
    counts, failed = {}, 0
    with tempfile.TemporaryDirectory() as work:
        for fam in sorted(os.listdir(args.root)):
            if only and fam not in only:
                continue
            for var in sorted(os.listdir(os.path.join(args.root, fam))):
                if variants and var not in variants:
                    continue
                folder = os.path.join(args.root, fam, var)
                if not os.path.exists(os.path.join(folder, "case", "manifest.json")):
                    continue
                for fname, verdict, detail, over in check_folder(args.wasmgraph, folder, work, args.generate):
                    print(f"{fam}/{var}/{fname}: {verdict}: {detail}", flush=True)
                    failed += verdict not in ("match", "greedy")
                    measured = "RMS from fp32" in detail
                    c = counts.setdefault((fam, var), dict.fromkeys(COLUMNS, 0))
                    c["files"] += 1
                    c["compile"] += verdict != "compile"
                    c["match"] += verdict in ("match", "greedy", "greedy differs", "farther from fp32")
                    c["measured"] += measured
                    c["near fp32"] += measured and verdict != "farther from fp32"
                    c["greedy"] += verdict == "greedy"
                    c["over"] = max(c["over"], over or 0)
    print("\n| family | variant | files | compile | match | near fp32 | greedy | module - weights, KiB (most) |\n"
          "|---|---|---:|---:|---:|---:|---:|---:|")
    total = {k: sum(c[k] for c in counts.values()) for k in COLUMNS}
    total["over"] = max((c["over"] for c in counts.values()), default=0)
    for (fam, var), c in sorted(counts.items()) + [(("all", ""), total)]:
        near = f"{c['near fp32']} of {c['measured']}" if c["measured"] else "-"
        print(f"| {fam} | {var} | {c['files']} | {c['compile']} | {c['match']} | {near} | "
              f"{c['greedy'] if args.generate else '-'} | {c['over']:.0f} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
