/*
 * test_eltwise.c: broadcasting binary kernels against a naive multi-index loop over edge
 * shapes (scalar operands, per-channel, both sides broadcast, rows not a multiple of 4);
 * integer division semantics; activations (SIMD paths included) against the scalar math
 * functions at every length 0..37 so the vector tails are covered.
 */
#include "wgk.h"
#include "wgkt.h"

#define MAXN 1024

static float fa[MAXN], fb[MAXN], fy[MAXN], fw[MAXN];
static int32_t ia[MAXN], ib[MAXN], iy[MAXN];
static int64_t la[MAXN], lb[MAXN], ly[MAXN];

typedef struct bcase {
    int rank;
    int32_t a[4], b[4]; /* operand dims aligned to rank (1 = broadcast) */
} bcase;

static const bcase cases[] = {
    {3, {2, 3, 5}, {2, 3, 5}}, {3, {2, 3, 5}, {1, 1, 1}}, {3, {1, 1, 1}, {2, 3, 5}},
    {3, {2, 3, 5}, {1, 3, 1}}, {3, {4, 1, 7}, {1, 6, 1}}, {4, {1, 3, 1, 1}, {2, 3, 4, 5}},
    {3, {2, 1, 5}, {2, 3, 1}}, {1, {37}, {37}},           {1, {1}, {1}},
    {2, {9, 13}, {9, 1}},      {2, {9, 13}, {1, 13}},     {4, {2, 3, 4, 5}, {2, 3, 4, 5}},
};

static void strides_of(int rank, const int32_t *dims, int32_t *st)
{
    int32_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        st[d] = dims[d] == 1 ? 0 : s;
        s *= dims[d];
    }
}

/* Offsets of a and b for output element i (naive reference). */
static void offsets(const bcase *c, const int32_t *ydims, int32_t i, int32_t *oa, int32_t *ob)
{
    int32_t sa[4], sb[4];
    strides_of(c->rank, c->a, sa);
    strides_of(c->rank, c->b, sb);
    *oa = *ob = 0;
    for (int d = c->rank - 1; d >= 0; d--) {
        int32_t k = i % ydims[d];
        i /= ydims[d];
        *oa += k * sa[d];
        *ob += k * sb[d];
    }
}

static float ref_f(int op, float x, float y)
{
    switch (op) {
    case WGK_BIN_ADD: return x + y;
    case WGK_BIN_SUB: return x - y;
    case WGK_BIN_MUL: return x * y;
    default: return x / y;
    }
}

static void test_binary(void)
{
    uint32_t seed = 7;
    for (int i = 0; i < MAXN; i++) {
        fa[i] = wgkt_rand(&seed) * 10.0f;
        fb[i] = wgkt_rand(&seed) * 10.0f + 20.0f; /* nonzero divisor */
        ia[i] = (int32_t)(wgkt_rand(&seed) * 1000.0f);
        ib[i] = (int32_t)(wgkt_rand(&seed) * 50.0f);
        la[i] = (int64_t)ia[i] * 100000;
        lb[i] = ib[i];
    }
    ib[3] = 0; /* division by zero gives 0 */
    lb[3] = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const bcase *c = &cases[k];
        int32_t ydims[4], sa[4], sb[4], n = 1;
        for (int d = 0; d < c->rank; d++) {
            ydims[d] = c->a[d] > c->b[d] ? c->a[d] : c->b[d];
            n *= ydims[d];
        }
        strides_of(c->rank, c->a, sa);
        strides_of(c->rank, c->b, sb);
        for (int op = 0; op < 4; op++) {
            wgk_f32_binary(op, fy, fa, fb, c->rank, ydims, sa, sb);
            wgk_i32_binary(op, iy, ia, ib, c->rank, ydims, sa, sb);
            wgk_i64_binary(op, ly, la, lb, c->rank, ydims, sa, sb);
            for (int32_t i = 0; i < n; i++) {
                int32_t oa, ob;
                offsets(c, ydims, i, &oa, &ob);
                WGKT_CHECK_CLOSE(fy[i], ref_f(op, fa[oa], fb[ob]), 0, 0, "f32 binary exact");
                int32_t wi;
                int64_t wl;
                switch (op) {
                case WGK_BIN_ADD: wi = ia[oa] + ib[ob]; wl = la[oa] + lb[ob]; break;
                case WGK_BIN_SUB: wi = ia[oa] - ib[ob]; wl = la[oa] - lb[ob]; break;
                case WGK_BIN_MUL: wi = ia[oa] * ib[ob]; wl = la[oa] * lb[ob]; break;
                default:
                    wi = ib[ob] ? ia[oa] / ib[ob] : 0;
                    wl = lb[ob] ? la[oa] / lb[ob] : 0;
                    break;
                }
                WGKT_CHECK(iy[i] == wi, "i32 binary");
                WGKT_CHECK(ly[i] == wl, "i64 binary");
            }
        }
    }
    /* In place: y aliases a. */
    for (int i = 0; i < 10; i++)
        fy[i] = (float)i;
    wgk_f32_binary(WGK_BIN_MUL, fy, fy, fb, 1, (const int32_t[]){10}, (const int32_t[]){1},
                   (const int32_t[]){0});
    for (int i = 0; i < 10; i++)
        WGKT_CHECK_CLOSE(fy[i], (float)i * fb[0], 0, 0, "in-place multiply by a scalar");
    /* Integer division truncates toward zero; INT_MIN / -1 does not trap. */
    int32_t q[4], num[4] = {-7, 7, -7, INT32_MIN}, den[4] = {2, -2, -2, -1};
    wgk_i32_binary(WGK_BIN_DIV, q, num, den, 1, (const int32_t[]){4}, (const int32_t[]){1},
                   (const int32_t[]){1});
    WGKT_CHECK(q[0] == -3 && q[1] == -3 && q[2] == 3 && q[3] == 0, "i32 div truncates");
}

