/*
 * pad.c: wgk_pad (constant, reflect, edge; negative pads crop). Each output row (last dim)
 * maps to one input row through the outer indices; a row that falls in a constant border
 * is filled with the value, otherwise its interior is one memcpy and its borders are
 * mapped element by element.
 */
#include "wgk_data.h"

/* Input index for output-relative index i (already shifted by -begin) in a dim of size n,
 * or -1 for the constant border. */
static int32_t map_index(int32_t i, int32_t n, int mode)
{
    if (i >= 0 && i < n)
        return i;
    if (mode == WGK_PAD_CONSTANT || n == 0)
        return -1;
    if (mode == WGK_PAD_EDGE)
        return i < 0 ? 0 : n - 1;
    if (n == 1)
        return 0;
    while (i < 0 || i >= n) /* reflect (without repeating the edge) */
        i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

static void fill(char *y, const void *value, size_t esize, int32_t count)
{
    for (int32_t i = 0; i < count; i++)
        memcpy(y + (size_t)i * esize, value, esize);
}

void wgk_pad(void *WGK_RESTRICT y, const void *WGK_RESTRICT x, size_t esize, int rank,
             const int32_t *x_dims, const int32_t *begin, const int32_t *end, int mode,
             const void *value)
{
    if (rank == 0) {
        memcpy(y, x, esize);
        return;
    }
    int32_t ydims[WGK_MAX_RANK], xstr[WGK_MAX_RANK];
    int32_t st = 1;
    for (int d = rank - 1; d >= 0; d--) {
        ydims[d] = x_dims[d] + begin[d] + end[d];
        xstr[d] = st;
        st *= x_dims[d];
        if (ydims[d] <= 0)
            return;
    }
    int last = rank - 1;
    int32_t n = ydims[last], nx = x_dims[last], b = begin[last];
    /* Interior of a row: output positions [lo, hi) read x positions [lo - b, hi - b). */
    int32_t lo = b > 0 ? b : 0, hi = b + nx < n ? b + nx : n;
    size_t outer = 1;
    for (int d = 0; d < last; d++)
        outer *= (size_t)ydims[d];
    int32_t idx[WGK_MAX_RANK] = {0};
    char *yp = y;
    const char *xp = x;
    for (size_t o = 0; o < outer; o++, yp += (size_t)n * esize) {
        ptrdiff_t off = 0;
        int border = 0;
        for (int d = 0; d < last && !border; d++) {
            int32_t src = map_index(idx[d] - begin[d], x_dims[d], mode);
            if (src < 0)
                border = 1;
            else
                off += (ptrdiff_t)src * xstr[d];
        }
        if (border) {
            fill(yp, value, esize, n);
        } else {
            const char *row = xp + off * (ptrdiff_t)esize;
            for (int32_t i = 0; i < lo && i < n; i++) {
                int32_t s = map_index(i - b, nx, mode);
                if (s < 0)
                    memcpy(yp + (size_t)i * esize, value, esize);
                else
                    memcpy(yp + (size_t)i * esize, row + (size_t)s * esize, esize);
            }
            if (hi > lo)
                memcpy(yp + (size_t)lo * esize, row + (size_t)(lo - b) * esize,
                       (size_t)(hi - lo) * esize);
            for (int32_t i = hi > lo ? hi : lo; i < n; i++) {
                int32_t s = map_index(i - b, nx, mode);
                if (s < 0)
                    memcpy(yp + (size_t)i * esize, value, esize);
                else
                    memcpy(yp + (size_t)i * esize, row + (size_t)s * esize, esize);
            }
        }
        for (int d = last - 1; d >= 0; d--) {
            if (++idx[d] < ydims[d])
                break;
            idx[d] = 0;
        }
    }
}
