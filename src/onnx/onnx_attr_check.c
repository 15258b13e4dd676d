/*
 * onnx_attr_check.c: refuses default-domain (and com.microsoft) attributes whose type is not
 * the one ONNX gives that name (Conv `strides` as a FLOAT, Gemm `alpha` as INTS, ...). The
 * ops read attributes with getters that fall back to the default on a type mismatch, so
 * without this check a wrongly typed attribute would be silently ignored.
 *
 * Across the default domain each attribute name below has one type in every op and
 * opset that uses it. Names whose type differs between ops (`value`: a TENSOR in
 * Constant, a FLOAT in Pad-1) or that we never read are not listed and pass unchecked.
 * The same holds in com.microsoft: every attribute of onnxruntime's (1.32) contrib schemas
 * that has one of these names has its type, so those are checked too. Other domains pass.
 */
#include <string.h>

#include "onnx_proto.h"

static const struct {
    const char *name;
    int type;
} known[] = {
    {"strides", WGC_ATTR_INTS},        {"pads", WGC_ATTR_INTS},
    {"dilations", WGC_ATTR_INTS},      {"kernel_shape", WGC_ATTR_INTS},
    {"perm", WGC_ATTR_INTS},           {"axes", WGC_ATTR_INTS},
    {"output_padding", WGC_ATTR_INTS}, {"output_shape", WGC_ATTR_INTS},
    {"split", WGC_ATTR_INTS},          {"consumed_inputs", WGC_ATTR_INTS},
    {"axis", WGC_ATTR_INT},            {"group", WGC_ATTR_INT},
    {"transA", WGC_ATTR_INT},          {"transB", WGC_ATTR_INT},
    {"keepdims", WGC_ATTR_INT},        {"ceil_mode", WGC_ATTR_INT},
    {"count_include_pad", WGC_ATTR_INT}, {"storage_order", WGC_ATTR_INT},
    {"to", WGC_ATTR_INT},              {"size", WGC_ATTR_INT},
    {"allowzero", WGC_ATTR_INT},       {"broadcast", WGC_ATTR_INT},
    {"spatial", WGC_ATTR_INT},         {"is_test", WGC_ATTR_INT},
    {"training_mode", WGC_ATTR_INT},   {"select_last_index", WGC_ATTR_INT},
    {"alpha", WGC_ATTR_FLOAT},         {"beta", WGC_ATTR_FLOAT},
    {"epsilon", WGC_ATTR_FLOAT},       {"momentum", WGC_ATTR_FLOAT},
    {"gamma", WGC_ATTR_FLOAT},         {"bias", WGC_ATTR_FLOAT},
    {"min", WGC_ATTR_FLOAT},           {"max", WGC_ATTR_FLOAT},
    {"ratio", WGC_ATTR_FLOAT},         {"value_float", WGC_ATTR_FLOAT},
    {"value_int", WGC_ATTR_INT},       {"value_ints", WGC_ATTR_INTS},
    {"value_floats", WGC_ATTR_FLOATS}, {"auto_pad", WGC_ATTR_STRING},
    {"mode", WGC_ATTR_STRING},
    /* attention (ONNX's Attention and RotaryEmbedding, onnxruntime's attention ops) */
    {"num_heads", WGC_ATTR_INT},       {"kv_num_heads", WGC_ATTR_INT},
    {"softcap", WGC_ATTR_FLOAT},       {"interleaved", WGC_ATTR_INT},
    {"rotary_embedding_dim", WGC_ATTR_INT}, {"do_rotary", WGC_ATTR_INT},
    {"rotary_interleaved", WGC_ATTR_INT}, {"local_window_size", WGC_ATTR_INT},
    {"smooth_softmax", WGC_ATTR_INT},  {"unidirectional", WGC_ATTR_INT},
    {"mask_filter_value", WGC_ATTR_FLOAT},
};

const char *wgc_onnx_attr_type_name(int type)
{
    static const char *names[] = {"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH",
                                  "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS"};
    return type >= 0 && type <= WGC_ATTR_GRAPHS ? names[type] : "unknown";
}

wg_status wgc_onnx_check_attr_type(const wgc_onnx_ctx *c, const wgc_node *n, const wgc_attr *a)
{
    const bool ms = !strcmp(n->domain, wgc_domain_name(WGC_DOMAIN_MS));
    if (!ms && !wgc_is_default_domain(n->domain))
        return WG_OK;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (strcmp(known[i].name, a->name))
            continue;
        int want = known[i].type;
        /* an integer where a float is expected is harmless (the getter converts it) */
        if (a->type == want || (want == WGC_ATTR_FLOAT && a->type == WGC_ATTR_INT))
            return WG_OK;
        if (ms)
            return wgc_onnx_fail(c, WG_ERR_INVALID,
                                 "node '%s' (%s, domain %s): attribute '%s' has type %s, but "
                                 "onnxruntime defines it as %s", n->name, n->op_type, n->domain,
                                 a->name, wgc_onnx_attr_type_name(a->type),
                                 wgc_onnx_attr_type_name(want));
        return wgc_onnx_fail(c, WG_ERR_INVALID,
                             "node '%s' (%s): attribute '%s' has type %s, but ONNX defines it as %s",
                             n->name, n->op_type, a->name, wgc_onnx_attr_type_name(a->type),
                             wgc_onnx_attr_type_name(want));
    }
    return WG_OK;
}
