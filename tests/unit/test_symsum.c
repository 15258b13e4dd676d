/*
 * test_symsum.c: sums of symbols (src/ir/symdim.c wgc_linear_*, wgc_dimx_add_sym;
 * docs/symbolic-dims.md "Sums of symbols").
 *
 * Checks: dim_param expressions parse (a + b, a + 1, a - 1, 2 * a, parentheses; a product of
 * symbols and unknown names do not); a sum of different symbols is one symbol per definition
 * (b + a is a + b), with min and max from its terms, and cancels back to a monomial; through
 * inference, the Concat of a past [1, p, 4] with new rows [1, s, 4], the Add of their Shape
 * values and a graph input's dim_param "p + s" are one host symbol, p + s is computed by the
 * module's wg_check_dims and checked there; a Slice of the p + s axis to s is s long; an Add of tensors whose dims the compiler cannot
 * prove equal is unsupported, naming the node, two different fixed sizes invalid; a model's own
 * symbol against a sum of others is taken as equal and checked at run time.
 */
#include <stdlib.h>
#include <string.h>

#include "../../src/ir/symdim.h"
#include "../../src/codegen/sym_exports.h"
#include "../../src/passes/passes.h"
#include "../test.h"
#include "graph_build.h"

static wgc_pass_options dims_ab(void)
{
    wgc_pass_options o = {.n_dims = 2};
    snprintf(o.dims[0].name, sizeof o.dims[0].name, "p");
    o.dims[0].min = 0;
    o.dims[0].max = 64;
    snprintf(o.dims[1].name, sizeof o.dims[1].name, "s");
    o.dims[1].min = 1;
    o.dims[1].max = 32;
    return o;
}

static wgc_dimx sym_x(int k, int64_t c)
{
    wgc_dimx x = wgc_dimx_const(c);
    x.p[k] = 1;
    return x;
}

static int only_sym(const wgc_dimx *x)
{
    int s = -1;
    for (int k = 0; k < WGC_MAX_SYMS; k++)
        if (x->p[k])
            s = s < 0 && x->p[k] == 1 ? k : -2;
    return x->c == 1 ? s : -1;
}

TEST(expressions_parse)
{
    wgc_graph *g = wgc_graph_new();
    g->syms[0] = (wgc_symbol){.name = "a", .min = 0, .max = 8, .unit = -1};
    g->syms[1] = (wgc_symbol){.name = "b", .min = 1, .max = 4, .unit = -1};
    g->n_syms = 2;
    wgc_linear l;
    char unknown[64];
    CHECK(wgc_linear_parse(g, "a + b", &l, unknown, sizeof unknown) && l.n == 2 && l.sym[0] == 0 &&
          l.sym[1] == 1 && l.c[0] == 1 && l.c[1] == 1 && l.plus == 0, "a + b");
    CHECK(wgc_linear_parse(g, "a+1", &l, NULL, 0) && l.n == 1 && l.c[0] == 1 && l.plus == 1, "a+1");
    CHECK(wgc_linear_parse(g, "a - 1", &l, NULL, 0) && l.n == 1 && l.plus == -1, "a - 1");
    CHECK(wgc_linear_parse(g, "2 * a", &l, NULL, 0) && l.n == 1 && l.c[0] == 2 && l.plus == 0, "2 * a");
    CHECK(wgc_linear_parse(g, "(b + a) * 2 - b", &l, NULL, 0) && l.n == 2 && l.c[0] == 2 && l.c[1] == 1,
          "(b + a) * 2 - b is 2a + b");
    CHECK(wgc_linear_parse(g, "a - a + 3", &l, NULL, 0) && l.n == 0 && l.plus == 3, "a - a + 3 is 3");
    CHECK(!wgc_linear_parse(g, "a * b", &l, NULL, 0), "a product of symbols is not linear");
    CHECK(!wgc_linear_parse(g, "a", &l, NULL, 0), "a plain name is no expression");
    CHECK(!wgc_linear_parse(g, "a + c", &l, unknown, sizeof unknown) && !strcmp(unknown, "c"),
          "an unknown name is reported (%s)", unknown);
    CHECK(!wgc_linear_parse(g, "a + ", &l, NULL, 0), "an incomplete expression");
    wgc_graph_free(g);
}

