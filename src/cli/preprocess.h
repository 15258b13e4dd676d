/*
 * preprocess.h: the image preprocessing options of `wasmgraph classify`, which
 * `wasmgraph compile --preprocess "..."` records in the module's metadata (the
 * "preprocess" object) so that classify, the JS image helpers and the demo page take
 * them from the model. One parser for both commands: the same option names.
 *
 *   --size N --crop --mean R,G,B --std R,G,B --scale S --bgr --gray --layout nchw|nhwc
 *
 * In the metadata every field is written, with its default when not given:
 *   "preprocess":{"size":0,"crop":false,"scale":1,"mean":[0,0,0],"std":[1,1,1],
 *                 "bgr":false,"gray":false,"layout":"auto"}
 * (size 0: none given; layout "auto": from the input's shape).
 */
#ifndef WG_CLI_PREPROCESS_H
#define WG_CLI_PREPROCESS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/json.h"

typedef struct wg_cli_prep {
    uint64_t size; /* 0: none */
    bool crop, bgr, gray;
    float mean[3], std[3], scale;
    bool layout_set, nhwc;
    /* which were given (on the command line, or by the metadata) */
    bool has_size, has_crop, has_bgr, has_gray, has_mean, has_std, has_scale;
} wg_cli_prep;

/* The defaults: scale 1, mean 0, std 1, nothing set. */
wg_cli_prep wg_cli_prep_defaults(void);

/* One option at argv[i] (val: argv[i + 1] or NULL). Returns 0 when opt is not a
 * preprocessing option, 1 for a flag, 2 for an option that took val, -1 after printing
 * the usage error (wg_cli_usage with usage). */
int wg_cli_prep_option(const char *usage, const char *opt, const char *val, wg_cli_prep *p);

/* Parses a whole --preprocess string (options separated by spaces). Returns 0, or 2
 * after printing the usage error. */
int wg_cli_prep_parse(const char *usage, const char *spec, wg_cli_prep *p);

/* The metadata's "preprocess" object (see above) as JSON text, malloc'ed; NULL when out
 * of memory. */
char *wg_cli_prep_json(const wg_cli_prep *p);

/* Fills the fields of p not given yet from a metadata "preprocess" object. false, with
 * a message in err, when j is not such an object. */
bool wg_cli_prep_from_json(const wg_json *j, wg_cli_prep *p, char *err, size_t errlen);

#endif
