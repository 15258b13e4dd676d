"""Builds the benchmark's transformer, int8 and fp16 models, the way web users make them.

    python tools/make_bench_models.py [--out-dir DIR] [--force] ID...
    python tools/make_bench_models.py --list

Every model is an architecture built from its config object (transformers.BertConfig,
WhisperConfig, ViTConfig, GPT2Config; torchvision constructors with weights=None) with
weights from a seeded generator: nothing is downloaded, no from_pretrained. fp32 models
are exported with torch.onnx.export at fixed shapes (batch 1, the sequence length or
image size below); the int8 ones are made from those by onnxruntime.quantization
(quantize_dynamic: MatMulInteger / ConvInteger + DynamicQuantizeLinear; quantize_static:
QDQ with a seeded random calibration reader), the fp16 one by onnxruntime's float16
converter (keep_io_types: float32 inputs and outputs).

Needs the models venv ($WASMGRAPH_CACHE/venv-models, `scripts/setup.sh --models`,
tools/requirements-models.txt). Writes DIR/ID.onnx (DIR default
$WASMGRAPH_CACHE/models) and DIR/ID.stamp; a model whose stamp matches this file, the
pinned requirements and its recipe is not built again, so a second call takes a second.
"""
import argparse
import hashlib
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REQS = os.path.join(HERE, "requirements-models.txt")
SEED = 0


# --- fp32 models from torch ------------------------------------------------------------

def _bert(hidden, layers, heads, ffn):
    import transformers
    cfg = transformers.BertConfig(vocab_size=30522, hidden_size=hidden, num_hidden_layers=layers,
                                  num_attention_heads=heads, intermediate_size=ffn,
                                  max_position_embeddings=512, hidden_act="gelu")
    return transformers.BertModel(cfg, add_pooling_layer=False)


def minilm_l6():
    """all-MiniLM-L6-v2's encoder: 384 hidden, 6 layers, 12 heads, FFN 1536; seq 128."""
    return _bert(384, 6, 12, 1536), _ids(128), ["input_ids"], ["last_hidden_state"]


def bert_base():
    """BERT-base: 768 hidden, 12 layers, 12 heads, FFN 3072; seq 128."""
    return _bert(768, 12, 12, 3072), _ids(128), ["input_ids"], ["last_hidden_state"]


def distilbert():
    """distilbert-base-uncased: 768 hidden, 6 layers, 12 heads, FFN 3072; seq 64 (the
    transformer that hovered at parity with onnxruntime-web, issue 41)."""
    import transformers
    cfg = transformers.DistilBertConfig(vocab_size=30522, dim=768, n_layers=6, n_heads=12, hidden_dim=3072,
                                        max_position_embeddings=512)
    return transformers.DistilBertModel(cfg), _ids(64), ["input_ids"], ["last_hidden_state"]


def whisper_tiny_encoder():
    """openai/whisper-tiny's encoder config: d_model 384, 4 layers, 6 heads, FFN 1536,
    80 mel bins x 3000 frames (30 s) -> 1500 positions."""
    import torch
    import transformers
    cfg = transformers.WhisperConfig(vocab_size=51865, num_mel_bins=80, d_model=384,
                                     encoder_layers=4, encoder_attention_heads=6,
                                     encoder_ffn_dim=1536, decoder_layers=4,
                                     decoder_attention_heads=6, decoder_ffn_dim=1536,
                                     max_source_positions=1500, max_target_positions=448)
    enc = transformers.WhisperModel(cfg).get_encoder()
    x = torch.randn(1, 80, 3000, generator=torch.Generator().manual_seed(SEED))
    return enc, (x,), ["input_features"], ["last_hidden_state"]


def vit_b16():
    """ViT-B/16 at 224x224: 768 hidden, 12 layers, 12 heads, FFN 3072."""
    import transformers
    cfg = transformers.ViTConfig(hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                                 intermediate_size=3072, image_size=224, patch_size=16)
    return transformers.ViTModel(cfg, add_pooling_layer=False), _image(224), ["pixel_values"], \
        ["last_hidden_state"]


def gpt2():
    """GPT-2 small's body (12 layers, 768 hidden, 12 heads) on a 128-token prompt, no KV
    cache: the prompt's hidden states."""
    import transformers
    cfg = transformers.GPT2Config(n_layer=12, n_embd=768, n_head=12, n_positions=1024,
                                  vocab_size=50257, use_cache=False)
    return transformers.GPT2Model(cfg), _ids(128), ["input_ids"], ["last_hidden_state"]


