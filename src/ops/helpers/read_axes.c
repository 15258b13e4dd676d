/* read_axes.c: see read_axes.h. */
#include "read_axes.h"

#include "host_elements.h"

wg_status wgc_read_axes(wgc_graph *g, const wgc_node *n, int input, int rank, int *axes,
                        int *count)
{
    int64_t raw[WG_MAX_RANK];
    size_t cnt = 0;
    const wgc_tensor *t = input >= 0 ? wgc_in(g, n, input) : NULL;
    if (t) {
        if (!t->has_shape || (t->dtype != WG_DT_INT64 && t->dtype != WG_DT_INT32))
            return wgc_error(g, n, WG_ERR_INVALID, "axes input '%s' must be int64", t->name);
        if (!t->data)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "axes input '%s' is computed at run time; only constant axes are "
                             "supported",
                             t->name);
        int64_t m = wgc_numel(&t->shape);
        if (m > WG_MAX_RANK)
            return wgc_error(g, n, WG_ERR_INVALID, "%lld axes for rank %d", (long long)m, rank);
        cnt = (size_t)m;
        for (size_t i = 0; i < cnt; i++)
            raw[i] = wgc_const_int(t, (int64_t)i);
    } else {
        const int64_t *v = wgc_attr_ints(n, "axes", &cnt);
        if (!v) {
            *count = -1;
            return WG_OK;
        }
        if (cnt > WG_MAX_RANK)
            return wgc_error(g, n, WG_ERR_INVALID, "%zu axes for rank %d", cnt, rank);
        for (size_t i = 0; i < cnt; i++)
            raw[i] = v[i];
    }
    for (size_t i = 0; i < cnt; i++) {
        if (!wgc_norm_axis(raw[i], rank, &axes[i]))
            return wgc_error(g, n, WG_ERR_INVALID, "axis %lld is out of range for rank %d",
                             (long long)raw[i], rank);
        for (size_t j = 0; j < i; j++)
            if (axes[j] == axes[i])
                return wgc_error(g, n, WG_ERR_INVALID, "axis %d is repeated", axes[i]);
    }
    *count = (int)cnt;
    return WG_OK;
}

int64_t wgc_softmax_axis_default(const wgc_node *n)
{
    return n->opset < 13 ? 1 : -1;
}

int64_t wgc_softmax_axis(const wgc_node *n, bool *block)
{
    *block = n->opset < 13;
    return wgc_attr_int(n, "axis", wgc_softmax_axis_default(n));
}

wg_status wgc_axis_view(wgc_graph *g, const wgc_node *n, const wgc_shape *s, int64_t axis, bool block,
                        bool end_ok, int64_t *outer, int64_t *len, int64_t *inner)
{
    const int rank = s->rank;
    if (axis < -rank || axis > rank - (end_ok ? 0 : 1))
        return wgc_error(g, n, WG_ERR_INVALID, "axis %lld is out of range for rank %d", (long long)axis, rank);
    if (axis < 0)
        axis += rank;
    *outer = *len = *inner = 1;
    for (int d = 0; d < rank; d++) {
        if (d < axis)
            *outer *= s->dims[d];
        else if (block || d == axis)
            *len *= s->dims[d];
        else
            *inner *= s->dims[d];
    }
    return WG_OK;
}
