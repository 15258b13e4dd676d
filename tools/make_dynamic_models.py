"""Builds the models whose sizes are decided at run time (issue 22): sentence encoders with
dynamic batch and sequence axes, and a detector with NonMaxSuppression in its graph.

    python tools/make_dynamic_models.py [--out-dir DIR] [--force]

A BERT/MiniLM-architecture encoder (transformers.BertModel from its config, seeded random
weights, nothing downloaded; its own attention and padding mask, nothing rewritten) with
two inputs, input_ids and attention_mask (int64, [batch, seq]) and one output,
last_hidden_state ([batch, seq, hidden]), exported three times:
  encoder-dyn-ts.onnx      torch.onnx.export(..., dynamo=False, dynamic_axes=...): the
                           TorchScript exporter, dims named "batch" and "seq";
  encoder-dyn-dynamo.onnx  torch.onnx.export(..., dynamo=True, dynamic_shapes=...): the
                           dynamo exporter with torch.export.Dim("batch"), Dim("seq");
  encoder-dyn-eager-ts.onnx  as encoder-dyn-ts, with attn_implementation="eager" (the
                           explicit softmax attention instead of sdpa's).
The first two use the sdpa attention, transformers' default. The same with TorchScript and
sdpa, of other architectures: encoder-dyn-distilbert-ts.onnx (DistilBertModel),
encoder-dyn-roberta-ts.onnx (RobertaModel: position ids from a CumSum of the mask) and
decoder-dyn-gpt2-ts.onnx (GPT2Model, causal). All are compiled with
`--dim batch=1..4 --dim seq=1..512` by tests/models.sh. And:
  detector-nms.onnx        a YOLO-style anchor-free detector (torchvision MobileNetV3-small
                           features and the cell's mean colour, a 1x1 head per 32x32 cell:
                           box offsets, log sizes, objectness, 8 class logits; boxes
                           decoded in the graph) whose
                           class-aware NMS is torchvision.ops.batched_nms, exported by the
                           TorchScript exporter as NonMaxSuppression; input image [1, 3, 416,
                           416], outputs the kept boxes [K, 4], scores [K] and labels [K]
                           (tests/models/detection_nms.py);
  detector-nms-thresh.onnx the same, keeping only scores above 0.3 before the NMS (boolean
                           indexing; batched_nms's empty-input If then runs at run time);
  detector-ssdlite.onnx    torchvision's ssdlite320_mobilenet_v3_large as it comes (seeded
                           random weights, no backbone weights): per class a score threshold
                           (NonZero), a TopK of up to 300 candidates, then batched_nms and the
                           best 300; input image [1, 3, 320, 320], outputs boxes [K, 4],
                           scores [K], labels [K] (K <= 300, every class's count its own
                           run-time size);
  detector-fasterrcnn.onnx torchvision's fasterrcnn_mobilenet_v3_large_320_fpn (two stages:
                           the RPN's per-level TopK and NMS, MultiScaleRoIAlign over the
                           run-time count of proposals, ScatterElements, the box head's
                           per-class NMS), box_score_thresh 0 so that its 100 best detections
                           are returned and compared.
  cnn-batch-ARCH.onnx      torchvision classifiers as they come (seeded random weights),
                           exported by the TorchScript exporter with dynamic_axes on the
                           batch: input [batch, 3, 224, 224], output logits [batch, 1000];
                           ARCH is resnet18, mobilenet_v3_small, efficientnet_b0,
                           densenet121, shufflenet_v2_x1_0 and convnext_tiny
                           (tests/models/dynamic_cnn.py runs them at batch 1 and 3).
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
MODELS = ["encoder-dyn-ts", "encoder-dyn-dynamo", "encoder-dyn-eager-ts", "encoder-dyn-distilbert-ts",
          "encoder-dyn-roberta-ts", "decoder-dyn-gpt2-ts", "detector-nms", "detector-nms-thresh",
          "detector-ssdlite", "detector-fasterrcnn"]
CNN_ARCHS = ["resnet18", "mobilenet_v3_small", "efficientnet_b0", "densenet121", "shufflenet_v2_x1_0",
             "convnext_tiny"]
MODELS += [f"cnn-batch-{a}" for a in CNN_ARCHS]


def encoder(kind="bert", attn="sdpa"):
    """A small encoder (or GPT-2 decoder) of transformers' architecture `kind`: 128 hidden,
    2 layers, 4 heads, FFN 512, 512 positions, with transformers' own attention (sdpa by
    default, as from_pretrained gives) and its own padding mask (masking_utils: Range,
    GreaterOrEqual, And, a Gather of the flattened mask, Where; RoBERTa's position ids from
    a CumSum of the mask; GPT-2's fused qkv Split): exported as a user exports it, with
    only last_hidden_state picked out."""
    import torch
    import transformers
    torch.manual_seed(SEED)
    common = dict(vocab_size=1000, attn_implementation=attn)
    if kind == "distilbert":
        model = transformers.DistilBertModel(transformers.DistilBertConfig(
            dim=128, n_layers=2, n_heads=4, hidden_dim=512, max_position_embeddings=512, **common))
    elif kind == "roberta":
        model = transformers.RobertaModel(transformers.RobertaConfig(
            hidden_size=128, num_hidden_layers=2, num_attention_heads=4, intermediate_size=512,
            max_position_embeddings=514, **common), add_pooling_layer=False)
    elif kind == "gpt2":
        model = transformers.GPT2Model(transformers.GPT2Config(
            n_embd=128, n_layer=2, n_head=4, n_positions=512, **common))
    else:
        model = transformers.BertModel(transformers.BertConfig(
            hidden_size=128, num_hidden_layers=2, num_attention_heads=4, intermediate_size=512,
            max_position_embeddings=512, hidden_act="gelu", **common), add_pooling_layer=False)
    model.eval()

    class Hidden(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask):
            return self.m(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    return Hidden(model).eval()


def detector(threshold=None):
    """detector-nms (see the module docstring). Boxes are 3 cells wide at their unit size,
    so that neighbours overlap and the NMS removes some; BatchNorm statistics are seeded
    like trained ones, not the identity."""
    import torch
    import torchvision
    from torch import nn
    torch.manual_seed(SEED)

    class Detector(nn.Module):
        def __init__(self, classes=8, size=416, stride=32):
            super().__init__()
            self.threshold = threshold
            self.backbone = torchvision.models.mobilenet_v3_small(weights=None).features
            self.head = nn.Conv2d(576, 5 + classes, 1)
            # Random backbone weights give every cell nearly the same features, so scores
            # would tie to within float rounding and NMS's choices be decided by it. Each
            # cell's mean colour (a 1x1 conv of the 32x32-pooled image) adds what a trained
            # detector has: logits that differ from cell to cell, by a few units.
            self.colour = nn.Conv2d(3, 5 + classes, 1)
            nn.init.normal_(self.colour.weight, std=4.0)
            g = size // stride
            ys, xs = torch.meshgrid(torch.arange(g), torch.arange(g), indexing="ij")
            self.register_buffer("grid", torch.stack([xs, ys], -1).reshape(-1, 2).float())
            self.stride = float(stride)

        def forward(self, x):
            p = self.head(self.backbone(x)) + self.colour(nn.functional.avg_pool2d(x, int(self.stride)))
            p = p.flatten(2).transpose(1, 2)[0]                             # [cells, 5 + C]
            xy = (p[:, :2].sigmoid() + self.grid) * self.stride
            wh = p[:, 2:4].clamp(-4, 4).exp() * (3 * self.stride)
            boxes = torch.cat([xy - wh / 2, xy + wh / 2], 1)
            scores, labels = (p[:, 5:].sigmoid() * p[:, 4:5].sigmoid()).max(1)
            if self.threshold is not None:
                # boolean indexing (NonZero, GatherND), and then batched_nms's
                # boxes.numel() == 0 is decided at run time: an If of two sizes
                sure = scores > self.threshold
                boxes, scores, labels = boxes[sure], scores[sure], labels[sure]
            keep = torchvision.ops.batched_nms(boxes, scores, labels, 0.45)
            return boxes[keep], scores[keep], labels[keep]

    m = Detector().eval()
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.1, 0.1)
            mod.running_var.uniform_(0.5, 1.5)
    return m


def example(batch, seq):
    import torch
    g = torch.Generator().manual_seed(SEED)
    ids = torch.randint(0, 1000, (batch, seq), generator=g, dtype=torch.int64)
    mask = torch.ones(batch, seq, dtype=torch.int64)
    mask[-1, seq // 2:] = 0
    return ids, mask


def export(model_id, out):
    import torch
    if model_id in ("detector-ssdlite", "detector-fasterrcnn"):
        import torchvision
        torch.manual_seed(SEED)
        det = torchvision.models.detection
        m = (det.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None) if model_id == "detector-ssdlite"
             else det.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None, box_score_thresh=0.0))
        m.eval()
        with torch.no_grad():
            torch.onnx.export(m, (torch.rand(1, 3, 320, 320),), out, opset_version=17, dynamo=False,
                              input_names=["image"], output_names=["boxes", "scores", "labels"])
        return
    if model_id.startswith("cnn-batch-"):
        import torchvision
        torch.manual_seed(SEED)
        m = getattr(torchvision.models, model_id[len("cnn-batch-"):])(weights=None).eval()
        with torch.no_grad():
            torch.onnx.export(m, (torch.rand(1, 3, 224, 224),), out, opset_version=17, dynamo=False,
                              input_names=["input"], output_names=["logits"],
                              dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})
        return
    if model_id.startswith("detector-nms"):
        with torch.no_grad():
            torch.onnx.export(detector(0.3 if model_id == "detector-nms-thresh" else None), (torch.rand(1, 3, 416, 416),), out, opset_version=17, dynamo=False,
                              input_names=["image"], output_names=["boxes", "scores", "labels"])
        return
    kind = next((k for k in ("distilbert", "roberta", "gpt2") if k in model_id), "bert")
    model = encoder(kind, "eager" if model_id == "encoder-dyn-eager-ts" else "sdpa")
    args = example(2, 16)
    names = dict(input_names=["input_ids", "attention_mask"], output_names=["last_hidden_state"])
    with torch.no_grad():
        if model_id.endswith("-ts"):
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
