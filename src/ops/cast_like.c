/*
 * cast_like.c: CastLike(input, target_type): Cast to the dtype of the second input (whose
 * values are not read). float16 targets compute as float32 (see passes/lower_fp16.c).
 */
#include "cast.h"
#include "helpers/emit_and_fold.h"

static wg_status cast_like_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 2, 2, wgc_cast_dtypes);
    if (!st)
        st = wgc_check_input(g, n, 1, wgc_cast_dtypes);
    if (st)
        return st;
    int to = wgc_in(g, n, 1)->dtype;
    if (to == WG_DT_FLOAT16)
        to = WG_DT_FLOAT;
    wgc_set_output(g, n, 0, to, &wgc_in(g, n, 0)->shape);
    return WG_OK;
}

/* Folding and code are Cast's: they read input 0 and output 0's dtype only. */
const wgc_op_def wgc_op_cast_like = {.infer = cast_like_infer, .fold = wgc_cast_fold, .emit = wgc_cast_emit};
