"""Builds the sentence encoders exported with dynamic batch and sequence axes (issue 22).

    python tools/make_dynamic_models.py [--out-dir DIR] [--force]

A BERT/MiniLM-architecture encoder (transformers.BertModel from its config, seeded random
weights, nothing downloaded) with two inputs, input_ids and attention_mask (int64,
[batch, seq]) and one output, last_hidden_state ([batch, seq, hidden]), exported twice:
  encoder-dyn-ts.onnx      torch.onnx.export(..., dynamo=False, dynamic_axes=...): the
                           TorchScript exporter, dims named "batch" and "seq";
  encoder-dyn-dynamo.onnx  torch.onnx.export(..., dynamo=True, dynamic_shapes=...): the
                           dynamo exporter with torch.export.Dim("batch"), Dim("seq").
Both are compiled with `--dim batch=1..4 --dim seq=1..512` by tests/models/test_dynamic.sh.
Needs the models venv (scripts/setup.sh --models). Writes DIR/ID.onnx and DIR/ID.stamp
(DIR default $WASMGRAPH_CACHE/models); a model whose stamp matches this file and the
pinned requirements is not built again.
"""
import argparse
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REQS = os.path.join(HERE, "requirements-models.txt")
SEED = 0
MODELS = ["encoder-dyn-ts", "encoder-dyn-dynamo"]


def encoder():
    """A small MiniLM-shaped encoder: 128 hidden, 2 layers, 4 heads, FFN 512, 512 positions."""
    import torch
    import transformers
    torch.manual_seed(SEED)
    cfg = transformers.BertConfig(vocab_size=1000, hidden_size=128, num_hidden_layers=2,
                                  num_attention_heads=4, intermediate_size=512,
                                  max_position_embeddings=512, hidden_act="gelu",
                                  attn_implementation="eager")
    model = transformers.BertModel(cfg, add_pooling_layer=False)
    model.eval()

    class Hidden(torch.nn.Module):
        """BertModel's embeddings and encoder, with the classic BERT additive mask
        ((1 - mask) * -10000 on [batch, 1, 1, seq]) built here rather than by
        transformers' masking_utils (whose Range/GreaterOrEqual/And/Flatten chain wasmgraph
        does not yet compile with symbolic dims)."""
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask):
            emb = self.m.embeddings(input_ids=input_ids, token_type_ids=torch.zeros_like(input_ids))
            ext = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * -10000.0
            return self.m.encoder(emb, attention_mask=ext)[0]

    return Hidden(model).eval()


def example(batch, seq):
    import torch
    g = torch.Generator().manual_seed(SEED)
    ids = torch.randint(0, 1000, (batch, seq), generator=g, dtype=torch.int64)
    mask = torch.ones(batch, seq, dtype=torch.int64)
    mask[-1, seq // 2:] = 0
    return ids, mask


def export(model_id, out):
    import torch
    model = encoder()
    args = example(2, 16)
    names = dict(input_names=["input_ids", "attention_mask"], output_names=["last_hidden_state"])
    with torch.no_grad():
        if model_id == "encoder-dyn-ts":
            axes = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                    "last_hidden_state": {0: "batch", 1: "seq"}}
            torch.onnx.export(model, args, out, opset_version=17, do_constant_folding=True,
                              dynamo=False, dynamic_axes=axes, **names)
        else:
            batch = torch.export.Dim("batch", min=1, max=4)
            seq = torch.export.Dim("seq", min=1, max=512)
            shapes = {"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}}
            torch.onnx.export(model, args, out, opset_version=18, dynamo=True,
                              external_data=False, dynamic_shapes=shapes, **names)


def stamp_key():
    h = hashlib.sha256()
    for p in (__file__, REQS):
        if os.path.exists(p):
            with open(p, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", default=os.path.join(
        os.environ.get("WASMGRAPH_CACHE", os.path.expanduser("~/.cache/wasmgraph")), "models"))
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    key = stamp_key()
    for model_id in MODELS:
        out = os.path.join(a.out_dir, model_id + ".onnx")
        stamp = os.path.join(a.out_dir, model_id + ".stamp")
        if not a.force and os.path.exists(out) and os.path.exists(stamp):
            with open(stamp) as f:
                if f.read().strip() == key:
                    print(f"{model_id}: up to date")
                    continue
        export(model_id, out)
        with open(stamp, "w") as f:
            f.write(key + "\n")
        print(f"{model_id}: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