static void test_activations(void)
{
    uint32_t seed = 99;
    for (int i = 0; i < MAXN; i++)
        fa[i] = wgkt_rand(&seed) * 12.0f;
    fa[0] = NAN;
    fa[1] = INFINITY;
    fa[2] = -INFINITY;
    fa[3] = -100.0f;
    fa[5] = 1e-6f;
    fa[6] = -0.49f;
    for (size_t n = 0; n <= 37; n++) {
        for (size_t i = 0; i < n + 4; i++)
            fy[i] = fw[i] = 12345.0f; /* sentinel past the end */
        wgk_f32_relu(fy, fa, n);
        for (size_t i = 0; i < n; i++)
            WGKT_CHECK_CLOSE(fy[i], fa[i] < 0 ? 0.0f : fa[i], 0, 0, "relu");
        WGKT_CHECK(fy[n] == 12345.0f, "relu writes only n elements");
        wgk_f32_leaky_relu(fy, fa, n, 0.1f);
        for (size_t i = 0; i < n; i++)
            WGKT_CHECK_CLOSE(fy[i], fa[i] < 0 ? fa[i] * 0.1f : fa[i], 0, 0, "leaky relu");
        wgk_f32_clip(fy, fa, n, -1.5f, 6.0f);
        for (size_t i = 0; i < n; i++) {
            float v = fa[i] < -1.5f ? -1.5f : fa[i] > 6.0f ? 6.0f : fa[i];
            WGKT_CHECK_CLOSE(fy[i], v, 0, 0, "clip");
        }
        wgk_f32_sigmoid(fy, fa, n);
        for (size_t i = 0; i < n; i++)
            WGKT_CHECK_CLOSE(fy[i], wgk_sigmoidf(fa[i]), 6e-7f, 1.2e-38f, "sigmoid");
        WGKT_CHECK(fy[n] == 12345.0f, "sigmoid writes only n elements");
        wgk_f32_tanh(fy, fa, n);
        for (size_t i = 0; i < n; i++)
            WGKT_CHECK_CLOSE(fy[i], wgk_tanhf(fa[i]), 6e-7f, 1e-38f, "tanh");
    }
    /* tanh near the switch point and tiny values keep relative accuracy. */
    float xs[8] = {0.4999f, 0.5f, 0.5001f, -0.4999f, 1e-5f, -1e-5f, 3e-3f, 20.0f}, ys[8];
    wgk_f32_tanh(ys, xs, 8);
    for (int i = 0; i < 8; i++)
        WGKT_CHECK_CLOSE(ys[i], wgk_tanhf(xs[i]), 6e-7f, 0, "tanh near 0.5 and tiny");
    /* In place. */
    for (int i = 0; i < 9; i++)
        fy[i] = (float)i - 4.0f;
    wgk_f32_relu(fy, fy, 9);
    WGKT_CHECK(fy[0] == 0.0f && fy[8] == 4.0f, "relu in place");
}

static void run(void)
{
    test_binary();
    test_activations();
}

WGKT_MAIN("eltwise", run)