# transformers 5 builds GPT-2's causal mask with torch.diff, which the TorchScript exporter
# cannot export: this one goes through the torch.export-based exporter (opset 18).
gpt2.dynamo = True


def _trained_like_batchnorm(model):
    """Seeded statistics and affine parameters for every BatchNorm, as training leaves them.
    A fresh torchvision network's BatchNorms are identities (mean 0, variance 1, weight 1,
    bias 0): folded into the convolutions they give every layer a bias of zeros, which the
    exporter then shares as one initializer, so quantize_static leaves those biases float,
    and the output shrinks to ~1e-9 through the layers, where comparing quantization
    errors measures noise. Trained networks have neither."""
    import torch
    g = torch.Generator().manual_seed(SEED)
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            c = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(c, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(c, generator=g) + 0.5)
                m.weight.copy_(torch.rand(c, generator=g) + 0.5)
                m.bias.copy_(torch.randn(c, generator=g) * 0.1)
    return model


def _tv(name):
    def make():
        import torchvision
        model = _trained_like_batchnorm(getattr(torchvision.models, name)(weights=None))
        return model, _image(224), ["input"], ["output"]
    make.__doc__ = f"torchvision {name}, random weights (BatchNorms with trained-like statistics), 1x3x224x224."
    return make


def _isnet():
    """An ISNet (DIS, isnet-general-use as rembg ships it) of seeded random weights:
    conv_in (3x3 stride 2) and a max pool, six stages of residual U-blocks (RSU7 .. RSU4
    with max pools and bilinear upsampling inside, RSU4F with 3x3 convs dilated 1, 2, 4, 8)
    at 256x256 .. 8x8 with 64 .. 512 channels, five decoder stages on the concatenations
    (up to 1024 input channels), six 3x3 side outputs upsampled to the input: 119 3x3
    convs (95 undilated stride 1, 23 dilated, 1 stride 2), about 44 M parameters. Its six
    side maps are returned as one 6-channel sigmoid, so that the export keeps them all."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    def up(x, like):
        return F.interpolate(x, size=like.shape[2:], mode="bilinear", align_corners=False)

    class ConvBnRelu(nn.Sequential):
        def __init__(self, cin, cout, d=1):
            super().__init__(nn.Conv2d(cin, cout, 3, padding=d, dilation=d), nn.BatchNorm2d(cout), nn.ReLU(True))

    class RSU(nn.Module):
        """levels: encoder convs below the input conv (pooled between them), the last dilated 2."""
        def __init__(self, levels, cin, mid, cout):
            super().__init__()
            self.conv_in = ConvBnRelu(cin, cout)
            self.enc = nn.ModuleList([ConvBnRelu(cout if i == 0 else mid, mid, 2 if i == levels - 1 else 1)
                                      for i in range(levels)])
            self.dec = nn.ModuleList([ConvBnRelu(2 * mid, cout if i == 0 else mid) for i in range(levels - 1)])

        def forward(self, x):
            hin = self.conv_in(x)
            hs, h = [], hin
            for i, conv in enumerate(self.enc):
                if 0 < i < len(self.enc) - 1:
                    h = F.max_pool2d(h, 2, 2, ceil_mode=True)
                h = conv(h)
                hs.append(h)
            h = hs[-1]
            for i in range(len(self.dec) - 1, -1, -1):
                h = self.dec[i](torch.cat([h, hs[i]], 1))
                if i > 0:
                    h = up(h, hs[i - 1])
            return h + hin

    class RSU4F(nn.Module):
        def __init__(self, cin, mid, cout):
            super().__init__()
            self.conv_in = ConvBnRelu(cin, cout)
            self.enc = nn.ModuleList([ConvBnRelu(cout, mid, 1), ConvBnRelu(mid, mid, 2), ConvBnRelu(mid, mid, 4),
                                      ConvBnRelu(mid, mid, 8)])
            self.dec = nn.ModuleList([ConvBnRelu(2 * mid, cout, 1), ConvBnRelu(2 * mid, mid, 2),
                                      ConvBnRelu(2 * mid, mid, 4)])

        def forward(self, x):
            hin = self.conv_in(x)
            hs, h = [], hin
            for conv in self.enc:
                h = conv(h)
                hs.append(h)
            h = hs[-1]
            for i in range(2, -1, -1):
                h = self.dec[i](torch.cat([h, hs[i]], 1))
            return h + hin

    class ISNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv_in = nn.Conv2d(3, 64, 3, stride=2, padding=1)
            self.enc = nn.ModuleList([RSU(7, 64, 32, 64), RSU(6, 64, 32, 128), RSU(5, 128, 64, 256),
                                      RSU(4, 256, 128, 512), RSU4F(512, 256, 512), RSU4F(512, 256, 512)])
            self.dec = nn.ModuleList([RSU(7, 128, 16, 64), RSU(6, 256, 32, 64), RSU(5, 512, 64, 128),
                                      RSU(4, 1024, 128, 256), RSU4F(1024, 256, 512)])
            self.side = nn.ModuleList([nn.Conv2d(c, 1, 3, padding=1) for c in (64, 64, 128, 256, 512, 512)])

        def forward(self, x):
            h = F.max_pool2d(self.conv_in(x), 2, 2, ceil_mode=True)
            hs = []
            for i, stage in enumerate(self.enc):
                if i > 0:
                    h = F.max_pool2d(h, 2, 2, ceil_mode=True)
                h = stage(h)
                hs.append(h)
            ds = [hs[5]]
            for i in range(4, -1, -1):
                h = self.dec[i](torch.cat([up(h, hs[i]), hs[i]], 1))
                ds.insert(0, h)
            sides = [up(conv(d), x) for conv, d in zip(self.side, ds)]
            return torch.sigmoid(torch.cat(sides, 1))

    return _trained_like_batchnorm(ISNet()), _image(1024), ["input"], ["output"]


_isnet.__doc__ = ("ISNet (DIS; the architecture of isnet-general-use), random weights (BatchNorms with "
                  "trained-like statistics), 1x3x1024x1024.\n\n" + _isnet.__doc__)


def _ids(seq):
    import torch
    g = torch.Generator().manual_seed(SEED)
    return (torch.randint(0, 1000, (1, seq), generator=g, dtype=torch.int64),)


def _image(size):
    import torch
    return (torch.randn(1, 3, size, size, generator=torch.Generator().manual_seed(SEED)),)


def export(make, out):
    import torch
    torch.manual_seed(SEED)
    model, args, names_in, names_out = make()
    model.eval()
    # Some recipes return (model, args, ...) whose outputs are ModelOutput objects: wrap
    # so that the export sees the first tensor only.
    class First(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, *a):
            r = self.m(*a)
            if isinstance(r, torch.Tensor):
                return r
            return r[0]

    with torch.no_grad():
        if getattr(make, "dynamo", False):
            torch.onnx.export(First(model), args, out, input_names=names_in, output_names=names_out,
                              opset_version=18, dynamo=True, external_data=False)
        else:
            # The TorchScript exporter at opset 17 (LayerNormalization; GELU decomposed
            # into Erf), as most published ONNX transformers were made.
            torch.onnx.export(First(model), args, out, input_names=names_in, output_names=names_out,
                              opset_version=17, do_constant_folding=True, dynamo=False)


# --- int8 and fp16 models from the fp32 ones -------------------------------------------

def dynamic_int8(src, conv, weights="QInt8"):
    """weights: QInt8, or QUInt8 as transformers.js' q8 files of models with a Conv have them."""
    def make(out, built):
        from onnxruntime.quantization import QuantType, quantize_dynamic
        ops = ["MatMul", "Conv"] if conv else ["MatMul"]
        quantize_dynamic(built(src), out, weight_type=getattr(QuantType, weights), op_types_to_quantize=ops)
    make.__doc__ = f"{src}, onnxruntime quantize_dynamic ({weights} weights, " + \
        ("ConvInteger + MatMulInteger)" if conv else "MatMulInteger)")
    return make


