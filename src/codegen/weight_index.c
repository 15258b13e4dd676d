/* weight_index.c: the weights segment's blobs by content (weight_index.h). */
#include "weight_index.h"

#include <stdlib.h>
#include <string.h>

uint64_t wgc_weight_hash(const void *data, size_t bytes)
{
    const uint8_t *p = data;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)bytes;
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < bytes; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h ^ (h >> 32);
}

int64_t wgc_weight_index_find(const wgc_weight_index *x, const uint8_t *segment, const void *data, size_t bytes,
                              uint64_t h)
{
    if (!x->cap)
        return -1;
    for (size_t k = (size_t)h & (x->cap - 1);; k = (k + 1) & (x->cap - 1)) {
        const wgc_weight_slot *s = &x->slots[k];
        if (s->off < 0)
            return -1;
        if (s->hash == h && s->bytes == bytes && !memcmp(segment + s->off, data, bytes))
            return s->off;
    }
}

/* Puts slot s in table slots of cap (a power of two, with a free slot). */
static void put(wgc_weight_slot *slots, size_t cap, wgc_weight_slot s)
{
    size_t k = (size_t)s.hash & (cap - 1);
    while (slots[k].off >= 0)
        k = (k + 1) & (cap - 1);
    slots[k] = s;
}

bool wgc_weight_index_add(wgc_weight_index *x, uint64_t h, int64_t off, size_t bytes)
{
    if (2 * (x->used + 1) > x->cap) { /* at most half full */
        const size_t cap = x->cap ? 2 * x->cap : 256;
        wgc_weight_slot *slots = malloc(sizeof *slots * cap);
        if (!slots)
            return false;
        for (size_t k = 0; k < cap; k++)
            slots[k].off = -1;
        for (size_t k = 0; k < x->cap; k++)
            if (x->slots[k].off >= 0)
                put(slots, cap, x->slots[k]);
        free(x->slots);
        x->slots = slots;
        x->cap = cap;
    }
    put(x->slots, x->cap, (wgc_weight_slot){h, off, bytes});
    x->used++;
    return true;
}

void wgc_weight_index_free(wgc_weight_index *x)
{
    free(x->slots);
    memset(x, 0, sizeof *x);
}
