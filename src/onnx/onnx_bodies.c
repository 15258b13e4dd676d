/*
 * onnx_bodies.c: links the bodies of If, Loop, Scan and SequenceMap to their nodes once the
 * graph is sorted (onnx_check.c has laid each body out just before its node, its marker
 * first).
 * Checks each body's arity against its node, turns an If's else marker into BodyElse,
 * gives each marker the values it reads, and appends the body's values to its node's
 * inputs, in the layout ops/control_flow.c reads (ops/control_flow.h):
 *   If:   BodyBegin(cond) ... BodyElse() ... If(cond, then outputs..., else outputs...)
 *   Loop: BodyBegin(M, cond, v_initial...) -> (iteration, cond_in, v_in...) ...
 *         Loop(M, cond, v_initial..., cond_out, v_out..., scan elements..., v_in...)
 *   Scan: BodyBegin([sequence_lens,] states..., scan inputs...) -> (state_in..., elements...)
 *         ... Scan([sequence_lens,] states..., scan inputs..., state_out..., elements out...,
 *         state_in...)
 *   SequenceMap: BodyBegin(inputs...) -> (body inputs...) ... SequenceMap(inputs..., body
 *         outputs...)
 * Every failure is a malformed model: a missing body, or a body whose inputs or outputs
 * do not match its node. It also records which regions read each graph input (ir.h
 * input_reads), while the nodes are as the model writes them.
 */
#include <stdlib.h>
#include <string.h>

#include "onnx_proto.h"

static wg_status missing_body(const wgc_onnx_ctx *c, const wgc_node *n, const char *attr)
{
    return wgc_onnx_fail(c, WG_ERR_INVALID, "node '%s' (%s) has no graph attribute '%s' (its body)",
                         n->name, n->op_type, attr);
}

static wg_status arity(const wgc_onnx_ctx *c, const wgc_node *n, const char *attr, const char *what,
                       int have, int want, const char *why)
{
    return wgc_onnx_fail(c, WG_ERR_INVALID, "node '%s' (%s): body '%s' has %d %s, but %s needs %d (%s)",
                         n->name, n->op_type, attr, have, what, n->op_type, want, why);
}

/* Sets node m's inputs to the n values at v (copied). */
static bool set_inputs(wgc_node *m, const int *v, int n)
{
    int *nv = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!nv)
        return false;
    if (n)
        memcpy(nv, v, sizeof(int) * (size_t)n);
    free(m->inputs);
    m->inputs = nv;
    m->n_inputs = n;
    return true;
}

/* Appends the n values at v to node m's inputs. */
static bool append_inputs(wgc_node *m, const int *v, int n)
{
    int *nv = realloc(m->inputs, sizeof(int) * (size_t)(m->n_inputs + n + 1));
    if (!nv)
        return false;
    if (n)
        memcpy(nv + m->n_inputs, v, sizeof(int) * (size_t)n);
    m->inputs = nv;
    m->n_inputs += n;
    return true;
}

static wg_status link_if(const wgc_onnx_ctx *c, wgc_graph *g, int i, const int *first)
{
    wgc_node *n = &g->nodes[i];
    const wgc_body *th = wgc_attr_body(n, "then_branch"), *el = wgc_attr_body(n, "else_branch");
    if (!th)
        return missing_body(c, n, "then_branch");
    if (!el)
        return missing_body(c, n, "else_branch");
    if (n->n_inputs != 1 || n->inputs[0] < 0)
        return wgc_onnx_fail(c, WG_ERR_INVALID, "node '%s' (If) has %d inputs; If reads one condition",
                             n->name, n->n_inputs);
    const struct {
        const char *attr;
        const wgc_body *b;
    } br[2] = {{"then_branch", th}, {"else_branch", el}};
    for (int k = 0; k < 2; k++) {
        if (br[k].b->n_inputs)
            return arity(c, n, br[k].attr, "inputs", br[k].b->n_inputs, 0, "a branch takes none");
        if (br[k].b->n_outputs != n->n_outputs)
            return arity(c, n, br[k].attr, "outputs", br[k].b->n_outputs, n->n_outputs,
                         "one per output of the If");
    }
    wgc_node *then_marker = &g->nodes[first[th->region]], *else_marker = &g->nodes[first[el->region]];
    char *op = wgc_onnx_dupn((const uint8_t *)"BodyElse", 8);
    if (!op || !set_inputs(then_marker, n->inputs, 1)) {
        free(op);
        return WG_ERR_NOMEM;
    }
    free(else_marker->op_type);
    else_marker->op_type = op;
    else_marker->op = WGC_OP_BODY_ELSE;
    n = &g->nodes[i];
    if (!append_inputs(n, th->outputs, th->n_outputs) || !append_inputs(n, el->outputs, el->n_outputs))
        return WG_ERR_NOMEM;
    return WG_OK;
}

