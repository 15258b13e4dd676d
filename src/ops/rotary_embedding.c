/*
 * rotary_embedding.c: RotaryEmbedding, ONNX's (opset 23) and onnxruntime's (com.microsoft,
 * version 1), float and double, as an inline loop. X is [batch, heads, seq, head_size] or
 * [batch, seq, heads * head_size]. The first rotary_embedding_dim values R (default: all)
 * of each head rotate by the position's angles: pairs (x[k], x[k + R/2]), or (x[2k],
 * x[2k + 1]) when `interleaved`, become (c x1 - s x2, s x1 + c x2) with c, s from cos_cache /
 * sin_cache; the rest are copied.
 *
 * ONNX's: inputs (X, cos_cache, sin_cache, position_ids); 3-D X needs num_heads; the caches
 * are [batch, seq, R/2], or [max_position, R/2] indexed by position_ids [batch, seq].
 * onnxruntime's: inputs (X, position_ids, cos_cache, sin_cache), the caches [max_position,
 * R/2], position_ids [batch, seq] or one value p (row s then at position p + s, onnxruntime's
 * offset form); the head size is twice the caches' last dim unless rotary_embedding_dim is
 * given, which then needs num_heads (head size = hidden / num_heads), as onnxruntime reads
 * them. Its `scale` attribute is read and not used by onnxruntime's CPU kernel, nor here;
 * is_packed_batching 1 is refused.
 *
 * Positions are read at run time: one outside the cache stops the run with WGK_ERR_INDEX.
 * Batch and sequence may be symbolic (their sizes read at run time), heads and head size not.
 */
#include <stdio.h>
#include <string.h>

#include "../ir/symdim.h"
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "sym.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};

typedef struct rope_geom {
    int rank;
    int64_t B, H, S, D, R, M; /* M: positions in the cache (with position_ids) */
    int in_cos, in_sin, in_pos; /* the inputs' places: the two ops order them differently */
    bool offset;                /* onnxruntime's one-value position_ids: p + s */
} rope_geom;

static bool is_ms(const wgc_node *n)
{
    return n->op == WGC_OP_MS_ROTARY_EMBEDDING;
}

/* onnxruntime's head size and rotary dim (its rotary_embedding_helper's reading). */
static wg_status ms_dims(wgc_graph *g, const wgc_node *n, rope_geom *r, const wgc_tensor *x, const wgc_tensor *c)
{
    static const char *const attrs[] = {"interleaved", "is_packed_batching", "num_heads", "rotary_embedding_dim",
                                        "scale", NULL};
    wg_status st = wgc_check_attr_names(g, n, attrs);
    if (st)
        return st;
    if (wgc_attr_int(n, "is_packed_batching", 0))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "is_packed_batching = 1 (ragged batches) is not supported");
    if (c->shape.rank != 2)
        return wgc_error(g, n, WG_ERR_INVALID, "cos_cache must be [max_position, R / 2]");
    const int64_t heads = wgc_attr_int(n, "num_heads", 0), rdim = wgc_attr_int(n, "rotary_embedding_dim", 0);
    if (heads < 0 || rdim < 0 || (rdim > 0 && heads == 0))
        return wgc_error(g, n, WG_ERR_INVALID, "num_heads %lld and rotary_embedding_dim %lld: rotary_embedding_dim "
                         "needs num_heads", (long long)heads, (long long)rdim);
    const int64_t hidden = r->rank == 4 ? x->shape.dims[1] * x->shape.dims[3] : x->shape.dims[2];
    r->D = rdim ? hidden / (heads ? heads : 1) : 2 * c->shape.dims[1];
    if (r->D <= 0 || hidden % r->D || (heads && heads * r->D != hidden))
        return wgc_error(g, n, WG_ERR_INVALID, "hidden size %lld is not num_heads x head size %lld", (long long)hidden,
                         (long long)r->D);
    r->H = hidden / r->D;
    if (r->rank == 4 && (r->H != x->shape.dims[1] || r->D != x->shape.dims[3]))
        return wgc_error(g, n, WG_ERR_INVALID, "4-D input of %lld heads of %lld, but the caches give a head "
                         "size of %lld", (long long)x->shape.dims[1], (long long)x->shape.dims[3], (long long)r->D);
    r->R = rdim ? rdim : r->D;
    return WG_OK;
}