def static_qdq(src, per_channel):
    def make(out, built):
        import numpy as np
        import onnx
        from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                              quantize_static)
        model = onnx.load(built(src))
        inp = model.graph.input[0]
        shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]

        class Reader(CalibrationDataReader):
            def __init__(self):
                rng = np.random.default_rng(SEED)
                self.batches = iter([{inp.name: rng.standard_normal(shape).astype(np.float32)}
                                     for _ in range(8)])

            def get_next(self):
                return next(self.batches, None)

        quantize_static(built(src), out, Reader(), quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        per_channel=per_channel)
    make.__doc__ = f"{src}, onnxruntime quantize_static QDQ (QUInt8 activations, QInt8 " + \
        f"weights, {'per-channel' if per_channel else 'per-tensor'}), 8 seeded random calibration inputs"
    return make


def fp16(src):
    def make(out, built):
        import onnx
        from onnxruntime.transformers.float16 import convert_float_to_float16
        onnx.save(convert_float_to_float16(onnx.load(built(src)), keep_io_types=True), out)
    make.__doc__ = f"{src}, onnxruntime.transformers.float16 (fp16 weights, fp32 inputs/outputs)"
    return make


TORCH = {
    "minilm-l6": minilm_l6,
    "bert-base": bert_base,
    "distilbert": distilbert,
    "whisper-tiny-encoder": whisper_tiny_encoder,
    "vit-b16": vit_b16,
    "gpt2": gpt2,
    "convnext-tiny": _tv("convnext_tiny"),
    "swin-t": _tv("swin_t"),
    "resnet18": _tv("resnet18"),
    "mobilenetv2": _tv("mobilenet_v2"),
    "isnet": _isnet,
}
DERIVED = {
    "minilm-l6-int8": ("minilm-l6", dynamic_int8("minilm-l6", conv=False)),
    "bert-base-int8": ("bert-base", dynamic_int8("bert-base", conv=False)),
    "distilbert-int8": ("distilbert", dynamic_int8("distilbert", conv=False)),
    "resnet18-int8": ("resnet18", dynamic_int8("resnet18", conv=True)),
    "resnet18-qdq": ("resnet18", static_qdq("resnet18", per_channel=False)),
    "mobilenetv2-int8": ("mobilenetv2", dynamic_int8("mobilenetv2", conv=True)),
    "isnet-int8": ("isnet", dynamic_int8("isnet", conv=True)),
    "whisper-tiny-encoder-int8": ("whisper-tiny-encoder",
                                  dynamic_int8("whisper-tiny-encoder", conv=True, weights="QUInt8")),
    "mobilenetv2-qdq": ("mobilenetv2", static_qdq("mobilenetv2", per_channel=False)),
    "mobilenetv2-qdq-pc": ("mobilenetv2", static_qdq("mobilenetv2", per_channel=True)),
    "minilm-l6-fp16": ("minilm-l6", fp16("minilm-l6")),
}


