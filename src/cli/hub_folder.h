/*
 * hub_folder.h: `wasmgraph compile DIR` on a Hugging Face-style model folder as
 * transformers.js publishes them (config.json, generation_config.json, tokenizer.json,
 * onnx/model*.onnx; docs/generate.md "From a model folder"): which file to compile, the
 * sequence and cache ranges the config gives, and the generation defaults the module's
 * metadata keeps ("generation", docs/abi.md).
 */
#ifndef WG_CLI_HUB_FOLDER_H
#define WG_CLI_HUB_FOLDER_H

#include <stdbool.h>
#include <stdint.h>

/* The longest sequence a module is compiled for unless --max-length says otherwise (or the
 * model has fewer positions): the KV cache is sized for it. */
#define WG_HUB_DEFAULT_LENGTH 1024

typedef struct wg_hub {
    char onnx[4200];            /* the decoder file of the variant */
    int64_t max_length;         /* prompt + generated tokens at most */
    char generation_json[768];  /* {"eos_token_id": [...], "bos_token_id": N, "max_length": L} */
} wg_hub;

/* Whether path is a directory. */
bool wg_hub_is_folder(const char *path);
/* Reads dir's config.json (required) and generation_config.json, and finds variant's file
 * (fp32: model.onnx, q8: model_quantized.onnx, else model_<variant>.onnx) in dir/onnx/ or
 * dir/<variant>/. max_length 0: the model's max_position_embeddings (n_positions), at most
 * WG_HUB_DEFAULT_LENGTH. Returns 0, or 1 after a message naming the folder. */
int wg_hub_read(const char *dir, const char *variant, int64_t max_length, wg_hub *h);

#endif