/* Loop and Scan: n_state carried values of which the body's inputs start with `lead`
 * extra ones (Loop: iteration and condition) and its outputs with `lead_out` (Loop: the
 * condition); n_scan more body inputs (Scan's elements). */
static wg_status link_loop(const wgc_onnx_ctx *c, wgc_graph *g, int i, const int *first)
{
    wgc_node *n = &g->nodes[i];
    const wgc_body *b = wgc_attr_body(n, "body");
    if (!b)
        return missing_body(c, n, "body");
    int n_state, lead, lead_out, n_scan_in = 0;
    if (n->op == WGC_OP_LOOP) {
        if (n->n_inputs < 2)
            return wgc_onnx_fail(c, WG_ERR_INVALID,
                                 "node '%s' (Loop) has %d inputs; Loop reads at least the trip "
                                 "count and the condition (either may be \"\")",
                                 n->name, n->n_inputs);
        n_state = n->n_inputs - 2;
        lead = 2;
        lead_out = 1;
    } else {
        const wgc_attr *a = wgc_attr_find(n, "num_scan_inputs");
        if (!a || a->type != WGC_ATTR_INT || a->i < 1 || a->i > n->n_inputs)
            return wgc_onnx_fail(c, WG_ERR_INVALID,
                                 "node '%s' (Scan): attribute 'num_scan_inputs' must be an int in "
                                 "1..%d (its input count)",
                                 n->name, n->n_inputs);
        n_scan_in = (int)a->i;
        const int lens = n->opset < 9 ? 1 : 0; /* Scan-8: sequence_lens first */
        n_state = n->n_inputs - lens - n_scan_in;
        if (n_state < 0)
            return wgc_onnx_fail(c, WG_ERR_INVALID,
                                 "node '%s' (Scan-8) has %d inputs, fewer than sequence_lens and "
                                 "its %d scan inputs", n->name, n->n_inputs, n_scan_in);
        lead = 0;
        lead_out = 0;
    }
    if (n->n_outputs < n_state)
        return wgc_onnx_fail(c, WG_ERR_INVALID,
                             "node '%s' (%s) has %d outputs, fewer than its %d carried values",
                             n->name, n->op_type, n->n_outputs, n_state);
    if (b->n_inputs != lead + n_state + n_scan_in)
        return arity(c, n, "body", "inputs", b->n_inputs, lead + n_state + n_scan_in,
                     n->op == WGC_OP_LOOP ? "iteration, condition and one per carried value"
                                          : "one per state and one per scan input");
    if (b->n_outputs != lead_out + n->n_outputs)
        return arity(c, n, "body", "outputs", b->n_outputs, lead_out + n->n_outputs,
                     n->op == WGC_OP_LOOP ? "condition, then one per output of the Loop"
                                          : "one per output of the Scan");
    if (!set_inputs(&g->nodes[first[b->region]], n->inputs, n->n_inputs))
        return WG_ERR_NOMEM;
    n = &g->nodes[i];
    if (!append_inputs(n, b->outputs, b->n_outputs) || !append_inputs(n, b->inputs + lead, n_state))
        return WG_ERR_NOMEM;
    return WG_OK;
}

/* SequenceMap: one body input per input of the node, one body output per output. */
static wg_status link_sequence_map(const wgc_onnx_ctx *c, wgc_graph *g, int i, const int *first)
{
    wgc_node *n = &g->nodes[i];
    const wgc_body *b = wgc_attr_body(n, "body");
    if (!b)
        return missing_body(c, n, "body");
    if (b->n_inputs != n->n_inputs)
        return arity(c, n, "body", "inputs", b->n_inputs, n->n_inputs, "one per input of the SequenceMap");
    if (b->n_outputs != n->n_outputs)
        return arity(c, n, "body", "outputs", b->n_outputs, n->n_outputs, "one per output of the SequenceMap");
    if (!set_inputs(&g->nodes[first[b->region]], n->inputs, n->n_inputs))
        return WG_ERR_NOMEM;
    n = &g->nodes[i];
    return append_inputs(n, b->outputs, b->n_outputs) ? WG_OK : WG_ERR_NOMEM;
}

