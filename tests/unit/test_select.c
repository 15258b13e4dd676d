/*
 * test_select.c: graph in, decisions out for the kernel-selection step (src/select/).
 *
 * Checks: a table of Conv layer shapes (kernel size, stride, channels, groups, output
 * size, constant or run-time weight, SIMD or scalar target) against the kernel each must
 * get, so that a change of policy shows up as a change of this table; Gemm and MatMul get
 * the packed-B kernel exactly when B is a constant they can read in panels; Winograd
 * convs whose filters the transform would cost the first run more than the direct conv
 * get a direct first-run kernel; a model whose transformed Winograd filters exceed
 * WGC_WINOGRAD_KEEP_LIMIT transforms them on every run into its scratch (and one just
 * under it keeps them); ConvTranspose gets its store form (split among threads) exactly
 * when every output pixel gets one tap; ConvInteger and QLinearConv layers get the int8
 * kernel of their shape, and int8 Winograd filters beyond the budget left by the float
 * ones are transformed on every run, the layers with the most tiles first; MatMulInteger
 * gets the int8 GEMM exactly when its B and B's zero point are constants; every kernel
 * of src/ir/kernels.def appears in
 * the table of docs/performance.md with its C symbol, and every row of that table names
 * a kernel of the list.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/include/wgk_gemm.h"
#include "../../src/ir/kernels.h"
#include "../../src/passes/passes.h"
#include "../../src/select/select.h"
#include "../../src/select/tunables.h"
#include "../test.h"
#include "graph_build.h"

static int constant(wgc_graph *g, const char *name, int rank, const int64_t *dims)
{
    int t = wgc_tensor_add(g, name);
    wgc_shape s = {.rank = rank};
    for (int d = 0; d < rank; d++)
        s.dims[d] = dims[d];
    float *v = calloc((size_t)wgc_numel(&s), sizeof(float));
    wgc_tensor_set_const(g, t, WG_DT_FLOAT, &s, v);
    return t;
}

static void ints_attr(wgc_graph *g, int n, const char *name, int count, int64_t v)
{
    wgc_attr *a = wgc_attr_add(g, n, name, WGC_ATTR_INTS);
    a->ints = malloc(sizeof(int64_t) * (size_t)count);
    a->n = (size_t)count;
    for (int i = 0; i < count; i++)
        a->ints[i] = v;
}

/* One Conv layer: rank spatial dims of size `in`, k^rank filters. */
typedef struct layer {
    const char *what;
    int rank;
    int64_t C, M, in, k, stride, pad, dilation, groups;
    bool wconst, simd;
    wgc_kernel want, want_gemm;
} layer;

/* The last node added (a convolution): every spatial dim's stride, pads and dilation, and
 * its group count; returns its index. */
static int conv_attrs(wgc_graph *g, int rank, int64_t stride, int64_t pad, int64_t dilation, int64_t groups)
{
    const int n = g->n_nodes - 1;
    ints_attr(g, n, "strides", rank, stride);
    ints_attr(g, n, "pads", 2 * rank, pad);
    ints_attr(g, n, "dilations", rank, dilation);
    wgc_attr_add(g, n, "group", WGC_ATTR_INT)->i = groups;
    return n;
}

/* Adds x -> Conv to g (several layers may share one graph); returns the Conv's index. */
static int add_conv(wgc_graph *g, const layer *l, int idx)
{
    char xn[32], wn[32], yn[32];
    snprintf(xn, sizeof xn, "x%d", idx);
    snprintf(wn, sizeof wn, "w%d", idx);
    snprintf(yn, sizeof yn, "y%d", idx);
    int64_t xd[5] = {1, l->C}, wd[5] = {l->M, l->C / l->groups};
    for (int i = 0; i < l->rank; i++) {
        xd[2 + i] = l->in;
        wd[2 + i] = l->k;
    }
    int in[2] = {tg_input(g, xn, WG_DT_FLOAT, l->rank + 2, xd), 0};
    in[1] = l->wconst ? constant(g, wn, l->rank + 2, wd)
                      : tg_input(g, wn, WG_DT_FLOAT, l->rank + 2, wd);
    tg_output(g, tg_node(g, "Conv", in, 2, yn));
    return conv_attrs(g, l->rank, l->stride, l->pad, l->dilation, l->groups);
}

static const char *label(wgc_kernel k)
{
    return k ? wgc_kernel_label(k) : "(none)";
}

/* Infers and selects the kernels of g (SIMD or scalar builds) and checks that node n got
 * kernel want (`what` names the case); node n's impl, for the checks that follow. */
static const wgc_impl *select_expect(wgc_graph *g, bool simd, int n, const char *what, wgc_kernel want)
{
    wgc_pass_options o = {.simd = simd};
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s: %s", what, g->err);
    CHECK(wgc_pass_select_kernels(g, &o) == WG_OK, "%s: %s", what, g->err);
    const wgc_impl *im = &g->nodes[n].impl;
    CHECK(im->kernel == want, "%s: got %s, want %s", what, label(im->kernel), label(want));
    return im;
}

/* The policy, one layer per row: name, rank, C, M, input size, k, stride, pad, dilation,
 * groups, constant weight, SIMD, the kernel, the GEMM it calls. */
