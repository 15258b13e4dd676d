/* binary.c: Add, Sub, Mul, Div with numpy broadcasting (fold on the host, emit a kernel). */
#include <stdio.h>

#include "elem.h"
#include "gen.h"

static wg_status binary_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 2, 2, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, wgc_numeric_dtypes);
    if (!st)
        st = wgc_check_input(g, n, 1, wgc_numeric_dtypes);
    if (st)
        return st;
    const wgc_tensor *a = wgc_in(g, n, 0), *b = wgc_in(g, n, 1);
    if (a->dtype != b->dtype)
        return wgc_error(g, n, WG_ERR_INVALID, "inputs have different dtypes %s and %s",
                         wg_dtype_name(a->dtype), wg_dtype_name(b->dtype));
    wgc_shape y;
    if (!wgc_broadcast(&a->shape, &b->shape, &y)) {
        char sa[96], sb[96];
        return wgc_error(g, n, WG_ERR_INVALID, "shapes %s and %s do not broadcast",
                         wgc_shape_str(&a->shape, sa, sizeof sa),
                         wgc_shape_str(&b->shape, sb, sizeof sb));
    }
    wgc_set_output(g, n, 0, a->dtype, &y);
    return WG_OK;
}

/* One element of a op b on the host. Integer Div truncates toward zero, as the ONNX
 * reference does (numpy true division cast back to the integer type); x / 0 gives 0
 * rather than undefined behaviour. */
static double op_f(wgc_op op, double a, double b)
{
    switch (op) {
    case WGC_OP_ADD: return a + b;
    case WGC_OP_SUB: return a - b;
    case WGC_OP_MUL: return a * b;
    default: return a / b;
    }
}

static int64_t op_i(wgc_op op, int64_t a, int64_t b)
{
    /* Wrapping arithmetic through uint64 (signed overflow is undefined in C). */
    switch (op) {
    case WGC_OP_ADD: return (int64_t)((uint64_t)a + (uint64_t)b);
    case WGC_OP_SUB: return (int64_t)((uint64_t)a - (uint64_t)b);
    case WGC_OP_MUL: return (int64_t)((uint64_t)a * (uint64_t)b);
    default:
        if (b == 0 || (a == INT64_MIN && b == -1))
            return 0;
        return a / b;
    }
}

/* Shared with variadic.c: y = a op b elementwise with broadcasting into y's shape. */
void wgc_fold_binary(wgc_op op, const wgc_tensor *a, const wgc_tensor *b, const wgc_shape *ys,
                     int dtype, void *y);

void wgc_fold_binary(wgc_op op, const wgc_tensor *a, const wgc_tensor *b, const wgc_shape *ys,
                     int dtype, void *y)
{
    int64_t idx[WG_MAX_RANK] = {0};
    int64_t i = 0;
    bool fl = wg_dtype_is_float(dtype);
    if (wgc_numel(ys) == 0)
        return;
    do {
        int64_t ia = wgc_bcast_offset(&a->shape, ys, idx);
        int64_t ib = wgc_bcast_offset(&b->shape, ys, idx);
        if (fl)
            wgc_elem_set_f(y, dtype, i, op_f(op, wgc_elem_get_f(a->data, dtype, ia),
                                             wgc_elem_get_f(b->data, dtype, ib)));
        else
            wgc_elem_set_i(y, dtype, i, op_i(op, wgc_elem_get_i(a->data, dtype, ia),
                                             wgc_elem_get_i(b->data, dtype, ib)));
        i++;
    } while (wgc_index_next(ys, idx));
}

static wg_status binary_fold(wgc_graph *g, wgc_node *n)
{
    if (!wgc_inputs_const(g, n) || n->act != WGC_ACT_NONE)
        return WG_ERR_UNSUPPORTED;
    wgc_tensor *y = wgc_out(g, n, 0);
    void *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    wgc_fold_binary(n->op, wgc_in(g, n, 0), wgc_in(g, n, 1), &y->shape, y->dtype, data);
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}

