/*
 * hub_folder.h: `wasmgraph compile DIR` on a Hugging Face-style model folder as
 * transformers.js publishes them (config.json, generation_config.json, tokenizer.json,
 * onnx/model*.onnx; docs/generate.md "From a model folder"): which file to compile, the
 * sequence and cache ranges the config gives, and the generation defaults the module's
 * metadata keeps ("generation", docs/abi.md). A Whisper folder (model_type "whisper") is
 * an encoder-decoder: its encoder_model*.onnx and decoder_model_merged*.onnx are compiled
 * both, the encoder beside the decoder's module (docs/generate.md "Whisper").
 */
#ifndef WG_CLI_HUB_FOLDER_H
#define WG_CLI_HUB_FOLDER_H

#include <stdbool.h>
#include <stdint.h>

/* The longest sequence a module is compiled for unless --max-length says otherwise (or the
 * model has fewer positions): the KV cache is sized for it. */
#define WG_HUB_DEFAULT_LENGTH 1024
/* Whisper's longest first run (the forced ids, and a prompt of earlier text) unless a --dim
 * says otherwise: each row of it costs the arena a row of logits (51865 floats for the
 * real vocabulary), and the forced ids are 4. */
#define WG_HUB_WHISPER_PROMPT 32

/* A symbol's default range; a --dim of the same name wins. */
typedef struct wg_hub_dim {
    char name[48];
    int64_t min, max;
} wg_hub_dim;

typedef struct wg_hub {
    char onnx[4200];            /* the decoder file of the variant */
    char encoder_onnx[4200];    /* an encoder-decoder's encoder file; "" for a decoder-only model */
    char encoder_wasm[4200];    /* where its module goes: OUT.wasm's OUT-encoder.wasm */
    int64_t max_length;         /* prompt + generated tokens at most */
    wg_hub_dim dims[4], encoder_dims[1]; /* the decoder's and the encoder's default ranges */
    int n_dims, n_encoder_dims;
    /* {"eos_token_id": [...], "bos_token_id": N, "max_length": L}, and an encoder-decoder's
     * "forced_ids": [start, forced ...] and "encoder": "OUT-encoder.wasm" */
    char generation_json[1024];
} wg_hub;

/* Whether path is a directory. */
bool wg_hub_is_folder(const char *path);
/* Reads dir's config.json (required) and generation_config.json, and finds variant's file
 * (fp32: model.onnx, q8: model_quantized.onnx, else model_<variant>.onnx; Whisper's
 * encoder_model and decoder_model_merged so) in dir/onnx/ or dir/<variant>/. max_length
 * 0: the model's max_position_embeddings (n_positions; Whisper's max_target_positions), at
 * most WG_HUB_DEFAULT_LENGTH. output: the decoder's module (names the encoder's). Returns 0,
 * or 1 after a message naming the folder. */
int wg_hub_read(const char *dir, const char *variant, int64_t max_length, const char *output, wg_hub *h);

#endif
