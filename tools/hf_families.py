"""hf_families.py: the model families of the Hugging Face test models (tools/make_hf_models.py)
and how to make each one's seeded random checkpoint, as a local model folder that
`optimum`'s main_export and onnxruntime-genai's builder read like a Hub repository.

Nothing is downloaded: each config object is built here with its sizes; the tokenizer is
a word-level one over the ids made here (the builder and the exporters want a tokenizer,
nothing reads its words). Imported by both venvs: venv-hf (transformers 4.x, optimum-onnx)
and venv-models (transformers 5, the genai builder), so it uses only API both have.

FAMILIES maps a name to a Family. The "test" set is small (2 layers, hidden 64, vocab
1000: files of a few hundred kB to a few MB that build in seconds); the "full" set adds
real sizes: SmolLM2-135M's Llama config, Whisper-tiny and all-MiniLM-L6-v2.
"""
import json
import os
from dataclasses import dataclass, field

SEED = 0

# Token ids every small config uses, inside its vocabulary (the defaults of several
# configs, e.g. Phi-3's 32000 or GPT-2's 50256, would be out of range at vocab 1000).
SMALL_VOCAB = 1000
IDS = dict(pad_token_id=0, bos_token_id=1, eos_token_id=2)

# Small decoder sizes shared by the test set's decoder-only families. initializer_range
# 0.1 (transformers' default is 0.02) so that random logits and activations differ by
# more than float rounding: comparisons against onnxruntime then mean something.
SMALL = dict(vocab_size=SMALL_VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
             initializer_range=0.1, **IDS)


@dataclass
class Family:
    name: str
    config_class: str          # transformers class name, e.g. "LlamaConfig"
    config: dict               # its keyword arguments
    model_class: str           # transformers class made from the config
    task: str                  # optimum task of the transformers.js-style export
    sets: tuple = ("test", "full")
    genai: bool = False        # also built by onnxruntime-genai's builder
    # the files of one transformers.js-style export, without ".onnx", in the order they run
    files: tuple = ("model",)
    extra: dict = field(default_factory=dict)  # other settings, part of the stamp

    @property
    def model_type(self):
        """The config's model_type (what transformers.js' per-channel rule looks at)."""
        import transformers
        return getattr(transformers, self.config_class).model_type

    def settings(self):
        """Everything that decides this family's checkpoint, for the build stamps."""
        return dict(name=self.name, config_class=self.config_class, config=self.config,
                    model_class=self.model_class, task=self.task, files=self.files,
                    extra=self.extra, seed=SEED)


DECODER = "text-generation-with-past"
SEQ2SEQ = "text2text-generation-with-past"
ENC_DEC_FILES = ("encoder_model", "decoder_model_merged")

