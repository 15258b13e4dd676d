/*
 * emit_and_fold.h: helpers shared by the emitters of the elementwise and data-movement ops.
 */
#ifndef WGC_OPS_EMIT_AND_FOLD_H
#define WGC_OPS_EMIT_AND_FOLD_H

#include <stdint.h>

#include "../op.h"

/* Formats v[n] as a C compound literal "(const int32_t[]){1, 3, 224, 224}" into buf.
 * Rank-0 lists become "(const int32_t[]){1}". */
const char *wgc_i32_list(char *buf, size_t cap, const int64_t *v, int n);

/* Broadcast plan of y = a op b: collapses the output dims into as few as possible and
 * gives the element strides of a and b along each (0 where broadcast). Returns the
 * collapsed rank (>= 1). */
int wgc_bcast_plan(const wgc_shape *a, const wgc_shape *b, const wgc_shape *y, int64_t *dims,
                   int64_t *sa, int64_t *sb);

/* Checks that tensor t fits the 32-bit kernel interface (fewer than 2^31 elements). */
wg_status wgc_check_i32_numel(wgc_graph *g, const wgc_node *n, const wgc_tensor *t);
/* The start of an emit hook whose plan returned st: st when the plan failed, else
 * wgc_check_i32_numel of t; *empty (when not NULL) says t has no elements, so that the hook
 * has nothing to emit. */
wg_status wgc_emit_start(wgc_graph *g, const wgc_node *n, wg_status st, const wgc_tensor *t,
                         bool *empty);

/* Emits memcpy(out, in, bytes of out) unless the planner gave both the same address. */
void wgc_emit_copy(wgc_emitter *e, wgc_graph *g, int in_t, int out_t);

/* Emits the activation a pass fused into node n (n->act) over tensor t, in place. */
void wgc_emit_fused_act(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int t);

/* The dtype list of every dtype the folder handles (for wgc_check_input). */
extern const int wgc_numeric_dtypes[];

/* The fold and emit hooks of ops whose output is input 0's bytes (Reshape, Flatten,
 * Squeeze, Unsqueeze, Identity, Dropout at inference): a constant copy, a memcpy the
 * planner usually makes a no-op by giving both the same address. */
wg_status wgc_fold_same_bytes(wgc_graph *g, wgc_node *n);
wg_status wgc_emit_same_bytes(wgc_emitter *e, wgc_graph *g, wgc_node *n);
/* The wgc_op_def of an op that gives input 0's bytes another shape (Reshape, Flatten,
 * Squeeze, Unsqueeze): INFER and SYM_INFER decide the shape; the bytes are copied (or
 * aliased) and symbolic int values pass through. Its users include sym.h,
 * helpers/sym_code.h and ../ir/valrange.h for the sym hooks it names. */
#define WGC_SAME_BYTES_OP_DEF(INFER, SYM_INFER)                                            \
    {                                                                                      \
        .infer = INFER, .fold = wgc_fold_same_bytes, .emit = wgc_emit_same_bytes,          \
        .sym = {.infer = SYM_INFER,                                                        \
                .emit = wgc_sym_emit_copy,                                                 \
                .foldable = wgc_sym_passes_values,                                         \
                .values = wgc_sym_copy_int_values,                                         \
                .bounds = wgc_vrange_same_elems},                                          \
    }

/* The emit hook of ops that always fold (their infer requires constant inputs): reached
 * only when a fold failed, it says so naming the op. */
wg_status wgc_emit_folded_only(wgc_emitter *e, wgc_graph *g, wgc_node *n);

/* Element i of integer tensor t (int32 or int64) as a C int64 expression, into buf: a
 * constant's literal, a symbolic value's expression of wg_dims, or a read of the buffer
 * (a value computed at run time). The parameters of the ops that size their outputs in the
 * module (Pad, Expand, Tile, Slice, Range, ConstantOfShape) are read so. */
const char *wgc_int_elem_expr(wgc_emitter *e, wgc_graph *g, int t, int64_t i, char *buf, size_t cap);

/* Makes output i of n a constant copy of bytes (dtype and shape already inferred). */
wg_status wgc_fold_copy(wgc_graph *g, const wgc_node *n, int i, const void *bytes);
/* Makes output 0 of n the scalar constant v of dtype (WG_DT_BOOL or WG_DT_INT64) and marks
 * n dead: a value known at compile time leaves nothing to run. */
wg_status wgc_fold_to_scalar(wgc_graph *g, wgc_node *n, int dtype, int64_t v);
/* A new tensor "<output 0's name>[k]" of dtype and shape s that n produces (element k of
 * the sequence n outputs), its index in *t. */
wg_status wgc_add_element_output(wgc_graph *g, const wgc_node *n, int k, int dtype, const wgc_shape *s,
                                 int *t);


#endif