/* Shared with variadic.c: the kernel name prefix for dtype, or NULL when the module
 * cannot run it. */
const char *wgc_binary_kernel(int dtype);
const char *wgc_binary_kernel(int dtype)
{
    switch (dtype) {
    case WG_DT_FLOAT: return "wgk_f32_binary";
    case WG_DT_INT32: return "wgk_i32_binary";
    case WG_DT_INT64: return "wgk_i64_binary";
    default: return NULL;
    }
}

/* Shared with variadic.c: emits y = a op b (op a WGK_BIN_* name). */
void wgc_emit_binary(wgc_emitter *e, wgc_graph *g, const char *kernel, const char *op, int a,
                     int b, int y);
void wgc_emit_binary(wgc_emitter *e, wgc_graph *g, const char *kernel, const char *op, int a,
                     int b, int y)
{
    int64_t dims[WG_MAX_RANK], sa[WG_MAX_RANK], sb[WG_MAX_RANK];
    char ld[160], la[160], lb[160];
    const wgc_tensor *ty = &g->tensors[y];
    if (wgc_numel(&ty->shape) == 0)
        return;
    int r = wgc_bcast_plan(&g->tensors[a].shape, &g->tensors[b].shape, &ty->shape, dims, sa, sb);
    const char *pa = wgc_ptr(e, g, a), *pb = wgc_ptr(e, g, b), *py = wgc_ptr(e, g, y);
    wgc_emit(e, "%s(%s, %s, %s, %s, %d, %s, %s, %s);\n", kernel, op, py, pa, pb, r,
             wgc_i32_list(ld, sizeof ld, dims, r), wgc_i32_list(la, sizeof la, sa, r),
             wgc_i32_list(lb, sizeof lb, sb, r));
}

static wg_status binary_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_tensor *y = wgc_out(g, n, 0);
    const char *kernel = wgc_binary_kernel(y->dtype);
    if (!kernel && n->act == WGC_ACT_NONE) {
        /* Other dtypes: an inline loop. Integers wrap (through uint64); x / 0 gives 0. */
        static const char *const fl[] = {"a + b", "a - b", "a * b", "a / b"};
        static const char *const in[] = {"(uint64_t)a + (uint64_t)b", "(uint64_t)a - (uint64_t)b",
                                         "(uint64_t)a * (uint64_t)b", "b == 0 ? 0 : a / b"};
        int k = n->op == WGC_OP_ADD ? 0 : n->op == WGC_OP_SUB ? 1 : n->op == WGC_OP_MUL ? 2 : 3;
        return wgc_gen_map(e, g, n, n->inputs, 2, n->outputs[0],
                           wg_dtype_is_float(y->dtype) ? fl[k] : in[k]);
    }
    if (!kernel)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "fused activation on dtype %s",
                         wg_dtype_name(y->dtype));
    if (n->act != WGC_ACT_NONE && y->dtype != WG_DT_FLOAT)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "fused activation on dtype %s",
                         wg_dtype_name(y->dtype));
    wg_status st = wgc_check_i32_numel(g, n, y);
    if (st)
        return st;
    static const char *const ops[] = {"WGK_BIN_ADD", "WGK_BIN_SUB", "WGK_BIN_MUL", "WGK_BIN_DIV"};
    int k = n->op == WGC_OP_ADD ? 0 : n->op == WGC_OP_SUB ? 1 : n->op == WGC_OP_MUL ? 2 : 3;
    wgc_emit_binary(e, g, kernel, ops[k], n->inputs[0], n->inputs[1], n->outputs[0]);
    wgc_emit_fused_act(e, g, n, n->outputs[0]);
    return WG_OK;
}

const wgc_op_def wgc_op_binary = {binary_infer, binary_fold, binary_emit, NULL};
