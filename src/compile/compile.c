/* compile.c: the pipeline: read -> passes -> plan -> generate C -> clang/wasm-ld -> module. */
#include "compile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../codegen/codegen.h"
#include "../onnx/onnx_reader.h"
#include "../passes/passes.h"
#include "../plan/plan.h"
#include "../select/select.h"

/* The passes, in order. Folding happens inside infer (see passes/infer.c for why). */
static const struct {
    const char *name;
    wgc_pass_fn run;
} pipeline[] = {
    {"lower-fp16", wgc_pass_lower_fp16},
    {"infer", wgc_pass_infer},
    {"expand-gradient", wgc_pass_expand_gradient},
    {"remove-identity", wgc_pass_remove_identity},
    {"remove-dead", wgc_pass_remove_dead},
    {"match-qdq", wgc_pass_match_qdq},
    {"fold-batchnorm", wgc_pass_fold_batchnorm},
    {"match-hardswish", wgc_pass_match_hardswish},
    {"match-gelu", wgc_pass_match_gelu},
    {"fuse-matmul-epilogue", wgc_pass_fuse_matmul_epilogue},
    {"fuse-epilogue", wgc_pass_fuse_epilogue},
    {"fuse-qconv-epilogue", wgc_pass_fuse_qconv_epilogue},
    {"fuse-bn-output", wgc_pass_fuse_bn_output},
    {"flush-denormals", wgc_pass_flush_denormals},
    {"remove-dead", wgc_pass_remove_dead},
    /* after every rewrite: decides each node's kernel (node->impl) on the final graph */
    {"select-kernels", wgc_pass_select_kernels},
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

wg_status wgc_compile_graph(const wgc_options *opt, wgc_graph **out, char *err, size_t errlen)
{
    wgc_graph *g = NULL;
    *out = NULL;
    wg_status st = wgc_onnx_load(opt->model_path, &g, err, errlen);
    if (st)
        return st;
    if ((st = wgc_bind_consts(g, opt))) {
        snprintf(err, errlen, "%s: %s", opt->model_path, g->err);
        wgc_graph_free(g);
        return st;
    }
    wgc_pass_options popt = {.n_shapes = opt->n_shapes, .simd = opt->simd || opt->relaxed_simd,
                             .threads = opt->threads};
    memcpy(popt.shapes, opt->shapes, sizeof popt.shapes);
    memcpy(popt.dims, opt->dims, sizeof popt.dims);
    popt.n_dims = opt->n_dims;
    for (size_t i = 0; i < sizeof pipeline / sizeof pipeline[0]; i++) {
        st = pipeline[i].run(g, &popt);
        if (st) {
            if (st == WG_ERR_UNSUPPORTED)
                wgc_hint_const_inputs(g);
            snprintf(err, errlen, "%s: %s", opt->model_path, g->err);
            wgc_graph_free(g);
            return st;
        }
    }
    *out = g;
    return WG_OK;
}

wgc_codegen_options wgc_codegen_options_of(const wgc_options *opt)
{
    return (wgc_codegen_options){
        .model_path = opt->model_path,
        .output_path = opt->output_path,
        .emit_c_dir = opt->emit_c_dir,
        .opt_level = opt->opt_level,
        .simd = opt->simd,
        .relaxed_simd = opt->relaxed_simd,
        .profile = opt->profile,
        .threads = opt->threads,
        .preprocess_json = opt->preprocess_json,
        .generation_json = opt->generation_json,
    };
}

wg_status wgc_compile(const wgc_options *opt, wgc_summary *summary, char *err, size_t errlen)
{
    double t0 = now();
    wgc_graph *g = NULL;
    wgc_plan plan = {0};
    wgc_emitter e;
    wgc_layout layout = {0};
    char *src = NULL;
    bool have_emitter = false;
    memset(summary, 0, sizeof *summary);
    wg_status st = wgc_compile_graph(opt, &g, err, errlen);
    if (st)
        return st;
    plan.threads = opt->threads; /* each thread its own scratch region */
    if ((st = wgc_plan_memory(g, &plan)))
        goto fail;
    wgc_target target = {opt->simd || opt->relaxed_simd, opt->relaxed_simd, opt->opt_level, opt->threads};
    if ((st = wgc_emitter_init(&e, g, &plan, &target)))
        goto fail;
    have_emitter = true;
    const wgc_codegen_options copt = wgc_codegen_options_of(opt);
    if ((st = wgc_generate_c(g, &plan, &copt, &e, &layout, &src)))
        goto fail;
    if ((st = wgc_build_module(g, &copt, src, &e, &layout)))
        goto fail;
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].dead)
            summary->folded++;
        else
            summary->nodes++;
    summary->arena_bytes = layout.arena_bytes;
    summary->weight_bytes = layout.weight_bytes;
    summary->memory_bytes = layout.memory_bytes;
    struct stat sb;
    if (stat(opt->output_path, &sb) == 0)
        summary->module_bytes = (uint64_t)sb.st_size;
    summary->seconds = now() - t0;
    for (int i = 0; i < g->n_nodes; i++) {
        const char *why = wgc_attr_str(&g->nodes[i], "failed", NULL);
        size_t used = strlen(summary->notes);
        if (why && (g->nodes[i].op == WGC_OP_BODY_BEGIN || g->nodes[i].op == WGC_OP_BODY_ELSE))
            snprintf(summary->notes + used, sizeof summary->notes - used,
                     "%s of the If: invalid for these input shapes, returns status 11 "
                     "(WGK_ERR_BRANCH) if taken: %s\n",
                     g->nodes[i].op == WGC_OP_BODY_BEGIN ? "the then branch" : "the else branch", why);
    }
fail:
    if (st == WG_ERR_UNSUPPORTED)
        wgc_hint_const_inputs(g);
    if (st)
        snprintf(err, errlen, "%s: %s", opt->model_path, g->err);
    free(src);
    if (have_emitter)
        wgc_emitter_free(&e);
    wgc_plan_free(&plan);
    wgc_graph_free(g);
    return st;
}