TEST(sums_are_hash_consed)
{
    wgc_graph *g = wgc_graph_new();
    g->syms[0] = (wgc_symbol){.name = "p", .min = 0, .max = 64, .unit = -1};
    g->syms[1] = (wgc_symbol){.name = "s", .min = 1, .max = 32, .unit = -1};
    g->n_syms = 2;
    wgc_dimx ps, sp, back, s1, neg_s = sym_x(1, -1), two;
    CHECK(wgc_dimx_add_sym(g, NULL, sym_x(0, 1), sym_x(1, 1), &ps), "p + s");
    const int k = only_sym(&ps);
    CHECK(k == 2 && g->n_syms == 3, "p + s is a new symbol (%d of %d)", k, g->n_syms);
    CHECK(g->syms[k].derived && g->syms[k].runtime && g->syms[k].n_terms == 2, "a derived sum");
    CHECK(g->syms[k].min == 1 && g->syms[k].max == 96, "its range from its terms' (%lld..%lld)",
          (long long)g->syms[k].min, (long long)g->syms[k].max);
    CHECK(!strcmp(g->syms[k].name, "p + s"), "named by its definition (%s)", g->syms[k].name);
    CHECK(wgc_dimx_add_sym(g, NULL, sym_x(1, 1), sym_x(0, 1), &sp) && wgc_dimx_eq(&ps, &sp) && g->n_syms == 3,
          "s + p is the same symbol");
    CHECK(wgc_dimx_max(g, &ps) == 96, "planned at 96");
    CHECK(wgc_dimx_add_sym(g, NULL, ps, neg_s, &back) && only_sym(&back) == 0, "(p + s) - s is p");
    CHECK(wgc_dimx_add_sym(g, NULL, sym_x(1, 1), wgc_dimx_const(1), &s1) && only_sym(&s1) == 3 &&
          g->syms[3].plus == 1 && g->syms[3].min == 2 && g->syms[3].max == 33, "s + 1: 2..33");
    CHECK(wgc_dimx_add_sym(g, NULL, ps, ps, &two) && two.c == 2 && only_sym(&(wgc_dimx){.c = 1, .p = {[2] = 1}}) == 2 &&
          two.p[2] == 1, "(p + s) + (p + s) is the monomial 2 (p + s)");
    wgc_dimx prod = wgc_dimx_mul(sym_x(0, 1), sym_x(1, 1)), r;
    CHECK(!wgc_dimx_add_sym(g, NULL, prod, wgc_dimx_const(1), &r) && !wgc_dimx_add_ok(g, prod, wgc_dimx_const(1)),
          "p * s + 1 is no linear form");
    wgc_graph_free(g);
}

/* past [1, p, 4], x [1, s, 4], mask [1, "p + s"]: Concat(past, x) and Add(Shape values). */
static wgc_graph *decoder_graph(int *cat, int *total, int *mask)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 17;
    int past = tg_input(g, "past", WG_DT_FLOAT, 3, (int64_t[]){1, -1, 4});
    int x = tg_input(g, "x", WG_DT_FLOAT, 3, (int64_t[]){1, -1, 4});
    *mask = tg_input(g, "mask", WG_DT_INT64, 2, (int64_t[]){1, -1});
    g->tensors[past].dim_param[1] = strdup("p");
    g->tensors[x].dim_param[1] = strdup("s");
    g->tensors[*mask].dim_param[1] = strdup("p + s");
    *cat = tg_node(g, "Concat", (int[]){past, x}, 2, "present");
    wgc_attr_add(g, g->tensors[*cat].producer, "axis", WGC_ATTR_INT)->i = 1;
    int one = tg_const(g, "one", WG_DT_INT64, (int64_t[]){1}, 1, (int64_t[]){1});
    int sp = tg_node(g, "Shape", (int[]){past}, 1, "sp");
    int sx = tg_node(g, "Shape", (int[]){x}, 1, "sx");
    int gp = tg_node(g, "Gather", (int[]){sp, one}, 2, "gp");
    int gx = tg_node(g, "Gather", (int[]){sx, one}, 2, "gx");
    *total = tg_node(g, "Add", (int[]){gp, gx}, 2, "total");
    tg_output(g, *cat);
    tg_output(g, *total);
    return g;
}

