/*
 * onnx_names.c: the ONNX reader's tensor names: a string -> tensor index hash map, and the
 * scopes that let each body (If, Loop, Scan) have names of its own while it reads the
 * names of the graphs around it.
 */
#include <stdlib.h>
#include <string.h>

#include "onnx_read.h"

wg_status wgc_onnx_nomem(const reader *rd)
{
    return wgc_onnx_fail(&rd->c, WG_ERR_NOMEM, "out of memory while reading the model");
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static bool map_insert(name_map *m, const wgc_graph *g, int t);

static bool map_grow(name_map *m, const wgc_graph *g)
{
    size_t nc = m->cap ? m->cap * 2 : 256;
    int *old = m->slot;
    size_t oc = m->cap;
    m->slot = calloc(nc, sizeof *m->slot);
    if (!m->slot) {
        m->slot = old;
        return false;
    }
    m->cap = nc;
    m->n = 0;
    for (size_t i = 0; i < oc; i++)
        if (old[i])
            map_insert(m, g, old[i] - 1);
    free(old);
    return true;
}

static bool map_insert(name_map *m, const wgc_graph *g, int t)
{
    if ((m->n + 1) * 2 > m->cap && !map_grow(m, g))
        return false;
    size_t i = hash_str(g->tensors[t].name) & (m->cap - 1);
    while (m->slot[i])
        i = (i + 1) & (m->cap - 1);
    m->slot[i] = t + 1;
    m->n++;
    return true;
}

int wgc_onnx_map_find(const name_map *m, const wgc_graph *g, const char *name)
{
    if (!m->cap)
        return -1;
    size_t i = hash_str(name) & (m->cap - 1);
    while (m->slot[i]) {
        int t = m->slot[i] - 1;
        if (!strcmp(g->tensors[t].name, name))
            return t;
        i = (i + 1) & (m->cap - 1);
    }
    return -1;
}

/* name behind the prefix of scope d, malloc'ed (NULL when out of memory). */
static char *scoped_name(const reader *rd, int d, const char *name)
{
    size_t a = strlen(rd->scopes[d]), b = strlen(name);
    char *key = malloc(a + b + 1);
    if (key) {
        memcpy(key, rd->scopes[d], a);
        memcpy(key + a, name, b + 1);
    }
    return key;
}

/* The tensor called name in the current scope, created when new; -1 when out of memory.
 * Values a graph defines (inputs, initializers, node outputs) are always its own. */
int wgc_onnx_tensor_get(reader *rd, const char *name, bool *created)
{
    char *key = scoped_name(rd, rd->depth, name);
    if (!key)
        return -1;
    int t = wgc_onnx_map_find(&rd->names, rd->g, key);
    if (created)
        *created = t < 0;
    if (t < 0 && (t = wgc_tensor_add(rd->g, key)) >= 0 && !map_insert(&rd->names, rd->g, t))
        t = -1;
    free(key);
    return t;
}

/* The tensor a node or a body output reads: name in the innermost scope that has it, -1
 * when none does (*nomem set when out of memory). */
int wgc_onnx_tensor_visible(reader *rd, const char *name, bool *nomem)
{
    *nomem = false;
    for (int d = rd->depth; d >= 0; d--) {
        char *key = scoped_name(rd, d, name);
        if (!key) {
            *nomem = true;
            return -1;
        }
        int t = wgc_onnx_map_find(&rd->names, rd->g, key);
        free(key);
        if (t >= 0)
            return t;
    }
    return -1;
}

/* A node input: visible from here, or else a new tensor of this scope (produced by a node
 * later in the file, or by none: onnx_check.c reports that). -1 when out of memory. */
int wgc_onnx_tensor_ref(reader *rd, const char *name)
{
    bool nomem;
    int t = wgc_onnx_tensor_visible(rd, name, &nomem);
    if (t >= 0 || nomem)
        return t;
    return wgc_onnx_tensor_get(rd, name, NULL);
}
