/*
 * binary.c: broadcasting Add/Sub/Mul/Div on float32, int32 and int64 (see wgk_eltwise.h).
 *
 * The output is walked row by row: the last dim is the row, its operand strides are 1 (a
 * full row), 0 (one broadcast value) or anything else (a general stride). Rows with unit
 * and zero strides have SIMD128 paths for float32.
 */
#include "wgk_eltwise.h"

/* One float row for one op, specialised by operand stride. */
#ifdef __wasm_simd128__
#define F32_SIMD_ROW(VOP)                                                                  \
    if (sa == 1 && sb == 1)                                                                \
        for (; i + 4 <= n; i += 4)                                                         \
            wasm_v128_store(y + i, VOP(wasm_v128_load(a + i), wasm_v128_load(b + i)));     \
    else if (sa == 1 && sb == 0) {                                                         \
        v128_t vb = wasm_f32x4_splat(b[0]);                                                \
        for (; i + 4 <= n; i += 4)                                                         \
            wasm_v128_store(y + i, VOP(wasm_v128_load(a + i), vb));                        \
    } else if (sa == 0 && sb == 1) {                                                       \
        v128_t va = wasm_f32x4_splat(a[0]);                                                \
        for (; i + 4 <= n; i += 4)                                                         \
            wasm_v128_store(y + i, VOP(va, wasm_v128_load(b + i)));                        \
    }
#else
#define F32_SIMD_ROW(VOP)
#endif

#define F32_ROW(name, VOP, EXPR)                                                           \
    static void name(float *y, const float *a, const float *b, int32_t n, int32_t sa,      \
                     int32_t sb)                                                           \
    {                                                                                      \
        int32_t i = 0;                                                                     \
        F32_SIMD_ROW(VOP)                                                                  \
        for (; i < n; i++) {                                                               \
            float x0 = a[i * sa], x1 = b[i * sb];                                          \
            y[i] = EXPR;                                                                   \
        }                                                                                  \
    }

F32_ROW(f32_add_row, wasm_f32x4_add, x0 + x1)
F32_ROW(f32_sub_row, wasm_f32x4_sub, x0 - x1)
F32_ROW(f32_mul_row, wasm_f32x4_mul, x0 * x1)
F32_ROW(f32_div_row, wasm_f32x4_div, x0 / x1)

/* Integer rows: wrapping arithmetic through unsigned, guarded division. */
#define INT_ROWS(T, UT, MIN)                                                               \
    static void T##_row(int op, T *y, const T *a, const T *b, int32_t n, int32_t sa,       \
                        int32_t sb)                                                        \
    {                                                                                      \
        switch (op) {                                                                      \
        case WGK_BIN_ADD:                                                                  \
            for (int32_t i = 0; i < n; i++)                                                \
                y[i] = (T)((UT)a[i * sa] + (UT)b[i * sb]);                                 \
            break;                                                                         \
        case WGK_BIN_SUB:                                                                  \
            for (int32_t i = 0; i < n; i++)                                                \
                y[i] = (T)((UT)a[i * sa] - (UT)b[i * sb]);                                 \
            break;                                                                         \
        case WGK_BIN_MUL:                                                                  \
            for (int32_t i = 0; i < n; i++)                                                \
                y[i] = (T)((UT)a[i * sa] * (UT)b[i * sb]);                                 \
            break;                                                                         \
        default:                                                                           \
            for (int32_t i = 0; i < n; i++) {                                              \
                T x0 = a[i * sa], x1 = b[i * sb];                                          \
                y[i] = (x1 == 0 || (x0 == MIN && x1 == -1)) ? 0 : x0 / x1;                 \
            }                                                                              \
            break;                                                                         \
        }                                                                                  \
    }

INT_ROWS(int32_t, uint32_t, INT32_MIN)
INT_ROWS(int64_t, uint64_t, INT64_MIN)

/* Walks the outer dims of the output (all but the last), keeping operand offsets. Calls
 * ROW(y_row, a_row, b_row) once per output row. */
#define WALK(ROW)                                                                          \
    do {                                                                                   \
        int32_t idx[WGK_MAX_DIMS] = {0};                                                   \
        int last = rank - 1;                                                               \
        int32_t n = dims[last];                                                            \
        size_t outer = 1;                                                                  \
        for (int d = 0; d < last; d++)                                                     \
            outer *= (size_t)dims[d];                                                      \
        ptrdiff_t oa = 0, ob = 0;                                                          \
        for (size_t o = 0; o < outer; o++) {                                               \
            ROW(y + o * (size_t)n, a + oa, b + ob);                                        \
            for (int d = last - 1; d >= 0; d--) {                                          \
                oa += sa[d];                                                               \
                ob += sb[d];                                                               \
                if (++idx[d] < dims[d])                                                    \
                    break;                                                                 \
                oa -= (ptrdiff_t)sa[d] * dims[d];                                          \
                ob -= (ptrdiff_t)sb[d] * dims[d];                                          \
                idx[d] = 0;                                                                \
            }                                                                              \
        }                                                                                  \
    } while (0)

#define WGK_MAX_DIMS 8

void wgk_f32_binary(int op, float *y, const float *a, const float *b, int rank,
                    const int32_t *dims, const int32_t *sa, const int32_t *sb)
{
    if (rank < 1)
        return;
    int32_t la = sa[rank - 1], lb = sb[rank - 1];
#define ROWF(fn) WALK(ROWCALL_##fn)
#define ROWCALL_f32_add_row(py, pa, pb) f32_add_row(py, pa, pb, n, la, lb)
#define ROWCALL_f32_sub_row(py, pa, pb) f32_sub_row(py, pa, pb, n, la, lb)
#define ROWCALL_f32_mul_row(py, pa, pb) f32_mul_row(py, pa, pb, n, la, lb)
#define ROWCALL_f32_div_row(py, pa, pb) f32_div_row(py, pa, pb, n, la, lb)
    switch (op) {
    case WGK_BIN_ADD: ROWF(f32_add_row); break;
    case WGK_BIN_SUB: ROWF(f32_sub_row); break;
    case WGK_BIN_MUL: ROWF(f32_mul_row); break;
    default: ROWF(f32_div_row); break;
    }
}

/* wgk_NAME_binary over the rows of T (INT_ROWS), which switch on op themselves. */
#define INT_BINARY(NAME, T)                                                                \
    void wgk_##NAME##_binary(int op, T *y, const T *a, const T *b, int rank,              \
                             const int32_t *dims, const int32_t *sa, const int32_t *sb)   \
    {                                                                                      \
        if (rank < 1)                                                                      \
            return;                                                                        \
        int32_t la = sa[rank - 1], lb = sb[rank - 1];                                      \
        WALK(ROW_##T);                                                                     \
    }
#define ROW_int32_t(py, pa, pb) int32_t_row(op, py, pa, pb, n, la, lb)
#define ROW_int64_t(py, pa, pb) int64_t_row(op, py, pa, pb, n, la, lb)

INT_BINARY(i32, int32_t)
INT_BINARY(i64, int64_t)