/* Checks that the module's symbol code (wgc_sym_exports_c) holds line want. */
static void check_exports(wgc_graph *g, const char *want, const char *what)
{
    char *c = wgc_sym_exports_c(g);
    CHECK(c && strstr(c, want), "%s:\n%s", what, c ? c : "");
    free(c);
}

TEST(one_symbol_for_past_plus_seq)
{
    int cat, total, mask;
    wgc_graph *g = decoder_graph(&cat, &total, &mask);
    wgc_pass_options o = dims_ab();
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    const int k = wgc_sym_find(g, "p + s");
    CHECK(k == 2 && !g->syms[k].runtime && g->syms[k].n_terms == 2, "the mask's dim is a host symbol (%d)", k);
    CHECK(g->syms[k].min == 1 && g->syms[k].max == 96, "its range from p's and s's");
    CHECK(g->tensors[mask].shape.sym[1][k] == 1, "the mask's dim 1 is that symbol");
    CHECK(g->tensors[cat].shape.sym[2][0] == 0 && g->tensors[cat].shape.sym[1][k] == 1 &&
          g->tensors[cat].shape.dims[1] == 96, "Concat(past, x) along p and s is that symbol");
    CHECK(g->tensors[total].symval && only_sym(&g->tensors[total].symval[0]) == k,
          "Add of the Shape values is that symbol");
    CHECK(g->n_syms == 3, "no other symbol (%d)", g->n_syms);
    check_exports(g, "if (wg_dims[2] != 0LL + 1LL * wg_dims[0] + 1LL * wg_dims[1])",
                  "the module checks the host's p + s against its terms");
    wgc_graph_free(g);
}

TEST(a_derived_sum_is_computed)
{
    int cat, total, mask;
    wgc_graph *g = decoder_graph(&cat, &total, &mask);
    free(g->tensors[mask].dim_param[1]);
    g->tensors[mask].dim_param[1] = strdup("s"); /* no input says p + s: Concat makes it */
    wgc_pass_options o = dims_ab();
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    const int k = wgc_sym_find(g, "p + s");
    CHECK(k >= 2 && g->syms[k].derived && g->tensors[cat].shape.sym[1][k] == 1, "a derived p + s (%d)", k);
    check_exports(g, "wg_dims[2] = (int32_t)(0LL + 1LL * wg_dims[0] + 1LL * wg_dims[1]);", "computed before any step");
    wgc_graph_free(g);
}

TEST(slice_to_a_shorter_sum)
{
    int cat, total, mask;
    wgc_graph *g = decoder_graph(&cat, &total, &mask);
    /* present[:, :s] and present[:, :p + s]: a symbolic end never past the axis */
    int sx = tg_node(g, "Shape", (int[]){g->inputs[1]}, 1, "sx2");
    int one = tg_const(g, "one1", WG_DT_INT64, (int64_t[]){1}, 1, (int64_t[]){1});
    int two = tg_const(g, "two1", WG_DT_INT64, (int64_t[]){1}, 1, (int64_t[]){2});
    int zero = tg_const(g, "zero1", WG_DT_INT64, (int64_t[]){1}, 1, (int64_t[]){0});
    int end = tg_node(g, "Slice", (int[]){sx, one, two}, 3, "end_s");
    int head = tg_node(g, "Slice", (int[]){cat, zero, end, one}, 4, "head");
    tg_output(g, head);
    wgc_pass_options o = dims_ab();
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    const wgc_shape *y = &g->tensors[head].shape;
    CHECK(y->sym[1][1] == 1 && y->dims[1] == 32, "present[:, :s] is s long (%lld)", (long long)y->dims[1]);
    CHECK(g->n_syms == 3, "no run-time size of its own (%d symbols)", g->n_syms);
    wgc_graph_free(g);
}

