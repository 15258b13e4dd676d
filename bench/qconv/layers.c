/*
 * layers.c: the int8 convolution kernels timed alone on wasmtime (bench/qconv/run): a
 * module with every kernel source whose exports set up one layer of a fixed list with
 * seeded operands (its filters transformed or packed as the module would) and run its
 * kernel n times; and the int8 instruction ceiling, the chains of bench/peak/peak.c's
 * peak_dot.
 */
#include "wgk_qgemm.h"
#include "wgk_qwinograd.h"

typedef struct layer {
    const char *name;
    int C, M, H, W, d; /* 3x3, pad = dilation; H, W: the output's */
    int s;             /* stride 1 or 2 (then undilated) */
} layer;

/* U^2-Net / ISNet's shapes (1024x1024 input: stages at 256 .. 8), ResNet-18's; the
 * stride-2 ones run on wgk_q8_conv2d_winograd_f2x3s2. */
static const layer layers[] = {
    {"isnet 64->32 256x256", 64, 32, 256, 256, 1, 1},    {"isnet 32->32 128x128", 32, 32, 128, 128, 1, 1},
    {"isnet 64->64 128x128", 64, 64, 128, 128, 1, 1},    {"isnet 128->64 64x64", 128, 64, 64, 64, 1, 1},
    {"isnet 256->128 32x32", 256, 128, 32, 32, 1, 1},    {"isnet 512->256 16x16 d2", 512, 256, 16, 16, 2, 1},
    {"isnet 256->256 16x16 d8", 256, 256, 16, 16, 8, 1}, {"isnet 1024->512 16x16", 1024, 512, 16, 16, 1, 1},
    {"isnet 512->256 8x8 d4", 512, 256, 8, 8, 4, 1},     {"isnet side 64->1 256x256", 64, 1, 256, 256, 1, 1},
    {"3->64 256x256", 3, 64, 256, 256, 1, 1},            {"3->64 s2 to 256x256", 3, 64, 256, 256, 1, 2},
    {"resnet18 64->64 56x56", 64, 64, 56, 56, 1, 1},     {"resnet18 128->128 28x28", 128, 128, 28, 28, 1, 1},
    {"resnet18 256->256 14x14", 256, 256, 14, 14, 1, 1}, {"resnet18 512->512 7x7", 512, 512, 7, 7, 1, 1},
    {"resnet18 64->128 s2 to 28x28", 64, 128, 28, 28, 1, 2},
    {"resnet18 128->256 s2 to 14", 128, 256, 14, 14, 1, 2},
    {"resnet18 256->512 s2 to 7x7", 256, 512, 7, 7, 1, 2},
};

#define NLAYERS ((int)(sizeof layers / sizeof layers[0]))
static uint8_t X[4 << 20], WT[1024 * 512 * 9], ZX = 128;
static int32_t U[16 * 1024 * 512 / 2 + 64], Y[4 << 20];
static int8_t PW[1024 * 9 * 512 + 512 / 8 * 32 + 4096];
static uint8_t SCRATCH[16 << 20];
static int cur, kernel; /* kernel 0: Winograd, 1: im2col GEMM */

__attribute__((export_name("layers"))) int nlayers(void) { return NLAYERS; }

/* The name of layer i (a NUL-terminated string in memory). */
__attribute__((export_name("layer_name"))) int layer_name(int i) { return (int)(uintptr_t)layers[i].name; }

/* Direct multiply-adds of layer i (9 per output and channel pair), in thousands. */
__attribute__((export_name("layer_kmacs"))) int layer_kmacs(int i)
{
    const layer *l = &layers[i];
    return (int)((long long)l->C * l->M * 9 * l->H * l->W / 1000);
}

/* Multiply-adds the Winograd kernel does for layer i (16 or, stride 2, 25 per tile and
 * pair), in thousands. */
__attribute__((export_name("layer_wino_kmacs"))) int layer_wino_kmacs(int i)
{
    const layer *l = &layers[i];
    return (int)((long long)l->C * l->M * (l->s == 2 ? 25 : 16) * wgk_q8_winograd_tiles(l->H, l->W, l->d, l->d) /
                 1000);
}

__attribute__((export_name("setup"))) int setup(int i, int k)
{
    const layer *l = &layers[i];
    uint32_t s = 12345;
    cur = i;
    kernel = k;
    for (long j = 0; j < (long)l->C * l->H * l->W * l->s * l->s; j++)
        X[j] = (uint8_t)((s = s * 1664525u + 1013904223u) >> 24);
    for (long j = 0; j < (long)l->M * l->C * 9; j++)
        WT[j] = (uint8_t)((s = s * 1664525u + 1013904223u) >> 24);
    if (k == 0 && l->s == 2) {
        wgk_q8_winograd_f2x3s2_prepare_w(WT, 3, 0, 0, l->M, l->C, U);
        return wgk_q8_winograd_f2x3s2_scratch_size(l->C, l->H, l->W) <= sizeof SCRATCH;
    }
    if (k == 0) {
        wgk_q8_winograd_f2x3_prepare_w(WT, 3, 0, 0, l->M, l->C, U);
        return wgk_q8_winograd_f2x3_scratch_size(l->C, l->H, l->W, l->d, l->d) <= sizeof SCRATCH;
    }
    wgk_qconv_pack_w(WT, 3, 0, 0, (size_t)l->M, (size_t)l->C * 9, PW);
    return wgk_qconv_scratch_size((size_t)l->C * 9, (size_t)l->M) <= sizeof SCRATCH;
}

__attribute__((export_name("run"))) int run(int n)
{
    const layer *l = &layers[cur];
    const wgk_q8_winograd_args wa = {.N = 1, .C = l->C, .H = l->H * l->s, .W = l->W * l->s, .M = l->M, .OH = l->H,
                                     .OW = l->W, .DH = l->d, .DW = l->d, .PT = l->d, .PL = l->d, .x = X, .xdt = 2,
                                     .xz = &ZX, .u = U, .y = Y, .scratch = SCRATCH};
    for (int r = 0; r < n; r++) {
        if (kernel == 0 && l->s == 2)
            wgk_q8_conv2d_winograd_f2x3s2(&wa);
        else if (kernel == 0)
            wgk_q8_conv2d_winograd_f2x3(&wa);
        else
            wgk_q8_conv(&(wgk_q8_conv_args){1, l->C, l->M, {1, l->H * l->s, l->W * l->s}, {1, l->H, l->W}, {1, 3, 3},
                                             {1, l->s, l->s}, {1, l->d, l->d}, {0, l->d, l->d}, X, 2, &ZX, PW, 0, Y,
                                             {0}, SCRATCH});
    }
    return Y[0];
}

/* bench/peak/peak.c's peak_dot: 12 chains of x = x + dot(x, b), 8 multiply-adds each. */
__attribute__((export_name("peak_dot"))) int peak_dot(int iters)
{
#ifdef __wasm_simd128__
    const v128_t a = wasm_i32x4_splat(iters), b = wasm_i32x4_splat(1);
    v128_t x[12];
    for (int j = 0; j < 12; j++)
        x[j] = a;
    for (int i = 0; i < iters; i++)
        for (int j = 0; j < 12; j++)
            x[j] = wasm_i32x4_add(x[j], wasm_i32x4_dot_i16x8(x[j], b));
    v128_t s = x[0];
    for (int j = 1; j < 12; j++)
        s = wasm_i32x4_add(s, x[j]);
    return wasm_i32x4_extract_lane(s, 0);
#else
    return iters;
#endif
}
