/* versions.h: which version of its operator a node runs (from the model's opset import and
 * ONNX's schema history, ir/onnx_versions.def), and the check that we implement it. */
#ifndef WGC_VERSIONS_H
#define WGC_VERSIONS_H

#include "../ir/ir.h"

/* The newest default-domain opset the compiler reads (ONNX's, from onnx_versions.def). */
int wgc_onnx_max_opset(void);
/* The since_version of n's operator that n's opset selects (e.g. 13 for Softmax at opset
 * 17; 1 for an onnxruntime operator at com.microsoft opset 1 or any default-domain opset);
 * 0 when its domain has no such op at that opset, or is ai.onnx.preview.training. */
int wgc_op_version(const wgc_node *n);
/* The newest version of op this compiler implements; 0 for a training op. */
int wgc_op_newest_implemented(wgc_op op);
/* WG_OK, or an unsupported error naming the node, its op's version and the newest one
 * implemented, when n runs a version of its op newer than what we implement; for a
 * com.microsoft node, an error when the model does not import com.microsoft opset 1. */
wg_status wgc_check_version(wgc_graph *g, const wgc_node *n);

#endif
