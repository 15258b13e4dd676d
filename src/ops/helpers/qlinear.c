/* qlinear.c: what ConvInteger / QLinearConv and MatMulInteger / QLinearMatMul share (see
 * qlinear.h). */
#include "qlinear.h"

static const int q8[] = {WG_DT_UINT8, WG_DT_INT8, 0};

wg_status wgc_q_inputs_check(wgc_graph *g, const wgc_node *n, bool qlinear, int max_qlinear,
                             wgc_q_inputs *in)
{
    *in = (wgc_q_inputs){
        .qlinear = qlinear, .a = 0, .b = qlinear ? 3 : 1, .az = 2, .bz = qlinear ? 5 : 3};
    wg_status st = qlinear ? wgc_check_arity(g, n, 8, max_qlinear, 1, 1)
                           : wgc_check_arity(g, n, 2, n->qdeq ? 7 : 4, 1, n->qdeq ? 2 : 1);
    if (!st)
        st = wgc_check_input(g, n, in->a, q8);
    if (!st)
        st = wgc_check_input(g, n, in->b, q8);
    return st;
}

/* Zero point or scale i (absent: fine): one value, or per.n values on a 1-D tensor (sets
 * *vec); of dtype `dtype` unless 0. */
static wg_status param(wgc_graph *g, const wgc_node *n, int i, wgc_q_per per, int dtype,
                       bool *vec, const char *what, const char *name)
{
    const wgc_tensor *t = wgc_in(g, n, i);
    *vec = false;
    if (!t)
        return WG_OK;
    if (!t->has_shape)
        return wgc_error(g, n, WG_ERR_INVALID, "%s of %s '%s' has no known shape", what, name,
                         t->name);
    if (dtype && t->dtype != dtype)
        return wgc_error(g, n, WG_ERR_INVALID, "%s of %s '%s' has dtype %s, expected %s", what,
                         name, t->name, wg_dtype_name(t->dtype), wg_dtype_name(dtype));
    const int64_t c = wgc_numel(&t->shape);
    if (c == 1 && t->shape.rank <= 1)
        return WG_OK;
    if (per.n > 0 && t->shape.rank == 1 && c == per.n) {
        *vec = true;
        return WG_OK;
    }
    if (per.n > 0)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "%s of %s '%s' must be a scalar or have %lld values (one per %s)", what,
                         name, t->name, (long long)per.n, per.of);
    return wgc_error(g, n, WG_ERR_UNSUPPORTED, "%s of %s '%s' must be a scalar", what, name,
                     t->name);
}

wg_status wgc_q_params_check(wgc_graph *g, const wgc_node *n, const wgc_q_inputs *in,
                             const char *const names[2], const wgc_q_per per[2], wgc_q_vec *vec,
                             int *ydt)
{
    static const int f32[] = {WG_DT_FLOAT, 0};
    const wgc_q_per scalar = {0, NULL};
    const int adt = wgc_in(g, n, in->a)->dtype, bdt = wgc_in(g, n, in->b)->dtype;
    bool unused;
    wg_status st;
    if ((st = param(g, n, in->az, per[0], adt, &vec->a_zp, "zero point", names[0])) ||
        (st = param(g, n, in->bz, per[1], bdt, &vec->b_zp, "zero point", names[1])))
        return st;
    vec->b_scale = false;
    *ydt = WG_DT_INT32;
    if (!in->qlinear)
        return WG_OK;
    if ((st = wgc_check_input(g, n, 1, f32)) || (st = wgc_check_input(g, n, 4, f32)) ||
        (st = wgc_check_input(g, n, 6, f32)) || (st = wgc_check_input(g, n, 7, q8)) ||
        (st = param(g, n, 1, scalar, 0, &unused, "scale", names[0])) ||
        (st = param(g, n, 4, per[1], 0, &vec->b_scale, "scale", names[1])) ||
        (st = param(g, n, 6, scalar, 0, &unused, "scale", "y")) ||
        (st = param(g, n, 7, scalar, 0, &unused, "zero point", "y")))
        return st;
    *ydt = wgc_in(g, n, 7)->dtype;
    return WG_OK;
}

const char *wgc_q_ptr_or_0(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int i)
{
    return n->n_inputs > i && n->inputs[i] >= 0 ? wgc_ptr(e, g, n->inputs[i]) : "0";
}

void wgc_q_emit_requantize(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int ydt, int64_t ny,
                           bool vec_scale, int64_t per, int64_t inner)
{
    wgc_emit(e,
             "    wgk_requantize(acc, %s, %d, %lld, %s, %s, (wgk_qaxis){%d, %lld, %lld}, %s, %s);\n",
             wgc_ptr(e, g, n->outputs[0]), ydt, (long long)ny, wgc_ptr(e, g, n->inputs[1]),
             wgc_ptr(e, g, n->inputs[4]), vec_scale, (long long)per, (long long)inner,
             wgc_ptr(e, g, n->inputs[6]), wgc_ptr(e, g, n->inputs[7]));
}
