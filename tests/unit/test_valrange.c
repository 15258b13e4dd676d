/*
 * test_valrange.c: bounds on integer values computed at run time (src/ir/valrange.c and
 * the ops' sym.bounds hooks).
 *
 * Checks: --dim NAME=MIN..MAX on an integer graph input bounds every element; the rules of
 * Min, Sub, Div, Mod, Mul (a negative factor swaps the ends), Concat and Gather (per
 * element on small vectors); a product that may overflow and a division by a range that
 * holds 0 give no bound; Pad of pads so bounded gets run-time output dims bounded by the
 * input dim plus the largest pads, and a pad left unbounded is refused naming the --dim.
 */
#include <string.h>

#include "../../src/ir/symdim.h"
#include "../../src/ir/valrange.h"
#include "../../src/passes/passes.h"
#include "../test.h"
#include "graph_build.h"

static int i64_const(wgc_graph *g, const char *name, int n, const int64_t *v)
{
    return tg_const(g, name, WG_DT_INT64, (int64_t[]){n}, 1, v);
}

static int binary(wgc_graph *g, const char *type, int a, int b, const char *out)
{
    return tg_node(g, type, (int[]){a, b}, 2, out);
}

static bool range_is(const wgc_graph *g, int t, int64_t i, int64_t lo, int64_t hi)
{
    wgc_vrange r;
    return wgc_vrange_at(g, &g->tensors[t], i, &r) && r.lo == lo && r.hi == hi;
}

static wgc_pass_options bound_p(int64_t lo, int64_t hi)
{
    wgc_pass_options o = {.n_dims = 1};
    snprintf(o.dims[0].name, sizeof o.dims[0].name, "p");
    o.dims[0].min = lo;
    o.dims[0].max = hi;
    return o;
}

TEST(integer_ops_carry_bounds)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 13;
    int p = tg_input(g, "p", WG_DT_INT64, 1, (int64_t[]){4});
    int two = i64_const(g, "two", 1, (int64_t[]){2}), ten = i64_const(g, "ten", 1, (int64_t[]){10});
    int four = i64_const(g, "four", 1, (int64_t[]){4}), neg = i64_const(g, "neg", 1, (int64_t[]){-2});
    int five = i64_const(g, "five", 1, (int64_t[]){5}), one = i64_const(g, "one", 1, (int64_t[]){1});
    int huge = i64_const(g, "huge", 1, (int64_t[]){INT64_MAX}), sub1 = i64_const(g, "m1", 1, (int64_t[]){-1});
    int mn = binary(g, "Min", p, two, "mn");
    int sb = binary(g, "Sub", ten, p, "sb");
    int dv = binary(g, "Div", sb, two, "dv");
    int md = binary(g, "Mod", p, four, "md");
    int ml = binary(g, "Mul", p, neg, "ml");
    int gt = binary(g, "Gather", p, one, "gt");
    int cc = tg_node(g, "Concat", (int[]){five, gt}, 2, "cc");
    wgc_attr_add(g, g->tensors[cc].producer, "axis", WGC_ATTR_INT)->i = 0;
    int ov = binary(g, "Mul", p, huge, "ov");
    int around0 = binary(g, "Add", p, sub1, "around0"); /* -1..2: holds 0 */
    int dz = binary(g, "Div", ten, around0, "dz");
    int outs[] = {mn, dv, md, ml, cc, ov, dz};
    for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++)
        tg_output(g, outs[k]);
    wgc_pass_options o = bound_p(0, 3);
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(g->n_syms == 0, "a --dim naming an integer input is no symbol (%d symbols)", g->n_syms);
    CHECK(range_is(g, p, 2, 0, 3), "the input's elements lie in its --dim range");
    CHECK(range_is(g, mn, 0, 0, 2), "Min(p, 2) in 0..2");
    CHECK(range_is(g, sb, 3, 7, 10), "10 - p in 7..10");
    CHECK(range_is(g, dv, 0, 3, 5), "(10 - p) / 2 in 3..5");
    CHECK(range_is(g, md, 1, 0, 3), "p mod 4 in 0..3");
    CHECK(range_is(g, ml, 0, -6, 0), "p * -2 in -6..0");
    CHECK(range_is(g, cc, 0, 5, 5) && range_is(g, cc, 1, 0, 3), "Concat keeps each element's bounds");
    wgc_vrange r;
    CHECK(!wgc_vrange_at(g, &g->tensors[ov], 0, &r), "a product that may overflow has no bound");
    CHECK(!wgc_vrange_at(g, &g->tensors[dz], 0, &r), "a division by a range holding 0 has no bound");
    wgc_graph_free(g);
}

/* Pad of x [3, 4] by pads p: bounded by --dim, each output dim is a run-time symbol at
 * 3 or 4 plus twice the largest pad; unbounded, the Pad is refused with the --dim to give. */
static wgc_graph *pad_graph(void)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 13;
    int x = tg_input(g, "x", WG_DT_FLOAT, 2, (int64_t[]){3, 4});
    int p = tg_input(g, "p", WG_DT_INT64, 1, (int64_t[]){4});
    tg_output(g, binary(g, "Pad", x, p, "y"));
    return g;
}

TEST(pad_sizes_from_bounds)
{
    wgc_graph *g = pad_graph();
    wgc_pass_options o = bound_p(0, 2);
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    const wgc_tensor *y = &g->tensors[g->outputs[0]];
    CHECK(y->shape.dims[0] == 7 && y->shape.dims[1] == 8, "bounds 3+2+2 and 4+2+2, got %lld, %lld",
          (long long)y->shape.dims[0], (long long)y->shape.dims[1]);
    CHECK(wgc_dim_is_runtime(g, &y->shape, 0) && wgc_dim_is_runtime(g, &y->shape, 1),
          "both dims are decided at run time");
    wgc_graph_free(g);
    g = pad_graph();
    wgc_pass_options none = {0};
    CHECK(wgc_pass_infer(g, &none) == WG_ERR_UNSUPPORTED, "unbounded pads must be refused");
    CHECK(strstr(g->err, "nothing bounds its values") != NULL, "the message says why: %s", g->err);
    wgc_graph_free(g);
}

int main(void)
{
    RUN(integer_ops_carry_bounds);
    RUN(pad_sizes_from_bounds);
    return test_summary("valrange");
}
