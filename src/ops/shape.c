/* shape.c: Shape (start/end since opset 15). Folds from the input's inferred shape alone,
 * so the driver calls fold even when the input is not constant. */
#include "../ir/symdim.h"
#include "helpers/host_elements.h"
#include "helpers/emit_and_fold.h"
#include "sym.h"

static void shape_range(const wgc_node *n, int rank, int *start, int *end)
{
    int64_t s = wgc_attr_int(n, "start", 0), e = wgc_attr_int(n, "end", rank);
    if (s < 0)
        s += rank;
    if (e < 0)
        e += rank;
    s = s < 0 ? 0 : s > rank ? rank : s;
    e = e < 0 ? 0 : e > rank ? rank : e;
    *start = (int)s;
    *end = (int)(e < s ? s : e);
}

static wg_status shape_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, 1, NULL);
    if (st)
        return st;
    int s, e;
    shape_range(n, wgc_in(g, n, 0)->shape.rank, &s, &e);
    wgc_shape y = {.rank = 1, .dims = {e - s}};
    wgc_set_output(g, n, 0, WG_DT_INT64, &y);
    return WG_OK;
}

static wg_status shape_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!x || !x->has_shape)
        return WG_ERR_UNSUPPORTED;
    int s, e;
    shape_range(n, x->shape.rank, &s, &e);
    wgc_shape y = {.rank = 1, .dims = {e - s}};
    int64_t *data = wgc_elem_alloc(g, n, WG_DT_INT64, &y);
    if (!data)
        return WG_ERR_NOMEM;
    for (int d = s; d < e; d++)
        data[d - s] = x->shape.dims[d];
    wgc_tensor_set_const(g, n->outputs[0], WG_DT_INT64, &y, data);
    return WG_OK;
}

/* Every shape is static, so fold always succeeds; nothing is left for run time. */
static wg_status shape_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    (void)e;
    return wgc_error(g, n, WG_ERR_INVALID, "Shape was not folded (internal error)");
}

/* ---- symbolic dims (sym.h): always shape arithmetic, the input's dims its values ---- */

static wgc_sym_folds shape_sym_foldable(const wgc_graph *g, const wgc_node *n)
{
    (void)g;
    (void)n;
    return true;
}

/* (Shape's output is int64: no float values to refuse) */
static wg_status shape_sym_values(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t s = wgc_attr_int(n, "start", 0);
    if (s < 0)
        s += x->shape.rank;
    s = s < 0 ? 0 : s;
    for (int64_t i = 0; i < count; i++)
        v[i] = wgc_dimx_of(g, &x->shape, (int)(s + i));
    return WG_OK;
}

const wgc_op_def wgc_op_shape = {
    .infer = shape_infer,
    .fold = shape_fold,
    .emit = shape_emit,
    .sym = {.foldable = shape_sym_foldable, .values = shape_sym_values},
};
