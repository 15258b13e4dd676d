/* model_info.c: wg_model_inspect, a module's metadata and ABI checks (inspect.h) without
 * compiling or instantiating it, and wg_model_get_info for a loaded model. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC */
#endif
#include "host.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static wg_status inspect(const uint8_t *bytes, size_t len, const char *name, wg_model_info **out,
                         char *err, size_t errlen)
{
    char detail[900];
    wgh_module_info *info = malloc(sizeof *info);
    if (!info) {
        snprintf(err, errlen, "%s: out of memory", name);
        return WG_ERR_NOMEM;
    }
    wg_status st = wgh_inspect(bytes, len, 0, info, detail, sizeof detail);
    if (st) {
        snprintf(err, errlen, "%s: %s", name, detail);
        free(info);
        return st;
    }
    *out = &info->pub;
    return WG_OK;
}

wg_status wg_model_inspect_bytes(const uint8_t *bytes, size_t len, const char *name,
                                 wg_model_info **out, char *err, size_t errlen)
{
    char none[1];
    if (!err || !errlen)
        err = none, errlen = sizeof none;
    *out = NULL;
    return inspect(bytes, len, name ? name : "<module>", out, err, errlen);
}

wg_status wg_model_inspect(const char *path, wg_model_info **out, char *err, size_t errlen)
{
    char none[1];
    struct stat sb;
    if (!err || !errlen)
        err = none, errlen = sizeof none;
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return WG_ERR_IO;
    }
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (uint64_t)sb.st_size <= SIZE_MAX) {
        /* Mapped, as wg_model_load does: the checks read only headers and small sections,
         * so the weights of a large module are never read. */
        size_t len = (size_t)sb.st_size;
        void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (map != MAP_FAILED) {
            wg_status st = inspect(map, len, path, out, err, errlen);
            munmap(map, len);
            return st;
        }
    } else {
        close(fd);
    }
    /* Pipes, empty files, or no mapping: read it all (this also reports empty files). */
    uint8_t *bytes;
    size_t len;
    wg_status st = wgh_read_file(path, &bytes, &len, err, errlen);
    if (st)
        return st;
    st = inspect(bytes, len, path, out, err, errlen);
    free(bytes);
    return st;
}

void wg_model_info_free(wg_model_info *info)
{
    if (!info)
        return;
    wgh_module_info *full = (wgh_module_info *)((char *)info - offsetof(wgh_module_info, pub));
    wgh_module_info_free(full);
    free(full);
}

const wg_model_info *wg_model_get_info(const wg_model *m)
{
    return &m->info.pub;
}