static const layer layers[] = {
    {"depthwise 3x3 (SIMD)", 2, 32, 32, 28, 3, 1, 1, 1, 32, true, true, WGC_KERNEL_CONV2D_DW_PADDED, 0},
    {"depthwise 5x5 stride 2 (SIMD)", 2, 32, 32, 28, 5, 2, 2, 1, 32, true, true, WGC_KERNEL_CONV2D_DW_PADDED, 0},
    {"depthwise 3x3 (scalar)", 2, 32, 32, 28, 3, 1, 1, 1, 32, true, false, WGC_KERNEL_CONV2D_DW, 0},
    {"depthwise 7x7 (SIMD: ConvNeXt)", 2, 32, 32, 28, 7, 1, 3, 1, 32, true, true, WGC_KERNEL_CONV2D_DW_PADDED, 0},
    {"depthwise 3x3 dilated (SIMD)", 2, 32, 32, 28, 3, 1, 2, 2, 32, true, true, WGC_KERNEL_CONV2D_DW, 0},
    {"run-time weight 1x1 (SIMD)", 2, 64, 64, 28, 1, 1, 0, 1, 1, false, true, WGC_KERNEL_CONV2D_1X1,
     WGC_KERNEL_GEMM_4X8},
    {"run-time weight 1x1 (scalar)", 2, 64, 64, 28, 1, 1, 0, 1, 1, false, false, WGC_KERNEL_CONV2D_1X1,
     WGC_KERNEL_GEMM_4X4},
    {"run-time weight 3x3", 2, 64, 64, 28, 3, 1, 1, 1, 1, false, true, WGC_KERNEL_CONV2D_IM2COL,
     WGC_KERNEL_GEMM_4X8},
    {"run-time weight 1x1 padded", 2, 64, 64, 28, 1, 1, 1, 1, 1, false, true, WGC_KERNEL_CONV2D_IM2COL,
     WGC_KERNEL_GEMM_4X8},
    {"3x3 64->64 on 56x56", 2, 64, 64, 56, 3, 1, 1, 1, 1, true, true, WGC_KERNEL_CONV2D_WINOGRAD_F4X3, 0},
    {"3x3 64->64 on 56x56 (scalar)", 2, 64, 64, 56, 3, 1, 1, 1, 1, true, false, WGC_KERNEL_CONV2D_WINOGRAD_F4X3, 0},
    {"3x3 256->256 on 14x14", 2, 256, 256, 14, 3, 1, 1, 1, 1, true, true, WGC_KERNEL_CONV2D_WINOGRAD_F4X3, 0},
    {"3x3 64->64 on 7x7 (4 F(4x4) tiles)", 2, 64, 64, 7, 3, 1, 1, 1, 1, true, true,
     WGC_KERNEL_CONV2D_WINOGRAD_F2X3, 0},
    {"3x3 512->512 on 7x7", 2, 512, 512, 7, 3, 1, 1, 1, 1, true, true, WGC_KERNEL_CONV2D_WINOGRAD_F2X3, 0},
    {"3x3 with 8 input channels", 2, 8, 64, 56, 3, 1, 1, 1, 1, true, true, WGC_KERNEL_CONV2D_PACKED, 0},
    {"3x3 with 8 output channels", 2, 64, 8, 56, 3, 1, 1, 1, 1, true, true, WGC_KERNEL_CONV2D_PACKED, 0},
    {"3x3 dilated", 2, 64, 64, 56, 3, 1, 2, 2, 1, true, true, WGC_KERNEL_CONV2D_PACKED, 0},
    {"3x3 two groups of 32 on 27x27", 2, 64, 64, 27, 3, 1, 1, 1, 2, true, true, WGC_KERNEL_CONV2D_WINOGRAD_F4X3, 0},
    {"3x3 two groups of 8", 2, 16, 16, 27, 3, 1, 1, 1, 2, true, true, WGC_KERNEL_CONV2D_PACKED, 0},
    {"5x5 32->32 on 27x27", 2, 32, 32, 27, 5, 1, 2, 1, 1, true, true, WGC_KERNEL_CONV2D_WINOGRAD_F2X5, 0},
    {"5x5 stride 2", 2, 32, 32, 27, 5, 2, 2, 1, 1, true, true, WGC_KERNEL_CONV2D_PACKED, 0},
    {"3x3 stride 2 to 28x28", 2, 64, 64, 56, 3, 2, 1, 1, 1, true, true, WGC_KERNEL_CONV2D_WINOGRAD_S2, 0},
    {"3x3 stride 2 to 14x14", 2, 256, 256, 28, 3, 2, 1, 1, 1, true, true, WGC_KERNEL_CONV2D_WINOGRAD_S2, 0},
    {"3x3 stride 2 to 7x7, 64->64 (few pixels)", 2, 64, 64, 14, 3, 2, 1, 1, 1, true, true,
     WGC_KERNEL_CONV2D_FEWPIX, 0},
    {"3x3 stride 2 to 7x7, 64->32", 2, 64, 32, 14, 3, 2, 1, 1, 1, true, true, WGC_KERNEL_CONV2D_PACKED, 0},
    {"7x7 stride 2, 3->64 on 224x224", 2, 3, 64, 224, 7, 2, 3, 1, 1, true, true, WGC_KERNEL_CONV2D_PHASES, 0},
    {"7x7 stride 2, 3->8", 2, 3, 8, 224, 7, 2, 3, 1, 1, true, true, WGC_KERNEL_CONV2D_PACKED, 0},
    {"7x7 stride 2 to 5x5", 2, 3, 64, 10, 7, 2, 3, 1, 1, true, true, WGC_KERNEL_CONV2D_PACKED, 0},
    {"8x8 stride 2", 2, 16, 32, 64, 8, 2, 3, 1, 1, true, true, WGC_KERNEL_CONV2D_PHASES, 0},
    {"1x1 256->64 on 56x56", 2, 256, 64, 56, 1, 1, 0, 1, 1, true, true, WGC_KERNEL_CONV2D_STRASSEN, 0},
    {"1x1 512->1024 stride 2 on 28x28", 2, 512, 1024, 28, 1, 2, 0, 1, 1, true, true, WGC_KERNEL_CONV2D_STRASSEN, 0},
    {"1x1 64->256 on 56x56 (short reductions)", 2, 64, 256, 56, 1, 1, 0, 1, 1, true, true, WGC_KERNEL_CONV2D_PACKED,
     0},
    {"1x1 256->32 on 56x56", 2, 256, 32, 56, 1, 1, 0, 1, 1, true, true, WGC_KERNEL_CONV2D_PACKED, 0},
    {"1x1 256->68 (M not a multiple of 8)", 2, 256, 68, 56, 1, 1, 0, 1, 1, true, true, WGC_KERNEL_CONV2D_PACKED, 0},
    {"1x1 512->2048 on 7x7", 2, 512, 2048, 7, 1, 1, 0, 1, 1, true, true, WGC_KERNEL_CONV2D_FEWPIX, 0},
    {"1x1 512->64 on 4x4", 2, 512, 64, 4, 1, 1, 0, 1, 1, true, true, WGC_KERNEL_CONV2D_FEWPIX, 0},
    {"1x1 512->64 on 3x3 (9 pixels)", 2, 512, 64, 3, 1, 1, 0, 1, 1, true, true, WGC_KERNEL_CONV2D_PACKED, 0},
    {"1x1 128->64 on 7x7 (K = 128)", 2, 128, 64, 7, 1, 1, 0, 1, 1, true, true, WGC_KERNEL_CONV2D_PACKED, 0},
    {"1-D k3 64->64", 1, 64, 64, 100, 3, 1, 1, 1, 1, true, true, WGC_KERNEL_CONV2D_PACKED, 0},
    {"1-D k1 256->64", 1, 256, 64, 200, 1, 1, 0, 1, 1, true, true, WGC_KERNEL_CONV2D_PACKED, 0},
    {"3-D 3x3x3", 3, 8, 8, 8, 3, 1, 1, 1, 1, true, true, WGC_KERNEL_CONV3D_DIRECT, 0},
};

