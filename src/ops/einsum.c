/*
 * einsum.c: Einsum, any equation over any number of inputs, as one inline loop nest:
 * the output labels outside, the summed labels inside, every operand addressed by the
 * sum of its labels' strides (a label repeated in one operand walks its diagonal; a dim
 * of 1 under an ellipsis broadcasts). Floats accumulate in double, integers in int64.
 * Implicit mode (no "->") outputs the ellipsis dims, then the labels seen once, sorted.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/index_loops.h"

#define MAX_IN 8
#define MAX_LABELS (2 * WG_MAX_RANK + 8)

/* Label codes: letters 0..51, ellipsis dims 52.. (52 + k = k-th ellipsis dim from the left
 * of the broadcast ellipsis). */
typedef struct eq {
    int nin;
    int lab[MAX_IN][WG_MAX_RANK]; /* label of each dim of each input */
    int out[WG_MAX_RANK + 1], nout;
    int64_t size[64 + WG_MAX_RANK];
    bool used[64 + WG_MAX_RANK];
} eq;

static int code(char c)
{
    return islower((unsigned char)c) ? c - 'a' : 26 + (c - 'A');
}

/* Parses one term (letters and at most one "...") of an operand of the given rank (-1 for
 * the output, whose ellipsis has `ell` dims). Returns the dim count or -1. */
static int term(const char *s, size_t len, int rank, int ell, int *lab)
{
    int letters = 0, dots = 0;
    for (size_t i = 0; i < len; i++) {
        if (isalpha((unsigned char)s[i]))
            letters++;
        else if (s[i] == '.')
            dots++;
        else if (s[i] != ' ')
            return -1;
    }
    if (dots != 0 && dots != 3)
        return -1;
    int ne = dots ? (rank < 0 ? ell : rank - letters) : 0;
    if (ne < 0 || (rank >= 0 && !dots && letters != rank) || letters + ne > WG_MAX_RANK)
        return -1;
    int k = 0;
    for (size_t i = 0; i < len; i++) {
        if (isalpha((unsigned char)s[i]))
            lab[k++] = code(s[i]);
        else if (s[i] == '.' && (i == 0 || s[i - 1] != '.')) {
            if (i + 2 >= len + 0 || s[i + 1] != '.' || s[i + 2] != '.')
                return -1;
            /* right-aligned against the widest ellipsis */
            for (int j = 0; j < ne; j++)
                lab[k++] = 52 + (ell - ne) + j;
        }
    }
    return k;
}

static wg_status parse(wgc_graph *g, const wgc_node *n, eq *q)
{
    const char *s = wgc_attr_str(n, "equation", NULL);
    if (!s)
        return wgc_error(g, n, WG_ERR_INVALID, "has no 'equation' attribute");
    memset(q, 0, sizeof *q);
    q->nin = n->n_inputs;
    if (q->nin > MAX_IN)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "%d inputs (at most %d)", q->nin, MAX_IN);
    const char *arrow = strstr(s, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - s) : strlen(s);
    /* widest ellipsis */
    int ell = 0;
    const char *p = s;
    for (int i = 0; i < q->nin; i++) {
        const char *end = memchr(p, ',', lhs_len - (size_t)(p - s));
        size_t len = end ? (size_t)(end - p) : lhs_len - (size_t)(p - s);
        if ((end != NULL) != (i < q->nin - 1))
            return wgc_error(g, n, WG_ERR_INVALID, "equation '%s' does not have %d operands", s, q->nin);
        int letters = 0;
        for (size_t k = 0; k < len; k++)
            letters += isalpha((unsigned char)p[k]) != 0;
        int ne = wgc_in(g, n, i)->shape.rank - letters;
        if (memchr(p, '.', len) && ne > ell)
            ell = ne;
        p = end ? end + 1 : p + len;
    }
    p = s;
    int count[64 + WG_MAX_RANK] = {0};
    for (int i = 0; i < q->nin; i++) {
        const wgc_tensor *x = wgc_in(g, n, i);
        const char *end = memchr(p, ',', lhs_len - (size_t)(p - s));
        size_t len = end ? (size_t)(end - p) : lhs_len - (size_t)(p - s);
        int r = term(p, len, x->shape.rank, ell, q->lab[i]);
        if (r != x->shape.rank)
            return wgc_error(g, n, WG_ERR_INVALID, "equation '%s': operand %d does not match rank %d", s,
                             i, x->shape.rank);
        for (int d = 0; d < r; d++) {
            int l = q->lab[i][d];
            int64_t dim = x->shape.dims[d];
            if (q->used[l] && q->size[l] != dim && dim != 1 && q->size[l] != 1)
                return wgc_error(g, n, WG_ERR_INVALID, "equation '%s': label size %lld vs %lld", s,
                                 (long long)q->size[l], (long long)dim);
            if (!q->used[l] || q->size[l] == 1)
                q->size[l] = dim;
            q->used[l] = true;
            count[l]++;
        }
        p = end ? end + 1 : p + len;
    }
    if (arrow) {
        q->nout = term(arrow + 2, strlen(arrow + 2), -1, ell, q->out);
        if (q->nout < 0)
            return wgc_error(g, n, WG_ERR_INVALID, "equation '%s': bad output term", s);
        for (int k = 0; k < q->nout; k++) {
            if (!q->used[q->out[k]])
                return wgc_error(g, n, WG_ERR_INVALID, "equation '%s': output label not in inputs", s);
            for (int j = 0; j < k; j++)
                if (q->out[j] == q->out[k])
                    return wgc_error(g, n, WG_ERR_INVALID, "equation '%s': repeated output label", s);
        }
    } else {
        for (int j = 0; j < ell; j++)
            q->out[q->nout++] = 52 + j;
        for (int l = 0; l < 52; l++)
            if (count[l] == 1 && q->nout < WG_MAX_RANK)
                q->out[q->nout++] = l;
            else if (count[l] == 1)
                return wgc_error(g, n, WG_ERR_UNSUPPORTED, "output rank above %d", WG_MAX_RANK);
    }
    return WG_OK;
}

