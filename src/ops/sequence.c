/*
 * sequence.c: the sequence ops: SequenceConstruct, SequenceEmpty, SequenceInsert,
 * SequenceErase, SequenceLength, SequenceAt, SplitToSequence, ConcatFromSequence.
 *
 * A sequence is a list of element tensors fixed at compile time (src/ir/values.c), so
 * most of these only rearrange that list during inference and leave nothing to run:
 * Construct, Empty, Insert and Erase set their output's elements and die; Length becomes
 * a constant; SequenceAt at a constant position becomes an Identity of that element and
 * ConcatFromSequence a Concat of the elements. What does run: SplitToSequence, whose
 * node then writes its element tensors (outputs 1..k, after the sequence), and
 * SequenceAt at a position computed at run time, allowed when every element has the same
 * shape: it reads the position (negative counts from the end) and copies that element,
 * inputs 2.. being the elements; a position out of range stops wg_run with
 * WGK_ERR_SEQ_INDEX. Positions that change the sequence's structure (Insert, Erase) must
 * be constant: the message names the graph input to bind with --const.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/emit_and_fold.h"
#include "helpers/host_elements.h"
#include "helpers/index_loops.h"
#include "helpers/inline_loops.h"

#define MAX_ELEMS 4096

static wg_status need_sequence(wgc_graph *g, const wgc_node *n, int i)
{
    if (wgc_in_kind(g, n, i) != WGC_KIND_SEQUENCE)
        return wgc_error(g, n, WG_ERR_INVALID, "input %d must be a sequence", i);
    return WG_OK;
}

static wg_status need_tensor(wgc_graph *g, const wgc_node *n, int i)
{
    if (wgc_in_kind(g, n, i) != WGC_KIND_TENSOR)
        return wgc_error(g, n, WG_ERR_INVALID, "input %d must be a tensor, not a sequence or optional", i);
    return WG_OK;
}

/* A constant position input i (one integer) normalised into [0, count] (insert) or
 * [0, count) (at, erase); dflt when the input is omitted. */
static wg_status read_position(wgc_graph *g, const wgc_node *n, int i, int count, bool insert,
                               int64_t dflt, int *pos)
{
    int64_t p = dflt;
    if (wgc_in(g, n, i)) {
        wg_status st = wgc_loop_const_scalar(g, n, i, "position", &p);
        if (st)
            return st;
    }
    int64_t hi = insert ? count : count - 1;
    if (p < -(int64_t)count || p > hi)
        return wgc_error(g, n, WG_ERR_INVALID, "position %lld is out of range for a sequence of %d",
                         (long long)p, count);
    *pos = (int)(p < 0 ? p + count : p);
    return WG_OK;
}

/* Sets output 0 to a sequence of the n tensors elems and retires the node. */
static wg_status set_sequence(wgc_graph *g, wgc_node *n, int dtype, const int *elems, int count)
{
    if (count > MAX_ELEMS)
        return wgc_error(g, n, WG_ERR_LIMIT, "a sequence of %d elements (at most %d)", count, MAX_ELEMS);
    wg_status st = wgc_value_set(g, n->outputs[0], WGC_KIND_SEQUENCE, dtype, elems, count, -1);
    if (!st)
        n->dead = true;
    return st;
}

static wg_status construct(wgc_graph *g, wgc_node *n)
{
    for (int k = 0; k < n->n_inputs; k++) {
        wg_status st = need_tensor(g, n, k);
        if (st)
            return st;
        if (!wgc_in(g, n, k))
            return wgc_error(g, n, WG_ERR_INVALID, "input %d is missing", k);
        if (wgc_in(g, n, k)->dtype != wgc_in(g, n, 0)->dtype)
            return wgc_error(g, n, WG_ERR_INVALID, "input %d is %s, input 0 %s", k,
                             wg_dtype_name(wgc_in(g, n, k)->dtype), wg_dtype_name(wgc_in(g, n, 0)->dtype));
    }
    return set_sequence(g, n, wgc_in(g, n, 0)->dtype, n->inputs, n->n_inputs);
}