TEST(conv_layers_get_their_kernels)
{
    for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) {
        const layer *l = &layers[i];
        wgc_graph *g = wgc_graph_new();
        const int n = add_conv(g, l, 0);
        const wgc_impl *im = select_expect(g, l->simd, n, l->what, l->want);
        CHECK(im->gemm == l->want_gemm, "%s: calls %s, want %s", l->what, label(im->gemm), label(l->want_gemm));
        const wgc_kernel_info *k = wgc_kernel_get(im->kernel);
        if (k) {
            const wgc_prep want = k->prepare ? WGC_PREP_ONCE : k->pack != WGC_PACK_ONNX ? WGC_PREP_COMPILE
                                                                                       : WGC_PREP_NONE;
            CHECK(im->prep == want, "%s: weights prepared %d, want %d", l->what, im->prep, want);
            CHECK(!wgc_kernel_has_scratch(im->kernel) || im->scratch > 0, "%s: %s without scratch", l->what,
                  k->label);
        }
        wgc_graph_free(g);
    }
}

/* Winograd layers whose transform costs the first run more than the multiplies it saves
 * run direct first (ResNet's 7x7 stage, on the few-pixel kernel), the others not. */
TEST(first_run_direct_where_the_transform_costs_more)
{
    static const struct {
        layer l;
        wgc_kernel first;
    } rows[] = {
        {{"3x3 512->512 on 7x7", 2, 512, 512, 7, 3, 1, 1, 1, 1, true, true, WGC_KERNEL_CONV2D_WINOGRAD_F2X3, 0},
         WGC_KERNEL_CONV2D_FEWPIX},
        {{"3x3 32->32 on 7x7", 2, 32, 32, 7, 3, 1, 1, 1, 1, true, true, WGC_KERNEL_CONV2D_WINOGRAD_F2X3, 0},
         WGC_KERNEL_CONV2D_PACKED},
        {{"3x3 256->256 stride 2 to 14x14", 2, 256, 256, 28, 3, 2, 1, 1, 1, true, true,
          WGC_KERNEL_CONV2D_WINOGRAD_S2, 0},
         WGC_KERNEL_CONV2D_PACKED},
        {{"3x3 256->256 on 14x14", 2, 256, 256, 14, 3, 1, 1, 1, 1, true, true, WGC_KERNEL_CONV2D_WINOGRAD_F4X3, 0},
         WGC_KERNEL_NONE},
        {{"3x3 64->64 on 56x56", 2, 64, 64, 56, 3, 1, 1, 1, 1, true, true, WGC_KERNEL_CONV2D_WINOGRAD_F4X3, 0},
         WGC_KERNEL_NONE},
        {{"7x7 stride 2 phases", 2, 3, 64, 224, 7, 2, 3, 1, 1, true, true, WGC_KERNEL_CONV2D_PHASES, 0},
         WGC_KERNEL_NONE},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const layer *l = &rows[i].l;
        wgc_graph *g = wgc_graph_new();
        const int n = add_conv(g, l, 0);
        const wgc_impl *im = select_expect(g, true, n, l->what, l->want);
        CHECK(im->first_run == rows[i].first, "%s: first run %s, want %s", l->what, label(im->first_run),
              label(rows[i].first));
        wgc_graph_free(g);
    }
}

/* n 512->512 3x3 layers on 14x14 (F(4x4,3x3), ~37.7 MB of transformed filters each):
 * three stay under WGC_WINOGRAD_KEEP_LIMIT, four do not. */