static wg_status resolve(wgc_graph *g, const wgc_node *n, rope_geom *r)
{
    memset(r, 0, sizeof *r);
    const bool ms = is_ms(n);
    r->in_cos = ms ? 2 : 1, r->in_sin = ms ? 3 : 2, r->in_pos = ms ? 1 : 3;
    wg_status st = wgc_check_arity(g, n, ms ? 4 : 3, 4, 1, 1);
    for (int i = 0; i < 4 && !st; i++)
        if (i != r->in_pos && wgc_in(g, n, i))
            st = wgc_check_input(g, n, i, floats);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *c = wgc_in(g, n, r->in_cos), *s = wgc_in(g, n, r->in_sin);
    const wgc_tensor *p = wgc_in(g, n, r->in_pos);
    if (c->dtype != x->dtype || s->dtype != x->dtype)
        return wgc_error(g, n, WG_ERR_INVALID, "cos_cache and sin_cache must have X's dtype");
    r->rank = x->shape.rank;
    if (r->rank != 3 && r->rank != 4)
        return wgc_error(g, n, WG_ERR_INVALID, "X has rank %d (3 or 4)", r->rank);
    r->B = x->shape.dims[0];
    r->S = x->shape.dims[r->rank == 4 ? 2 : 1];
    if (ms) {
        if ((st = ms_dims(g, n, r, x, c)))
            return st;
    } else if (r->rank == 4) {
        r->H = x->shape.dims[1], r->D = x->shape.dims[3];
    } else {
        r->H = wgc_attr_int(n, "num_heads", 0);
        if (r->H <= 0 || x->shape.dims[2] % r->H)
            return wgc_error(g, n, WG_ERR_INVALID, "3-D X needs num_heads > 0 dividing %lld (got %lld)",
                             (long long)x->shape.dims[2], (long long)r->H);
        r->D = x->shape.dims[2] / r->H;
    }
    if (!ms) {
        r->R = wgc_attr_int(n, "rotary_embedding_dim", 0);
        if (r->R == 0)
            r->R = r->D;
    }
    if (r->R < 0 || r->R > r->D || r->R % 2)
        return wgc_error(g, n, WG_ERR_INVALID, "rotary_embedding_dim %lld for head size %lld (even, <= head size)",
                         (long long)r->R, (long long)r->D);
    const int64_t half = r->R / 2;
    char sc[128];
    if (p) {
        static const int i64[] = {WG_DT_INT64, 0};
        if ((st = wgc_check_input(g, n, r->in_pos, i64)))
            return st;
        r->offset = ms && wgc_numel(&p->shape) == 1 && p->shape.rank <= 1;
        if (!r->offset && (p->shape.rank != 2 || p->shape.dims[0] != r->B || p->shape.dims[1] != r->S))
            return wgc_error(g, n, WG_ERR_INVALID, "position_ids must be [%lld, %lld]%s", (long long)r->B,
                             (long long)r->S, ms ? " or one value" : "");
        for (int k = 0; k < 2; k++) {
            const wgc_tensor *t = k ? s : c;
            if (t->shape.rank != 2 || t->shape.dims[1] != half || t->shape.dims[0] != c->shape.dims[0])
                return wgc_error(g, n, WG_ERR_INVALID, "cache '%s' %s must be [max_position, %lld]", t->name,
                                 wgc_shape_str(&t->shape, sc, sizeof sc), (long long)half);
        }
        r->M = c->shape.dims[0];
    } else {
        for (int k = 0; k < 2; k++) {
            const wgc_tensor *t = k ? s : c;
            if (t->shape.rank != 3 || t->shape.dims[0] != r->B || t->shape.dims[1] != r->S ||
                t->shape.dims[2] != half)
                return wgc_error(g, n, WG_ERR_INVALID, "cache '%s' %s must be [%lld, %lld, %lld] without position_ids",
                                 t->name, wgc_shape_str(&t->shape, sc, sizeof sc), (long long)r->B,
                                 (long long)r->S, (long long)half);
        }
    }
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "X has 2^31 or more elements");
    return WG_OK;
}

WGC_INFER_BY_RESOLVE(rope_infer, rope_geom, resolve, wgc_in(g, n, 0)->shape)

/* The loop over every row of X; batch B and sequence S printed by wgc_size_expr (literals
 * for fixed shapes, read from wg_dims for symbolic ones). */