static wg_status insert_or_erase(wgc_graph *g, wgc_node *n, bool insert)
{
    wg_status st = need_sequence(g, n, 0);
    if (!st && insert)
        st = need_tensor(g, n, 1);
    if (st)
        return st;
    const wgc_tensor *s = wgc_in(g, n, 0);
    int count = s->n_elems, pos, at = insert ? 2 : 1;
    if (insert && wgc_in(g, n, 1)->dtype != s->dtype && count)
        return wgc_error(g, n, WG_ERR_INVALID, "inserts %s into a sequence of %s",
                         wg_dtype_name(wgc_in(g, n, 1)->dtype), wg_dtype_name(s->dtype));
    if (!insert && !count)
        return wgc_error(g, n, WG_ERR_INVALID, "erases from an empty sequence");
    if ((st = read_position(g, n, at, count, insert, insert ? count : -1, &pos)))
        return st;
    int *elems = malloc(sizeof(int) * (size_t)(count + 1));
    if (!elems)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    int m = 0;
    for (int k = 0; k <= count; k++) {
        if (insert && k == pos)
            elems[m++] = n->inputs[1];
        if (k < count && (insert || k != pos))
            elems[m++] = s->elems[k];
    }
    int dtype = insert ? wgc_in(g, n, 1)->dtype : s->dtype;
    st = set_sequence(g, n, dtype, elems, m);
    free(elems);
    return st;
}

static wg_status length(wgc_graph *g, wgc_node *n)
{
    wg_status st = need_sequence(g, n, 0);
    return st ? st : wgc_fold_to_scalar(g, n, WG_DT_INT64, wgc_in(g, n, 0)->n_elems);
}

static wg_status at(wgc_graph *g, wgc_node *n)
{
    wg_status st = need_sequence(g, n, 0);
    if (!st)
        st = wgc_check_input(g, n, 1, wgc_index_dtypes);
    if (st)
        return st;
    const wgc_tensor *s = wgc_in(g, n, 0), *p = wgc_in(g, n, 1);
    int count = s->n_elems, pos;
    if (!count)
        return wgc_error(g, n, WG_ERR_INVALID, "reads from an empty sequence");
    if (wgc_numel(&p->shape) != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "position must hold one value");
    if (p->data) { /* an Identity of the element */
        if ((st = read_position(g, n, 1, count, false, 0, &pos)))
            return st;
        int x = s->elems[pos];
        n->op = WGC_OP_IDENTITY;
        if ((st = wgc_node_set_inputs(g, n, &x, 1)))
            return st;
        return wgc_op_hooks(WGC_OP_IDENTITY)->infer(g, n);
    }
    const wgc_tensor *e0 = &g->tensors[s->elems[0]];
    for (int k = 1; k < count; k++)
        if (!wgc_shape_eq(&g->tensors[s->elems[k]].shape, &e0->shape)) {
            char a[128], b[128];
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "position '%s' is computed at run time, and it decides the output "
                             "shape: element 0 is %s, element %d %s",
                             p->name, wgc_shape_str(&e0->shape, a, sizeof a), k,
                             wgc_shape_str(&g->tensors[s->elems[k]].shape, b, sizeof b));
        }
    /* inputs: the sequence, the position, then the elements the run chooses from */
    int *ins = malloc(sizeof(int) * (size_t)(count + 2));
    if (!ins)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    ins[0] = n->inputs[0];
    ins[1] = n->inputs[1];
    memcpy(ins + 2, s->elems, sizeof(int) * (size_t)count);
    st = wgc_node_set_inputs(g, n, ins, count + 2);
    free(ins);
    if (!st)
        wgc_set_output(g, n, 0, e0->dtype, &e0->shape);
    return st;
}

/* SplitToSequence's parts: axis, keepdims and each element's length along the axis. */
typedef struct split_plan {
    int axis, count;
    bool keep;
    int64_t len[MAX_ELEMS];
} split_plan;

