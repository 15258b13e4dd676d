/*
 * dft.c: DFT and STFT (float, double) as inline loops: a direct O(n^2) transform along one
 * axis with a twiddle table cos/sin(2 pi m / L) packed into the weights, sums in double.
 * DFT: real or complex input, dft_length (constant) pads or truncates, onesided, inverse
 * (1/L scaled); inverse with onesided (irfft) is reported unsupported. STFT: real or
 * complex signal, constant frame_step / frame_length, optional window, onesided.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/inline_loops.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct dft_geom {
    int64_t outer, n_in, inner; /* DFT: view of x without its last dim; STFT: outer = batch */
    int64_t L, n_out;           /* transform length, output bins */
    int cin;                    /* 1 real, 2 complex input */
    int inverse;
    int64_t frames, step;       /* STFT */
} dft_geom;

static const int fl[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};

/* Optional scalar input i that must be constant; *v keeps its default when omitted. */
static wg_status const_scalar(wgc_graph *g, const wgc_node *n, int i, int64_t *v)
{
    static const int ints[] = {WG_DT_INT32, WG_DT_INT64, 0};
    const wgc_tensor *t = wgc_in(g, n, i);
    if (!t)
        return WG_OK;
    wg_status st = wgc_check_input(g, n, i, ints);
    if (st)
        return st;
    if (!t->data)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "input '%s' is computed at run time; only constant "
                         "values are supported", t->name);
    if (wgc_numel(&t->shape) != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "input '%s' must be a scalar", t->name);
    *v = wgc_const_int(t, 0);
    return WG_OK;
}

static wg_status resolve_dft(wgc_graph *g, const wgc_node *n, dft_geom *q)
{
    wg_status st = wgc_check_data_input(g, n, 1, 3, fl);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int r = x->shape.rank;
    int64_t axis = n->opset >= 20 ? -2 : wgc_attr_int(n, "axis", 1);
    if (n->opset >= 20 && (st = const_scalar(g, n, 2, &axis)))
        return st;
    if (r < 2 || (x->shape.dims[r - 1] != 1 && x->shape.dims[r - 1] != 2))
        return wgc_error(g, n, WG_ERR_INVALID, "input '%s' must have rank >= 2 and a last dim of 1 or 2",
                         x->name);
    if (axis < 0)
        axis += r;
    if (axis < 0 || axis >= r - 1)
        return wgc_error(g, n, WG_ERR_INVALID, "axis %lld is out of range (rank %d, the last dim holds "
                         "the complex parts)", (long long)wgc_attr_int(n, "axis", 1), r);
    q->cin = (int)x->shape.dims[r - 1];
    q->inverse = wgc_attr_int(n, "inverse", 0) != 0;
    const bool onesided = wgc_attr_int(n, "onesided", 0) != 0;
    if (q->inverse && onesided)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "inverse with onesided = 1 is not supported");
    q->outer = q->inner = 1;
    for (int d = 0; d < r - 1; d++) {
        if (d < axis)
            q->outer *= x->shape.dims[d];
        else if (d > axis)
            q->inner *= x->shape.dims[d];
    }
    q->n_in = x->shape.dims[axis];
    q->L = q->n_in;
    if ((st = const_scalar(g, n, 1, &q->L)))
        return st;
    if (q->L < 1 || q->L > (1 << 20))
        return wgc_error(g, n, WG_ERR_INVALID, "dft_length %lld is out of range", (long long)q->L);
    q->n_out = onesided ? q->L / 2 + 1 : q->L;
    return WG_OK;
}

static wg_status resolve_stft(wgc_graph *g, const wgc_node *n, dft_geom *q)
{
    wg_status st = wgc_check_data_input(g, n, 2, 4, fl);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *w = wgc_in(g, n, 2);
    if (x->shape.rank != 3 || (x->shape.dims[2] != 1 && x->shape.dims[2] != 2))
        return wgc_error(g, n, WG_ERR_INVALID, "signal '%s' must have shape [batch, length, 1 or 2]",
                         x->name);
    q->outer = x->shape.dims[0];
    q->n_in = x->shape.dims[1];
    q->cin = (int)x->shape.dims[2];
    q->step = 0;
    q->L = w ? (w->shape.rank == 1 ? w->shape.dims[0] : -1) : q->n_in;
    if ((st = const_scalar(g, n, 1, &q->step)) || (st = const_scalar(g, n, 3, &q->L)))
        return st;
    if (!wgc_in(g, n, 1))
        return wgc_error(g, n, WG_ERR_INVALID, "frame_step is missing");
    if (w) {
        const int want[] = {x->dtype, 0};
        if ((st = wgc_check_input(g, n, 2, want)))
            return st;
        if (w->shape.rank != 1 || w->shape.dims[0] != q->L)
            return wgc_error(g, n, WG_ERR_INVALID, "window '%s' must be a vector of frame_length %lld",
                             w->name, (long long)q->L);
    }
    if (q->step < 1 || q->L < 1 || q->L > q->n_in || q->L > (1 << 20))
        return wgc_error(g, n, WG_ERR_INVALID, "frame_step %lld / frame_length %lld do not fit a signal "
                         "of %lld samples", (long long)q->step, (long long)q->L, (long long)q->n_in);
    q->frames = 1 + (q->n_in - q->L) / q->step;
    q->n_out = wgc_attr_int(n, "onesided", 1) ? q->L / 2 + 1 : q->L;
    q->inner = 1;
    return WG_OK;
}

