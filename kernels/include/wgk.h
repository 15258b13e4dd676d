/*
 * wgk.h: the kernel library that every compiled module links (prefix wgk_).
 *
 * Kernels are plain C compiled for wasm32 by clang-19, with SIMD128 paths under
 * `#ifdef __wasm_simd128__` and relaxed-SIMD paths under `__wasm_relaxed_simd__`; the
 * same sources build the scalar variant (--no-simd). The generated graph code calls
 * them with constant shapes and addresses. Each family has a scalar reference used by
 * the kernel tests (kernels/tests/).
 */
#ifndef WGK_H
#define WGK_H

#include "wgk_base.h"
#include "wgk_status.h"
#include "wgk_math.h"
#include "wgk_eltwise.h"
#include "wgk_data.h"
#include "wgk_conv.h"
#include "wgk_conv_packed.h"
#include "wgk_conv_strassen.h"
#include "wgk_conv_fewpix.h"
#include "wgk_winograd.h"
#include "wgk_pool.h"
#include "wgk_gemm.h"
#include "wgk_norm.h"
#include "wgk_gen.h"
#include "wgk_resize.h"
#include "wgk_resize_plan.h"
#include "wgk_convnd.h"
#include "wgk_poolnd.h"
#include "wgk_quant.h"
#include "wgk_rnn.h"
#include "wgk_vmath.h"
#include "wgk_qgemm.h"
#include "wgk_qdwconv.h"
#include "wgk_qwinograd.h"
#include "wgk_qweight.h"
#include "wgk_attention.h"
#include "wgk_storage.h"
#include "wgk_f16.h"
/* Not for kernels: the generated code's thread plan (threaded modules) */
#include "wgk_split.h"

#endif
