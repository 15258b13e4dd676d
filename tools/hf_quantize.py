"""hf_quantize.py: the dtypes transformers.js publishes beside a model's fp32 ONNX file, made
with the settings of transformers.js' own conversion scripts (scripts/convert.py and
scripts/quantize.py in huggingface/transformers.js, as of commit c6b7edf, July 2025, the
last before the scripts left that repository; our code, their settings):

  dtype  file suffix   how
  fp16   _fp16         float16 conversion with keep_io_types=True (fp32 inputs and outputs)
  q8     _quantized    dynamic quantization, QUInt8 weights if the model has a Conv (or
                       GroupQueryAttention / MultiHeadAttention), else QInt8
  int8   _int8         dynamic quantization, QInt8 weights
  uint8  _uint8        dynamic quantization, QUInt8 weights
  q4     _q4           MatMulNBitsQuantizer, block 32, symmetric, accuracy_level unset
  q4f16  _q4f16        q4, then the fp16 conversion
  bnb4   _bnb4         MatMulBnb4Quantizer, NF4, block 64

Dynamic quantization (q8/int8/uint8) is onnxruntime's ONNXQuantizer in IntegerOps mode,
not static, activations QUInt8, every op type of its IntegerOpsRegistry, extra options
EnableSubgraph and MatMulConstBOnly; per_channel and reduce_range are both False for the
model types in convert.py's NO_PER_CHANNEL_REDUCE_RANGE_MODELS (the decoders, Whisper) and
both True for the others (BERT, T5, BART, Marian, and Qwen3, which that list lacks).

The fp16 conversion keeps the inputs and outputs float32 (keep_io_types=True) and leaves
the ops of transformers.js' block list in float32: onnxconverter-common's default list
less Range, plus RandomNormalLike and Cast. It is tools/hf_fp16.py, ours, which does what
transformers.js' scripts/float16.py does (onnxconverter-common's converter fails on these
exports).
"""
import onnx

# convert.py's NO_PER_CHANNEL_REDUCE_RANGE_MODELS: model types quantized without per-channel
# scales and without reduce_range (7-bit weights)
NO_PER_CHANNEL_REDUCE_RANGE = {
    "codegen", "gpt2", "gpt_bigcode", "gptj", "gpt-neo", "gpt-neox", "mpt", "bloom", "llama", "gemma",
    "opt", "mistral", "falcon", "phi", "phi3", "qwen2", "stablelm", "starcoder2", "openelm", "mobilellm",
    "olmo", "whisper", "vision-encoder-decoder", "owlv2", "wavlm", "wav2vec2", "unispeech", "unispeech-sat",
}

# quantize.py's QUINT8_OPS: a model with one of these gets QUInt8 weights for "q8"
# (onnxruntime-web has no ConvInteger with int8 weights; genai's fused attention ops)
QUINT8_OPS = {"Conv", "GroupQueryAttention", "MultiHeadAttention"}

# quantize.py's QUANTIZE_SUFFIX_MAPPING: the file suffix of each dtype ("" for fp32)
SUFFIX = {"fp32": "", "fp16": "_fp16", "q8": "_quantized", "int8": "_int8", "uint8": "_uint8",
          "q4": "_q4", "q4f16": "_q4f16", "bnb4": "_bnb4"}
DTYPES = list(SUFFIX)

# float16.py's DEFAULT_OP_BLOCK_LIST: ops left in float32 (Casts inserted around them)
FP16_OP_BLOCK_LIST = [
    "ArrayFeatureExtractor", "Binarizer", "CastMap", "CategoryMapper", "DictVectorizer",
    "FeatureVectorizer", "Imputer", "LabelEncoder", "LinearClassifier", "LinearRegressor", "Normalizer",
    "OneHotEncoder", "RandomUniformLike", "SVMClassifier", "SVMRegressor", "Scaler",
    "TreeEnsembleClassifier", "TreeEnsembleRegressor", "ZipMap", "NonMaxSuppression", "TopK", "RoiAlign",
    "Resize", "CumSum", "Min", "Max", "Upsample", "RandomNormalLike", "Cast",
]

