/* options.h: what `wasmgraph compile` was asked to do. */
#ifndef WGC_OPTIONS_H
#define WGC_OPTIONS_H

#include <stdbool.h>

#include "../ir/ir.h"

#define WGC_MAX_SHAPE_OVERRIDES 16

typedef struct wgc_shape_override {
    const char *name;   /* graph input name */
    wgc_shape shape;
} wgc_shape_override;

typedef struct wgc_options {
    const char *model_path;
    const char *output_path;
    const char *emit_c_dir;  /* keep the generated C here; NULL: temporary only */
    int opt_level;           /* 0..3, default 2 */
    bool simd;               /* default true */
    bool relaxed_simd;
    bool quiet;              /* no compile summary */
    wgc_shape_override shapes[WGC_MAX_SHAPE_OVERRIDES];
    int n_shapes;
} wgc_options;

#endif
