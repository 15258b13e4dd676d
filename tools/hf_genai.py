"""hf_genai.py: builds one family's model with onnxruntime-genai's model builder, as
`python -m onnxruntime_genai.models.builder -i DIR -o OUT -p PRECISION -e cpu` does,
from the family's seeded random checkpoint (tools/hf_families.py). Runs in the models
venv, which has the transformers 5 the builder needs and onnxruntime-genai
(tools/requirements-genai.txt); tools/make_hf_models.py calls it.

    python tools/hf_genai.py FAMILY PRECISION OUT_DIR

PRECISION is fp32, int4 or fp16. int4 is given the builder's CPU settings explicitly:
accuracy_level=4 (int8 activations in MatMulNBits), block_size=32, and, for a model that
ties its embeddings, shared_embeddings=true (the embedding table and the LM head one
4-bit table, read by GatherBlockQuantized and MatMulNBits). fp32 and fp16 take the
builder's defaults. fp16 for the CPU is not among the combinations the builder lists as
valid, but it builds one (MultiHeadAttention and RotaryEmbedding instead of
GroupQueryAttention); where key/value heads are repeated, its value_info declares
repeat_kv's output [batch_size, sequence_length, ...] though it has the total length, and
onnxruntime's memory planner, trusting it, fails from the first decode step on
(tools/hf_reference.py then runs the graph without its value_info). OUT_DIR gets
model.onnx, model.onnx.data, genai_config.json and the tokenizer files; it must not exist
yet.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_families  # noqa: E402


def options(family, precision):
    """The builder's --extra_options for this family and precision."""
    opts = {}
    if precision == "int4":
        opts = {"accuracy_level": "4", "block_size": "32"}
        if family.config.get("tie_word_embeddings", True):
            opts["shared_embeddings"] = "true"
    return opts


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    name, precision, out = sys.argv[1:]
    family = hf_families.FAMILIES[name]
    with tempfile.TemporaryDirectory(prefix="wg-genai-") as tmp:
        ckpt = hf_families.make_checkpoint(family, os.path.join(tmp, "checkpoint"))
        cmd = [sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", ckpt, "-o", out,
               "-p", precision, "-e", "cpu", "-c", os.path.join(tmp, "cache")]
        extra = options(family, precision)
        if extra:
            cmd += ["--extra_options"] + [f"{k}={v}" for k, v in extra.items()]
        env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
        r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0 or not os.path.exists(os.path.join(out, "model.onnx")):
            sys.stderr.write(r.stdout[-4000:])
            raise SystemExit(f"hf_genai: the builder failed for {name} {precision} (exit {r.returncode})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
