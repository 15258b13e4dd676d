/* gather.c: wgk_gather and the gathers of a table from a GEMM's packed panels (q8, f32, f16; see
 * wgk_data.h). */
#include "wgk_data.h"
#include "wgk_f16.h"
#include "wgk_pack.h"

/* Index j of idx (int32 or int64 elements), counted from the end when negative: -1 when it
 * is out of [0, dim). */
static int64_t index_at(const void *idx, int idx_size, size_t j, size_t dim)
{
    int64_t v;
    if (idx_size == 8) {
        memcpy(&v, (const char *)idx + j * 8, 8);
    } else {
        int32_t v32;
        memcpy(&v32, (const char *)idx + j * 4, 4);
        v = v32;
    }
    if (v < 0)
        v += (int64_t)dim;
    return v < 0 || v >= (int64_t)dim ? -1 : v;
}

int wgk_gather(void *WGK_RESTRICT y, const void *WGK_RESTRICT x, const void *idx, int idx_size,
               size_t n_idx, size_t outer, size_t axis_dim, size_t inner_bytes)
{
    int status = 0;
    char *yp = y;
    const char *xp = x;
    for (size_t o = 0; o < outer; o++) {
        const char *base = xp + o * axis_dim * inner_bytes;
        for (size_t j = 0; j < n_idx; j++, yp += inner_bytes) {
            const int64_t v = index_at(idx, idx_size, j, axis_dim);
            if (v < 0) {
                memset(yp, 0, inner_bytes);
                status = WGK_ERR_INDEX;
                continue;
            }
            memcpy(yp, base + (size_t)v * inner_bytes, inner_bytes);
        }
    }
    return status;
}

int wgk_gather_q8_panels(uint8_t *WGK_RESTRICT y, const int8_t *WGK_RESTRICT panels, int is_signed, int shared,
                         const void *idx, int idx_size, size_t n_idx, size_t K, size_t N)
{
    const size_t size = wgk_pack_b_q8_stride(K, shared);
    const uint8_t flip = is_signed ? 0 : 0x80; /* uint8 is stored as q - 128 */
    int status = 0;
    for (size_t j = 0; j < n_idx; j++, y += K) {
        const int64_t v = index_at(idx, idx_size, j, N);
        if (v < 0) {
            memset(y, 0, K);
            status = WGK_ERR_INDEX;
            continue;
        }
        const uint8_t *c = (const uint8_t *)panels + (size_t)v / WGK_GEMM_NR * size + WGK_GEMM_Q8_HEAD +
                           (size_t)v % WGK_GEMM_NR;
        for (size_t k = 0; k < K; k++)
            y[k] = c[k * WGK_GEMM_NR] ^ flip;
    }
    return status;
}

/* Rows idx[j] of a table [N][K] held as the columns of packed panels of B [K][N], K x NR
 * float32 values, or halves (GEMM_B_F16) widened back to the table's values. */
static inline int gather_panel_columns(float *WGK_RESTRICT y, const void *WGK_RESTRICT panels, int halves,
                                       const void *idx, int idx_size, size_t n_idx, size_t K, size_t N)
{
    int status = 0;
    for (size_t j = 0; j < n_idx; j++, y += K) {
        const int64_t v = index_at(idx, idx_size, j, N);
        if (v < 0) {
            memset(y, 0, K * sizeof *y);
            status = WGK_ERR_INDEX;
            continue;
        }
        const size_t c = (size_t)v / WGK_GEMM_NR * K * WGK_GEMM_NR + (size_t)v % WGK_GEMM_NR;
        for (size_t k = 0; k < K; k++)
            y[k] = halves ? wgk_f16_weight(((const uint16_t *)panels)[c + k * WGK_GEMM_NR])
                          : ((const float *)panels)[c + k * WGK_GEMM_NR];
    }
    return status;
}

int wgk_gather_f32_panels(float *WGK_RESTRICT y, const float *WGK_RESTRICT panels, const void *idx, int idx_size,
                          size_t n_idx, size_t K, size_t N)
{
    return gather_panel_columns(y, panels, 0, idx, idx_size, n_idx, K, N);
}

int wgk_gather_f16_panels(float *WGK_RESTRICT y, const uint16_t *WGK_RESTRICT panels, const void *idx, int idx_size,
                          size_t n_idx, size_t K, size_t N)
{
    return gather_panel_columns(y, panels, 1, idx, idx_size, n_idx, K, N);
}
