/* gather.c: wgk_gather (see wgk_data.h). */
#include "wgk_data.h"

int wgk_gather(void *WGK_RESTRICT y, const void *WGK_RESTRICT x, const void *idx, int idx_size,
               size_t n_idx, size_t outer, size_t axis_dim, size_t inner_bytes)
{
    int status = 0;
    char *yp = y;
    const char *xp = x;
    for (size_t o = 0; o < outer; o++) {
        const char *base = xp + o * axis_dim * inner_bytes;
        for (size_t j = 0; j < n_idx; j++, yp += inner_bytes) {
            int64_t v;
            if (idx_size == 8) {
                memcpy(&v, (const char *)idx + j * 8, 8);
            } else {
                int32_t v32;
                memcpy(&v32, (const char *)idx + j * 4, 4);
                v = v32;
            }
            if (v < 0)
                v += (int64_t)axis_dim;
            if (v < 0 || v >= (int64_t)axis_dim) {
                memset(yp, 0, inner_bytes);
                status = WGK_ERR_INDEX;
                continue;
            }
            memcpy(yp, base + (size_t)v * inner_bytes, inner_bytes);
        }
    }
    return status;
}
