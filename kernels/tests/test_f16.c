/*
 * test_f16.c: wgk_f16_widen against wgk_cvt_f16_to_f32 (the scalar conversion the
 * compiler's folding uses), bit for bit, on all 65536 halves (zeros, subnormals, normals,
 * infinities, every NaN payload), in the SIMD body and the scalar tail (lengths 1..17 at
 * offsets 0..7).
 */
#include "wgk_convert.h"
#include "wgk_f16.h"
#include "wgkt.h"

static uint16_t H[65536 + 32];
static float F[65536 + 32];

static int same_bits(float a, float b)
{
    return wgk__bits_f32(a) == wgk__bits_f32(b);
}

static void run(void)
{
    for (uint32_t i = 0; i < 65536; i++)
        H[i] = (uint16_t)i;
    wgk_f16_widen(H, F, 65536);
    int ok = 1;
    for (uint32_t i = 0; i < 65536; i++)
        ok &= same_bits(F[i], wgk_cvt_f16_to_f32((uint16_t)i));
    WGKT_CHECK(ok, "all 65536 halves widen bit for bit");
    for (int off = 0; off < 8; off++)
        for (int n = 1; n <= 17; n++) {
            for (int i = 0; i < n + 1; i++)
                F[i] = -1.0f;
            for (int i = 0; i < n; i++)
                H[off + i] = (uint16_t)(0x3c00 + 977 * (off + i)); /* 1.0 and on */
            wgk_f16_widen(H + off, F, (size_t)n);
            int good = F[n] == -1.0f; /* nothing written past n */
            for (int i = 0; i < n; i++)
                good &= same_bits(F[i], wgk_cvt_f16_to_f32(H[off + i]));
            WGKT_CHECK(good, "short and offset runs widen exactly, nothing past the end");
        }
}

WGKT_MAIN("f16", run)