def stamp_key(model_id):
    h = hashlib.sha256()
    for p in (os.path.abspath(__file__), REQS):
        with open(p, "rb") as f:
            h.update(f.read())
    h.update(model_id.encode())
    return h.hexdigest()


def build(model_id, out_dir, force, done):
    out = os.path.join(out_dir, model_id + ".onnx")
    stamp = os.path.join(out_dir, model_id + ".stamp")
    key = stamp_key(model_id)
    if model_id in done:
        return out
    if not force and os.path.exists(out) and os.path.exists(stamp):
        with open(stamp) as f:
            if f.read().strip() == key:
                done.add(model_id)
                return out
    os.makedirs(out_dir, exist_ok=True)
    print(f"make_bench_models: building {model_id}", file=sys.stderr)
    # Written to a temporary name first: an interrupted build never leaves a model that
    # looks finished.
    fd, tmp = tempfile.mkstemp(suffix=".onnx", dir=out_dir)
    os.close(fd)
    try:
        if model_id in TORCH:
            export(TORCH[model_id], tmp)
        else:
            DERIVED[model_id][1](tmp, lambda src: build(src, out_dir, force, done))
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    with open(stamp, "w") as f:
        f.write(key + "\n")
    done.add(model_id)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cache = os.environ.get("WASMGRAPH_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "wasmgraph"))
    ap.add_argument("--out-dir", default=os.path.join(cache, "models"))
    ap.add_argument("--force", action="store_true", help="rebuild even when the stamp matches")
    ap.add_argument("--list", action="store_true", help="list the model ids and recipes")
    ap.add_argument("ids", nargs="*")
    a = ap.parse_args()
    recipes = {**{k: v.__doc__.split("\n")[0] for k, v in TORCH.items()},
               **{k: v[1].__doc__ for k, v in DERIVED.items()}}
    if a.list:
        for k, v in recipes.items():
            print(f"{k}\t{v}")
        return 0
    bad = [i for i in a.ids if i not in recipes]
    if bad or not a.ids:
        ap.error(f"unknown model id(s): {', '.join(bad)}" if bad else "name at least one model id (--list)")
    done = set()
    for i in a.ids:
        print(build(i, a.out_dir, a.force, done))
    return 0


if __name__ == "__main__":
    sys.exit(main())
