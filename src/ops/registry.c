/* registry.c: the op enum's name, hook, trait and domain tables, generated from ir/ops.def,
 * and the calls the passes make on the hooks. */
#include <stdio.h>
#include <string.h>

#include "op.h"

#define WG_OP(e, name, stem, in, out, traits) extern const wgc_op_def wgc_op_##stem;
#include "../ir/ops.def"
#undef WG_OP

static const char *const op_names[] = {
#define WG_OP(e, name, stem, in, out, traits) [WGC_OP_##e] = name,
#include "../ir/ops.def"
#undef WG_OP
};

static const wgc_op_def *const op_hooks[] = {
#define WG_OP(e, name, stem, in, out, traits) [WGC_OP_##e] = &wgc_op_##stem,
#include "../ir/ops.def"
#undef WG_OP
};

static const unsigned op_traits[] = {
#define WG_OP(e, name, stem, in, out, traits) [WGC_OP_##e] = (traits),
#include "../ir/ops.def"
#undef WG_OP
};

/* The DOMAIN column: WG_OP rows are ONNX's, WG_OP_IN rows name theirs. */
static const unsigned char op_domains[] = {
#define WG_OP(e, name, stem, in, out, traits) [WGC_OP_##e] = WGC_DOMAIN_ONNX,
#define WG_OP_IN(domain, e, name, stem, in, out, traits) [WGC_OP_##e] = WGC_DOMAIN_##domain,
#include "../ir/ops.def"
#undef WG_OP_IN
#undef WG_OP
};

static const char *const domain_names[] = {
    [WGC_DOMAIN_ONNX] = "",
    [WGC_DOMAIN_ONNX_ORT] = "",
    [WGC_DOMAIN_TRAINING] = "ai.onnx.preview.training",
    [WGC_DOMAIN_MS] = "com.microsoft",
};

_Static_assert(sizeof op_domains / sizeof op_domains[0] == WGC_OP_COUNT,
               "ops.def and the domain table disagree");
_Static_assert(sizeof domain_names / sizeof domain_names[0] == WGC_DOMAIN_COUNT,
               "a domain without a name");
_Static_assert(sizeof op_traits / sizeof op_traits[0] == WGC_OP_COUNT, "ops.def and the trait table disagree");
_Static_assert(sizeof op_names / sizeof op_names[0] == WGC_OP_COUNT, "ops.def and the name table disagree");
_Static_assert(sizeof op_hooks / sizeof op_hooks[0] == WGC_OP_COUNT, "ops.def and the hook table disagree");

const char *wgc_op_name(wgc_op op)
{
    return op < WGC_OP_COUNT ? op_names[op] : NULL;
}

wgc_domain wgc_op_domain(wgc_op op)
{
    return op < WGC_OP_COUNT ? (wgc_domain)op_domains[op] : WGC_DOMAIN_COUNT;
}

const char *wgc_domain_name(wgc_domain d)
{
    return d < WGC_DOMAIN_COUNT ? domain_names[d] : "?";
}

bool wgc_is_default_domain(const char *domain)
{
    return !domain || !domain[0] || !strcmp(domain, "ai.onnx");
}

wgc_op wgc_op_lookup(const char *domain, const char *op_type)
{
    const char *d = wgc_is_default_domain(domain) ? "" : domain;
    for (int i = 0; i < WGC_OP_COUNT; i++)
        if (i != WGC_OP_BODY_BEGIN && i != WGC_OP_BODY_ELSE && i != WGC_OP_UNROLL_STEP &&
            !strcmp(domain_names[op_domains[i]], d) && !strcmp(op_names[i], op_type))
            return (wgc_op)i;
    return WGC_OP_COUNT;
}

wgc_op wgc_op_elsewhere(const char *domain, const char *op_type)
{
    const char *d = wgc_is_default_domain(domain) ? "" : domain;
    for (int i = 0; i < WGC_OP_COUNT; i++)
        if (i != WGC_OP_BODY_BEGIN && i != WGC_OP_BODY_ELSE && i != WGC_OP_UNROLL_STEP &&
            strcmp(domain_names[op_domains[i]], d) && !strcmp(op_names[i], op_type))
            return (wgc_op)i;
    return WGC_OP_COUNT;
}

void wgc_domain_ops(wgc_domain d, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < WGC_OP_COUNT && at < len; i++)
        if (op_domains[i] == d)
            at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", op_names[i]);
}

bool wgc_op_is_training(wgc_op op)
{
    return wgc_op_domain(op) == WGC_DOMAIN_TRAINING;
}

const wgc_op_def *wgc_op_hooks(wgc_op op)
{
    return op < WGC_OP_COUNT ? op_hooks[op] : NULL;
}

bool wgc_op_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    if (n->op >= WGC_OP_COUNT || !(op_traits[n->op] & t))
        return false;
    const wgc_op_def *h = op_hooks[n->op];
    return !h->sym.takes || h->sym.takes(g, n, t);
}

wg_status wgc_run_fold(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_op_hooks(n->op)->fold(g, n);
    if (st == WG_OK)
        n->dead = true;
    else if (st == WG_ERR_UNSUPPORTED)
        g->err[0] = 0; /* declined: the node runs in the module */
    else
        return st;
    return WG_OK;
}

bool wgc_inputs_const(const wgc_graph *g, const wgc_node *n)
{
    for (int i = 0; i < n->n_inputs; i++)
        if (n->inputs[i] >= 0 && !g->tensors[n->inputs[i]].data)
            return false;
    return true;
}