Q4_BLOCK = 32    # quantize.py: block_size or 32 for q4 / q4f16
BNB4_BLOCK = 64  # quantize.py: block_size or 64 for bnb4
MAX_PROTOBUF = 2 ** 31


def settings(model_type):
    """The quantization settings of a model type, for stamps and for the record."""
    per_channel = model_type not in NO_PER_CHANNEL_REDUCE_RANGE
    return dict(per_channel=per_channel, reduce_range=per_channel, q4_block=Q4_BLOCK, q4_symmetric=True,
                bnb4_block=BNB4_BLOCK, bnb4_type="NF4", fp16_block_list=FP16_OP_BLOCK_LIST,
                keep_io_types=True, quint8_ops=sorted(QUINT8_OPS))


def op_types(model):
    """Every op type in the model, subgraphs included."""
    found = set()

    def walk(graph):
        for node in graph.node:
            found.add(node.op_type)
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    walk(attr.g)
                for g in attr.graphs:
                    walk(g)
    walk(model.graph)
    return found


def to_fp16(model):
    import hf_fp16
    return hf_fp16.convert_float_to_float16(model, FP16_OP_BLOCK_LIST, keep_io_types=True)


def to_q8(model, weight_type, model_type):
    from onnxruntime.quantization import QuantizationMode, QuantType
    from onnxruntime.quantization.onnx_quantizer import ONNXQuantizer
    from onnxruntime.quantization.registry import IntegerOpsRegistry
    s = settings(model_type)
    q = ONNXQuantizer(model, s["per_channel"], s["reduce_range"], mode=QuantizationMode.IntegerOps, static=False,
                      weight_qType=getattr(QuantType, weight_type), activation_qType=QuantType.QUInt8,
                      tensors_range=None, nodes_to_quantize=[], nodes_to_exclude=[],
                      op_types_to_quantize=set(IntegerOpsRegistry.keys()),
                      extra_options=dict(EnableSubgraph=True, MatMulConstBOnly=True))
    q.quantize_model()
    return q.model.model


def to_q4(model):
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer
    q = MatMulNBitsQuantizer(model=model, block_size=Q4_BLOCK, is_symmetric=True, accuracy_level=None)
    q.process()
    return q.model.model


def to_bnb4(model):
    from onnxruntime.quantization.matmul_bnb4_quantizer import MatMulBnb4Quantizer
    q = MatMulBnb4Quantizer(model=model, block_size=BNB4_BLOCK, quant_type=MatMulBnb4Quantizer.NF4)
    q.process()
    return q.model.model


def convert(fp32_path, dtype, model_type):
    """The model of `dtype` made from the fp32 file at fp32_path (loaded afresh: the
    quantizers change the model they are given)."""
    model = onnx.load(fp32_path)
    if dtype == "fp16":
        return to_fp16(model)
    if dtype == "q4":
        return to_q4(model)
    if dtype == "q4f16":
        return to_fp16(to_q4(model))
    if dtype == "bnb4":
        return to_bnb4(model)
    if dtype == "q8":
        weights = "QUInt8" if op_types(model) & QUINT8_OPS else "QInt8"
        return to_q8(model, weights, model_type)
    if dtype in ("int8", "uint8"):
        return to_q8(model, "QInt8" if dtype == "int8" else "QUInt8", model_type)
    raise ValueError(f"unknown dtype {dtype}")


def save(model, path):
    """Checks the model as transformers.js' check_and_save_model does (full check; ops of
    domains the checker does not know pass), then saves it, with its weights in
    PATH_data when it is past protobuf's 2 GB."""
    import os
    if model.ByteSize() < MAX_PROTOBUF:
        try:
            onnx.checker.check_model(model, full_check=True)
        except Exception as e:  # noqa: BLE001 - the checker raises several types
            if "No Op registered for" not in str(e):
                raise
        onnx.save(model, path)
    else:
        onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                  location=os.path.basename(path) + "_data")