static void budget_case(int layers_n, wgc_prep want)
{
    const layer l = {"budget", 2, 512, 512, 14, 3, 1, 1, 1, 1, true, true, WGC_KERNEL_CONV2D_WINOGRAD_F4X3, 0};
    wgc_graph *g = wgc_graph_new();
    for (int i = 0; i < layers_n; i++)
        add_conv(g, &l, i);
    wgc_pass_options o = {.simd = true};
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_select_kernels(g, &o) == WG_OK, "%s", g->err);
    size_t total = 0;
    for (int i = 0; i < layers_n; i++)
        total += wgc_select_conv_transformed_bytes(g, &g->nodes[i]);
    CHECK((total > WGC_WINOGRAD_KEEP_LIMIT) == (want == WGC_PREP_PER_RUN), "%d layers: %zu bytes", layers_n, total);
    for (int i = 0; i < layers_n; i++) {
        const wgc_impl *im = &g->nodes[i].impl;
        CHECK(im->kernel == l.want, "%d layers, layer %d: %s", layers_n, i, label(im->kernel));
        CHECK(im->prep == want, "%d layers, layer %d: prepared %d, want %d", layers_n, i, im->prep, want);
        CHECK(im->first_run == WGC_KERNEL_NONE, "%d layers: no direct first run", layers_n);
        /* per run, the transformed filters live in the scratch */
        const size_t tb = wgc_select_conv_transformed_bytes(g, &g->nodes[i]);
        CHECK(want != WGC_PREP_PER_RUN || im->scratch > tb, "scratch %zu for %zu bytes of filters", im->scratch,
              tb);
        CHECK(want == WGC_PREP_PER_RUN || im->scratch < tb, "scratch %zu holds the filters", im->scratch);
    }
    wgc_graph_free(g);
}

TEST(winograd_budget_is_for_the_whole_model)
{
    budget_case(3, WGC_PREP_ONCE);
    budget_case(4, WGC_PREP_PER_RUN);
}

/* ConvTranspose: the store form exactly when each output pixel gets one tap; the 2-D
 * forms get their scratch from the selection step. */
TEST(conv_transpose_kernels)
{
    static const struct {
        const char *what;
        int rank;
        int64_t k, stride, pad, dilation;
        wgc_kernel want;
    } rows[] = {
        {"2x2 stride 2 (PP-OCR's upsampler)", 2, 2, 2, 0, 1, WGC_KERNEL_DECONV2D_STORE},
        {"3x3 stride 3", 2, 3, 3, 0, 1, WGC_KERNEL_DECONV2D_STORE},
        {"2x2 stride 2 padded", 2, 2, 2, 1, 1, WGC_KERNEL_DECONV2D_COL2IM},
        {"4x4 stride 2 (overlapping taps)", 2, 4, 2, 1, 1, WGC_KERNEL_DECONV2D_COL2IM},
        {"3x3 stride 1", 2, 3, 1, 1, 1, WGC_KERNEL_DECONV2D_COL2IM},
        {"2x2 stride 2 dilated", 2, 2, 2, 0, 2, WGC_KERNEL_DECONV2D_COL2IM},
        {"1-D k2 stride 2", 1, 2, 2, 0, 1, WGC_KERNEL_DECONV_DIRECT},
        {"3-D 2x2x2 stride 2", 3, 2, 2, 0, 1, WGC_KERNEL_DECONV_DIRECT},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const int r = rows[i].rank;
        wgc_graph *g = wgc_graph_new();
        int64_t xd[5] = {1, 16}, wd[5] = {16, 8};
        for (int d = 0; d < r; d++)
            xd[2 + d] = 10, wd[2 + d] = rows[i].k;
        int in[2] = {tg_input(g, "x", WG_DT_FLOAT, r + 2, xd), constant(g, "w", r + 2, wd)};
        tg_output(g, tg_node(g, "ConvTranspose", in, 2, "y"));
        ints_attr(g, 0, "strides", r, rows[i].stride);
        ints_attr(g, 0, "pads", 2 * r, rows[i].pad);
        ints_attr(g, 0, "dilations", r, rows[i].dilation);
        const wgc_impl *im = select_expect(g, true, 0, rows[i].what, rows[i].want);
        CHECK((im->scratch > 0) == (r == 2), "%s: scratch %zu", rows[i].what, im->scratch);
        CHECK(wgc_node_splits(&g->nodes[0]) == (rows[i].want == WGC_KERNEL_DECONV2D_STORE),
              "%s: splits among threads", rows[i].what);
        wgc_graph_free(g);
    }
}

/* One ConvInteger (or QLinearConv) layer: x uint8 [1, C, in, in], constant int8 weights
 * (or run-time ones) of k x k (k^1 for rank 1), scalar zero points (and scales). */
typedef struct qlayer {
    const char *what;
    bool qlinear;
    int rank;
    int64_t C, M, in, k, stride, pad, dilation, groups;
    bool wconst;
    wgc_kernel want;
} qlayer;

static int add_qconv(wgc_graph *g, const qlayer *l, int idx)
{
    char xn[32], wn[32], yn[32], xzn[32], wzn[32], sn[32];
    snprintf(xn, sizeof xn, "x%d", idx);
    snprintf(wn, sizeof wn, "w%d", idx);
    snprintf(yn, sizeof yn, "y%d", idx);
    snprintf(xzn, sizeof xzn, "xz%d", idx);
    snprintf(wzn, sizeof wzn, "wz%d", idx);
    snprintf(sn, sizeof sn, "s%d", idx);
    int64_t xd[4] = {1, l->C}, wd[4] = {l->M, l->C / l->groups};
    for (int i = 0; i < l->rank; i++) {
        xd[2 + i] = l->in;
        wd[2 + i] = l->k;
    }
    int64_t nw = 1;
    for (int i = 0; i < l->rank + 2; i++)
        nw *= wd[i];
    int8_t *wv = calloc((size_t)nw, 1);
    const uint8_t xz = 128;
    const int8_t wz = 0;
    const float sc = 0.5f;
    const int x = tg_input(g, xn, WG_DT_UINT8, l->rank + 2, xd);
    const int w = l->wconst ? tg_const(g, wn, WG_DT_INT8, wd, l->rank + 2, wv) : tg_input(g, wn, WG_DT_INT8, l->rank + 2, wd);
    free(wv);
    const int xzt = tg_const(g, xzn, WG_DT_UINT8, NULL, 0, &xz), wzt = tg_const(g, wzn, WG_DT_INT8, NULL, 0, &wz);
    if (l->qlinear) {
        const int s = tg_const(g, sn, WG_DT_FLOAT, NULL, 0, &sc);
        const int in[8] = {x, s, xzt, w, s, wzt, s, xzt};
        tg_output(g, tg_node(g, "QLinearConv", in, 8, yn));
    } else {
        const int in[4] = {x, w, xzt, wzt};
        tg_output(g, tg_node(g, "ConvInteger", in, 4, yn));
    }
    return conv_attrs(g, l->rank, l->stride, l->pad, l->dilation, l->groups);
}