static wg_status split_plan_of(wgc_graph *g, const wgc_node *n, split_plan *sp)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *s = wgc_in(g, n, 1);
    if (x->shape.rank == 0)
        return wgc_error(g, n, WG_ERR_INVALID, "input must have rank >= 1");
    wg_status st = wgc_read_axis(g, n, 0, x->shape.rank, &sp->axis);
    if (st)
        return st;
    int64_t dim = x->shape.dims[sp->axis], total = 0;
    sp->keep = !s ? wgc_attr_int(n, "keepdims", 1) != 0 : true;
    if (!s) {
        if (dim > MAX_ELEMS)
            return wgc_error(g, n, WG_ERR_LIMIT, "splits into %lld elements (at most %d)", (long long)dim, MAX_ELEMS);
        sp->count = (int)dim;
        for (int k = 0; k < sp->count; k++)
            sp->len[k] = 1;
        return WG_OK;
    }
    if ((st = wgc_loop_need_const(g, n, 1, "split")))
        return st;
    if (s->shape.rank == 0) { /* chunks of one size, the last one smaller */
        int64_t each = wgc_const_int(s, 0);
        if (each <= 0)
            return wgc_error(g, n, WG_ERR_INVALID, "split %lld must be positive", (long long)each);
        int64_t count = (dim + each - 1) / each;
        if (count > MAX_ELEMS)
            return wgc_error(g, n, WG_ERR_LIMIT, "splits into %lld elements (at most %d)", (long long)count, MAX_ELEMS);
        sp->count = (int)count;
        for (int k = 0; k < sp->count; k++)
            sp->len[k] = dim - k * each < each ? dim - k * each : each;
        return WG_OK;
    }
    int64_t count = wgc_numel(&s->shape);
    if (s->shape.rank != 1 || count > MAX_ELEMS)
        return wgc_error(g, n, WG_ERR_INVALID, "split must be a scalar or a 1-D tensor of at most %d", MAX_ELEMS);
    sp->count = (int)count;
    for (int k = 0; k < sp->count; k++) {
        sp->len[k] = wgc_const_int(s, k);
        if (sp->len[k] < 0 || sp->len[k] > dim)
            return wgc_error(g, n, WG_ERR_INVALID, "split %lld is out of range for axis size %lld",
                             (long long)sp->len[k], (long long)dim);
        total += sp->len[k];
    }
    if (total != dim)
        return wgc_error(g, n, WG_ERR_INVALID, "split sums to %lld, the axis has %lld", (long long)total,
                         (long long)dim);
    return WG_OK;
}

static wg_status split_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = need_tensor(g, n, 0);
    if (!st)
        st = wgc_check_data_and_index(g, n, wgc_numeric_dtypes);
    if (st)
        return st;
    split_plan *sp = malloc(sizeof *sp);
    if (!sp)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    int *outs = NULL;
    if ((st = split_plan_of(g, n, sp)))
        goto done;
    if (!(outs = malloc(sizeof(int) * (size_t)(sp->count + 1)))) {
        st = wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
        goto done;
    }
    outs[0] = n->outputs[0];
    const wgc_tensor *x = wgc_in(g, n, 0);
    int dtype = x->dtype;
    const wgc_shape xs = x->shape;
    for (int k = 0; k < sp->count; k++) {
        wgc_shape s = xs;
        s.dims[sp->axis] = sp->len[k];
        if (!sp->keep) {
            memmove(s.dims + sp->axis, s.dims + sp->axis + 1, sizeof(int64_t) * (size_t)(xs.rank - sp->axis - 1));
            s.rank--;
        }
        if ((st = wgc_add_element_output(g, n, k, dtype, &s, &outs[k + 1])))
            goto done;
    }
    if ((st = wgc_value_set(g, outs[0], WGC_KIND_SEQUENCE, dtype, outs + 1, sp->count, -1)))
        goto done;
    st = wgc_node_set_outputs(g, n, outs, sp->count + 1);
done:
    free(outs);
    free(sp);
    return st;
}

/* Element k of SplitToSequence as a view of x: dims (x's rank, the axis of length len[k]),
 * strides and the first element. */
static void split_view(const wgc_tensor *x, const split_plan *sp, int k, int64_t *dims, int64_t *strides,
                       int64_t *base)
{
    wgc_shape_strides(&x->shape, strides);
    memcpy(dims, x->shape.dims, sizeof(int64_t) * (size_t)x->shape.rank);
    dims[sp->axis] = sp->len[k];
    *base = 0;
    for (int j = 0; j < k; j++)
        *base += sp->len[j] * strides[sp->axis];
}

static wg_status split_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    split_plan *sp = malloc(sizeof *sp);
    if (!sp)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    wg_status st = split_plan_of(g, n, sp);
    int64_t es = wg_dtype_size(x->dtype), outer = 1, inner = 1, dim = x->shape.dims[sp->axis], at = 0;
    for (int d = 0; !st && d < sp->axis; d++)
        outer *= x->shape.dims[d];
    for (int d = sp->axis + 1; !st && d < x->shape.rank; d++)
        inner *= x->shape.dims[d];
    for (int k = 0; !st && k < sp->count; k++) {
        wgc_tensor *y = wgc_out(g, n, k + 1);
        char *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
        if (!data) {
            st = WG_ERR_NOMEM;
            break;
        }
        for (int64_t o = 0; o < outer; o++)
            memcpy(data + o * sp->len[k] * inner * es, (const char *)x->data + (o * dim + at) * inner * es,
                   (size_t)(sp->len[k] * inner * es));
        wgc_tensor_set_const(g, n->outputs[k + 1], y->dtype, &y->shape, data);
        at += sp->len[k];
    }
    free(sp);
    return st;
}