static wg_status rope_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    rope_geom r;
    wg_status st = resolve(g, n, &r);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!wgc_shape_is_sym(&x->shape) && wgc_numel(&x->shape) == 0)
        return WG_OK;
    const bool pos = wgc_in(g, n, r.in_pos) != NULL;
    const bool inter = wgc_attr_int(n, "interleaved", 0) != 0;
    const long long H = r.H, D = r.D, R = r.R, half = r.R / 2;
    char B[96], S[96];
    snprintf(B, sizeof B, "%s", wgc_size_expr(e, &x->shape, 0, 1));
    snprintf(S, sizeof S, "%s", wgc_size_expr(e, &x->shape, r.rank == 4 ? 2 : 1, r.rank == 4 ? 3 : 2));
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s, *pc = (const T *)%s, *ps = (const T *)%s;\n"
                "T *py = (T *)%s;\n",
             wgc_ctype(x->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[r.in_cos]),
             wgc_ptr(e, g, n->inputs[r.in_sin]), wgc_ptr(e, g, n->outputs[0]));
    if (pos)
        wgc_emit(e, "const int64_t *pp = (const int64_t *)%s;\n", wgc_ptr(e, g, n->inputs[r.in_pos]));
    wgc_emit(e, "for (int32_t b = 0; b < %s; b++)\nfor (int32_t s = 0; s < %s; s++) {\n", B, S);
    if (pos && r.offset)
        wgc_emit(e, "const int64_t at = pp[0] + s;\nif (at < 0 || at >= %lld) return WGK_ERR_INDEX;\n",
                 (long long)r.M);
    else if (pos)
        wgc_emit(e, "const int64_t at = pp[(int64_t)b * %s + s];\nif (at < 0 || at >= %lld) return WGK_ERR_INDEX;\n",
                 S, (long long)r.M);
    else
        wgc_emit(e, "const int64_t at = (int64_t)b * %s + s;\n", S);
    wgc_emit(e, "const T *cr = pc + at * %lld, *sr = ps + at * %lld;\nfor (int32_t h = 0; h < %lld; h++) {\n",
             half, half, H);
    if (r.rank == 4)
        wgc_emit(e, "const int64_t o = (((int64_t)b * %lld + h) * %s + s) * %lld;\n", H, S, D);
    else
        wgc_emit(e, "const int64_t o = (((int64_t)b * %s + s) * %lld + h) * %lld;\n", S, H, D);
    wgc_emit(e, "const T *xr = px + o; T *yr = py + o;\nfor (int32_t k = 0; k < %lld; k++) {\n", half);
    if (inter)
        wgc_emit(e, "const int32_t i1 = 2 * k, i2 = 2 * k + 1;\n");
    else
        wgc_emit(e, "const int32_t i1 = k, i2 = k + %lld;\n", half);
    wgc_emit(e, "const double c = cr[k], sn = sr[k], x1 = xr[i1], x2 = xr[i2];\n"
                "yr[i1] = (T)(c * x1 - sn * x2);\nyr[i2] = (T)(sn * x1 + c * x2);\n}\n"
                "for (int32_t d = %lld; d < %lld; d++) yr[d] = xr[d];\n}\n}\n}\n",
             R, D);
    return WG_OK;
}

/* ---- symbolic shapes (sym.h) ---------------------------------------------------------- */

/* Y has X's shape. Batch and sequence may be symbolic, and so the position ids' and (ONNX's
 * caches without position ids) the caches' batch and sequence dims, each equal to X's. */
static wg_status rope_sym_infer(wgc_graph *g, wgc_node *n)
{
    rope_geom r;
    wg_status st = resolve(g, n, &r);
    if (st)
        return st;
    if (wgc_sym_has_symval_input(g, n))
        return wgc_sym_refuse(g, n, NULL);
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int sd = r.rank == 4 ? 2 : 1; /* X's sequence dim */
    for (int d = 0; d < x->shape.rank; d++)
        if (d != 0 && d != sd && wgc_dim_is_sym(&x->shape, d))
            return wgc_sym_refuse(g, n, "symbolic heads or head size");
    const wgc_dimx xb = wgc_dimx_of(g, &x->shape, 0), xs = wgc_dimx_of(g, &x->shape, sd);
    for (int i = 1; i < n->n_inputs; i++) {
        const wgc_tensor *t = wgc_in(g, n, i);
        if (!t || !wgc_shape_is_sym(&t->shape))
            continue;
        /* [batch, seq] position ids, or ONNX's [batch, seq, R/2] caches */
        const wgc_dimx tb = wgc_dimx_of(g, &t->shape, 0), ts = wgc_dimx_of(g, &t->shape, 1);
        bool ok = t->shape.rank >= 2 && wgc_dimx_eq(&tb, &xb) && wgc_dimx_eq(&ts, &xs);
        for (int d = 2; ok && d < t->shape.rank; d++)
            ok = !wgc_dim_is_sym(&t->shape, d);
        if (!ok)
            return wgc_sym_refuse(g, n, "position ids or caches whose batch and sequence are not X's");
    }
    return wgc_sym_set_out(g, n, 0, &x->shape);
}

const wgc_op_def wgc_op_rotary_embedding = {
    .infer = rope_infer,
    .emit = rope_emit,
    .sym = {.infer = rope_sym_infer, .emit = rope_emit},
};
