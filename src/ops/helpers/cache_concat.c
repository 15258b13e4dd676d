/* cache_concat.c: a KV-cache pair's Concat (cache_concat.h). In the region, row r of outer
 * slice o (the dims before the axis) lies at (o * capacity + r) * row bytes, so a longer
 * cache never moves the rows already there. */
#include "cache_concat.h"

#include <stdio.h>

#include "../emit.h"

wg_status wgc_emit_cache_concat(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const wgc_cache_pair *p, int index)
{
    const wgc_tensor *y = wgc_out(g, n, 0), *x = wgc_in(g, n, 0), *add = wgc_in(g, n, 1);
    const int a = p->axis;
    const size_t es = wg_dtype_size(y->dtype);
    char outer[96], row[96], past[96], added[96], py[96], px[96], pa[96];
    snprintf(outer, sizeof outer, "%s", wgc_dims_expr(e, &y->shape, 0, a));
    snprintf(row, sizeof row, "%s", wgc_dims_expr(e, &y->shape, a + 1, y->shape.rank));
    snprintf(past, sizeof past, "%s", wgc_dims_expr(e, &x->shape, a, a + 1));
    snprintf(added, sizeof added, "%s", wgc_dims_expr(e, &add->shape, a, a + 1));
    snprintf(py, sizeof py, "%s", wgc_ptr(e, g, n->outputs[0]));
    snprintf(px, sizeof px, "%s", wgc_ptr(e, g, n->inputs[0]));
    snprintf(pa, sizeof pa, "%s", wgc_ptr(e, g, n->inputs[1]));
    wgc_emit(e,
             "{ /* KV-cache pair %d, '%s' -> '%s' (docs/abi.md \"Resident KV caches\") */\n"
             "const size_t outer = (size_t)%s, row = (size_t)%s * %zu, cap = %lld;\n"
             "const size_t past = (size_t)%s, add = (size_t)%s, total = past + add;\n"
             "char *py = (char *)%s, *reg = (char *)C(%lld);\n"
             "const int32_t mode = wg_cache_mode[%d];\n"
             "if (mode < 0 || mode > 2 || total > cap || (mode == 1 && past > (size_t)wg_cache_rows[%d]))\n"
             "    return WGK_ERR_CACHE;\n"
             "if (mode == 1) { /* resident: the past is in the region; the new rows go in after it */\n"
             "    wgk_copy_rows(reg + past * row, cap * row, %s, add * row, outer, add * row);\n"
             "    wgk_copy_rows(py, total * row, reg, cap * row, outer, total * row);\n"
             "} else {\n"
             "    wgk_copy_rows(py, total * row, %s, past * row, outer, past * row);\n"
             "    wgk_copy_rows(py + past * row, total * row, %s, add * row, outer, add * row);\n"
             "    if (mode == 2) /* load: the present into the region */\n"
             "        wgk_copy_rows(reg, cap * row, py, total * row, outer, total * row);\n"
             "}\n"
             "if (mode)\n"
             "    wg_cache_rows[%d] = (int32_t)total;\n"
             "}\n",
             index, x->name, y->name, outer, row, es, (long long)p->capacity, past, added, py, (long long)p->offset,
             index, index, pa, px, pa, index);
    return WG_OK;
}