static wg_status resolve(wgc_graph *g, const wgc_node *n, dft_geom *q)
{
    memset(q, 0, sizeof *q);
    wg_status st = n->op == WGC_OP_STFT ? resolve_stft(g, n, q) : resolve_dft(g, n, q);
    if (!st && wgc_numel(&wgc_in(g, n, 0)->shape) >= ((int64_t)1 << 30))
        st = wgc_error(g, n, WG_ERR_LIMIT, "input is too large (2^30 elements)");
    return st;
}

static wg_status dft_infer(wgc_graph *g, wgc_node *n)
{
    dft_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    wgc_shape s = wgc_in(g, n, 0)->shape;
    if (n->op == WGC_OP_STFT) {
        s = (wgc_shape){.rank = 4, .dims = {q.outer, q.frames, q.n_out, 2}};
    } else {
        int64_t axis;
        axis = n->opset >= 20 ? -2 : wgc_attr_int(n, "axis", 1);
        if (n->opset >= 20 && wgc_in(g, n, 2))
            axis = wgc_const_int(wgc_in(g, n, 2), 0);
        if (axis < 0)
            axis += s.rank;
        s.dims[axis] = q.n_out;
        s.dims[s.rank - 1] = 2;
    }
    wgc_set_output(g, n, 0, wgc_in(g, n, 0)->dtype, &s);
    return WG_OK;
}

static wg_status dft_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    dft_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const bool stft = n->op == WGC_OP_STFT;
    /* twiddles: tw[2m] = cos(2 pi m / L), tw[2m + 1] = sign * sin(2 pi m / L) */
    double *tw = malloc(sizeof *tw * 2 * (size_t)q.L);
    if (!tw)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory for %lld twiddles", (long long)q.L);
    const double sign = q.inverse ? 1 : -1;
    for (int64_t m = 0; m < q.L; m++) {
        double a = 2 * M_PI * (double)m / (double)q.L;
        tw[2 * m] = cos(a);
        tw[2 * m + 1] = sign * sin(a);
    }
    const char *twe;
    st = wgc_weight(e, tw, sizeof *tw * 2 * (size_t)q.L, &twe);
    free(tw);
    if (st)
        return wgc_error(g, n, st, "out of memory for the twiddle table");
    const long long L = (long long)q.L, NO = (long long)q.n_out, I = (long long)q.inner, C = q.cin;
    const long long J = stft ? L : (long long)(q.n_in < q.L ? q.n_in : q.L); /* samples summed */
    const long long O = stft ? (long long)(q.outer * q.frames) : (long long)q.outer;
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s;\nT *py = (T *)%s;\n"
                "const double *tw = (const double *)%s;\n",
             wgc_ctype(x->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]), twe);
    if (stft && wgc_in(g, n, 2))
        wgc_emit(e, "const T *pw = (const T *)%s;\n", wgc_ptr(e, g, n->inputs[2]));
    wgc_emit(e, "for (int32_t o = 0; o < %lld; o++)\nfor (int32_t i = 0; i < %lld; i++)\n"
                "for (int32_t k = 0; k < %lld; k++) {\n", O, I, NO);
    if (stft) /* o = batch * frames + frame */
        wgc_emit(e, "const T *xr = px + ((int64_t)(o / %lld) * %lld + (int64_t)(o %% %lld) * %lld) * %lld;\n",
                 (long long)q.frames, (long long)q.n_in, (long long)q.frames, (long long)q.step, C);
    else
        wgc_emit(e, "const T *xr = px + ((int64_t)o * %lld * %lld + i) * %lld;\n", (long long)q.n_in, I, C);
    wgc_emit(e, "double re = 0, im = 0;\nint32_t m = 0;\nfor (int32_t j = 0; j < %lld; j++) {\n", J);
    wgc_emit(e, "double xr_ = xr[(int64_t)j * %lld], xi_ = 0;\n", I * C);
    if (C == 2)
        wgc_emit(e, "xi_ = xr[(int64_t)j * %lld + 1];\n", I * C);
    if (stft && wgc_in(g, n, 2))
        wgc_emit(e, "xr_ *= pw[j]; xi_ *= pw[j];\n");
    wgc_emit(e, "double c = tw[2 * m], s = tw[2 * m + 1];\n");
    wgc_emit(e, "re += xr_ * c - xi_ * s; im += xr_ * s + xi_ * c;\n");
    wgc_emit(e, "m += k; if (m >= %lld) m -= %lld;\n}\n", L, L);
    if (q.inverse)
        wgc_emit(e, "re /= %lld; im /= %lld;\n", L, L);
    wgc_emit(e, "T *yr = py + (((int64_t)o * %lld + k) * %lld + i) * 2;\n", NO, I);
    wgc_emit(e, "yr[0] = (T)re; yr[1] = (T)im;\n}\n}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_dft = {.infer = dft_infer, .emit = dft_emit};