static wg_status einsum_infer(wgc_graph *g, wgc_node *n)
{
    static const int dts[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, WG_DT_INT32, WG_DT_INT64,
                              WG_DT_UINT32, WG_DT_UINT64, 0};
    wg_status st = wgc_check_arity(g, n, 1, MAX_IN, 1, 1);
    for (int i = 0; i < n->n_inputs && !st; i++) {
        st = wgc_check_input(g, n, i, dts);
        if (!st && wgc_in(g, n, i)->dtype != wgc_in(g, n, 0)->dtype)
            return wgc_error(g, n, WG_ERR_INVALID, "inputs have different dtypes");
    }
    eq q;
    if (!st)
        st = parse(g, n, &q);
    if (st)
        return st;
    wgc_shape y = {.rank = q.nout, .dims = {0}};
    for (int k = 0; k < q.nout; k++)
        y.dims[k] = q.size[q.out[k]];
    wgc_set_output(g, n, 0, wgc_in(g, n, 0)->dtype, &y);
    return WG_OK;
}

static wg_status einsum_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    eq q;
    wg_status st = parse(g, n, &q);
    for (int i = 0; i < n->n_inputs && !st; i++)
        st = wgc_check_i32_numel(g, n, wgc_in(g, n, i));
    if (st)
        return st;
    const wgc_tensor *y = wgc_out(g, n, 0);
    if (wgc_numel(&y->shape) == 0)
        return WG_OK;
    /* loop order: output labels, then summed labels */
    int order[64 + WG_MAX_RANK], nl = 0;
    bool in_out[64 + WG_MAX_RANK] = {0};
    for (int k = 0; k < q.nout; k++)
        order[nl++] = q.out[k], in_out[q.out[k]] = true;
    int nsum = 0;
    for (int l = 0; l < 64 + WG_MAX_RANK; l++)
        if (q.used[l] && !in_out[l]) {
            if (nl >= 2 * WG_MAX_RANK)
                return wgc_error(g, n, WG_ERR_UNSUPPORTED, "more than %d distinct labels", 2 * WG_MAX_RANK);
            order[nl++] = l, nsum++;
        }
    int64_t dims[64 + WG_MAX_RANK];
    for (int k = 0; k < nl; k++)
        dims[k] = q.size[order[k]];
    const char *ct = wgc_ctype(y->dtype);
    bool fl = wg_dtype_is_float(y->dtype);
    wgc_emit(e, "{\ntypedef %s T;\n", ct);
    for (int i = 0; i < q.nin; i++)
        wgc_emit(e, "const T *p%d = (const T *)%s;\n", i, wgc_ptr(e, g, n->inputs[i]));
    wgc_emit(e, "T *py = (T *)%s;\nint32_t o = 0;\n", wgc_ptr(e, g, n->outputs[0]));
    wgc_loop_for(e, "l", q.nout, dims);
    wgc_emit(e, "{\n%s s = 0;\n", fl ? "double" : "int64_t");
    /* the summed loops use variables l<nout>.. */
    for (int k = q.nout; k < nl; k++)
        wgc_emit(e, "for (int32_t l%d = 0; l%d < %lld; l%d++)\n", k, k, (long long)dims[k], k);
    char prod[2048];
    size_t len = 0;
    prod[0] = 0;
    for (int i = 0; i < q.nin; i++) {
        const wgc_tensor *x = wgc_in(g, n, i);
        int64_t xs[WG_MAX_RANK], st_l[2 * WG_MAX_RANK] = {0};
        wgc_shape_strides(&x->shape, xs);
        for (int d = 0; d < x->shape.rank; d++)
            for (int k = 0; k < nl; k++)
                if (order[k] == q.lab[i][d] && x->shape.dims[d] != 1)
                    st_l[k] += xs[d];
        char off[600];
        wgc_loop_offset(off, sizeof off, "l", nl, st_l, 0);
        len += (size_t)snprintf(prod + len, sizeof prod - len, "%s(%s)p%d[%s]", i ? " * " : "",
                                fl ? "double" : "int64_t", i, off);
        if (len >= sizeof prod)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "equation too long");
    }
    wgc_emit(e, "s += %s;\npy[o++] = (T)s;\n}\n}\n", prod);
    (void)nsum;
    return WG_OK;
}

const wgc_op_def wgc_op_einsum = {.infer = einsum_infer, .emit = einsum_emit};