static wg_status split_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    split_plan *sp = malloc(sizeof *sp);
    if (!sp)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    wg_status st = split_plan_of(g, n, sp);
    if (!st)
        st = wgc_check_i32_numel(g, n, x);
    for (int k = 0; !st && k < sp->count; k++) {
        int64_t dims[WG_MAX_RANK], strides[WG_MAX_RANK], base;
        split_view(x, sp, k, dims, strides, &base);
        if (wgc_numel(&wgc_out(g, n, k + 1)->shape))
            wgc_gen_affine(e, g, n->inputs[0], n->outputs[k + 1], x->shape.rank, dims, strides, base);
    }
    free(sp);
    return st;
}

static wg_status concat_from_sequence(wgc_graph *g, wgc_node *n)
{
    wg_status st = need_sequence(g, n, 0);
    if (st)
        return st;
    const wgc_tensor *s = wgc_in(g, n, 0);
    if (!s->n_elems)
        return wgc_error(g, n, WG_ERR_INVALID, "concatenates an empty sequence");
    /* new_axis=1 stacks: Concat keeps the attribute and inserts the axis (concat.c) */
    int *elems = malloc(sizeof(int) * (size_t)s->n_elems), count = s->n_elems;
    if (!elems)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    memcpy(elems, s->elems, sizeof(int) * (size_t)count);
    n->op = WGC_OP_CONCAT;
    st = wgc_node_set_inputs(g, n, elems, count);
    free(elems);
    return st ? st : wgc_op_hooks(WGC_OP_CONCAT)->infer(g, n);
}

static wg_status sequence_infer(wgc_graph *g, wgc_node *n)
{
    switch (n->op) {
    case WGC_OP_SEQUENCE_CONSTRUCT: return construct(g, n);
    case WGC_OP_SEQUENCE_EMPTY: {
        int64_t dt = wgc_attr_int(n, "dtype", WG_DT_FLOAT);
        if (dt <= 0 || dt > WG_DT_INT2 || !wg_dtype_size((int)dt) || dt == WG_DT_STRING)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "dtype %lld", (long long)dt);
        return set_sequence(g, n, (int)dt, NULL, 0);
    }
    case WGC_OP_SEQUENCE_INSERT: return insert_or_erase(g, n, true);
    case WGC_OP_SEQUENCE_ERASE: return insert_or_erase(g, n, false);
    case WGC_OP_SEQUENCE_LENGTH: return length(g, n);
    case WGC_OP_SEQUENCE_AT: return at(g, n);
    case WGC_OP_SPLIT_TO_SEQUENCE: return split_infer(g, n);
    case WGC_OP_CONCAT_FROM_SEQUENCE: return concat_from_sequence(g, n);
    default: return wgc_no_case(g, n, "sequence_infer");
    }
}

static wg_status sequence_fold(wgc_graph *g, wgc_node *n)
{
    if (n->op != WGC_OP_SPLIT_TO_SEQUENCE)
        return WG_ERR_UNSUPPORTED; /* the others leave nothing to fold */
    return split_fold(g, n);
}

/* SequenceAt at a run-time position: checks it, then copies the element it names. */
static wg_status at_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *p = wgc_in(g, n, 1), *y = wgc_out(g, n, 0);
    int count = n->n_inputs - 2;
    size_t bytes = (size_t)wgc_numel(&y->shape) * wg_dtype_size(y->dtype);
    wgc_emit(e, "{\nint64_t pos = *(const %s *)%s;\n", p->dtype == WG_DT_INT64 ? "int64_t" : "int32_t",
             wgc_ptr(e, g, n->inputs[1]));
    wgc_emit(e, "if (pos < 0) pos += %d;\nif (pos < 0 || pos >= %d) return WGK_ERR_SEQ_INDEX;\n", count, count);
    wgc_emit(e, "switch (pos) {\n");
    for (int k = 0; k < count; k++)
        wgc_emit(e, "case %d: __builtin_memcpy(%s, %s, %zu); break;\n", k, wgc_ptr(e, g, n->outputs[0]),
                 wgc_ptr(e, g, n->inputs[k + 2]), bytes);
    wgc_emit(e, "default: break;\n}\n}\n");
    return WG_OK;
}

static wg_status sequence_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    switch (n->op) {
    case WGC_OP_SEQUENCE_AT: return at_emit(e, g, n);
    case WGC_OP_SPLIT_TO_SEQUENCE: return split_emit(e, g, n);
    default: return wgc_no_case(g, n, "sequence_emit"); /* the others never reach emit */
    }
}

const wgc_op_def wgc_op_sequence = {.infer = sequence_infer, .fold = sequence_fold, .emit = sequence_emit};