FAMILIES = {f.name: f for f in [
    Family("llama", "LlamaConfig", dict(SMALL, tie_word_embeddings=True), "LlamaForCausalLM", DECODER,
           genai=True),
    Family("qwen2", "Qwen2Config", dict(SMALL, tie_word_embeddings=True), "Qwen2ForCausalLM", DECODER,
           genai=True),
    Family("qwen3", "Qwen3Config", dict(SMALL, head_dim=16, tie_word_embeddings=True), "Qwen3ForCausalLM",
           DECODER, genai=True),
    # Phi-3-mini-4k: as many key/value heads as query heads, untied head, no LongRoPE
    # (original_max_position_embeddings = max_position_embeddings)
    Family("phi3", "Phi3Config", dict(SMALL, num_key_value_heads=4, tie_word_embeddings=False,
                                      original_max_position_embeddings=SMALL["max_position_embeddings"]),
           "Phi3ForCausalLM", DECODER, genai=True),
    # Gemma (2B: one key/value head), tied embeddings scaled by sqrt(hidden)
    Family("gemma", "GemmaConfig", dict(SMALL, num_key_value_heads=1, head_dim=16), "GemmaForCausalLM",
           DECODER, genai=True),
    Family("gpt2", "GPT2Config", dict(vocab_size=SMALL_VOCAB, n_embd=64, n_layer=2, n_head=4, n_positions=256,
                                      initializer_range=0.1, bos_token_id=1, eos_token_id=2),
           "GPT2LMHeadModel", DECODER),
    # SmolLM2-135M's sizes (its config.json's numbers), random weights: full set only
    Family("smollm2-135m", "LlamaConfig",
           dict(vocab_size=49152, hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                num_attention_heads=9, num_key_value_heads=3, max_position_embeddings=8192,
                rms_norm_eps=1e-5, rope_theta=100000.0, tie_word_embeddings=True, pad_token_id=2,
                bos_token_id=1, eos_token_id=2),
           "LlamaForCausalLM", DECODER, sets=("full",), genai=True),
    # GPT-2 small's sizes (124M; the generation benchmark's GPT-2 row), random weights
    Family("gpt2-124m", "GPT2Config",
           dict(vocab_size=50257, n_embd=768, n_layer=12, n_head=12, n_positions=1024, bos_token_id=50256,
                eos_token_id=50256),
           "GPT2LMHeadModel", DECODER, sets=("full",)),
    # Qwen2.5-0.5B's sizes (494M; the generation benchmark's ~500M row), random weights
    Family("qwen2.5-0.5b", "Qwen2Config",
           dict(vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
                rms_norm_eps=1e-6, rope_theta=1000000.0, tie_word_embeddings=True, bos_token_id=151643,
                eos_token_id=151643),
           "Qwen2ForCausalLM", DECODER, sets=("full",)),
    # Whisper, small: 2+2 layers of 64, vocab 1000, and the real input, 3000 mel frames (1500
    # encoder positions: the feature extractor always pads to 30 s, and optimum exports that)
    Family("whisper", "WhisperConfig",
           dict(vocab_size=SMALL_VOCAB, num_mel_bins=80, d_model=64, encoder_layers=2, decoder_layers=2,
                encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
                decoder_ffn_dim=128, max_source_positions=1500, max_target_positions=64,
                init_std=0.1, decoder_start_token_id=3, suppress_tokens=[], begin_suppress_tokens=[],
                **IDS),
           "WhisperForConditionalGeneration", "automatic-speech-recognition-with-past", files=ENC_DEC_FILES),
    # Whisper-tiny's sizes (80 mels, 3000 frames, 4+4 layers of 384), random weights
    Family("whisper-tiny", "WhisperConfig",
           dict(vocab_size=51865, num_mel_bins=80, d_model=384, encoder_layers=4, decoder_layers=4,
                encoder_attention_heads=6, decoder_attention_heads=6, encoder_ffn_dim=1536,
                decoder_ffn_dim=1536, max_source_positions=1500, max_target_positions=448,
                decoder_start_token_id=50258, pad_token_id=50257, bos_token_id=50257, eos_token_id=50257,
                suppress_tokens=[], begin_suppress_tokens=[]),
           "WhisperForConditionalGeneration", "automatic-speech-recognition-with-past", sets=("full",),
           files=ENC_DEC_FILES),
    # t5-small's shape (relu feed-forward, relative attention buckets), small
    Family("t5", "T5Config",
           dict(vocab_size=SMALL_VOCAB, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2,
                num_heads=4, initializer_factor=1.0, decoder_start_token_id=0, pad_token_id=0,
                eos_token_id=1),
           "T5ForConditionalGeneration", SEQ2SEQ, files=ENC_DEC_FILES),
    Family("bart", "BartConfig",
           dict(vocab_size=SMALL_VOCAB, d_model=64, encoder_layers=2, decoder_layers=2,
                encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
                decoder_ffn_dim=128, max_position_embeddings=256, init_std=0.1, pad_token_id=1,
                bos_token_id=0, eos_token_id=2, decoder_start_token_id=2, forced_eos_token_id=2),
           "BartForConditionalGeneration", SEQ2SEQ, files=ENC_DEC_FILES),
    # Marian (opus-mt): sinusoidal positions, scaled embeddings, decoder starts at pad
    Family("marian", "MarianConfig",
           dict(vocab_size=SMALL_VOCAB, decoder_vocab_size=SMALL_VOCAB, d_model=64, encoder_layers=2,
                decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
                encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=256, init_std=0.1,
                pad_token_id=SMALL_VOCAB - 1, decoder_start_token_id=SMALL_VOCAB - 1, eos_token_id=0,
                forced_eos_token_id=0),
           "MarianMTModel", SEQ2SEQ, files=ENC_DEC_FILES),
    # all-MiniLM-L6-v2's architecture (BERT), small; feature-extraction: last_hidden_state
    Family("bert", "BertConfig",
           dict(vocab_size=SMALL_VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                intermediate_size=128, max_position_embeddings=256, initializer_range=0.1),
           "BertModel", "feature-extraction"),
    Family("minilm-l6", "BertConfig",
           dict(vocab_size=30522, hidden_size=384, num_hidden_layers=6, num_attention_heads=12,
                intermediate_size=1536, max_position_embeddings=512),
           "BertModel", "feature-extraction", sets=("full",)),
]}


def families(set_name, only=None):
    """The families of a set ("test" or "full"), or those named in `only` (a list)."""
    if only:
        unknown = [n for n in only if n not in FAMILIES]
        if unknown:
            raise SystemExit(f"unknown famil{'ies' if len(unknown) > 1 else 'y'}: {', '.join(unknown)} "
                             f"(known: {', '.join(FAMILIES)})")
        return [FAMILIES[n] for n in only]
    return [f for f in FAMILIES.values() if set_name in f.sets]


def write_tokenizer(folder, vocab_size, ids):
    """A word-level fast tokenizer over `vocab_size` ids: "<pad>", "<s>", "</s>" at the
    config's special ids, "<unk>" at the first other id from 3, "t<N>" for the rest. What
    the builder and the exporters load; nothing reads its words."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast
    names = {"pad_token_id": "<pad>", "bos_token_id": "<s>", "eos_token_id": "</s>"}
    special = {}
    for key, i in ids.items():
        special.setdefault(i, names[key])  # ids may coincide (Whisper's pad = bos = eos)
    unk = next(i for i in range(3, vocab_size) if i not in special)
    special[unk] = "<unk>"
    vocab = {special.get(i, f"t{i}"): i for i in range(vocab_size)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokens = {key[:-3]: special[i] for key, i in ids.items()}  # pad_token="<pad>", ...
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", **tokens).save_pretrained(folder)


def make_checkpoint(family, folder):
    """Writes `family`'s seeded random model into `folder` (config.json, safetensors,
    generation_config.json, tokenizer files) and returns the folder."""
    import torch
    import transformers
    os.makedirs(folder, exist_ok=True)
    config = getattr(transformers, family.config_class)(**family.config)
    torch.manual_seed(SEED)
    model = getattr(transformers, family.model_class)(config).eval()
    model.save_pretrained(folder)
    ids = {k: family.config[k] for k in ("pad_token_id", "bos_token_id", "eos_token_id") if k in family.config}
    vocab = family.config["vocab_size"]
    write_tokenizer(folder, vocab, ids)
    with open(os.path.join(folder, "wasmgraph_family.json"), "w") as f:
        json.dump(family.settings(), f, indent=1, default=str)
    return folder
