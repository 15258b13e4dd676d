/* bind.c: `--const NAME=FILE.pb`: turns graph inputs into constants before any pass runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../onnx/tensor_file.h"
#include "options.h"

wg_status wgc_bind_consts(wgc_graph *g, const wgc_options *opt)
{
    char err[600], a[128], b[128];
    for (int k = 0; k < opt->n_consts; k++) {
        const wgc_const_binding *c = &opt->consts[k];
        int t = wgc_tensor_find(g, c->name), at = -1;
        for (int i = 0; i < g->n_inputs; i++)
            if (g->inputs[i] == t)
                at = i;
        if (t < 0 || at < 0)
            return wgc_error(g, NULL, WG_ERR_INVALID, "--const names '%s', which is not a graph input",
                             c->name);
        if (g->tensors[t].kind != WGC_KIND_TENSOR)
            return wgc_error(g, NULL, WG_ERR_UNSUPPORTED,
                             "--const %s: '%s' is a sequence or optional; --const binds tensors only",
                             c->name, c->name);
        wgc_value v;
        if (wg_tensor_file_read_pb(c->path, &v, NULL, err, sizeof err))
            return wgc_error(g, NULL, WG_ERR_INVALID, "--const %s: %s", c->name, err);
        wgc_tensor *x = &g->tensors[t];
        bool shape_ok = !x->has_shape || x->shape.rank == v.shape.rank;
        for (int d = 0; shape_ok && x->has_shape && d < x->shape.rank; d++)
            shape_ok = x->shape.dims[d] < 0 || x->shape.dims[d] == v.shape.dims[d];
        if ((x->dtype && x->dtype != v.dtype) || !shape_ok) {
            wgc_error(g, NULL, WG_ERR_INVALID, "--const %s: %s holds %s %s, the model declares %s %s",
                      c->name, c->path, wg_dtype_name(v.dtype), wgc_shape_str(&v.shape, a, sizeof a),
                      wg_dtype_name(x->dtype), wgc_shape_str(&x->shape, b, sizeof b));
            free(v.data);
            return WG_ERR_INVALID;
        }
        x->has_shape = true;
        x->is_input = false;
        wgc_tensor_set_const(g, t, v.dtype, &v.shape, v.data);
        memmove(&g->inputs[at], &g->inputs[at + 1], sizeof(int) * (size_t)(g->n_inputs - at - 1));
        g->n_inputs--;
    }
    return WG_OK;
}

void wgc_hint_const_inputs(wgc_graph *g)
{
    char pat[300];
    for (int i = 0; i < g->n_inputs; i++) {
        const wgc_tensor *x = &g->tensors[g->inputs[i]];
        snprintf(pat, sizeof pat, "'%s' is computed at run time", x->name);
        if (!strstr(g->err, pat))
            continue;
        size_t len = strlen(g->err);
        snprintf(g->err + len, sizeof g->err - len,
                 " [graph input #%d '%s': compile with --const %s=FILE.pb]", i, x->name, x->name);
        return;
    }
}