/* ConvInteger and QLinearConv: the exact int8 Winograd for 3x3 stride 1 (dilated too)
 * and stride 2 (undilated, 16 or more input channels) where its tiles pay, the depthwise kernel for depthwise ones, the pointwise kernel for
 * 1x1, im2col on the int8 GEMM for the other constant-weight one-group convs, the int32
 * direct loops for the rest; the Winograd and depthwise ones split among threads. */
TEST(qconv_layers_get_their_kernels)
{
    static const qlayer rows[] = {
        {"ConvInteger 3x3 64->64 on 56x56", false, 2, 64, 64, 56, 3, 1, 1, 1, 1, true,
         WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3},
        {"QLinearConv 3x3 64->64 on 56x56", true, 2, 64, 64, 56, 3, 1, 1, 1, 1, true,
         WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3},
        {"ConvInteger 3x3 dilation 2 on 16x16", false, 2, 256, 256, 16, 3, 1, 2, 2, 1, true,
         WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3},
        {"ConvInteger 3x3 dilation 8 on 16x16 (a tile per 4 outputs)", false, 2, 256, 256, 16, 3, 1, 8, 8, 1, true,
         WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3},
        {"ConvInteger 3x3 dilation 8 on 8x8 (a tile per output)", false, 2, 256, 256, 8, 3, 1, 8, 8, 1, true,
         WGC_KERNEL_Q8_CONV_IM2COL},
        {"ConvInteger 3x3 on 1x1", false, 2, 64, 64, 1, 3, 1, 1, 1, 1, true, WGC_KERNEL_Q8_CONV_IM2COL},
        {"ConvInteger 3x3 with 3 input channels (K = 27: a first layer)", false, 2, 3, 64, 56, 3, 1, 1, 1, 1, true,
         WGC_KERNEL_Q8_CONV_FEWC},
        {"ConvInteger 3x3 64->1 on 256x256 (a side output)", false, 2, 64, 1, 256, 3, 1, 1, 1, 1, true,
         WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3},
        {"ConvInteger 3x3 stride 2 to 28x28", false, 2, 64, 64, 56, 3, 2, 1, 1, 1, true,
         WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3S2},
        {"QLinearConv 3x3 stride 2 to 14x14", true, 2, 128, 256, 28, 3, 2, 1, 1, 1, true,
         WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3S2},
        {"ConvInteger 3x3 stride 2 to 7x7 (16 tiles for 49 outputs)", false, 2, 256, 512, 14, 3, 2, 1, 1, 1, true,
         WGC_KERNEL_Q8_CONV_IM2COL},
        {"ConvInteger 3x3 stride 2, 3 input channels (a first layer)", false, 2, 3, 64, 224, 3, 2, 1, 1, 1, true,
         WGC_KERNEL_Q8_CONV_FEWC},
        {"ConvInteger 3x3 stride 2 dilated", false, 2, 64, 64, 56, 3, 2, 2, 2, 1, true, WGC_KERNEL_Q8_CONV_IM2COL},
        {"ConvInteger 5x5", false, 2, 32, 32, 28, 5, 1, 2, 1, 1, true, WGC_KERNEL_Q8_CONV_IM2COL},
        {"ConvInteger 1-D k3", false, 1, 64, 64, 100, 3, 1, 1, 1, 1, true, WGC_KERNEL_Q8_CONV_IM2COL},
        {"ConvInteger 1x1", false, 2, 64, 64, 28, 1, 1, 0, 1, 1, true, WGC_KERNEL_Q8_CONV_1X1},
        {"QLinearConv 1x1", true, 2, 64, 64, 28, 1, 1, 0, 1, 1, true, WGC_KERNEL_Q8_CONV_1X1},
        {"ConvInteger depthwise 3x3", false, 2, 32, 32, 28, 3, 1, 1, 1, 32, true, WGC_KERNEL_Q8_DWCONV},
        {"QLinearConv depthwise 5x5 stride 2", true, 2, 32, 32, 28, 5, 2, 2, 1, 32, true, WGC_KERNEL_Q8_DWCONV},
        {"ConvInteger depthwise 3x3 dilated", false, 2, 32, 32, 28, 3, 1, 2, 2, 32, true, WGC_KERNEL_S32_CONV_DIRECT},
        {"ConvInteger depthwise 3x3 stride 3", false, 2, 32, 32, 28, 3, 3, 1, 1, 32, true, WGC_KERNEL_S32_CONV_DIRECT},
        {"ConvInteger two groups of 16", false, 2, 32, 32, 28, 3, 1, 1, 1, 2, true, WGC_KERNEL_S32_CONV_DIRECT},
        {"ConvInteger 3x3, run-time weight", false, 2, 64, 64, 28, 3, 1, 1, 1, 1, false, WGC_KERNEL_S32_CONV_DIRECT},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        wgc_graph *g = wgc_graph_new();
        const int n = add_qconv(g, &rows[i], 0);
        const wgc_impl *im = select_expect(g, true, n, rows[i].what, rows[i].want);
        CHECK(im->scratch > 0, "%s: no scratch", rows[i].what);
        const bool wino = rows[i].want == WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3 ||
                          rows[i].want == WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3S2;
        const wgc_prep want = wino                                         ? WGC_PREP_ONCE
                              : rows[i].want == WGC_KERNEL_S32_CONV_DIRECT ? WGC_PREP_NONE
                                                                           : WGC_PREP_COMPILE;
        CHECK(im->prep == want, "%s: weights prepared %d, want %d", rows[i].what, im->prep, want);
        CHECK(wgc_node_splits(&g->nodes[n]) == (wino || rows[i].want == WGC_KERNEL_Q8_DWCONV),
              "%s: splits among threads", rows[i].what);
        wgc_graph_free(g);
    }
}

