/*
 * random.c: the random-number operators (Bernoulli, RandomUniform(Like), RandomNormal(Like),
 * Multinomial). Their outputs are nondeterministic, so a compiled module could not be
 * checked against anything; they are recognised only to report that clearly.
 */
#include "op.h"

static wg_status random_infer(wgc_graph *g, wgc_node *n)
{
    return wgc_error(g, n, WG_ERR_UNSUPPORTED, "%s draws random numbers; nondeterministic operators are "
                     "not supported", n->op_type);
}

static wg_status random_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    (void)e;
    return random_infer(g, n);
}

const wgc_op_def wgc_op_random = {.infer = random_infer, .emit = random_emit};
