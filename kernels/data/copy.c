/*
 * copy.c: strided copy, transpose and row copy (see wgk_data.h).
 *
 * wgk_copy_strided merges output dims that are contiguous in x too, then walks the outer
 * dims with a multi-index; the innermost run is a memcpy when x is contiguous along it and
 * an element loop (typed by element size) otherwise.
 */
#include "wgk_data.h"

static void strided_run(char *y, const char *x, size_t esize, int32_t n, int32_t xs)
{
    if (xs == 1) {
        memcpy(y, x, (size_t)n * esize);
        return;
    }
    switch (esize) {
    case 4: {
        uint32_t *yy = (uint32_t *)(void *)y;
        const uint32_t *xx = (const uint32_t *)(const void *)x;
        for (int32_t i = 0; i < n; i++)
            yy[i] = xx[(ptrdiff_t)i * xs];
        break;
    }
    case 2: {
        uint16_t *yy = (uint16_t *)(void *)y;
        const uint16_t *xx = (const uint16_t *)(const void *)x;
        for (int32_t i = 0; i < n; i++)
            yy[i] = xx[(ptrdiff_t)i * xs];
        break;
    }
    case 1:
        for (int32_t i = 0; i < n; i++)
            y[i] = x[(ptrdiff_t)i * xs];
        break;
    case 8: {
        uint64_t *yy = (uint64_t *)(void *)y;
        const uint64_t *xx = (const uint64_t *)(const void *)x;
        for (int32_t i = 0; i < n; i++)
            yy[i] = xx[(ptrdiff_t)i * xs];
        break;
    }
    default:
        for (int32_t i = 0; i < n; i++)
            memcpy(y + (size_t)i * esize, x + (ptrdiff_t)i * xs * (ptrdiff_t)esize, esize);
        break;
    }
}

void wgk_copy_strided(void *WGK_RESTRICT y, const void *WGK_RESTRICT x, size_t esize, int rank,
                      const int32_t *dims, const int32_t *xs)
{
    int32_t d2[WGK_MAX_RANK], s2[WGK_MAX_RANK];
    int r = 0;
    for (int d = 0; d < rank; d++) {
        if (dims[d] == 0)
            return;
        if (dims[d] == 1)
            continue;
        if (r > 0 && s2[r - 1] == xs[d] * dims[d]) {
            d2[r - 1] *= dims[d];
            s2[r - 1] = xs[d];
            continue;
        }
        d2[r] = dims[d];
        s2[r] = xs[d];
        r++;
    }
    if (r == 0) {
        memcpy(y, x, esize);
        return;
    }
    int last = r - 1;
    int32_t n = d2[last];
    size_t outer = 1;
    for (int d = 0; d < last; d++)
        outer *= (size_t)d2[d];
    int32_t idx[WGK_MAX_RANK] = {0};
    ptrdiff_t off = 0;
    char *yp = y;
    const char *xp = x;
    for (size_t o = 0; o < outer; o++) {
        strided_run(yp + o * (size_t)n * esize, xp + off * (ptrdiff_t)esize, esize, n, s2[last]);
        for (int d = last - 1; d >= 0; d--) {
            off += s2[d];
            if (++idx[d] < d2[d])
                break;
            off -= (ptrdiff_t)s2[d] * d2[d];
            idx[d] = 0;
        }
    }
}

void wgk_transpose(void *WGK_RESTRICT y, const void *WGK_RESTRICT x, size_t esize, int rank,
                   const int32_t *x_dims, const int32_t *perm)
{
    int32_t xstr[WGK_MAX_RANK], dims[WGK_MAX_RANK], xs[WGK_MAX_RANK];
    int32_t st = 1;
    for (int d = rank - 1; d >= 0; d--) {
        xstr[d] = st;
        st *= x_dims[d];
    }
    for (int d = 0; d < rank; d++) {
        dims[d] = x_dims[perm[d]];
        xs[d] = xstr[perm[d]];
    }
    wgk_copy_strided(y, x, esize, rank, dims, xs);
}

void wgk_copy_rows(void *WGK_RESTRICT y, size_t ys, const void *WGK_RESTRICT x, size_t xs,
                   size_t rows, size_t row_bytes)
{
    char *yp = y;
    const char *xp = x;
    for (size_t r = 0; r < rows; r++)
        memcpy(yp + r * ys, xp + r * xs, row_bytes);
}