/* int8 Winograd filters (32 bytes per channel pair) in the budget of the float ones:
 * 16 512->512 layers on 14x14 (8 MiB each) fill WGC_WINOGRAD_KEEP_LIMIT; a 17th, on 28x28
 * (4x the tiles: its transform per run is the cheapest against its multiplies),
 * transforms its filters on every run, into its scratch. */
TEST(qconv_winograd_budget_keeps_the_fewest_tiles)
{
    wgc_graph *g = wgc_graph_new();
    const qlayer big = {"28x28", false, 2, 512, 512, 28, 3, 1, 1, 1, 1, true, WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3};
    const qlayer small = {"14x14", false, 2, 512, 512, 14, 3, 1, 1, 1, 1, true, WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3};
    int nodes[17];
    nodes[0] = add_qconv(g, &big, 0);
    for (int i = 1; i < 17; i++)
        nodes[i] = add_qconv(g, &small, i);
    wgc_pass_options o = {.simd = true};
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_select_kernels(g, &o) == WG_OK, "%s", g->err);
    const size_t bytes = wgc_select_qconv_transformed_bytes(g, &g->nodes[nodes[1]]);
    CHECK(bytes == (size_t)8 << 20 && 16 * bytes <= WGC_WINOGRAD_KEEP_LIMIT, "%zu bytes per layer", bytes);
    for (int i = 0; i < 17; i++) {
        const wgc_impl *im = &g->nodes[nodes[i]].impl;
        CHECK(im->kernel == WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3, "layer %d: %s", i, label(im->kernel));
        CHECK(im->prep == (i == 0 ? WGC_PREP_PER_RUN : WGC_PREP_ONCE), "layer %d: prepared %d", i, im->prep);
        CHECK((im->scratch > bytes) == (i == 0), "layer %d: scratch %zu", i, im->scratch);
    }
    wgc_graph_free(g);
}

/* Gemm and MatMul: packed B when B is a constant read in column panels. */
TEST(gemm_and_matmul_kernels)
{
    static const struct {
        const char *what, *op;
        int b_rank;
        bool bconst, trans_a, simd;
        wgc_kernel want;
    } rows[] = {
        {"Gemm, constant B", "Gemm", 2, true, false, true, WGC_KERNEL_GEMM_PACKED_B},
        {"Gemm, constant B (scalar)", "Gemm", 2, true, false, false, WGC_KERNEL_GEMM_PACKED_B},
        {"Gemm, constant B, transA", "Gemm", 2, true, true, true, WGC_KERNEL_GEMM_4X8},
        {"Gemm, run-time B", "Gemm", 2, false, false, true, WGC_KERNEL_GEMM_4X8},
        {"Gemm, run-time B (scalar)", "Gemm", 2, false, false, false, WGC_KERNEL_GEMM_4X4},
        {"MatMul, constant 2-D B", "MatMul", 2, true, false, true, WGC_KERNEL_GEMM_PACKED_B},
        {"MatMul, constant 1-D B", "MatMul", 1, true, false, true, WGC_KERNEL_GEMM_PACKED_B},
        {"MatMul, constant 3-D B (per batch, packed at run time)", "MatMul", 3, true, false, true, WGC_KERNEL_GEMM_PACK_RUN},
        {"MatMul, run-time B (scalar)", "MatMul", 2, false, false, false, WGC_KERNEL_GEMM_4X4},
        {"MatMul, run-time 2-D B (SIMD)", "MatMul", 2, false, false, true, WGC_KERNEL_GEMM_PACK_RUN},
        {"MatMul, run-time 3-D B (attention, SIMD)", "MatMul", 3, false, false, true, WGC_KERNEL_GEMM_PACK_RUN},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        wgc_graph *g = wgc_graph_new();
        g->opset = 13; /* Gemm's C optional */
        const bool mm = !strcmp(rows[i].op, "MatMul");
        const int64_t ad[3] = {mm ? 2 : 8, 8, 8}, bd2[2] = {8, 16}, bd1[1] = {8}, bd3[3] = {2, 8, 16};
        const int64_t *bd = rows[i].b_rank == 1 ? bd1 : rows[i].b_rank == 2 ? bd2 : bd3;
        int in[2] = {tg_input(g, "a", WG_DT_FLOAT, mm ? 3 : 2, ad), 0};
        in[1] = rows[i].bconst ? constant(g, "b", rows[i].b_rank, bd)
                               : tg_input(g, "b", WG_DT_FLOAT, rows[i].b_rank, bd);
        tg_output(g, tg_node(g, rows[i].op, in, 2, "y"));
        if (rows[i].trans_a)
            wgc_attr_add(g, 0, "transA", WGC_ATTR_INT)->i = 1;
        select_expect(g, rows[i].simd, 0, rows[i].what, rows[i].want);
        wgc_graph_free(g);
    }
}

/* A float16 model's MatMul keeps its packed B as float16 when every value is a finite
 * float16 one, K is within the kernel's bound and A has fewer than 4 rows or symbolic
 * ones; otherwise, and in a float32 model, the float32 panels. */
