/*
 * rms_norm.c: RMS normalisation: RMSNormalization (opset 23) and onnxruntime's
 * SimplifiedLayerNormalization (which onnxruntime registers in the default domain, version
 * 1; the genai builder writes it there), float and double, as an inline loop: over each
 * block of x from `axis` to the last dim, y = x / sqrt(mean(x^2) + epsilon) * scale, the
 * mean in double (at least the precision `stash_type` asks for).
 * SimplifiedLayerNormalization also has the optional output inv_std_var, 1 / sqrt(mean(x^2)
 * + epsilon) of each block (x's shape with the normalised dims 1; float, or double with
 * stash_type 11). scale has the block's shape (leading 1s allowed) or one element; other
 * broadcasts are refused. Symbolic dims: any before `axis`, the normalised ones fixed.
 */
#include "../ir/symdim.h"
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "sym.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};

/* The normalised axis, elements per block (from axis on) and blocks. */
static wg_status view(wgc_graph *g, const wgc_node *n, int *axis, int64_t *blocks, int64_t *len)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wg_status st = wgc_read_axis(g, n, -1, x->shape.rank, axis);
    if (st)
        return st;
    *blocks = *len = 1;
    for (int d = 0; d < x->shape.rank; d++)
        *(d < *axis ? blocks : len) *= x->shape.dims[d];
    return WG_OK;
}

static wg_status rms_norm_infer(wgc_graph *g, wgc_node *n)
{
    static const char *const attrs[] = {"axis", "epsilon", "stash_type", NULL};
    const bool ort = n->op == WGC_OP_SIMPLIFIED_LAYER_NORM;
    wg_status st = ort ? wgc_check_attr_names(g, n, attrs) : WG_OK;
    if (!st)
        st = wgc_check_present_inputs(g, n, 2, 2, ort ? 2 : 1, floats);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *s = wgc_in(g, n, 1);
    int axis;
    int64_t blocks, len;
    if ((st = view(g, n, &axis, &blocks, &len)))
        return st;
    int64_t stash = wgc_attr_int(n, "stash_type", 1);
    if (stash != WG_DT_FLOAT && stash != WG_DT_DOUBLE)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "stash_type %lld (float32 and float64 only)",
                         (long long)stash);
    /* scale: one value, or the block's trailing shape */
    int64_t m = wgc_numel(&s->shape);
    bool ok = m == 1;
    if (!ok && m == len && s->shape.rank <= x->shape.rank) {
        ok = true;
        for (int d = 1; d <= s->shape.rank; d++)
            ok = ok && s->shape.dims[s->shape.rank - d] == x->shape.dims[x->shape.rank - d];
    }
    if (!ok) {
        char a[128], b[128];
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "scale %s must be one value or the normalised "
                         "dims of X %s", wgc_shape_str(&s->shape, a, sizeof a),
                         wgc_shape_str(&x->shape, b, sizeof b));
    }
    wgc_set_output(g, n, 0, x->dtype, &x->shape);
    if (wgc_out(g, n, 1)) {
        wgc_shape r = x->shape;
        for (int d = axis; d < r.rank; d++)
            r.dims[d] = 1;
        wgc_set_output(g, n, 1, (int)stash, &r);
    }
    return WG_OK;
}

/* Static and symbolic shapes alike: the block count is printed through wgc_size_expr (a
 * literal for fixed dims), the normalised dims are fixed (rms_norm_sym_infer). */
static wg_status rms_norm_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *s = wgc_in(g, n, 1), *r = wgc_out(g, n, 1);
    int axis;
    int64_t blocks, len;
    bool empty;
    wg_status st = wgc_emit_start(g, n, view(g, n, &axis, &blocks, &len), x, &empty);
    if (st || empty)
        return st;
    char eps[40];
    wgc_dlit(eps, sizeof eps, wgc_attr_float(n, "epsilon", 1e-5f));
    const bool one = wgc_numel(&s->shape) == 1;
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s;\nT *py = (T *)%s;\n"
                "const %s *ps = (const %s *)%s;\n",
             wgc_ctype(x->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]),
             wgc_ctype(s->dtype), wgc_ctype(s->dtype), wgc_ptr(e, g, n->inputs[1]));
    if (r)
        wgc_emit(e, "%s *pr = (%s *)%s;\n", wgc_ctype(r->dtype), wgc_ctype(r->dtype),
                 wgc_ptr(e, g, n->outputs[1]));
    wgc_emit(e, "for (int32_t o = 0; o < %s; o++) {\nconst T *xr = px + o * %lld; T *yr = py + o * %lld;\n"
                "double q = 0;\nfor (int32_t k = 0; k < %lld; k++) q += (double)xr[k] * xr[k];\n"
                "double r = 1.0 / wgk__sqrt(q / %lld + %s);\n",
             wgc_size_expr(e, &x->shape, 0, axis), (long long)len, (long long)len, (long long)len,
             (long long)len, eps);
    if (r)
        wgc_emit(e, "pr[o] = r;\n");
    wgc_emit(e, "for (int32_t k = 0; k < %lld; k++) yr[k] = (T)(xr[k] * r * ps[%s]);\n}\n}\n",
             (long long)len, one ? "0" : "k");
    return WG_OK;
}

/* ---- symbolic shapes (sym.h) ---------------------------------------------------------- */

/* y takes x's symbolic dims, inv_std_var x's with the normalised ones 1: symbols before
 * `axis` only (the loop bounds of one block are constants), a fixed scale. */
static wg_status rms_norm_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (wgc_sym_has_symval_input(g, n))
        return wgc_sym_refuse(g, n, NULL);
    int axis;
    wg_status st = wgc_read_axis(g, n, -1, x->shape.rank, &axis);
    if (st)
        return st;
    for (int d = axis; d < x->shape.rank; d++)
        if (wgc_shape_first_sym(&x->shape, d) >= 0)
            return wgc_sym_refuse(g, n, "it normalises over a symbolic axis");
    if (wgc_shape_is_sym(&wgc_in(g, n, 1)->shape))
        return wgc_sym_refuse(g, n, "a symbolic scale");
    wgc_shape y = x->shape;
    if ((st = wgc_sym_set_out(g, n, 0, &y)))
        return st;
    for (int d = axis; d < y.rank; d++)
        wgc_shape_set_dim(g, &y, d, wgc_dimx_const(1));
    return wgc_out(g, n, 1) ? wgc_sym_set_out(g, n, 1, &y) : WG_OK;
}

const wgc_op_def wgc_op_rms_norm = {
    .infer = rms_norm_infer,
    .emit = rms_norm_emit,
    .sym = {.infer = rms_norm_sym_infer, .emit = rms_norm_emit},
};
