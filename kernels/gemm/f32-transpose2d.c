/* f32-transpose2d.c: 2-D transpose for operands that must be row-major at run time. */
#include "wgk_gemm.h"

void wgk_f32_transpose2d(const float *src, float *dst, int rows, int cols)
{
    /* 8x8 blocks keep both the reads and the writes within a few cache lines. */
    for (int r0 = 0; r0 < rows; r0 += 8)
        for (int c0 = 0; c0 < cols; c0 += 8) {
            int r1 = r0 + 8 < rows ? r0 + 8 : rows, c1 = c0 + 8 < cols ? c0 + 8 : cols;
            for (int r = r0; r < r1; r++)
                for (int c = c0; c < c1; c++)
                    dst[(ptrdiff_t)c * rows + r] = src[(ptrdiff_t)r * cols + c];
        }
}
