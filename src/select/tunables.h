/*
 * tunables.h: the defaults of the kernel-selection step (src/select/), in one place: the
 * thresholds at which a layer moves from one kernel to another, the model's Winograd
 * memory budget and the first-run cost model. Each says why it has its value; the
 * measurements behind them are in docs/performance.md ("Figures that used to live in code
 * comments"), which also tells which kernel serves which layer shape with these values.
 *
 * Blocking sizes inside the kernels (tiles per Winograd block, Strassen's column blocks)
 * stay in their kernel headers: the module reads them at run time.
 */
#ifndef WGC_SELECT_TUNABLES_H
#define WGC_SELECT_TUNABLES_H

#include <stddef.h>

/* ---- Winograd (3x3 and 5x5 stride 1, 3x3 stride 2) */

/* Input and output channels per group below which the transforms do not pay. */
#define WGC_WINOGRAD_MIN_CHANNELS 16

/* F(4x4, 3x3) instead of F(2x2, 3x3) when it has at least this many 4x4 tiles and its
 * GEMM work (36 products per half panel of 4 tiles, the micro-kernel does a last tile of
 * <= 4 columns at half cost) is below WGC_WINO_F4_WORK_NUM/DEN of F(2x2)'s (16 per half
 * panel): a 10% margin for its dearer transforms.
 * Few tiles: each transformed weight (36/9 of the original) serves few multiplies. At 4
 * tiles (7x7) F(4x4) was still faster on large layers in a ResNet-50 v2 profile, but its
 * filters take 2.25x the memory of F(2x2)'s, which took ResNet-50's peak RSS past the
 * target set against onnxruntime-web's. So 8 tiles or more. On the Zen 3 CI machine
 * (512 KiB L2) F(4x4) at 7x7 is slower as well: each large filter set streams from memory
 * once per run for only 4 tiles. */
#define WGC_WINO_F4_MIN_TILES 8
#define WGC_WINO_F4_WORK_NUM 9
#define WGC_WINO_F4_WORK_DEN 10

/* 3x3 stride 2 on Winograd-like tiles when their multiplies (25 per 2x2 tile, counting
 * whole half panels) stay under NUM/DEN of the direct conv's 9 per output: 28x28 and
 * 14x14 outputs yes (0.69x), 7x7 no (16 tiles for 49 outputs, 0.91x, for a weight 25/9
 * the size streamed per run). */
#define WGC_WINO_S2_WORK_NUM 8
#define WGC_WINO_S2_WORK_DEN 10

/* 7x7 and 8x8 stride 2 (ResNet's first layer) as a 4x4 conv on the input's phases by
 * F(3x3, 4x4): with at least this many output channels and output pixels. */
#define WGC_PHASES_MIN_M 16
#define WGC_PHASES_MIN_PIXELS 36

/* Models whose transformed Winograd filters would together take more than this keep none
 * of them: every Winograd conv transforms its filters on every run into its scratch,
 * which all nodes share (WGC_PREP_PER_RUN). VGG-19 would otherwise add to its memory a
 * large share of onnxruntime-web's peak RSS and first-touch it in its first run, while
 * transforming on every run costs it only a few percent per run. ResNet-50 (under the
 * limit, with a larger share of its work in small layers where the transform is dear)
 * keeps them. */
#define WGC_WINOGRAD_KEEP_LIMIT ((size_t)128 << 20)

/* Whether a kept Winograd conv runs as a direct packed conv on the module's first run and
 * transforms its filters on the second. Transforming them costs the first run, per
 * (output, input) channel pair, the fresh memory they fill (4 bytes per matrix: first
 * touch and transform) where the direct conv costs the multiplies Winograd saves (taps *
 * pixels - matrices * tiles, each at the direct kernel's measured rate). The cost of a
 * fresh byte was measured on ResNet-50 v2's first run (profile build, `wasmgraph profile
 * --warmup 0 --iters 1`) and varied between the machine's fast and slow phases. The
 * value chosen for it keeps the 14x14 F(4x4) layers on Winograd (a shorter first run over
 * interleaved cold starts) and sends the 7x7 ones (large filter sets) and the 14x14
 * stride-2 one (measured even) direct. */
