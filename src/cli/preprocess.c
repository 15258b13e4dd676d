/* preprocess.c: see preprocess.h. */
#include "preprocess.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

wg_cli_prep wg_cli_prep_defaults(void)
{
    return (wg_cli_prep){.scale = 1, .std = {1, 1, 1}};
}

/* "a,b,c" or one value for all three. */
static bool parse_triple(const char *s, float out[3])
{
    char *end;
    for (int i = 0; i < 3; i++) {
        out[i] = strtof(s, &end);
        if (end == s)
            return false;
        if (i == 0 && !*end) {
            out[1] = out[2] = out[0];
            return true;
        }
        if (i < 2 && *end != ',')
            return false;
        s = end + 1;
    }
    return !*end;
}

int wg_cli_prep_option(const char *usage, const char *o, const char *val, wg_cli_prep *p)
{
    if (!strcmp(o, "--crop")) {
        p->crop = p->has_crop = true;
        return 1;
    }
    if (!strcmp(o, "--bgr")) {
        p->bgr = p->has_bgr = true;
        return 1;
    }
    if (!strcmp(o, "--gray")) {
        p->gray = p->has_gray = true;
        return 1;
    }
    bool size = !strcmp(o, "--size"), mean = !strcmp(o, "--mean"), std = !strcmp(o, "--std");
    bool scale = !strcmp(o, "--scale"), layout = !strcmp(o, "--layout");
    if (!size && !mean && !std && !scale && !layout)
        return 0;
    if (!val) {
        wg_cli_usage(usage, "%s needs a value", o);
        return -1;
    }
    if (size) {
        if (!wg_cli_parse_u64(val, 1, 16384, &p->size)) {
            wg_cli_usage(usage, "--size needs a positive integer");
            return -1;
        }
        p->has_size = true;
    } else if (mean || std) {
        if (!parse_triple(val, mean ? p->mean : p->std)) {
            wg_cli_usage(usage, "%s needs R,G,B numbers (or one number)", o);
            return -1;
        }
        if (std && (p->std[0] == 0 || p->std[1] == 0 || p->std[2] == 0)) {
            wg_cli_usage(usage, "--std must not be zero");
            return -1;
        }
        *(mean ? &p->has_mean : &p->has_std) = true;
    } else if (scale) {
        char *end;
        p->scale = strtof(val, &end);
        if (*end || !(p->scale > 0)) {
            wg_cli_usage(usage, "--scale needs a positive number");
            return -1;
        }
        p->has_scale = true;
    } else {
        if (strcmp(val, "nchw") && strcmp(val, "nhwc")) {
            wg_cli_usage(usage, "--layout is nchw or nhwc");
            return -1;
        }
        p->layout_set = true;
        p->nhwc = !strcmp(val, "nhwc");
    }
    return 2;
}

int wg_cli_prep_parse(const char *usage, const char *spec, wg_cli_prep *p)
{
    char *copy = strdup(spec), *words[64];
    if (!copy)
        return wg_cli_fail("out of memory");
    int n = 0, rc = 0;
    for (char *w = strtok(copy, " \t"); w; w = strtok(NULL, " \t")) {
        if (n == 64) {
            rc = wg_cli_usage(usage, "--preprocess: too many words");
            goto done;
        }
        words[n++] = w;
    }
    for (int i = 0; i < n; i++) {
        int took = wg_cli_prep_option(usage, words[i], i + 1 < n ? words[i + 1] : NULL, p);
        if (took < 0) {
            rc = 2;
            goto done;
        }
        if (took == 0) {
            rc = wg_cli_usage(usage, "--preprocess: '%s' is not a preprocessing option "
                              "(--size --crop --mean --std --scale --bgr --gray --layout)", words[i]);
            goto done;
        }
        i += took - 1;
    }
done:
    free(copy);
    return rc;
}

char *wg_cli_prep_json(const wg_cli_prep *p)
{
    char *s = malloc(512);
    if (!s)
        return NULL;
    /* %.9g: a float comes back exactly from its decimal text */
    snprintf(s, 512,
             "{\"size\":%llu,\"crop\":%s,\"scale\":%.9g,\"mean\":[%.9g,%.9g,%.9g],\"std\":[%.9g,%.9g,%.9g],"
             "\"bgr\":%s,\"gray\":%s,\"layout\":\"%s\"}",
             (unsigned long long)p->size, p->crop ? "true" : "false", (double)p->scale, (double)p->mean[0],
             (double)p->mean[1], (double)p->mean[2], (double)p->std[0], (double)p->std[1], (double)p->std[2],
             p->bgr ? "true" : "false", p->gray ? "true" : "false",
             p->layout_set ? (p->nhwc ? "nhwc" : "nchw") : "auto");
    return s;
}

static bool get_triple(const wg_json *j, float out[3])
{
    if (!j || j->type != WG_JSON_ARRAY || j->n != 3)
        return false;
    for (int i = 0; i < 3; i++) {
        if (j->items[i].type != WG_JSON_NUMBER)
            return false;
        out[i] = (float)j->items[i].num;
    }
    return true;
}

bool wg_cli_prep_from_json(const wg_json *j, wg_cli_prep *p, char *err, size_t errlen)
{
    const wg_json *size = wg_json_get(j, "size"), *scale = wg_json_get(j, "scale");
    const char *layout = wg_json_str(wg_json_get(j, "layout"));
    int64_t sz;
    bool crop, bgr, gray;
    float mean[3], std[3];
    if (!j || j->type != WG_JSON_OBJECT || !wg_json_int(size, &sz) || sz < 0 || sz > 16384 ||
        !wg_json_bool(wg_json_get(j, "crop"), &crop) || !wg_json_bool(wg_json_get(j, "bgr"), &bgr) ||
        !wg_json_bool(wg_json_get(j, "gray"), &gray) || !scale || scale->type != WG_JSON_NUMBER ||
        !(scale->num > 0) || !get_triple(wg_json_get(j, "mean"), mean) ||
        !get_triple(wg_json_get(j, "std"), std) || !std[0] || !std[1] || !std[2] || !layout ||
        (strcmp(layout, "auto") && strcmp(layout, "nchw") && strcmp(layout, "nhwc"))) {
        snprintf(err, errlen, "metadata: \"preprocess\" is not an object of size, crop, scale, mean, "
                              "std, bgr, gray, layout");
        return false;
    }
    if (!p->has_size && sz)
        p->size = (uint64_t)sz, p->has_size = true;
    if (!p->has_crop)
        p->crop = crop;
    if (!p->has_bgr)
        p->bgr = bgr;
    if (!p->has_gray)
        p->gray = gray;
    if (!p->has_scale)
        p->scale = (float)scale->num;
    if (!p->has_mean)
        memcpy(p->mean, mean, sizeof mean);
    if (!p->has_std)
        memcpy(p->std, std, sizeof std);
    if (!p->layout_set && strcmp(layout, "auto"))
        p->layout_set = true, p->nhwc = !strcmp(layout, "nhwc");
    return true;
}
