/*
 * f32-gemm-splat-buffer.c: the packed-B GEMM's broadcast buffer for calls that bring none
 * (wgk_gemm_args.splat NULL: single-threaded modules, the kernel tests), alone in its
 * file so that a module defining wgk_gemm_splat_buffer itself does not link this one: a
 * threaded module's memory is imported, and wasm-ld then writes zero-initialised static
 * data into the file (1 MiB of zeros here); its buffers lie past the stacks instead
 * (src/codegen/threads.c).
 */
#include "wgk_gemm.h"

float *wgk_gemm_splat_buffer(void)
{
    static float buffer[WGK_GEMM_SPLAT_FLOATS];
    return buffer;
}
