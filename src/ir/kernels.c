/* kernels.c: the kernel info table, generated from kernels.def. */
#include "kernels.h"

#include <stdio.h>
#include <string.h>

static const wgc_kernel_info table[WGC_KERNEL_COUNT] = {
#define WG_KERNEL(e, label, symbol, pack, prepare, scratch, fuses, split, tile, matrices, taps) \
    [WGC_KERNEL_##e] = {#e, label, symbol, WGC_PACK_##pack, prepare, #scratch, fuses, split, tile, matrices, taps},
#include "kernels.def"
#undef WG_KERNEL
};

const wgc_kernel_info *wgc_kernel_get(wgc_kernel k)
{
    return k > WGC_KERNEL_NONE && k < WGC_KERNEL_COUNT ? &table[k] : NULL;
}

bool wgc_kernel_has_scratch(wgc_kernel k)
{
    const wgc_kernel_info *i = wgc_kernel_get(k);
    return i && strcmp(i->scratch, "scratch_none") != 0;
}

const char *wgc_kernel_label(wgc_kernel k)
{
    const wgc_kernel_info *i = wgc_kernel_get(k);
    return i ? i->label : "";
}

const char *wgc_kernel_symbol(wgc_kernel k, int kh, int kw, int sh, int sw, char *buf, size_t len)
{
    const wgc_kernel_info *i = wgc_kernel_get(k);
    if (!i) {
        snprintf(buf, len, "%s", "");
        return buf;
    }
    /* Symbols without conversions ignore the arguments (C11 7.21.6.1p2). */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wformat-nonliteral"
    snprintf(buf, len, i->symbol, kh, kw, sh, sw);
#pragma clang diagnostic pop
    return buf;
}
