/*
 * rotary_embedding.c: RotaryEmbedding (opset 23), float and double, as an inline loop. X is
 * [batch, heads, seq, head_size] or [batch, seq, heads * head_size] (num_heads). The first
 * rotary_embedding_dim (default: all) values of each head rotate by the position's angles:
 * pairs (x[k], x[k + R/2]), or (x[2k], x[2k + 1]) when `interleaved`, become
 * (c x1 - s x2, s x1 + c x2) with c, s from cos_cache / sin_cache; the rest are copied. The
 * caches are [batch, seq, R/2], or [max_position, R/2] indexed by position_ids [batch, seq]
 * (read at run time: a position outside the cache stops the run with WGK_ERR_INDEX).
 */
#include <stdio.h>

#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};

typedef struct rope_geom {
    int rank;
    int64_t B, H, S, D, R, M; /* M: positions in the cache (with position_ids) */
} rope_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, rope_geom *r)
{
    wg_status st = wgc_check_arity(g, n, 3, 4, 1, 1);
    for (int i = 0; i < 3 && !st; i++)
        st = wgc_check_input(g, n, i, floats);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *c = wgc_in(g, n, 1), *s = wgc_in(g, n, 2), *p = wgc_in(g, n, 3);
    if (c->dtype != x->dtype || s->dtype != x->dtype)
        return wgc_error(g, n, WG_ERR_INVALID, "cos_cache and sin_cache must have X's dtype");
    r->rank = x->shape.rank;
    if (r->rank == 4) {
        r->B = x->shape.dims[0], r->H = x->shape.dims[1], r->S = x->shape.dims[2], r->D = x->shape.dims[3];
    } else if (r->rank == 3) {
        r->B = x->shape.dims[0], r->S = x->shape.dims[1];
        r->H = wgc_attr_int(n, "num_heads", 0);
        if (r->H <= 0 || x->shape.dims[2] % r->H)
            return wgc_error(g, n, WG_ERR_INVALID, "3-D X needs num_heads > 0 dividing %lld (got %lld)",
                             (long long)x->shape.dims[2], (long long)r->H);
        r->D = x->shape.dims[2] / r->H;
    } else {
        return wgc_error(g, n, WG_ERR_INVALID, "X has rank %d (3 or 4)", r->rank);
    }
    r->R = wgc_attr_int(n, "rotary_embedding_dim", 0);
    if (r->R == 0)
        r->R = r->D;
    if (r->R < 0 || r->R > r->D || r->R % 2)
        return wgc_error(g, n, WG_ERR_INVALID, "rotary_embedding_dim %lld for head size %lld (even, <= head size)",
                         (long long)r->R, (long long)r->D);
    const int64_t half = r->R / 2;
    char sc[128];
    if (p) {
        static const int i64[] = {WG_DT_INT64, 0};
        if ((st = wgc_check_input(g, n, 3, i64)))
            return st;
        if (p->shape.rank != 2 || p->shape.dims[0] != r->B || p->shape.dims[1] != r->S)
            return wgc_error(g, n, WG_ERR_INVALID, "position_ids must be [%lld, %lld]", (long long)r->B,
                             (long long)r->S);
        for (int k = 1; k < 3; k++) {
            const wgc_tensor *t = wgc_in(g, n, k);
            if (t->shape.rank != 2 || t->shape.dims[1] != half || t->shape.dims[0] != c->shape.dims[0])
                return wgc_error(g, n, WG_ERR_INVALID, "cache '%s' %s must be [max_position, %lld]", t->name,
                                 wgc_shape_str(&t->shape, sc, sizeof sc), (long long)half);
        }
        r->M = c->shape.dims[0];
    } else {
        for (int k = 1; k < 3; k++) {
            const wgc_tensor *t = wgc_in(g, n, k);
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

static wg_status rope_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    rope_geom r;
    wg_status st = resolve(g, n, &r);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (wgc_numel(&x->shape) == 0)
        return WG_OK;
    const bool pos = wgc_in(g, n, 3) != NULL, inter = wgc_attr_int(n, "interleaved", 0) != 0;
    const long long B = r.B, H = r.H, S = r.S, D = r.D, R = r.R, half = r.R / 2;
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s, *pc = (const T *)%s, *ps = (const T *)%s;\n"
                "T *py = (T *)%s;\n",
             wgc_ctype(x->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[1]),
             wgc_ptr(e, g, n->inputs[2]), wgc_ptr(e, g, n->outputs[0]));
    if (pos)
        wgc_emit(e, "const int64_t *pp = (const int64_t *)%s;\n", wgc_ptr(e, g, n->inputs[3]));
    wgc_emit(e, "for (int32_t b = 0; b < %lld; b++)\nfor (int32_t s = 0; s < %lld; s++) {\n", B, S);
    if (pos)
        wgc_emit(e, "const int64_t at = pp[(int64_t)b * %lld + s];\nif (at < 0 || at >= %lld) return WGK_ERR_INDEX;\n",
                 S, (long long)r.M);
    else
        wgc_emit(e, "const int64_t at = (int64_t)b * %lld + s;\n", S);
    wgc_emit(e, "const T *cr = pc + at * %lld, *sr = ps + at * %lld;\nfor (int32_t h = 0; h < %lld; h++) {\n",
             half, half, H);
    if (r.rank == 4)
        wgc_emit(e, "const int64_t o = (((int64_t)b * %lld + h) * %lld + s) * %lld;\n", H, S, D);
    else
        wgc_emit(e, "const int64_t o = (((int64_t)b * %lld + s) * %lld + h) * %lld;\n", S, H, D);
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

const wgc_op_def wgc_op_rotary_embedding = {.infer = rope_infer, .emit = rope_emit};