TEST(unprovable_broadcast_is_unsupported)
{
    int cat, total, mask;
    wgc_graph *g = decoder_graph(&cat, &total, &mask);
    int x = g->inputs[1];
    int bad = tg_node(g, "Add", (int[]){cat, x}, 2, "bad"); /* [1, p + s, 4] + [1, s, 4] */
    tg_output(g, bad);
    wgc_pass_options o = dims_ab();
    wg_status st = wgc_pass_infer(g, &o);
    CHECK(st == WG_ERR_UNSUPPORTED && strstr(g->err, "Add_") && strstr(g->err, "p + s") &&
          strstr(g->err, "cannot prove"), "unsupported, naming the node and the dims: %s", g->err);
    wgc_graph_free(g);

    g = wgc_graph_new();
    g->opset = 17;
    int a = tg_input(g, "a", WG_DT_FLOAT, 2, (int64_t[]){-1, 3});
    int b = tg_input(g, "b", WG_DT_FLOAT, 2, (int64_t[]){-1, 4});
    g->tensors[a].dim_param[0] = strdup("s");
    g->tensors[b].dim_param[0] = strdup("s");
    tg_output(g, tg_node(g, "Add", (int[]){a, b}, 2, "y"));
    wgc_pass_options o2 = {.n_dims = 1};
    snprintf(o2.dims[0].name, sizeof o2.dims[0].name, "s");
    o2.dims[0].min = 1;
    o2.dims[0].max = 8;
    st = wgc_pass_infer(g, &o2);
    CHECK(st == WG_ERR_INVALID && strstr(g->err, "does not broadcast"), "fixed 3 against 4 stays invalid: %s",
          g->err);
    wgc_graph_free(g);
}

/* The genai builder's mask: its own total t against p + s, taken as equal (the larger
 * maximum: the output's) and checked at run time; s against p + s stays unproven, as does
 * t against a form holding t. */
TEST(checked_equal_dims)
{
    wgc_graph *g = wgc_graph_new();
    g->syms[0] = (wgc_symbol){.name = "p", .min = 0, .max = 64, .unit = -1};
    g->syms[1] = (wgc_symbol){.name = "s", .min = 1, .max = 32, .unit = -1};
    g->syms[2] = (wgc_symbol){.name = "t", .min = 1, .max = 80, .unit = -1};
    g->n_syms = 3;
    wgc_dimx ps, t = sym_x(2, 1), s = sym_x(1, 1), t2 = sym_x(2, 2);
    CHECK(wgc_dimx_add_sym(g, NULL, sym_x(0, 1), s, &ps), "p + s: %s", g->err);
    CHECK(wgc_dims_checked_equal(g, &t, &ps) && wgc_dims_checked_equal(g, &ps, &t), "t against p + s");
    CHECK(!wgc_dims_checked_equal(g, &s, &ps), "s against p + s is no run-time fact");
    CHECK(!wgc_dims_checked_equal(g, &t, &t2) && !wgc_dims_checked_equal(g, &t, &t), "t against 2t, or itself");
    wgc_shape a = {.rank = 2}, b = {.rank = 2}, y;
    wgc_shape_set_dim(g, &a, 0, s);
    wgc_shape_set_dim(g, &a, 1, ps);
    wgc_shape_set_dim(g, &b, 0, wgc_dimx_const(1));
    wgc_shape_set_dim(g, &b, 1, t);
    CHECK(!wgc_broadcast(&a, &b, &y) && wgc_broadcast_checked(g, &a, &b, &y) && y.dims[1] == 96 &&
              y.sym[1][0] == 0 && y.dims[0] == 32 && y.sym[0][1] == 1,
          "[s, p + s] against [1, t]: [s, p + s], the larger maximum (%lld)", (long long)y.dims[1]);
    wgc_shape_set_dim(g, &b, 1, s);
    CHECK(!wgc_broadcast_checked(g, &a, &b, &y), "[s, p + s] against [1, s]");
    wgc_graph_free(g);
}

int main(void)
{
    RUN(expressions_parse);
    RUN(sums_are_hash_consed);
    RUN(one_symbol_for_past_plus_seq);
    RUN(a_derived_sum_is_computed);
    RUN(slice_to_a_shorter_sum);
    RUN(unprovable_broadcast_is_unsupported);
    RUN(checked_equal_dims);
    return test_summary("symsum");
}
