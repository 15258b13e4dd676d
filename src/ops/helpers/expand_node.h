/*
 * expand_node.h: an operator that is a composition of ONNX operators becomes them.
 *
 * onnxruntime's contrib operators are mostly fusions of ONNX ones (SkipLayerNormalization
 * is Add, Add and LayerNormalization; BiasGelu is Add and Gelu; QuickGelu is Swish). Such
 * an op's infer hook checks the node as its schema says, then writes the ONNX nodes that
 * compute it right after itself and dies; inference goes on with them. Every hook of those
 * ops (kernels, folding, the MatMul epilogue fusion of a bias and a Gelu, symbolic dims,
 * threads) then serves the composite op, and each formula stays in one place.
 *
 *     const int a = n->inputs[0], b = n->inputs[1], y = n->outputs[0];
 *     wgc_expansion x;
 *     wgc_expand_begin(&x, g, n);   // adding nodes may move n: read it before
 *     int sum = wgc_expand_tensor(&x, "/sum");
 *     wgc_expand_add(&x, "/sum", "Add", (const int[]){a, b}, 2, &sum, 1);
 *     int k = wgc_expand_add(&x, "", "Gelu", &sum, 1, &y, 1);
 *     wgc_expand_attr_str(&x, k, "approximate", "tanh");
 *     return wgc_expand_finish(&x);
 *
 * The new nodes are of the default domain, at the opset of the newest version we implement
 * (ops/versions.c), in the expanded node's body; each is named after it ("<name><suffix>":
 * give the node that writes the op's first output the suffix "", so that messages and
 * profiles about it name the model's node). Their inputs and outputs are the expanded
 * node's tensors, or new ones for the values between them.
 */
#ifndef WGC_OPS_EXPAND_NODE_H
#define WGC_OPS_EXPAND_NODE_H

#include "../op.h"

typedef struct wgc_expansion {
    wgc_graph *g;
    int node;     /* the node being expanded (its index does not move) */
    int first;    /* the first new node (appended until wgc_expand_finish moves them) */
    wg_status st; /* the first failure; every later call then does nothing */
} wgc_expansion;

void wgc_expand_begin(wgc_expansion *x, wgc_graph *g, const wgc_node *n);
/* A new tensor named "<node name><suffix>" (made unique) for a value between the new
 * nodes; -1 after a failure. */
int wgc_expand_tensor(wgc_expansion *x, const char *suffix);
/* Appends a default-domain node op_type(ins) -> outs (-1: omitted) named
 * "<node name><suffix>"; returns its index, or -1 after a failure. */
int wgc_expand_add(wgc_expansion *x, const char *suffix, const char *op_type, const int *ins,
                   int n_in, const int *outs, int n_out);
/* The same, of domain `domain` (a com.microsoft op that another one expands into). */
int wgc_expand_add_in(wgc_expansion *x, const char *domain, const char *suffix, const char *op_type,
                      const int *ins, int n_in, const int *outs, int n_out);
/* A new constant int64 vector of the n values v (a Split's sizes, a Squeeze's axes); -1 after
 * a failure. */
int wgc_expand_const_i64(wgc_expansion *x, const char *suffix, const int64_t *v, int n);
/* An attribute of new node k. */
void wgc_expand_attr_float(wgc_expansion *x, int k, const char *name, float v);
void wgc_expand_attr_int(wgc_expansion *x, int k, const char *name, int64_t v);
void wgc_expand_attr_str(wgc_expansion *x, int k, const char *name, const char *v);
void wgc_expand_attr_ints(wgc_expansion *x, int k, const char *name, const int64_t *v, int n);
/* Every attribute of the expanded node, copied to new node k (an op that is another with
 * other inputs: DynamicQuantizeLSTM's LSTM). */
void wgc_expand_attrs_of_node(wgc_expansion *x, int k);
/* Moves the new nodes right after the expanded node, which dies having handed them its
 * inputs and outputs; the status of the first failure, or WG_OK. */
wg_status wgc_expand_finish(wgc_expansion *x);
/* The emit hook of an op that always expands: never reached (an internal error if it is). */
wg_status wgc_expanded_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n);

#endif