TEST(matmul_keeps_float16_weights)
{
    static const struct {
        const char *what;
        bool fp16_model;
        float value; /* every element of B */
        int64_t K;
        wgc_kernel want;
    } rows[] = {
        {"float16 model, float16 values", true, 0.5f, 8, WGC_KERNEL_GEMM_PACKED_B_F16},
        {"float16 model, K at the bound", true, -3.0f, WGK_GEMM_NARROW_MAX_K, WGC_KERNEL_GEMM_PACKED_B_F16},
        {"float16 model, K past the bound", true, 0.5f, WGK_GEMM_NARROW_MAX_K + 1, WGC_KERNEL_GEMM_PACKED_B},
        {"float16 model, a value float16 cannot hold", true, 0.1f, 8, WGC_KERNEL_GEMM_PACKED_B},
        {"float16 model, an infinity", true, INFINITY, 8, WGC_KERNEL_GEMM_PACKED_B},
        {"float16 model, the largest value the stored halves hold", true, 63.96875f, 8, WGC_KERNEL_GEMM_PACKED_B_F16},
        {"float16 model, a value past it", true, 64.0f, 8, WGC_KERNEL_GEMM_PACKED_B},
        {"float32 model", false, 0.5f, 8, WGC_KERNEL_GEMM_PACKED_B},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        wgc_graph *g = wgc_graph_new();
        g->fp16_weights = rows[i].fp16_model;
        const int64_t ad[2] = {2, rows[i].K}, bd[2] = {rows[i].K, 16};
        int in[2] = {tg_input(g, "a", WG_DT_FLOAT, 2, ad), constant(g, "b", 2, bd)};
        float *b = g->tensors[in[1]].data;
        for (int64_t k = 0; k < rows[i].K * 16; k++)
            b[k] = rows[i].value;
        tg_output(g, tg_node(g, "MatMul", in, 2, "y"));
        select_expect(g, true, 0, rows[i].what, rows[i].want);
        wgc_graph_free(g);
    }
    /* A of 4 fixed rows or more (an encoder's): the float32 panels, widened once */
    wgc_graph *g = wgc_graph_new();
    g->fp16_weights = true;
    const int64_t ad[2] = {4, 8}, bd[2] = {8, 16};
    int in[2] = {tg_input(g, "a", WG_DT_FLOAT, 2, ad), constant(g, "b", 2, bd)};
    float *b = g->tensors[in[1]].data;
    for (int k = 0; k < 8 * 16; k++)
        b[k] = 0.5f;
    tg_output(g, tg_node(g, "MatMul", in, 2, "y"));
    select_expect(g, true, 0, "float16 model, A of 4 fixed rows", WGC_KERNEL_GEMM_PACKED_B);
    wgc_graph_free(g);
}

/* A MatMul's B that folding made from a DequantizeLinear of uint8 / int8 constants stays
 * one byte per weight (a q8 file's tied lm_head: the embedding table, transposed, then
 * dequantized) when its scale and zero point are one for all or one per column and K is
 * within the kernel's bound; otherwise the float32 panels. */
TEST(matmul_keeps_dequantized_bytes)
{
    static const struct {
        const char *what;
        int dtype, zp; /* zp: 0 none, 1 given */
        int axis;      /* -1: one scale; else the axis of B the scales run along */
        bool transpose;
        int64_t K;
        wgc_kernel want;
    } rows[] = {
        {"uint8, one scale and zero point, through a Transpose (a q8 lm_head)", WG_DT_UINT8, 1, -1, true, 8,
         WGC_KERNEL_GEMM_PACKED_B_Q8},
        {"int8 without a zero point", WG_DT_INT8, 0, -1, false, 8, WGC_KERNEL_GEMM_PACKED_B_Q8},
        {"uint8, a scale and zero point per column", WG_DT_UINT8, 1, 1, false, 8, WGC_KERNEL_GEMM_PACKED_B_Q8},
        {"uint8, a scale per row of B: float32 panels", WG_DT_UINT8, 1, 0, false, 8, WGC_KERNEL_GEMM_PACKED_B},
        {"int32 values: float32 panels", WG_DT_INT32, 0, -1, false, 8, WGC_KERNEL_GEMM_PACKED_B},
        {"K at the bound", WG_DT_UINT8, 1, -1, false, WGK_GEMM_NARROW_MAX_K, WGC_KERNEL_GEMM_PACKED_B_Q8},
        {"K past the bound: float32 panels", WG_DT_UINT8, 1, -1, false, WGK_GEMM_NARROW_MAX_K + 1,
         WGC_KERNEL_GEMM_PACKED_B},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        wgc_graph *g = wgc_graph_new();
        g->opset = 13;
        const int64_t K = rows[i].K, N = 16, ad[2] = {1, K}, bd[2] = {K, N}, td[2] = {N, K};
        const int64_t pd[1] = {rows[i].axis == 0 ? K : N};
        int32_t *vals = calloc((size_t)(K * N), sizeof(int32_t));
        static const float scales[16] = {0.5f, 0.25f, 0.5f, 0.25f, 0.5f, 0.25f, 0.5f, 0.25f,
                                         0.5f, 0.25f, 0.5f, 0.25f, 0.5f, 0.25f, 0.5f, 0.25f};
        static const uint8_t zeros[16] = {3, 4, 5};
        int q = tg_const(g, "q", rows[i].dtype, rows[i].transpose ? td : bd, 2, vals);
        free(vals);
        if (rows[i].transpose)
            q = tg_node(g, "Transpose", &q, 1, "qt");
        const int per = rows[i].axis >= 0, np = rows[i].axis == 0 ? (int)K : (int)N;
        float *s = calloc((size_t)np, sizeof(float));
        for (int j = 0; j < np; j++)
            s[j] = scales[j % 16];
        int dq[3] = {q, tg_const(g, "s", WG_DT_FLOAT, pd, per, s), 0};
        free(s);
        uint8_t *z = calloc((size_t)np, 1);
        for (int j = 0; j < np && rows[i].zp; j++)
            z[j] = zeros[j % 16];
        if (rows[i].zp)
            dq[2] = tg_const(g, "z", rows[i].dtype, pd, per, z);
        free(z);
        int in[2] = {tg_input(g, "a", WG_DT_FLOAT, 2, ad), tg_node(g, "DequantizeLinear", dq, 2 + rows[i].zp, "b")};
        if (per)
            wgc_attr_add(g, g->n_nodes - 1, "axis", WGC_ATTR_INT)->i = rows[i].axis;
        tg_output(g, tg_node(g, "MatMul", in, 2, "y"));
        select_expect(g, true, g->n_nodes - 1, rows[i].what, rows[i].want);
        wgc_graph_free(g);
    }
}

