/*
 * qlinear.h: what the integer-exact ops with a QLinear form share: ConvInteger / QLinearConv
 * (qconv.c) and MatMulInteger / QLinearMatMul (qmatmul.c). Their inputs line up: the integer
 * form is (a, b, a_zero_point, b_zero_point), the QLinear one (a, a_scale, a_zero_point, b,
 * b_scale, b_zero_point, y_scale, y_zero_point[, bias]); a and b are uint8 or int8.
 */
#ifndef WGC_OPS_QLINEAR_H
#define WGC_OPS_QLINEAR_H

#include "../op.h"

/* The input indices of the operands a, b and their zero points, by the node's form. */
typedef struct wgc_q_inputs {
    bool qlinear;
    int a, b, az, bz;
} wgc_q_inputs;

/* Which quantization parameters are vectors (else scalars). */
typedef struct wgc_q_vec {
    bool a_zp, b_zp, b_scale;
} wgc_q_vec;

/* How many values a vector parameter of an operand has (0: it must be a scalar), and what
 * each goes with ("output channel"), for messages. */
typedef struct wgc_q_per {
    int64_t n;
    const char *of;
} wgc_q_per;

/* n's input layout into *in (qlinear: the QLinear form, of at most max_qlinear inputs; the
 * integer form takes 2 to 4, and a ConvInteger with its float tail fused, node->qdeq, 7
 * and 2 outputs), its arity and the operands' dtypes checked. */
wg_status wgc_q_inputs_check(wgc_graph *g, const wgc_node *n, bool qlinear, int max_qlinear,
                             wgc_q_inputs *in);

/* The quantization parameters: the zero points of a and b (absent, or of their operand's
 * dtype); in the QLinear form also the float32 scales of a, b and y and y's uint8 / int8 zero
 * point. Each is a scalar, but a's zero point may have per[0] values and b's zero point and
 * scale per[1] (which *vec says). names: the operands in messages ("x", "w"). *ydt: y's
 * dtype (int32 in the integer form). */
wg_status wgc_q_params_check(wgc_graph *g, const wgc_node *n, const wgc_q_inputs *in,
                             const char *const names[2], const wgc_q_per per[2], wgc_q_vec *vec,
                             int *ydt);

/* The address of input i when n has it, else "0". */
const char *wgc_q_ptr_or_0(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int i);

/* Whether MatMulInteger node n runs on the int8 GEMM (the selection step's
 * WGC_KERNEL_Q8_GEMM): its b a constant matrix (rank 2), b's zero point absent or constant
 * (qmatmul.c). */
bool wgc_qmatmul_packs_b(wgc_graph *g, const wgc_node *n);

/* Emits the QLinear form's requantization of the int32 product acc into output 0 (ny values
 * of dtype ydt) with the scales and y's zero point of inputs 1, 4, 6 and 7; b's scale a
 * vector when vec_scale, of per values each repeated inner times. */
void wgc_q_emit_requantize(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int ydt, int64_t ny,
                           bool vec_scale, int64_t per, int64_t inner);

#endif