/* Records that region reads graph input t (once per pair). */
static bool add_read(wgc_graph *g, int t, int region)
{
    if (t < 0)
        return true;
    for (int k = 0; k < g->n_input_reads; k++)
        if (g->input_reads[2 * k] == t && g->input_reads[2 * k + 1] == region)
            return true;
    int *v = realloc(g->input_reads, sizeof(int) * 2 * (size_t)(g->n_input_reads + 1));
    if (!v)
        return false;
    g->input_reads = v;
    v[2 * g->n_input_reads] = t;
    v[2 * g->n_input_reads++ + 1] = region;
    return true;
}

/* g->input_reads, from the model as written: before linking, a node's inputs are its ONNX
 * inputs (read in its own region) and a body's outputs are read by the body. A Cast or
 * Identity of an input (float16 files cast theirs in the main graph) reads no size: its
 * output stands for the input, whose reads are then that output's. */
static bool record_input_reads(wgc_graph *g)
{
    int *of = malloc(sizeof(int) * (size_t)(g->n_tensors ? g->n_tensors : 1)); /* the input t stands for */
    if (!of)
        return false;
    for (int t = 0; t < g->n_tensors; t++)
        of[t] = g->tensors[t].is_input ? t : -1;
    bool ok = true;
    for (int i = 0; i < g->n_nodes && ok; i++) {
        const wgc_node *n = &g->nodes[i];
        if ((n->op == WGC_OP_CAST || n->op == WGC_OP_IDENTITY) && n->n_inputs == 1 && n->inputs[0] >= 0 &&
            of[n->inputs[0]] >= 0 && n->n_outputs == 1 && n->outputs[0] >= 0) {
            of[n->outputs[0]] = of[n->inputs[0]];
            continue;
        }
        for (int k = 0; k < n->n_inputs && ok; k++)
            ok = n->inputs[k] < 0 || add_read(g, of[n->inputs[k]], n->region);
        for (int a = 0; a < n->n_attrs && ok; a++) {
            const wgc_body *b = n->attrs[a].type == WGC_ATTR_GRAPH ? n->attrs[a].body : NULL;
            for (int k = 0; b && k < b->n_outputs && ok; k++)
                ok = b->outputs[k] < 0 || add_read(g, of[b->outputs[k]], b->region);
        }
    }
    for (int k = 0; k < g->n_outputs && ok; k++)
        ok = g->outputs[k] < 0 || add_read(g, of[g->outputs[k]], 0);
    free(of);
    return ok;
}

wg_status wgc_onnx_link_bodies(const wgc_onnx_ctx *c, wgc_graph *g)
{
    if (!record_input_reads(g))
        return wgc_onnx_fail(c, WG_ERR_NOMEM, "out of memory linking bodies");
    int *first = malloc(sizeof(int) * ((size_t)g->n_regions + 1));
    if (!first)
        return wgc_onnx_fail(c, WG_ERR_NOMEM, "out of memory linking bodies");
    for (int r = 0; r <= g->n_regions; r++)
        first[r] = -1;
    for (int i = g->n_nodes - 1; i >= 0; i--)
        first[g->nodes[i].region] = i;
    wg_status st = WG_OK;
    for (int i = 0; i < g->n_nodes && !st; i++) {
        const wgc_op op = g->nodes[i].op;
        if (op == WGC_OP_IF)
            st = link_if(c, g, i, first);
        else if (op == WGC_OP_LOOP || op == WGC_OP_SCAN)
            st = link_loop(c, g, i, first);
        else if (op == WGC_OP_SEQUENCE_MAP)
            st = link_sequence_map(c, g, i, first);
    }
    free(first);
    if (st == WG_ERR_NOMEM)
        return wgc_onnx_fail(c, st, "out of memory linking bodies");
    return st;
}
