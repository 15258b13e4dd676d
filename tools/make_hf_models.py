"""make_hf_models.py: builds the Hugging Face test models, the ONNX files of the kinds
transformers.js runs, from seeded random checkpoints (tools/hf_families.py; nothing is
downloaded) into a cache outside the repository.

    python tools/make_hf_models.py [--set test|full] [--only FAMILY[,..]] [--variants V[,..]]
                                   [--out DIR] [--no-genai] [--cases] [--force]

Run with the hf venv's python ($WASMGRAPH_CACHE/venv-hf, `scripts/setup.sh --hf`); the
genai variants run tools/hf_genai.py in the models venv (WG_MODELS_PYTHON, default
$WASMGRAPH_CACHE/venv-models/bin/python) and are skipped without it.

Each family (hf_families.FAMILIES; --set test: the small configs, full: those and
SmolLM2-135M, GPT-2 small, Qwen2.5-0.5B, Whisper-tiny and all-MiniLM-L6 sizes) goes to DIR/<family>/ (default
DIR $WASMGRAPH_CACHE/hf-models), a Hub repository's root (config.json,
generation_config.json, tokenizer files) with one folder per variant:
  fp32/       optimum's export for the family's task, as transformers.js' convert.py
              makes it: main_export (text-generation-with-past: model.onnx;
              automatic-speech-recognition-with-past and text2text-generation-with-past:
              encoder_model.onnx and decoder_model_merged.onnx; feature-extraction:
              model.onnx), then onnxslim;
  fp16/ q8/ int8/ uint8/ q4/ q4f16/ bnb4/
              the same files with transformers.js' suffixes (model_fp16.onnx,
              model_quantized.onnx, ...: tools/hf_quantize.py has the settings);
  genai-fp32/ genai-int4/ genai-fp16/
              onnxruntime-genai's builder for the CPU (decoder-only families;
              tools/hf_genai.py): model.onnx, model.onnx.data, genai_config.json.
Every variant folder has a .stamp, the hash of what made it (the family's settings, these
tools, the pinned requirements); a folder whose stamp matches is not built again. With
--cases, tools/hf_reference.py then writes each variant's reference case (DIR/.../case).
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hf_families  # noqa: E402
import hf_quantize  # noqa: E402

CACHE = os.environ.get("WASMGRAPH_CACHE", os.path.expanduser("~/.cache/wasmgraph"))
MODELS_PYTHON = os.environ.get("WG_MODELS_PYTHON", os.path.join(CACHE, "venv-models", "bin", "python"))
OPTIMUM_VARIANTS = hf_quantize.DTYPES  # fp32 first: the others are made from it
GENAI_VARIANTS = ["genai-fp32", "genai-int4", "genai-fp16"]
VARIANTS = OPTIMUM_VARIANTS + GENAI_VARIANTS
# the files whose change rebuilds everything; genai variants: the models venv's pins
TOOLS = ["make_hf_models.py", "hf_families.py", "requirements-hf.txt"]
QUANT_TOOLS = ["hf_quantize.py", "hf_fp16.py"]
GENAI_TOOLS = ["hf_genai.py", "requirements-models.txt", "requirements-genai.txt"]
# files of the export that a Hub repository has at its root
ROOT_FILES = ["config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
              "special_tokens_map.json"]


def digest(*parts, files=()):
    h = hashlib.sha256()
    for p in parts:
        h.update(json.dumps(p, sort_keys=True, default=str).encode())
    for name in files:
        p = os.path.join(HERE, name)
        if os.path.exists(p):
            with open(p, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def stamp_ok(folder, key):
    p = os.path.join(folder, ".stamp")
    if not os.path.exists(p):
        return False
    with open(p) as f:
        return f.read().strip() == key


def publish(tmp, folder, key):
    """Moves a finished build into place with its stamp (the old folder goes first)."""
    with open(os.path.join(tmp, ".stamp"), "w") as f:
        f.write(key + "\n")
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    shutil.move(tmp, folder)


def export_fp32(family, root, tmp):
    """optimum's export of the family's checkpoint, slimmed, into tmp/fp32; the repo's
    root files into root."""
    import onnx
    import onnxslim
    from optimum.exporters.onnx import main_export
    ckpt = hf_families.make_checkpoint(family, os.path.join(tmp, "checkpoint"))
    export = os.path.join(tmp, "export")
    main_export(ckpt, output=export, task=family.task, device="cpu", do_validation=True)
    out = os.path.join(tmp, "fp32")
    os.makedirs(out)
    for stem in family.files:
        path = os.path.join(export, stem + ".onnx")
        # convert.py: onnxslim.slim on every exported file, saved back in its place
        hf_quantize.save(onnxslim.slim(onnx.load(path)), os.path.join(out, stem + ".onnx"))
    for name in ROOT_FILES:
        if os.path.exists(os.path.join(export, name)):
            shutil.copy(os.path.join(export, name), os.path.join(root, name))
    return out


def build_quantized(family, dtype, fp32_dir, tmp):
    out = os.path.join(tmp, dtype)
    os.makedirs(out)
    for stem in family.files:
        model = hf_quantize.convert(os.path.join(fp32_dir, stem + ".onnx"), dtype, family.model_type)
        hf_quantize.save(model, os.path.join(out, stem + hf_quantize.SUFFIX[dtype] + ".onnx"))
    return out


def build_genai(family, variant, tmp):
    out = os.path.join(tmp, variant)
    r = subprocess.run([MODELS_PYTHON, os.path.join(HERE, "hf_genai.py"), family.name,
                        variant[len("genai-"):], out])
    if r.returncode != 0:
        raise RuntimeError(f"hf_genai.py exited {r.returncode}")
    return out


def build_family(family, out_dir, variants, force, report):
    root = os.path.join(out_dir, family.name)
    os.makedirs(root, exist_ok=True)
    base = digest(family.settings(), files=TOOLS)
    keys = {"fp32": base}
    for dtype in OPTIMUM_VARIANTS[1:]:
        keys[dtype] = digest(base, dtype, hf_quantize.settings(family.model_type), files=QUANT_TOOLS)
    for v in GENAI_VARIANTS:
        keys[v] = digest(family.settings(), v, files=GENAI_TOOLS)
    todo = [v for v in variants if v in OPTIMUM_VARIANTS or family.genai]
    for variant in todo:
        folder = os.path.join(root, variant)
        if not force and stamp_ok(folder, keys[variant]):
            report.append((family.name, variant, "up to date", 0.0))
            continue
        if variant.startswith("genai-") and not os.path.exists(MODELS_PYTHON):
            report.append((family.name, variant, f"skipped: no {MODELS_PYTHON}", 0.0))
            continue
        t0 = time.time()
        with tempfile.TemporaryDirectory(prefix="wg-hf-", dir=out_dir) as tmp:
            try:
                if variant == "fp32":
                    built = export_fp32(family, root, tmp)
                elif variant.startswith("genai-"):
                    built = build_genai(family, variant, tmp)
                else:
                    fp32 = os.path.join(root, "fp32")
                    if not stamp_ok(fp32, keys["fp32"]):  # the quantized files are made from it
                        publish(export_fp32(family, root, tmp), fp32, keys["fp32"])
                    built = build_quantized(family, variant, fp32, tmp)
                publish(built, folder, keys[variant])
                status = "built"
            except Exception as e:  # noqa: BLE001 - report and go on with the next variant
                status = f"FAILED: {type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
        report.append((family.name, variant, status, time.time() - t0))
        print(f"{family.name}/{variant}: {status} ({time.time() - t0:.1f} s)", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="test", choices=["test", "full"])
    ap.add_argument("--only", help="families, comma-separated (default: the set's)")
    ap.add_argument("--variants", help=f"variants, comma-separated (default: all of {','.join(VARIANTS)})")
    ap.add_argument("--out", default=os.path.join(CACHE, "hf-models"))
    ap.add_argument("--no-genai", action="store_true", help="skip the genai builder's variants")
    ap.add_argument("--cases", action="store_true", help="also write each variant's reference case")
    ap.add_argument("--force", action="store_true", help="build again even where the stamp matches")
    a = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing to fetch: every checkpoint is made here
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    variants = a.variants.split(",") if a.variants else list(VARIANTS)
    bad = [v for v in variants if v not in VARIANTS]
    if bad:
        ap.error(f"unknown variants {bad} (known: {', '.join(VARIANTS)})")
    if a.no_genai:
        variants = [v for v in variants if not v.startswith("genai-")]
    os.makedirs(a.out, exist_ok=True)
    report = []
    start = time.time()
    for family in hf_families.families(a.set, a.only.split(",") if a.only else None):
        build_family(family, a.out, variants, a.force, report)
    failed = [r for r in report if r[2].startswith("FAILED")]
    built = sum(r[2] == "built" for r in report)
    print(f"make_hf_models: {built} built, {sum(r[2] == 'up to date' for r in report)} up to date, "
          f"{len(failed)} failed, in {time.time() - start:.0f} s ({a.out})")
    for fam, variant, status, _ in failed:
        print(f"  {fam}/{variant}: {status}")
    if a.cases:
        import hf_reference
        t0, lines = time.time(), []
        for fam, variant, status, _ in report:
            if status in ("built", "up to date"):
                try:
                    lines.append(hf_reference.write_case(os.path.join(a.out, fam, variant)))
                except Exception as e:  # noqa: BLE001 - report and go on
                    lines.append(f"{fam}/{variant}: case FAILED: {type(e).__name__}: {e}")
                    failed.append((fam, variant, "case failed", 0.0))
        written = [ln for ln in lines if not ln.endswith("up to date")]
        for ln in written:
            print(ln)
        print(f"make_hf_models: {len(written)} reference cases written, {len(lines) - len(written)} up to date, "
              f"in {time.time() - t0:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