/* MatMulInteger: the int8 GEMM exactly when B is a constant matrix and its zero point
 * constant or absent (the packing step lays both out); else the int32 loops. */
TEST(matmul_integer_kernels)
{
    static const struct {
        const char *what;
        int b_rank, zp; /* zp: 0 none, 1 constant, 2 a graph input */
        bool bconst;
        wgc_kernel want;
    } rows[] = {
        {"constant 2-D B", 2, 0, true, WGC_KERNEL_Q8_GEMM},
        {"constant 2-D B, constant zero point", 2, 1, true, WGC_KERNEL_Q8_GEMM},
        {"constant 2-D B, zero point at run time", 2, 2, true, WGC_KERNEL_NONE},
        {"constant 3-D B", 3, 0, true, WGC_KERNEL_NONE},
        {"B at run time", 2, 0, false, WGC_KERNEL_NONE},
    };
    static const uint8_t zero[2 * 8 * 16];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        wgc_graph *g = wgc_graph_new();
        const int64_t ad[2] = {4, 8}, bd2[2] = {8, 16}, bd3[3] = {2, 8, 16}, zd[1] = {16};
        const int64_t *bd = rows[i].b_rank == 2 ? bd2 : bd3;
        int in[4] = {tg_input(g, "a", WG_DT_UINT8, 2, ad), 0, tg_const(g, "az", WG_DT_UINT8, NULL, 0, zero), 0};
        in[1] = rows[i].bconst ? tg_const(g, "b", WG_DT_UINT8, bd, rows[i].b_rank, zero)
                               : tg_input(g, "b", WG_DT_UINT8, rows[i].b_rank, bd);
        if (rows[i].zp)
            in[3] = rows[i].zp == 1 ? tg_const(g, "bz", WG_DT_UINT8, zd, 1, zero) : tg_input(g, "bz", WG_DT_UINT8, 1, zd);
        tg_output(g, tg_node(g, "MatMulInteger", in, rows[i].zp ? 4 : 3, "y"));
        select_expect(g, true, 0, rows[i].what, rows[i].want);
        wgc_graph_free(g);
    }
}

/* Every kernel of the list has its row in docs/performance.md's kernel table (between
 * the kernel-table markers, the label in backquotes in the first cell) and every row
 * names a kernel of the list. */
TEST(performance_doc_lists_every_kernel)
{
    FILE *f = fopen("docs/performance.md", "r");
    CHECK(f != NULL, "cannot open docs/performance.md (run from the repository root)");
    if (!f)
        return;
    int seen[WGC_KERNEL_COUNT] = {0};
    char line[2048];
    bool in_table = false;
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "<!-- kernel-table:begin -->")) {
            in_table = true;
            continue;
        }
        if (strstr(line, "<!-- kernel-table:end -->"))
            in_table = false;
        if (!in_table || strncmp(line, "| `", 3) != 0)
            continue;
        const char *s = line + 3, *e = strchr(s, '`');
        if (!e)
            continue;
        rows++;
        int found = 0;
        for (int k = 1; k < WGC_KERNEL_COUNT; k++)
            if (strlen(wgc_kernel_label(k)) == (size_t)(e - s) && !strncmp(s, wgc_kernel_label(k), (size_t)(e - s))) {
                seen[k]++;
                found = k;
            }
        CHECK(found, "docs/performance.md names a kernel that is not in src/ir/kernels.def: %.*s", (int)(e - s), s);
        /* the second cell: the kernel's C symbol, as the list gives it */
        const char *sym = strstr(e, "| `"), *se = sym ? strchr(sym + 3, '`') : NULL;
        if (found) {
            const char *want = wgc_kernel_get(found)->symbol;
            CHECK(se && strlen(want) == (size_t)(se - sym - 3) && !strncmp(sym + 3, want, strlen(want)),
                  "docs/performance.md gives '%s' another C symbol than src/ir/kernels.def's %s",
                  wgc_kernel_label(found), want);
        }
    }
    fclose(f);
    CHECK(rows > 0, "docs/performance.md has no kernel table");
    for (int k = 1; k < WGC_KERNEL_COUNT; k++)
        CHECK(seen[k] == 1, "kernel '%s' has %d rows in docs/performance.md's table, want 1", wgc_kernel_label(k),
              seen[k]);
}

/* The labels are unique (the profile and the doc name kernels by them). */
TEST(kernel_labels_are_unique)
{
    for (int a = 1; a < WGC_KERNEL_COUNT; a++)
        for (int b = a + 1; b < WGC_KERNEL_COUNT; b++)
            CHECK(strcmp(wgc_kernel_label(a), wgc_kernel_label(b)) != 0, "kernels %s and %s share a label",
                  wgc_kernel_get(a)->name, wgc_kernel_get(b)->name);
}

int main(void)
{
    RUN(conv_layers_get_their_kernels);
    RUN(first_run_direct_where_the_transform_costs_more);
    RUN(winograd_budget_is_for_the_whole_model);
    RUN(conv_transpose_kernels);
    RUN(qconv_layers_get_their_kernels);
    RUN(qconv_winograd_budget_keeps_the_fewest_tiles);
    RUN(gemm_and_matmul_kernels);
    RUN(matmul_keeps_float16_weights);
    RUN(matmul_keeps_dequantized_bytes);
    RUN(matmul_integer_kernels);
    RUN(performance_doc_lists_every_kernel);
    RUN(kernel_labels_are_unique);
    return test_summary("select");
}