#define WGC_FIRST_RUN_FRESH_NS_PER_BYTE 0.45 /* transform + first touch of fresh memory, per byte */
#define WGC_FIRST_RUN_DIRECT_NS_PER_MAC 0.08 /* the direct conv, per multiply-add */

/* ---- int8 Winograd (ConvInteger / QLinearConv, 3x3 stride 1, any dilation)
 * Input channels below which the transforms do not pay (a 3 -> 64 layer measured about
 * even with the im2col GEMM, while a 64 -> 1 side output of ISNet gained 15x, so any
 * number of output channels; docs/performance.md has the times); and the work
 * rule: 16 products per 2x2 tile of a residue class against the direct conv's 9 per
 * output, under NUM/DEN (a dilation-8 conv on 8x8 outputs has a tile per output: 1.8x
 * the direct work; on 16x16 outputs 0.44x). */
#define WGC_Q8_WINOGRAD_MIN_C 4
#define WGC_Q8_WINOGRAD_WORK_NUM 8
#define WGC_Q8_WINOGRAD_WORK_DEN 10
/* 3x3 stride 2 on the int8 Winograd of 25 products per 2x2 tile: from this many input
 * channels (its GEMM is too shallow below: 3 -> 64 on 256x256 outputs about even with
 * im2col), under the same work rule (25 per tile against 9 per output: 28x28 and 14x14
 * outputs yes, 7x7 no). */
#define WGC_Q8_WINOGRAD_S2_MIN_C 16

/* ---- Strassen (1x1, one level: 7 half-size products instead of 8)
 * Measured against the packed kernel (paired wasmtime runs of the kernels on ResNet-50's
 * and PP-OCRv4 rec's 1x1 shapes, and per layer in ResNet-50 v2's profile): 0.92-0.98x the
 * time for K >= 128 on 128 or more pixels (512 -> 128 on 28x28 0.93-0.94x, 480 -> 480 on
 * 6x80 0.90-0.94x, 240 -> 480 on 6x80 0.92-0.93x, 128 -> 512 on 28x28 0.93-0.94x, 256 ->
 * 64 on 56x56 0.95x, 256 -> 1024 on 14x14 0.98x; stride 2, the input gathered first: 256
 * -> 512 on 56x56 0.93-0.95x, 512 -> 1024 on 28x28 0.98x); slower for K = 64 (64 -> 256
 * 1.06-1.2x: the halved reductions are too short for the extra additions) and on 7x7
 * outputs (1.05-1.08x: 4 tiles per product), so those stay on the packed kernel. */
#define WGC_STRASSEN_MIN_C 128
#define WGC_STRASSEN_MIN_M 64
#define WGC_STRASSEN_MIN_PIXELS 128

/* ---- Few-pixel kernel (the GEMM with its operands swapped; ResNet's 7x7 stage): output
 * pixels in [MIN, MAX], at least MIN_M output channels and MIN_K products per output. */
#define WGC_FEWPIX_MIN_PIXELS 16
#define WGC_FEWPIX_MAX_PIXELS 64
#define WGC_FEWPIX_MIN_M 64
#define WGC_FEWPIX_MIN_K 256

/* ---- GEMM of two run-time matrices (MatMul with an activation B: attention)
 * B is packed into panels at run time (K x N copies) for the packed-B kernel when A has
 * at least this many rows per product: packing then costs at most 1/8 of the products'
 * memory traffic over B, and the packed-B kernel's broadcast micro-kernel needs 4-row
 * groups (fewer rows: a GEMV, where the packing would read B as often as the product). */
#define WGC_GEMM_PACK_RUN_MIN_M 8

#endif
