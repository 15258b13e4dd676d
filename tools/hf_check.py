"""Counts which Hugging Face-style model files compile and match onnxruntime, step by step:
for every variant folder that tools/make_hf_models.py built with its reference case
(tools/hf_reference.py: case/manifest.json), compiles each file with the --dim ranges the
manifest gives (a symbol that is an expression of others is derived by the compiler and
gets none), runs every step of the case (a prefill with an empty past, then decode steps)
and compares each output with onnxruntime's.

    python tools/hf_check.py [--root DIR] [--only FAMILY,...] [--wasmgraph BIN] [--generate N]

Prints one line per file and a table of counts per family and variant. With --generate N,
every decoder file that compiles also generates N tokens greedily from the case's prompt,
compiled again with its past ranges widened to hold them, by `wasmgraph generate` and by
onnxruntime-node (tools/ort_generate.js); the ids must be the same (column "greedy"). A file matches when
every output of every step is within the tolerance of its kind: float32 files at
rtol 1e-3 / atol 1e-4 (logits through a few layers of random weights: sums of hundreds of
products, rounded in another order than onnxruntime's), float16 and quantized files at
rtol 5e-2 / atol 5e-2 (their own rounding; their distance to the float32 model is the real
measure, which this script does not take yet). Needs numpy and onnx (the project venv).
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
PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


def tolerance(variant):
    return TOL_F32 if variant in ("fp32", "genai-fp32") else TOL_OTHER


def compile_file(wg, path, dims, wasm):
    args = [a for k, (lo, hi) in sorted(dims.items()) if PLAIN.match(k) for a in ("--dim", f"{k}={lo}..{hi}")]
    r = subprocess.run([wg, "compile", path, "-o", wasm, "-q"] + args, capture_output=True, text=True)
    first = next((line for line in (r.stderr + r.stdout).splitlines() if line.strip()), "")
    return r.returncode == 0, first


def run_step(wg, wasm, case, run, outdir, rtol, atol):
    """The step's worst |got - want| and whether every output is within tolerance."""
    cmd = [wg, "run", wasm, "--output-dir", outdir]
    for name, rel in run["inputs"].items():
        cmd += ["--input", f"{name}={os.path.join(case, rel)}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        return None, False, (r.stderr.strip().splitlines() or ["?"])[0]
    worst, ok = 0.0, True
    for i, rel in enumerate(run["outputs"].values()):
        want = np.load(os.path.join(case, rel)).astype(np.float64)
        got = numpy_helper.to_array(onnx.load_tensor(os.path.join(outdir, f"output_{i}.pb"))).astype(np.float64)
        if got.shape != want.shape:
            return None, False, f"output {i}: shape {got.shape}, onnxruntime's {want.shape}"
        if want.size:
            diff = np.abs(got - want)
            worst = max(worst, float(diff.max()))
            ok = ok and bool(np.all(diff <= atol + rtol * np.abs(want)))
    return worst, ok, ""


def greedy_same(wg, path, dims, prompt, n, work):
    """Whether `wasmgraph generate` gives onnxruntime's greedy ids, and a detail."""
    grows = ("past", "total")  # the cache and the mask: prompt + n at most
    wide = {k: ((lo, len(prompt) + n) if any(g in k for g in grows) else (lo, max(hi, len(prompt))))
            for k, (lo, hi) in dims.items()}
    wasm = os.path.join(work, "gen.wasm")
    ok, err = compile_file(wg, path, wide, wasm)
    if not ok:
        return False, f"generate compile: {err}"
    ids = ",".join(str(int(t)) for t in prompt)
    ours = subprocess.run([wg, "generate", wasm, "--prompt-ids", ids, "--max-new-tokens", str(n)],
                          capture_output=True, text=True)
    fixed = [a for k, (lo, hi) in dims.items() if lo == hi and PLAIN.match(k) for a in ("--dim", f"{k}={lo}")]
    ref = subprocess.run(["node", os.path.join(HERE, "ort_generate.js"), path, "--prompt-ids", ids,
                          "--max-new-tokens", str(n)] + fixed, capture_output=True, text=True)
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
            results.append((fname, "compile", err))
            continue
        worst, match, why = 0.0, True, ""
        for run in man["runs"]:
            if run["file"] != fname:
                continue
            w, m, why = run_step(wg, wasm, os.path.join(folder, "case"), run, os.path.join(work, "out"), rtol, atol)
            if w is None:
                match = False
                break
            worst, match = max(worst, w), match and m
        verdict = "match" if match else "differs"
        detail = why or f"max |diff| {worst:.3g}"
        if generate and man["kind"] == "decoder" and match:
            prompt = np.load(os.path.join(folder, "case", man["runs"][0]["inputs"]["input_ids"]))[0]
            same, gdetail = greedy_same(wg, os.path.join(folder, fname), man["dims"][fname], prompt, generate, work)
            verdict = "greedy" if same else "greedy differs"
            detail += f"; {gdetail}"
        results.append((fname, verdict, detail))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cache = os.environ.get("WASMGRAPH_CACHE", os.path.expanduser("~/.cache/wasmgraph"))
    ap.add_argument("--root", default=os.path.join(cache, "hf-models"))
    ap.add_argument("--only", default="")
    ap.add_argument("--wasmgraph", default=os.path.join(HERE, "..", "build", "bin", "wasmgraph"))
    ap.add_argument("--generate", type=int, default=0, metavar="N")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    counts = {}
    with tempfile.TemporaryDirectory() as work:
        for fam in sorted(os.listdir(args.root)):
            if only and fam not in only:
                continue
            for var in sorted(os.listdir(os.path.join(args.root, fam))):
                folder = os.path.join(args.root, fam, var)
                if not os.path.exists(os.path.join(folder, "case", "manifest.json")):
                    continue
                for fname, verdict, detail in check_folder(args.wasmgraph, folder, work, args.generate):
                    print(f"{fam}/{var}/{fname}: {verdict}: {detail}", flush=True)
                    c = counts.setdefault((fam, var), [0, 0, 0, 0])
                    c[0] += 1
                    c[1] += verdict != "compile"
                    c[2] += verdict in ("match", "greedy", "greedy differs")
                    c[3] += verdict == "greedy"
    print("\n| family | variant | files | compile | match | greedy |\n|---|---|---:|---:|---:|---:|")
    for (fam, var), (n, comp, match, greedy) in sorted(counts.items()):
        print(f"| {fam} | {var} | {n} | {comp} | {match} | {greedy if args.generate else '-'} |")
    total = [sum(c[i] for c in counts.values()) for i in range(4)]
    print(f"| all | | {total[0]} | {total[1]} | {total[2]} | {total[3] if args.generate else '-'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
