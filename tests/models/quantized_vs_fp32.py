"""Whole int8 and fp16 models against their fp32 originals (tests/models.sh, section 10).

For each benchmark model made from an fp32 one (tools/make_bench_models.py: dynamic int8,
static QDQ, fp16), on one seeded input: our module's output must be no farther from the
fp32 original's output (onnxruntime) than onnxruntime's own run of the same int8 or fp16
model is. Distance: the root mean square of the difference over the output. The int8
arithmetic itself is checked exactly by the node tests; what differs here are float32
roundings (scales, dequantized sums), in which neither side is the reference. Ours must
be within 2% of onnxruntime's distance (or closer): a fraction of the quantization error
itself, and far below the error of a wrong zero point, scale or rounding, which moves
it by integer steps. (onnxruntime computes an fp16 model in fp16, rounding every op's
output; we compute it in fp32 from the same fp16 weights, so we are the closer one: that
is the 7e-3 between us and onnxruntime on minilm-l6-fp16.)

usage: quantized_vs_fp32.py WASMGRAPH MODELS_DIR OUT_DIR
Prints one "ok"/"FAIL"/"skip" line per model; exits 1 when any failed.
"""
import glob
import os
import subprocess
import sys

import numpy as np
import onnx
import onnx.numpy_helper
import onnxruntime as ort

ort.set_default_logger_severity(3)

PAIRS = [("minilm-l6-int8", "minilm-l6"), ("bert-base-int8", "bert-base"),
         ("resnet18-int8", "resnet18"), ("resnet18-qdq", "resnet18"), ("mobilenetv2-int8", "mobilenetv2"),
         ("mobilenetv2-qdq", "mobilenetv2"), ("mobilenetv2-qdq-pc", "mobilenetv2"),
         ("isnet-int8", "isnet"), ("minilm-l6-fp16", "minilm-l6"), ("distilbert-int8", "distilbert"),
         ("whisper-tiny-encoder-int8", "whisper-tiny-encoder")]
SLACK = 1.02


def feeds_for(sess, rng):
    feeds = {}
    for i in sess.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in i.shape]
        if "int64" in i.type:
            feeds[i.name] = rng.integers(0, 30000, shape).astype(np.int64)
        else:
            feeds[i.name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


def ours(wg, model, feeds, out):
    mod = os.path.join(out, os.path.basename(model).replace(".onnx", ".wasm"))
    subprocess.run([wg, "compile", model, "-o", mod, "-q"], check=True)
    args = [wg, "run", mod, "--output-dir", os.path.join(out, "got")]
    for k, v in feeds.items():
        p = os.path.join(out, k + ".npy")
        np.save(p, v)
        args += ["--input", f"{k}={p}"]
    subprocess.run(args, check=True, capture_output=True)
    f = sorted(glob.glob(os.path.join(out, "got", "output_0*")))[0]
    if f.endswith(".npy"):
        return np.load(f)
    t = onnx.TensorProto()
    with open(f, "rb") as fh:
        t.ParseFromString(fh.read())
    return onnx.numpy_helper.to_array(t)


def rms(a, b):
    return float(np.sqrt(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)))


def main():
    wg, models, out = sys.argv[1:4]
    failed = 0
    for q, f in PAIRS:
        qp, fp = os.path.join(models, q + ".onnx"), os.path.join(models, f + ".onnx")
        if not (os.path.exists(qp) and os.path.exists(fp)):
            print(f"skip {q} (not built: make bench-models)")
            continue
        d = os.path.join(out, q)
        os.makedirs(d, exist_ok=True)
        opt = ort.SessionOptions()
        opt.intra_op_num_threads = 1
        ref_sess = ort.InferenceSession(fp, opt, providers=["CPUExecutionProvider"])
        feeds = feeds_for(ref_sess, np.random.default_rng(7))
        ref = ref_sess.run(None, feeds)[0]
        theirs = ort.InferenceSession(qp, opt, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
        try:
            mine = ours(wg, qp, feeds, d).reshape(ref.shape)
        except subprocess.CalledProcessError as e:
            print(f"FAIL {q} ({' '.join(e.cmd[:2])} failed)")
            failed += 1
            continue
        dm, dt = rms(mine, ref), rms(theirs, ref)
        good = np.isfinite(dm) and dm <= SLACK * dt
        print(f"{'ok  ' if good else 'FAIL'} {q} vs {f}: rms to fp32 ours {dm:.3g}, onnxruntime {dt:.3g}")
        failed += not good
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
